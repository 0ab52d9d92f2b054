/* SPDX-License-Identifier: MIT */
/*
 * struct bootinfo: bootinfo_init(), the adders the firmware parsers use
 * (RAM of one node merged as it is added, a separate range beyond a full
 * table dropped with one warning for the boot; a full reserved table
 * merges the nearest ranges through the range table's nearest-pair), and
 * the early pool its tables grow into.
 *
 * The early pool: before bootmem exists nothing can allocate, so a RAM or
 * reserved table that outgrows its static store doubles into a static
 * pool of BOOTINFO_EARLY_POOL_BYTES (boot/Kconfig), a bump allocator whose
 * last block grows in place (one table growing alone, the common case,
 * costs its final size and no more). When the pool cannot give the next
 * doubling, the RAM table takes all the pool has left; only then, or past
 * RANGE_TABLE_MAX_REGIONS, is a table full: RAM beyond it is dropped,
 * reserved ranges merge, each with one warning.
 * bootinfo_sanitise(), which gives it the shape keel relies on, is in
 * boot/bootinfo_sanitise.c.
 *
 * No lock: the parsers run once on the boot CPU.
 */
#include <keel/bootinfo.h>
#include <keel/compiler.h>
#include <keel/errno.h>
#include <keel/printk.h>
#include <keel/range_table.h>
#include <keel/string.h>

#include "boot_priv.h"

/*
 * The early pool (see the top of the file). Regions, so every block is
 * aligned for them; @pool_used counts regions handed out, @pool_last is
 * the start of the last block (the one that may grow in place).
 */
#define EARLY_POOL_REGIONS (BOOTINFO_EARLY_POOL_BYTES / sizeof(struct region))
static struct region early_pool[EARLY_POOL_REGIONS];
static size_t pool_used, pool_last;
static bool pool_any;

static struct region *early_grow(struct range_table *t, unsigned int cap)
{
	size_t at = pool_used;

	/* The last block grows in place: its table is the one growing. */
	if (pool_any && t->regions == &early_pool[pool_last])
		at = pool_last;
	if (cap > EARLY_POOL_REGIONS - at)
		return NULL;
	pool_any = true;
	pool_last = at;
	pool_used = at + cap;
	return &early_pool[at];
}

/**
 * bootinfo_early_pool_reset() - forget every table grown into the early
 * pool (fuzzers, between inputs: each starts from the same pool). No
 * bootinfo may still use one.
 */
void bootinfo_early_pool_reset(void)
{
	pool_used = 0;
	pool_last = 0;
	pool_any = false;
}

static bool same_node(const struct region *a, const struct region *b)
{
	return a->node == b->node;
}

/**
 * bootinfo_init() - empty @bi for @protocol: no ranges, no CPUs,
 * el = -1, paddr_bits BOOTINFO_PADDR_BITS_DEFAULT; its tables on their
 * static stores, growing into the early pool.
 */
void bootinfo_init(struct bootinfo *bi, enum boot_protocol protocol)
{
	memset(bi, 0, sizeof(*bi));
	bi->ram = (struct range_table)RANGE_TABLE_INIT_GROWING(
		bi->ram_store, BOOTINFO_MAX_RAM, same_node, early_grow,
		RANGE_TABLE_MAX_REGIONS);
	bi->reserved = (struct range_table)RANGE_TABLE_INIT_GROWING(
		bi->reserved_store, BOOTINFO_MAX_RESERVED + 1, NULL, early_grow,
		RANGE_TABLE_MAX_REGIONS);
	bi->protocol = protocol;
	bi->el = -1;
	bi->paddr_bits = BOOTINFO_PADDR_BITS_DEFAULT;
	for (unsigned int n = 0; n < MAX_NUMNODES; n++)
		bi->node_fw_id[n] = NODE_FW_ID_NONE;
}

/**
 * bootinfo_grow_rest() - the table cannot double: give it all the early
 * pool has left, when that is more than it has (a doubling asks twice the
 * table; the pool may hold less than that and still more than the table).
 * Return: whether it grew.
 */
bool bootinfo_grow_rest(struct range_table *t)
{
	size_t at = pool_used, cap;

	if (t->grow != early_grow)
		return false;
	if (pool_any && t->regions == &early_pool[pool_last])
		at = pool_last;
	cap = MIN(EARLY_POOL_REGIONS - at, (size_t)t->max);
	if (cap <= t->cap)
		return false;
	return range_table_move(t, early_grow(t, (unsigned int)cap),
				(unsigned int)cap);
}

/*
 * A separate RAM range found the table full (at its limit, or the early
 * pool spent: the line says which): dropped, counted in ranges and bytes,
 * one warning for the whole boot. Only the adders drop RAM; sanitise
 * never does.
 */
void bootinfo_drop_ram(struct bootinfo *bi, uint64_t s, uint64_t e)
{
	if (!bi->dropped_ram_bytes)
		fix_warn(bi,
			 "more than %u separate RAM ranges (%s): [%#llx, "
			 "%#llx) and any further ones dropped "
			 "(memmap.dropped_ram_bytes)",
			 bi->ram.cap,
			 bi->ram.cap >= bi->ram.max
				 ? "the table's limit"
				 : "the early pool, "
				   "CONFIG_BOOTINFO_EARLY_POOL_KB, is full",
			 U64(s), U64(e));
	bi->dropped_ram++;
	bi->dropped_ram_bytes += e - s;
}

/*
 * The whole pages of [s, e) in [*ps, *pe) (what sanitise keeps of it).
 * Return: false when it holds none (sanitise drops it with its warning).
 */
static bool whole_pages(uint64_t s, uint64_t e, uint64_t *ps, uint64_t *pe)
{
	if (s > PAGE_MASK)
		return false;
	*ps = ALIGN_UP(s, PAGE_SIZE);
	*pe = ALIGN_DOWN(e, PAGE_SIZE);
	return *ps < *pe;
}

/*
 * Where ram_merge() must look from for [@s, ...) of whole pages from @ts:
 * 0, unless the list is sorted and disjoint so far (added in address
 * order, as firmware lists RAM) and [@s, ...) starts at or above its
 * last range; then only the ranges whose whole pages reach @ts, at its
 * tail (their ends ascend). Firmware listing n ranges in order then costs
 * O(n), not O(n^2) (100,000 DT or UEFI ranges took 18 s).
 */
static unsigned int ram_first_near(const struct range_table *t, uint64_t s,
				   uint64_t ts)
{
	unsigned int i = t->count;

	if (t->unsorted || !i || s < pa_val(t->regions[i - 1].start))
		return 0;
	while (i > 0 &&
	       ALIGN_DOWN(pa_val(t->regions[i - 1].end), PAGE_SIZE) >= ts)
		i--;
	return i;
}

/*
 * Merge [s, e) into the RAM of @node whose whole pages touch or overlap
 * its own (RAM meeting inside a page keeps that page out, as when each is
 * trimmed alone): the lowest such entry grows over it and over every other
 * one, which go (such entries never touch each other, so one pass finds
 * them all). Pages listed twice are one warning.
 * Return: the entry it went into, or -1 when it touches none.
 */
static int ram_merge(struct bootinfo *bi, uint64_t s, uint64_t e, uint32_t node)
{
	unsigned int n = bi->ram.count;
	uint64_t ts, te, ps, pe;
	bool said = false;
	int into = -1;

	if (!whole_pages(s, e, &ts, &te))
		return -1;
	for (unsigned int i = ram_first_near(&bi->ram, s, ts); i < n; i++) {
		struct region *r = &bi->ram.regions[i];

		if (r->node != node ||
		    !whole_pages(pa_val(r->start), pa_val(r->end), &ps, &pe) ||
		    pe < ts || ps > te)
			continue;
		if (ranges_overlap(ps, pe, ts, te) && !said) {
			said = true;
			fix_warn(bi,
				 "ram [%#llx, %#llx) listed twice on node "
				 "%u, merged",
				 U64(MAX(ps, ts)), U64(MIN(pe, te)), node);
		}
		s = MIN(s, pa_val(r->start));
		e = MAX(e, pa_val(r->end));
		ts = MIN(ts, ps);
		te = MAX(te, pe);
		if (into < 0) {
			into = (int)i;
			continue;
		}
		memmove(r, r + 1, (n - i - 1) * sizeof(*r));
		n--;
		i--;
	}
	bi->ram.count = n;
	if (into >= 0) {
		bi->ram.regions[into].start = pa(s);
		bi->ram.regions[into].end = pa(e);
		/* Grown below another range: it may now overlap it. */
		if ((unsigned int)into + 1 < n)
			bi->ram.unsorted = true;
	}
	return into;
}

/**
 * bootinfo_add_ram() - add RAM [start, end) on @node: merged into the RAM
 * of @node it touches or overlaps, else appended (see the header).
 * Return: 0, -EINVAL (end <= start) or -ENOSPC (table full: dropped).
 */
int bootinfo_add_ram(struct bootinfo *bi, paddr_t start, paddr_t end,
		     uint32_t node)
{
	uint64_t s = pa_val(start), e = pa_val(end);
	struct region r = region_of(start, end);

	if (e <= s) {
		fix_warn(bi, "ram [%#llx, %#llx) is empty, dropped", U64(s),
			 U64(e));
		bi->dropped_ram++;
		return -EINVAL;
	}
	if (ram_merge(bi, s, e, node) >= 0)
		return 0;
	r.node = node;
	if (!range_table_append(&bi->ram, &r) ||
	    (bootinfo_grow_rest(&bi->ram) && !range_table_append(&bi->ram, &r)))
		return 0;
	bootinfo_drop_ram(bi, s, e);
	return -ENOSPC;
}

/* Two reserved ranges join: "merged" unless they share a name. */
static void join_names(struct region *into, const struct region *next)
{
	into->name[sizeof(into->name) - 1] = '\0';
	if (strncmp(into->name, next->name, sizeof(into->name)))
		strlcpy(into->name, "merged", sizeof(into->name));
}

/*
 * The list is full and [start, end) must still be reserved: it takes the
 * spare slot, the list is sorted by start and its nearest neighbours
 * merge, an eighth of the list at once (range_table_coalesce()), so that
 * n more ranges sort it O(n / cap) times, not n (the new range is merged
 * if it is among the nearest). Every byte reserved before stays
 * reserved; the gaps join them.
 */
static void reserved_merge_nearest(struct bootinfo *bi, paddr_t start,
				   paddr_t end, const char *name)
{
	struct range_table *t = &bi->reserved;
	struct region *r = &t->regions[t->count++];
	unsigned int before;

	*r = region_of(start, end);
	strlcpy(r->name, name, sizeof(r->name));
	range_table_sort(t);
	if (!bi->merged_reserved)
		fix_warn(bi,
			 "more than %u reserved ranges: merging the nearest "
			 "ones, the bytes between them are reserved too",
			 t->cap - 1);
	before = t->count;
	bi->reserved_bytes_known = false; /* merged: summed again if asked */
	bi->merged_reserved_gap += range_table_coalesce(
		t, range_table_coalesce_batch(t->count), join_names);
	bi->merged_reserved += before - t->count;
}

/**
 * bootinfo_add_reserved() - append reserved [start, end) named @name.
 * Return: 0 or -EINVAL (end <= start). A full table merges (see the
 * header); nothing reserved is ever dropped for want of room.
 */
int bootinfo_add_reserved(struct bootinfo *bi, paddr_t start, paddr_t end,
			  const char *name)
{
	struct range_table *t = &bi->reserved;
	struct region r = region_of(start, end);

	if (!name || !*name)
		name = "reserved";
	if (pa_val(end) <= pa_val(start)) {
		fix_warn(bi, "reserved %s [%#llx, %#llx) is empty, dropped",
			 name, U64(pa_val(start)), U64(pa_val(end)));
		bi->dropped_reserved++;
		return -EINVAL;
	}
	/* One slot stays spare for the merge of a full list. */
	if (t->count + 1 >= t->cap && !range_table_double(t)) {
		t->count = MIN(t->count, t->cap - 1);
		reserved_merge_nearest(bi, start, end, name);
		return 0;
	}
	strlcpy(r.name, name, sizeof(r.name));
	t->regions[t->count++] = r;
	bi->reserved_bytes += pa_val(end) - pa_val(start);
	return 0;
}

/**
 * bootinfo_add_cpu() - append a CPU (not the boot CPU; the arch marks that).
 * Return: 0 or -ENOSPC (more than CONFIG_NR_CPUS).
 */
int bootinfo_add_cpu(struct bootinfo *bi, uint64_t hwid, uint32_t node,
		     uint32_t package, uint32_t core, uint32_t thread,
		     bool usable)
{
	struct bi_cpu *c;

	if (bi->cpu_count >= CONFIG_NR_CPUS) {
		/* Counted here, warned about once by bootinfo_sanitise(). */
		bi->cpus_over_cap++;
		bi->dropped_cpus++;
		return -ENOSPC;
	}
	c = &bi->cpus[bi->cpu_count++];
	memset(c, 0, sizeof(*c));
	c->hwid = hwid;
	c->node = node;
	c->package = package;
	c->core = core;
	c->thread = thread;
	c->usable = usable;
	return 0;
}

/**
 * bootinfo_set_distance() - record distance[a][b] = @d (one direction;
 * sanitise fills an unset reverse from it).
 */
void bootinfo_set_distance(struct bootinfo *bi, uint32_t a, uint32_t b,
			   uint8_t d)
{
	if (a >= MAX_NUMNODES || b >= MAX_NUMNODES) {
		fix_warn(bi, "distance %u %u: node id >= %u, ignored", a, b,
			 (unsigned int)MAX_NUMNODES);
		return;
	}
	bi->distance[a][b] = d;
	bi->have_distance = true;
}

/**
 * bootinfo_distance_problem() - why @v cannot be distance[@a][@b].
 * Return: NULL when it can (10 on the diagonal, 11..255 elsewhere).
 */
const char *bootinfo_distance_problem(uint32_t a, uint32_t b, uint32_t v)
{
	if (a == b)
		return v == NODE_DISTANCE_LOCAL ? NULL
						: "a local distance must be 10";
	if (v <= NODE_DISTANCE_LOCAL)
		return "a remote distance must be above 10";
	if (v > NODE_DISTANCE_UNREACHABLE)
		return "above 255 (unreachable)";
	return NULL;
}
