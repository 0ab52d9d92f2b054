/* SPDX-License-Identifier: MIT */
/*
 * The range table (include/keel/range_table.h): the one implementation
 * of sorting, merging, filling gaps (which resolves overlaps: what a
 * region holds stays its), splitting, merging the nearest pair of a full
 * table and growing it, over struct region.
 *
 * Invariant: regions [0, count) are sorted by start, each non-empty and
 * none overlapping, so their ends are sorted too and every lookup is a
 * binary search on the ends. Two regions may touch only when same() keeps
 * them apart; the add paths merge every other touching pair. One
 * exception: range_table_append(), range_table_sort(),
 * range_table_nearest_pair() and range_table_join_next() also serve a list
 * still being built, whose regions may overlap (bootinfo's reserved
 * ranges).
 *
 * @payload, wherever it is taken, is a region whose bounds are ignored:
 * its node, flags and name go into a new region and are handed to
 * same(); NULL is a region of zeros.
 *
 * Growth: an add that finds the table full first doubles it
 * (range_table_double(): storage from the user's grow(), the regions
 * copied over, the old storage left to its owner), up to max regions.
 *
 * No lock: the user owns the storage and the locking.
 */
#include <keel/compiler.h>
#include <keel/errno.h>
#include <keel/range_table.h>
#include <keel/string.h>

static const struct region zero_payload;

/**
 * regions_first_ending_above() - of @count sorted, disjoint regions @r (a
 * table's, or one a reader was handed: bootmem_reserved_regions()), the
 * first ending above @a. O(log count).
 *
 * Return: its index, or @count when none does.
 */
unsigned int regions_first_ending_above(const struct region *r,
					unsigned int count, paddr_t a)
{
	unsigned int lo = 0, hi = count;

	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;

		if (pa_val(r[mid].end) <= pa_val(a))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/**
 * range_table_first_ending_above() - the first region ending above @a.
 *
 * Return: its index, or the count when none does.
 */
unsigned int range_table_first_ending_above(const struct range_table *t,
					    paddr_t a)
{
	return regions_first_ending_above(t->regions, t->count, a);
}

/**
 * range_table_find() - the region holding address @a.
 *
 * Return: it, or NULL when no region does.
 */
const struct region *range_table_find(const struct range_table *t, paddr_t a)
{
	unsigned int i = range_table_first_ending_above(t, a);

	if (i < t->count && pa_val(t->regions[i].start) <= pa_val(a))
		return &t->regions[i];
	return NULL;
}

/**
 * range_table_move() - move the regions to @store of @cap slots, when
 * that is larger. The old storage is the caller's to keep or drop.
 *
 * Return: whether it moved.
 */
bool range_table_move(struct range_table *t, struct region *store,
		      unsigned int cap)
{
	if (cap <= t->cap || !store)
		return false;
	if (store != t->regions)
		memcpy(store, t->regions, (size_t)t->count * sizeof(*store));
	t->regions = store;
	t->cap = cap;
	return true;
}

/**
 * range_table_double() - make room for one more region: twice the slots
 * (at most max) from grow(), as memblock_double_array() does.
 *
 * Return: false when the table is at its limit or grow() had no storage.
 */
bool range_table_double(struct range_table *t)
{
	unsigned int cap;

	if (!t->grow || t->cap >= t->max)
		return false;
	cap = t->cap > t->max / 2 ? t->max : MAX(t->cap * 2, 8u);
	return range_table_move(t, t->grow(t, cap), cap);
}

/* A free slot: the table has one, or doubled to make one. */
static bool has_slot(struct range_table *t)
{
	return t->count < t->cap || range_table_double(t);
}

static bool may_extend(const struct range_table *t, unsigned int i,
		       const struct region *payload)
{
	return i < t->count && (!t->same || t->same(&t->regions[i], payload));
}

/**
 * range_table_delete() - region @i goes; the ones above move down.
 */
void range_table_delete(struct range_table *t, unsigned int i)
{
	CHECK(i < t->count);
	memmove(&t->regions[i], &t->regions[i + 1],
		(size_t)(t->count - i - 1) * sizeof(t->regions[0]));
	t->count--;
}

/* Open slot @i (has_slot() said there is one): the regions above move up. */
static struct region *open_slot(struct range_table *t, unsigned int i)
{
	memmove(&t->regions[i + 1], &t->regions[i],
		(size_t)(t->count - i) * sizeof(t->regions[0]));
	t->count++;
	return &t->regions[i];
}

/*
 * [s, e) is free of regions and @i is the first region above it: extend
 * the region below or the one above when same() allows (joining the two
 * when [s, e) closes the gap between them), else insert a new region.
 * Return: 0, or -ENOSPC when a new region was needed and the table is full
 * (and could not grow).
 */
static int place(struct range_table *t, unsigned int i, uint64_t s, uint64_t e,
		 const struct region *payload)
{
	struct region *r;

	if (i > 0 && pa_val(t->regions[i - 1].end) == s &&
	    may_extend(t, i - 1, payload)) {
		r = &t->regions[i - 1];
		r->end = pa(e);
		if (i < t->count && pa_val(t->regions[i].start) == e &&
		    may_extend(t, i, payload)) {
			r->end = t->regions[i].end;
			range_table_delete(t, i);
		}
		return 0;
	}
	if (i < t->count && pa_val(t->regions[i].start) == e &&
	    may_extend(t, i, payload)) {
		t->regions[i].start = pa(s);
		return 0;
	}
	if (!has_slot(t))
		return -ENOSPC;
	r = open_slot(t, i);
	*r = *payload;
	r->start = pa(s);
	r->end = pa(e);
	return 0;
}

/**
 * range_table_add() - add [@start, @end) with @payload, merged with the
 * touching regions same() allows.
 *
 * Return: 0, -EINVAL (empty, or overlapping a region) or -ENOSPC (full).
 */
int range_table_add(struct range_table *t, paddr_t start, paddr_t end,
		    const struct region *payload)
{
	unsigned int i = range_table_first_ending_above(t, start);

	if (pa_val(end) <= pa_val(start) ||
	    (i < t->count && pa_val(t->regions[i].start) < pa_val(end)))
		return -EINVAL;
	return place(t, i, pa_val(start), pa_val(end),
		     payload ? payload : &zero_payload);
}

/**
 * range_table_append() - @r at the end of a list still being built, as
 * given (no order, no merge: bootinfo's lists before sanitise); @unsorted
 * says when it lands below the end of the last one.
 *
 * Return: 0 or -ENOSPC (full, and it could not grow).
 */
int range_table_append(struct range_table *t, const struct region *r)
{
	if (!has_slot(t))
		return -ENOSPC;
	if (t->count && pa_val(r->start) < pa_val(t->regions[t->count - 1].end))
		t->unsorted = true;
	t->regions[t->count++] = *r;
	return 0;
}

/**
 * range_table_fill() - cover [@start, @end) with @payload where no region
 * does yet: what is covered keeps its region, each gap is added (and
 * merged as range_table_add() would).
 *
 * Return: 0, or -ENOSPC when a gap found the table full; the gaps below it
 * are filled, so calling again once there is room carries on.
 */
int range_table_fill(struct range_table *t, paddr_t start, paddr_t end,
		     const struct region *payload)
{
	uint64_t s = pa_val(start), e = pa_val(end);

	if (!payload)
		payload = &zero_payload;
	while (s < e) {
		unsigned int i = range_table_first_ending_above(t, pa(s));
		uint64_t piece_end = e;
		int err;

		if (i < t->count && pa_val(t->regions[i].start) <= s) {
			s = pa_val(t->regions[i].end);
			continue;
		}
		if (i < t->count && pa_val(t->regions[i].start) < e)
			piece_end = pa_val(t->regions[i].start);
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
int range_table_remove(struct range_table *t, paddr_t start, paddr_t end)
{
	uint64_t s = pa_val(start), e = pa_val(end);
	unsigned int i = range_table_first_ending_above(t, start);
	struct region *r;

	if (e <= s)
		return 0;
	if (i < t->count && pa_val(t->regions[i].start) < s &&
	    pa_val(t->regions[i].end) > e) {
		if (!has_slot(t))
			return -ENOSPC;
		r = open_slot(t, i);
		r->end = pa(s);
		t->regions[i + 1].start = pa(e);
		return 0;
	}
	while (i < t->count && pa_val(t->regions[i].start) < e) {
		r = &t->regions[i];
		if (pa_val(r->start) < s) {
			r->end = pa(s);
			i++;
		} else if (pa_val(r->end) > e) {
			r->start = pa(e);
			i++;
		} else {
			range_table_delete(t, i);
		}
	}
	return 0;
}

/**
 * range_table_first_gap() - the lowest piece of [@start, @end) that no
 * region covers (where a range_table_fill() that failed stopped).
 *
 * Return: true with its bounds in *@gap, false when the regions cover all
 * of [@start, @end).
 */
bool range_table_first_gap(const struct range_table *t, paddr_t start,
			   paddr_t end, struct region *gap)
{
	unsigned int i = range_table_first_ending_above(t, start);
	uint64_t s = pa_val(start), e = pa_val(end);

	while (s < e) {
		if (i < t->count && pa_val(t->regions[i].start) <= s) {
			s = pa_val(t->regions[i++].end);
			continue;
		}
		*gap = region_of(pa(s),
				 i < t->count && pa_val(t->regions[i].start) < e
					 ? t->regions[i].start
					 : end);
		return true;
	}
	return false;
}

static int cmp_start(const void *a, const void *b)
{
	uint64_t x = pa_val(((const struct region *)a)->start);
	uint64_t y = pa_val(((const struct region *)b)->start);

	return (x > y) - (x < y);
}

/**
 * range_table_sort() - sort the regions by start: the first step of a
 * list still being built, whose regions were appended in the firmware's
 * order and may overlap (bootinfo's reserved ranges), before
 * range_table_nearest_pair() can serve it. A table kept by the add paths
 * is sorted already. O(count) when sorted, else O(count log count).
 */
void range_table_sort(struct range_table *t)
{
	unsigned int i = 1;

	/* Sorted already (a full list refilled in order): one pass. */
	while (i < t->count &&
	       cmp_start(&t->regions[i - 1], &t->regions[i]) <= 0)
		i++;
	if (i >= t->count)
		return;
	sort(t->regions, t->count, sizeof(t->regions[0]), cmp_start);
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
		uint64_t next = pa_val(t->regions[i + 1].start), g;

		reach = MAX(reach, pa_val(t->regions[i].end));
		g = next > reach ? next - reach : 0;
		if (g < best_gap) {
			best_gap = g;
			best = i;
		}
	}
	*gap = best_gap;
	return best;
}

/*
 * The class of a gap for range_table_coalesce(): 0 for none (touching or
 * overlapping neighbours), else 1 + its highest set bit, so gaps within a
 * factor of two of each other are equally near.
 */
static unsigned int gap_class(uint64_t gap)
{
	return (unsigned int)fls64(gap);
}

/* The gap below region @i + 1, @reach the furthest end of [0, @i]. */
static uint64_t gap_above(const struct range_table *t, unsigned int i,
			  uint64_t reach)
{
	uint64_t next = pa_val(t->regions[i + 1].start);

	return next > reach ? next - reach : 0;
}

/*
 * The class range_table_coalesce() joins up to (every gap of a lower
 * class, and the lowest gaps of this one), and how many of this one.
 */
static unsigned int coalesce_limit(const struct range_table *t,
				   unsigned int want, unsigned int *of_limit)
{
	unsigned int hist[65] = {0}, c = 0, below = 0;
	uint64_t reach = 0;

	for (unsigned int i = 0; i + 1 < t->count; i++) {
		reach = MAX(reach, pa_val(t->regions[i].end));
		hist[gap_class(gap_above(t, i, reach))]++;
	}
	while (c < 64 && below + hist[c] < want)
		below += hist[c++];
	*of_limit = MIN(hist[c], want - below);
	return c;
}

/**
 * range_table_coalesce() - make room in a full table: join @want pairs of
 * neighbours (at least one, fewer only when fewer than @want + 1 regions),
 * the nearest first. Nearness is counted in classes of powers of two (a
 * gap of 5 pages is as near as one of 7), lowest addresses first within a
 * class, so that one pass chooses them all: O(count) for @want joins,
 * where joining one pair at a time (range_table_nearest_pair()) costs
 * O(count) each and a table kept full by n adds O(n * count).
 * Sorted by start; overlapping neighbours (a list still being built) have
 * gap 0. @join, when given, is told of each pair before it joins (its
 * payload is what @into keeps).
 *
 * Return: the bytes of the gaps joined (now covered).
 */
uint64_t range_table_coalesce(struct range_table *t, unsigned int want,
			      void (*join)(struct region *into,
					   const struct region *next))
{
	unsigned int limit, of_limit, out = 0;
	uint64_t reach = 0, added = 0;

	if (t->count < 2)
		return 0;
	want = MIN(MAX(want, 1u), t->count - 1);
	limit = coalesce_limit(t, want, &of_limit);
	for (unsigned int i = 0; i < t->count; i++) {
		struct region *r = &t->regions[i], *into;
		uint64_t gap = i ? gap_above(t, i - 1, reach) : 0;
		unsigned int c = gap_class(gap);
		bool joins = i && (c < limit || (c == limit && of_limit));

		reach = MAX(reach, pa_val(r->end));
		if (!joins) {
			t->regions[out++] = *r;
			continue;
		}
		if (c == limit)
			of_limit--;
		into = &t->regions[out - 1];
		if (join)
			join(into, r);
		into->end = pa(MAX(pa_val(into->end), pa_val(r->end)));
		added += gap;
	}
	t->count = out;
	return added;
}

/**
 * range_table_join_next() - region @i grows over the gap and region @i + 1,
 * which goes; @i keeps its payload (and the larger end, should @i + 1 lie
 * inside it in a table still being built).
 */
void range_table_join_next(struct range_table *t, unsigned int i)
{
	CHECK(i + 1 < t->count);
	t->regions[i].end = pa(
		MAX(pa_val(t->regions[i].end), pa_val(t->regions[i + 1].end)));
	range_table_delete(t, i + 1);
}
