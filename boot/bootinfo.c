/* SPDX-License-Identifier: MIT */
/*
 * struct bootinfo: bootinfo_init(), the adders the firmware parsers use
 * (RAM of one node merged as it is added, a separate range beyond a full
 * table dropped with one warning for the boot; a full reserved table
 * merges the nearest ranges through the range table's nearest-pair), and
 * the queries the rest of keel reads it with.
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

/**
 * bootinfo_init() - empty @bi for @protocol: no ranges, no CPUs,
 * el = -1, paddr_bits BOOTINFO_PADDR_BITS_DEFAULT.
 */
void bootinfo_init(struct bootinfo *bi, enum boot_protocol protocol)
{
	memset(bi, 0, sizeof(*bi));
	bi->protocol = protocol;
	bi->el = -1;
	bi->paddr_bits = BOOTINFO_PADDR_BITS_DEFAULT;
	for (unsigned int n = 0; n < MAX_NUMNODES; n++)
		bi->node_fw_id[n] = NODE_FW_ID_NONE;
}

/*
 * A separate RAM range found the table full: dropped, counted in ranges
 * and bytes, one warning for the whole boot (sanitise drops through here
 * too when resolving overlaps needs more pieces than the table holds).
 */
void bootinfo_drop_ram(struct bootinfo *bi, uint64_t s, uint64_t e)
{
	if (!bi->dropped_ram_bytes)
		fix_warn(bi,
			 "more than %u separate RAM ranges: [%#llx, %#llx) "
			 "and any further ones dropped "
			 "(memmap.dropped_ram_bytes)",
			 BOOTINFO_MAX_RAM, U64(s), U64(e));
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
 * Merge [s, e) into the RAM of @node whose whole pages touch or overlap
 * its own (RAM meeting inside a page keeps that page out, as when each is
 * trimmed alone): the lowest such entry grows over it and over every other
 * one, which go (such entries never touch each other, so one pass finds
 * them all). Pages listed twice are one warning.
 * Return: the entry it went into, or -1 when it touches none.
 */
static int ram_merge(struct bootinfo *bi, uint64_t s, uint64_t e, uint32_t node)
{
	unsigned int n = MIN(bi->ram_count, BOOTINFO_MAX_RAM);
	uint64_t ts, te, ps, pe;
	bool said = false;
	int into = -1;

	if (!whole_pages(s, e, &ts, &te))
		return -1;
	for (unsigned int i = 0; i < n; i++) {
		struct bi_ram *r = &bi->ram[i];

		if (r->node != node ||
		    !whole_pages(pa_val(r->start), pa_val(r->end), &ps, &pe) ||
		    pe < ts || ps > te)
			continue;
		if (ps < te && ts < pe && !said) {
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
	bi->ram_count = n;
	if (into >= 0) {
		bi->ram[into].start = pa(s);
		bi->ram[into].end = pa(e);
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
	struct bi_ram *r;

	if (e <= s) {
		fix_warn(bi, "ram [%#llx, %#llx) is empty, dropped", U64(s),
			 U64(e));
		bi->dropped_ram++;
		return -EINVAL;
	}
	if (ram_merge(bi, s, e, node) >= 0)
		return 0;
	if (bi->ram_count >= BOOTINFO_MAX_RAM) {
		bootinfo_drop_ram(bi, s, e);
		return -ENOSPC;
	}
	r = &bi->ram[bi->ram_count++];
	r->start = start;
	r->end = end;
	r->node = node;
	return 0;
}

/*
 * The list is full and [start, end) must still be reserved: it takes the
 * spare slot, the list is sorted by start and its two nearest neighbours
 * merge, which frees one slot (the new range is merged if it is nearest).
 * Every byte reserved before stays reserved; the gap joins them.
 */
static void reserved_merge_nearest(struct bootinfo *bi, paddr_t start,
				   paddr_t end, const char *name)
{
	struct paddr_range_table t = PADDR_RANGE_TABLE_INIT(
		bi->reserved, BOOTINFO_MAX_RESERVED + 1, NULL);
	struct bi_reserved *r = &bi->reserved[BOOTINFO_MAX_RESERVED];
	unsigned int best;
	uint64_t gap;

	r->start = start;
	r->end = end;
	strlcpy(r->name, name, sizeof(r->name));
	t.count = BOOTINFO_MAX_RESERVED + 1;
	paddr_range_table_sort(&t);
	best = paddr_range_table_nearest_pair(&t, &gap);
	if (!bi->merged_reserved++)
		fix_warn(bi,
			 "more than %u reserved ranges: merging the nearest "
			 "ones, the bytes between them are reserved too",
			 BOOTINFO_MAX_RESERVED);
	bi->merged_reserved_gap += gap;
	r = &bi->reserved[best];
	r->name[sizeof(r->name) - 1] = '\0';
	if (strncmp(r->name, r[1].name, sizeof(r->name)))
		strlcpy(r->name, "merged", sizeof(r->name));
	paddr_range_table_join_next(&t, best);
	bi->reserved_count = t.count;
}

PADDR_RANGE_TABLE_CHECK_TYPE(struct bi_reserved);
PADDR_RANGE_TABLE_CHECK_TYPE(struct bi_ram);

/**
 * bootinfo_add_reserved() - append reserved [start, end) named @name.
 * Return: 0 or -EINVAL (end <= start). A full table merges (see the
 * header); nothing reserved is ever dropped for want of room.
 */
int bootinfo_add_reserved(struct bootinfo *bi, paddr_t start, paddr_t end,
			  const char *name)
{
	struct bi_reserved *r;

	if (!name || !*name)
		name = "reserved";
	if (pa_val(end) <= pa_val(start)) {
		fix_warn(bi, "reserved %s [%#llx, %#llx) is empty, dropped",
			 name, U64(pa_val(start)), U64(pa_val(end)));
		bi->dropped_reserved++;
		return -EINVAL;
	}
	if (bi->reserved_count >= BOOTINFO_MAX_RESERVED) {
		bi->reserved_count = BOOTINFO_MAX_RESERVED;
		reserved_merge_nearest(bi, start, end, name);
		return 0;
	}
	r = &bi->reserved[bi->reserved_count++];
	r->start = start;
	r->end = end;
	strlcpy(r->name, name, sizeof(r->name));
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
