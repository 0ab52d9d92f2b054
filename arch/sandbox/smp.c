/* SPDX-License-Identifier: MIT */
/*
 * Sandbox arch hooks of <arch/smp.h>: each secondary CPU is a detached
 * host thread (os_thread_start()) pinned round-robin to the host CPUs; its
 * logical id is set for arch_cpu_id() first thing.
 *
 * Threads of a previous boot (unit tests boot several machines in one
 * process) are cancelled when a new arena is mapped (their per-CPU state
 * lived in the old one) or their logical CPU is started again: the
 * secondary loop spins in arch_cpu_relax(), which is a cancellation point.
 */
#include <arch/cpu.h>
#include <arch/smp.h>
#include <asm/os.h>
#include <asm/sandbox.h>
#include <keel/cpumask.h>
#include <keel/errno.h>

#include "sandbox_priv.h"

struct sandbox_cpu {
	struct os_thread thread; /* the running thread writes to it */
	bool started;
};

/*
 * Thread slots, allocated 64 at a time as CPUs are started (never moved:
 * a running thread holds a pointer to its slot), so a 4096-CPU build costs
 * a table of 64 pointers, not 4096 slots.
 */
#define CPU_SLOTS_PER_CHUNK 64
static struct sandbox_cpu
	*sandbox_cpu_chunk[(NR_CPUS + CPU_SLOTS_PER_CHUNK - 1) /
			   CPU_SLOTS_PER_CHUNK];

/* Return: the slot of @cpu (< NR_CPUS), or NULL when @alloc is false or
 * memory is short. */
static struct sandbox_cpu *cpu_slot(unsigned int cpu, bool alloc)
{
	struct sandbox_cpu **chunk =
		&sandbox_cpu_chunk[cpu / CPU_SLOTS_PER_CHUNK];

	if (!*chunk && alloc)
		*chunk = os_calloc(CPU_SLOTS_PER_CHUNK, sizeof(**chunk));
	return *chunk ? &(*chunk)[cpu % CPU_SLOTS_PER_CHUNK] : NULL;
}

/**
 * arch_smp_prepare() - nothing to prepare for pthreads.
 *
 * Return: 0.
 */
int arch_smp_prepare(void)
{
	return 0;
}

static void cpu_thread(void *arg)
{
	unsigned int cpu = (unsigned int)(uintptr_t)arg;

	sandbox_set_cpu_id(cpu);
	smp_secondary_main(cpu);
}

/*
 * Retire the thread of an earlier boot that still serves logical @cpu. It
 * is idle (parked or polling its mailbox), so it holds no lock when the
 * cancellation reaches it in arch_cpu_relax().
 */
static void retire_cpu(unsigned int cpu)
{
	struct sandbox_cpu *sc = cpu_slot(cpu, false);

	if (!sc || !sc->started)
		return;
	os_thread_cancel(&sc->thread);
	sc->started = false;
}

/**
 * sandbox_retire_all_cpus() - before a new arena replaces the old one (the next boot of a unit test):
 * the threads of the last boot poll per-CPU state that lives in the arena.
 */
void sandbox_retire_all_cpus(void)
{
	for (unsigned int cpu = 1; cpu < NR_CPUS; cpu++)
		retire_cpu(cpu);
}

/**
 * arch_cpu_start() - start logical CPU @cpu as a detached host thread.
 * @cpu: logical id (also the pinning slot, round-robin on host CPUs)
 * @hwid: unused on the sandbox
 * @stack_top: unused: pthreads bring their own stack
 *
 * Return: 0, or -errno when the thread cannot be created.
 */
int arch_cpu_start(unsigned int cpu, uint64_t hwid, uintptr_t stack_top)
{
	struct sandbox_cpu *sc;
	int err;

	(void)hwid;
	(void)stack_top;
	if (cpu == 0 || cpu >= NR_CPUS)
		return -EINVAL;
	sc = cpu_slot(cpu, true);
	if (!sc)
		return -ENOMEM;
	retire_cpu(cpu);

	err = os_thread_start(&sc->thread, cpu_thread, (void *)(uintptr_t)cpu,
			      cpu % sandbox_host_cpus());
	if (err)
		return err;
	sc->started = true;
	return 0;
}
