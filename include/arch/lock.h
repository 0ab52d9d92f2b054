/* SPDX-License-Identifier: MIT */
/*
 * Arch hooks: the heap's lock (every node lock and every per-CPU cache's
 * lock), a hook so that a host embedding the heap can give its own
 * (keel/hooks.h group 9, docs/embedding.md). keel's arches share keel's
 * ticket lock (keel/spinlock.h) in arch/lock.c, for every arch.
 *
 * The heap masks interrupts itself around every hold (arch_irq_save()
 * before arch_lock(), arch_irq_restore() after arch_unlock()); the hooks
 * only exclude. What they must guarantee: mutual exclusion with acquire
 * (lock) and release (unlock) ordering; usable with interrupts masked; no
 * allocation from this heap; and, on a host whose CPUs can be preempted
 * (vCPUs, user threads), that a waiter does not keep the lock from a
 * runnable thread: a ticket lock there hands the lock to a waiter that may
 * not be running, which is why a host of that kind supplies a lock that
 * blocks or yields (a mutex, or a spin that yields to the scheduler).
 */
#ifndef ARCH_LOCK_H
#define ARCH_LOCK_H

#include <keel/lock_type.h>

/* Make @l an unlocked lock (before any other use). */
void arch_lock_init(arch_lock_t *l);
/* Take @l, waiting as long as needed; acquire ordering. */
void arch_lock(arch_lock_t *l);
/* Drop @l (held by the caller); release ordering. */
void arch_unlock(arch_lock_t *l);

#endif
