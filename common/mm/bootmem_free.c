// SPDX-License-Identifier: MIT
/*
 * bootmem's free ranges (include/keel/bootmem.h): RAM minus the reserved
 * table (bootmem.c) minus a live update's carried bad ranges not joined
 * to it yet (bootmem_carried.c), walked in address order with a cursor,
 * in a file of its own to keep bootmem.c's size. No lock: the boot CPU,
 * before the APs run.
 */
#include <keel/bootmem.h>
#include <keel/compiler.h>
#include <keel/range_table.h>

#include "bootmem_priv.h"

/*
 * The iterator's last step: the position it returned and the reserved
 * region it stopped at, so that the next step from there starts at that
 * region, not at a binary search: a walk over n free ranges is O(n), not
 * O(n log n) (100,000 bad pages: the heap's handoff and the bounds of
 * the boot's tables walk it). Checked before use: a stale one is ignored.
 */
static uint64_t iter_pos = ~0ULL;
static unsigned int iter_rsv;

/* The first reserved region ending above @s, from the iterator's cursor. */
static unsigned int rsv_from(uint64_t s)
{
	unsigned int j = iter_rsv;

	if (s == iter_pos && j < bm_rsv.count &&
	    pa_val(bm_rsv.regions[j].end) > s &&
	    (!j || pa_val(bm_rsv.regions[j - 1].end) <= s))
		return j;
	return range_table_first_ending_above(&bm_rsv, pa(s));
}

/*
 * The first address at or above @s no reservation holds (bm_rsv's from
 * region *@j on, moved past them; the carried ranges beside it), and in
 * *@next the start of the first reservation above it (~0ULL: none).
 */
static uint64_t unreserved_from(uint64_t s, unsigned int *j, uint64_t *next)
{
	static struct bm_carried_cur cur;
	uint64_t cs = ~0ULL, ce;

	for (;;) {
		for (;
		     *j < bm_rsv.count && pa_val(bm_rsv.regions[*j].start) <= s;
		     (*j)++)
			s = MAX(s, pa_val(bm_rsv.regions[*j].end));
		if (!bm_carried_after(&cur, s, &cs, &ce)) {
			cs = ~0ULL;
			break;
		}
		if (cs > s)
			break;
		s = ce;
	}
	*next = cs;
	if (*j < bm_rsv.count)
		*next = MIN(cs, pa_val(bm_rsv.regions[*j].start));
	return s;
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

	/* From the first RAM range ending above @pos: a walk is O(n). */
	for (i = range_table_first_ending_above(bm_ram, pa(pos));
	     i < bm_ram->count; i++) {
		uint64_t s, e, next;
		unsigned int j;

		s = MAX(pos, pa_val(bm_ram->regions[i].start));
		e = pa_val(bm_ram->regions[i].end);
		j = rsv_from(s);
		s = unreserved_from(s, &j, &next);
		if (s >= e)
			continue;
		e = MIN(e, next);
		*start = pa(s);
		*end = pa(e);
		*node = bm_ram->regions[i].node;
		*idx = e;
		iter_pos = e;
		iter_rsv = j;
		return true;
	}
	*idx = ~0ULL;
	return false;
}

/**
 * bootmem_free_ranges_at_most() - Return: a bound on the free ranges of
 * @node the iterator gives, without walking them: one per RAM region of
 * the node, and one more per reserved region inside it (each starts at
 * most one). O(RAM regions x log reserved regions).
 */
uint64_t bootmem_free_ranges_at_most(uint32_t node)
{
	uint64_t n = 0;

	for (unsigned int i = 0; i < bm_ram->count; i++) {
		const struct region *r = &bm_ram->regions[i];

		if (r->node != node)
			continue;
		n += 1 + range_table_first_ending_above(&bm_rsv, r->end) -
		     range_table_first_ending_above(&bm_rsv, r->start);
		n += bm_carried_starts_in(pa_val(r->start), pa_val(r->end));
	}
	return n;
}

/**
 * bootmem_region_domain_ranges() - Return: the heap ranges reserved region
 * @r can hold for a domain: 0 unless it is named for one ("preserved",
 * "static-mem"); one, and with a badram= lattice one more per gap it
 * spans: a region merged out of many (more than the table holds) keeps
 * extents apart that the lattice's pages cut (a live update of 128 MiB of
 * 64 KiB extents: 1,828 ranges in 1,024 regions).
 */
uint64_t bootmem_region_domain_ranges(const struct region *r)
{
	uint64_t gap = bm_lattice_gap_bytes();

	if (strcmp(r->name, "preserved") && strcmp(r->name, "static-mem"))
		return 0;
	if (gap == ~0ULL || !gap)
		return 1;
	return 1 + (pa_val(r->end) - pa_val(r->start)) / gap;
}

/**
 * bootmem_domain_ranges() - Return: the heap ranges the reserved regions
 * of @node's RAM named for a domain can hold
 * (bootmem_region_domain_ranges()), whose extents a restore or a static
 * domain adds to the heap's range table one by one. O(RAM regions +
 * reserved regions inside them).
 */
uint64_t bootmem_domain_ranges(uint32_t node)
{
	uint64_t n = 0;

	for (unsigned int i = 0; i < bm_ram->count; i++) {
		const struct region *r = &bm_ram->regions[i];
		unsigned int k =
			range_table_first_ending_above(&bm_rsv, r->start);
		unsigned int e =
			range_table_first_ending_above(&bm_rsv, r->end);

		if (r->node != node)
			continue;
		for (; k < e + 1 && k < bm_rsv.count; k++)
			n += bootmem_region_domain_ranges(&bm_rsv.regions[k]);
	}
	return n;
}

/**
 * bootmem_largest_free() - Return: bytes of the largest free range clear
 * of the lattices (the largest allocation that fits).
 */
uint64_t bootmem_largest_free(void)
{
	uint64_t idx, best = 0;
	paddr_t s, e;
	uint32_t node;

	for_each_free_range (idx, &s, &e, &node)
		if (pa_val(e) - pa_val(s) > best)
			best = MAX(best,
				   bm_lattice_largest(pa_val(s), pa_val(e)));
	return best;
}

/** bootmem_free_at_least() - see bootmem.h. Return: whether one does. */
bool bootmem_free_at_least(uint64_t bytes)
{
	uint64_t idx;
	paddr_t s, e;
	uint32_t node;

	for_each_free_range (idx, &s, &e, &node)
		if (pa_val(e) - pa_val(s) >= bytes &&
		    bm_lattice_largest(pa_val(s), pa_val(e)) >= bytes)
			return true;
	return false;
}

/** bootmem_ram_bytes() - Return: bytes of RAM bootmem knows, reserved or not. */
uint64_t bootmem_ram_bytes(void)
{
	uint64_t sum = 0;

	for (unsigned int i = 0; i < bm_ram->count; i++)
		sum += pa_val(bm_ram->regions[i].end) -
		       pa_val(bm_ram->regions[i].start);
	return sum;
}

/** bootmem_free_bytes() - see bootmem.h. Return: the sum. */
uint64_t bootmem_free_bytes(void)
{
	uint64_t idx, sum = 0;
	paddr_t s, e;
	uint32_t node;

	for_each_free_range (idx, &s, &e, &node)
		sum += pa_val(e) - pa_val(s);
	return sum;
}
