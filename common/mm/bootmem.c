/* SPDX-License-Identifier: MIT */
/*
 * The boot allocator (memblock-shaped).
 *
 * Owns two tables: RAM regions (sorted, non-overlapping, each on one node;
 * adjacent regions of the same node are merged) and reserved regions
 * (sorted, non-overlapping, each with a name; adjacent regions with the
 * same name are merged). A new reservation only takes the bytes no earlier
 * reservation holds, so the first name given to a byte is the one the audit
 * sees, and every reserved byte is counted once. Free memory is RAM minus
 * reserved: reserved always wins. Both are struct range_table
 * (include/keel/range_table.h) of struct region. The RAM table is not a
 * copy: bootmem_init_from_bootinfo() takes bootinfo's sanitised RAM table
 * over as its own (the firmware readers added to it, as memblock_add()
 * does), and the report reads it here.
 *
 * Both tables start on static stores of BOOTMEM_STATIC_REGIONS and, when
 * full, double into memory bootmem allocates from itself, as
 * memblock_double_array() does: top-down, clear of the range being
 * reserved, reserved as "bootmem tables" once the operation that grew the
 * table is over, up to BOOTMEM_MAX_REGIONS. The old store stays as it is.
 * Growing waits until every firmware reservation is in (resizable, as
 * memblock_allow_resize()), so that no table lands on one not added yet;
 * bootmem_init_from_bootinfo() sizes the reserved table for all of them
 * first (presize_reserved()).
 *
 * Allocation is top-down inside the free ranges of the requested node, then
 * of the other nodes in numa_fallback_order(). Each allocation becomes a
 * reserved region named by its caller, so the audit can name every page.
 *
 * The heap takes every free range through the iterator (heap_handoff() in
 * common/mm/heap_init.c) and then closes bootmem (bootmem_close()); any
 * later allocation is a bug and panics. bootmem never calls the heap: it
 * is the layer below.
 *
 * A reserved table at its limit never drops a reservation: the
 * neighbouring regions with the smallest gaps between them are merged, an
 * eighth of the table at once (named "merged" unless they share a name),
 * so the gaps are reserved too. Some RAM
 * may be kept from the heap that way, never handed to it by mistake; it is
 * counted and said once.
 *
 * Lock: none. bootmem runs on the boot CPU before the APs do any work.
 */
#include <arch/mm.h>
#include <keel/bootmem.h>
#include <keel/bug.h>
#include <keel/compiler.h>
#include <keel/errno.h>
#include <keel/numa.h>
#include <keel/printk.h>
#include <keel/range_table.h>
#include <keel/string.h>

#include "bootmem_priv.h"

static bool same_node(const struct region *a, const struct region *b)
{
	return a->node == b->node;
}

bool bm_same_name(const struct region *a, const struct region *b)
{
	return !strcmp(a->name, b->name);
}

static struct region *table_grow(struct range_table *t, unsigned int cap);

static struct region ram_store[BOOTMEM_STATIC_REGIONS];
static struct region rsv_store[BOOTMEM_STATIC_REGIONS];
#define TABLE_INIT(store, same)                                               \
	(struct range_table)                                                  \
		RANGE_TABLE_INIT_GROWING(store, BOOTMEM_STATIC_REGIONS, same, \
					 table_grow, BOOTMEM_MAX_REGIONS)
static struct range_table own_ram = TABLE_INIT(ram_store, same_node);
/* bootmem's RAM: its own table, or bootinfo's taken over. */
struct range_table *bm_ram = &own_ram;
struct range_table bm_rsv = TABLE_INIT(rsv_store, bm_same_name);

/*
 * What a growing table must keep clear of: the range bm_reserve_range() is
 * filling (not in the table yet), and the new store, reserved once the
 * table operation that grew it is over (bm_flush_grown()).
 */
static uint64_t filling_s, filling_e;
static uint64_t grown_s, grown_e;
/* Pieces of the list the load gave to the general fill. */
static uint64_t load_filled;
/* presize_reserved()'s store, reserved after the list is loaded. */
static uint64_t presized_s, presized_e;

uint64_t bm_alloc_bytes;
unsigned int bm_alloc_count;
uint64_t bm_dropped_bytes;
static uint64_t limit_top = ~0ULL;
static unsigned int merged_regions;
static uint64_t merged_gap_bytes;
bool bm_closed;
/*
 * Whether a table may grow into RAM (memblock_allow_resize()): only once
 * every reservation the firmware made is in the table, or a new store
 * could land on one not added yet (preserved memory of a live update).
 * Set by bootmem_init_from_bootinfo() when it is done, or by
 * bootmem_allow_resize() for a bootmem fed by hand.
 */
static bool resizable;
/* presize_reserved()'s first pass: its merges are not the boot's. */
static bool superset_pass;

/**
 * bootmem_init() - forget everything (tests call it once per machine).
 */
void bootmem_init(void)
{
	own_ram = TABLE_INIT(ram_store, same_node);
	bm_ram = &own_ram;
	bm_rsv = TABLE_INIT(rsv_store, bm_same_name);
	filling_s = filling_e = grown_s = grown_e = 0;
	load_filled = 0;
	presized_s = presized_e = 0;
	resizable = false;
	bm_alloc_bytes = 0;
	bm_alloc_count = 0;
	bm_dropped_bytes = 0;
	limit_top = ~0ULL;
	merged_regions = 0;
	merged_gap_bytes = 0;
	bm_closed = false;
	bm_alloc_reset();
	bm_carried_set(NULL);
	bm_lattice_set(NULL);
}

/**
 * bootmem_add() - register RAM [base, base + size) on @node.
 *
 * The range is trimmed inwards to whole pages. Overlapping an existing RAM
 * region is refused (bootinfo_sanitise() already resolved overlaps).
 *
 * Return: 0, -EINVAL (empty or overlapping) or -ENOSPC (table full).
 */
int bootmem_add(paddr_t base, uint64_t size, uint32_t node)
{
	struct region r = {.node = node};
	uint64_t s = ALIGN_UP(pa_val(base), PAGE_SIZE);
	uint64_t e = pa_val(base) + size;
	int err;

	if (e < pa_val(base))
		e = ~0ULL;
	e = ALIGN_DOWN(e, PAGE_SIZE);
	if (e <= s)
		return -EINVAL;
	err = range_table_add(bm_ram, pa(s), pa(e), &r);
	bm_cursors_reset(); /* new RAM: new gaps */
	bm_flush_grown();
	if (err == -EINVAL)
		pr_warn("bootmem: ram [%#llx, %#llx) overlaps known RAM, "
			"ignored\n",
			(unsigned long long)s, (unsigned long long)e);
	return err;
}

/* Two reserved regions join: "merged" unless they share a name. */
static void join_names(struct region *into, const struct region *next)
{
	if (strcmp(into->name, next->name))
		strlcpy(into->name, "merged", sizeof(into->name));
}

/*
 * The reserved table is full: merge the neighbours with the smallest
 * gaps, reserving the gaps with them, an eighth of the table at once
 * (range_table_coalesce()): a table kept full by n more reservations is
 * scanned O(n / cap) times, not n.
 */
static void rsv_coalesce(void)
{
	unsigned int before = bm_rsv.count;

	if (!merged_regions && !superset_pass)
		pr_warn("bootmem: more than %u reserved regions: merging the "
			"nearest neighbours, the RAM between them stays "
			"reserved\n",
			bm_rsv.cap);
	merged_gap_bytes += range_table_coalesce(
		&bm_rsv, range_table_coalesce_batch(before), join_names);
	merged_regions += before - bm_rsv.count;
}

/*
 * [s, e) above every reserved region (a sorted list loaded in order:
 * 100,000 bad pages) joins the table in O(1), no search: the last region
 * grows when it touches it under the same name, else a region is
 * appended. Return: false when it is not above them all or the table
 * has no room (the general fill does it then).
 */
static bool append_above(uint64_t s, uint64_t e, const struct region *r)
{
	struct region *last =
		bm_rsv.count ? &bm_rsv.regions[bm_rsv.count - 1] : NULL;
	struct region add = *r;

	if (last && s < pa_val(last->end))
		return false;
	if (last && s == pa_val(last->end) && bm_same_name(last, r)) {
		last->end = pa(e);
		return true;
	}
	add.start = pa(s);
	add.end = pa(e);
	add.node = 0; /* a reservation: its name is all it keeps */
	add.flags = 0;
	return !range_table_append(&bm_rsv, &add);
}

/*
 * Reserve [s, e) exactly (already page aligned) under @why, skipping the
 * bytes an earlier reservation holds. Never fails: a full table is made
 * room in by merging neighbours (rsv_coalesce()), and the fill carries on
 * from where it stopped.
 */
void bm_reserve_range(uint64_t s, uint64_t e, const char *why)
{
	struct region r = {.node = 0};
	uint64_t outer_s = filling_s, outer_e = filling_e;

	/* Nothing (an end clamped at the top of the address space): no
	 * region, where append_above() would add one of 0 bytes. */
	if (s >= e)
		return;
	strlcpy(r.name, why, sizeof(r.name));
	filling_s = s;
	filling_e = e;
	if (!append_above(s, e, &r))
		while (range_table_fill(&bm_rsv, pa(s), pa(e), &r) == -ENOSPC)
			rsv_coalesce();
	filling_s = outer_s;
	filling_e = outer_e;
	bm_flush_grown();
}

/*
 * A table grew into [grown_s, grown_e): reserve it now that the table
 * operation is over (reserving it can grow nothing: the table doubled).
 */
void bm_flush_grown(void)
{
	uint64_t s = grown_s, e = grown_e;

	if (s == e)
		return;
	grown_s = grown_e = 0;
	bm_reserve_range(s, e, "bootmem tables");
}

/**
 * bootmem_reserve() - keep [base, base + size) (widened to whole pages)
 * away from allocation and from the heap.
 *
 * Return: 0 or -EINVAL (empty).
 */
int bootmem_reserve(paddr_t base, uint64_t size, const char *why)
{
	uint64_t s = ALIGN_DOWN(pa_val(base), PAGE_SIZE);
	uint64_t e = pa_val(base) + size;

	if (!size)
		return -EINVAL;
	if (e < pa_val(base) || e > ~0ULL - PAGE_SIZE)
		e = ALIGN_DOWN(~0ULL, PAGE_SIZE);
	else
		e = ALIGN_UP(e, PAGE_SIZE);
	bm_reserve_range(s, e, why ? why : "reserved");
	return 0;
}

/*
 * Whether bootmem can take @t over as its RAM table as it is: what
 * bootmem_add() would have made of it, region by region (whole pages,
 * sorted, disjoint, touching regions on different nodes), which a
 * sanitised bootinfo's RAM always is.
 */
static bool ram_table_as_added(const struct range_table *t)
{
	for (unsigned int i = 0; i < t->count; i++) {
		const struct region *r = &t->regions[i];

		if (!IS_ALIGNED(pa_val(r->start), PAGE_SIZE) ||
		    !IS_ALIGNED(pa_val(r->end), PAGE_SIZE) ||
		    pa_val(r->end) <= pa_val(r->start))
			return false;
		if (i && (pa_val(r[-1].end) > pa_val(r->start) ||
			  (pa_val(r[-1].end) == pa_val(r->start) &&
			   r[-1].node == r->node)))
			return false;
	}
	return true;
}

/*
 * RAM: bootinfo's table becomes bootmem's, not copied (it keeps growing,
 * now from bootmem). One that is not in bootmem's shape, or a bootmem
 * that has RAM already, takes @bi's ranges one by one (bootmem_add()).
 */
static void take_ram(struct bootinfo *bi)
{
	struct range_table *t = &bi->ram;

	if (!own_ram.count && bm_ram == &own_ram && ram_table_as_added(t)) {
		t->same = same_node;
		t->grow = table_grow;
		t->max = MAX(t->max, (unsigned int)BOOTMEM_MAX_REGIONS);
		bm_ram = t;
		bm_cursors_reset();
		return;
	}
	for (unsigned int i = 0; i < t->count; i++) {
		const struct region *r = &t->regions[i];

		if (bootmem_add(r->start, pa_val(r->end) - pa_val(r->start),
				r->node))
			pr_warn("bootmem: ram [%#llx, %#llx) node %u not "
				"added\n",
				(unsigned long long)pa_val(r->start),
				(unsigned long long)pa_val(r->end), r->node);
	}
}

/*
 * @bi's reserved ranges and its carried ones (bm_list_*), trimmed to RAM,
 * into the reserved table (load_reserved()); or only counted
 * (count_reserved()): the regions a table for them needs, at most
 * (bootmem_presize_need()). A long list in a
 * few sorted runs (@load_merged) is read in address order, merged as it
 * goes; any other in its own order.
 */
static bool load_merged;

/** bootmem_load_filled() - see keel/bootmem.h. */
uint64_t bootmem_load_filled(void)
{
	return load_filled;
}

/* The pieces of [s, e) in RAM: a RAM range each. */
static uint64_t ram_pieces(uint64_t s, uint64_t e)
{
	uint64_t n = 0;

	for (unsigned int j = range_table_first_ending_above(bm_ram, pa(s));
	     j < bm_ram->count && pa_val(bm_ram->regions[j].start) < e; j++)
		n += MAX(s, pa_val(bm_ram->regions[j].start)) <
		     MIN(e, pa_val(bm_ram->regions[j].end));
	return n;
}

/*
 * The pieces @bi's reservations make in RAM, at most: its list's,
 * counted, and the carried ranges' (inside RAM, checked as they were
 * read: one piece each, and one more at most where RAM ranges meet).
 */
static uint64_t count_reserved(const struct bootinfo *bi)
{
	uint64_t pieces = 0;

	for (unsigned int i = 0; i < bi->reserved.count; i++) {
		const struct region *r = &bi->reserved.regions[i];

		pieces += ram_pieces(ALIGN_DOWN(pa_val(r->start), PAGE_SIZE),
				     ALIGN_UP(pa_val(r->end), PAGE_SIZE));
	}
	return bootmem_presize_need(pieces, bootinfo_carried(bi, NULL),
				    bm_ram->count);
}

/** bootmem_presize_need() - see keel/bootmem.h. Return: regions. */
uint64_t bootmem_presize_need(uint64_t pieces, uint64_t carried,
			      uint64_t ram_ranges)
{
	/*
	 * The carried ones join the table later, in place (bootmem_carried.c):
	 * the list's regions are moved up and merged down, room for them
	 * twice. And 64 for what the boot reserves first.
	 */
	return pieces + (carried ? carried + ram_ranges + pieces : 0) + 64;
}

static void load_reserved(const struct bootinfo *bi)
{
	struct bm_list l;
	const struct region *r;

	if (!load_merged || !bm_list_init(&l, bi, true))
		bm_list_init(&l, bi, false);
	if (bm_carried)
		l.crec = -1; /* read beside the table until they join it */
	while ((r = bm_list_next(&l))) {
		uint64_t s = ALIGN_DOWN(pa_val(r->start), PAGE_SIZE);
		uint64_t e = ALIGN_UP(pa_val(r->end), PAGE_SIZE);
		unsigned int j = range_table_first_ending_above(bm_ram, pa(s));

		for (; j < bm_ram->count; j++) {
			const struct region *m = &bm_ram->regions[j];
			uint64_t rs = MAX(s, pa_val(m->start));
			uint64_t re = MIN(e, pa_val(m->end));

			if (pa_val(m->start) >= e)
				break;
			if (rs >= re)
				continue;
			/*
			 * A sorted list appends in O(1), the table presized
			 * for it (never grown here: that needs the fill's
			 * guard); a nameless range is the fill's "firmware".
			 */
			if (r->name[0] && bm_rsv.count < bm_rsv.cap &&
			    append_above(rs, re, r))
				continue;
			load_filled++;
			bm_bad_over_others(rs, re, r->name);
			bm_reserve_range(rs, re,
					 r->name[0] ? r->name : "firmware");
		}
	}
}

/* The bytes of a reserved table's store for @cap regions. */
static uint64_t store_bytes(unsigned int cap)
{
	return ALIGN_UP((uint64_t)cap * sizeof(struct region), PAGE_SIZE);
}

/* The reserved table starts again, empty, on a store of @cap at @at. */
static void presize_at(uint64_t at, unsigned int cap)
{
	bm_rsv.count = 0;
	range_table_move(&bm_rsv, phys_to_virt(pa(at)), cap);
	presized_s = at;
	presized_e = at + store_bytes(cap);
}

/*
 * The reserved table's store for @cap regions, placed where none of
 * @bi's reservations is (one walk beside the list): the table starts on
 * it, empty. Return: whether one was found.
 */
static bool presize_outside(const struct bootinfo *bi, unsigned int cap)
{
	uint64_t at;

	if (!bm_fit_outside_list(bi, store_bytes(cap), &at))
		return false;
	presize_at(at, cap);
	bm_cursors_reset();
	/* The carried ranges join the table later, in this store. */
	bm_carried_set(bi);
	return true;
}

/*
 * More reserved ranges than the static table holds (a live update's
 * preserved extents, 100,000 bad pages), or carried bad ranges: a table
 * that holds them all, placed where none of them is: found by one walk
 * beside the list when it is sorted (it is, when it is long:
 * bootmem_init_from_bootinfo() sorted it). The carried ranges then stay
 * where they are until they join the table (bootmem_carried.c). First a
 * store with room for what the boot reserves next (a frame table cut by
 * bad pages takes a region per gap it uses: no doubling before the heap
 * opens); where no free piece is that wide (a badram= pattern's 124 KiB),
 * one with BOOTMEM_PRESIZE_TIGHT_SLACK regions to spare: 2,300 preserved
 * extents fit it, where merging withheld the RAM between them. Else (they
 * are loaded with the rest then), as nothing can grow into RAM before
 * all are in, first a superset goes in (the static table, its nearest
 * neighbours merged: more reserved, never less), the new store is taken
 * from what that leaves free, and the table starts again, empty, on it.
 * The store is reserved after the list is loaded ("bootmem tables").
 */
static void presize_reserved(const struct bootinfo *bi)
{
	uint64_t need = count_reserved(bi);
	unsigned int cap =
		(unsigned int)MIN(need + need / 8 + 1024, (uint64_t)bm_rsv.max);
	unsigned int tight = (unsigned int)MIN(
		need + BOOTMEM_PRESIZE_TIGHT_SLACK, (uint64_t)bm_rsv.max);
	uint64_t at;

	if (need <= bm_rsv.cap && !bootinfo_carried(bi, NULL))
		return;
	if (presize_outside(bi, cap) ||
	    (tight < cap && presize_outside(bi, tight)))
		return;
	superset_pass = true;
	load_reserved(bi);
	superset_pass = false;
	if (!bm_fit_clear_of(store_bytes(cap), 0, 0, &at))
		cap = tight;
	/* No room: the table as it was, to merge as it must. */
	if (bm_fit_clear_of(store_bytes(cap), 0, 0, &at))
		presize_at(at, cap);
	else
		bm_rsv.count = 0;
	bm_cursors_reset(); /* the table starts again: gaps come back */
	merged_regions = 0;
	merged_gap_bytes = 0;
}

/**
 * bootmem_init_from_bootinfo() - all RAM of @bi (its table taken over),
 * then its reserved ranges trimmed to RAM (reserved bytes outside RAM
 * never reach bootmem; a list longer than the static table is sorted
 * first). From then on the tables may grow into RAM.
 */
void bootmem_init_from_bootinfo(struct bootinfo *bi)
{
	struct bm_runs it;

	bm_lattice_set(bi); /* before anything is placed */
	take_ram(bi);
	/*
	 * More ranges than the static table: loaded in address order, so
	 * each fill appends (O(1)); in the firmware's order a list given
	 * top-down moved the whole table per range (120,000: 25 s). A list
	 * in at most BM_RUNS_MAX sorted runs (firmware's bad pages, then a
	 * handover's) is merged as it loads, not sorted: no copy of it.
	 * Where such ranges overlap, the lower start names the bytes (equal
	 * starts: the one given first).
	 */
	load_merged = bi->reserved.count + bootinfo_carried(bi, NULL) >
		      BOOTMEM_STATIC_REGIONS;
	if (load_merged && !bm_runs_init(&it, &bi->reserved)) {
		if (!bm_sort_few_runs(&bi->reserved))
			range_table_sort(&bi->reserved);
		/* Reordered: equal starts go to the list, then the carried. */
		bi->carried_at = bi->reserved.count;
	}
	presize_reserved(bi);
	load_reserved(bi);
	/*
	 * The presized table's store, reserved once the list is in: it
	 * lies clear of every range of it, and is not yet the last region,
	 * so that each range loaded in order is appended (O(1)). Nothing
	 * can grow in between: the table may not grow into RAM yet.
	 */
	grown_s = presized_s;
	grown_e = presized_e;
	presized_s = presized_e = 0;
	bm_flush_grown();
	resizable = true;
	if (merged_regions)
		pr_info("bootmem: %u reserved regions merged, no free range of "
			"RAM holding a table of them all: %llu KiB between "
			"them withheld with them\n",
			merged_regions, U64(merged_gap_bytes >> 10));
}

/**
 * bootmem_allow_resize() - a bootmem fed by hand (bootmem_add(),
 * bootmem_reserve()) has all its reservations: its tables may grow into
 * RAM from now on (memblock_allow_resize()).
 */
void bootmem_allow_resize(void)
{
	resizable = true;
}

/* Free (unreserved) bytes of RAM in [0, top). */
static uint64_t free_bytes_below(uint64_t top)
{
	uint64_t idx, sum = 0;
	paddr_t s, e;
	uint32_t node;

	for_each_free_range (idx, &s, &e, &node) {
		if (pa_val(s) >= top)
			break;
		sum += MIN(pa_val(e), top) - pa_val(s);
	}
	return sum;
}

/**
 * bootmem_limit() - mem=: keep only the first @max_bytes of RAM (ascending
 * addresses, reserved RAM included); RAM above becomes reserved "mem=" so
 * the audit still accounts for it. 0 means no limit.
 * @min_free: the free bytes the rest of the boot needs below the cut; a
 * limit that would leave less is not applied.
 *
 * Return: 0 (applied, or nothing to cut) or -ENOMEM (not applied).
 */
int bootmem_limit(uint64_t max_bytes, uint64_t min_free)
{
	uint64_t seen = 0, top = ~0ULL;
	unsigned int i;

	if (!max_bytes)
		return 0;
	max_bytes = ALIGN_DOWN(max_bytes, PAGE_SIZE);
	for (i = 0; i < bm_ram->count && top == ~0ULL; i++) {
		uint64_t s = pa_val(bm_ram->regions[i].start),
			 e = pa_val(bm_ram->regions[i].end);

		if (seen + (e - s) > max_bytes)
			top = s + (max_bytes - seen);
		seen += e - s;
	}
	if (top == ~0ULL)
		return 0;
	if (free_bytes_below(top) < min_free)
		return -ENOMEM;
	for (i = 0; i < bm_ram->count; i++) {
		uint64_t s = MAX(pa_val(bm_ram->regions[i].start), top);
		uint64_t e = pa_val(bm_ram->regions[i].end);

		if (s >= e)
			continue;
		bm_dropped_bytes += e - s;
		bm_reserve_range(s, e, "mem=");
	}
	limit_top = top;
	return 0;
}

/**
 * bootmem_limit_top() - Return: the address mem= cut RAM at (all RAM above
 * is reserved "mem="), or the top of the address space when no limit.
 */
paddr_t bootmem_limit_top(void)
{
	return pa(limit_top);
}

/**
 * bootmem_set_table_limit() - both tables grow to @max regions at most
 * (not below what they hold), until bootmem_init().
 */
void bootmem_set_table_limit(unsigned int max)
{
	bm_ram->max = MAX(max, bm_ram->cap);
	bm_rsv.max = MAX(max, bm_rsv.cap);
}

/**
 * bootmem_merged_regions() - Return: reserved regions merged into a
 * neighbour because the table was full; @gap_bytes (may be NULL): bytes
 * reserved between them that no one asked for.
 */
unsigned int bootmem_merged_regions(uint64_t *gap_bytes)
{
	if (gap_bytes)
		*gap_bytes = merged_gap_bytes;
	return merged_regions;
}

/*
 * A table of bootmem's is full: a store for @cap regions, top-down in
 * free RAM (memblock_double_array()), reserved by bm_flush_grown() once the
 * operation that grew it is over. NULL while bootmem is closed, while
 * another new store waits to be reserved, or when nothing fits.
 */
static struct region *table_grow(struct range_table *t, unsigned int cap)
{
	uint64_t bytes =
		ALIGN_UP((uint64_t)cap * sizeof(*t->regions), PAGE_SIZE);
	uint64_t at;

	if (bm_closed || !resizable || grown_s != grown_e ||
	    !bm_fit_clear_of(bytes, filling_s, filling_e, &at))
		return NULL;
	grown_s = at;
	grown_e = at + bytes;
	return phys_to_virt(pa(at));
}

/*
 * Before bootmem closes (no store can be taken after it): room in the
 * reserved table's store for the carried ranges' join, each range and
 * each cut in two by a region of the table at most; grown if it has not
 * (the downtime's allocations filled what the store was sized with).
 */
static void carried_room(void)
{
	uint64_t need, want;
	struct region *to;

	if (!bm_carried)
		return;
	need = (uint64_t)bootinfo_carried(bm_carried, NULL) + bm_rsv.count;
	if (bm_rsv.cap - bm_rsv.count > need)
		return;
	/* What it needs, not a doubling: a store that fits between them. */
	want = MIN(bm_rsv.count + need + need / 8 + 64, (uint64_t)bm_rsv.max);
	to = table_grow(&bm_rsv, (unsigned int)want);
	if (to) {
		range_table_move(&bm_rsv, to, (unsigned int)want);
		bm_flush_grown();
	} /* else the join falls back on the fill */
}

/**
 * bootmem_close() - the free ranges now belong to the heap: any later
 * allocation panics. Called once, by heap_handoff().
 */
void bootmem_close(void)
{
	CHECK(!bm_closed);
	carried_room();
	bm_closed = true;
}

/**
 * bootmem_join_carried() - the carried ranges join the reserved table,
 * once: in place when its store has room (the presized store has, or
 * carried_room() made it), else each through the fill (a full table
 * merges neighbours then, as any).
 */
void bootmem_join_carried(void)
{
	const struct bootinfo *bi = bm_carried;
	struct bm_list l;
	const struct region *c;

	if (!bi)
		return;
	if (!bm_carried_join_into(&bm_rsv)) {
		/*
		 * Still read beside it meanwhile: a store the table grows
		 * into (bootmem still open) lands on none of them.
		 */
		bm_list_carried(&l, bi);
		while ((c = bm_list_next(&l)))
			bm_reserve_range(pa_val(c->start), pa_val(c->end),
					 c->name);
	}
	bm_carried_set(NULL);
	bm_cursors_reset();
}

/** bootmem_ram_regions() - Return: the RAM table and its size in @count. */
const struct region *bootmem_ram_regions(unsigned int *count)
{
	*count = bm_ram->count;
	return bm_ram->regions;
}

/**
 * bootmem_reserved_regions() - Return: the whole reserved table (@count
 * set), a live update's carried bad ranges joined into it first.
 */
const struct region *bootmem_reserved_regions(unsigned int *count)
{
	bootmem_join_carried();
	*count = bm_rsv.count;
	return bm_rsv.regions;
}

/** bootmem_reserved_table() - see keel/bootmem.h. */
const struct region *bootmem_reserved_table(unsigned int *count)
{
	*count = bm_rsv.count;
	return bm_rsv.regions;
}

/** bootmem_allocated_bytes() - Return: bytes handed out by bootmem_alloc. */
uint64_t bootmem_allocated_bytes(void)
{
	return bm_alloc_bytes;
}

/** bootmem_allocation_count() - Return: successful bootmem_alloc calls. */
unsigned int bootmem_allocation_count(void)
{
	return bm_alloc_count;
}

/** bootmem_reserved_ram_bytes() - Return: RAM bytes under a reservation. */
uint64_t bootmem_reserved_ram_bytes(void)
{
	uint64_t sum = 0;
	unsigned int i, j = 0;

	bootmem_join_carried();
	/* Both tables are sorted and non-overlapping: one merge walk. */
	for (i = 0; i < bm_ram->count; i++) {
		uint64_t rs = pa_val(bm_ram->regions[i].start),
			 re = pa_val(bm_ram->regions[i].end);

		while (j > 0 && pa_val(bm_rsv.regions[j - 1].end) > rs)
			j--;
		for (; j < bm_rsv.count && pa_val(bm_rsv.regions[j].start) < re;
		     j++) {
			uint64_t s = MAX(rs, pa_val(bm_rsv.regions[j].start));
			uint64_t e = MIN(re, pa_val(bm_rsv.regions[j].end));

			if (s < e)
				sum += e - s;
		}
	}
	return sum;
}
