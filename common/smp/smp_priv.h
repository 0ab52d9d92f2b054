/* SPDX-License-Identifier: MIT */
/*
 * What common/smp/smp.c (the CPU table, work dispatch) and smp_boot.c
 * (bring-up) share. Not an interface: nothing outside common/smp/
 * includes it.
 */
#ifndef COMMON_SMP_PRIV_H
#define COMMON_SMP_PRIV_H

/* cpu_table and the bring-up arrays for @count CPUs (common/smp_boot.c). */
void smp_alloc_tables(unsigned int count);

/* After publishing done_seq: wake the CPU waiting in smp_wait(), if any. */
void smp_wake_waiter(void);

#endif /* COMMON_SMP_PRIV_H */
