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

static bool same_node(const struct region *a, const struct region *b)
{
	return a->node == b->node;
}

static bool same_name(const struct region *a, const struct region *b)
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
static struct range_table *ram_table = &own_ram;
static struct range_table rsv_table = TABLE_INIT(rsv_store, same_name);

/*
 * What a growing table must keep clear of: the range reserve_range() is
 * filling (not in the table yet), and the new store, reserved once the
 * table operation that grew it is over (flush_grown()).
 */
static uint64_t filling_s, filling_e;
static uint64_t grown_s, grown_e;
static void flush_grown(void);
static bool fit_clear_of(uint64_t bytes, uint64_t avoid_s, uint64_t avoid_e,
			 uint64_t *out);
static void cursors_reset(void);
static uint64_t walk_steps;

static uint64_t alloc_bytes;
static unsigned int alloc_count;
static uint64_t dropped_bytes;
static uint64_t limit_top = ~0ULL;
static unsigned int merged_regions;
static uint64_t merged_gap_bytes;
static bool closed;
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
	ram_table = &own_ram;
	rsv_table = TABLE_INIT(rsv_store, same_name);
	filling_s = filling_e = grown_s = grown_e = 0;
	resizable = false;
	alloc_bytes = 0;
	alloc_count = 0;
	dropped_bytes = 0;
	limit_top = ~0ULL;
	merged_regions = 0;
	merged_gap_bytes = 0;
	closed = false;
	walk_steps = 0;
	cursors_reset();
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
	err = range_table_add(ram_table, pa(s), pa(e), &r);
	cursors_reset(); /* new RAM: new gaps */
	flush_grown();
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
	unsigned int before = rsv_table.count;

	if (!merged_regions && !superset_pass)
		pr_warn("bootmem: more than %u reserved regions: merging the "
			"nearest neighbours, the RAM between them stays "
			"reserved\n",
			rsv_table.cap);
	merged_gap_bytes += range_table_coalesce(
		&rsv_table, range_table_coalesce_batch(before), join_names);
	merged_regions += before - rsv_table.count;
}

/*
 * Reserve [s, e) exactly (already page aligned) under @why, skipping the
 * bytes an earlier reservation holds. Never fails: a full table is made
 * room in by merging neighbours (rsv_coalesce()), and the fill carries on
 * from where it stopped.
 */
static void reserve_range(uint64_t s, uint64_t e, const char *why)
{
	struct region r = {.node = 0};
	uint64_t outer_s = filling_s, outer_e = filling_e;

	strlcpy(r.name, why, sizeof(r.name));
	filling_s = s;
	filling_e = e;
	while (range_table_fill(&rsv_table, pa(s), pa(e), &r) == -ENOSPC)
		rsv_coalesce();
	filling_s = outer_s;
	filling_e = outer_e;
	flush_grown();
}

/*
 * A table grew into [grown_s, grown_e): reserve it now that the table
 * operation is over (reserving it can grow nothing: the table doubled).
 */
static void flush_grown(void)
{
	uint64_t s = grown_s, e = grown_e;

	if (s == e)
		return;
	grown_s = grown_e = 0;
	reserve_range(s, e, "bootmem tables");
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
	reserve_range(s, e, why ? why : "reserved");
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

	if (!own_ram.count && ram_table == &own_ram && ram_table_as_added(t)) {
		t->same = same_node;
		t->grow = table_grow;
		t->max = MAX(t->max, (unsigned int)BOOTMEM_MAX_REGIONS);
		ram_table = t;
		cursors_reset();
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
 * @bi's reserved ranges, trimmed to RAM, into the reserved table; or, with
 * @count_only, only counted: the pieces they make (at most the regions
 * they take).
 */
static uint64_t load_reserved(const struct bootinfo *bi, bool count_only)
{
	uint64_t pieces = 0;

	for (unsigned int i = 0; i < bi->reserved.count; i++) {
		const struct region *r = &bi->reserved.regions[i];
		uint64_t s = ALIGN_DOWN(pa_val(r->start), PAGE_SIZE);
		uint64_t e = ALIGN_UP(pa_val(r->end), PAGE_SIZE);
		unsigned int j =
			range_table_first_ending_above(ram_table, pa(s));

		for (; j < ram_table->count; j++) {
			const struct region *m = &ram_table->regions[j];
			uint64_t rs = MAX(s, pa_val(m->start));
			uint64_t re = MIN(e, pa_val(m->end));

			if (pa_val(m->start) >= e)
				break;
			if (rs >= re)
				continue;
			pieces++;
			if (!count_only)
				reserve_range(rs, re,
					      r->name[0] ? r->name
							 : "firmware");
		}
	}
	return pieces;
}

/*
 * More reserved ranges than the static table holds (a live update's
 * preserved extents): a table that holds them all, placed where none of
 * them is. Nothing can grow into RAM before all are in, so first a
 * superset goes in (the static table, its nearest neighbours merged:
 * more reserved, never less), the new store is taken from what that
 * leaves free, and the table starts again, empty, on it. The store is
 * reserved with the first range loaded ("bootmem tables").
 */
static void presize_reserved(const struct bootinfo *bi)
{
	uint64_t need = load_reserved(bi, true) + 64;
	unsigned int cap = (unsigned int)MIN(need, (uint64_t)rsv_table.max);
	uint64_t bytes =
		ALIGN_UP((uint64_t)cap * sizeof(struct region), PAGE_SIZE);
	uint64_t at;

	if (need <= rsv_table.cap)
		return;
	superset_pass = true;
	load_reserved(bi, false);
	superset_pass = false;
	if (fit_clear_of(bytes, 0, 0, &at)) {
		rsv_table.count = 0;
		range_table_move(&rsv_table, phys_to_virt(pa(at)), cap);
		grown_s = at;
		grown_e = at + bytes;
	} else {
		/* No room: the table as it was, to merge as it must. */
		rsv_table.count = 0;
	}
	cursors_reset(); /* the table starts again: gaps come back */
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
	take_ram(bi);
	/*
	 * More ranges than the static table: loaded in address order, so
	 * each fill appends (O(log n)); in the firmware's order a list
	 * given top-down moved the whole table per range (120,000: 25 s).
	 * Where such ranges overlap, the lower start names the bytes.
	 */
	if (bi->reserved.count > BOOTMEM_STATIC_REGIONS)
		range_table_sort(&bi->reserved);
	presize_reserved(bi);
	load_reserved(bi, false);
	resizable = true;
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
	for (i = 0; i < ram_table->count && top == ~0ULL; i++) {
		uint64_t s = pa_val(ram_table->regions[i].start),
			 e = pa_val(ram_table->regions[i].end);

		if (seen + (e - s) > max_bytes)
			top = s + (max_bytes - seen);
		seen += e - s;
	}
	if (top == ~0ULL)
		return 0;
	if (free_bytes_below(top) < min_free)
		return -ENOMEM;
	for (i = 0; i < ram_table->count; i++) {
		uint64_t s = MAX(pa_val(ram_table->regions[i].start), top);
		uint64_t e = pa_val(ram_table->regions[i].end);

		if (s >= e)
			continue;
		dropped_bytes += e - s;
		reserve_range(s, e, "mem=");
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
	ram_table->max = MAX(max, ram_table->cap);
	rsv_table.max = MAX(max, rsv_table.cap);
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
 * Where the last top-down walk for a node stopped (DESIGN §16: 100,000
 * bad pages make 100,000 reserved ranges, and the frame table asks for
 * thousands of pieces of one size): every free byte of the walk's RAM at
 * or above @top fails a request of at least @size bytes aligned to at
 * least @align. A reservation only ever takes free bytes away, so that
 * stays true until RAM is added or the reserved table is rebuilt
 * (cursors_reset()); a walk for such a request starts at @top, and the
 * gaps it skips are skipped once for all the requests of that shape:
 * amortised O(1) per allocation, not O(reserved ranges). Slot
 * MAX_NUMNODES is the walk over all nodes.
 */
struct fit_cursor {
	uint64_t size, align, top;
	bool valid;
};

static struct fit_cursor cursors[MAX_NUMNODES + 1];
static void cursors_reset(void)
{
	for (unsigned int i = 0; i <= MAX_NUMNODES; i++)
		cursors[i].valid = false;
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
	unsigned int k = range_table_first_ending_above(&rsv_table, pa(top));

	if (k < rsv_table.count && pa_val(rsv_table.regions[k].start) < top)
		return (int)k;
	return (int)k - 1;
}

/*
 * Highest fit of @size/@align inside RAM region @r below @top, minus
 * reservations: the gaps from the top down, the first found by a binary
 * search.
 */
static bool fit_in_region(const struct region *r, uint64_t top, uint64_t size,
			  uint64_t align, uint64_t *out)
{
	uint64_t rs = pa_val(r->start);
	int j;

	top = MIN(top, pa_val(r->end));
	for (j = last_rsv_below(top); j >= -1; j--) {
		uint64_t gap_start = rs, cand;

		walk_steps++;
		if (j >= 0)
			gap_start = MAX(rs, pa_val(rsv_table.regions[j].end));
		if (gap_start < top && top - gap_start >= size) {
			cand = ALIGN_DOWN(top - size, align);
			if (cand >= gap_start) {
				*out = cand;
				return true;
			}
		}
		if (j < 0 || pa_val(rsv_table.regions[j].start) <= rs)
			break;
		top = MIN(top, pa_val(rsv_table.regions[j].start));
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
	struct fit_cursor *c = cursor_of(node);
	uint64_t top = ~0ULL;
	int i;

	if (c && c->valid && size >= c->size && align >= c->align)
		top = c->top;
	i = (int)range_table_first_ending_above(ram_table, pa(top));
	if (i >= (int)ram_table->count ||
	    pa_val(ram_table->regions[i].start) >= top)
		i--;
	for (; i >= 0; i--) {
		const struct region *r = &ram_table->regions[i];

		if (node != BOOTMEM_ANY_NODE && r->node != node)
			continue;
		if (fit_in_region(r, top, size, align, out))
			break;
	}
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
	uint64_t at;

	if (closed)
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
		reserve_range(at, at + size, why ? why : "bootmem");
		alloc_bytes += size;
		alloc_count++;
		return pa(at);
	}
	return INVALID_PADDR;
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
		if (dropped_bytes)
			pr_err("bootmem: mem= hides %llu MiB of RAM\n",
			       (unsigned long long)(dropped_bytes >> 20));
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

/**
 * bootmem_next_free_range() - the free range at or after the position
 * kept in @idx (an address), split at RAM region boundaries.
 *
 * Return: false when no free range is left.
 */
bool bootmem_next_free_range(uint64_t *idx, paddr_t *start, paddr_t *end,
			     uint32_t *node)
{
	uint64_t pos = *idx;
	unsigned int i;

	/* From the first RAM range ending above @pos: a walk is O(n log n). */
	for (i = range_table_first_ending_above(ram_table, pa(pos));
	     i < ram_table->count; i++) {
		unsigned int j;
		uint64_t s, e;

		s = MAX(pos, pa_val(ram_table->regions[i].start));
		e = pa_val(ram_table->regions[i].end);
		j = range_table_first_ending_above(&rsv_table, pa(s));
		for (; j < rsv_table.count &&
		       pa_val(rsv_table.regions[j].start) <= s;
		     j++)
			s = MAX(s, pa_val(rsv_table.regions[j].end));
		if (s >= e)
			continue;
		if (j < rsv_table.count &&
		    pa_val(rsv_table.regions[j].start) < e)
			e = pa_val(rsv_table.regions[j].start);
		*start = pa(s);
		*end = pa(e);
		*node = ram_table->regions[i].node;
		*idx = e;
		return true;
	}
	*idx = ~0ULL;
	return false;
}

/*
 * The highest page-aligned place for @bytes in free RAM clear of
 * [@avoid_s, @avoid_e) (the range being reserved). Return: whether any.
 */
static bool fit_clear_of(uint64_t bytes, uint64_t avoid_s, uint64_t avoid_e,
			 uint64_t *out)
{
	uint64_t idx, best = 0;
	bool found = false;
	paddr_t fs, fe;
	uint32_t node;

	for_each_free_range (idx, &fs, &fe, &node) {
		uint64_t piece[2][2] = {
			{pa_val(fs), MIN(pa_val(fe), avoid_s)},
			{MAX(pa_val(fs), avoid_e), pa_val(fe)},
		};

		for (unsigned int k = 0; k < 2; k++) {
			uint64_t ps = piece[k][0], pe = piece[k][1];

			if (pe <= ps || pe - ps < bytes)
				continue;
			if (!found || pe - bytes > best)
				best = pe - bytes;
			found = true;
		}
	}
	*out = best;
	return found;
}

/*
 * A table of bootmem's is full: a store for @cap regions, top-down in
 * free RAM (memblock_double_array()), reserved by flush_grown() once the
 * operation that grew it is over. NULL while bootmem is closed, while
 * another new store waits to be reserved, or when nothing fits.
 */
static struct region *table_grow(struct range_table *t, unsigned int cap)
{
	uint64_t bytes =
		ALIGN_UP((uint64_t)cap * sizeof(*t->regions), PAGE_SIZE);
	uint64_t at;

	if (closed || !resizable || grown_s != grown_e ||
	    !fit_clear_of(bytes, filling_s, filling_e, &at))
		return NULL;
	grown_s = at;
	grown_e = at + bytes;
	return phys_to_virt(pa(at));
}

/**
 * bootmem_close() - the free ranges now belong to the heap: any later
 * allocation panics. Called once, by heap_handoff().
 */
void bootmem_close(void)
{
	CHECK(!closed);
	closed = true;
}

/** bootmem_largest_free() - Return: bytes of the largest free range. */
uint64_t bootmem_largest_free(void)
{
	uint64_t idx, best = 0;
	paddr_t s, e;
	uint32_t node;

	for_each_free_range (idx, &s, &e, &node)
		best = MAX(best, pa_val(e) - pa_val(s));
	return best;
}

/** bootmem_ram_regions() - Return: the RAM table and its size in @count. */
const struct region *bootmem_ram_regions(unsigned int *count)
{
	*count = ram_table->count;
	return ram_table->regions;
}

/** bootmem_reserved_regions() - Return: the reserved table (@count set). */
const struct region *bootmem_reserved_regions(unsigned int *count)
{
	*count = rsv_table.count;
	return rsv_table.regions;
}

/** bootmem_allocated_bytes() - Return: bytes handed out by bootmem_alloc. */
uint64_t bootmem_allocated_bytes(void)
{
	return alloc_bytes;
}

/** bootmem_allocation_count() - Return: successful bootmem_alloc calls. */
unsigned int bootmem_allocation_count(void)
{
	return alloc_count;
}

/** bootmem_reserved_ram_bytes() - Return: RAM bytes under a reservation. */
uint64_t bootmem_reserved_ram_bytes(void)
{
	uint64_t sum = 0;
	unsigned int i, j = 0;

	/* Both tables are sorted and non-overlapping: one merge walk. */
	for (i = 0; i < ram_table->count; i++) {
		uint64_t rs = pa_val(ram_table->regions[i].start),
			 re = pa_val(ram_table->regions[i].end);

		while (j > 0 && pa_val(rsv_table.regions[j - 1].end) > rs)
			j--;
		for (; j < rsv_table.count &&
		       pa_val(rsv_table.regions[j].start) < re;
		     j++) {
			uint64_t s =
				MAX(rs, pa_val(rsv_table.regions[j].start));
			uint64_t e = MIN(re, pa_val(rsv_table.regions[j].end));

			if (s < e)
				sum += e - s;
		}
	}
	return sum;
}
