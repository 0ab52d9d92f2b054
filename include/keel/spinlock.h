/* SPDX-License-Identifier: MIT */
/* A ticket lock: fair, so no node lock can starve a CPU during scrub/stress. */
#ifndef KEEL_SPINLOCK_H
#define KEEL_SPINLOCK_H

#include <keel/atomic.h>
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

static inline bool spin_is_locked(spinlock_t *l)
{
	return atomic_load_relaxed(&l->owner) != atomic_load_relaxed(&l->next);
}

#endif
