/* SPDX-License-Identifier: MIT */
/*
 * Owner: lib.
 * A ticket lock: fair, so no node lock can starve a CPU during scrub/stress.
 *
 * A lock that an interrupt handler may take, or whose hold time bounds
 * interrupt latency (the heap's node locks: docs/design.md), is taken with
 * spin_lock_irqsave() and dropped with spin_unlock_irqrestore(): the
 * interrupts-off tracer (<keel/irqsoff.h>) then times the region, from
 * before the wait for the lock, and names the caller.
 */
#ifndef KEEL_SPINLOCK_H
#define KEEL_SPINLOCK_H

#include <keel/atomic.h>
#include <keel/irqsoff.h>
#include <arch/cpu.h>

typedef struct {
	uint32_t next;
	uint32_t owner;
} spinlock_t;

#define SPINLOCK_INIT \
	{             \
		0, 0  \
	}

static inline void spin_lock_init(spinlock_t *l)
{
	l->next = 0;
	l->owner = 0;
}

static inline void spin_lock(spinlock_t *l)
{
	uint32_t ticket = atomic_fetch_add(&l->next, 1);

	while (atomic_load_acquire(&l->owner) != ticket)
		arch_cpu_relax();
}

static inline void spin_unlock(spinlock_t *l)
{
	atomic_store_release(&l->owner, l->owner + 1);
}

/* Mask interrupts (a traced region named @site), then take @l. */
static inline irqflags_t spin_lock_irqsave_at(spinlock_t *l, const char *site)
{
	irqflags_t f = irq_save_at(site);

	spin_lock(l);
	return f;
}

#define spin_lock_irqsave(l, flags) \
	((flags) = spin_lock_irqsave_at((l), __func__))

static inline void spin_unlock_irqrestore(spinlock_t *l, irqflags_t flags)
{
	spin_unlock(l);
	irq_restore(flags);
}

static inline bool spin_is_locked(spinlock_t *l)
{
	return atomic_load_relaxed(&l->owner) != atomic_load_relaxed(&l->next);
}

#endif
