/* SPDX-License-Identifier: MIT */
/*
 * Arch hooks: starting secondary CPUs. common/smp/smp_boot.c decides which CPUs
 * to start, allocates their stacks on their own node and waits (bounded) for
 * them to check in; the arch only knows how to kick them.
 *
 * A start is two calls: arch_cpu_start() for each CPU in turn (it must not
 * wait for that CPU), then arch_cpu_start_commit() once, which finishes
 * every start asked since the last commit. smp_start=parallel asks for all
 * CPUs and commits once; smp_start=serial commits and waits after each.
 */
#ifndef ARCH_SMP_H
#define ARCH_SMP_H

#include <keel/types.h>

/*
 * Start CPU @cpu (logical index) whose firmware id is @hwid (APIC ID, MPIDR).
 * The new CPU finds its per-CPU data by its own hardware id (no shared
 * slot: any number of CPUs may be starting at once), sets up whatever it
 * needs so that arch_cpu_id() returns @cpu, switches to @stack_top (a
 * virtual address; may be 0 when the arch brings its own stacks, as the
 * sandbox does) and calls smp_secondary_main(@cpu), which never returns.
 * Return: 0 when the start request was delivered (or queued until the
 * commit), negative errno otherwise (the CPU is then reported as failed
 * and left out).
 */
int arch_cpu_start(unsigned int cpu, uint64_t hwid, uintptr_t stack_top);

/*
 * Finish the starts asked since the last call (x86_64: the INIT delay, one
 * STARTUP to each, a second STARTUP to those that did not start; nothing
 * on arm64 and the sandbox). Problems are warned; such a CPU then misses
 * its check-in.
 */
void arch_cpu_start_commit(void);

/*
 * When the check-in clock of started CPU @cpu begins: 0 = at its start
 * (hardware: a CPU that does not check in within the timeout is dead), or
 * the ticks at which it began to run, or UINT64_MAX while it has not run
 * yet (the sandbox: a host thread the host has not scheduled is not a dead
 * CPU, it gets no deadline until it runs).
 */
uint64_t arch_cpu_clock_start(unsigned int cpu);

/* init_delay_us= not given: the arch picks (x86_64: the CPU family rule). */
#define INIT_DELAY_AUTO	  (-1)
#define INIT_DELAY_MAX_US 1000000

/* What the start needs of the command line (smp_start=, init_delay_us=). */
struct arch_smp_params {
	bool serial;	   /* smp_start=serial: one CPU after another */
	int init_delay_us; /* INIT_DELAY_AUTO or 0..INIT_DELAY_MAX_US */
};

/* One-time arch work before the first arch_cpu_start() (trampoline, ...). */
int arch_smp_prepare(const struct arch_smp_params *p);

/* Called in each secondary's arch-neutral entry (common/smp/smp_boot.c). */
__attribute__((noreturn)) void smp_secondary_main(unsigned int cpu);

#endif
