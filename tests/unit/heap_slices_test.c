/* SPDX-License-Identifier: MIT */
/*
 * A node's heap ranges in slices (common/mm/heap_ranges.c): the slices
 * against a plain reference (a bitmap of pfns) under random adds and
 * removes, a range across a slice's edge refused, iteration order and
 * count; then a real heap forced into small slices (heap_ranges_split())
 * handed over, allocated from and freed in churn, heap_check() clean,
 * and two ranges touching across a slice's edge kept apart and accepted.
 */
#include "common.h"
#include "../../common/mm/heap_priv.h"

#define SLICES	   16
#define SLICE_PFNS 1000ULL
#define TOP	   (SLICES * SLICE_PFNS)
#define CAP	   1024

static bool ref[TOP];
static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint64_t next_rand(void)
{
	return test_xorshift64(&rng);
}

/* The reference's range holding @p: [*s, *e), cut at the slices' edges. */
static bool ref_range(uint64_t p, uint64_t *s, uint64_t *e)
{
	uint64_t lo = p / SLICE_PFNS * SLICE_PFNS, hi = lo + SLICE_PFNS;

	if (!ref[p])
		return false;
	for (*s = p; *s > lo && ref[*s - 1]; (*s)--)
		;
	for (*e = p + 1; *e < hi && ref[*e]; (*e)++)
		;
	return true;
}

/* Every range, in order, and the count, as the reference has them. */
static void check_all(const struct heap_ranges *hr)
{
	struct heap_range_pos pos = {0};
	const struct region *r;
	unsigned int n = 0;
	uint64_t p = 0, s, e;

	while ((r = heap_ranges_next(hr, &pos))) {
		uint64_t rs = pfn_val(region_start_pfn(r));

		while (p < TOP && !ref[p])
			p++;
		assert_true(ref_range(p, &s, &e));
		assert_int_equal(rs, s);
		assert_int_equal(pfn_val(region_end_pfn(r)), e);
		p = e;
		n++;
	}
	while (p < TOP && !ref[p])
		p++;
	assert_int_equal(p, TOP);
	assert_int_equal(heap_ranges_count(hr), n);
}

/* Lookups of random pfns: the holding range, the first ending above. */
static void check_lookups(const struct heap_ranges *hr)
{
	for (int i = 0; i < 64; i++) {
		uint64_t p = next_rand() % TOP, s, e, q;
		const struct region *r = heap_ranges_find(hr, p);

		if (!ref_range(p, &s, &e)) {
			assert_null(r);
			for (q = p; q < TOP && !ref[q]; q++)
				;
			r = heap_ranges_first_ending_above(
				hr, pfn_to_paddr(pfn(p)));
			if (q == TOP) {
				assert_null(r);
				continue;
			}
			assert_non_null(r);
			assert_int_equal(pfn_val(region_start_pfn(r)), q);
			continue;
		}
		assert_non_null(r);
		assert_int_equal(pfn_val(region_start_pfn(r)), s);
		assert_int_equal(pfn_val(region_end_pfn(r)), e);
		assert_ptr_equal(heap_ranges_first_ending_above(
					 hr, pfn_to_paddr(pfn(p))),
				 r);
	}
}

/* One random add or remove, its result the reference's. */
static void one_op(struct heap_ranges *hr)
{
	uint64_t s = next_rand() % TOP, len = 1 + next_rand() % 40;
	uint64_t e = MIN(s + len, TOP);
	bool across = s / SLICE_PFNS != (e - 1) / SLICE_PFNS, used = false;
	int err;

	for (uint64_t p = s; p < e; p++)
		used |= ref[p];
	if (next_rand() % 3) {
		err = heap_ranges_add(hr, s, e);
		assert_int_equal(err, across || used ? -EINVAL : 0);
		for (uint64_t p = s; !err && p < e; p++)
			ref[p] = true;
	} else {
		err = heap_ranges_remove(hr, s, e);
		assert_int_equal(err, across ? -EINVAL : 0);
		for (uint64_t p = s; !err && p < e; p++)
			ref[p] = false;
	}
}

static void test_slices_as_reference(void **state)
{
	static struct region store[SLICES][CAP];
	static struct heap_slice sl[SLICES];
	static struct region one[4];
	struct heap_ranges hr;

	heap_ranges_init(&hr, one, ARRAY_SIZE(one));
	for (unsigned int k = 0; k < SLICES; k++) {
		sl[k].start_pfn = k * SLICE_PFNS;
		sl[k].t = (struct range_table)RANGE_TABLE_INIT(store[k], CAP,
							       NULL);
	}
	memset(ref, 0, sizeof(ref));
	assert_int_equal(heap_ranges_install(&hr, sl, SLICES), 0);
	assert_int_equal(hr.count, SLICES);
	/* Touching across an edge: two ranges; across it: refused. */
	assert_int_equal(heap_ranges_add(&hr, 990, 1000), 0);
	assert_int_equal(heap_ranges_add(&hr, 1000, 1010), 0);
	assert_int_equal(heap_ranges_add(&hr, 1995, 2005), -EINVAL);
	assert_int_equal(heap_ranges_remove(&hr, 995, 1005), -EINVAL);
	assert_int_equal(heap_ranges_count(&hr), 2);
	for (uint64_t p = 990; p < 1010; p++)
		ref[p] = true;
	check_all(&hr);
	for (int i = 0; i < 20000; i++) {
		one_op(&hr);
		if (i % 97 == 0) {
			check_all(&hr);
			check_lookups(&hr);
		}
	}
	check_all(&hr);
	check_lookups(&hr);
}

/* A node holding ranges keeps its one slice. */
static void test_install_refused_with_ranges(void **state)
{
	static struct region one[8], store[2][8];
	struct heap_slice sl[2] = {{.start_pfn = 0}, {.start_pfn = 100}};
	struct heap_ranges hr;

	heap_ranges_init(&hr, one, ARRAY_SIZE(one));
	sl[0].t = (struct range_table)RANGE_TABLE_INIT(store[0], 8, NULL);
	sl[1].t = (struct range_table)RANGE_TABLE_INIT(store[1], 8, NULL);
	assert_int_equal(heap_ranges_add(&hr, 10, 20), 0);
	assert_int_equal(heap_ranges_install(&hr, sl, 2), -EBUSY);
	assert_int_equal(hr.count, 1);
	/* The one slice: anything goes, as one table. */
	assert_int_equal(heap_ranges_add(&hr, 90, 110), 0);
	assert_int_equal(heap_ranges_count(&hr), 2);
	/* One slice installed: the first table, read by the fast path. */
	heap_ranges_init(&hr, one, ARRAY_SIZE(one));
	assert_int_equal(heap_ranges_install(&hr, sl, 1), 0);
	assert_int_equal(hr.count, 1);
	assert_int_equal(heap_ranges_add(&hr, 90, 110), 0);
	assert_ptr_equal(heap_ranges_find(&hr, 100), &store[0][0]);
}

/* [16M, 80M) on node 0, a reserved page every 64 pages from 20 MiB. */
#define HOLES 200
static struct test_rsv holes[HOLES];

static void sliced_machine(bool handoff)
{
	static const struct test_ram ram[] = {{16 * MiB, 80 * MiB, 0}};
	struct test_machine_cfg c = {
		.ram = ram,
		.ram_count = 1,
		.rsv = holes,
		.rsv_count = HOLES,
		.no_handoff = true,
	};

	for (unsigned int i = 0; i < HOLES; i++)
		holes[i] = (struct test_rsv){20 * MiB + i * 64 * 4096ULL,
					     20 * MiB + i * 64 * 4096ULL + 4096,
					     "hole"};
	test_machine_boot(&c);
	heap_strict = true;
	/* 8 regions a slice: dozens of slices. */
	assert_true(heap_ranges_split(0, 8 * sizeof(struct region), 0) > 20);
	if (handoff)
		heap_handoff(false);
}

/* Each range in order, inside its slice, found by its pfns. */
static void check_node_ranges(void)
{
	const struct heap_ranges *hr = &heap_nodes[0]->ranges;
	struct heap_range_pos pos = {0};
	const struct region *r;
	uint64_t last = 0;
	unsigned int n = 0;

	while ((r = heap_node_range_next(0, &pos))) {
		uint64_t s = pfn_val(region_start_pfn(r));
		uint64_t e = pfn_val(region_end_pfn(r));
		unsigned int k = heap_ranges_index(hr, s);

		assert_true(s >= last);
		assert_true(k + 1 == hr->count ||
			    e <= hr->slice[k + 1].start_pfn);
		assert_ptr_equal(heap_ranges_find(hr, e - 1), r);
		assert_true(heap_owns(0, pfn(s), 0));
		last = e;
		n++;
	}
	assert_int_equal(heap_node_range_count(0), n);
}

static void test_sliced_heap_churn(void **state)
{
	static struct page_info *blk[4096];
	static unsigned int ord[4096];
	uint64_t free0;
	unsigned int n = 0;

	sliced_machine(true);
	/* The free ranges between the holes, each one range. */
	assert_true(heap_node_range_count(0) >= HOLES);
	check_node_ranges();
	test_heap_check_clean();
	free0 = heap_stats_all(0).free_pages;
	for (int round = 0; round < 6; round++) {
		while (n < ARRAY_SIZE(blk)) {
			unsigned int k = (unsigned int)(next_rand() % 7);
			struct page_info *pg = heap_alloc(k, 0, 0, 0, NULL);

			if (!pg)
				break;
			blk[n] = pg;
			ord[n++] = k;
		}
		for (unsigned int i = 0; i < n;) {
			if (next_rand() % 2) {
				i++;
				continue;
			}
			assert_int_equal(
				heap_free(blk[i], ord[i], HEAP_FREE_DIRTY), 0);
			blk[i] = blk[--n];
			ord[i] = ord[n];
		}
		test_heap_check_clean();
	}
	while (n) {
		n--;
		assert_int_equal(heap_free(blk[n], ord[n], HEAP_FREE_DIRTY), 0);
	}
	assert_int_equal(heap_stats_all(0).free_pages, free0);
	check_node_ranges();
	test_heap_check_clean();
}

/*
 * Ranges given by hand on either side of a slice's edge: they touch,
 * stay two, and heap_check() accepts them; one across the edge is
 * refused; a block never merges across it.
 */
static void test_touch_across_edge(void **state)
{
	const struct heap_ranges *hr;
	uint64_t b;

	sliced_machine(false);
	hr = &heap_nodes[0]->ranges;
	b = hr->slice[hr->count / 2].start_pfn;
	assert_int_equal(b & 63, 0); /* a hole's page: 64-page aligned */
	assert_true(heap_add_range(0, pfn(b - 32), pfn(b), false) > 0);
	assert_true(heap_add_range(0, pfn(b), pfn(b + 32), false) > 0);
	assert_int_equal(heap_node_range_count(0), 2);
	test_quiet_begin();
	assert_int_equal(heap_add_range(0, pfn(b + 40), pfn(b + 48), false) > 0,
			 b + 48 <= hr->slice[hr->count / 2 + 1].start_pfn);
	test_quiet_end();
	/* One table would hold [b - 32, b + 32) as one range, one chunk. */
	assert_false(heap_owns(0, pfn(b - 32), 6));
	assert_true(heap_owns(0, pfn(b - 32), 5));
	assert_true(heap_owns(0, pfn(b), 5));
	test_heap_check_clean();
	assert_null(heap_alloc(6, 0, 0, HEAP_EXACT_NODE, NULL));
	for (int i = 0; i < 2; i++) {
		struct page_info *pg = heap_alloc(5, 0, 0, 0, NULL);

		assert_non_null(pg);
		assert_int_equal(heap_free(pg, 5, HEAP_FREE_DIRTY), 0);
	}
	assert_null(heap_alloc(6, 0, 0, HEAP_EXACT_NODE, NULL));
	test_heap_check_clean();
}

/* Touching ranges inside one slice are a problem heap_check() names. */
static void test_check_finds_touching(void **state)
{
	struct heap_ranges *hr;
	struct range_table *t;
	struct region r = {0};
	unsigned int k;

	sliced_machine(true);
	hr = &heap_nodes[0]->ranges;
	for (k = 0; k < hr->count && hr->slice[k].t.count < 2; k++)
		;
	assert_true(k < hr->count);
	t = &hr->slice[k].t;
	/* The last range cut in two touching halves, as no add makes it. */
	r.start = pa(pa_val(t->regions[t->count - 1].start) + 4096);
	r.end = t->regions[t->count - 1].end;
	t->regions[t->count - 1].end = r.start;
	assert_int_equal(range_table_append(t, &r), 0);
	test_quiet_begin();
	assert_true(heap_check() > 0);
	test_quiet_end();
	assert_true(test_console_contains("overlap or touch"));
	range_table_join_next(t, t->count - 2);
	test_heap_check_clean();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_slices_as_reference),
		cmocka_unit_test(test_install_refused_with_ranges),
		cmocka_unit_test_setup_teardown(test_sliced_heap_churn,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_touch_across_edge,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_check_finds_touching,
						test_setup, test_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
