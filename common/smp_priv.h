/* SPDX-License-Identifier: MIT */
/*
 * What common/smp.c (the CPU table, work dispatch) and common/smp_boot.c
 * (bring-up) share. Not an interface: nothing outside common/smp*.c
 * includes it.
 */
#ifndef COMMON_SMP_PRIV_H
#define COMMON_SMP_PRIV_H

/* cpu_table and the bring-up arrays for @count CPUs (common/smp_boot.c). */
void smp_alloc_tables(unsigned int count);

#endif /* COMMON_SMP_PRIV_H */
