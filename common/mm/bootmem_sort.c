// SPDX-License-Identifier: MIT
/*
 * bootmem's sort of a long reserved list in few sorted runs
 * (bm_sort_few_runs(), from bootmem_init_from_bootinfo()), in a file of
 * its own to keep bootmem.c's size. No lock: the boot CPU, before the
 * APs run.
 */
#include <keel/compiler.h>
#include <keel/range_table.h>
#include <keel/string.h>

#include "bootmem_priv.h"

/*
 * A list of many ranges in few sorted runs (a live update's new image:
 * the firmware's 100,000 bad pages, then the handover's preserved ranges)
 * sorted in O(n): the longest run stays, the few others (at most
 * SORT_SIDE_MAX: the image stays small) are sorted aside and merged in from the top down. Equal
 * starts keep the list's order (the first given names the bytes, as
 * docs/liveupdate.md says of the handover's bad pages after its preserved
 * ranges). Any other list: the full sort. Return: whether it was merged.
 */
#define SORT_SIDE_MAX 64
static struct {
	struct region r;
	bool before; /* it was before the run in the list */
} sort_side[SORT_SIDE_MAX];

/* Insertion sort of the side by start: stable, and at most 64 of them. */
static void sort_side_stable(unsigned int n)
{
	for (unsigned int i = 1; i < n; i++) {
		typeof(sort_side[0]) x = sort_side[i];
		unsigned int j = i;

		for (;
		     j && pa_val(sort_side[j - 1].r.start) > pa_val(x.r.start);
		     j--)
			sort_side[j] = sort_side[j - 1];
		sort_side[j] = x;
	}
}

/* Does side element @k go before run element @r in the merged list? */
static bool side_first(unsigned int k, const struct region *r)
{
	uint64_t a = pa_val(sort_side[k].r.start), b = pa_val(r->start);

	return a < b || (a == b && sort_side[k].before);
}

bool bm_sort_few_runs(struct range_table *t)
{
	struct region *r = t->regions;
	unsigned int a = 0, len = 0, side = 0, run, i, k, out;

	for (i = 0, run = 0; i < t->count; i++) {
		if (i && pa_val(r[i].start) < pa_val(r[i - 1].start))
			run = i;
		if (i + 1 - run > len) {
			a = run;
			len = i + 1 - run;
		}
	}
	if (t->count - len > SORT_SIDE_MAX)
		return false;
	for (i = 0; i < t->count; i++) {
		if (i >= a && i < a + len)
			continue;
		sort_side[side].r = r[i];
		sort_side[side++].before = i < a;
	}
	if (!side)
		return true; /* one run: sorted as it is */
	sort_side_stable(side);
	memmove(r, r + a, (size_t)len * sizeof(*r));
	for (i = len, k = side, out = t->count; k;) {
		if (i && side_first(k - 1, &r[i - 1]))
			r[--out] = r[--i];
		else
			r[--out] = sort_side[--k].r;
	}
	return true;
}

/**
 * bm_runs_init() - @t's list cut where a start goes down: its sorted runs.
 * Return: false when it has more than BM_RUNS_MAX (@it unusable then).
 */
bool bm_runs_init(struct bm_runs *it, const struct range_table *t)
{
	const struct region *r = t->regions;

	it->r = r;
	it->picked = false;
	it->k = t->count ? 1 : 0;
	it->at[0] = 0;
	for (unsigned int i = 1; i < t->count; i++) {
		if (pa_val(r[i].start) >= pa_val(r[i - 1].start))
			continue;
		if (it->k == BM_RUNS_MAX)
			return false;
		it->end[it->k - 1] = i;
		it->at[it->k++] = i;
	}
	if (it->k)
		it->end[it->k - 1] = t->count;
	return true;
}

/*
 * The run whose head has the lowest start (equal starts: the earlier
 * run's, the list's order), and the bound its next regions may reach and
 * still come first: the lowest head start of the other runs (reached too
 * by a run after it, not by one before). Return: false when all are taken.
 */
static bool runs_pick(struct bm_runs *it)
{
	unsigned int best = BM_RUNS_MAX;
	uint64_t bs = 0;

	for (unsigned int j = 0; j < it->k; j++) {
		uint64_t s;

		if (it->at[j] == it->end[j])
			continue;
		s = pa_val(it->r[it->at[j]].start);
		if (best == BM_RUNS_MAX || s < bs) {
			best = j;
			bs = s;
		}
	}
	if (best == BM_RUNS_MAX)
		return false;
	it->next = best;
	it->lim = UINT64_MAX;
	it->lim_le = true;
	for (unsigned int j = 0; j < it->k; j++) {
		uint64_t s;

		if (j == best || it->at[j] == it->end[j])
			continue;
		s = pa_val(it->r[it->at[j]].start);
		if (s < it->lim || (s == it->lim && j < best)) {
			it->lim = s;
			it->lim_le = j > best;
		}
	}
	return true;
}

/**
 * bm_runs_next() - the region of lowest start not yet taken (equal
 * starts: the earlier run's). O(1) while one run stays below the others'
 * heads (the long run of bad pages), O(k) when the run changes.
 * Return: it, or NULL when every run is taken.
 */
const struct region *bm_runs_next(struct bm_runs *it)
{
	unsigned int j = it->next;

	if (it->picked && it->at[j] < it->end[j]) {
		uint64_t s = pa_val(it->r[it->at[j]].start);

		if (s < it->lim || (it->lim_le && s == it->lim))
			return &it->r[it->at[j]++];
	}
	if (!runs_pick(it))
		return NULL;
	it->picked = true;
	return &it->r[it->at[it->next]++];
}
