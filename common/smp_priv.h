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

/* Bring-up times and ids for the report (common/smp_boot.c). */
uint64_t smp_bringup_ns(void);
bool smp_cpu_up_ns(unsigned int cpu, uint64_t *ns);
bool smp_cpu_hwid_seen(unsigned int cpu, uint64_t *hwid);

/* After publishing done_seq: wake the CPU waiting in smp_wait(), if any. */
void smp_wake_waiter(void);

#endif /* COMMON_SMP_PRIV_H */
