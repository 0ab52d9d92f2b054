/* SPDX-License-Identifier: MIT */
/*
 * Owner: mm.
 * The heap's runtime API: what a hypervisor embedding keel calls once the
 * heap is open. Allocate and free by order, node and address width, for
 * keel's own use (anonymous blocks) or for a domain (owned extents); ask
 * who holds a page; read the counters.
 *
 * Everything else lives in internal headers: handoff and range tables in
 * keel/heap_boot.h, scrub support in keel/heap_scrub.h, the node lock, the
 * walks, heap_check() and the report in keel/heap_check.h.
 *
 * Locking: one spinlock per NUMA node, never nested; every function below
 * takes and drops it itself unless it says otherwise, so none may be
 * called with a node lock held. Zeroing and cache maintenance of a block
 * being allocated are done outside the lock (except cachemaint=eager, the
 * in-lock baseline, DESIGN §6).
 *
 * Metadata (DESIGN §4): a free chunk, an anonymous block and an owned
 * extent each carry one page_info write, at their head. Blocks are naturally aligned, so the block holding any page is
 * found by probing aligned-down heads (heap_owner_of()).
 */
#ifndef KEEL_HEAP_H
#define KEEL_HEAP_H

#include <keel/config.h>
#include <keel/frametable.h>
#include <keel/types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct cachemaint;

/* Largest block a caller can allocate: 2^MAX_ORDER pages (1 GiB). */
#define MAX_ORDER CONFIG_MAX_ORDER
/*
 * Free chunks may be larger than what a caller can allocate: up to
 * 2^MAX_FREE_ORDER pages (8 TiB), so that handing over a range costs one
 * head write per 8 TiB, not per 2^MAX_ORDER pages. 31 keeps first_dirty
 * offsets and the per-zone order masks 32-bit.
 */
#define MAX_FREE_ORDER 31
#define NR_ZONES       53 /* pfn bit widths 0..52 */

/* @node of heap_alloc()/heap_alloc_owned(): no preference. */
#define HEAP_ANY_NODE (-1)

/* heap_alloc()/heap_alloc_owned() @flags */
#define HEAP_EXACT_NODE (1u << 0) /* fail rather than go off-node */
#define HEAP_NO_SCRUB	(1u << 1) /* caller does not need zeroed pages */
#define HEAP_NO_FLUSH	(1u << 2) /* no cache maintenance now (see below) */
#define HEAP_ICACHE	(1u << 3) /* also invalidate the I-cache */

/*
 * What one allocation did (optional out-parameter of heap_alloc_owned(),
 * may be NULL). Ticks are arch_ticks(). With cachemaint=eager the zeroing
 * and the per-page maintenance both happen inside the lock: zeroed_bytes
 * and maint_bytes say how much, maint_ticks (and lock_ticks) how long.
 */
struct heap_alloc_info {
	uint64_t lock_ticks;		   /* longest node-lock hold */
	uint64_t zeroed_bytes, zero_ticks; /* zeroing outside the lock */
	uint64_t maint_bytes, maint_ticks; /* cache maintenance done */
	bool clean_poc;			   /* the block is known clean to PoC */
	bool was_dirty; /* some of it was dirty (zeroed unless NO_SCRUB) */
	uint32_t node;	/* node it came from */
};

/* One node's counters (heap_node_stats() copies them under the lock). */
struct heap_node_stats {
	uint64_t total_pages; /* pages handed to this node */
	uint64_t free_pages;
	uint64_t dirty_pages;	/* free pages that still need scrubbing */
	uint64_t owned_pages;	/* pages in owned extents (domains) */
	uint64_t adopted_pages; /* of those, heap_adopt_owned()'s */
	uint64_t chunks;	/* chunks inserted at handoff */
	uint64_t free_chunks;	/* current free list entries */
	uint64_t init_ticks;	/* time spent in heap_add_range for the node */
	uint64_t zone_free[NR_ZONES];
	uint64_t lock_max_ticks; /* longest hold of the node lock */
	uint64_t locks;		 /* acquisitions of the node lock */
};

/*
 * heap_alloc(): an anonymous block (keel's own memory) of 2^@order pages,
 * on @node or, unless HEAP_EXACT_NODE, the nearest node that has one
 * (HEAP_ANY_NODE: the calling CPU's node first, heap_set_cpu_node(); a
 * node that does not exist fails with HEAP_EXACT_NODE, counted in
 * heap_bad_node_count(), and means HEAP_ANY_NODE without); @max_bits: the block lies
 * below 2^max_bits bytes (DMA zones), 0 = no limit. Prefers clean chunks;
 * a dirty block is zeroed unless HEAP_NO_SCRUB; cache maintenance per
 * the heap's policy (heap_set_cachemaint(); HEAP_NO_FLUSH: recorded, done
 * by cachemaint_flush_batch()). Only the head's page_info is written
 * (state allocated, order, node, pfn): O(1) metadata at any order.
 * Lock: takes each candidate node's lock in turn.
 * Return: the head page, or NULL (no fitting block, order > MAX_ORDER,
 * max_bits below a page).
 */
struct page_info *heap_alloc(unsigned int order, int node,
			     unsigned int max_bits, uint32_t flags);
/*
 * heap_alloc_maint(): heap_alloc() with the maintenance policy and counter
 * sink @cm of this call (keel/cachemaint.h) instead of the heap's: how a
 * benchmark measures a mode without changing anybody else's.
 */
struct page_info *heap_alloc_maint(unsigned int order, int node,
				   unsigned int max_bits, uint32_t flags,
				   const struct cachemaint *cm);
/*
 * heap_set_cachemaint(): the policy and sink of every allocation that
 * does not pass its own, given once by whoever opens the heap (keel's
 * flow: cachemaint= or the platform's need); @cm must stay valid. Before
 * any: deferred, with counters of the heap's own. NULL: that default.
 * heap_cachemaint(): the one in force (the report reads its counters).
 */
void heap_set_cachemaint(const struct cachemaint *cm);
const struct cachemaint *heap_cachemaint(void);

/*
 * heap_free(): give back an anonymous block. @need_scrub: its contents are
 * dirty. Misuse (double free, pfn the heap does not own, order mismatch,
 * order > MAX_ORDER, an owned extent) panics with the pfn and the reason
 * when heap_strict is set (keel's CONFIG_DEBUG boot, a host's debug
 * build), else (the library's default) is refused with a warning. Lock: the block's node.
 * Return: 0 or -EINVAL.
 */
int heap_free(struct page_info *pg, unsigned int order, bool need_scrub);
/*
 * heap_free_clean_poc(): as heap_free(), for a block the caller zeroed and
 * cleaned to the point of coherency: the chunk it merges into keeps its
 * clean_poc state (no maintenance for whoever allocates it next).
 */
int heap_free_clean_poc(struct page_info *pg, unsigned int order);
extern bool heap_strict;

/*
 * Per-CPU caches (DESIGN §15): heap_alloc() and heap_free() of orders 0
 * to 10 are served by the calling CPU's cache of its node's blocks,
 * refilled and emptied in batches under the node lock, bounded (7583
 * pages per CPU, an eighth of the heap in all). Cached blocks count as
 * free in every counter.
 * heap_drain_caches(): every cache back to the free lists (audit, checks,
 * a live update's freeze, low memory; heap_alloc() does it before it
 * fails). heap_drain_cpu_cache(): one CPU's, for a CPU going offline.
 * Lock: each cache's, then the node's. Return: the pages given back.
 * heap_set_cpu_caches(): on, or off (drained); heap_init() leaves them
 * off, whoever opens the heap for its runtime turns them on.
 */
uint64_t heap_drain_caches(void);
uint64_t heap_drain_cpu_cache(unsigned int cpu);
void heap_set_cpu_caches(bool on);

/*
 * Domain owner ids: 1..HEAP_MAX_OWNER, of which at most HEAP_OWNER_SLOTS
 * hold pages between two heap_init()s (one more owner is refused: NULL,
 * -ENOSPC, one warning).
 */
#define HEAP_MAX_OWNER	 65535
#define HEAP_OWNER_SLOTS 1024

/*
 * heap_alloc_owned(): an extent of 2^@order pages for domain @owner, on
 * @node as heap_alloc() (no max_bits). The extent is recorded with ONE
 * metadata write, at its head: no per-page page_info write. Dirty parts
 * are zeroed outside the node lock, in pieces of at most 2 MiB, by the
 * calling CPU, unless HEAP_NO_SCRUB. Cache maintenance: cachemaint=eager
 * does it per page inside the lock (the baseline); otherwise none for a
 * clean_poc block, none with HEAP_NO_FLUSH (the caller does it by range:
 * info->clean_poc says whether it must), else one range operation after
 * the unlock. @info (may be NULL) receives what was done.
 * Lock: each candidate node's lock in turn, held only to take the block.
 * @order may go up to MAX_FREE_ORDER (owned extents only: anonymous blocks
 * stop at MAX_ORDER); pass HEAP_NO_SCRUB for a big one and zero it on
 * several CPUs, and avoid cachemaint=eager (per page, in the lock).
 * Return: the head page, or NULL (no fitting block, @owner 0, order >
 * MAX_FREE_ORDER).
 */
struct page_info *heap_alloc_owned(unsigned int order, int node, uint32_t flags,
				   uint16_t owner,
				   struct heap_alloc_info *info);
/* heap_alloc_owned() under policy @cm instead of the heap's (a domain build). */
struct page_info *heap_alloc_owned_maint(unsigned int order, int node,
					 uint32_t flags, uint16_t owner,
					 struct heap_alloc_info *info,
					 const struct cachemaint *cm);

/*
 * heap_free_owned(): give back an owned extent; its contents are dirty
 * (scrubbed later, by the idle scrub or the allocation that takes them).
 * Misuse (not an owned head, wrong owner, wrong order) panics when
 * heap_strict is set, else is refused with a warning.
 * Lock: the extent's node. Return: 0 or -EINVAL.
 */
int heap_free_owned(struct page_info *head, unsigned int order, uint16_t owner);

/*
 * heap_adopt_owned(): pfns [@start, @end) of @node, RAM the heap was never
 * given (reserved at boot: a domain's static memory, xen,static-mem), join
 * the heap as extents owned by @owner: the range is added to the node's
 * range table and cut into maximal aligned blocks, as a handoff cuts a
 * free range (one head write each, flagged PGF_ADOPTED). The contents are
 * the owner's and stay as they are: never zeroed, never scrubbed, no cache
 * maintenance. heap_owner_of(), heap_owned_pages() and audit=full see them
 * as owned; heap_adopted_pages() counts them, so that the audit does not
 * also count them as reserved. heap_free_owned() refuses them: they leave
 * the heap only through heap_release_owned().
 * Lock: the node's. Return: the extents made (> 0), -EINVAL (no such
 * node, owner 0, empty, a pfn without a frame table entry, overlapping
 * heap memory) or -ENOSPC (the node's range table is full).
 */
long heap_adopt_owned(uint32_t node, pfn_t start, pfn_t end, uint16_t owner);
/*
 * heap_release_owned(): undo heap_adopt_owned() of exactly [@start,
 * @end): every block must be an adopted extent of @owner; the range leaves
 * the heap (reserved again, contents untouched).
 * Lock: the node's. Return: 0, -EINVAL (misuse: refused, nothing changed;
 * panics when heap_strict is set) or -ENOSPC (the range table cannot be
 * split: nothing changed).
 */
int heap_release_owned(uint32_t node, pfn_t start, pfn_t end, uint16_t owner);
/* Pages heap_adopt_owned() holds, all nodes (reserved RAM now heap's). */
uint64_t heap_adopted_pages(void);

/* heap_owner_of() results besides a domain id (1..HEAP_MAX_OWNER). */
#define HEAP_OWNER_KEEL 0	/* anonymous block (or being scrubbed) */
#define HEAP_OWNER_FREE 0x10000 /* on a free list */
#define HEAP_OWNER_NONE 0x10001 /* not heap memory */
/*
 * heap_owner_of(): who holds pfn @p, and the block (or free chunk) holding
 * it: its head in *@head, its order in *@order (both may be NULL; left
 * alone for HEAP_OWNER_NONE). O(MAX_FREE_ORDER): found by probing
 * aligned-down heads, never by reading a tail entry.
 * Lock: none taken; call it only while the heap is quiescent (audit,
 * checks, tests) or for a page the caller holds.
 * Finding the pfn's heap range first costs a lookup in each node's range
 * table (binary search).
 * Return: HEAP_OWNER_* or the owner id; -EIO when the heads contradict
 * each other (a metadata bug, printed).
 */
int heap_owner_of(pfn_t p, pfn_t *head, unsigned int *order);

/*
 * heap_owned_order(): the order of @owner's owned extent whose head is
 * @head. Reads @head's entry only, so it is safe while other CPUs
 * allocate, for an extent the caller holds (a domain's destroy).
 * Return: the order, or -EINVAL when @head heads no extent of @owner.
 */
int heap_owned_order(const struct page_info *head, uint16_t owner);

/*
 * Counters, read without the node locks (each a single word; a total is
 * not a snapshot while other CPUs allocate).
 */
uint64_t heap_free_pages(void);
uint64_t heap_total_pages(void);
uint64_t heap_allocated_pages(void); /* total - free (owned included) */
uint64_t heap_dirty_pages(void);
uint64_t heap_owned_pages(uint16_t owner); /* 0: all owners */
unsigned int heap_node_count(void);
/*
 * heap_set_cpu_node(): CPU @cpu (its arch_cpu_id()) is on @node, where its
 * HEAP_ANY_NODE allocations start (node 0 until said). No lock; call it
 * when the CPU is set up. heap_cpu_node(): the calling CPU's node.
 */
void heap_set_cpu_node(unsigned int cpu, uint32_t node);
uint32_t heap_cpu_node(void);
/* Allocations refused: HEAP_EXACT_NODE with a node that does not exist. */
uint64_t heap_bad_node_count(void);
/*
 * heap_node_stats(): copy @node's counters into *@out.
 * Lock: takes the node's lock. Return: 0, or -EINVAL for no such node.
 */
int heap_node_stats(uint32_t node, struct heap_node_stats *out);

#ifdef __cplusplus
}
#endif

#endif
