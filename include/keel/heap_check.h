/* SPDX-License-Identifier: MIT */
/*
 * Owner: mm.
 * Looking inside the heap (common/mm/heap_check.c,
 * common/report/heap_report.c): the node lock as a type, counters read under
 * it, range membership, the walk of every block, heap_check() and the report.
 * For the audit, the report, the benchmarks and the stress test; the runtime
 * API is keel/heap.h.
 */
#ifndef KEEL_HEAP_CHECK_H
#define KEEL_HEAP_CHECK_H

#include <keel/heap.h>

#ifdef __cplusplus
extern "C" {
#endif

struct jw;

/*
 * The node lock is in the type: functions that need it take a
 * struct heap_node_locked.
 */
struct heap_node;
struct heap_node_locked {
	struct heap_node *hn;
};
/*
 * Taken with interrupts masked (spin_lock_irqsave: docs/design.md says
 * why); the interrupts-off tracer names the caller (@site).
 */
struct heap_node_locked heap_lock_node_at(uint32_t node, const char *site);
#define heap_lock_node(node) heap_lock_node_at((node), __func__)
void heap_unlock_node(struct heap_node_locked l);
/*
 * heap_stats_all(): heap_stats(HEAP_ALL_NODES, @owner) by value, for
 * keel's report, checks and tests, which read one counter at a time
 * (heap_stats_all(0).free_pages).
 */
static inline struct heap_stats heap_stats_all(uint16_t owner)
{
	struct heap_stats st;

	heap_stats(HEAP_ALL_NODES, owner, &st);
	return st;
}
/* The locked node's counters (valid while the lock is held). */
const struct heap_stats *heap_node_stats_locked(struct heap_node_locked l);
/*
 * Hold statistics: off by default, so that no clock is read while a node
 * lock is held; heap_set_lock_stats(true) times every hold (lock_max_ticks,
 * heap_alloc_info.lock_ticks). heap_reset_lock_stats() forgets every
 * node's lock_max_ticks and switches them on (benchmarks measure from
 * here).
 */
void heap_set_lock_stats(bool on);
void heap_reset_lock_stats(void);

/*
 * Pages held in the per-CPU caches, of @node (all: < 0), only the dirty
 * ones with @dirty. Racy reads, no lock.
 */
uint64_t heap_cached_pages(int node, bool dirty);
/* Whether the per-CPU caches are on (heap_set_cpu_caches()). */
bool heap_cpu_caches_on(void);
/* Pages @owner holds on @node (0: all owners): the node's own counter. */
uint64_t heap_owned_node_pages(uint16_t owner, uint32_t node);

/*
 * Node-lock acquisitions by CPU @cpu since heap_init(), counted per CPU
 * in its cache slot (0 for a CPU without one). Racy read, no lock.
 */
uint64_t heap_cpu_node_locks(unsigned int cpu);

/*
 * Offlined pages (heap_offline(), common/mm/heap_offline.c).
 * heap_held_bad_pages(): pages offlined while in @owner's extents (0:
 * keel's anonymous blocks), not yet withheld by their free: a domain
 * report's bad_pages. heap_for_each_bad(): @fn for each offlined page of
 * @node, under its lock (@fn must not call the heap): @holder is
 * HEAP_OWNER_BAD for a withheld page, else the block's (HEAP_OWNER_KEEL or
 * the domain); @reason its enum heap_bad_reason. Return: pages visited.
 */
uint64_t heap_held_bad_pages(uint16_t owner);
/* Is @p a page offlined inside a block (a domain's or keel's)? Its lock. */
bool heap_page_held_bad(pfn_t p);
typedef void heap_bad_fn(pfn_t p, unsigned int reason, int holder, void *arg);
uint64_t heap_for_each_bad(uint32_t node, heap_bad_fn *fn, void *arg);
/*
 * heap_bad_version(): bumped by every page going offline or coming back
 * online, on any node: two equal reads, the same offlined pages with the
 * same reasons in between (what heap_for_each_bad() names; a withheld
 * page and a held one are the same page to it). A live update writes its
 * bad-page records before the freeze and copies them in the freeze when
 * this has not moved. No lock.
 */
uint64_t heap_bad_version(void);

/* Is [p, p + 2^order) inside one heap range of @node? Takes its lock. */
bool heap_owns(uint32_t node, pfn_t p, unsigned int order);

/*
 * heap_for_each_block(): call @fn for every block of @node in pfn order,
 * range by range: free chunks (owner HEAP_OWNER_FREE), anonymous blocks
 * (HEAP_OWNER_KEEL) and owned extents (the owner id). Reads only heads:
 * O(free chunks + blocks). Lock: the node's, held throughout; @fn must
 * not call heap functions.
 * Return: number of problems found on the way (each printed): a head that
 * does not describe itself, a block that leaves its range.
 */
unsigned int heap_for_each_block(uint32_t node,
				 void (*fn)(struct page_info *head,
					    unsigned int order, int owner,
					    void *arg),
				 void *arg);

/*
 * heap_check(): full consistency walk (audit=full, tests): alignment, order
 * bounds, zone and node membership, no overlap, counters; owned extents
 * tile their ranges with the free chunks and anonymous blocks.
 * Return: number of problems found (each printed with pr_err).
 */
unsigned int heap_check(void);

#ifdef __cplusplus
}
#endif

#endif
