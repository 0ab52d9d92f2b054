/* SPDX-License-Identifier: MIT */
/*
 * The heap against a reference model: thousands of random allocations and
 * frees on three nodes with holes and reserved ranges, every result checked
 * against a per-page bitmap (no overlap, inside RAM of the block's node,
 * outside reserved memory, HEAP_BITS and exact-node respected, NULL only
 * when no fitting block exists, counters exact), heap_check() clean, and
 * freeing everything restores the initial chunk set. For all three modes.
 * Owned extents: heap_owned_model_test.c; the shared model:
 * heap_model_fixture.h.
 */
#include "heap_model_fixture.h"

/* One random allocation checked against the reference. Return: taken. */
static bool model_alloc(bool dirty, struct live *slot, unsigned int *nulls)
{
	unsigned int k = rnd() % 8 == 0 ? (unsigned int)(rnd() % 12)
					: (unsigned int)(rnd() % 4);
	uint32_t flags = HEAP_NO_SCRUB;
	int want = -1;
	bool exact = false;
	unsigned int bits = 0;
	uint64_t limit = ~0ULL, p, q;
	struct page_info *pg;

	if (mach->big && rnd() % 16 == 0)
		k = MAX_ORDER - (unsigned int)(rnd() % 3);
	if (rnd() % 2) {
		want = (int)(rnd() % 3);
		if (rnd() % 3 == 0) {
			flags |= HEAP_EXACT_NODE;
			exact = true;
		}
	}
	if (rnd() % 10 == 0) {
		bits = mach->bits_lo + (unsigned int)(rnd() % 3);
		limit = 1ULL << (bits - 12);
	}
	if (dirty && rnd() % 4 == 0)
		flags &= ~HEAP_NO_SCRUB;
	pg = heap_alloc(k, want, bits, flags, NULL);
	if (!pg) {
		(*nulls)++;
		for (unsigned int n = 0; n < 3; n++)
			if (!exact || (int)n == want)
				assert_false(fit_exists(n, k, limit));
		return false;
	}
	p = pg->pfn;
	assert_int_equal(pg->order, k);
	assert_int_equal(p & ((1ULL << k) - 1), 0);
	assert_true(p + (1ULL << k) <= limit);
	if (exact)
		assert_int_equal(pg->node, want);
	for (q = p; q < p + (1ULL << k); q++) {
		assert_true(q < mach->top_pfn);
		assert_int_equal(ref[q], REF_FREE);
		assert_int_equal(ram_node[q], pg->node + 1);
		assert_false(reserved[q]);
		ref[q] = REF_ALLOC;
	}
	slot->pg = pg;
	slot->order = k;
	return true;
}

/* Free one random live block (@live[0..*nlive)), the reference too. */
static void model_free(bool dirty, struct live *live, unsigned int *nlive)
{
	unsigned int i = (unsigned int)(rnd() % *nlive);
	uint64_t p = live[i].pg->pfn, q;

	assert_int_equal(
		heap_free(live[i].pg, live[i].order, dirty && rnd() % 2), 0);
	for (q = p; q < p + (1ULL << live[i].order); q++)
		ref[q] = REF_FREE;
	live[i] = live[--*nlive];
}

/* Everything freed: the free chunks are the ones the handoff made. */
static void model_finish(bool dirty, struct live *live, unsigned int nlive,
			 struct test_snap *before)
{
	struct test_snap after;

	while (nlive) {
		nlive--;
		assert_int_equal(heap_free(live[nlive].pg, live[nlive].order,
					   HEAP_FREE_ZEROED),
				 0);
	}
	after = test_heap_snapshot();
	/* Same chunks; dirtiness may differ after frees, compare layout. */
	assert_int_equal(before->n, after.n);
	for (size_t i = 0; i < before->n; i++) {
		assert_int_equal(before->c[i].pfn, after.c[i].pfn);
		assert_int_equal(before->c[i].order, after.c[i].order);
		assert_int_equal(before->c[i].node, after.c[i].node);
	}
	if (!dirty)
		test_snap_equal(before, &after);
	test_heap_check_clean();
	free(before->c);
	free(after.c);
}

static void run_model(enum heap_init_mode mode, bool dirty, uint64_t seed)
{
	struct test_machine_cfg c = {
		.ram = mach->ram,
		.ram_count = mach->ram_count,
		.rsv = mach->rsv,
		.rsv_count = mach->rsv_count,
		.mode = mode,
		.dirty = dirty,
	};
	static struct live live[8192];
	unsigned int nlive = 0, nulls = 0, allocs = 0;
	struct test_snap before;

	rng = seed;
	test_machine_boot(&c);
	heap_strict = true;
	assert_int_equal(heap_node_count(), 3);
	build_reference();
	before = test_heap_snapshot();
	check_counters();
	test_heap_check_clean();

	for (unsigned int op = 0; op < 6000; op++) {
		bool do_alloc = nlive == 0 || (rnd() % 100) < 55;

		if (nlive == ARRAY_SIZE(live))
			do_alloc = false;
		if (do_alloc && model_alloc(dirty, &live[nlive], &nulls)) {
			allocs++;
			nlive++;
		} else if (!do_alloc) {
			model_free(dirty, live, &nlive);
		}
		if (op % 500 == 0) {
			check_counters();
			test_heap_check_clean();
		}
	}
	assert_true(allocs > 1000);
	check_counters();
	test_heap_check_clean();
	model_finish(dirty, live, nlive, &before);
}

static void test_model_lazy(void **state)
{
	run_model(HEAP_INIT_LAZY, false, 0x1234567);
	run_model(HEAP_INIT_LAZY, true, 0xabcdef1);
}

/*
 * Free chunks above MAX_ORDER: the handoff makes them, allocation splits
 * them, frees merge back up to them (the proof at the top of heap.c), and
 * an idle scrubber detaches at most MAX_ORDER of one.
 */
static void test_model_big_chunks(void **state)
{
	static struct live taken[1024];
	struct test_snap before, after;
	unsigned int order, n = 0, at_max = 0;
	size_t above = 0;
	struct page_info *pg;

	struct test_machine_cfg c = {
		.ram = big_ram,
		.ram_count = ARRAY_SIZE(big_ram),
		.rsv = big_rsv,
		.rsv_count = ARRAY_SIZE(big_rsv),
		.dirty = true,
	};

	mach = &big_machine;
	run_model(HEAP_INIT_LAZY, false, 0x5eed5eed);
	run_model(HEAP_INIT_LAZY, true, 0x0ddba11);

	/* A fresh dirty handoff: every chunk is dirty from its first page. */
	test_machine_boot(&c);
	before = test_heap_snapshot();
	for (size_t i = 0; i < before.n; i++)
		above += before.c[i].order > MAX_ORDER;
	/* At least node 0's [2G, 4G): one 2^19-page chunk. */
	assert_true(above >= 1);
	/* Detach every dirty piece: never more than MAX_ORDER at once. */
	for (uint32_t node = 0; node < 3; node++)
		while ((pg = heap_take_dirty(node, &order))) {
			assert_true(n < ARRAY_SIZE(taken));
			assert_true(order <= MAX_ORDER);
			assert_int_equal(pg->order, order);
			assert_int_equal(pg->state, PGS_ALLOCATED);
			at_max += order == MAX_ORDER;
			taken[n].pg = pg;
			taken[n++].order = order;
		}
	assert_true(at_max >= 2); /* a 2^19 chunk is two 2^18 pieces */
	assert_int_equal(test_node_stats(0)->dirty_pages, 0);
	test_heap_check_clean();
	while (n--)
		heap_put_clean(taken[n].pg, taken[n].order, false);
	test_heap_check_clean();
	/* Everything merged back to the chunks the handoff made. */
	after = test_heap_snapshot();
	assert_int_equal(before.n, after.n);
	for (size_t i = 0; i < before.n; i++) {
		assert_int_equal(before.c[i].pfn, after.c[i].pfn);
		assert_int_equal(before.c[i].order, after.c[i].order);
	}
	free(before.c);
	free(after.c);
	mach = &small_machine;
}

static void test_model_chunked(void **state)
{
	run_model(HEAP_INIT_CHUNKED, false, 0x7654321);
	run_model(HEAP_INIT_CHUNKED, true, 0x1fedcba);
}

static void test_model_pagewise(void **state)
{
	run_model(HEAP_INIT_PAGEWISE, false, 0x3141592);
	run_model(HEAP_INIT_PAGEWISE, true, 0x2718281);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_model_lazy, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_model_big_chunks,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_model_chunked, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_model_pagewise, test_setup,
						test_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
