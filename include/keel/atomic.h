/* SPDX-License-Identifier: MIT */
/*
 * Owner: lib.
 * Atomics are the compiler's __atomic builtins: they are the same on every
 * arch (arm64 is built with -mno-outline-atomics so they expand inline).
 */
#ifndef KEEL_ATOMIC_H
#define KEEL_ATOMIC_H

#include <keel/types.h>

#define atomic_load_acquire(p)	   __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define atomic_load_relaxed(p)	   __atomic_load_n((p), __ATOMIC_RELAXED)
#define atomic_store_release(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)
#define atomic_store_relaxed(p, v) __atomic_store_n((p), (v), __ATOMIC_RELAXED)
#define atomic_fetch_add(p, v)	   __atomic_fetch_add((p), (v), __ATOMIC_ACQ_REL)
#define atomic_fetch_add_relaxed(p, v) \
	__atomic_fetch_add((p), (v), __ATOMIC_RELAXED)
#define atomic_fetch_sub(p, v) __atomic_fetch_sub((p), (v), __ATOMIC_ACQ_REL)
#define atomic_fetch_or(p, v)  __atomic_fetch_or((p), (v), __ATOMIC_ACQ_REL)
#define atomic_cmpxchg(p, expected_ptr, desired)                           \
	__atomic_compare_exchange_n((p), (expected_ptr), (desired), false, \
				    __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)
#define smp_mb() __atomic_thread_fence(__ATOMIC_SEQ_CST)
/*
 * Sequentially consistent load and store: for a store-then-load handshake
 * between two CPUs (each stores its flag, then loads the other's), which
 * a fence would also order but TSan cannot check a fence.
 */
#define atomic_load_seq_cst(p)	   __atomic_load_n((p), __ATOMIC_SEQ_CST)
#define atomic_store_seq_cst(p, v) __atomic_store_n((p), (v), __ATOMIC_SEQ_CST)

#endif
