/* SPDX-License-Identifier: MIT */
/*
 * Sandbox arch hooks of <arch/smp.h>: each secondary CPU is a detached
 * host thread (os_thread_start()) pinned round-robin to the host CPUs; its
 * logical id and firmware id are set for arch_cpu_id() and arch_cpu_hwid()
 * first thing, and then the time it began to run: a thread the host has
 * not run yet is not a dead CPU (arch_cpu_clock_start()), so a busy host
 * cannot make the boot give up on it.
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
#include <keel/atomic.h>
#include <keel/compiler.h>
#include <keel/cpumask.h>
#include <keel/errno.h>

#include "sandbox_priv.h"

struct sandbox_cpu {
	struct os_thread thread; /* the running thread writes to it */
	uint64_t hwid;		 /* written before the thread starts */
	uint64_t run_ticks;	 /* the thread's first ticks; 0: not yet */
	uint32_t wake;		 /* 1: a wake-up is posted (arch_cpu_wake) */
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
int arch_smp_prepare(const struct arch_smp_params *p)
{
	return 0;
}

static void cpu_thread(void *arg)
{
	unsigned int cpu = (unsigned int)(uintptr_t)arg;
	struct sandbox_cpu *sc = cpu_slot(cpu, false);

	sandbox_set_cpu_id(cpu, sc->hwid);
	atomic_store_release(&sc->run_ticks, MAX(arch_ticks(), 1));
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
 * @hwid: its firmware id (arch_cpu_hwid() on the thread)
 * @stack_top: unused: pthreads bring their own stack
 *
 * Return: 0, or -errno when the thread cannot be created.
 */
int arch_cpu_start(unsigned int cpu, uint64_t hwid, uintptr_t stack_top)
{
	struct sandbox_cpu *sc;
	int err;

	(void)stack_top;
	if (cpu == 0 || cpu >= NR_CPUS)
		return -EINVAL;
	sc = cpu_slot(cpu, true);
	if (!sc)
		return -ENOMEM;
	retire_cpu(cpu);
	sc->hwid = hwid;
	sc->wake = 0;
	atomic_store_release(&sc->run_ticks, 0);
	err = os_thread_start(&sc->thread, cpu_thread, (void *)(uintptr_t)cpu,
			      cpu % sandbox_host_cpus());
	if (err)
		return err;
	sc->started = true;
	return 0;
}

/**
 * arch_cpu_start_commit() - nothing: each thread runs once created.
 */
void arch_cpu_start_commit(void)
{
}

/**
 * arch_cpu_clock_start() - when the thread of @cpu began to run.
 * @cpu: a started CPU
 * Return: its first ticks, or UINT64_MAX while the host has not run it.
 */
uint64_t arch_cpu_clock_start(unsigned int cpu)
{
	struct sandbox_cpu *sc = cpu_slot(cpu, false);
	uint64_t t = sc ? atomic_load_acquire(&sc->run_ticks) : 0;

	return t ? t : UINT64_MAX;
}

/**
 * sandbox_cpu_wake_word() - the wake-up word of logical CPU @cpu.
 * @cpu: a secondary
 * Return: the word (in its thread slot), NULL for the boot CPU or a CPU
 * never started.
 */
uint32_t *sandbox_cpu_wake_word(unsigned int cpu)
{
	struct sandbox_cpu *sc;

	if (cpu == 0 || cpu >= NR_CPUS)
		return NULL;
	sc = cpu_slot(cpu, false);
	return sc ? &sc->wake : NULL;
}

/**
 * sandbox_cpu_thread_exited() - whether the thread of @cpu has ended (it
 * stopped for a live update: arch_lu_cpu_stop()); it is then no longer
 * started, so that nothing cancels it again.
 * Return: true when it ended, or never ran.
 */
bool sandbox_cpu_thread_exited(unsigned int cpu)
{
	struct sandbox_cpu *sc = cpu < NR_CPUS ? cpu_slot(cpu, false) : NULL;

	if (!sc || !sc->started)
		return true;
	if (!atomic_load_acquire(&sc->thread.exited))
		return false;
	sc->started = false;
	return true;
}
