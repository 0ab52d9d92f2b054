/* SPDX-License-Identifier: MIT */
/*
 * Owner: mm.
 * The heap's runtime API, on one screen: what a hypervisor embedding keel
 * calls once the heap is open. Allocate and free by order, node and
 * address width, for keel's own use (anonymous blocks) or for a domain
 * (owned extents); ask who holds a page; read the counters (heap_stats()).
 * At most 14 functions (tests/embed/check_heap_api.sh counts them).
 *
 * Everything else lives in other headers: opening the heap, the per-CPU
 * caches, each CPU's node, adopting reserved RAM (static memory, a live
 * update's restore) in keel/heap_boot.h; the maintenance policy
 * (heap_set_cachemaint()) in keel/cachemaint.h; scrub support in
 * keel/heap_scrub.h; the node lock, the walks, heap_check() and the
 * report in keel/heap_check.h.
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

/*
 * The heap's counters (heap_stats()). For one node every field is that
 * node's, copied under its lock; for HEAP_ALL_NODES the page counts are
 * sums read without the locks (each a single word: not a snapshot while
 * other CPUs allocate) and the per-node detail, chunks to locks, is 0.
 * Blocks in the per-CPU caches are free memory to every count.
 */
struct heap_stats {
	uint64_t total_pages; /* pages handed to the heap */
	uint64_t free_pages;
	uint64_t allocated_pages; /* total - free (owned included) */
	uint64_t dirty_pages;	  /* free pages that still need scrubbing */
	uint64_t owned_pages;	  /* pages in owned extents (of @owner) */
	uint64_t adopted_pages;	  /* of those, heap_adopt_owned()'s */
	uint64_t bad_node;    /* HEAP_EXACT_NODE refused: no such node (all) */
	uint64_t chunks;      /* chunks inserted at handoff */
	uint64_t free_chunks; /* current free list entries */
	uint64_t init_ticks;  /* time spent in heap_add_range for the node */
	uint64_t zone_free[NR_ZONES];
	uint64_t lock_max_ticks; /* longest hold of the node lock */
	uint64_t locks;		 /* acquisitions of the node lock */
	/* heap_offline(): pages offlined and still out (held included) */
	uint64_t bad_pages;
	uint64_t bad_held_pages;    /* of those, still in a block or extent */
	uint64_t bad_by_source[5];  /* bad_pages by HEAP_BAD_FROM_* >> 4 */
	uint64_t offline_max_ticks; /* longest heap_offline() (arch_ticks) */
	uint64_t offline_writes;    /* page entries heap_offline() wrote */
	uint64_t bad_list_pages;    /* anonymous pages of the held list */
	/*
	 * Deferred chunks (common/mm/heap_defer.c): handed over across bad
	 * gaps, split when first needed; their heap pages count as free
	 * (free_pages, zone_free, dirty_pages), not in free_chunks.
	 */
	uint64_t deferred_chunks;
	uint64_t deferred_pages;
	uint64_t deferred_splits; /* halvings since the handoff */
};

/* @node of heap_stats(): every node. */
#define HEAP_ALL_NODES (-1)

/*
 * heap_alloc(): an anonymous block (keel's own memory) of 2^@order pages,
 * on @node or, unless HEAP_EXACT_NODE, the nearest node that has one
 * (HEAP_ANY_NODE: the calling CPU's node first, heap_set_cpu_node(); a
 * node that does not exist fails with HEAP_EXACT_NODE, counted in
 * heap_stats()'s bad_node, and means HEAP_ANY_NODE without); @max_bits:
 * the block lies below 2^max_bits bytes (DMA zones), 0 = no limit.
 * Prefers clean chunks; a dirty block is zeroed unless HEAP_NO_SCRUB,
 * with which the smallest fitting chunk is taken, clean or dirty.
 * Cache maintenance: @cm's policy and counter sink (keel/cachemaint.h),
 * NULL for the heap's (heap_set_cachemaint()): a benchmark measures a mode
 * without changing anybody else's; HEAP_NO_FLUSH: recorded, done by
 * cachemaint_flush_batch(). Only the head's page_info is written (state
 * allocated, order, node, pfn): O(1) metadata at any order. Order 0 and
 * 9 come from the calling CPU's cache when it has one (DESIGN §15;
 * keel/heap_boot.h: heap_set_cpu_caches()); an allocation that would fail
 * first drains the caches of the nodes it tried, where their free memory
 * could hold the block.
 * Lock: takes each candidate node's lock in turn.
 * Return: the head page, or NULL (no fitting block, order > MAX_ORDER,
 * max_bits below a page).
 */
struct page_info *heap_alloc(unsigned int order, int node,
			     unsigned int max_bits, uint32_t flags,
			     const struct cachemaint *cm);

/* heap_free() @how: the state of the block's contents. */
#define HEAP_FREE_ZEROED    0u /* all zero (false, as the old bool) */
#define HEAP_FREE_DIRTY	    1u /* to be scrubbed (true) */
#define HEAP_FREE_CLEAN_POC 2u /* zeroed and cleaned to the PoC */

/*
 * heap_free(): give back an anonymous block; @how: HEAP_FREE_DIRTY (its
 * contents need scrubbing), HEAP_FREE_ZEROED, or HEAP_FREE_CLEAN_POC (the
 * caller zeroed it and cleaned it to the point of coherency: the chunk it
 * merges into keeps its clean_poc state, no maintenance for whoever
 * allocates it next). Misuse (double free, pfn the heap does not own,
 * order mismatch, order > MAX_ORDER, an owned extent, @how unknown)
 * panics with the pfn and the reason when heap_strict is set (keel's
 * CONFIG_DEBUG boot, a host's debug build), else (the library's default)
 * is refused with a warning.
 * Lock: the block's node.
 * Return: 0 or -EINVAL.
 */
int heap_free(struct page_info *pg, unsigned int order, unsigned int how);
extern bool heap_strict;

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
 * calling CPU, unless HEAP_NO_SCRUB. Cache maintenance, under @cm's
 * policy (NULL: the heap's, as heap_alloc()): cachemaint=eager does it
 * per page inside the lock (the baseline); otherwise none for a clean_poc
 * block, none with HEAP_NO_FLUSH (the caller does it by range:
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
				   uint16_t owner, struct heap_alloc_info *info,
				   const struct cachemaint *cm);

/*
 * heap_free_owned(): give back an owned extent; its contents are dirty
 * (scrubbed later, by the idle scrub or the allocation that takes them).
 * Misuse (not an owned head, wrong owner, wrong order, adopted memory)
 * panics when heap_strict is set, else is refused with a warning.
 * Lock: the extent's node. Return: 0 or -EINVAL.
 */
int heap_free_owned(struct page_info *head, unsigned int order, uint16_t owner);

/* heap_owner_of() results besides a domain id (1..HEAP_MAX_OWNER). */
#define HEAP_OWNER_KEEL 0	/* anonymous block (or being scrubbed) */
#define HEAP_OWNER_FREE 0x10000 /* on a free list */
#define HEAP_OWNER_NONE 0x10001 /* not heap memory */
#define HEAP_OWNER_BAD	0x10002 /* an offlined page, withheld */
/*
 * heap_owner_of(): who holds pfn @p, and the block (or free chunk) holding
 * it: its head in *@head, its order in *@order (both may be NULL; left
 * alone for HEAP_OWNER_NONE). O(MAX_FREE_ORDER): found by probing
 * aligned-down heads, never by reading a tail entry; finding the pfn's
 * heap range first costs a binary search in each node's range table.
 * Lock: none taken, but for a page inside a deferred chunk (free memory
 * handed over across bad pages, not split yet): that node's lock, to
 * split along the page's path; so not with that node's lock held unless
 * the page is known to be in none. Call it only while the heap is
 * quiescent (audit, checks, tests) or for a page the caller holds.
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
 * Memory that fails (DESIGN §16). @reason: HEAP_BAD_SOFT (corrected
 * errors: heap_online() may bring it back) or HEAP_BAD_BROKEN (never),
 * OR-ed with where the news came from (HEAP_BAD_FROM_*, counted per node
 * in heap_stats()'s bad_by_source; C++: cast the OR to the enum).
 */
enum heap_bad_reason {
	HEAP_BAD_SOFT = 0x00,
	HEAP_BAD_BROKEN = 0x01,
	HEAP_BAD_FROM_API = 0x00,	/* the host, no source named */
	HEAP_BAD_FROM_OPTION = 0x10,	/* the operator */
	HEAP_BAD_FROM_MCE = 0x20,	/* a machine check / external abort */
	HEAP_BAD_FROM_INJECTION = 0x30, /* inject=poison: (tests) */
	HEAP_BAD_FROM_HANDOVER = 0x40,	/* a live update's bad-page record */
};
/*
 * heap_offline(): take pfn @pfn out of service, wherever it is, for good
 * (or until heap_online() for a soft one):
 *  - in a free chunk: the chunk is split by aligned halving around the
 *    page, every healthy half back on its free list as the largest
 *    aligned chunk: O(order) page entries written, under the node's lock;
 *  - in an anonymous block or a domain's extent: marked; the block's
 *    free (heap_free(), heap_free_owned()) withholds the page and gives
 *    the rest back as the largest aligned chunks; in adopted memory
 *    (heap_adopt_owned()) its release keeps the mark (still counted);
 *  - in a per-CPU cache: the caches are drained first.
 * The page is never handed out, scrubbed or merged again; heap_owner_of()
 * says HEAP_OWNER_BAD for it once withheld (its block's owner before).
 * Lock: the page's node (the caches' first when it is cached); not with a
 * node lock held.
 * Return: 0; refused with one line and nothing changed: -EINVAL (not RAM
 * with a frame table entry, or a bad @reason), -EPERM (RAM the heap does
 * not own: keel's image, its frame table, reserved), -EEXIST (already
 * offline), -EBUSY (a chunk being scrubbed, or a cache that refills as
 * fast as it drains), -ENOMEM (no page for the list of marked pages).
 */
int heap_offline(pfn_t pfn, enum heap_bad_reason reason);
/*
 * heap_offline_owned(): heap_offline() of a page inside @owner's extent
 * only (a live update's restore: the handover named the page bad inside
 * that domain's adopted extent). Marked as any page of a domain's
 * extent; a release of the adopted range (heap_release_owned()) keeps
 * the mark, so the page is still counted and handed on as bad.
 * Return: as heap_offline(); -EPERM when @owner does not hold the page.
 */
int heap_offline_owned(pfn_t pfn, uint16_t owner, enum heap_bad_reason reason);
/*
 * heap_online(): give a page heap_offline() took as HEAP_BAD_SOFT back:
 * withheld, it returns to the free lists (dirty, merged as usual); still
 * in its block, the mark is dropped. Lock: the page's node.
 * Return: 0, -EPERM (offlined as broken: refused), -EINVAL (not offline).
 */
int heap_online(pfn_t pfn);

/*
 * heap_stats(): the counters (struct heap_stats) of @node, or of every
 * node (HEAP_ALL_NODES), into *@out. @owner: owned_pages counts that
 * domain's pages only (0: every owner's); per-owner counts are kept for
 * all nodes together, so @owner needs HEAP_ALL_NODES.
 * Lock: one node: takes its lock; HEAP_ALL_NODES: none.
 * Return: 0, or -EINVAL (no such node, @owner with one node: *@out
 * zeroed).
 */
int heap_stats(int node, uint16_t owner, struct heap_stats *out);

#ifdef __cplusplus
}
#endif

#endif
