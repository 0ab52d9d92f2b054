/* SPDX-License-Identifier: MIT */
/*
 * tests/bench/heap_runtime (issue 37): what its three files share. The
 * host's hooks (runtime_host.c), the reference allocator compiled only
 * into the benchmark (runtime_ref.c) and the benchmark (heap_runtime.c).
 */
#ifndef BENCH_RUNTIME_H
#define BENCH_RUNTIME_H

#include <keel/hooks.h>

/* Where the host's region lies in "physical" memory (not at 0). */
#define RT_PHYS_BASE 0x40000000ull

/* The region the hooks translate: set once, before the heap opens. */
extern unsigned char *rt_base;
extern uint64_t rt_bytes;
/* The CPU this thread runs as (arch_cpu_id()); 0 unless it says. */
extern __thread unsigned int rt_cpu;

/*
 * The host's lock (a pthread mutex in arch_lock_t) counts its own
 * acquisitions per thread, by the kind it was given at init: a lock
 * initialised while rt_init_kind says RT_LOCK_NODE (the host sets it
 * around heap_init(), which makes the node locks) is a node lock.
 */
enum rt_lock_kind { RT_LOCK_OTHER, RT_LOCK_NODE, RT_LOCK_REF, RT_LOCK_KINDS };
extern enum rt_lock_kind rt_init_kind;
extern __thread uint64_t rt_lock_count[RT_LOCK_KINDS];
/* Locks made per kind (heap_init() must make one node lock per node). */
extern uint64_t rt_lock_inits[RT_LOCK_KINDS];
/* The host's lock: "mutex", or "ticket" with RT_LOCK=ticket. */
const char *rt_lock_name(void);

/* The reference: one free list per order, one global lock (the host's). */
#define REF_MAX_ORDER 18
int ref_open(uint64_t pages);
uint64_t ref_alloc(unsigned int order); /* a pfn, or REF_NONE */
void ref_free(uint64_t pfn, unsigned int order);
uint64_t ref_free_pages(void);
bool ref_whole(void); /* all free, merged as at ref_open() */
#define REF_NONE (~0ull)

#endif
