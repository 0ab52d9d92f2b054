/* SPDX-License-Identifier: MIT */
/*
 * The heap's private state, shared by common/mm/heap.c (lists, merging,
 * allocation), common/mm/heap_owned.c (owned extents, heap_owner_of),
 * common/mm/heap_init.c (init, handoff), common/mm/heap_check.c (queries,
 * walks, the consistency check), common/mm/heap_pcp.c (the per-CPU
 * caches), common/mm/heap_defer.c, heap_span.c (the deferred chunks
 * across bad pages) and common/mm/heap_ranges.c (a node's ranges, in
 * slices), the lock helpers, and page_set(), the one writer
 * of a whole page_info. Not an interface: nothing outside common/mm/heap*.c
 * includes it.
 */
#ifndef COMMON_HEAP_PRIV_H
#define COMMON_HEAP_PRIV_H

#include <keel/bug.h>
#include <keel/compiler.h>
#include <keel/errno.h>
#include <keel/heap.h>
#include <keel/heap_boot.h>
#include <keel/heap_check.h>
#include <keel/range_table.h>
#include <keel/irqsoff.h>
#include <arch/lock.h>

struct free_list {
	struct page_info *head, *tail;
};

/* A page offlined inside a block or extent (heap_offline.c). */
struct heap_held {
	uint64_t pfn;
	uint16_t owner; /* 0: an anonymous block */
	uint8_t reason; /* enum heap_bad_reason */
};

/* A node's offlined pages (common/mm/heap_offline.c). */
struct heap_bad_state {
	struct page_info *list; /* withheld: PGS_BAD entries, next/prev */
	struct heap_held *held; /* still in a block: a heap block's array */
	struct page_info *held_block; /* that block's head */
	uint32_t held_count;
	unsigned int held_order; /* the array's block order (cap from it) */
	/* Bumped (seq_cst) by each mark: a free racing it rechecks. */
	uint64_t gen;
};

/*
 * A node's heap ranges in slices (common/mm/heap_ranges.c): slice k holds
 * the ranges inside pfns [slice[k].start_pfn, slice[k + 1].start_pfn), in
 * its own table. One slice, @one (the node's first table), is the normal
 * case; more only when no single table fits in boot memory.
 */
struct heap_slice {
	uint64_t start_pfn;
	struct range_table t;
};

struct heap_ranges {
	struct heap_slice *slice; /* @count, sorted by start; &@one if 1 */
	unsigned int count;
	struct heap_slice one;
};

void heap_ranges_init(struct heap_ranges *hr, struct region *store,
		      unsigned int cap);
unsigned int heap_ranges_index(const struct heap_ranges *hr, uint64_t p);
/*
 * The table of the slice holding pfn @p: one compare and a predictable
 * branch for a node in one slice, O(log slices) else.
 */
static inline const struct range_table *
heap_ranges_table(const struct heap_ranges *hr, uint64_t p)
{
	if (likely(hr->count == 1))
		return &hr->one.t;
	return &hr->slice[heap_ranges_index(hr, p)].t;
}

/* The range holding pfn @p, or NULL. O(log slices + log ranges). */
static inline const struct region *
heap_ranges_find(const struct heap_ranges *hr, uint64_t p)
{
	return range_table_find_pfn(heap_ranges_table(hr, p), pfn(p));
}

/*
 * Add or remove pfns [@s, @e) (0, -EINVAL: empty, overlapping on an add,
 * or across a slice's edge; -ENOSPC: the slice's table is full); the
 * first range ending above address @a (NULL: none); the ranges in
 * address order (heap_ranges_seek(), then heap_ranges_next() until
 * NULL); their count; the one slice's table moved to larger storage.
 * Lock: the node's.
 */
int heap_ranges_add(struct heap_ranges *hr, uint64_t s, uint64_t e);
int heap_ranges_remove(struct heap_ranges *hr, uint64_t s, uint64_t e);
const struct region *
heap_ranges_first_ending_above(const struct heap_ranges *hr, paddr_t a);
void heap_ranges_seek(const struct heap_ranges *hr, paddr_t a,
		      struct heap_range_pos *pos);
const struct region *heap_ranges_next(const struct heap_ranges *hr,
				      struct heap_range_pos *pos);
unsigned int heap_ranges_count(const struct heap_ranges *hr);
bool heap_ranges_grow(struct heap_ranges *hr, struct region *store,
		      unsigned int cap);
/*
 * Boot (heap_size_ranges(), tests): @count slices replace the one of a
 * node holding no range (0, -EBUSY); a node's ranges in slices whose
 * tables are @piece bytes of boot memory (the slice count, or -errno);
 * the piece heap_size_ranges() gives when no single table fits.
 */
int heap_ranges_install(struct heap_ranges *hr, struct heap_slice *sl,
			unsigned int count);
int heap_ranges_split(uint32_t node, uint64_t piece, unsigned int slack);
uint64_t heap_ranges_piece_bytes(void);

struct heap_node {
	arch_lock_t lock;     /* the host's lock hook (include/arch/lock.h) */
	uint64_t lock_start;  /* ticks when the lock was taken */
	irqflags_t irq_flags; /* the holder's interrupt state before */
	uint32_t id;
	/* Bit j of nonempty[z]: list [z][j] is not empty. */
	uint32_t nonempty[NR_ZONES];
	/* Bit z: nonempty[z] != 0 (allocation starts at the highest fit). */
	uint64_t zone_mask;
	struct free_list free[NR_ZONES][MAX_FREE_ORDER + 1];
	/*
	 * The node's heap memory: struct region (bytes; read in frames
	 * through region_start_pfn()/region_end_pfn()), one table of
	 * HEAP_MAX_RANGES slots after the node's state to begin with. A view
	 * derived from bootmem's free ranges at the handoff, then kept by
	 * the owned extents.
	 */
	struct heap_ranges ranges;
	struct heap_stats stats;
	uint32_t fallback[MAX_NUMNODES];
	unsigned int fallback_count;
	struct heap_bad_state bad;
	/* Deferred chunks (heap_defer.c): NULL on a node without bad gaps. */
	struct heap_defer *defer;
	/* Pages each owner holds on this node, by heap_owner_slot(). */
	uint64_t owner_pages[HEAP_OWNER_SLOTS];
};

BUILD_BUG_ON(MAX_FREE_ORDER > 31);
BUILD_BUG_ON(MAX_ORDER > MAX_FREE_ORDER);
BUILD_BUG_ON(sizeof(struct page_info) > 32);

/*
 * Each node's state and first range table: one bootmem allocation per node
 * present, made by heap_init() (common/mm/heap_init.c).
 */
#define HEAP_NODE_STATE_BYTES \
	(sizeof(struct heap_node) + HEAP_MAX_RANGES * sizeof(struct region))

/*
 * common/mm/heap.c owns them; heap_check.c reads them under the node locks.
 * heap_nodes[n] is valid for n < heap_nr_nodes only (0 before heap_init()).
 */
extern struct heap_node *heap_nodes[MAX_NUMNODES];
extern unsigned int heap_nr_nodes;

/*
 * Take / drop a heap lock (a node's, a cache's) through the lock hook,
 * interrupts masked around the hold (a traced region named @site).
 */
static inline irqflags_t heap_lock_irqsave(arch_lock_t *l, const char *site)
{
	irqflags_t f = irq_save_at(site);

	arch_lock(l);
	return f;
}

static inline void heap_unlock_irqrestore(arch_lock_t *l, irqflags_t f)
{
	arch_unlock(l);
	irq_restore(f);
}

/* Is [p, p + 2^k) inside one heap range of the locked node? */
bool heap_owns_locked(struct heap_node_locked l, uint64_t p, unsigned int k);
/* Free lists (lock held): add or take off a free head, counters kept. */
void heap_list_insert(struct heap_node_locked l, struct page_info *pg);
void heap_list_remove(struct heap_node_locked l, struct page_info *pg);
/*
 * Insert the free chunk headed by @pg (pfn @p, order @k, first_dirty and
 * flags prepared), merged with its free buddies. Return: the final head.
 */
struct page_info *heap_merge_insert(struct heap_node_locked l,
				    struct page_info *pg, uint64_t p,
				    unsigned int k);
/* The same inside the heap range [@rs, @re) the caller has looked up. */
struct page_info *heap_merge_insert_in(struct heap_node_locked l,
				       struct page_info *pg, uint64_t p,
				       unsigned int k, uint64_t rs,
				       uint64_t re);

/* What heap_take_block() took: pfn, first dirty offset, PGF_CLEAN_POC. */
struct heap_taken {
	uint64_t pfn;
	uint32_t fd;
	uint8_t poc;
};
/*
 * Take a block of 2^@order pages in zones <= @zone_hi off the locked
 * node's free lists, its head written with @state (PGS_ALLOCATED, or
 * PGS_OWNED with @owner). @any_dirt: the caller needs no zeroed pages
 * (HEAP_NO_SCRUB), so the smallest fitting chunk is taken, clean or
 * dirty; else clean chunks first. Return: the head, or NULL.
 */
struct page_info *heap_take_block(struct heap_node_locked l, unsigned int order,
				  int zone_hi, struct heap_taken *t,
				  uint8_t state, uint32_t owner, bool any_dirt);
/* The nodes an allocation for @pref / @flags tries, in order. */
const uint32_t *heap_alloc_candidates(int pref, uint32_t flags, uint32_t *exact,
				      unsigned int *count);
/* cachemaint=eager: zero (unless HEAP_NO_SCRUB) and clean per page. */
void heap_eager_in_lock(const struct cachemaint *cm, struct page_info *pg,
			unsigned int order, struct heap_taken *t,
			uint32_t flags);
/* Is @pg the entry of a heap page of a valid node (not its state)? */
static inline bool heap_entry_valid(const struct page_info *pg)
{
	return pg && pfn_to_page_or_null(pfn(pg->pfn)) == pg &&
	       pg->node < heap_nr_nodes;
}
/*
 * The per-CPU caches (common/mm/heap_pcp.c): heap_pcp_alloc() a block of
 * @node from the calling CPU's cache (NULL: go to the free lists),
 * heap_pcp_free() keep a live anonymous block there (false: go the slow
 * way), heap_pcp_reset() forget them all (heap_init).
 */
struct page_info *heap_pcp_alloc(unsigned int order, uint32_t node,
				 uint32_t flags, struct heap_taken *t);
bool heap_pcp_free(struct page_info *pg, unsigned int order,
		   uint32_t first_dirty, uint8_t poc);
void heap_pcp_reset(void);
/* heap_lock_node_at(): count one node lock taken by this CPU. */
void heap_pcp_count_lock(void);
/*
 * The walkers' side of the caches (heap_pcp.c): heap_drain_node_caches()
 * gives back every cache holding @node's blocks (heap_for_each_free(),
 * heap_for_each_block()); heap_pcp_take_dirty() detaches a dirty cached
 * block of @node as heap_take_dirty() detaches a chunk (NULL: none).
 */
uint64_t heap_drain_node_caches(uint32_t node);
struct page_info *heap_pcp_take_dirty(uint32_t node, unsigned int *order);
/*
 * Low memory: drain the caches of the @count nodes @nodes an allocation
 * of 2^@order pages tried, where that can help (heap_pcp.c).
 */
uint64_t heap_pcp_drain_low(const uint32_t *nodes, unsigned int count,
			    unsigned int order);
/* The same for heap_alloc()'s @node / @flags (its candidates). */
uint64_t heap_pcp_drain_tried(unsigned int order, int node, uint32_t flags);
/* Node-lock acquisitions the caches made for @order (tests, benchmarks). */
uint64_t heap_pcp_locks(unsigned int order);
/* heap_init(), bootmem open: the caches' state (heap_pcp.c). */
void heap_pcp_prepare(void);
/* 1 + the highest CPU given to heap_set_cpu_node() (common/mm/heap.c). */
unsigned int heap_cpu_top(void);
/* heap_init(): heap_check()'s scratch from bootmem (heap_check.c). */
void heap_check_init(void);
/*
 * heap_stats()'s all-node sums kept by other files: pages @owner holds (0:
 * every owner) and adopted pages (heap_owned.c), allocations refused for
 * no such node (heap.c).
 */
uint64_t heap_owned_pages(uint16_t owner);
uint64_t heap_adopted_pages(void);
uint64_t heap_bad_node_count(void);
/* Forget every owner's slot (heap_init; the counts are the nodes'). */
void heap_owned_reset(void);
/* @owner's slot in owner_pages[], claimed if @claim; -1: none (heap_owned.c). */
int heap_owner_slot(uint16_t owner, bool claim);
/* heap_unlock_node() that returns how long the lock was held. */
uint64_t heap_unlock_node_ticks(struct heap_node_locked l);
/*
 * heap_free_block(): the one free path (heap.c): heap_free*() and
 * heap_free_owned() say what the head must be and what its contents are.
 */
struct heap_free_args {
	const char *fn;		/* the caller, in misuse messages */
	unsigned int max_order; /* MAX_ORDER; MAX_FREE_ORDER for extents */
	uint8_t state;		/* the head's: PGS_ALLOCATED or PGS_OWNED */
	uint16_t owner;		/* PGS_OWNED: whose extent it must be */
	int slot;		/* PGS_OWNED: heap_owner_slot(owner), or -1 */
	uint32_t first_dirty;	/* 0: all dirty, FIRST_DIRTY_NONE: zero */
	uint8_t flags;		/* PGF_CLEAN_POC or 0 */
};
int heap_free_block(struct page_info *pg, unsigned int order,
		    const struct heap_free_args *a);
/* Misuse of heap_free()/heap_free_owned(): panic (strict) or warn. */
int heap_misuse(const char *fn, uint64_t p, const char *why, unsigned int order,
		unsigned int got);

/*
 * heap_free_block() of a head flagged PGF_HAS_BAD (heap_offline.c): the
 * pages offlined in [@p, @p + 2^@k) withheld, the rest inserted as the
 * largest aligned chunks; @pg's first_dirty and flags already say what
 * its contents are; [@rs, @re) the heap range holding it. Lock held.
 */
void heap_withhold_bad(struct heap_node_locked l, struct page_info *pg,
		       uint64_t p, unsigned int k, uint64_t rs, uint64_t re);
/*
 * A block that comes back to the lists from a per-CPU cache (a drain) or
 * from the scrubber (heap_put_clean()): its head's flags were rewritten,
 * so PGF_HAS_BAD may have been lost to a racing mark; the node's held
 * list is the truth. heap_block_holds_bad(): does a held page lie in
 * [@p, @p + 2^@k)? (one load when the node holds none.)
 * heap_insert_checked(): heap_merge_insert(), with such pages withheld.
 * Lock held (heap_offline.c).
 */
bool heap_block_holds_bad(struct heap_node_locked l, uint64_t p,
			  unsigned int k);
void heap_insert_checked(struct heap_node_locked l, struct page_info *pg,
			 uint64_t p, unsigned int k);
/*
 * A free into a per-CPU cache raced a mark (heap_offline.c): the cache
 * rewrote the head's flags. heap_bad_gen() before the free's flag check
 * and after, and heap_bad_recheck() when it moved: every held page of
 * @node is back in a flagged block, or withheld if its block is free.
 */
static inline uint64_t heap_bad_gen(uint32_t node)
{
	return __atomic_load_n(&heap_nodes[node]->bad.gen, __ATOMIC_SEQ_CST);
}
void heap_bad_recheck(uint32_t node);

/*
 * Deferred chunks (common/mm/heap_defer.c, see its header): the lazy
 * handoff's spans across bad gaps (heap_defer_prepare() before the walk,
 * heap_span_add() per free range, heap_span_flush() at the end of a
 * step; both return pages refused), the allocation path's refill
 * (heap_take_block(); may drop and retake the lock between batches),
 * the walkers' settle, the path split before a page's head is looked
 * for, and heap_check()'s side (heap_defer_holding(), heap_defer_check()).
 */
struct heap_defer;
void heap_defer_prepare(void);
uint64_t heap_span_add(uint32_t node, uint64_t s, uint64_t e, bool dirty);
uint64_t heap_span_flush(void);
bool heap_defer_refill(struct heap_node_locked l, unsigned int order,
		       int zone_hi);
void heap_defer_settle(uint32_t node);
void heap_defer_split_to(uint32_t node, uint64_t p);
void heap_defer_split_unlocked(uint32_t node, uint64_t p);
bool heap_defer_holding(struct heap_node_locked l, uint64_t p, uint64_t *s,
			unsigned int *k);
/* Problems found in the locked node's records (printed); their sums. */
struct heap_defer_sums {
	uint64_t pages, dirty, zone[NR_ZONES];
};
unsigned int heap_defer_check(struct heap_node_locked l,
			      struct heap_defer_sums *sum);

/*
 * Write every field of @pg, the entry of pfn @p: the one place a
 * page_info is written whole (heads, tails, baselines).
 */
static inline void page_set(struct page_info *pg, uint64_t p, uint8_t state,
			    unsigned int k, uint32_t node, uint32_t first_dirty,
			    uint8_t flags)
{
	pg->next = pg->prev = NULL;
	pg->pfn = p;
	pg->first_dirty = first_dirty;
	pg->state = state;
	pg->order = (uint8_t)k;
	pg->flags = flags;
	pg->node = (uint8_t)node;
}

/* Write a free head entry (the one metadata write per chunk). */
static inline void write_free_head(struct page_info *pg, uint64_t p,
				   unsigned int k, uint32_t node,
				   uint32_t first_dirty, uint8_t flags)
{
	page_set(pg, p, PGS_FREE, k, node, first_dirty,
		 first_dirty == FIRST_DIRTY_NONE ? flags : 0);
}

static inline unsigned int pfn_zone(uint64_t p)
{
	return (unsigned int)fls64(p);
}

static inline uint64_t chunk_dirty_pages(const struct page_info *pg)
{
	if (pg->first_dirty == FIRST_DIRTY_NONE)
		return 0;
	return (1ULL << pg->order) - pg->first_dirty;
}

/*
 * heap_offline_chunk(): the free chunk holding pfn @p, which @next names
 * bad (@next(x): the first bad pfn at or above x, false when none), goes
 * out of service at every page @next names inside it, in one cut by
 * aligned halving (common/mm/heap_offline.c), each page as heap_offline()
 * takes one (@reason: HEAP_BAD_*). For many bad pages in one chunk (a
 * badram= lattice's, common/mm/bad_lattice.c): each half is asked once,
 * not once per page. Not for a page in a block, a per-CPU cache or no
 * free chunk: 0, nothing done (heap_offline() takes it alone).
 * Lock: @p's node. Return: the pages taken out; *@end the chunk's end.
 */
typedef bool heap_next_bad_fn(uint64_t from, uint64_t *bad, void *arg);
uint64_t heap_offline_chunk(pfn_t p, heap_next_bad_fn *next, void *arg,
			    uint8_t reason, pfn_t *end);

/* Owner code of a head entry (HEAP_OWNER_*, an owner id), -EIO: no head. */
static inline int heap_head_owner(const struct page_info *pg)
{
	if (pg->state == PGS_FREE)
		return HEAP_OWNER_FREE;
	if (pg->state == PGS_ALLOCATED)
		return HEAP_OWNER_KEEL;
	if (pg->state == PGS_BAD && pg->order == 0)
		return HEAP_OWNER_BAD;
	if (pg->state == PGS_OWNED && pg->owner >= 1 &&
	    pg->owner <= HEAP_MAX_OWNER)
		return (int)pg->owner;
	return -EIO;
}

#endif
