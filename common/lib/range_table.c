/* SPDX-License-Identifier: MIT */
/*
 * The sorted range table (include/keel/range_table.h): the one
 * implementation behind the byte and page tables (paddr_range_table,
 * pfn_range_table), on raw 64-bit bounds; its users call the typed
 * functions of the header. Sorting, merging, filling gaps (which resolves
 * overlaps: what a region holds stays its), and merging the nearest pair
 * of a full table live here and nowhere else.
 *
 * Invariant: regions [0, count) are sorted by start, each non-empty and
 * none overlapping, so their ends are sorted too and every lookup is a
 * binary search on the ends. Two regions may touch only when same() keeps
 * them apart; the add paths merge every other touching pair. One
 * exception: range_table_sort(), range_table_nearest_pair() and
 * range_table_join_next() also serve a list still being built, whose
 * regions may overlap (bootinfo's reserved ranges when the list is full).
 *
 * @payload, wherever it is taken, is a region of the user's type whose
 * bounds are ignored: what follows them is copied into a new region and
 * handed to same().
 *
 * No allocation and no lock: the user owns the storage and the locking.
 */
#include <keel/compiler.h>
#include <keel/errno.h>
#include <keel/range_table.h>
#include <keel/string.h>

/**
 * range_table_first_ending_above() - the first region ending above @a.
 *
 * Return: its index, or the count when none does.
 */
unsigned int range_table_first_ending_above(const struct range_table *t,
					    uint64_t a)
{
	unsigned int lo = 0, hi = t->count;

	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;

		if (range_at(t, mid)->end <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/**
 * range_table_find() - the region holding address @a.
 *
 * Return: it, or NULL when no region does.
 */
const struct range *range_table_find(const struct range_table *t, uint64_t a)
{
	unsigned int i = range_table_first_ending_above(t, a);

	if (i < t->count && range_at(t, i)->start <= a)
		return range_at(t, i);
	return NULL;
}

static bool may_extend(const struct range_table *t, unsigned int i,
		       const void *payload)
{
	return i < t->count && (!t->same || t->same(range_at(t, i), payload));
}

static void delete_at(struct range_table *t, unsigned int i)
{
	memmove(range_at(t, i), range_at(t, i + 1),
		(size_t)(t->count - i - 1) * t->size);
	t->count--;
}

/*
 * [s, e) is free of regions and @i is the first region above it: extend
 * the region below or the one above when same() allows (joining the two
 * when [s, e) closes the gap between them), else insert a new region.
 * Return: 0, or -ENOSPC when a new region was needed and the table is full.
 */
static int place(struct range_table *t, unsigned int i, uint64_t s, uint64_t e,
		 const void *payload)
{
	struct range *r;

	if (i > 0 && range_at(t, i - 1)->end == s &&
	    may_extend(t, i - 1, payload)) {
		r = range_at(t, i - 1);
		r->end = e;
		if (i < t->count && range_at(t, i)->start == e &&
		    may_extend(t, i, payload)) {
			r->end = range_at(t, i)->end;
			delete_at(t, i);
		}
		return 0;
	}
	if (i < t->count && range_at(t, i)->start == e &&
	    may_extend(t, i, payload)) {
		range_at(t, i)->start = s;
		return 0;
	}
	if (t->count == t->cap)
		return -ENOSPC;
	r = range_at(t, i);
	memmove(range_at(t, i + 1), r, (size_t)(t->count - i) * t->size);
	memcpy(r, payload, t->size);
	r->start = s;
	r->end = e;
	t->count++;
	return 0;
}

/**
 * range_table_add() - add [@start, @end) with @payload, merged with the
 * touching regions same() allows.
 *
 * Return: 0, -EINVAL (empty, or overlapping a region) or -ENOSPC (full).
 */
int range_table_add(struct range_table *t, uint64_t start, uint64_t end,
		    const void *payload)
{
	unsigned int i = range_table_first_ending_above(t, start);

	if (end <= start || (i < t->count && range_at(t, i)->start < end))
		return -EINVAL;
	return place(t, i, start, end, payload);
}

/**
 * range_table_fill() - cover [@start, @end) with @payload where no region
 * does yet: what is covered keeps its region, each gap is added (and
 * merged as range_table_add() would).
 *
 * Return: 0, or -ENOSPC when a gap found the table full; the gaps below it
 * are filled, so calling again once there is room carries on.
 */
int range_table_fill(struct range_table *t, uint64_t start, uint64_t end,
		     const void *payload)
{
	uint64_t s = start;

	while (s < end) {
		unsigned int i = range_table_first_ending_above(t, s);
		uint64_t piece_end = end;
		int err;

		if (i < t->count && range_at(t, i)->start <= s) {
			s = range_at(t, i)->end;
			continue;
		}
		if (i < t->count && range_at(t, i)->start < end)
			piece_end = range_at(t, i)->start;
		err = place(t, i, s, piece_end, payload);
		if (err)
			return err;
		s = piece_end;
	}
	return 0;
}

/**
 * range_table_remove() - take [@start, @end) out of the table: regions
 * inside it go, regions across its edges are cut, and a region holding all
 * of it is split in two (both halves keep the payload).
 *
 * Return: 0, or -ENOSPC when a split needs a slot and the table is full
 * (then nothing is changed).
 */
int range_table_remove(struct range_table *t, uint64_t start, uint64_t end)
{
	unsigned int i = range_table_first_ending_above(t, start);
	struct range *r;

	if (end <= start)
		return 0;
	if (i < t->count && range_at(t, i)->start < start &&
	    range_at(t, i)->end > end) {
		if (t->count == t->cap)
			return -ENOSPC;
		r = range_at(t, i);
		memmove(range_at(t, i + 1), r,
			(size_t)(t->count - i) * t->size);
		t->count++;
		r->end = start;
		range_at(t, i + 1)->start = end;
		return 0;
	}
	while (i < t->count && range_at(t, i)->start < end) {
		r = range_at(t, i);
		if (r->start < start) {
			r->end = start;
			i++;
		} else if (r->end > end) {
			r->start = end;
			i++;
		} else {
			delete_at(t, i);
		}
	}
	return 0;
}

/**
 * range_table_first_gap() - the lowest piece of [@start, @end) that no
 * region covers (where a range_table_fill() that failed stopped).
 *
 * Return: true with it in [*@gap_start, *@gap_end), false when the
 * regions cover all of [@start, @end).
 */
bool range_table_first_gap(const struct range_table *t, uint64_t start,
			   uint64_t end, uint64_t *gap_start, uint64_t *gap_end)
{
	unsigned int i = range_table_first_ending_above(t, start);
	uint64_t s = start;

	while (s < end) {
		if (i < t->count && range_at(t, i)->start <= s) {
			s = range_at(t, i++)->end;
			continue;
		}
		*gap_start = s;
		*gap_end = i < t->count && range_at(t, i)->start < end
				   ? range_at(t, i)->start
				   : end;
		return true;
	}
	return false;
}

static int cmp_start(const void *a, const void *b)
{
	uint64_t x = ((const struct range *)a)->start;
	uint64_t y = ((const struct range *)b)->start;

	return (x > y) - (x < y);
}

/**
 * range_table_sort() - sort the regions by start: the first step of a
 * table still being built, whose regions were appended in the firmware's
 * order and may overlap (bootinfo's reserved ranges), before
 * range_table_nearest_pair() can serve it. A table kept by the add paths
 * is sorted already.
 */
void range_table_sort(struct range_table *t)
{
	sort(t->regions, t->count, t->size, cmp_start);
}

/**
 * range_table_nearest_pair() - the neighbours with the smallest gap between
 * them (the lowest such pair on a tie), for a full table that must make
 * room. At least two regions, sorted by start. Overlapping neighbours
 * (a sorted table still being built) have gap 0: the gap is measured from
 * the furthest end below, so it is the bytes that joining them adds.
 *
 * Return: the index of the lower one; the gap in *@gap.
 */
unsigned int range_table_nearest_pair(const struct range_table *t,
				      uint64_t *gap)
{
	unsigned int best = 0;
	uint64_t best_gap = ~0ULL, reach = 0;

	CHECK(t->count >= 2);
	for (unsigned int i = 0; i + 1 < t->count; i++) {
		uint64_t next = range_at(t, i + 1)->start, g;

		reach = MAX(reach, range_at(t, i)->end);
		g = next > reach ? next - reach : 0;
		if (g < best_gap) {
			best_gap = g;
			best = i;
		}
	}
	*gap = best_gap;
	return best;
}

/**
 * range_table_join_next() - region @i grows over the gap and region @i + 1,
 * which goes; @i keeps its payload (and the larger end, should @i + 1 lie
 * inside it in a table still being built).
 */
void range_table_join_next(struct range_table *t, unsigned int i)
{
	CHECK(i + 1 < t->count);
	range_at(t, i)->end = MAX(range_at(t, i)->end, range_at(t, i + 1)->end);
	delete_at(t, i + 1);
}

/**
 * range_table_grow() - move the table to @store of @cap regions, when that
 * is larger (storage the user keeps for good).
 *
 * Return: whether it moved.
 */
bool range_table_grow(struct range_table *t, void *store, unsigned int cap)
{
	if (cap <= t->cap)
		return false;
	memcpy(store, t->regions, (size_t)t->count * t->size);
	t->regions = store;
	t->cap = cap;
	return true;
}
