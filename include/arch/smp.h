/* SPDX-License-Identifier: MIT */
/*
 * Arch hooks: starting secondary CPUs. common/smp_boot.c decides which CPUs
 * to start, allocates their stacks on their own node and waits (bounded) for
 * each to check in; the arch only knows how to kick one.
 */
#ifndef ARCH_SMP_H
#define ARCH_SMP_H

#include <keel/types.h>

/*
 * Start CPU @cpu (logical index) whose firmware id is @hwid (APIC ID, MPIDR).
 * The new CPU sets up whatever it needs so that arch_cpu_id() returns @cpu,
 * switches to @stack_top (a virtual address; may be 0 when the arch brings
 * its own stacks, as the sandbox does) and calls smp_secondary_main(@cpu),
 * which never returns.
 * Return: 0 when the start request was delivered, negative errno otherwise
 * (the CPU is then reported as failed and left out).
 */
int arch_cpu_start(unsigned int cpu, uint64_t hwid, uintptr_t stack_top);

/* One-time arch work before the first arch_cpu_start() (trampoline, ...). */
int arch_smp_prepare(void);

/* Called in the arch-neutral entry of each secondary, in common/smp_boot.c. */
__attribute__((noreturn)) void smp_secondary_main(unsigned int cpu);

#endif
