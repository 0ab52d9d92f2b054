/* SPDX-License-Identifier: MIT */
/*
 * The heap's lock hooks (include/arch/lock.h), one piece compiled into
 * each of keel's three arches (the .c files of arch/ itself: Makefile
 * SRCS_C): keel's ticket lock (keel/spinlock.h), fair between CPUs that
 * keep running; what differs per arch is its arch_cpu_relax(). The sandbox's
 * CPUs are host threads, preempted at will: its arch_cpu_relax() sleeps
 * after 2 ms of spinning. A futex lock here was tried: two threads on one
 * node no longer collapsed, but 256 CPU threads on a 2-core host starved
 * the latency probe (report-size-256cpu-worst); a host of that kind that
 * wants it gives its own lock (tests/embed/host.c, which the embed test
 * and the runtime benchmark share); libkeel-heap.a leaves this file out
 * (Makefile LIB_HEAP_SRCS), so a host links its own.
 */
#include <arch/lock.h>
#include <keel/spinlock.h>

_Static_assert(sizeof(spinlock_t) <= sizeof(arch_lock_t),
	       "a ticket lock fits in arch_lock_t");

static spinlock_t *ticket(arch_lock_t *l)
{
	return (spinlock_t *)l->words;
}

void arch_lock_init(arch_lock_t *l)
{
	spin_lock_init(ticket(l));
}

void arch_lock(arch_lock_t *l)
{
	spin_lock(ticket(l));
}

void arch_unlock(arch_lock_t *l)
{
	spin_unlock(ticket(l));
}
