/* SPDX-License-Identifier: MIT */
/*
 * common/mm/heap.c: split and merge, exhaustion, restoring the initial chunk
 * set, no merge across node / hole / reserved boundaries, misuse (strict
 * and not), HEAP_BITS, exact node vs fallback, the three handoff modes
 * reaching identical free lists, and lazy handoff writing only heads
 * (bad ranges and the range table: heap_ranges_test.c).
 */
#include "common.h"

#define PFN_16M 4096ULL

/* node 0: [0, 64M), node 1: [64M, 128M); nothing handed over yet. */
static const struct test_ram two_nodes[] = {
	{0, 64 * MiB, 0},
	{64 * MiB, 128 * MiB, 1},
};

static void manual_machine(enum heap_init_mode mode)
{
	struct test_machine_cfg c = {
		.ram = two_nodes,
		.ram_count = 2,
		.no_handoff = true,
		.mode = mode,
	};

	test_machine_boot(&c);
	heap_strict = true;
}

static void add(uint32_t node, uint64_t s, uint64_t e, bool dirty)
{
	assert_true(heap_add_range(node, pfn(s), pfn(e), dirty) > 0);
}

static struct test_chunk *find_chunk(struct test_snap *s, uint64_t p)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->c[i].pfn == p)
			return &s->c[i];
	return NULL;
}

static void test_split_and_merge(void **state)
{
	struct test_snap before, after;
	struct page_info *pg;
	unsigned int k;

	manual_machine(HEAP_INIT_LAZY);
	add(0, PFN_16M, PFN_16M + 1024, false);
	before = test_heap_snapshot();
	assert_int_equal(before.n, 1);
	assert_int_equal(before.c[0].order, 10);

	pg = heap_alloc(0, HEAP_ANY_NODE, 0, HEAP_NO_SCRUB, NULL);
	assert_non_null(pg);
	/* The top page is returned, the lower halves go back. */
	assert_int_equal(pg->pfn, PFN_16M + 1023);
	assert_int_equal(pg->state, PGS_ALLOCATED);
	assert_int_equal(pg->order, 0);
	after = test_heap_snapshot();
	assert_int_equal(after.n, 10);
	for (k = 0; k < 10; k++) {
		/* order k half sits at 16M + 1024 - 2^(k+1) */
		struct test_chunk *c =
			find_chunk(&after, PFN_16M + 1024 - (2ULL << k));

		assert_non_null(c);
		assert_int_equal(c->order, k);
		assert_int_equal(c->first_dirty, FIRST_DIRTY_NONE);
	}
	assert_int_equal(heap_stats_all(0).free_pages, 1023);
	assert_int_equal(heap_stats_all(0).allocated_pages, 1);
	test_heap_check_clean();
	free(after.c);

	assert_int_equal(heap_free(pg, 0, HEAP_FREE_ZEROED), 0);
	after = test_heap_snapshot();
	test_snap_equal(&before, &after);
	test_heap_check_clean();
	free(before.c);
	free(after.c);
}

/*
 * An anonymous block costs one head write, like an owned extent: its
 * tails (poisoned here) are never written, and heap_owner_of() still
 * finds the head from any page of it.
 */
static void test_block_head_only(void **state)
{
	struct page_info *pg, *tail;
	unsigned int order;
	uint64_t i;
	pfn_t head;

	manual_machine(HEAP_INIT_LAZY);
	add(0, PFN_16M, PFN_16M + 1024, false);
	tail = pfn_to_page(pfn(PFN_16M + 1024 - 511));
	memset(tail, 0x77, 511 * sizeof(*tail));
	pg = heap_alloc(9, HEAP_ANY_NODE, 0, 0, NULL);
	assert_non_null(pg);
	assert_int_equal(pg->pfn, PFN_16M + 512);
	assert_int_equal(pg->state, PGS_ALLOCATED);
	assert_int_equal(pg->order, 9);
	for (i = 1; i < 512; i++) {
		const uint8_t *e =
			(const uint8_t *)pfn_to_page(pfn(pg->pfn + i));

		for (size_t b = 0; b < sizeof(struct page_info); b++)
			assert_int_equal(e[b], 0x77);
	}
	assert_int_equal(heap_owner_of(pfn(pg->pfn + 300), &head, &order),
			 HEAP_OWNER_KEEL);
	assert_int_equal(pfn_val(head), pg->pfn);
	assert_int_equal(order, 9);
	test_heap_check_clean();
	assert_int_equal(heap_free(pg, 9, HEAP_FREE_ZEROED), 0);
	test_heap_check_clean();
}

static void test_exhaustion_and_restore(void **state)
{
	struct test_machine_cfg c = {
		.ram = two_nodes,
		.ram_count = 2,
		.mode = HEAP_INIT_LAZY,
	};
	static const struct test_rsv rsv[] = {
		{20 * MiB, 21 * MiB + 8192, "fw"},
		{63 * MiB, 66 * MiB, "across"},
	};
	struct page_info **pages;
	struct test_snap before, after;
	uint64_t total, n = 0, i;

	c.rsv = rsv;
	c.rsv_count = 2;
	test_machine_boot(&c);
	heap_strict = true;
	total = heap_stats_all(0).total_pages;
	assert_int_equal(heap_stats_all(0).free_pages, total);
	before = test_heap_snapshot();
	pages = calloc(total + 1, sizeof(*pages));
	assert_non_null(pages);
	while ((pages[n] = heap_alloc(0, HEAP_ANY_NODE, 0, HEAP_NO_SCRUB,
				      NULL)) != NULL) {
		assert_true(n < total);
		n++;
	}
	assert_int_equal(n, total);
	assert_int_equal(heap_stats_all(0).free_pages, 0);
	assert_null(heap_alloc(0, HEAP_ANY_NODE, 0, 0, NULL));
	test_heap_check_clean();
	/* Free in a scrambled order: merging must still be complete. */
	for (i = 0; i < n; i++) {
		uint64_t j = (i * 7919) % n;
		struct page_info *t = pages[i];

		pages[i] = pages[j];
		pages[j] = t;
	}
	for (i = 0; i < n; i++)
		assert_int_equal(heap_free(pages[i], 0, HEAP_FREE_ZEROED), 0);
	after = test_heap_snapshot();
	test_snap_equal(&before, &after);
	test_heap_check_clean();
	free(pages);
	free(before.c);
	free(after.c);
}

static void test_no_merge_across_boundaries(void **state)
{
	struct test_snap s;
	struct page_info *a, *b;

	/* Same node, two add_range calls: merged into one chunk. */
	manual_machine(HEAP_INIT_LAZY);
	add(0, PFN_16M + 512, PFN_16M + 1024, false);
	add(0, PFN_16M, PFN_16M + 512, false);
	s = test_heap_snapshot();
	assert_int_equal(s.n, 1);
	assert_int_equal(s.c[0].order, 10);
	free(s.c);

	/* Adjacent on two nodes: never merged, in either order. */
	manual_machine(HEAP_INIT_LAZY);
	add(0, PFN_16M, PFN_16M + 512, false);
	add(1, PFN_16M + 512, PFN_16M + 1024, false);
	s = test_heap_snapshot();
	assert_int_equal(s.n, 2);
	assert_int_equal(s.c[0].order, 9);
	assert_int_equal(s.c[0].node, 0);
	assert_int_equal(s.c[1].order, 9);
	assert_int_equal(s.c[1].node, 1);
	free(s.c);
	/* Allocate and free both: still no merge. */
	a = heap_alloc(9, 0, 0, HEAP_EXACT_NODE, NULL);
	b = heap_alloc(9, 1, 0, HEAP_EXACT_NODE, NULL);
	assert_non_null(a);
	assert_non_null(b);
	assert_int_equal(heap_free(b, 9, HEAP_FREE_ZEROED), 0);
	assert_int_equal(heap_free(a, 9, HEAP_FREE_ZEROED), 0);
	s = test_heap_snapshot();
	assert_int_equal(s.n, 2);
	free(s.c);
	test_heap_check_clean();

	/* A one-page hole: the buddies on each side never merge. */
	manual_machine(HEAP_INIT_LAZY);
	add(0, PFN_16M, PFN_16M + 511, false);
	add(0, PFN_16M + 512, PFN_16M + 1024, false);
	a = heap_alloc(0, HEAP_ANY_NODE, 0, HEAP_NO_SCRUB, NULL);
	while (a) {
		assert_int_not_equal(a->pfn, PFN_16M + 511);
		a = heap_alloc(0, HEAP_ANY_NODE, 0, HEAP_NO_SCRUB, NULL);
	}
	manual_machine(HEAP_INIT_LAZY);
	add(0, PFN_16M, PFN_16M + 511, false);
	add(0, PFN_16M + 512, PFN_16M + 1024, false);
	s = test_heap_snapshot();
	for (size_t i = 0; i < s.n; i++)
		assert_false(s.c[i].pfn <= PFN_16M + 511 &&
			     s.c[i].pfn + (1ULL << s.c[i].order) >
				     PFN_16M + 511);
	free(s.c);
	test_heap_check_clean();
}

static void test_reserved_not_handed(void **state)
{
	static const struct test_rsv rsv[] = {
		{20 * MiB + 4096, 20 * MiB + 8192, "one-page"},
	};
	struct test_machine_cfg c = {
		.ram = two_nodes,
		.ram_count = 2,
		.rsv = rsv,
		.rsv_count = 1,
	};
	uint64_t bad = (20 * MiB + 4096) >> 12;
	struct test_snap s;

	test_machine_boot(&c);
	s = test_heap_snapshot();
	for (size_t i = 0; i < s.n; i++)
		assert_false(s.c[i].pfn <= bad &&
			     s.c[i].pfn + (1ULL << s.c[i].order) > bad);
	assert_false(heap_owns(0, pfn(bad), 0));
	assert_true(heap_owns(0, pfn(bad - 1), 0));
	assert_true(heap_owns(0, pfn(bad + 1), 0));
	free(s.c);
	/* node boundary at 64M: nothing spans it */
	assert_false(heap_owns(0, pfn((64 * MiB >> 12) - 1), 1));
	assert_true(heap_owns(1, pfn(64 * MiB >> 12), 0));
	test_heap_check_clean();
}

static void misuse_cases(bool strict)
{
	struct page_info *a, *b, *fake;
	uint64_t free0;

	manual_machine(HEAP_INIT_LAZY);
	heap_strict = strict;
	add(0, PFN_16M, PFN_16M + 1024, false);
	a = heap_alloc(3, HEAP_ANY_NODE, 0, 0, NULL);
	b = heap_alloc(0, HEAP_ANY_NODE, 0, 0, NULL);
	assert_non_null(a);
	assert_non_null(b);
	assert_int_equal(heap_free(b, 0, HEAP_FREE_ZEROED), 0);
	free0 = heap_stats_all(0).free_pages;

	/* A page the heap never owned, made to look allocated. */
	fake = pfn_to_page(pfn(PFN_16M + 2048));
	fake->pfn = PFN_16M + 2048;
	fake->state = PGS_ALLOCATED;
	fake->order = 0;
	fake->node = 0;

	if (strict) {
		TEST_EXPECT_PANIC(heap_free(b, 0, HEAP_FREE_ZEROED),
				  "not allocated");
		assert_non_null(
			strstr(sandbox_last_panic(), "heap_free: pfn 0x"));
		TEST_EXPECT_PANIC(heap_free(fake, 0, HEAP_FREE_ZEROED),
				  "not owned");
		TEST_EXPECT_PANIC(heap_free(a, 2, HEAP_FREE_ZEROED),
				  "order does not match");
		/* A tail entry is never written: it names no heap page. */
		TEST_EXPECT_PANIC(heap_free(a + 1, 0, HEAP_FREE_ZEROED),
				  "not a frame table entry");
		TEST_EXPECT_PANIC(heap_free(a + 4, 3, HEAP_FREE_ZEROED),
				  "not a frame table entry");
		TEST_EXPECT_PANIC(heap_free(a, MAX_ORDER + 1, HEAP_FREE_ZEROED),
				  "MAX_ORDER");
		TEST_EXPECT_PANIC(heap_free(a, 64, HEAP_FREE_ZEROED),
				  "MAX_ORDER");
	} else {
		test_quiet_begin();
		assert_int_equal(heap_free(b, 0, HEAP_FREE_ZEROED), -EINVAL);
		assert_int_equal(heap_free(fake, 0, HEAP_FREE_ZEROED), -EINVAL);
		assert_int_equal(heap_free(a, 2, HEAP_FREE_ZEROED), -EINVAL);
		assert_int_equal(heap_free(a + 1, 0, HEAP_FREE_ZEROED),
				 -EINVAL);
		assert_int_equal(heap_free(a + 4, 3, HEAP_FREE_ZEROED),
				 -EINVAL);
		assert_int_equal(heap_free(a, MAX_ORDER + 1, HEAP_FREE_ZEROED),
				 -EINVAL);
		test_quiet_end();
		assert_non_null(strstr(sandbox_console_buffer(),
				       "warning: heap_free: pfn"));
	}
	assert_int_equal(heap_stats_all(0).free_pages, free0);
	test_heap_check_clean();
	/* The real block still frees fine afterwards. */
	assert_int_equal(heap_free(a, 3, HEAP_FREE_ZEROED), 0);
	assert_int_equal(heap_stats_all(0).free_pages, 1024);
	test_heap_check_clean();
	heap_strict = true;
}

static void test_misuse_strict(void **state)
{
	misuse_cases(true);
}

static void test_misuse_refused(void **state)
{
	misuse_cases(false);
}

static void test_heap_bits(void **state)
{
	static const struct test_ram r[] = {
		{16 * MiB, 48 * MiB, 0},
		{4 * GiB, 4 * GiB + 32 * MiB, 0},
	};
	struct test_machine_cfg c = {.ram = r, .ram_count = 2};
	struct page_info *pg;
	uint64_t low = 0, limit32 = 1ULL << (32 - 12), free1;

	test_machine_boot(&c);
	/* No limit: from the highest zone first. */
	pg = heap_alloc(0, HEAP_ANY_NODE, 0, HEAP_NO_SCRUB, NULL);
	assert_non_null(pg);
	assert_true(pg->pfn >= limit32);
	free1 = heap_stats_all(0).free_pages;
	/* 32 bits: below 4 GiB until that runs out. */
	while ((pg = heap_alloc(4, HEAP_ANY_NODE, 32, HEAP_NO_SCRUB, NULL)) !=
	       NULL) {
		assert_true(pg->pfn + 16 <= limit32);
		low += 16;
	}
	assert_true(low > 0);
	/* 25 bits = 32 MiB: nothing left below it either. */
	assert_null(heap_alloc(0, HEAP_ANY_NODE, 25, 0, NULL));
	assert_null(heap_alloc(0, HEAP_ANY_NODE, 11, 0, NULL));
	/* High memory is untouched. */
	assert_int_equal(heap_stats_all(0).free_pages, free1 - low);
	assert_true(free1 - low > (30 * MiB >> 12));
	test_heap_check_clean();

	test_machine_boot(&c);
	pg = heap_alloc(0, HEAP_ANY_NODE, 25, HEAP_NO_SCRUB, NULL);
	assert_non_null(pg);
	assert_true(pg->pfn + 1 <= (1ULL << 13));
}

static void test_exact_node_and_fallback(void **state)
{
	struct page_info *pg;

	manual_machine(HEAP_INIT_LAZY);
	add(0, PFN_16M, PFN_16M + 4, false);
	add(1, (64 * MiB >> 12), (64 * MiB >> 12) + 64, false);
	pg = heap_alloc(2, 0, 0, HEAP_EXACT_NODE, NULL);
	assert_non_null(pg);
	assert_int_equal(pg->node, 0);
	assert_null(heap_alloc(0, 0, 0, HEAP_EXACT_NODE, NULL));
	pg = heap_alloc(0, 0, 0, 0, NULL);
	assert_non_null(pg);
	assert_int_equal(pg->node, 1);
	pg = heap_alloc(0, 1, 0, HEAP_EXACT_NODE, NULL);
	assert_non_null(pg);
	assert_int_equal(pg->node, 1);
	assert_int_equal(test_node_stats(1)->free_pages, 62);
	assert_int_equal(test_node_stats(0)->free_pages, 0);
	/* Too big anywhere. */
	assert_null(heap_alloc(7, HEAP_ANY_NODE, 0, 0, NULL));
	assert_null(heap_alloc(MAX_ORDER + 1, HEAP_ANY_NODE, 0, 0, NULL));
	test_heap_check_clean();
}

/* ---- the three handoff modes ------------------------------------------ */

static uint64_t rng = 12345;

static uint64_t rnd(void)
{
	return test_xorshift64(&rng);
}

struct rng_range {
	uint64_t s, e;
	uint32_t node;
	bool dirty;
};

static struct test_snap build(enum heap_init_mode mode,
			      const struct rng_range *r, unsigned int n,
			      uint64_t *counters)
{
	unsigned int i;

	manual_machine(mode);
	for (i = 0; i < n; i++)
		add(r[i].node, r[i].s, r[i].e, r[i].dirty);
	test_heap_check_clean();
	counters[0] = heap_stats_all(0).free_pages;
	counters[1] = test_node_stats(0)->dirty_pages;
	counters[1] += test_node_stats(1)->dirty_pages;
	counters[2] = heap_chunk_count();
	return test_heap_snapshot();
}

static void test_modes_identical(void **state)
{
	for (unsigned int round = 0; round < 12; round++) {
		struct rng_range r[40];
		unsigned int n = 0, i;
		uint64_t p = round == 0 ? 0 : rnd() % 64;
		/* node 0 RAM is pfn [0, 16384) minus its frame table */
		uint64_t limit = 12000;
		struct test_snap base, other;
		uint64_t cb[3], co[3];

		while (p < limit && n < 40) {
			uint64_t len = 1 + rnd() % (round & 1 ? 3000 : 300);
			uint64_t gap = rnd() % 3 ? 0 : rnd() % 40;

			if (p + len > limit)
				len = limit - p;
			r[n].s = p;
			r[n].e = p + len;
			r[n].node = (rnd() % 4 == 0) ? 1 : 0;
			r[n].dirty = rnd() % 2;
			n++;
			p += len + gap;
		}
		/* shuffle: adjacent ranges arrive in any order */
		for (i = n; i > 1; i--) {
			unsigned int j = rnd() % i;
			struct rng_range t = r[i - 1];

			r[i - 1] = r[j];
			r[j] = t;
		}
		base = build(HEAP_INIT_LAZY, r, n, cb);
		other = build(HEAP_INIT_CHUNKED, r, n, co);
		test_snap_equal(&base, &other);
		assert_memory_equal(cb, co, sizeof(cb));
		free(other.c);
		other = build(HEAP_INIT_PAGEWISE, r, n, co);
		test_snap_equal(&base, &other);
		assert_memory_equal(cb, co, sizeof(cb));
		free(other.c);
		free(base.c);
	}
}

/* Lazy handoff writes exactly one entry per chunk: the rest stay poison. */
static void test_lazy_writes_heads_only(void **state)
{
	const uint64_t s = PFN_16M + 3, e = PFN_16M + 3000;
	struct page_info poison;
	struct test_snap snap;
	uint64_t p, written = 0;

	manual_machine(HEAP_INIT_LAZY);
	memset(&poison, 0xa7, sizeof(poison));
	for (p = s; p < e; p++)
		memcpy(pfn_to_page(pfn(p)), &poison, sizeof(poison));
	add(0, s, e, true);
	snap = test_heap_snapshot();
	for (p = s; p < e; p++) {
		bool head = find_chunk(&snap, p) != NULL;
		bool untouched =
			!memcmp(pfn_to_page(pfn(p)), &poison, sizeof(poison));

		assert_true(head != untouched);
		written += !untouched;
	}
	assert_int_equal(written, snap.n);
	assert_int_equal(written, heap_chunk_count());
	free(snap.c);
}

static void test_dirty_split_and_scrub(void **state)
{
	struct page_info *pg;
	uint8_t *va;
	uint64_t i;

	manual_machine(HEAP_INIT_LAZY);
	add(0, PFN_16M, PFN_16M + 64, true);
	memset(phys_to_virt(pfn_to_paddr(pfn(PFN_16M))), 0x5c, 64 * 4096);
	assert_int_equal(test_node_stats(0)->dirty_pages, 64);
	pg = heap_alloc(2, HEAP_ANY_NODE, 0, 0, NULL);
	assert_non_null(pg);
	va = phys_to_virt(pfn_to_paddr(pfn(pg->pfn)));
	for (i = 0; i < 4 * 4096; i++)
		assert_int_equal(va[i], 0);
	assert_int_equal(test_node_stats(0)->dirty_pages, 60);
	/* HEAP_NO_SCRUB leaves the contents alone. */
	pg = heap_alloc(0, HEAP_ANY_NODE, 0, HEAP_NO_SCRUB, NULL);
	va = phys_to_virt(pfn_to_paddr(pfn(pg->pfn)));
	assert_int_equal(va[100], 0x5c);
	assert_int_equal(test_node_stats(0)->dirty_pages, 59);
	/*
	 * Freed clean, it merges back with its dirty lower buddies: the
	 * chunk's first_dirty is 0 again, so all 4 pages count as dirty.
	 */
	assert_int_equal(heap_free(pg, 0, HEAP_FREE_ZEROED), 0);
	assert_int_equal(test_node_stats(0)->dirty_pages, 60);
	test_heap_check_clean();
}

/* first_dirty through merges and splits of mixed clean/dirty halves. */
static void test_first_dirty_arithmetic(void **state)
{
	struct test_snap snap;
	struct page_info *pg;

	manual_machine(HEAP_INIT_LAZY);
	add(0, PFN_16M + 8, PFN_16M + 12, false);
	add(0, PFN_16M + 12, PFN_16M + 16, true);
	snap = test_heap_snapshot();
	assert_int_equal(snap.n, 1);
	assert_int_equal(snap.c[0].order, 3);
	assert_int_equal(snap.c[0].first_dirty, 4);
	assert_int_equal(test_node_stats(0)->dirty_pages, 4);
	free(snap.c);

	/* Split: the top half (returned) is dirty, the lower one clean. */
	pg = heap_alloc(2, HEAP_ANY_NODE, 0, HEAP_NO_SCRUB, NULL);
	assert_int_equal(pg->pfn, PFN_16M + 12);
	snap = test_heap_snapshot();
	assert_int_equal(snap.n, 1);
	assert_int_equal(snap.c[0].first_dirty, FIRST_DIRTY_NONE);
	assert_int_equal(test_node_stats(0)->dirty_pages, 0);
	free(snap.c);

	/* A dirty first_dirty inside the top half survives the split. */
	assert_int_equal(heap_free(pg, 2, HEAP_FREE_DIRTY), 0);
	pg = heap_alloc(0, HEAP_ANY_NODE, 0, HEAP_NO_SCRUB,
			NULL); /* the top page, like Xen */
	assert_int_equal(pg->pfn, PFN_16M + 15);
	assert_int_equal(test_node_stats(0)->dirty_pages, 3);
	assert_int_equal(heap_free(pg, 0, HEAP_FREE_ZEROED), 0);
	snap = test_heap_snapshot();
	assert_int_equal(snap.n, 1);
	assert_int_equal(snap.c[0].first_dirty, 4);
	free(snap.c);
	test_heap_check_clean();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_split_and_merge,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_block_head_only,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_exhaustion_and_restore,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_no_merge_across_boundaries,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_reserved_not_handed,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_misuse_strict, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_misuse_refused, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_heap_bits, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_exact_node_and_fallback,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_modes_identical,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_lazy_writes_heads_only,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_dirty_split_and_scrub,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_first_dirty_arithmetic,
						test_setup, test_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
