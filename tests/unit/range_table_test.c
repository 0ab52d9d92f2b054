/* SPDX-License-Identifier: MIT */
/*
 * common/lib/range_table.c: sorted insert, merging of touching regions
 * that same() allows, overlap refusal, filling only the gaps, a full
 * table, removal that splits a region, lookups and growing the storage;
 * the first uncovered gap, sorting and merging a list that overlaps,
 * doubling through grow() up to the limit, and the page view of a region;
 * coalescing a full table's nearest neighbours, a batch at a time, and a
 * million adds into a full table.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include <keel/errno.h>
#include <keel/range_table.h>
#include <keel/string.h>

/* What a test expects of a region: its bounds and its node (the tag). */
struct tagged {
	uint64_t start, end;
	uint32_t tag;
};

static bool same_tag(const struct region *a, const struct region *b)
{
	return a->node == b->node;
}

#define CAP 4
static struct region store[CAP];
static struct range_table t;

static void reset(bool (*same)(const struct region *, const struct region *))
{
	memset(store, 0, sizeof(store));
	t = (struct range_table)RANGE_TABLE_INIT(store, CAP, same);
}

static int add(uint64_t s, uint64_t e, uint32_t tag)
{
	struct region r = {.node = tag};

	return range_table_add(&t, pa(s), pa(e), &r);
}

static int fill(uint64_t s, uint64_t e, uint32_t tag)
{
	struct region r = {.node = tag};

	return range_table_fill(&t, pa(s), pa(e), &r);
}

static void set(unsigned int i, uint64_t s, uint64_t e, uint32_t tag)
{
	store[i] = region_of(pa(s), pa(e));
	store[i].node = tag;
}

/* The table is exactly @n regions {start, end, tag} of @want. */
static void expect(const struct tagged *want, unsigned int n)
{
	assert_int_equal(t.count, n);
	for (unsigned int i = 0; i < n; i++) {
		assert_int_equal(pa_val(store[i].start), want[i].start);
		assert_int_equal(pa_val(store[i].end), want[i].end);
		assert_int_equal(store[i].node, want[i].tag);
	}
}

static void test_insert_sorted(void **state)
{
	reset(same_tag);
	assert_int_equal(add(50, 60, 1), 0);
	assert_int_equal(add(10, 20, 2), 0);
	assert_int_equal(add(30, 40, 3), 0);
	assert_int_equal(add(70, 80, 4), 0);
	expect(
		(const struct tagged[]){
			{10, 20, 2}, {30, 40, 3}, {50, 60, 1}, {70, 80, 4}},
		4);
	assert_int_equal(add(5, 5, 1), -EINVAL); /* empty */
	assert_int_equal(add(9, 3, 1), -EINVAL);
}

static void test_merge_adjacent(void **state)
{
	reset(same_tag);
	assert_int_equal(add(10, 20, 1), 0);
	assert_int_equal(add(20, 30, 1), 0); /* extends the one below */
	assert_int_equal(add(5, 10, 1), 0);  /* extends the one above */
	expect((const struct tagged[]){{5, 30, 1}}, 1);
	assert_int_equal(add(40, 50, 1), 0);
	assert_int_equal(add(30, 40, 1), 0); /* closes the gap: one region */
	expect((const struct tagged[]){{5, 50, 1}}, 1);
	/* Another tag touches but stays apart, on both sides. */
	assert_int_equal(add(50, 60, 2), 0);
	assert_int_equal(add(0, 5, 3), 0);
	expect((const struct tagged[]){{0, 5, 3}, {5, 50, 1}, {50, 60, 2}}, 3);
	/* Without same() every touching pair merges, whatever the payload. */
	reset(NULL);
	assert_int_equal(add(10, 20, 1), 0);
	assert_int_equal(add(30, 40, 2), 0);
	assert_int_equal(add(20, 30, 3), 0);
	expect((const struct tagged[]){{10, 40, 1}}, 1);
}

static void test_overlap(void **state)
{
	const struct tagged before[] = {{10, 20, 1}, {30, 40, 2}};

	reset(same_tag);
	assert_int_equal(add(10, 20, 1), 0);
	assert_int_equal(add(30, 40, 2), 0);
	assert_int_equal(add(15, 25, 1), -EINVAL); /* into the lower */
	assert_int_equal(add(25, 35, 2), -EINVAL); /* into the upper */
	assert_int_equal(add(5, 45, 3), -EINVAL);  /* over both */
	assert_int_equal(add(12, 18, 1), -EINVAL); /* inside one */
	expect(before, 2);
	/* fill takes only the gaps: the earlier regions keep their tag. */
	assert_int_equal(fill(5, 40, 3), 0);
	expect(
		(const struct tagged[]){
			{5, 10, 3}, {10, 20, 1}, {20, 30, 3}, {30, 40, 2}},
		4);
	/* The last gap touches a region of tag 3 only: it merges. */
	reset(same_tag);
	assert_int_equal(add(10, 20, 1), 0);
	assert_int_equal(add(30, 40, 3), 0);
	assert_int_equal(fill(15, 35, 3), 0);
	expect((const struct tagged[]){{10, 20, 1}, {20, 40, 3}}, 2);
}

static void test_lookup(void **state)
{
	reset(same_tag);
	assert_int_equal(add(10, 20, 1), 0);
	assert_int_equal(add(30, 40, 2), 0);
	assert_int_equal(range_table_first_ending_above(&t, pa(0)), 0);
	assert_int_equal(range_table_first_ending_above(&t, pa(19)), 0);
	assert_int_equal(range_table_first_ending_above(&t, pa(20)), 1);
	assert_int_equal(range_table_first_ending_above(&t, pa(40)), 2);
	assert_ptr_equal(range_table_find(&t, pa(10)), &store[0]);
	assert_ptr_equal(range_table_find(&t, pa(39)), &store[1]);
	assert_null(range_table_find(&t, pa(20)));
	assert_null(range_table_find(&t, pa(9)));
	assert_null(range_table_find(&t, pa(40)));
}

/*
 * The same search over a bare array, in pages: a region ends above page n
 * when its end is past n's last byte (an end inside page n does not).
 */
static void test_lookup_pfn(void **state)
{
	const struct region r[] = {
		{.start = pa(0x1000), .end = pa(0x3000)},
		{.start = pa(0x5000),
		 .end = pa(0x6800)}, /* ends inside page 6 */
		{.start = pa(0x8000), .end = pa(0x9000)},
	};

	(void)state;
	assert_int_equal(regions_first_ending_above(r, 3, pa(0x2fff)), 0);
	assert_int_equal(regions_first_ending_above(r, 3, pa(0x3000)), 1);
	assert_int_equal(regions_first_ending_above(r, 0, pa(0)), 0);
	assert_int_equal(regions_first_ending_above_pfn(r, 3, 0), 0);
	assert_int_equal(regions_first_ending_above_pfn(r, 3, 2), 0);
	assert_int_equal(regions_first_ending_above_pfn(r, 3, 3), 1);
	assert_int_equal(regions_first_ending_above_pfn(r, 3, 5), 1);
	assert_int_equal(regions_first_ending_above_pfn(r, 3, 6), 2);
	assert_int_equal(regions_first_ending_above_pfn(r, 3, 8), 2);
	assert_int_equal(regions_first_ending_above_pfn(r, 3, 9), 3);
}

static void test_full_table(void **state)
{
	uint64_t gap;

	reset(same_tag);
	assert_int_equal(add(10, 20, 1), 0);
	assert_int_equal(add(30, 40, 2), 0);
	assert_int_equal(add(45, 50, 3), 0);
	assert_int_equal(add(70, 80, 4), 0);
	assert_int_equal(add(90, 95, 5), -ENOSPC);
	/* Full, but extending a region needs no slot. */
	assert_int_equal(add(80, 85, 4), 0);
	assert_int_equal(t.count, CAP);
	/* fill stops at the first gap it cannot place, gaps below it in. */
	assert_int_equal(fill(40, 100, 3), -ENOSPC);
	expect(
		(const struct tagged[]){
			{10, 20, 1}, {30, 40, 2}, {40, 70, 3}, {70, 85, 4}},
		4);
	/* Make room as bootmem does: join the nearest pair (30-40, 40-70). */
	assert_int_equal(range_table_nearest_pair(&t, &gap), 1);
	assert_int_equal(gap, 0);
	range_table_join_next(&t, 1);
	expect((const struct tagged[]){{10, 20, 1}, {30, 70, 2}, {70, 85, 4}},
	       3);
	/* Carrying on fills the rest once. */
	assert_int_equal(fill(40, 100, 3), 0);
	expect(
		(const struct tagged[]){
			{10, 20, 1}, {30, 70, 2}, {70, 85, 4}, {85, 100, 3}},
		4);
	/* Nearest pair: the smallest gap, the lowest pair on a tie. */
	reset(same_tag);
	assert_int_equal(add(0, 10, 1), 0);
	assert_int_equal(add(13, 20, 2), 0);
	assert_int_equal(add(23, 30, 3), 0);
	assert_int_equal(add(40, 50, 4), 0);
	assert_int_equal(range_table_nearest_pair(&t, &gap), 0);
	assert_int_equal(gap, 3);
}

static void test_remove_splits(void **state)
{
	reset(same_tag);
	assert_int_equal(add(10, 50, 1), 0);
	/* From the middle: two regions, both with the payload. */
	assert_int_equal(range_table_remove(&t, pa(20), pa(30)), 0);
	expect((const struct tagged[]){{10, 20, 1}, {30, 50, 1}}, 2);
	/* Across edges and over whole regions. */
	assert_int_equal(add(60, 70, 2), 0);
	assert_int_equal(add(80, 90, 3), 0);
	assert_int_equal(range_table_remove(&t, pa(15), pa(85)), 0);
	expect((const struct tagged[]){{10, 15, 1}, {85, 90, 3}}, 2);
	/* Nothing there, or nothing asked: unchanged. */
	assert_int_equal(range_table_remove(&t, pa(20), pa(80)), 0);
	assert_int_equal(range_table_remove(&t, pa(12), pa(12)), 0);
	expect((const struct tagged[]){{10, 15, 1}, {85, 90, 3}}, 2);
	/* A split in a full table is refused and changes nothing. */
	assert_int_equal(add(20, 30, 4), 0);
	assert_int_equal(add(40, 50, 5), 0);
	assert_int_equal(range_table_remove(&t, pa(22), pa(24)), -ENOSPC);
	expect(
		(const struct tagged[]){
			{10, 15, 1}, {20, 30, 4}, {40, 50, 5}, {85, 90, 3}},
		4);
	/* Cutting an edge needs no slot. */
	assert_int_equal(range_table_remove(&t, pa(20), pa(24)), 0);
	assert_int_equal(pa_val(store[1].start), 24);
}

static void test_move(void **state)
{
	static struct region big[2 * CAP];

	reset(same_tag);
	for (unsigned int i = 0; i < CAP; i++)
		assert_int_equal(add(10 * i, 10 * i + 5, i), 0);
	assert_int_equal(add(100, 105, 9), -ENOSPC);
	assert_false(range_table_move(&t, big, CAP)); /* not larger */
	assert_true(range_table_move(&t, big, 2 * CAP));
	assert_ptr_equal(t.regions, big);
	assert_int_equal(add(100, 105, 9), 0);
	assert_int_equal(t.count, CAP + 1);
	for (unsigned int i = 0; i < CAP; i++) {
		assert_int_equal(pa_val(big[i].start), 10 * i);
		assert_int_equal(big[i].node, i);
	}
	assert_int_equal(pa_val(big[CAP].start), 100);
}

/* grow(): storage from the heap of the test, each call counted. */
static unsigned int grow_calls, grow_last_cap;
static bool grow_refuse;

static struct region *test_grow_hook(struct range_table *tt, unsigned int cap)
{
	grow_calls++;
	grow_last_cap = cap;
	return grow_refuse ? NULL : calloc(cap, sizeof(struct region));
}

/*
 * A full table doubles (add, fill, a split) until its limit, keeping every
 * region in order (the old stores are the test's to leak); past the limit, or when grow() has nothing, an add is
 * -ENOSPC as in a fixed table.
 */
static void test_doubles_to_limit(void **state)
{
	static struct region first[2];
	struct range_table g = RANGE_TABLE_INIT_GROWING(first, 2, same_tag,
							test_grow_hook, 37);
	struct region r = {.node = 1};
	unsigned int i;

	grow_calls = 0;
	grow_refuse = false;
	for (i = 0; i < 37; i++) {
		r.node = i;
		assert_int_equal(range_table_add(&g, pa(100 * (37 - i)),
						 pa(100 * (37 - i) + 10), &r),
				 0);
	}
	/* 2 -> 8 (the least step) -> 16 -> 32 -> 37 (the limit): 4 calls. */
	assert_int_equal(grow_calls, 4);
	assert_int_equal(grow_last_cap, 37);
	assert_int_equal(g.cap, 37);
	assert_int_equal(g.count, 37);
	for (i = 0; i < 37; i++) {
		assert_int_equal(pa_val(g.regions[i].start), 100 * (i + 1));
		assert_int_equal(g.regions[i].node, 36 - i);
	}
	/* At the limit: no more calls, -ENOSPC; a split is refused too. */
	assert_int_equal(range_table_add(&g, pa(1), pa(2), &r), -ENOSPC);
	assert_int_equal(range_table_remove(&g, pa(102), pa(104)), -ENOSPC);
	assert_int_equal(range_table_fill(&g, pa(0), pa(50), &r), -ENOSPC);
	assert_int_equal(grow_calls, 4);

	/* grow() with nothing to give: a full table stays full. */
	g = (struct range_table)RANGE_TABLE_INIT_GROWING(first, 2, NULL,
							 test_grow_hook, 64);
	grow_refuse = true;
	assert_int_equal(range_table_add(&g, pa(0), pa(1), NULL), 0);
	assert_int_equal(range_table_add(&g, pa(2), pa(3), NULL), 0);
	assert_int_equal(range_table_add(&g, pa(4), pa(5), NULL), -ENOSPC);
	assert_int_equal(range_table_append(&g, &r), -ENOSPC);
	assert_ptr_equal(g.regions, first);
	grow_refuse = false;
	/* append grows too, and keeps the given order. */
	assert_int_equal(range_table_append(&g, &r), 0);
	assert_int_equal(g.cap, 8);
	assert_int_equal(g.regions[2].node, r.node);
}

/* The first uncovered piece, where a failed fill stopped. */
static void test_first_gap(void **state)
{
	struct region g;

	reset(same_tag);
	assert_true(range_table_first_gap(&t, pa(5), pa(9), &g));
	assert_int_equal(pa_val(g.start), 5);
	assert_int_equal(pa_val(g.end), 9);
	assert_int_equal(add(10, 20, 1), 0);
	assert_int_equal(add(20, 30, 2), 0);
	assert_int_equal(add(40, 50, 3), 0);
	assert_true(range_table_first_gap(&t, pa(12), pa(45), &g));
	assert_int_equal(pa_val(g.start), 30);
	assert_int_equal(pa_val(g.end), 40);
	assert_true(range_table_first_gap(&t, pa(0), pa(15), &g));
	assert_int_equal(pa_val(g.start), 0);
	assert_int_equal(pa_val(g.end), 10);
	assert_true(range_table_first_gap(&t, pa(45), pa(60), &g));
	assert_int_equal(pa_val(g.start), 50);
	assert_int_equal(pa_val(g.end), 60);
	assert_false(range_table_first_gap(&t, pa(10), pa(30), &g));
}

/*
 * A list still being built (bootinfo's reserved ranges): appended in any
 * order, overlapping. Sorted, its nearest pair counts an overlap as gap 0
 * and a gap from the furthest end below; joining keeps the larger end.
 */
static void test_sort_and_merge_overlapping_list(void **state)
{
	uint64_t gap;

	reset(NULL);
	set(0, 50, 60, 1);
	set(1, 10, 40, 2); /* holds the next one */
	set(2, 15, 20, 3);
	set(3, 44, 46, 4);
	t.count = 4;
	range_table_sort(&t);
	assert_int_equal(pa_val(store[0].start), 10);
	assert_int_equal(pa_val(store[1].start), 15);
	assert_int_equal(pa_val(store[2].start), 44);
	assert_int_equal(pa_val(store[3].start), 50);
	/* 15-20 lies inside 10-40: gap 0, the nearest pair. */
	assert_int_equal(range_table_nearest_pair(&t, &gap), 0);
	assert_int_equal(gap, 0);
	range_table_join_next(&t, 0);
	expect((const struct tagged[]){{10, 40, 2}, {44, 46, 4}, {50, 60, 1}},
	       3);
	assert_int_equal(range_table_nearest_pair(&t, &gap), 0);
	assert_int_equal(gap, 4);
}

/* The page view of a byte region, and a lookup by frame. */
static void test_page_view(void **state)
{
	const struct region *r;

	reset(NULL);
	assert_int_equal(range_table_add(&t, pfn_to_paddr(pfn(16)),
					 pfn_to_paddr(pfn(32)), NULL),
			 0);
	r = range_table_find_pfn(&t, pfn(31));
	assert_ptr_equal(r, &store[0]);
	assert_int_equal(pfn_val(region_start_pfn(r)), 16);
	assert_int_equal(pfn_val(region_end_pfn(r)), 32);
	assert_int_equal(region_bytes(r), 16 * PAGE_SIZE);
	assert_null(range_table_find_pfn(&t, pfn(32)));
	assert_null(range_table_find_pfn(&t, pfn(15)));
}

/*
 * range_table_coalesce(): the smallest gaps first, counted in powers of
 * two (a gap of 5 is as near as one of 7), lowest addresses first within
 * a class; overlapping neighbours have gap 0; @join is told each pair.
 */
static unsigned int joins_seen;

static void count_join(struct region *into, const struct region *next)
{
	joins_seen++;
	into->node += next->node;
}

static void test_coalesce_nearest_classes(void **state)
{
	reset(NULL);
	set(0, 0, 10, 1);
	set(1, 17, 20, 2);   /* gap 7: class 3 */
	set(2, 25, 30, 4);   /* gap 5: class 3 */
	set(3, 130, 140, 8); /* gap 100 */
	t.count = 4;
	/* Two joins: both class-3 gaps, not the gap of 100. */
	joins_seen = 0;
	assert_int_equal(range_table_coalesce(&t, 2, count_join), 12);
	assert_int_equal(joins_seen, 2);
	expect((const struct tagged[]){{0, 30, 7}, {130, 140, 8}}, 2);

	/* One join among equals: the lowest pair. */
	reset(NULL);
	set(0, 0, 10, 1);
	set(1, 15, 20, 2);
	set(2, 25, 30, 4);
	t.count = 3;
	assert_int_equal(range_table_coalesce(&t, 1, NULL), 5);
	expect((const struct tagged[]){{0, 20, 1}, {25, 30, 4}}, 2);

	/* A list still being built: 15-20 inside 10-40 is gap 0. */
	reset(NULL);
	set(0, 10, 40, 1);
	set(1, 15, 20, 2);
	set(2, 44, 46, 4);
	t.count = 3;
	assert_int_equal(range_table_coalesce(&t, 1, NULL), 0);
	expect((const struct tagged[]){{10, 40, 1}, {44, 46, 4}}, 2);
	/* More joins than pairs: all of them, at least one region left. */
	assert_int_equal(range_table_coalesce(&t, 9, NULL), 4);
	expect((const struct tagged[]){{10, 46, 1}}, 1);
	assert_int_equal(range_table_coalesce(&t, 9, NULL), 0);
	assert_int_equal(t.count, 1);
}

/*
 * Issue 36: a million adds into a table at its limit, each -ENOSPC making
 * room with range_table_coalesce(range_table_coalesce_batch()). The room
 * is made a batch at a time, so the regions the coalescing scans add up
 * to a few per add, not a table per add (old code: nearest pair and one
 * join per add, 4096 regions scanned and moved each time). Counted, not
 * timed. Nothing added is lost: the bytes covered are the bytes added
 * plus the gaps joined.
 */
#define BIG 4096
static struct region big_store[BIG];

static void test_million_adds_into_full_table(void **state)
{
	const unsigned int n = 1000000;
	struct range_table b = RANGE_TABLE_INIT(big_store, BIG, NULL);
	uint64_t scanned = 0, joined = 0, covered = 0;
	unsigned int calls = 0;

	for (unsigned int i = 0; i < n; i++) {
		uint64_t a = (uint64_t)i * 64 + (i % 16);
		int err = range_table_add(&b, pa(a), pa(a + 8), NULL);

		if (err == -ENOSPC) {
			calls++;
			scanned += b.count;
			joined += range_table_coalesce(
				&b, range_table_coalesce_batch(b.count), NULL);
			err = range_table_add(&b, pa(a), pa(a + 8), NULL);
		}
		assert_int_equal(err, 0);
	}
	assert_true(calls <= n / (BIG / 8) + 1);
	assert_true(scanned <= 9ULL * n);
	for (unsigned int i = 0; i < b.count; i++) {
		assert_true(pa_val(b.regions[i].start) <
			    pa_val(b.regions[i].end));
		if (i)
			assert_true(pa_val(b.regions[i - 1].end) <
				    pa_val(b.regions[i].start));
		covered +=
			pa_val(b.regions[i].end) - pa_val(b.regions[i].start);
	}
	assert_int_equal(covered, 8ULL * n + joined);
	assert_non_null(range_table_find(&b, pa(0)));
	assert_non_null(range_table_find(&b, pa((n - 1) * 64ULL + 15 + 7)));
}

/* region_overlaps(): a shared byte overlaps, touching does not. */
static void test_region_overlaps(void **state)
{
	struct region r = region_of(pa(10), pa(20));

	assert_true(region_overlaps(&r, pa(19), pa(30)));
	assert_true(region_overlaps(&r, pa(0), pa(11)));
	assert_true(region_overlaps(&r, pa(12), pa(13)));
	assert_true(region_overlaps(&r, pa(0), pa(100)));
	assert_false(region_overlaps(&r, pa(20), pa(30)));
	assert_false(region_overlaps(&r, pa(0), pa(10)));
	assert_true(ranges_overlap(0, ~0ULL, ~0ULL - 1, ~0ULL));
	assert_false(ranges_overlap(0, 5, 5, 6));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_insert_sorted),
		cmocka_unit_test(test_merge_adjacent),
		cmocka_unit_test(test_overlap),
		cmocka_unit_test(test_lookup),
		cmocka_unit_test(test_lookup_pfn),
		cmocka_unit_test(test_full_table),
		cmocka_unit_test(test_remove_splits),
		cmocka_unit_test(test_move),
		cmocka_unit_test(test_doubles_to_limit),
		cmocka_unit_test(test_first_gap),
		cmocka_unit_test(test_sort_and_merge_overlapping_list),
		cmocka_unit_test(test_page_view),
		cmocka_unit_test(test_coalesce_nearest_classes),
		cmocka_unit_test(test_million_adds_into_full_table),
		cmocka_unit_test(test_region_overlaps),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
