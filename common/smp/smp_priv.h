/* SPDX-License-Identifier: MIT */
/*
 * What common/smp/smp.c (the CPU table, work dispatch) and smp_boot.c
 * (bring-up) share. Not an interface: nothing outside common/smp/
 * includes it.
 */
#ifndef COMMON_SMP_PRIV_H
#define COMMON_SMP_PRIV_H

#include <keel/compiler.h>
#include <keel/types.h>

/*
 * The bring-up's arrays (common/smp/smp_boot.c), in cpu_table's bootmem
 * block: their bytes per CPU, and their carving from @p for @count CPUs.
 */
size_t smp_boot_arrays_bytes(void);
void smp_boot_arrays_carve(char *p, unsigned int count);

/*
 * What the bring-up records in cpu_table (common/smp/smp.c, its one
 * writer): @cpu accepted (online), left out for @reason, its timer skew.
 * Boot CPU.
 */
void smp_cpu_accepted(unsigned int cpu);
void smp_cpu_failed(unsigned int cpu, const char *reason);
void smp_cpu_skew(unsigned int cpu, int64_t ticks);

/* A secondary, accepted: run what is posted to its mailbox, forever. */
__noreturn void smp_serve_mailbox(unsigned int cpu);

#endif /* COMMON_SMP_PRIV_H */
