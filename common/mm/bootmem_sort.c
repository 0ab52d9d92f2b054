// SPDX-License-Identifier: MIT
/*
 * bootmem's sort of a long reserved list in few sorted runs
 * (bm_sort_few_runs(), from bootmem_init_from_bootinfo()), its merge of
 * sorted runs (bm_runs_*) and its reader of the reservations to load,
 * bootinfo's and a handover's carried bad ranges in place (bm_list_*), in
 * a file of its own to keep bootmem.c's size. No lock: the boot CPU, before the
 * APs run.
 */
#include <keel/badmem.h>
#include <keel/compiler.h>
#include <keel/handover.h>
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
	it->ends_sorted = true;
	for (unsigned int i = 1; i < t->count; i++) {
		if (pa_val(r[i].start) >= pa_val(r[i - 1].start)) {
			if (pa_val(r[i].end) < pa_val(r[i - 1].end))
				it->ends_sorted = false;
			continue;
		}
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

/*
 * The carried range of lowest start not yet given, in *@out (records are
 * apart: no two start alike). Return: its record, or -1 when none is left.
 */
static int carried_pick(const struct bm_list *l, struct handover_range *out)
{
	const struct bi_handover *h = &l->bi->handover;
	int best = -1;

	if (!l->bi->carried)
		return -1;
	for (unsigned int j = 0; j < h->bad_recs; j++) {
		struct handover_range r;

		if (l->at[j] == h->bad[j].count)
			continue;
		r = handover_bad_range(&h->bad[j], l->at[j]);
		if (best < 0 || r.start < out->start) {
			*out = r;
			best = (int)j;
		}
	}
	return best;
}

/*
 * Record @j's next range @r, as a region under the record's name; the
 * next carried range picked (@l->ch, @l->crec: one pick a range).
 */
static const struct region *carried_take(struct bm_list *l, int j,
					 struct handover_range r)
{
	struct region *n = &l->named[j];

	n->start = pa(r.start);
	n->end = pa(r.end);
	l->at[j]++;
	l->crec = carried_pick(l, &l->ch);
	return n;
}

/**
 * bm_list_init() - @l reads @bi's reservations and its carried ranges
 * (see bootmem_priv.h), from the first.
 * Return: false when @sorted and @bi's list has more than BM_RUNS_MAX
 * sorted runs (@l unusable then).
 */
bool bm_list_init(struct bm_list *l, const struct bootinfo *bi, bool sorted)
{
	const struct bi_handover *h = &bi->handover;

	l->bi = bi;
	l->sorted = sorted;
	l->i = 0;
	l->head = NULL;
	l->carried_at = bi->reserved.count;
	if (bi->carried && bi->carried_at < bi->reserved.count)
		l->carried_at = bi->carried_at;
	for (unsigned int j = 0; bi->carried && j < h->bad_recs; j++) {
		enum badmem_source src =
			(enum badmem_source)handover_bad_source(&h->bad[j]);

		l->at[j] = 0;
		memset(&l->named[j], 0, sizeof(l->named[j]));
		/* The name once a record, not once a range. */
		strlcpy(l->named[j].name, badmem_carried_name(src),
			sizeof(l->named[j].name));
	}
	l->ch = (struct handover_range){0, 0};
	l->crec = carried_pick(l, &l->ch);
	if (!sorted)
		return true;
	if (!bm_runs_init(&l->runs, &bi->reserved))
		return false;
	l->head = bm_runs_next(&l->runs);
	return true;
}

/**
 * bm_list_carried() - @l reads only @bi's carried ranges, in address
 * order (bootmem_join_carried(): bootinfo's list is in the table already).
 */
void bm_list_carried(struct bm_list *l, const struct bootinfo *bi)
{
	bm_list_init(l, bi, false);
	l->sorted = true; /* no head: the records merged, nothing else */
}

/**
 * bm_list_next() - the next reservation of @l: bootinfo's (a pointer into
 * its list) or a carried one (@l's, until the next call).
 * Return: it, or NULL when all are given.
 */
const struct region *bm_list_next(struct bm_list *l)
{
	const struct region *r = l->head, *base = l->bi->reserved.regions;
	struct handover_range c = l->ch;
	int j = l->crec;

	if (!l->sorted) {
		if (l->i == l->carried_at && j >= 0)
			return carried_take(l, j, c);
		return l->i < l->bi->reserved.count ? &base[l->i++] : NULL;
	}
	if (r && (j < 0 || pa_val(r->start) < c.start ||
		  (pa_val(r->start) == c.start &&
		   (unsigned int)(r - base) < l->carried_at))) {
		l->head = bm_runs_next(&l->runs);
		return r;
	}
	return j < 0 ? NULL : carried_take(l, j, c);
}
