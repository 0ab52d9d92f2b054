/* SPDX-License-Identifier: MIT */
/*
 * The heap's lock hooks (include/arch/lock.h) for the sandbox, whose CPUs
 * are host threads the host's scheduler preempts at will: a lock that
 * sleeps on a futex instead of keel's ticket lock. A ticket lock hands the
 * lock, in order, to the next waiter whether or not it is running, so two
 * threads on one node of a busy host spend their CPU spinning behind a
 * descheduled holder or waiter (issue 37: 40x the CPU per operation).
 * Here the lock goes to whoever is running when it is free: a short spin,
 * then a futex sleep (the classic three-state mutex: 0 free, 1 held, 2
 * held with sleepers). Interrupts (signals) are masked by the caller.
 */
#include <arch/lock.h>
#include <asm/os.h>
#include <keel/atomic.h>

#define SPINS	       64
#define WAIT_SAFETY_NS 10000000ull /* a lost wake-up costs 10 ms, no more */

static uint32_t *word(arch_lock_t *l)
{
	return (uint32_t *)l->words;
}

void arch_lock_init(arch_lock_t *l)
{
	__atomic_store_n(word(l), 0, __ATOMIC_RELAXED);
}

void arch_lock(arch_lock_t *l)
{
	uint32_t *w = word(l), c = 0;

	for (unsigned int i = 0; i < SPINS; i++) {
		c = 0;
		if (__atomic_compare_exchange_n(w, &c, 1, false,
						__ATOMIC_ACQUIRE,
						__ATOMIC_RELAXED))
			return;
		if (c == 2)
			break;
		__asm__ volatile("" ::: "memory");
	}
	if (c != 2)
		c = __atomic_exchange_n(w, 2, __ATOMIC_ACQUIRE);
	while (c != 0) {
		os_futex_wait(w, 2, WAIT_SAFETY_NS);
		c = __atomic_exchange_n(w, 2, __ATOMIC_ACQUIRE);
	}
}

void arch_unlock(arch_lock_t *l)
{
	if (__atomic_exchange_n(word(l), 0, __ATOMIC_RELEASE) == 2)
		os_futex_wake(word(l));
}
