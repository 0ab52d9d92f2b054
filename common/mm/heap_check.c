/* SPDX-License-Identifier: MIT */
/*
 * Reading the buddy heap: counters, range queries, walks of the free lists
 * and of every block (free chunks, anonymous blocks, owned extents: heads
 * only, O(blocks)) and heap_check(), the full consistency check behind
 * audit=full. Split
 * from common/mm/heap.c, which owns the state (common/mm/heap_priv.h); every
 * walk here holds the node lock it reads under, one node at a time
 * (heap_check takes its scratch lock first).
 */
#include <arch/cpu.h>
#include <arch/mm.h>
#include <keel/bootmem.h>
#include <keel/bug.h>
#include <keel/compiler.h>
#include <keel/errno.h>
#include <keel/heap.h>
#include <keel/heap_boot.h>
#include <keel/heap_check.h>
#include <keel/heap_scrub.h>
#include <keel/printk.h>
#include <keel/spinlock.h>
#include <keel/string.h>

#include "heap_priv.h"

/**
 * heap_for_each_free() - call @fn for every free chunk of @node, under its
 * lock: the blocks in the CPUs' caches of @node first given back to its
 * lists (free memory, which @fn must see; the caller drains nothing).
 */
void heap_for_each_free(uint32_t node,
			void (*fn)(struct page_info *head, unsigned int order,
				   unsigned int zone, void *arg),
			void *arg)
{
	struct heap_node_locked l;
	unsigned int z, k;

	if (node >= heap_nr_nodes)
		return;
	heap_defer_settle(node);      /* its deferred chunks on its lists */
	heap_drain_node_caches(node); /* its cached blocks on its lists */
	l = heap_lock_node(node);
	for (z = 0; z < NR_ZONES; z++)
		for (k = 0; k <= MAX_FREE_ORDER; k++) {
			struct page_info *pg = l.hn->free[z][k].head, *next;

			for (; pg; pg = next) {
				next = pg->next;
				fn(pg, k, z, arg);
			}
		}
	heap_unlock_node(l);
}

/* ---- queries ----------------------------------------------------------- */

/* Free pages on all nodes, the per-CPU caches' included. */
static uint64_t all_free_pages(void)
{
	uint64_t sum = heap_cached_pages(-1, false);
	unsigned int n;

	for (n = 0; n < heap_nr_nodes; n++)
		sum += READ_ONCE(heap_nodes[n]->stats.free_pages);
	return sum;
}

/* Pages handed to the heap, all nodes. */
static uint64_t all_total_pages(void)
{
	uint64_t sum = 0;
	unsigned int n;

	for (n = 0; n < heap_nr_nodes; n++)
		sum += READ_ONCE(heap_nodes[n]->stats.total_pages);
	return sum;
}

/* Free pages still to be scrubbed, all nodes. */
static uint64_t all_dirty_pages(void)
{
	uint64_t sum = heap_cached_pages(-1, true);

	for (unsigned int n = 0; n < heap_nr_nodes; n++)
		sum += heap_nodes[n]->stats.dirty_pages;
	return sum;
}

/** heap_chunk_count() - Return: chunks inserted at handoff, all nodes. */
uint64_t heap_chunk_count(void)
{
	uint64_t sum = 0;
	unsigned int n;

	for (n = 0; n < heap_nr_nodes; n++)
		sum += heap_nodes[n]->stats.chunks;
	return sum;
}

/* @node's counters, under its lock; the caches' blocks count as free. */
static void node_stats(uint32_t node, struct heap_stats *out)
{
	struct heap_node_locked l = heap_lock_node(node);

	*out = l.hn->stats;
	heap_unlock_node(l);
	out->free_pages += heap_cached_pages((int)node, false);
	out->dirty_pages += heap_cached_pages((int)node, true);
}

/**
 * heap_stats() - the counters of @node or of every node (HEAP_ALL_NODES:
 * page counts summed without the locks, the per-node detail 0); @owner:
 * owned_pages is that domain's (all nodes only). See heap.h.
 *
 * Return: 0, or -EINVAL (no such node, @owner with one node): *@out zeroed.
 */
int heap_stats(int node, uint16_t owner, struct heap_stats *out)
{
	*out = (struct heap_stats){0};
	if (node == HEAP_ALL_NODES) {
		out->total_pages = all_total_pages();
		out->free_pages = all_free_pages();
		out->dirty_pages = all_dirty_pages();
		out->owned_pages = heap_owned_pages(owner);
		out->adopted_pages = heap_adopted_pages();
	} else if (node >= 0 && (unsigned int)node < heap_nr_nodes && !owner) {
		node_stats((uint32_t)node, out);
	} else {
		return -EINVAL;
	}
	out->allocated_pages = out->total_pages - out->free_pages;
	out->bad_node = heap_bad_node_count();
	return 0;
}

/** heap_node_stats_locked() - Return: the locked node's counters. */
const struct heap_stats *heap_node_stats_locked(struct heap_node_locked l)
{
	return &l.hn->stats;
}

/** heap_node_count() - Return: the node count given to heap_init(). */
unsigned int heap_node_count(void)
{
	return heap_nr_nodes;
}

/**
 * heap_node_range_next() - @node's range at @pos, in address order; @pos
 * moves past it. No lock: boot or quiescent.
 *
 * Return: it, or NULL past the last (or for no such node).
 */
const struct region *heap_node_range_next(uint32_t node,
					  struct heap_range_pos *pos)
{
	if (node >= heap_nr_nodes)
		return NULL;
	return heap_ranges_next(&heap_nodes[node]->ranges, pos);
}

/** heap_node_range_count() - Return: @node's ranges (0: no such node). */
unsigned int heap_node_range_count(uint32_t node)
{
	return node < heap_nr_nodes
		       ? heap_ranges_count(&heap_nodes[node]->ranges)
		       : 0;
}

/** heap_owns() - Return: whether [p, p + 2^order) is in one range of @node. */
bool heap_owns(uint32_t node, pfn_t p, unsigned int order)
{
	struct heap_node_locked l;
	bool r;

	if (node >= heap_nr_nodes || order > 63)
		return false;
	l = heap_lock_node(node);
	r = heap_owns_locked(l, pfn_val(p), order);
	heap_unlock_node(l);
	return r;
}

/* ---- the block walk ---------------------------------------------------- */

typedef void block_fn(struct page_info *head, unsigned int order, int owner,
		      void *arg);

/*
 * A deferred chunk's part of [@cur, @e), when one holds @cur (heap_check()
 * walks an unsettled node): it must start at @cur or before the range.
 * Return: the pages stepped over (0: none holds @cur), *@bad on a problem.
 */
static uint64_t walk_deferred(struct heap_node_locked l, uint64_t s,
			      uint64_t cur, uint64_t e, unsigned int *bad)
{
	uint64_t ds, end;
	unsigned int dk;

	if (!heap_defer_holding(l, cur, &ds, &dk))
		return 0;
	if (ds != cur && !(ds < s && cur == s)) {
		pr_err("heap_check: node %u: deferred chunk [%#llx, order %u) "
		       "overlaps the block before pfn %#llx\n",
		       l.hn->id, (unsigned long long)ds, dk,
		       (unsigned long long)cur);
		(*bad)++;
	}
	end = MIN(ds + (1ULL << dk), e);
	return end - cur;
}

/*
 * Walk [s, e) of the locked node block by block: every block starts where
 * the previous one ends, so the entry read is always a head. A head that
 * does not describe itself ends the walk of the range (nothing after it
 * can be trusted). A deferred chunk's pages are stepped over, counted in
 * *@deferred (NULL: the node is settled). Return: problems found.
 */
static unsigned int walk_range(struct heap_node_locked l, uint64_t s,
			       uint64_t e, block_fn *fn, void *arg,
			       uint64_t *deferred)
{
	uint64_t cur = s, step;
	unsigned int bad = 0;

	while (cur < e) {
		struct page_info *pg = pfn_to_page(pfn(cur));
		unsigned int k = pg->order;
		int owner = heap_head_owner(pg);
		unsigned int max =
			owner == HEAP_OWNER_KEEL ? MAX_ORDER : MAX_FREE_ORDER;

		if (deferred && (step = walk_deferred(l, s, cur, e, &bad))) {
			*deferred += step;
			cur += step;
			continue;
		}

		if (owner < 0 || pg->pfn != cur || k > max ||
		    (cur & ((1ULL << k) - 1)) || (cur == 0 && k) ||
		    cur + (1ULL << k) > e || pg->node != l.hn->id) {
			pr_err("heap_check: node %u: pfn %#llx: state %#x "
			       "order "
			       "%u node %u is not the head of a block in "
			       "[%#llx, %#llx)\n",
			       l.hn->id, (unsigned long long)cur, pg->state, k,
			       pg->node, (unsigned long long)s,
			       (unsigned long long)e);
			return bad + 1;
		}
		fn(pg, k, owner, arg);
		cur += 1ULL << k;
	}
	return bad;
}

static unsigned int walk_blocks_locked(struct heap_node_locked l, block_fn *fn,
				       void *arg, uint64_t *deferred)
{
	struct heap_range_pos pos = {0};
	const struct region *r;
	unsigned int bad = 0;

	while ((r = heap_ranges_next(&l.hn->ranges, &pos)))
		bad += walk_range(l, pfn_val(region_start_pfn(r)),
				  pfn_val(region_end_pfn(r)), fn, arg,
				  deferred);
	return bad;
}

/**
 * heap_for_each_block() - call @fn for every block of @node, in pfn order,
 * under its lock (reads heads only); @node's cached blocks given back to
 * its lists first, so that they read as free.
 *
 * Return: problems found (printed).
 */
unsigned int heap_for_each_block(uint32_t node, block_fn *fn, void *arg)
{
	struct heap_node_locked l;
	unsigned int bad;

	if (node >= heap_nr_nodes)
		return 0;
	heap_defer_settle(node);      /* a deferred chunk has no head to walk */
	heap_drain_node_caches(node); /* a cached block reads as allocated */
	l = heap_lock_node(node);
	bad = walk_blocks_locked(l, fn, arg, NULL);
	heap_unlock_node(l);
	return bad;
}

/* ---- consistency walk -------------------------------------------------- */

#define CHECK_SCRATCH 16384
/*
 * pfn << 6 | order: check_words words from bootmem (heap_check_init()),
 * CHECK_SCRATCH or fewer.
 */
static uint64_t *check_scratch;
static unsigned int check_words;
/* Zones of more chunks than the scratch holds, this heap_check(). */
static unsigned int check_skipped;
static spinlock_t check_lock = SPINLOCK_INIT;

/*
 * heap_init(): the consistency walk's scratch, asked of bootmem (128 KiB,
 * not in keel's image; halved down to 16 KiB while no free piece holds
 * it: bad pages every 128 KiB leave none of 128); without it heap_check()
 * skips the overlap check, and on a zone of more chunks than it holds.
 */
void heap_check_init(void)
{
	check_scratch = NULL;
	for (check_words = CHECK_SCRATCH; check_words >= CHECK_SCRATCH / 8;
	     check_words /= 2) {
		paddr_t p = bootmem_alloc_try(check_words * sizeof(uint64_t),
					      PAGE_SIZE, BOOTMEM_ANY_NODE,
					      "heap check");

		if (pa_val(p) != pa_val(INVALID_PADDR)) {
			check_scratch = phys_to_virt(p);
			return;
		}
	}
	check_words = 0;
	pr_warn("heap: no boot memory for heap_check()'s scratch (%zu "
		"bytes): its overlap check is skipped\n",
		CHECK_SCRATCH / 8 * sizeof(uint64_t));
}

/* One node's walk: the lock held, problems and totals so far. */
struct walk {
	struct heap_node_locked l;
	unsigned int bad;
	uint64_t free, dirty, chunks, zone_free;
	unsigned int used; /* chunks of the zone walked (check_scratch) */
	struct heap_defer_sums ds; /* the deferred chunks' pages */
};

#define PROBLEM(w, fmt, ...)                                            \
	do {                                                            \
		pr_err("heap_check: node %u: " fmt "\n", (w)->l.hn->id, \
		       ##__VA_ARGS__);                                  \
		(w)->bad++;                                             \
	} while (0)

/* The chunk @pg on list [@z][@k]; *@seen_dirty: a dirty one came before. */
static void check_chunk(struct walk *w, const struct free_list *fl,
			struct page_info *pg, struct page_info *prev,
			unsigned int z, unsigned int k, bool *seen_dirty)
{
	uint64_t p = pg->pfn, ds;
	unsigned long long pu = p;
	unsigned int dk;

	if (pg->prev != prev)
		PROBLEM(w, "pfn %#llx: broken prev link", pu);
	if (pg->state != PGS_FREE || pg->order != k)
		PROBLEM(w, "pfn %#llx: state %#x order %u on list order %u", pu,
			pg->state, pg->order, k);
	if (p & ((1ULL << k) - 1))
		PROBLEM(w, "pfn %#llx: not aligned to order %u", pu, k);
	if (p == 0 && k)
		PROBLEM(w, "pfn 0 with order %u", k);
	if (pfn_zone(p) != z)
		PROBLEM(w, "pfn %#llx: on zone %u list", pu, z);
	if (pg->node != w->l.hn->id)
		PROBLEM(w, "pfn %#llx: node %u", pu, pg->node);
	if (!heap_owns_locked(w->l, p, k))
		PROBLEM(w, "pfn %#llx order %u: outside the heap ranges", pu,
			k);
	if (pg->first_dirty != FIRST_DIRTY_NONE &&
	    pg->first_dirty >= (1ULL << k))
		PROBLEM(w, "pfn %#llx: first_dirty %u", pu, pg->first_dirty);
	if (pg->first_dirty != FIRST_DIRTY_NONE) {
		*seen_dirty = true;
		if (pg->flags & PGF_CLEAN_POC)
			PROBLEM(w, "pfn %#llx: clean_poc on a dirty chunk", pu);
	} else if (*seen_dirty) {
		PROBLEM(w, "pfn %#llx: clean chunk after a dirty one", pu);
	}
	if (fl->tail == pg && pg->next)
		PROBLEM(w, "pfn %#llx: tail has a next", pu);
	if (w->ds.pages && heap_defer_holding(w->l, p, &ds, &dk))
		PROBLEM(w, "pfn %#llx: inside deferred chunk %#llx order %u",
			pu, (unsigned long long)ds, dk);
	w->free += 1ULL << k;
	w->zone_free += 1ULL << k;
	w->dirty += chunk_dirty_pages(pg);
	w->chunks++;
	if (check_scratch && w->used < check_words)
		check_scratch[w->used] = p << 6 | k;
	w->used++;
}

static void check_list(struct walk *w, unsigned int z, unsigned int k)
{
	struct heap_node *hn = w->l.hn;
	struct free_list *fl = &hn->free[z][k];
	struct page_info *pg, *prev = NULL;
	bool seen_dirty = false;

	if (!!fl->head != !!(hn->nonempty[z] & (1u << k)))
		PROBLEM(w, "zone %u order %u: nonempty bit wrong", z, k);
	for (pg = fl->head; pg; prev = pg, pg = pg->next)
		check_chunk(w, fl, pg, prev, z, k, &seen_dirty);
	if (fl->tail != prev)
		PROBLEM(w, "zone %u order %u: tail pointer wrong", z, k);
}

/* Chunks never cross zones: overlap is checked per zone. */
static void check_zone_overlap(struct walk *w)
{
	uint64_t end_prev = 0;

	if (!check_scratch)
		return; /* heap_check_init() said so */
	if (w->used > check_words) {
		check_skipped++; /* heap_check() says it once */
		return;
	}
	sort(check_scratch, w->used, sizeof(check_scratch[0]), cmp_u64);
	for (unsigned int n = 0; n < w->used; n++) {
		uint64_t p = check_scratch[n] >> 6;
		unsigned int o = check_scratch[n] & 63;

		if (n && p < end_prev)
			PROBLEM(w, "chunks overlap at pfn %#llx",
				(unsigned long long)p);
		end_prev = p + (1ULL << o);
	}
}

/* Totals of the block walk, compared with the free lists and counters. */
struct tiles {
	uint64_t free, owned, bad;
};

static void count_tile(struct page_info *head, unsigned int order, int owner,
		       void *arg)
{
	struct tiles *t = arg;

	(void)head;
	if (owner == HEAP_OWNER_FREE)
		t->free += 1ULL << order;
	else if (owner == HEAP_OWNER_BAD) /* withheld: its own class */
		t->bad += 1ULL << order;
	else if (owner != HEAP_OWNER_KEEL)
		t->owned += 1ULL << order;
}

/*
 * Owned extents (and every other block) tile the node's ranges: each head
 * aligned, on this node, inside its range, each block starting where the
 * previous one ends (so none overlaps), and the walk agrees with the free
 * lists and the owned counter.
 */
static void check_tiling(struct walk *w)
{
	const struct heap_stats *st = &w->l.hn->stats;
	struct tiles t = {0};
	uint64_t deferred = 0;

	w->bad += walk_blocks_locked(w->l, count_tile, &t, &deferred);
	if (t.free + deferred != w->free)
		PROBLEM(w, "blocks walked: %llu free pages, free lists %llu",
			(unsigned long long)(t.free + deferred),
			(unsigned long long)w->free);
	if (deferred != w->ds.pages)
		PROBLEM(w, "deferred pages walked %llu, recorded %llu",
			(unsigned long long)deferred,
			(unsigned long long)w->ds.pages);
	if (t.bad != st->bad_pages - st->bad_held_pages)
		PROBLEM(w, "withheld bad pages %llu, walked %llu",
			(unsigned long long)(st->bad_pages -
					     st->bad_held_pages),
			(unsigned long long)t.bad);
	if (t.owned != st->owned_pages)
		PROBLEM(w, "owned_pages %llu, walked %llu",
			(unsigned long long)st->owned_pages,
			(unsigned long long)t.owned);
}

/*
 * The node's ranges: within a slice sorted, none overlapping or touching
 * (the add merges touching ones), each inside its slice; two in
 * neighbouring slices may touch at the edge.
 */
static void check_ranges(struct walk *w, const struct heap_ranges *hr)
{
	for (unsigned int k = 0; k < hr->count; k++) {
		const struct range_table *t = &hr->slice[k].t;
		uint64_t lo = hr->slice[k].start_pfn << PAGE_SHIFT;
		uint64_t hi = k + 1 < hr->count
				      ? hr->slice[k + 1].start_pfn << PAGE_SHIFT
				      : ~0ULL;

		if (k && hr->slice[k].start_pfn <= hr->slice[k - 1].start_pfn)
			PROBLEM(w, "slice %u starts at or below slice %u", k,
				k - 1);
		for (unsigned int n = 0; n < t->count; n++) {
			if (n && pa_val(t->regions[n].start) <=
					 pa_val(t->regions[n - 1].end))
				PROBLEM(w,
					"slice %u: ranges %u and %u overlap or "
					"touch",
					k, n - 1, n);
			if (pa_val(t->regions[n].start) < lo ||
			    pa_val(t->regions[n].end) > hi)
				PROBLEM(w, "slice %u: range %u outside it", k,
					n);
		}
	}
}

static unsigned int check_node(struct heap_node_locked l)
{
	struct heap_node *hn = l.hn;
	const struct heap_stats *st = &hn->stats;
	struct walk w = {.l = l};
	unsigned int z, k;

	check_ranges(&w, &hn->ranges);
	w.bad += heap_defer_check(l, &w.ds);
	w.free = w.ds.pages; /* free memory, off the lists */
	w.dirty = w.ds.dirty;
	for (z = 0; z < NR_ZONES; z++) {
		w.used = 0;
		w.zone_free = w.ds.zone[z];
		for (k = 0; k <= MAX_FREE_ORDER; k++)
			check_list(&w, z, k);
		if (w.zone_free != st->zone_free[z])
			PROBLEM(&w,
				"zone %u: %llu free pages counted, %llu "
				"walked",
				z, (unsigned long long)st->zone_free[z],
				(unsigned long long)w.zone_free);
		check_zone_overlap(&w);
		if (!!(hn->zone_mask & (1ULL << z)) != !!hn->nonempty[z])
			PROBLEM(&w, "zone %u: zone mask bit wrong", z);
	}
	if (w.free != st->free_pages)
		PROBLEM(&w, "free_pages %llu, walked %llu",
			(unsigned long long)st->free_pages,
			(unsigned long long)w.free);
	if (w.dirty != st->dirty_pages)
		PROBLEM(&w, "dirty_pages %llu, walked %llu",
			(unsigned long long)st->dirty_pages,
			(unsigned long long)w.dirty);
	if (w.chunks != st->free_chunks)
		PROBLEM(&w, "free_chunks %llu, walked %llu",
			(unsigned long long)st->free_chunks,
			(unsigned long long)w.chunks);
	check_tiling(&w);
	if (w.free > st->total_pages)
		PROBLEM(&w, "more free pages than total (%llu > %llu)",
			(unsigned long long)w.free,
			(unsigned long long)st->total_pages);
	return w.bad;
}

/**
 * heap_check() - full consistency walk of every node.
 *
 * Return: number of problems found (each printed).
 */
unsigned int heap_check(void)
{
	unsigned int n, bad = 0;

	heap_drain_caches(); /* the lists and counters exact */
	spin_lock(&check_lock);
	check_skipped = 0;
	for (n = 0; n < heap_nr_nodes; n++) {
		struct heap_node_locked l = heap_lock_node(n);

		bad += check_node(l);
		heap_unlock_node(l);
	}
	if (check_skipped)
		pr_warn("heap_check: %u zones hold more than %u free chunks: "
			"their overlap check skipped\n",
			check_skipped, check_words);
	spin_unlock(&check_lock);
	return bad;
}
