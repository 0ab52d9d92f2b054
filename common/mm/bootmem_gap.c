/* SPDX-License-Identifier: MIT */
/*
 * bootmem_gap_bad(): the one question the heap's handoff asks of bootmem
 * about bad memory (common/mm/heap_defer.c): is a gap between two free
 * ranges made of bad pages only? And bm_bad_over_others(): the bytes a
 * bad range and another reservation both hold are the bad one's. Kept apart from common/mm/bootmem.c so
 * that the storage of the reserved table can change under it: it reads
 * bm_rsv (sorted, disjoint, include/keel/range_table.h), the carried
 * ranges beside it (bootmem_carried.c) and the names of
 * include/keel/badmem.h, nothing else.
 */
#include <keel/badmem.h>
#include <keel/bootmem.h>
#include <keel/range_table.h>
#include <keel/string.h>

#include "bootmem_priv.h"

/*
 * Where the last answer stopped: the handoff asks about the gaps of one
 * walk in address order, and the next gap's first region is the one after
 * (no binary search per gap). Checked before use: a stale one is ignored.
 */
static unsigned int gap_cursor;
static struct bm_carried_cur carried_cur;

/* The first reserved region ending above @s, from the cursor if it fits. */
static unsigned int first_above(uint64_t s)
{
	unsigned int j = gap_cursor;

	if (j < bm_rsv.count && pa_val(bm_rsv.regions[j].end) > s &&
	    (!j || pa_val(bm_rsv.regions[j - 1].end) <= s))
		return j;
	return range_table_first_ending_above(&bm_rsv, pa(s));
}

/*
 * The name of the last region found bad: the next gap's is most often
 * the same (bad pages come from one source), so a compare of its words
 * answers before badmem_region_source()'s walk of the prefixes and keys.
 * The answer is the name's alone, so any name kept here stays right.
 */
_Static_assert(REGION_NAME_MAX % 8 == 0, "a name is compared in words");
static uint64_t last_bad[REGION_NAME_MAX / 8];

static bool region_bad(const struct region *r)
{
	uint64_t w[REGION_NAME_MAX / 8], diff = 0;

	memcpy(w, r->name, sizeof(w));
	for (unsigned int i = 0; i < REGION_NAME_MAX / 8; i++)
		diff |= w[i] ^ last_bad[i];
	if (!diff && w[0]) /* w[0]: a name kept, not the zeros at first */
		return true;
	if (badmem_region_source(r->name) < 0)
		return false;
	memcpy(last_bad, w, sizeof(w));
	return true;
}

/**
 * bootmem_gap_bad() - whether the reservations cover [@s, @e) without a
 * hole, every region of the table among them a bad reservation
 * (badmem_region_source()), the carried ranges beside it bad too: out of
 * service for good, nothing else lives there. The reserved table is
 * disjoint (bm_reserve_range() fills around what is there), so a page
 * another reservation also wanted is in a region of another name (or
 * "merged"), and the answer is false; a carried range under a region of
 * the table is that region's (bootmem_carried.c). An empty gap: false.
 */
bool bootmem_gap_bad(paddr_t s, paddr_t e)
{
	uint64_t pos = pa_val(s), cs, ce;
	unsigned int j;

	if (pos >= pa_val(e))
		return false;
	for (j = first_above(pos); pos < pa_val(e);) {
		const struct region *r = &bm_rsv.regions[j];

		if (j < bm_rsv.count && pa_val(r->start) <= pos) {
			if (!region_bad(r))
				return false;
			pos = pa_val(r->end);
			j++;
			continue;
		}
		if (!bm_carried_after(&carried_cur, pos, &cs, &ce) || cs > pos)
			return false;
		/* The table's regions inside the carried range name theirs. */
		for (pos = ce;
		     j < bm_rsv.count &&
		     pa_val(bm_rsv.regions[j].start) < MIN(ce, pa_val(e));
		     j++) {
			if (!region_bad(&bm_rsv.regions[j]))
				return false;
			if (pa_val(bm_rsv.regions[j].end) > ce)
				break; /* it goes on past: the next look */
		}
	}
	gap_cursor = j;
	return true;
}

/**
 * bm_bad_over_others() - [@s, @e), named @name, loaded over another
 * reservation (x86_64's first MiB, a module, the image): the lower start
 * would name its bytes, and when @name is a bad one the report lost them
 * (badpage=0x8 inside x86_64's first MiB: bad_memory said 0 pages). The
 * bad name takes them: the other's parts of [@s, @e) are cut out first,
 * but a domain's preserved memory's (its bad pages stay its own,
 * docs/liveupdate.md) and another bad range's. A cut that needs a slot
 * the table has not got is left undone: those bytes stay reserved under
 * the other name, as before.
 */
void bm_bad_over_others(uint64_t s, uint64_t e, const char *name)
{
	unsigned int i = range_table_first_ending_above(&bm_rsv, pa(s));

	if (badmem_region_source(name) < 0)
		return;
	while (i < bm_rsv.count && pa_val(bm_rsv.regions[i].start) < e) {
		const struct region *o = &bm_rsv.regions[i];
		uint64_t cs = MAX(s, pa_val(o->start));
		uint64_t ce = MIN(e, pa_val(o->end));

		if (badmem_region_source(o->name) >= 0 ||
		    !strncmp(o->name, "preserved", sizeof(o->name))) {
			i++;
			continue;
		}
		if (range_table_remove(&bm_rsv, pa(cs), pa(ce)))
			return;
		i = range_table_first_ending_above(&bm_rsv, pa(ce));
	}
}
