/* SPDX-License-Identifier: MIT */
/*
 * common/lib/range_table.c: sorted insert, merging of touching regions
 * that same() allows, overlap refusal, filling only the gaps, a full
 * table, removal that splits a region, lookups and growing the storage;
 * the first uncovered gap, sorting and merging a list that overlaps, and
 * the typed byte and page tables.
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

struct tagged {
	uint64_t start, end;
	uint32_t tag;
};

RANGE_TABLE_CHECK_TYPE(struct tagged, start, end);

static bool same_tag(const void *a, const void *b)
{
	return ((const struct tagged *)a)->tag ==
	       ((const struct tagged *)b)->tag;
}

#define CAP 4
static struct tagged store[CAP];
static struct range_table t;

static void reset(bool (*same)(const void *, const void *))
{
	memset(store, 0, sizeof(store));
	t = (struct range_table)RANGE_TABLE_INIT(store, CAP, same);
}

static int add(uint64_t s, uint64_t e, uint32_t tag)
{
	struct tagged r = {.tag = tag};

	return range_table_add(&t, s, e, &r);
}

static int fill(uint64_t s, uint64_t e, uint32_t tag)
{
	struct tagged r = {.tag = tag};

	return range_table_fill(&t, s, e, &r);
}

/* The table is exactly @n regions {start, end, tag} of @want. */
static void expect(const struct tagged *want, unsigned int n)
{
	assert_int_equal(t.count, n);
	for (unsigned int i = 0; i < n; i++) {
		assert_int_equal(store[i].start, want[i].start);
		assert_int_equal(store[i].end, want[i].end);
		assert_int_equal(store[i].tag, want[i].tag);
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
	assert_int_equal(range_table_first_ending_above(&t, 0), 0);
	assert_int_equal(range_table_first_ending_above(&t, 19), 0);
	assert_int_equal(range_table_first_ending_above(&t, 20), 1);
	assert_int_equal(range_table_first_ending_above(&t, 40), 2);
	assert_ptr_equal(range_table_find(&t, 10), &store[0]);
	assert_ptr_equal(range_table_find(&t, 39), &store[1]);
	assert_null(range_table_find(&t, 20));
	assert_null(range_table_find(&t, 9));
	assert_null(range_table_find(&t, 40));
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
	assert_int_equal(range_table_remove(&t, 20, 30), 0);
	expect((const struct tagged[]){{10, 20, 1}, {30, 50, 1}}, 2);
	/* Across edges and over whole regions. */
	assert_int_equal(add(60, 70, 2), 0);
	assert_int_equal(add(80, 90, 3), 0);
	assert_int_equal(range_table_remove(&t, 15, 85), 0);
	expect((const struct tagged[]){{10, 15, 1}, {85, 90, 3}}, 2);
	/* Nothing there, or nothing asked: unchanged. */
	assert_int_equal(range_table_remove(&t, 20, 80), 0);
	assert_int_equal(range_table_remove(&t, 12, 12), 0);
	expect((const struct tagged[]){{10, 15, 1}, {85, 90, 3}}, 2);
	/* A split in a full table is refused and changes nothing. */
	assert_int_equal(add(20, 30, 4), 0);
	assert_int_equal(add(40, 50, 5), 0);
	assert_int_equal(range_table_remove(&t, 22, 24), -ENOSPC);
	expect(
		(const struct tagged[]){
			{10, 15, 1}, {20, 30, 4}, {40, 50, 5}, {85, 90, 3}},
		4);
	/* Cutting an edge needs no slot. */
	assert_int_equal(range_table_remove(&t, 20, 24), 0);
	assert_int_equal(store[1].start, 24);
}

static void test_grow(void **state)
{
	static struct tagged big[2 * CAP];

	reset(same_tag);
	for (unsigned int i = 0; i < CAP; i++)
		assert_int_equal(add(10 * i, 10 * i + 5, i), 0);
	assert_int_equal(add(100, 105, 9), -ENOSPC);
	assert_false(range_table_grow(&t, big, CAP)); /* not larger */
	assert_true(range_table_grow(&t, big, 2 * CAP));
	assert_ptr_equal(t.regions, big);
	assert_int_equal(add(100, 105, 9), 0);
	assert_int_equal(t.count, CAP + 1);
	for (unsigned int i = 0; i < CAP; i++) {
		assert_int_equal(big[i].start, 10 * i);
		assert_int_equal(big[i].tag, i);
	}
	assert_int_equal(big[CAP].start, 100);
}

/* The first uncovered piece, where a failed fill stopped. */
static void test_first_gap(void **state)
{
	uint64_t gs = 0, ge = 0;

	reset(same_tag);
	assert_true(range_table_first_gap(&t, 5, 9, &gs, &ge));
	assert_int_equal(gs, 5);
	assert_int_equal(ge, 9);
	assert_int_equal(add(10, 20, 1), 0);
	assert_int_equal(add(20, 30, 2), 0);
	assert_int_equal(add(40, 50, 3), 0);
	assert_true(range_table_first_gap(&t, 12, 45, &gs, &ge));
	assert_int_equal(gs, 30);
	assert_int_equal(ge, 40);
	assert_true(range_table_first_gap(&t, 0, 15, &gs, &ge));
	assert_int_equal(gs, 0);
	assert_int_equal(ge, 10);
	assert_true(range_table_first_gap(&t, 45, 60, &gs, &ge));
	assert_int_equal(gs, 50);
	assert_int_equal(ge, 60);
	assert_false(range_table_first_gap(&t, 10, 30, &gs, &ge));
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
	store[0] = (struct tagged){50, 60, 1};
	store[1] = (struct tagged){10, 40, 2}; /* holds the next one */
	store[2] = (struct tagged){15, 20, 3};
	store[3] = (struct tagged){44, 46, 4};
	t.count = 4;
	range_table_sort(&t);
	assert_int_equal(store[0].start, 10);
	assert_int_equal(store[1].start, 15);
	assert_int_equal(store[2].start, 44);
	assert_int_equal(store[3].start, 50);
	/* 15-20 lies inside 10-40: gap 0, the nearest pair. */
	assert_int_equal(range_table_nearest_pair(&t, &gap), 0);
	assert_int_equal(gap, 0);
	range_table_join_next(&t, 0);
	expect((const struct tagged[]){{10, 40, 2}, {44, 46, 4}, {50, 60, 1}},
	       3);
	assert_int_equal(range_table_nearest_pair(&t, &gap), 0);
	assert_int_equal(gap, 4);
}

/* The typed tables: bytes and pages, each with its own bounds. */
struct byte_region {
	paddr_t start, end;
	uint32_t tag;
};
struct page_region {
	pfn_t start, end;
};
PADDR_RANGE_TABLE_CHECK_TYPE(struct byte_region);
PFN_RANGE_TABLE_CHECK_TYPE(struct page_region);

static void test_typed_tables(void **state)
{
	static struct byte_region bytes[CAP];
	static struct page_region pages[CAP];
	struct paddr_range_table bt = PADDR_RANGE_TABLE_INIT(bytes, CAP, NULL);
	struct pfn_range_table pt = PFN_RANGE_TABLE_INIT(pages, CAP, NULL);
	struct byte_region b = {.tag = 7};
	const struct paddr_range *br;
	const struct pfn_range *pr;
	struct paddr_range gap;

	assert_int_equal(paddr_range_table_add(&bt, pa(0x1000), pa(0x3000), &b),
			 0);
	assert_int_equal(paddr_range_table_fill(&bt, pa(0), pa(0x4000), &b), 0);
	assert_int_equal(bt.count, 1);
	br = paddr_range_table_find(&bt, pa(0x3fff));
	assert_ptr_equal(br, paddr_range_at(&bt, 0));
	assert_int_equal(pa_val(br->end), 0x4000);
	assert_int_equal(bytes[0].tag, 7);
	assert_int_equal(paddr_range_table_remove(&bt, pa(0x1000), pa(0x2000)),
			 0);
	assert_true(paddr_range_table_first_gap(&bt, pa(0), pa(0x4000), &gap));
	assert_int_equal(pa_val(gap.start), 0x1000);
	assert_int_equal(pa_val(gap.end), 0x2000);
	assert_int_equal(paddr_range_table_first_ending_above(&bt, pa(0x1000)),
			 1);

	assert_int_equal(pfn_range_table_add(&pt, pfn(16), pfn(32),
					     &(struct page_region){}),
			 0);
	pr = pfn_range_table_find(&pt, pfn(31));
	assert_ptr_equal(pr, pfn_range_at(&pt, 0));
	assert_int_equal(pfn_val(pr->start), 16);
	assert_null(pfn_range_table_find(&pt, pfn(32)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_insert_sorted),
		cmocka_unit_test(test_merge_adjacent),
		cmocka_unit_test(test_overlap),
		cmocka_unit_test(test_lookup),
		cmocka_unit_test(test_full_table),
		cmocka_unit_test(test_remove_splits),
		cmocka_unit_test(test_grow),
		cmocka_unit_test(test_first_gap),
		cmocka_unit_test(test_sort_and_merge_overlapping_list),
		cmocka_unit_test(test_typed_tables),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
