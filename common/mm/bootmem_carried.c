// SPDX-License-Identifier: MIT
/*
 * A live update's carried bad ranges beside bootmem's reserved table,
 * read where they lie (the handover's records: each sorted, page
 * aligned, all apart, inside RAM; struct bootinfo's @carried) until they
 * join the table (bootmem_join_carried()).
 *
 * Why: 100,000 bad pages the old image took out would be 100,000 named
 * regions of 48 bytes written into the table in the update's downtime,
 * and every allocation of the downtime that lands among them would move
 * half the table. Until the join, bootmem's walks (the free ranges, the
 * allocations' top-down fits, the gaps the heap asks about) read the
 * records beside the table, a binary search or a cursor step a look. The
 * join (bm_carried_join_into(), asked by bootmem.c's
 * bootmem_join_carried() after the domains are restored, or by the first
 * reader of the whole table) writes them in once. This file reads only
 * the records and the table it is given: bootmem's files call it, it
 * calls none of them.
 *
 * Where a carried range and a region of the table hold the same bytes,
 * the table's region names them (a bad page inside a domain's preserved
 * memory stays the domain's, as the handover says; mem= above one keeps
 * it as "mem="): the walks answer alike before and after the join.
 *
 * No lock: the boot CPU, before the APs run.
 */
#include <keel/bootinfo.h>
#include <keel/compiler.h>
#include <keel/handover.h>
#include <keel/range_table.h>
#include <keel/string.h>

#include "bootmem_priv.h"

const struct bootinfo *bm_carried;

/*
 * Each record's first range starting at or above the last @top asked
 * downward (the top-down walks). Checked before use; a walk in order
 * moves it a step.
 */
static unsigned int back[HANDOVER_BAD_RECS_MAX];

void bm_carried_set(const struct bootinfo *bi)
{
	bm_carried = bi && bi->carried && bi->handover.bad_recs ? bi : NULL;
	memset(back, 0, sizeof(back));
}

static struct handover_range rec_range(unsigned int j, unsigned int i)
{
	return handover_bad_range(&bm_carried->handover.bad[j], i);
}

/*
 * Record @j's first range ending above @pos: from @c's hint when it is
 * there or a step on (a walk in address order), else O(log).
 */
static unsigned int first_ending_above(struct bm_carried_cur *c, unsigned int j,
				       uint64_t pos)
{
	unsigned int n = bm_carried->handover.bad[j].count;
	unsigned int i = MIN(c->at[j], n);

	for (unsigned int step = 0; step < 2 && i < n; step++) {
		if (i && rec_range(j, i - 1).end > pos)
			break;
		if (rec_range(j, i).end > pos)
			return c->at[j] = i;
		i++;
	}
	if (i == n && (!n || rec_range(j, n - 1).end <= pos))
		return c->at[j] = n;
	return c->at[j] = handover_bad_bound(&bm_carried->handover.bad[j], pos,
					     true);
}

/* Record @j's first range starting at or above @top: as above. */
static unsigned int first_starting_at(unsigned int j, uint64_t top)
{
	unsigned int n = bm_carried->handover.bad[j].count;
	unsigned int i = back[j];

	for (unsigned int step = 0; step < 2 && i <= n; step++) {
		if (i < n && rec_range(j, i).start < top)
			break;
		if (!i || rec_range(j, i - 1).start < top)
			return i;
		i--;
	}
	return back[j] = handover_bad_bound(&bm_carried->handover.bad[j], top,
					    false);
}

/**
 * bm_carried_after() - the carried range that covers @pos or comes first
 * above it, in *@s, *@e; @c: the caller's walk's hints.
 * Return: whether there is one.
 */
bool bm_carried_after(struct bm_carried_cur *c, uint64_t pos, uint64_t *s,
		      uint64_t *e)
{
	bool any = false;

	for (unsigned int j = 0;
	     bm_carried && j < bm_carried->handover.bad_recs; j++) {
		unsigned int i = first_ending_above(c, j, pos);
		struct handover_range r;

		if (i == bm_carried->handover.bad[j].count)
			continue;
		r = rec_range(j, i);
		if (!any || r.start < *s) {
			*s = r.start;
			*e = r.end;
			any = true;
		}
	}
	return any;
}

/**
 * bm_carried_below() - the carried range of the highest start below @top
 * (the records are apart: it also ends highest), in *@s, *@e.
 * Return: whether there is one.
 */
bool bm_carried_below(uint64_t top, uint64_t *s, uint64_t *e)
{
	bool any = false;

	for (unsigned int j = 0;
	     bm_carried && j < bm_carried->handover.bad_recs; j++) {
		unsigned int i = first_starting_at(j, top);
		struct handover_range r;

		back[j] = i;
		if (!i)
			continue;
		r = rec_range(j, i - 1);
		if (!any || r.start > *s) {
			*s = r.start;
			*e = r.end;
			any = true;
		}
	}
	return any;
}

/** bm_carried_starts_in() - Return: carried ranges starting in [@s, @e). */
uint64_t bm_carried_starts_in(uint64_t s, uint64_t e)
{
	uint64_t n = 0;

	for (unsigned int j = 0;
	     bm_carried && j < bm_carried->handover.bad_recs; j++)
		n += first_starting_at(j, e) - first_starting_at(j, s);
	return n;
}

/*
 * The join's output, in @t's store from its first slot (@w: whether to
 * write it, or only count): @r after the last written, or into it when
 * it touches it under the same name (@t's @same).
 */
struct join {
	struct range_table *t;
	unsigned int src, lim; /* the table's next region to read, its end */
	unsigned int out;      /* regions written (or counted) */
	unsigned int carried;  /* of them, carried pieces */
	uint64_t covered;      /* the highest end of the table's read so far */
	bool w;
};

static void put(struct join *j, const struct region *r)
{
	struct region *last = j->out ? &j->t->regions[j->out - 1] : NULL;

	if (j->w && last && pa_val(last->end) == pa_val(r->start) &&
	    j->t->same(last, r)) {
		last->end = r->end;
		return;
	}
	if (j->w)
		j->t->regions[j->out] = *r;
	j->out++;
}

/*
 * Carried range [@pos, @end) under @name's name, less what the table's
 * regions hold (they name those bytes), into the output; the table's
 * regions starting at or below each piece go out first.
 */
static void join_one(struct join *j, uint64_t pos, uint64_t end,
		     struct region *name)
{
	const struct region *R = j->t->regions;

	while (pos < end) {
		for (; j->src < j->lim && pa_val(R[j->src].start) <= pos;
		     j->src++) {
			j->covered = MAX(j->covered, pa_val(R[j->src].end));
			put(j, &R[j->src]);
		}
		if (j->covered > pos) {
			pos = j->covered;
			continue;
		}
		name->start = pa(pos);
		name->end = pa(end);
		if (j->src < j->lim && pa_val(R[j->src].start) < end)
			name->end = R[j->src].start;
		put(j, name);
		j->carried++;
		pos = pa_val(name->end);
	}
}

/* The merge of @t from @first with the carried ranges. */
static void join_walk(struct join *j, struct range_table *t, unsigned int first,
		      bool w)
{
	struct bm_list l;
	const struct region *c;

	*j = (struct join){
		.t = t, .src = first, .lim = first + t->count, .w = w};
	bm_list_carried(&l, bm_carried);
	while ((c = bm_list_next(&l))) {
		struct region name = *c;

		join_one(j, pa_val(c->start), pa_val(c->end), &name);
	}
	for (; j->src < j->lim; j->src++)
		put(j, &t->regions[j->src]);
}

/**
 * bm_carried_join_into() - the carried ranges merged into @t (sorted,
 * disjoint) in place: its n regions moved to the top of its store, then
 * merged with the ranges from the bottom up. The output never reaches a
 * region not read yet while the carried pieces are fewer than the free
 * slots: counted first, by the same walk without a write.
 * Return: false (@t untouched) when they are not.
 */
bool bm_carried_join_into(struct range_table *t)
{
	unsigned int n = t->count, top = t->cap - n;
	struct join j;

	join_walk(&j, t, 0, false);
	if (j.carried >= top)
		return false;
	memmove(&t->regions[top], t->regions, n * sizeof(*t->regions));
	join_walk(&j, t, top, true);
	t->count = j.out;
	return true;
}
