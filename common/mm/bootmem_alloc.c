/* SPDX-License-Identifier: MIT */
/*
 * The boot allocator's allocations (include/keel/bootmem.h; the tables
 * are bootmem.c's, shared through bootmem_priv.h): top-down inside the
 * free ranges of the requested node, then of the other nodes in
 * numa_fallback_order(); each allocation becomes a reserved region named
 * by its caller, so the audit can name every page.
 *
 * Cost (DESIGN §16: 100,000 bad pages are 100,000 reserved regions): a
 * walk finds its first gap by a binary search and starts at the cursor of
 * its node (amortised O(1) per allocation of one shape); a series of
 * pieces (the frame table of a node cut by bad pages) is placed in one
 * walk and reserved a gap at a time.
 *
 * Lock: none. bootmem runs on the boot CPU before the APs do any work.
 */
#include <keel/bootmem.h>
#include <keel/bug.h>
#include <keel/compiler.h>
#include <keel/handover.h>
#include <keel/numa.h>
#include <keel/printk.h>
#include <keel/range_table.h>
#include <keel/string.h>

#include "bootmem_priv.h"

/*
 * Where the last top-down walk for a node stopped (DESIGN §16: 100,000
 * bad pages make 100,000 reserved ranges, and the frame table asks for
 * thousands of pieces of one size): every free byte of the walk's RAM at
 * or above @top fails a request of at least @size bytes aligned to at
 * least @align. A reservation only ever takes free bytes away, so that
 * stays true until RAM is added or the reserved table is rebuilt
 * (bm_cursors_reset()); a walk for such a request starts at @top, and the
 * gaps it skips are skipped once for all the requests of that shape:
 * amortised O(1) per allocation, not O(reserved ranges). Slot
 * MAX_NUMNODES is the walk over all nodes.
 */
struct fit_cursor {
	uint64_t size, align, top;
	bool valid;
};

static struct fit_cursor cursors[MAX_NUMNODES + 1];
/*
 * The same claim, left by a series (bootmem_alloc_series()) that placed
 * all its pieces: kept apart from the cursors, which every allocation of
 * another shape moves (a few KiB fitted in a gap the series left makes
 * the next wide request walk all the series' gaps again).
 */
static struct fit_cursor floors[MAX_NUMNODES + 1];
/*
 * A bound on the widest free gap of a node (slot MAX_NUMNODES: of all),
 * in bytes, as a walk that found no fit saw the gaps (those above its
 * cursor narrower than the cursor's shape) (0: not known). It only narrows
 * until bm_cursors_reset(), for the reason the cursors hold: a request
 * wider fails at once. A badram= lattice leaves 124 KiB gaps: every
 * request wider (the scrub's chunk table, heap_check()'s scratch, a
 * node's frame table) walked all of them, twice, each (30% of a 4 GiB
 * lattice boot's instructions).
 */
static uint64_t widest[MAX_NUMNODES + 1];
/* Reserved regions the walks stepped over (bootmem_walk_steps()). */
static uint64_t walk_steps;
void bm_cursors_reset(void)
{
	for (unsigned int i = 0; i <= MAX_NUMNODES; i++) {
		cursors[i].valid = floors[i].valid = false;
		widest[i] = 0;
	}
}

/* Bound @slot's widest gap by @wide (a tighter bound kept). */
static void widest_learn(unsigned int slot, uint64_t wide)
{
	wide = MAX(wide, 1);
	widest[slot] = widest[slot] ? MIN(widest[slot], wide) : wide;
}

/*
 * The bound for @slot; for the walk over all nodes, when it has none,
 * the largest of every node's bound once each node with RAM has one.
 */
static uint64_t widest_of(unsigned int slot)
{
	uint64_t m = 0;

	if (widest[slot] || slot != MAX_NUMNODES)
		return widest[slot];
	for (unsigned int i = 0; i < bm_ram->count; i++) {
		uint32_t n = bm_ram->regions[i].node;

		if (n >= MAX_NUMNODES || !widest[n])
			return 0;
		m = MAX(m, widest[n]);
	}
	return m;
}

static struct fit_cursor *cursor_of(uint32_t node)
{
	if (node == BOOTMEM_ANY_NODE)
		return &cursors[MAX_NUMNODES];
	return node < MAX_NUMNODES ? &cursors[node] : NULL;
}

/*
 * The last reserved region starting below @top, or -1: the first the
 * top-down walk under @top meets. O(log n).
 */
static int last_rsv_below(uint64_t top)
{
	unsigned int k = range_table_first_ending_above(&bm_rsv, pa(top));

	if (k < bm_rsv.count && pa_val(bm_rsv.regions[k].start) < top)
		return (int)k;
	return (int)k - 1;
}

/*
 * The reservations starting below @top, bm_rsv's, the carried ranges
 * beside it and the lattices' runs: whether any; the highest end among
 * them in *@end (where the free gap under @top starts) and the highest
 * start in *@start (where the walk looks next). O(log n + lattices).
 */
static bool rsv_under(uint64_t top, uint64_t *end, uint64_t *start)
{
	int j = last_rsv_below(top);
	uint64_t cs, ce;
	bool any = j >= 0;

	if (any) {
		*end = pa_val(bm_rsv.regions[j].end);
		*start = pa_val(bm_rsv.regions[j].start);
	}
	if (bm_carried_below(top, &cs, &ce)) {
		*end = any ? MAX(*end, ce) : ce;
		*start = any ? MAX(*start, cs) : cs;
		any = true;
	}
	if (bm_lattice_below(top, &cs, &ce)) {
		*end = any ? MAX(*end, ce) : ce;
		*start = any ? MAX(*start, cs) : cs;
		any = true;
	}
	return any;
}

/*
 * The end of the free gap around free address @x: the first reservation
 * above it, bm_rsv's, a carried one or a lattice's run, or @top if none
 * is below it.
 */
static uint64_t gap_end_above(uint64_t x, uint64_t top)
{
	static struct bm_carried_cur cur;
	unsigned int k = range_table_first_ending_above(&bm_rsv, pa(x));
	uint64_t cs, ce;

	if (k < bm_rsv.count)
		top = MIN(top, pa_val(bm_rsv.regions[k].start));
	if (bm_carried_after(&cur, x, &cs, &ce))
		top = MIN(top, cs);
	if (bootmem_lattice_after(x, &cs, &ce))
		top = MIN(top, cs);
	return top;
}

/**
 * bootmem_node_free_at_least() - whether a free range of @node holds
 * @bytes (no alignment). From the top of each RAM region down, one look
 * @bytes below the top: taken, the walk moves below what takes it; free,
 * the gap around it holds @bytes or the walk moves below that gap. Each
 * look moves at least @bytes down: O(RAM / @bytes x log reserved), not
 * O(reserved) (100,000 bad pages leave no range for a node's frame
 * table: common/mm/frametable.c asks before it tries).
 */
bool bootmem_node_free_at_least(uint32_t node, uint64_t bytes)
{
	if (bytes > bm_lattice_gap_bytes())
		return false;
	for (unsigned int i = bm_ram->count; bytes && i--;) {
		const struct region *r = &bm_ram->regions[i];
		uint64_t rs = pa_val(r->start), top = pa_val(r->end);

		if (r->node != node)
			continue;
		while (top > rs && top - rs >= bytes) {
			uint64_t x = top - bytes, end = rs, start = rs;
			bool any = rsv_under(x + 1, &end, &start);

			walk_steps++;
			if (any && end > x) {
				top = start; /* taken: nothing ends in (start, x] */
				continue;
			}
			end = MAX(end, rs);
			if (gap_end_above(x, top) - end >= bytes)
				return true;
			top = end;
		}
	}
	return false;
}

/*
 * Highest fit of @size/@align inside RAM region @r below @top, minus
 * reservations: the gaps from the top down, the first found by a binary
 * search.
 */
static bool fit_in_region(const struct region *r, uint64_t top, uint64_t size,
			  uint64_t align, uint64_t *out, uint64_t *wide)
{
	uint64_t rs = pa_val(r->start);

	for (top = MIN(top, pa_val(r->end)); top > rs;) {
		uint64_t gap_start = rs, below = rs, cand;
		bool any = rsv_under(top, &gap_start, &below);

		walk_steps++;
		gap_start = MAX(rs, gap_start);
		if (gap_start < top)
			*wide = MAX(*wide, top - gap_start);
		if (gap_start < top && top - gap_start >= size) {
			cand = ALIGN_DOWN(top - size, align);
			if (cand >= gap_start) {
				*out = cand;
				return true;
			}
		}
		if (!any || below <= rs)
			break;
		top = below;
	}
	return false;
}

/*
 * Highest fit on @node (BOOTMEM_ANY_NODE: any), from its cursor when the
 * request is of its shape or harder; the cursor then moves to the fit.
 */
static bool fit_on_node(uint32_t node, uint64_t size, uint64_t align,
			uint64_t *out)
{
	struct fit_cursor *c = cursor_of(node), *f;
	uint64_t top = ~0ULL, wide = 0, bound;
	unsigned int slot = c ? (unsigned int)(c - cursors) : 0;
	int i;

	bound = c ? widest_of(slot) : 0;
	if ((bound && size > bound) || size > bm_lattice_gap_bytes())
		return false; /* wider than any gap: no walk */
	if (c && c->valid && size >= c->size && align >= c->align) {
		top = c->top;
		/* Above it no gap held c->size at c->align: none that wide. */
		wide = c->size + c->align;
	}
	f = c ? &floors[slot] : NULL;
	if (f && f->valid && size >= f->size && align >= f->align &&
	    f->top < top) {
		top = f->top;
		wide = MAX(wide, f->size + f->align);
	}
	i = (int)range_table_first_ending_above(bm_ram, pa(top));
	if (i >= (int)bm_ram->count || pa_val(bm_ram->regions[i].start) >= top)
		i--;
	for (; i >= 0; i--) {
		const struct region *r = &bm_ram->regions[i];

		if (node != BOOTMEM_ANY_NODE && r->node != node)
			continue;
		if (fit_in_region(r, top, size, align, out, &wide))
			break;
	}
	/* No fit: every gap was seen, or is below the cursor's bound. */
	if (c && i < 0)
		widest_learn(slot, wide);
	if (c)
		*c = (struct fit_cursor){.size = size,
					 .align = align,
					 .top = i >= 0 ? *out + size : 0,
					 .valid = true};
	return i >= 0;
}

/**
 * bootmem_walk_steps() - Return: reserved regions the allocations' walks
 * have stepped over since bootmem_init() (tests: O(1) amortised each).
 */
uint64_t bootmem_walk_steps(void)
{
	return walk_steps;
}

/*
 * The allocation [@s, @e) (its region: it may have joined touching ones
 * of its name) and the region above it, of its name, one region when
 * bm_lattice_only() says the bytes between may be: the top-down
 * allocations of 16 KiB pieces of a frame table in the gaps a lattice
 * leaves, one region, not one a gap. O(regions above it).
 */
static void join_up(uint64_t s, uint64_t e)
{
	unsigned int k = range_table_first_ending_above(&bm_rsv, pa(s));
	struct region *r = &bm_rsv.regions[k];

	if (k + 1 >= bm_rsv.count || !bm_same_name(r, r + 1) ||
	    !bm_lattice_only(pa_val(r->end), pa_val(r[1].start), e - s))
		return;
	r->end = r[1].end;
	range_table_delete(&bm_rsv, k + 1);
}

/**
 * bootmem_alloc_try() - as bootmem_alloc() without the panic on failure.
 *
 * Return: the physical address, or INVALID_PADDR when nothing fits.
 */
paddr_t bootmem_alloc_try(uint64_t size, uint64_t align, uint32_t node,
			  const char *why)
{
	uint32_t order[MAX_NUMNODES + 1];
	unsigned int n = 0, i;
	uint64_t at = 0;

	if (bm_closed)
		panic("bootmem closed: allocation of %llu bytes for %s after "
		      "handoff",
		      (unsigned long long)size, why ? why : "?");
	if (!size || (align & (align - 1)))
		return INVALID_PADDR;
	size = ALIGN_UP(size, PAGE_SIZE);
	if (!size)
		return INVALID_PADDR;
	align = MAX(align, PAGE_SIZE);

	if (node != BOOTMEM_ANY_NODE && node < numa_node_count())
		n = numa_fallback_order(node, order);
	/*
	 * Last resort, and the only pass without a node preference or a NUMA
	 * view: all RAM, whatever its node.
	 */
	order[n++] = BOOTMEM_ANY_NODE;
	for (i = 0; i < n; i++) {
		if (!fit_on_node(order[i], size, align, &at))
			continue;
		bm_reserve_range(at, at + size, why ? why : "bootmem");
		join_up(at, at + size);
		bm_alloc_bytes += size;
		bm_alloc_count++;
		return pa(at);
	}
	return INVALID_PADDR;
}

/*
 * A series (bootmem_alloc_series()): the reservations of its pieces, one
 * per gap it used, collected top-down and merged into the reserved table
 * together, so that a series of thousands of pieces in the middle of
 * 100,000 reserved ranges moves the table once per SERIES_PENDING gaps,
 * not once per piece. They wait in the table's own free tail (no static
 * store: arm64's image must stay under 2 MiB), the last SERIES_PENDING
 * slots, with as many free below them, so that the merge from the top
 * never writes over one not merged yet.
 */
#define SERIES_PENDING 512
static unsigned int series_count;

static struct region *series_pending(unsigned int p)
{
	return &bm_rsv.regions[bm_rsv.cap - SERIES_PENDING + p];
}

/* Room in the reserved table for a full pending list (it may grow). */
static bool series_room(void)
{
	while (bm_rsv.cap < bm_rsv.count + 2 * SERIES_PENDING) {
		if (!range_table_double(&bm_rsv))
			return false;
		bm_flush_grown();
	}
	return true;
}

/*
 * The pending reservations (descending, disjoint from the table and from
 * each other: they were free) merged in from the top, then the touching
 * neighbours of one name above the lowest joined. O(regions moved).
 */
static void series_flush(void)
{
	struct region *r = bm_rsv.regions;
	unsigned int i = bm_rsv.count, p = 0, out, n;

	if (!series_count)
		return;
	out = bm_rsv.count + series_count;
	while (p < series_count) {
		if (i &&
		    pa_val(r[i - 1].start) > pa_val(series_pending(p)->start))
			r[--out] = r[--i];
		else
			r[--out] = *series_pending(p++);
	}
	bm_rsv.count += series_count;
	series_count = 0;
	n = out ? out - 1 : 0;
	for (i = n; i < bm_rsv.count; i++) {
		if (i > n && pa_val(r[n].end) == pa_val(r[i].start) &&
		    bm_same_name(&r[n], &r[i])) {
			r[n].end = r[i].end;
			continue;
		}
		if (i > n)
			r[++n] = r[i];
	}
	bm_rsv.count = n + 1;
}

/*
 * May the pending piece @up reach down over [@e, @up's start) to the
 * piece below it, ending at @e? When nothing of the table lies between
 * and bm_lattice_only() says so (a region per gap of a lattice would
 * outgrow any table the gaps leave room for: a piece of the frame table
 * each).
 */
static bool series_joins(const struct region *up, uint64_t e, uint64_t room)
{
	unsigned int k = range_table_first_ending_above(&bm_rsv, pa(e));

	if (k < bm_rsv.count &&
	    pa_val(bm_rsv.regions[k].start) < pa_val(up->start))
		return false;
	return bm_lattice_only(e, pa_val(up->start), room);
}

/*
 * [s, e) is taken by a series under @why: pending (joined to the piece
 * above when series_joins() says so), flushed when full.
 */
static bool series_pend(uint64_t s, uint64_t e, const char *why, uint64_t room)
{
	struct region *r;

	if (series_count &&
	    series_joins(series_pending(series_count - 1), e, room)) {
		series_pending(series_count - 1)->start = pa(s);
		return true;
	}
	r = series_pending(series_count++);
	*r = (struct region){.start = pa(s), .end = pa(e)};
	strlcpy(r->name, why, sizeof(r->name));
	if (series_count < SERIES_PENDING)
		return true;
	series_flush();
	return series_room();
}

/*
 * Pieces from the top of the gap under @top down, as many as fit; @top
 * moves below them. Return: false when the series must stop.
 */
static bool series_gap(struct bootmem_series *sr, uint64_t gs, uint64_t *top,
		       uint64_t *most)
{
	uint64_t gtop = *top, sz = 0;

	while (sr->done < sr->count) {
		sz = ALIGN_UP(sr->size_of(sr->arg), PAGE_SIZE);
		*most = MAX(*most, sz);
		if (gs >= *top || *top - gs < sz)
			break;
		*top -= sz;
		sr->placed(sr->arg, pa(*top));
		sr->done++;
		bm_alloc_bytes += sz;
		bm_alloc_count++;
	}
	return *top == gtop || series_pend(*top, gtop, sr->why, sz);
}

/**
 * bootmem_alloc_series() - @sr->count pieces on @sr->node, page aligned,
 * each @sr->size_of() bytes, placed top-down one below the other through
 * the node's free gaps in one walk (each gap found by a binary search)
 * and reserved under @sr->why a gap at a time: O(gaps walked x log
 * reserved + reserved), where as many bootmem_alloc() calls cost a
 * table move each. @sr->placed() is told each piece's address, in order.
 *
 * Return: the pieces placed (fewer than asked when the node is full).
 */
unsigned int bootmem_alloc_series(struct bootmem_series *sr)
{
	struct fit_cursor *c = cursor_of(sr->node);
	uint64_t wide = 0, most = 0, top = 0;
	bool go;

	if (bm_closed)
		panic("bootmem closed: a series for %s after handoff", sr->why);
	sr->done = 0;
	/* Its first piece wider than a lattice leaves any gap: no walk. */
	go = sr->count && ALIGN_UP(sr->size_of(sr->arg), PAGE_SIZE) <=
				  bm_lattice_gap_bytes();
	go = go && series_room();
	for (int ri = (int)bm_ram->count - 1; go && ri >= 0; ri--) {
		const struct region *ram = &bm_ram->regions[ri];
		uint64_t rs = pa_val(ram->start);

		top = pa_val(ram->end);
		if (sr->node != BOOTMEM_ANY_NODE && ram->node != sr->node)
			continue;
		while (go && sr->done < sr->count && top > rs) {
			uint64_t gs = rs, below = rs;

			rsv_under(top, &gs, &below);
			if (MAX(rs, gs) < top)
				wide = MAX(wide, top - MAX(rs, gs));
			go = series_gap(sr, MAX(rs, gs), &top, &most);
			if (sr->done < sr->count)
				top = MIN(top, MAX(rs, below));
		}
		go = go && sr->done < sr->count;
	}
	/* Every gap of the node walked, and a piece left: none that wide. */
	if (go && c)
		widest_learn((unsigned int)(c - cursors), wide);
	series_flush();
	/*
	 * All placed, top-down: every gap above the last piece was left
	 * narrower than the piece that came next, at most @most bytes. A
	 * later fit of that shape or harder starts below it, not across
	 * the thousands of gaps the series filled (a frame table among
	 * 100,000 bad pages: 8,193 pieces; the heap's range table after it
	 * walked them all, 70 us of a live update's downtime).
	 */
	if (c && sr->count && sr->done == sr->count)
		floors[c - cursors] = (struct fit_cursor){.size = most,
							  .align = PAGE_SIZE,
							  .top = top,
							  .valid = true};
	return sr->done;
}

/**
 * bootmem_alloc_at() - [@at, @at + @size) itself, when all of it is free
 * RAM of @node (BOOTMEM_ANY_NODE: of any; one RAM region or touching
 * ones): no reservation, no carried bad range in it. O(log reserved + RAM
 * regions).
 *
 * Return: @at, or INVALID_PADDR with nothing reserved.
 */
paddr_t bootmem_alloc_at(paddr_t at, uint64_t size, uint32_t node,
			 const char *why)
{
	uint64_t s = pa_val(at), e = s + size, end = 0, start = 0;

	if (bm_closed || !size || !IS_ALIGNED(s, PAGE_SIZE) ||
	    !IS_ALIGNED(size, PAGE_SIZE) || e < s)
		return INVALID_PADDR;
	for (unsigned int i = 0; i < bm_ram->count && s < e; i++) {
		const struct region *r = &bm_ram->regions[i];

		if (pa_val(r->end) <= s)
			continue;
		if (pa_val(r->start) > s ||
		    (node != BOOTMEM_ANY_NODE && r->node != node))
			return INVALID_PADDR;
		s = pa_val(r->end);
	}
	if (s < e)
		return INVALID_PADDR; /* past the last RAM region */
	/* The last reservation starting below @e: disjoint, so the highest end. */
	if (rsv_under(e, &end, &start) && end > pa_val(at))
		return INVALID_PADDR;
	bm_reserve_range(pa_val(at), e, why ? why : "bootmem");
	bm_alloc_bytes += size;
	bm_alloc_count++;
	return at;
}

/**
 * bootmem_alloc() - @size bytes, @align aligned, top-down, node-local first.
 *
 * Return: the physical address (never fails: panics naming the request).
 */
paddr_t bootmem_alloc(uint64_t size, uint64_t align, uint32_t node,
		      const char *why)
{
	paddr_t p = bootmem_alloc_try(size, align, node, why);

	if (pa_val(p) == pa_val(INVALID_PADDR)) {
		if (bm_dropped_bytes)
			pr_err("bootmem: mem= hides %llu MiB of RAM\n",
			       (unsigned long long)(bm_dropped_bytes >> 20));
		if (node == BOOTMEM_ANY_NODE)
			panic("bootmem: cannot allocate %llu bytes (align "
			      "%#llx) on any node for %s",
			      (unsigned long long)size,
			      (unsigned long long)align, why ? why : "?");
		panic("bootmem: cannot allocate %llu bytes (align %#llx) on "
		      "node %u for %s",
		      (unsigned long long)size, (unsigned long long)align, node,
		      why ? why : "?");
	}
	return p;
}

/* A bootmem that starts again: no cursor, no step counted, no series. */
void bm_alloc_reset(void)
{
	bm_cursors_reset();
	walk_steps = 0;
	series_count = 0;
}
