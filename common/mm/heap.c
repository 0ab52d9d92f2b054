/* SPDX-License-Identifier: MIT */
/*
 * The buddy heap.
 *
 * Owns, per NUMA node: the free lists [zone][order] (zone = fls64(pfn), so
 * an aligned power-of-two chunk [s, s + 2^k) with s != 0 never crosses a
 * zone), its heap ranges (sorted tables, adjacent ranges merged, in
 * slices when no single table fits: common/mm/heap_ranges.c), the node
 * counters, and the node lock.
 *
 * Queries, walks of the free lists and heap_check() are in
 * common/mm/heap_check.c; the state the heap files share is in heap_priv.h.
 *
 * Lock order: node locks are never nested. Every path holds at most one
 * node lock at a time (heap_alloc tries the nodes one after the other).
 * heap_check takes its scratch lock first, then one node lock at a time.
 *
 * Meaning of page_info entries (DESIGN §4): an entry is meaningful only if
 * its page is the head of a free chunk, the head of a chunk detached by the
 * scrubber, the head of an owned extent (common/mm/heap_owned.c), or the head
 * of an anonymous allocated block. Tails of all of them are never written
 * (heap_init=lazy) and never read: an anonymous block, like an owned
 * extent, costs one head write, and heap_owner_of() finds it from any of
 * its pages by probing aligned-down heads.
 *
 * Why the buddy check only ever reads meaningful entries: merging a block
 * B = [p, p + 2^k) that is being freed (or inserted) reads the head entry of
 * its buddy [b, b + 2^k) only when that buddy lies inside ONE heap range of
 * the same node, so every page of it is free, detached, allocated or owned.
 * Take the chunk or block X (order j) that contains page b. If j <= k, X is
 * aligned to 2^j and b to 2^k, so X starts at b: the entry read is X's
 * head, which was written when X became free, detached, allocated or owned
 * (an owned head says PGS_OWNED, never "free"). If
 * j > k, X contains the aligned 2^(k+1) parent of B and therefore B itself,
 * which is impossible: B is not part of any other free chunk or block
 * (X may also be a deferred chunk, common/mm/heap_defer.c: then j <= k
 * puts a bad page in the buddy, which is not inside one range). So
 * the entry read is always a head, and "state PGS_FREE and same order" can
 * be trusted. The same argument shows why heap_alloc only writes the HEAD
 * of the block it returns, under the lock (so no concurrent free merges
 * with it): nobody reads a tail.
 *
 * Stale entries: a head absorbed by a merge is invalidated (PGS_FREE_TAIL)
 * and is never read by the buddy check (argument above) or by
 * heap_owner_of() (which only descends through heads). An allocated or
 * owned head becomes a free head (or an absorbed one) when its block is
 * freed, so PGS_ALLOCATED and PGS_OWNED are never stale: heap_free() of a
 * page inside a block reads an entry that is not PGS_ALLOCATED (never
 * written this boot, or invalidated) and refuses it. The frame table is
 * not cleared at boot, so this holds for entries written since the
 * handoff; garbage that happens to name its own pfn as an allocated head
 * is the one misuse the heap cannot see (the same holds for owned heads).
 *
 * The per-CPU caches in front of heap_alloc()/heap_free() for order 0 and
 * 9 are in common/mm/heap_pcp.c (lock order: a cache's lock, then a node's).
 * The node lock is the host's (include/arch/lock.h), taken with
 * interrupts masked; the clock is read in a hold only when hold
 * statistics are on (heap_set_lock_stats()).
 *
 * Init and handoff (heap_init, heap_add_range) are in common/mm/heap_init.c,
 * the scrub's side (heap_take_dirty, heap_put_clean, heap_mark_clean) in
 * common/mm/heap_scrub.c, owned extents in common/mm/heap_owned.c.
 *
 * Scrub state lives in free heads: first_dirty (offset of the first page
 * that may be dirty, FIRST_DIRTY_NONE when clean) and PGF_CLEAN_POC (only
 * on clean chunks). Lists keep clean chunks at the head, dirty at the tail.
 */
#include <arch/cpu.h>
#include <arch/mm.h>
#include <keel/bug.h>
#include <keel/cachemaint.h>
#include <keel/compiler.h>
#include <keel/errno.h>
#include <keel/heap.h>
#include <keel/heap_boot.h>
#include <keel/heap_check.h>
#include <keel/heap_scrub.h>
#include <keel/numa.h>
#include <keel/printk.h>
#include <keel/scrub_prims.h>
#include <keel/string.h>

#include "heap_priv.h"

struct heap_node *heap_nodes[MAX_NUMNODES];
unsigned int heap_nr_nodes;
/*
 * Misuse panics (true) or is refused with a warning (false, DESIGN §10's
 * release behaviour): the library's default is to refuse; keel's own boot
 * sets CONFIG_DEBUG's choice, a host's debug build sets it true.
 */
bool heap_strict;

/*
 * The policy of heap_alloc() and heap_alloc_owned(): the opener's
 * (heap_set_cachemaint(), the flow's for the boot); until one is given,
 * deferred with counters of its own.
 */
static struct cachemaint_stats unset_stats;
static const struct cachemaint unset_maint = {CACHEMAINT_DEFERRED,
					      &unset_stats};
static const struct cachemaint *heap_maint = &unset_maint;

/**
 * heap_set_cachemaint() - the policy and counter sink of every allocation
 * that does not pass its own (see heap.h). @cm must outlive the heap's
 * use; NULL goes back to the built-in default.
 */
void heap_set_cachemaint(const struct cachemaint *cm)
{
	heap_maint = cm ? cm : &unset_maint;
}

/** heap_cachemaint() - Return: the policy heap_set_cachemaint() gave. */
const struct cachemaint *heap_cachemaint(void)
{
	return heap_maint;
}

/* ---- small helpers ----------------------------------------------------- */

/**
 * heap_chunk_order() - order of the first chunk of the free range [s, e)
 * (DESIGN §4): the largest aligned power of two that starts at @s and fits,
 * capped at MAX_FREE_ORDER; pfn 0 is always an order-0 chunk.
 *
 * Return: the order; 0 when the range is empty.
 */
unsigned int heap_chunk_order(uint64_t s, uint64_t e)
{
	unsigned int o;

	if (e <= s || s == 0)
		return 0;
	o = (unsigned int)fls64(e - s) - 1;
	o = MIN(o, (unsigned int)ffs64(s) - 1);
	return MIN(o, (unsigned int)MAX_FREE_ORDER);
}

/* ---- locking ----------------------------------------------------------- */

/* Hold statistics asked (heap_set_lock_stats()): the clock is read. */
static bool lock_stats;

/**
 * heap_lock_node_at() - take @node's lock, interrupts masked.
 * @site: the caller, for the interrupts-off tracer
 *
 * Return: the proof of holding it, for the *_locked helpers.
 */
struct heap_node_locked heap_lock_node_at(uint32_t node, const char *site)
{
	struct heap_node *hn = heap_nodes[node];
	irqflags_t f = heap_lock_irqsave(&hn->lock, site);

	hn->irq_flags = f;
	hn->stats.locks++;
	heap_pcp_count_lock(); /* per CPU: the churn's lock_per_op */
	/* The clock is read in the hold only when hold times are asked. */
	hn->lock_start = unlikely(READ_ONCE(lock_stats)) ? arch_ticks() : 0;
	return (struct heap_node_locked){hn};
}

/**
 * heap_unlock_node_ticks() - drop the lock, recording how long it was held.
 *
 * Return: that hold, in ticks.
 */
uint64_t heap_unlock_node_ticks(struct heap_node_locked l)
{
	struct heap_node *hn = l.hn;
	uint64_t held = 0;

	if (unlikely(hn->lock_start)) {
		held = arch_ticks() - hn->lock_start;
		if (held > hn->stats.lock_max_ticks)
			hn->stats.lock_max_ticks = held;
	}
	heap_unlock_irqrestore(&hn->lock, hn->irq_flags);
	return held;
}

/** heap_unlock_node() - drop the lock (its hold recorded). */
void heap_unlock_node(struct heap_node_locked l)
{
	heap_unlock_node_ticks(l);
}

/**
 * heap_set_lock_stats() - time every node-lock hold from now on (@on), or
 * stop: without it no clock is read while a node lock is held, and
 * lock_max_ticks and heap_alloc_info.lock_ticks stay 0.
 */
void heap_set_lock_stats(bool on)
{
	WRITE_ONCE(lock_stats, on);
}

/**
 * heap_reset_lock_stats() - forget the longest lock holds and time the
 * holds from now on (benchmarks).
 */
void heap_reset_lock_stats(void)
{
	unsigned int n;

	heap_set_lock_stats(true);
	for (n = 0; n < heap_nr_nodes; n++) {
		struct heap_node_locked l = heap_lock_node(n);

		l.hn->stats.lock_max_ticks = 0;
		heap_unlock_irqrestore(&l.hn->lock, l.hn->irq_flags);
	}
}

/* ---- free lists (lock held) ------------------------------------------- */

void heap_list_insert(struct heap_node_locked l, struct page_info *pg)
{
	struct heap_node *hn = l.hn;
	unsigned int z = pfn_zone(pg->pfn), k = pg->order;
	struct free_list *fl = &hn->free[z][k];
	uint64_t pages = 1ULL << k;

	if (pg->first_dirty == FIRST_DIRTY_NONE) {
		pg->prev = NULL;
		pg->next = fl->head;
		if (fl->head)
			fl->head->prev = pg;
		else
			fl->tail = pg;
		fl->head = pg;
	} else {
		pg->next = NULL;
		pg->prev = fl->tail;
		if (fl->tail)
			fl->tail->next = pg;
		else
			fl->head = pg;
		fl->tail = pg;
	}
	hn->nonempty[z] |= 1u << k;
	hn->zone_mask |= 1ULL << z;
	hn->stats.free_pages += pages;
	hn->stats.zone_free[z] += pages;
	hn->stats.dirty_pages += chunk_dirty_pages(pg);
	hn->stats.free_chunks++;
}

void heap_list_remove(struct heap_node_locked l, struct page_info *pg)
{
	struct heap_node *hn = l.hn;
	unsigned int z = pfn_zone(pg->pfn), k = pg->order;
	struct free_list *fl = &hn->free[z][k];
	uint64_t pages = 1ULL << k;

	if (pg->prev)
		pg->prev->next = pg->next;
	else
		fl->head = pg->next;
	if (pg->next)
		pg->next->prev = pg->prev;
	else
		fl->tail = pg->prev;
	if (!fl->head) {
		hn->nonempty[z] &= ~(1u << k);
		if (!hn->nonempty[z])
			hn->zone_mask &= ~(1ULL << z);
	}
	hn->stats.free_pages -= pages;
	hn->stats.zone_free[z] -= pages;
	hn->stats.dirty_pages -= chunk_dirty_pages(pg);
	hn->stats.free_chunks--;
}

/* ---- heap ranges ------------------------------------------------------- */

/* Is [p, p + 2^k) inside one heap range of the locked node? */
bool heap_owns_locked(struct heap_node_locked l, uint64_t p, unsigned int k)
{
	const struct region *r = heap_ranges_find(&l.hn->ranges, p);

	return r && p + (1ULL << k) <= pfn_val(region_end_pfn(r));
}

/* ---- merging ----------------------------------------------------------- */

/*
 * Insert the chunk whose head @pg (pfn @p, order @k, not on any list) has
 * been prepared with first_dirty and flags, merging it with free buddies
 * of the same node (see the file comment for why reading the buddy head is
 * safe). Return: the head of the chunk finally inserted.
 */
struct page_info *heap_merge_insert(struct heap_node_locked l,
				    struct page_info *pg, uint64_t p,
				    unsigned int k)
{
	const struct region *r = heap_ranges_find(&l.hn->ranges, p);

	/* Not heap memory: inserted as it is, never merged. */
	if (!r)
		return heap_merge_insert_in(l, pg, p, k, p, p + (1ULL << k));
	return heap_merge_insert_in(l, pg, p, k, pfn_val(region_start_pfn(r)),
				    pfn_val(region_end_pfn(r)));
}

/*
 * heap_merge_insert() for a chunk inside the heap range [@rs, @re) of the
 * locked node: every buddy checked against that one range, looked up
 * once, not once per merge level.
 */
struct page_info *heap_merge_insert_in(struct heap_node_locked l,
				       struct page_info *pg, uint64_t p,
				       unsigned int k, uint64_t rs, uint64_t re)
{
	uint32_t fd = pg->first_dirty;
	uint8_t poc = pg->flags & PGF_CLEAN_POC;

	/* A stale copy of the incoming head must never read as allocated. */
	pg->state = PGS_FREE;
	while (k < MAX_FREE_ORDER) {
		uint64_t size = 1ULL << k, b = p ^ size;
		uint64_t lo = MIN(p, b);
		struct page_info *bpg;
		uint32_t lo_fd, hi_fd;

		if (lo == 0) /* no block of order > 0 at pfn 0 */
			break;
		if (b < rs || b + size > re)
			break;
		bpg = pfn_to_page(pfn(b));
		if (bpg->state != PGS_FREE || bpg->order != k)
			break;
		heap_list_remove(l, bpg);
		if (b < p) {
			lo_fd = bpg->first_dirty;
			hi_fd = fd;
		} else {
			lo_fd = fd;
			hi_fd = bpg->first_dirty;
		}
		if (lo_fd != FIRST_DIRTY_NONE)
			fd = lo_fd;
		else if (hi_fd != FIRST_DIRTY_NONE)
			fd = (uint32_t)size + hi_fd;
		else
			fd = FIRST_DIRTY_NONE;
		poc = poc & bpg->flags & PGF_CLEAN_POC;
		if (b < p) {
			pg->state = PGS_FREE_TAIL; /* no longer a head */
			pg = bpg; /* the lower half's head leads */
		} else {
			bpg->state = PGS_FREE_TAIL;
		}
		p = lo;
		k++;
	}
	write_free_head(pg, p, k, l.hn->id, fd, poc);
	heap_list_insert(l, pg);
	return pg;
}

/* ---- allocation -------------------------------------------------------- */

/*
 * Split the free chunk @pg (pfn *@p, order @j, first dirty offset *@fd,
 * already off its list) down to order @order: the lower halves go back to
 * the free lists, the top piece is returned with its pfn in *@p and its
 * first dirty offset in *@fd. The top piece is dirty whenever the chunk
 * was (its dirty pages are [fd, 2^j)). Xen keeps the top the same way.
 */
static struct page_info *split_down(struct heap_node_locked l,
				    struct page_info *pg, uint64_t *p,
				    unsigned int j, unsigned int order,
				    uint32_t *fd, uint8_t poc)
{
	while (j > order) {
		uint64_t half;
		uint32_t lo_fd;

		j--;
		half = 1ULL << j;
		lo_fd = (*fd == FIRST_DIRTY_NONE || *fd >= half)
				? FIRST_DIRTY_NONE
				: *fd;
		write_free_head(pg, *p, j, l.hn->id, lo_fd, poc);
		heap_list_insert(l, pg);
		if (*fd != FIRST_DIRTY_NONE)
			*fd = *fd >= half ? *fd - (uint32_t)half : 0;
		*p += half;
		pg = pfn_to_page(pfn(*p));
	}
	return pg;
}

/*
 * Find and detach a free chunk of order >= @order in zones <= @zone_hi,
 * highest zone first, then split it down to @order. Within a zone, clean
 * chunks are preferred, unless @any_dirt: a caller that needs no zeroed
 * pages (HEAP_NO_SCRUB) takes the smallest fitting chunk, clean or dirty,
 * so that it never splits a big clean chunk while a small dirty one fits
 * (in a heap nobody scrubs, such as a host's without an idle scrub, most
 * free memory is dirty, and the clean big chunks went one by one). Only
 * the heads of the halves put back are written, and the block's head:
 * @state (PGS_ALLOCATED or PGS_OWNED, then @owner). When no list fits
 * and the node has deferred chunks (bad pages at the handoff), they are
 * split first, the node lock dropped and taken again every DEFER_BATCH
 * splits (heap_defer_refill()): a caller must not rely on the node
 * staying as it was across the call.
 * Return: head entry of the block (its pfn, first dirty offset and
 * PGF_CLEAN_POC in *@t), or NULL.
 */
struct page_info *heap_take_block(struct heap_node_locked l, unsigned int order,
				  int zone_hi, struct heap_taken *t,
				  uint8_t state, uint32_t owner, bool any_dirt)
{
	struct heap_node *hn = l.hn;
	struct page_info *pg = NULL;
	uint64_t p;
	uint32_t fd;
	uint8_t poc;
	unsigned int j = 0;
	bool refilled = false;
	uint64_t zm;
	int z;

again:
	zm = hn->zone_mask & ((2ULL << zone_hi) - 1);
	/* Only the zones that have a free chunk, from the highest allowed. */
	for (; zm && !pg; zm &= ~(1ULL << z)) {
		uint32_t mask, m;

		z = fls64(zm) - 1;
		mask = hn->nonempty[z] & ~((1u << order) - 1);
		if (!mask)
			continue;
		for (m = any_dirt ? 0 : mask; m; m &= m - 1) {
			unsigned int o = (unsigned int)ffs64(m) - 1;

			if (hn->free[z][o].head->first_dirty ==
			    FIRST_DIRTY_NONE) {
				j = o;
				break;
			}
		}
		if (!m)
			j = (unsigned int)ffs64(mask) - 1;
		pg = hn->free[z][j].head;
	}
	/*
	 * Nothing fits: split deferred chunks until one does (heap_defer.c),
	 * then look once more: the refill may drop the lock between batches,
	 * and other CPUs' frees or splits may have made one meanwhile.
	 */
	if (!pg && !refilled && hn->stats.deferred_chunks) {
		refilled = true;
		heap_defer_refill(l, order, zone_hi);
		goto again;
	}
	if (!pg)
		return NULL;

	heap_list_remove(l, pg);
	p = pg->pfn;
	fd = pg->first_dirty;
	poc = pg->flags & PGF_CLEAN_POC;
	pg = split_down(l, pg, &p, j, order, &fd, poc);

	/* Claim the head now so that no free merges with it after unlock. */
	page_set(pg, p, state, order, hn->id,
		 state == PGS_OWNED ? owner : FIRST_DIRTY_NONE,
		 state == PGS_ALLOCATED ? PGF_ANON | poc : poc);
	t->pfn = p;
	t->fd = fd;
	t->poc = poc;
	return pg;
}

/*
 * The node of each CPU (heap_set_cpu_node()), where HEAP_ANY_NODE starts;
 * node 0 until the host says otherwise.
 */
static uint8_t cpu_node[CONFIG_NR_CPUS];
static unsigned int cpu_top;
/* Allocations refused: HEAP_EXACT_NODE on a node that does not exist. */
static uint64_t bad_node_count;

/**
 * heap_set_cpu_node() - CPU @cpu (arch_cpu_id()) is on @node: where its
 * HEAP_ANY_NODE allocations start. Out-of-range values are ignored.
 */
void heap_set_cpu_node(unsigned int cpu, uint32_t node)
{
	if (cpu < CONFIG_NR_CPUS && node < MAX_NUMNODES) {
		WRITE_ONCE(cpu_node[cpu], (uint8_t)node);
		if (cpu >= cpu_top)
			cpu_top = cpu + 1;
	}
}

/* 1 + the highest CPU heap_set_cpu_node() was told of (the caches' size). */
unsigned int heap_cpu_top(void)
{
	return cpu_top;
}

/** heap_cpu_node() - Return: the calling CPU's node (0 when unknown). */
uint32_t heap_cpu_node(void)
{
	unsigned int cpu = arch_cpu_id();
	uint32_t n = cpu < CONFIG_NR_CPUS ? READ_ONCE(cpu_node[cpu]) : 0;

	return n < heap_nr_nodes ? n : 0;
}

/** heap_bad_node_count() - Return: allocations refused for no such node. */
uint64_t heap_bad_node_count(void)
{
	return __atomic_load_n(&bad_node_count, __ATOMIC_RELAXED);
}

/*
 * The nodes an allocation tries, in order, for node preference @pref
 * (HEAP_ANY_NODE: the calling CPU's node first): the preferred node's
 * fallback order, or only that node with HEAP_EXACT_NODE (kept in
 * *@exact). A node that does not exist is refused with HEAP_EXACT_NODE
 * (counted, one debug line) and means no preference without it.
 * Return: the array, its length in *@count (0: refused).
 */
const uint32_t *heap_alloc_candidates(int pref, uint32_t flags, uint32_t *exact,
				      unsigned int *count)
{
	struct heap_node *hn;

	if (pref != HEAP_ANY_NODE && (pref < 0 || pref >= (int)heap_nr_nodes)) {
		if (flags & HEAP_EXACT_NODE) {
			__atomic_fetch_add(&bad_node_count, 1,
					   __ATOMIC_RELAXED);
			pr_debug("heap: node %d does not exist "
				 "(HEAP_EXACT_NODE): refused\n",
				 pref);
			*count = 0;
			return exact;
		}
		pref = HEAP_ANY_NODE;
	}
	if (pref >= 0 && (flags & HEAP_EXACT_NODE)) {
		*exact = (uint32_t)pref;
		*count = 1;
		return exact;
	}
	hn = heap_nodes[pref < 0 ? heap_cpu_node() : (uint32_t)pref];
	*count = hn->fallback_count;
	return hn->fallback;
}

/* Zero the pages of the block at pfn @p from its first dirty page @fd. */
static void scrub_from(uint64_t p, unsigned int order, uint32_t fd)
{
	arch_scrub_range(phys_to_virt(pfn_to_paddr(pfn(p + fd))),
			 ((1ULL << order) - fd) << PAGE_SHIFT);
}

/*
 * cachemaint=eager, the classic order, all under the lock: zero, then
 * clean page by page. Cleaning first and zeroing after the unlock would
 * leave the zeros in the cache, not at PoC.
 */
void heap_eager_in_lock(const struct cachemaint *cm, struct page_info *pg,
			unsigned int order, struct heap_taken *t,
			uint32_t flags)
{
	if (t->fd != FIRST_DIRTY_NONE && !(flags & HEAP_NO_SCRUB)) {
		scrub_from(t->pfn, order, t->fd);
		t->fd = FIRST_DIRTY_NONE;
	}
	cachemaint_in_lock(cm, pg, order);
}

/* The block, off the free lists of the first candidate node that has one. */
static struct page_info *alloc_from_nodes(unsigned int order, int node,
					  int zone_hi, uint32_t flags,
					  const struct cachemaint *cm,
					  struct heap_taken *t)
{
	unsigned int i, count;
	const uint32_t *candidates;
	struct page_info *pg = NULL;
	uint32_t exact;

	candidates = heap_alloc_candidates(node, flags, &exact, &count);
	for (i = 0; i < count && !pg; i++) {
		/* The tracer's site: the API's name, whatever the policy. */
		struct heap_node_locked l =
			heap_lock_node_at(candidates[i], "heap_alloc");

		pg = heap_take_block(l, order, zone_hi, t, PGS_ALLOCATED, 0,
				     flags & HEAP_NO_SCRUB);
		if (pg && cm->mode == CACHEMAINT_EAGER)
			heap_eager_in_lock(cm, pg, order, t, flags);
		heap_unlock_node(l);
	}
	return pg;
}

/**
 * heap_alloc() - an anonymous block of 2^@order pages, maintained as @cm
 * says (NULL: the heap's policy; see heap.h).
 *
 * Return: the head entry, or NULL when no allowed node has a fitting chunk.
 */
struct page_info *heap_alloc(unsigned int order, int node,
			     unsigned int max_bits, uint32_t flags,
			     const struct cachemaint *cm)
{
	int zone_hi = NR_ZONES - 1;
	struct page_info *pg = NULL;
	struct heap_taken t = {.fd = FIRST_DIRTY_NONE};

	if (order > MAX_ORDER || !heap_nr_nodes)
		return NULL;
	if (!cm)
		cm = heap_maint;
	if (max_bits) {
		if (max_bits < PAGE_SHIFT)
			return NULL;
		zone_hi = (int)MIN(max_bits - PAGE_SHIFT, NR_ZONES - 1u);
	}
	/* The common case: the CPU's cache (not for eager, nor DMA zones). */
	if (cm->mode != CACHEMAINT_EAGER && !max_bits &&
	    (node == HEAP_ANY_NODE || (node >= 0 && node < (int)heap_nr_nodes)))
		pg = heap_pcp_alloc(order,
				    node < 0 ? heap_cpu_node() : (uint32_t)node,
				    flags, &t);
	if (!pg)
		pg = alloc_from_nodes(order, node, zone_hi, flags, cm, &t);
	/* Low memory: what the tried nodes' caches hold, one more try. */
	if (!pg && heap_pcp_drain_tried(order, node, flags))
		pg = alloc_from_nodes(order, node, zone_hi, flags, cm, &t);
	if (!pg)
		return NULL;
	/*
	 * O(1) metadata, like an owned extent: the head was written under the
	 * lock by heap_take_block(); no tail entry is written, ever.
	 */
	if (t.fd != FIRST_DIRTY_NONE && !(flags & HEAP_NO_SCRUB))
		scrub_from(t.pfn, order, t.fd);
	cachemaint_after_alloc(cm, pg, order, flags);
	return pg;
}

/* ---- free -------------------------------------------------------------- */

/* What the head must be, for the misuse reason of a free. */
static const char *free_state_problem(const struct page_info *pg,
				      const struct heap_free_args *a)
{
	if (a->state == PGS_OWNED) {
		if (pg->state != PGS_OWNED)
			return "not an owned extent (double free?)";
		if (pg->flags & PGF_ADOPTED)
			return "adopted memory (heap_release_owned)";
		return pg->owner != a->owner ? "owned by another domain" : NULL;
	}
	if (pg->state == PGS_OWNED)
		return "an owned extent (heap_free_owned)";
	return pg->state != PGS_ALLOCATED || (pg->flags & PGF_CACHED)
		       ? "not allocated (double free?)"
		       : NULL;
}

/* An owned extent's pages leave the node's counts (its owner's by @slot). */
static void owned_freed(struct heap_node *hn, int slot, uint64_t pages)
{
	hn->stats.owned_pages -= pages;
	if (slot >= 0)
		hn->owner_pages[slot] -= pages;
}

/**
 * heap_free_block() - the one free path of both kinds of block
 * (heap_free(), heap_free_owned()): every misuse
 * check, then the merge, in one place.
 * @pg: the head given back
 * @order: its order
 * @a: what it must be, and the state of its contents
 *
 * Return: 0, or heap_misuse()'s -EINVAL (panics when heap_strict).
 */
int heap_free_block(struct page_info *pg, unsigned int order,
		    const struct heap_free_args *a)
{
	struct heap_node_locked l;
	const struct region *r;
	const char *why = NULL;
	uint64_t p = pg ? pg->pfn : ~0ULL;
	unsigned int got = 0;

	if (!pg)
		why = "NULL page";
	else if (order > a->max_order)
		why = a->max_order == MAX_ORDER ? "order above MAX_ORDER"
						: "order above MAX_FREE_ORDER";
	else if (!heap_entry_valid(pg))
		why = "not a frame table entry of a heap page";
	if (why)
		return heap_misuse(a->fn, p, why, order, got);
	/* The common case: into the CPU's cache, no node lock. */
	if (a->state == PGS_ALLOCATED) {
		uint32_t node = pg->node; /* not read once it is given away */
		uint64_t gen = heap_bad_gen(node);

		if (!(__atomic_load_n(&pg->flags, __ATOMIC_SEQ_CST) &
		      PGF_HAS_BAD) &&
		    heap_pcp_free(pg, order, a->first_dirty,
				  a->flags & PGF_CLEAN_POC)) {
			/* A page offlined in it meanwhile: not lost. */
			if (heap_bad_gen(node) != gen)
				heap_bad_recheck(node);
			return 0;
		}
	}

	l = heap_lock_node(pg->node);
	got = pg->order;
	why = free_state_problem(pg, a);
	if (!why && got != order)
		why = "order does not match the allocation";
	else if (!why && (p & ((1ULL << order) - 1)))
		why = "not the head of a block of that order";
	/* The one range lookup of this free: the merge reuses it. */
	r = why ? NULL : heap_ranges_find(&l.hn->ranges, p);
	if (!why && (!r || p + (1ULL << order) > pfn_val(region_end_pfn(r))))
		why = "not owned by the heap";
	if (!why) {
		bool has_bad = pg->flags & PGF_HAS_BAD;

		if (a->state == PGS_OWNED)
			owned_freed(l.hn, a->slot, 1ULL << order);
		pg->first_dirty = a->first_dirty;
		pg->flags = a->flags;
		if (has_bad) /* pages offlined in it stay out */
			heap_withhold_bad(l, pg, p, order,
					  pfn_val(region_start_pfn(r)),
					  pfn_val(region_end_pfn(r)));
		else
			heap_merge_insert_in(l, pg, p, order,
					     pfn_val(region_start_pfn(r)),
					     pfn_val(region_end_pfn(r)));
	}
	heap_unlock_node(l);
	return why ? heap_misuse(a->fn, p, why, order, got) : 0;
}

/**
 * heap_free() - give back the block headed by @pg; @how: the state of its
 * contents (HEAP_FREE_DIRTY, _ZEROED, _CLEAN_POC: zeroed and cleaned to
 * the point of coherency, so that the chunk it merges into still needs no
 * maintenance: a stage-2 table page, say). Written memory is no longer
 * clean to PoC otherwise.
 *
 * Return: 0, or -EINVAL on misuse when heap_strict is off (panics when on).
 */
int heap_free(struct page_info *pg, unsigned int order, unsigned int how)
{
	const struct heap_free_args a = {
		.fn = "heap_free",
		.max_order = MAX_ORDER,
		.state = PGS_ALLOCATED,
		.first_dirty = how == HEAP_FREE_DIRTY ? 0 : FIRST_DIRTY_NONE,
		.flags = how == HEAP_FREE_CLEAN_POC ? PGF_CLEAN_POC : 0,
	};

	if (how > HEAP_FREE_CLEAN_POC)
		return heap_misuse("heap_free", pg ? pg->pfn : ~0ULL,
				   "unknown contents state (@how)", order, how);
	return heap_free_block(pg, order, &a);
}

/**
 * heap_misuse() - a free the heap refuses: panic when heap_strict, else
 * one warning.
 *
 * Return: -EINVAL.
 */
int heap_misuse(const char *fn, uint64_t p, const char *why, unsigned int order,
		unsigned int got)
{
	if (heap_strict)
		panic("%s: pfn %#llx: %s (order %u, recorded %u)", fn,
		      (unsigned long long)p, why, order, got);
	pr_warn("%s: pfn %#llx: %s (order %u), refused\n", fn,
		(unsigned long long)p, why, order);
	return -EINVAL;
}
