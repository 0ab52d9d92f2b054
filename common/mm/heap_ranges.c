/* SPDX-License-Identifier: MIT */
/*
 * A heap node's ranges (which pfns are heap memory) in slices: struct
 * heap_ranges, a short array of range tables sorted by start, slice k
 * holding the ranges inside pfns [slice[k].start_pfn, slice[k + 1]'s)
 * (slice 0 from 0, the last to the top). Each slice's table lives in its
 * own piece of boot memory, so no table needs more contiguous memory than
 * bootmem has: a badram= lattice leaves no free piece wider than 124 KiB
 * (2,600 regions), fewer than a live update's extents may need.
 *
 * One slice is the normal case (the node's first table beside its state,
 * or the one table heap_size_ranges() asked of bootmem): then a lookup is
 * one compare and a predictable branch more than a plain table's
 * (heap_ranges_table()). Slices are made only when no single table fits
 * (heap_ranges_split(), before the handoff, bootmem open).
 *
 * Where a slice begins: only at the start of a reserved region of bootmem.
 * Every range the heap adds is a free range of bootmem (it ends at a
 * reservation's start), a range of a span (heap_span.c: one per range
 * between bad gaps), a domain's extent inside a "preserved" or
 * "static-mem" region, or a piece of those: none crosses such a point,
 * so no heap block does and "is [p, p + 2^k) inside one range" keeps its
 * meaning with a per-slice lookup. An add or a remove that would cross a
 * slice's edge is refused (-EINVAL), never split. Two ranges may touch
 * across an edge (they stay two).
 *
 * Lock: the node's, as for the table it replaces; heap_ranges_split()
 * takes it only to install the slices.
 */
#include <arch/mm.h>
#include <keel/bootmem.h>
#include <keel/compiler.h>
#include <keel/errno.h>
#include <keel/printk.h>
#include <keel/string.h>

#include "heap_priv.h"

/* The widest piece a slice's table is given (1,365 regions). */
#define SLICE_PIECE_MAX (64ULL << 10)

/** heap_ranges_init() - one slice over @store of @cap regions, empty. */
void heap_ranges_init(struct heap_ranges *hr, struct region *store,
		      unsigned int cap)
{
	hr->one.start_pfn = 0;
	hr->one.t = (struct range_table)RANGE_TABLE_INIT(store, cap, NULL);
	hr->slice = &hr->one;
	hr->count = 1;
}

/**
 * heap_ranges_index() - the slice holding pfn @p: the last starting at or
 * below it. O(log slices).
 *
 * Return: its index.
 */
unsigned int heap_ranges_index(const struct heap_ranges *hr, uint64_t p)
{
	unsigned int lo = 1, hi = hr->count;

	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;

		if (hr->slice[mid].start_pfn <= p)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo - 1;
}

/* Where slice @k ends (~0: the last). */
static uint64_t slice_end(const struct heap_ranges *hr, unsigned int k)
{
	return k + 1 < hr->count ? hr->slice[k + 1].start_pfn : ~0ULL;
}

/*
 * The slice holding all of pfns [@s, @e), or NULL when [@s, @e) is empty
 * or crosses a slice's edge.
 */
static struct range_table *table_of(struct heap_ranges *hr, uint64_t s,
				    uint64_t e)
{
	unsigned int k;

	if (e <= s)
		return NULL;
	if (likely(hr->count == 1))
		return &hr->one.t;
	k = heap_ranges_index(hr, s);
	return e <= slice_end(hr, k) ? &hr->slice[k].t : NULL;
}

/**
 * heap_ranges_add() - pfns [@s, @e) become heap memory, merged with the
 * touching ranges of its slice: appended in O(1) when it lies above every
 * range there, not touching the last (a handoff's ranges come in address
 * order), else placed by range_table_add().
 *
 * Return: 0, -EINVAL (empty, overlapping a range, or across a slice's
 * edge) or -ENOSPC (its slice's table is full).
 */
int heap_ranges_add(struct heap_ranges *hr, uint64_t s, uint64_t e)
{
	struct range_table *t = table_of(hr, s, e);
	struct region r = {0};

	if (!t)
		return -EINVAL;
	r.start = pfn_to_paddr(pfn(s));
	r.end = pfn_to_paddr(pfn(e));
	if (t->count && pa_val(t->regions[t->count - 1].end) < pa_val(r.start))
		return range_table_append(t, &r);
	return range_table_add(t, r.start, r.end, NULL);
}

/**
 * heap_ranges_remove() - pfns [@s, @e) leave the heap's ranges (a range
 * holding them all is split in two).
 *
 * Return: 0, -EINVAL (empty, or across a slice's edge) or -ENOSPC (a
 * split found its slice's table full; nothing changed).
 */
int heap_ranges_remove(struct heap_ranges *hr, uint64_t s, uint64_t e)
{
	struct range_table *t = table_of(hr, s, e);

	if (!t)
		return -EINVAL;
	return range_table_remove(t, pfn_to_paddr(pfn(s)),
				  pfn_to_paddr(pfn(e)));
}

/**
 * heap_ranges_seek() - @pos at the first range ending above address @a
 * (heap_ranges_next() gives it). O(log slices + log ranges).
 */
void heap_ranges_seek(const struct heap_ranges *hr, paddr_t a,
		      struct heap_range_pos *pos)
{
	unsigned int k = heap_ranges_index(hr, pa_val(a) >> PAGE_SHIFT);

	pos->slice = k;
	pos->i = range_table_first_ending_above(&hr->slice[k].t, a);
}

/**
 * heap_ranges_next() - the range at @pos, in address order over all
 * slices; @pos moves past it. Start from {0} or heap_ranges_seek().
 *
 * Return: it, or NULL past the last.
 */
const struct region *heap_ranges_next(const struct heap_ranges *hr,
				      struct heap_range_pos *pos)
{
	while (pos->slice < hr->count) {
		const struct range_table *t = &hr->slice[pos->slice].t;

		if (pos->i < t->count)
			return &t->regions[pos->i++];
		pos->slice++;
		pos->i = 0;
	}
	return NULL;
}

/**
 * heap_ranges_first_ending_above() - Return: the first range ending above
 * address @a, or NULL.
 */
const struct region *
heap_ranges_first_ending_above(const struct heap_ranges *hr, paddr_t a)
{
	struct heap_range_pos pos;

	heap_ranges_seek(hr, a, &pos);
	return heap_ranges_next(hr, &pos);
}

/** heap_ranges_count() - Return: the ranges of all slices. O(slices). */
unsigned int heap_ranges_count(const struct heap_ranges *hr)
{
	unsigned int n = 0;

	for (unsigned int k = 0; k < hr->count; k++)
		n += hr->slice[k].t.count;
	return n;
}

/**
 * heap_ranges_grow() - the one slice's ranges move to @store of @cap
 * regions (boot memory the heap owns for good), when that is larger.
 *
 * Return: whether they moved (never for a node in slices).
 */
bool heap_ranges_grow(struct heap_ranges *hr, struct region *store,
		      unsigned int cap)
{
	return hr->count == 1 && range_table_move(&hr->one.t, store, cap);
}

/**
 * heap_ranges_install() - @count slices @sl (their starts sorted, the
 * first 0, each table empty) replace the one slice of a node that holds no
 * range yet. Lock: the node's.
 *
 * Return: 0, or -EBUSY (it holds ranges already: nothing changed).
 */
int heap_ranges_install(struct heap_ranges *hr, struct heap_slice *sl,
			unsigned int count)
{
	if (hr->count != 1 || hr->one.t.count || !count || sl[0].start_pfn)
		return -EBUSY;
	for (unsigned int k = 1; k < count; k++)
		CHECK(sl[k].start_pfn > sl[k - 1].start_pfn);
	/* One slice stays @one: heap_ranges_table()'s fast path reads it. */
	if (count == 1) {
		hr->one.t = sl[0].t;
		return 0;
	}
	hr->slice = sl;
	hr->count = count;
	return 0;
}

/* ---- slicing a node (boot: before the handoff, bootmem open) ---------- */

/*
 * The ranges reserved region @r can bring to the heap: the free range
 * after it and the extents a domain's region holds (as heap_size_ranges()
 * counts them).
 */
static uint64_t ranges_of(const struct region *r)
{
	return 1 + bootmem_region_domain_ranges(r);
}

/*
 * plan()'s walk: the slices so far (their starts into @out unless NULL),
 * the ranges counted into the last since it began (@in) and as bootmem
 * counts them (@counted).
 */
struct plan {
	unsigned int slices;
	uint64_t counted, in, last, budget;
	struct heap_slice *out;
};

/* A new slice from pfn @p (above the last one's start). */
static void cut(struct plan *pl, uint64_t p)
{
	if (p <= pl->last)
		return;
	if (pl->out)
		pl->out[pl->slices].start_pfn = p;
	pl->slices++;
	pl->last = p;
	pl->in = 0;
}

/*
 * A domain's region bootmem merged out of many, whose extents alone
 * outnumber a slice (@r, its ranges counted across a badram= lattice):
 * cut inside it at the lattice's pages, one slice per @budget gaps. The
 * old image took them out of service before it built its domains, so no
 * extent holds one; an extent that does (a pattern new to this image)
 * crosses an edge and is refused (-EINVAL), never split.
 */
static void cut_inside(struct plan *pl, const struct region *r)
{
	uint64_t gap = bootmem_lattice_gap_bytes(), x = pa_val(r->start);
	uint64_t step = (pl->budget - 2) * gap, s, e;

	while (pl->budget > 2 && pa_val(r->end) - x > step &&
	       bootmem_lattice_after(x + step - gap - PAGE_SIZE, &s, &e) &&
	       s < pa_val(r->end) && s > x) {
		cut(pl, s >> PAGE_SHIFT);
		x = s;
	}
	pl->in += (pa_val(r->end) - x) / gap + 2;
}

/* Reserved region @r inside the node's RAM from @ram_start. */
static void count_region(struct plan *pl, const struct region *r,
			 paddr_t ram_start)
{
	uint64_t c = ranges_of(r);

	if (pl->in + c > pl->budget && pa_val(r->start) >= pa_val(ram_start))
		cut(pl, pa_val(r->start) >> PAGE_SHIFT);
	pl->counted++;
	if (c > pl->budget && bootmem_lattice_gap_bytes() != ~0ULL)
		cut_inside(pl, r);
	else
		pl->in += c;
}

/*
 * Node @node's RAM in slices, in address order: a new one at a reserved
 * region's start when the ranges counted since the last would pass
 * @budget (inside a domain's region only at a lattice's pages:
 * cut_inside()). @out (NULL: count only) gets each slice's start.
 * O(the node's RAM and reserved regions, and the slices).
 */
static struct plan plan(uint32_t node, uint64_t budget, struct heap_slice *out)
{
	unsigned int ram_count, rsv_count;
	const struct region *ram = bootmem_ram_regions(&ram_count);
	const struct region *rsv = bootmem_reserved_table(&rsv_count);
	struct plan pl = {.slices = 1, .budget = budget, .out = out};

	if (out)
		out[0].start_pfn = 0;
	for (unsigned int i = 0; i < ram_count; i++) {
		unsigned int j = regions_first_ending_above(rsv, rsv_count,
							    ram[i].start);

		if (ram[i].node != node)
			continue;
		pl.in++; /* the free range from the RAM's start */
		pl.counted++;
		for (;
		     j < rsv_count && pa_val(rsv[j].start) < pa_val(ram[i].end);
		     j++)
			count_region(&pl, &rsv[j], ram[i].start);
	}
	return pl;
}

/* @bytes of boot memory on @node for the heap's ranges, or NULL. */
static void *ranges_piece(uint64_t bytes, uint32_t node)
{
	paddr_t p = bootmem_alloc_try(bytes, PAGE_SIZE, node, "heap ranges");

	return pa_val(p) == pa_val(INVALID_PADDR) ? NULL : phys_to_virt(p);
}

/*
 * Each slice of @sl (@count) its table: a piece of @piece bytes. Return:
 * false when bootmem ran out (the pieces given stay reserved, named).
 */
static bool slice_stores(struct heap_slice *sl, unsigned int count,
			 uint64_t piece, uint32_t node)
{
	unsigned int cap = (unsigned int)(piece / sizeof(struct region));

	for (unsigned int k = 0; k < count; k++) {
		struct region *store = ranges_piece(piece, node);

		if (!store)
			return false;
		sl[k].t =
			(struct range_table)RANGE_TABLE_INIT(store, cap, NULL);
	}
	return true;
}

/**
 * heap_ranges_piece_bytes() - Return: the piece a slice's table is given
 * when no single table fits: the widest a badram= lattice leaves
 * (bootmem_lattice_gap_bytes()), in pages, at most 64 KiB.
 */
uint64_t heap_ranges_piece_bytes(void)
{
	uint64_t gap = ALIGN_DOWN(bootmem_lattice_gap_bytes(), PAGE_SIZE);

	return MAX(MIN(gap, SLICE_PIECE_MAX), (uint64_t)PAGE_SIZE);
}

/**
 * heap_ranges_split() - node @node's ranges in slices whose tables are
 * pieces of @piece bytes of boot memory on the node ("heap ranges"), the
 * slice array one more (see the file comment for where slices begin). A
 * slice is given about half the ranges its table holds: the rest is
 * margin for what the count cannot see (a free range each allocation of
 * boot memory splits, @slack; a live update's carried bad ranges, counted
 * per node, not per slice). Boot, bootmem open, before any range of the
 * node is added; the heap's own test hook too (any @piece of at least 4
 * regions forces slices on any machine).
 *
 * Return: the slice count, or a negative errno (-ENOMEM: bootmem had no
 * room; -EBUSY: the node holds ranges already; nothing changed but the
 * pieces given, which stay reserved).
 */
int heap_ranges_split(uint32_t node, uint64_t piece, unsigned int slack)
{
	uint64_t cap = piece / sizeof(struct region), budget, carried;
	struct heap_node_locked l;
	struct heap_slice *sl;
	struct plan pl;
	int err;

	if (node >= heap_nr_nodes || cap < 4)
		return -EINVAL;
	pl = plan(node, cap / 2, NULL);
	carried = bootmem_free_ranges_at_most(node);
	carried = carried > pl.counted ? carried - pl.counted : 0;
	budget = cap / 2 - MIN(carried + slack, cap / 4);
	pl = plan(node, budget, NULL);
	sl = ranges_piece((uint64_t)pl.slices * sizeof(*sl), node);
	if (!sl)
		return -ENOMEM;
	plan(node, budget, sl);
	if (!slice_stores(sl, pl.slices, piece, node))
		return -ENOMEM;
	l = heap_lock_node(node);
	err = heap_ranges_install(&l.hn->ranges, sl, pl.slices);
	heap_unlock_node(l);
	return err ? err : (int)pl.slices;
}
