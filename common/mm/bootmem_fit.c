/* SPDX-License-Identifier: MIT */
/*
 * Where bootmem's reserved table starts (bootmem.c, bootmem_init_from_
 * bootinfo()): a place for its store before the table exists, fitted
 * beside the firmware's list of reservations as it stands (in a few sorted
 * runs: bm_runs, bootmem_sort.c) or clear of a range being filled. Kept
 * apart from the allocations' walks (bootmem_alloc.c), which read the
 * table once it is there.
 *
 * Lock: none. bootmem runs on the boot CPU before the APs do any work.
 */
#include <keel/bootinfo.h>
#include <keel/bootmem.h>
#include <keel/compiler.h>
#include <keel/handover.h>
#include <keel/range_table.h>
#include <keel/string.h>

#include "bootmem_priv.h"

/*
 * Of run @k of @runs, the last range starting below @t (whole pages), or
 * NULL: by a binary search.
 */
static const struct region *run_last_below(const struct bm_runs *runs,
					   unsigned int k, uint64_t t)
{
	unsigned int lo = runs->at[k], hi = runs->end[k];

	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;

		if (ALIGN_DOWN(pa_val(runs->r[mid].start), PAGE_SIZE) < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo > runs->at[k] ? &runs->r[lo - 1] : NULL;
}

/*
 * Whether one of @bi's reservations (whole pages) overlaps [@c, @t), and
 * the highest start among those that do in *@top: the list's by a look
 * at each (a short list) or, @runs given (its runs' ends sorted), by a
 * binary search in each run (the last range starting below @t reaches
 * furthest of those before it); the carried ones by a binary search in
 * each record (sorted, apart: the last one starting below @t). A taken
 * handover's frame table placement is in the way too: bootmem's own
 * table, placed before the frame table, leaves it to the frame table
 * (frametable_init() puts the same storage there).
 */
static bool in_way(const struct bootinfo *bi, const struct bm_runs *runs,
		   uint64_t c, uint64_t t, uint64_t *top)
{
	const struct bi_handover *h = &bi->handover;
	uint64_t ls, le;
	bool any = false;

	for (unsigned int i = 0; !runs && i < bi->reserved.count; i++) {
		const struct region *r = &bi->reserved.regions[i];
		uint64_t s = ALIGN_DOWN(pa_val(r->start), PAGE_SIZE);

		if (s < t && ALIGN_UP(pa_val(r->end), PAGE_SIZE) > c) {
			*top = any ? MAX(*top, s) : s;
			any = true;
		}
	}
	for (unsigned int k = 0; runs && k < runs->k; k++) {
		const struct region *r = run_last_below(runs, k, t);
		uint64_t s;

		if (!r || ALIGN_UP(pa_val(r->end), PAGE_SIZE) <= c)
			continue;
		s = ALIGN_DOWN(pa_val(r->start), PAGE_SIZE);
		*top = any ? MAX(*top, s) : s;
		any = true;
	}
	for (unsigned int k = 0; h->state == HANDOVER_TAKEN && k < h->ft_count;
	     k++) {
		struct handover_ft_piece f = handover_ft_piece(h, k);

		if (f.start < t && f.end > c) {
			*top = any ? MAX(*top, f.start) : f.start;
			any = true;
		}
	}
	if (bm_lattice_below(t, &ls, &le) && le > c) {
		*top = any ? MAX(*top, ls) : ls;
		any = true;
	}
	for (unsigned int j = 0; bi->carried && j < h->bad_recs; j++) {
		/* The first range starting at @t or above. */
		unsigned int lo = handover_bad_bound(&h->bad[j], t, false);
		struct handover_range r;

		if (!lo)
			continue;
		r = handover_bad_range(&h->bad[j], lo - 1);
		if (r.end > c) {
			*top = any ? MAX(*top, r.start) : r.start;
			any = true;
		}
	}
	return any;
}

/*
 * bm_fit_outside_list() without reading the whole list: from the top of
 * RAM down, the candidate moved below the highest reservation in its way,
 * a few steps at most (100,000 bad pages a few MiB apart, carried or the
 * firmware's, leave room for a table of a few MiB near the top): the
 * same place the walk finds, the highest. A long list is looked into by
 * a binary search a run (one read of it cuts it into runs), when its
 * runs' ends are sorted. Return: 1 (found, in *@out), 0 (none), -1: the
 * walk decides (a long list in many runs, or too many steps).
 */
#define NEAR_TOP_LIST  64
#define NEAR_TOP_STEPS 128
static int fit_near_top(const struct bootinfo *bi, uint64_t bytes,
			uint64_t *out)
{
	struct bm_runs runs;
	const struct bm_runs *by_runs = NULL;
	unsigned int steps = 0;

	if (bi->reserved.count > NEAR_TOP_LIST) {
		if (!bm_runs_init(&runs, &bi->reserved) || !runs.ends_sorted)
			return -1;
		by_runs = &runs;
	}
	for (unsigned int i = bm_ram->count; i--;) {
		uint64_t rs = pa_val(bm_ram->regions[i].start);
		uint64_t t = pa_val(bm_ram->regions[i].end), s;

		while (t - rs >= bytes) {
			if (++steps > NEAR_TOP_STEPS)
				return -1;
			if (!in_way(bi, by_runs, t - bytes, t, &s)) {
				*out = t - bytes;
				return 1;
			}
			t = MAX(s, rs);
		}
	}
	return 0;
}

/*
 * The highest page-aligned place for @bytes in RAM clear of every
 * reservation of @bi, its list in at most BM_RUNS_MAX sorted runs (its
 * ranges may overlap) and its carried ranges, read in address order
 * (bm_list_next()): one walk beside the RAM table, O(RAM + list x runs).
 * Return: false when none, or when its list has more runs (the caller
 * takes the slower way).
 */
bool bm_fit_outside_list(const struct bootinfo *bi, uint64_t bytes,
			 uint64_t *out)
{
	const struct region *v;
	struct bm_list it;
	uint64_t at;
	bool found = false;
	int near_top = fit_near_top(bi, bytes, out);

	if (near_top >= 0)
		return near_top;
	if (!bm_list_init(&it, bi, true))
		return false;
	v = bm_list_next(&it);
	for (unsigned int i = 0; i < bm_ram->count; i++) {
		uint64_t cur = pa_val(bm_ram->regions[i].start);
		uint64_t re = pa_val(bm_ram->regions[i].end);

		/* @v is read again by the next RAM region when it reaches it. */
		for (; v && pa_val(v->start) < re; v = bm_list_next(&it)) {
			uint64_t s = ALIGN_DOWN(pa_val(v->start), PAGE_SIZE);
			uint64_t e = ALIGN_UP(pa_val(v->end), PAGE_SIZE);

			if (s > cur && bm_lattice_top(cur, s, bytes, &at)) {
				*out = at;
				found = true;
			}
			cur = MAX(cur, e);
			if (e > re)
				break; /* it reaches the next RAM region too */
		}
		if (cur < re && bm_lattice_top(cur, re, bytes, &at)) {
			*out = at;
			found = true;
		}
	}
	return found;
}

/*
 * The highest page-aligned place for @bytes in free RAM clear of
 * [@avoid_s, @avoid_e) (the range being reserved) and of the lattices.
 * Return: whether any.
 */
bool bm_fit_clear_of(uint64_t bytes, uint64_t avoid_s, uint64_t avoid_e,
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
			uint64_t ps = piece[k][0], pe = piece[k][1], at;

			if (pe <= ps || !bm_lattice_top(ps, pe, bytes, &at))
				continue;
			if (!found || at > best)
				best = at;
			found = true;
		}
	}
	*out = best;
	return found;
}
