// SPDX-License-Identifier: MIT
/*
 * The heap at runtime (issue 37): which node an allocation comes from
 * (HEAP_EXACT_NODE on a node that does not exist fails and is counted;
 * HEAP_ANY_NODE starts at the calling CPU's node), hold statistics only
 * when asked, and the per-CPU caches of order 0 and 9 (few node locks,
 * free to every count, drained where the heap must be exact, bounded,
 * misuse still refused).
 */
#include "common.h"

/* node 0: [0, 64M), node 1: [64M, 128M), handed over clean. */

/* Today's code gave node 0's memory for a node that does not exist. */
static void test_exact_missing_node_fails(void **state)
{
	uint64_t free0, refused0;

	test_two_node_heap();
	free0 = heap_stats_all(0).free_pages;
	refused0 = heap_stats_all(0).bad_node;
	assert_null(heap_alloc(0, 2, 0, HEAP_EXACT_NODE, NULL));
	assert_null(heap_alloc(0, 63, 0, HEAP_EXACT_NODE, NULL));
	assert_null(heap_alloc(0, -7, 0, HEAP_EXACT_NODE, NULL));
	assert_null(heap_alloc_owned(0, 5, HEAP_EXACT_NODE, 3, NULL, NULL));
	assert_int_equal(heap_stats_all(0).bad_node, refused0 + 4);
	assert_int_equal(heap_stats_all(0).free_pages, free0);
	assert_int_equal(heap_stats_all(3).owned_pages, 0);
	/* Without HEAP_EXACT_NODE a missing node means no preference. */
	struct page_info *pg = heap_alloc(0, 9, 0, 0, NULL);

	assert_non_null(pg);
	assert_int_equal(heap_free(pg, 0, HEAP_FREE_ZEROED), 0);
	assert_int_equal(heap_stats_all(0).bad_node, refused0 + 4);
	test_heap_check_clean();
}

/* Today's code started every HEAP_ANY_NODE allocation at node 0. */
static void test_any_node_starts_at_cpu_node(void **state)
{
	struct page_info *a, *b, *o;

	test_two_node_heap();
	heap_set_cpu_node(arch_cpu_id(), 1);
	assert_int_equal(heap_cpu_node(), 1);
	a = heap_alloc(0, HEAP_ANY_NODE, 0, 0, NULL);
	b = heap_alloc(9, HEAP_ANY_NODE, 0, 0, NULL);
	o = heap_alloc_owned(4, HEAP_ANY_NODE, 0, 5, NULL, NULL);
	assert_non_null(a);
	assert_non_null(b);
	assert_non_null(o);
	assert_int_equal(a->node, 1);
	assert_int_equal(b->node, 1);
	assert_int_equal(o->node, 1);
	heap_set_cpu_node(arch_cpu_id(), 0);
	assert_int_equal(heap_cpu_node(), 0);
	assert_int_equal(heap_free(a, 0, HEAP_FREE_ZEROED), 0);
	assert_int_equal(heap_free(b, 9, HEAP_FREE_ZEROED), 0);
	assert_int_equal(heap_free_owned(o, 4, 5), 0);
	a = heap_alloc(0, HEAP_ANY_NODE, 0, 0, NULL);
	assert_int_equal(a->node, 0);
	assert_int_equal(heap_free(a, 0, HEAP_FREE_ZEROED), 0);
	/* A node beyond the heap's count is not trusted. */
	heap_set_cpu_node(arch_cpu_id(), 40);
	assert_int_equal(heap_cpu_node(), 0);
	heap_set_cpu_node(arch_cpu_id(), 0);
	test_heap_check_clean();
}

/*
 * No clock is read while a node lock is held unless hold statistics are
 * asked: lock_max_ticks stays 0 (today's code timed every hold).
 */
static void test_lock_stats_only_when_asked(void **state)
{
	struct heap_stats st;
	struct page_info *pg;

	test_two_node_heap();
	heap_set_lock_stats(false);
	for (unsigned int i = 0; i < 64; i++) {
		pg = heap_alloc(i % 11, 0, 0, HEAP_NO_SCRUB, NULL);
		assert_non_null(pg);
		assert_int_equal(heap_free(pg, i % 11, HEAP_FREE_ZEROED), 0);
	}
	assert_int_equal(heap_stats(0, 0, &st), 0);
	assert_int_equal(st.lock_max_ticks, 0);
	heap_reset_lock_stats(); /* asked: every hold timed from here */
	for (unsigned int i = 0; i < 64; i++) {
		pg = heap_alloc(10, 0, 0, 0, NULL);
		assert_non_null(pg);
		assert_int_equal(heap_free(pg, 10, HEAP_FREE_DIRTY), 0);
	}
	assert_int_equal(heap_stats(0, 0, &st), 0);
	assert_true(st.lock_max_ticks > 0);
	heap_set_lock_stats(false);
	test_heap_check_clean();
}

static uint64_t node_locks(uint32_t node)
{
	struct heap_stats st;

	assert_int_equal(heap_stats(node, 0, &st), 0);
	return st.locks;
}

/*
 * Order 0 and 9 through the CPU's cache: at most one node lock per batch,
 * and a cached block is free memory to every count.
 */
static void test_cache_few_locks_and_counts(void **state)
{
	struct page_info *pg[40];
	uint64_t total, locks0;

	test_two_node_heap();
	heap_set_cpu_caches(true);
	total = heap_stats_all(0).free_pages;
	locks0 = node_locks(0);
	for (unsigned int r = 0; r < 100; r++) {
		for (unsigned int i = 0; i < 40; i++) {
			pg[i] = heap_alloc(0, HEAP_ANY_NODE, 0, HEAP_NO_SCRUB,
					   NULL);
			assert_non_null(pg[i]);
			assert_int_equal(pg[i]->node, 0);
		}
		for (unsigned int i = 0; i < 40; i++)
			assert_int_equal(heap_free(pg[i], 0, HEAP_FREE_ZEROED),
					 0);
	}
	/* 8000 operations: 3 refills, no give-back (40 < the bound). */
	assert_true(node_locks(0) - locks0 <= 8000 / 16 / 16 + 4);
	for (unsigned int i = 0; i < 40; i++) {
		pg[i] = heap_alloc(i % 2 ? 9 : 0, 0, 0, HEAP_NO_SCRUB, NULL);
		assert_non_null(pg[i]);
	}
	for (unsigned int i = 0; i < 40; i++)
		assert_int_equal(
			heap_free(pg[i], i % 2 ? 9 : 0, HEAP_FREE_ZEROED), 0);
	assert_true(heap_cached_pages(0, false) > 0);
	assert_int_equal(heap_stats_all(0).free_pages, total);
	assert_int_equal(heap_stats_all(0).allocated_pages, 0);
	struct heap_stats st;

	assert_int_equal(heap_stats(0, 0, &st), 0);
	assert_int_equal(st.free_pages, st.total_pages);
	/* heap_check() drains: exact with the caches full. */
	test_heap_check_clean();
	assert_int_equal(heap_cached_pages(-1, false), 0);
	assert_int_equal(heap_stats_all(0).free_pages, total);
	heap_set_cpu_caches(false);
}

/* Bounded: a CPU that frees a lot keeps at most 65 pages of order 0. */
static void test_cache_bounded_and_drained(void **state)
{
	static struct page_info *pg[1000];
	uint64_t total;

	test_two_node_heap();
	heap_set_cpu_caches(true);
	total = heap_stats_all(0).free_pages;
	for (unsigned int i = 0; i < 1000; i++) {
		pg[i] = heap_alloc(0, 1, 0, HEAP_NO_SCRUB, NULL);
		assert_non_null(pg[i]);
	}
	for (unsigned int i = 0; i < 1000; i++) {
		assert_int_equal(heap_free(pg[i], 0, HEAP_FREE_ZEROED), 0);
		assert_true(heap_cached_pages(-1, false) <= 65);
	}
	assert_true(heap_cached_pages(1, false) > 0);
	/* A CPU going offline gives its cache back. */
	assert_true(heap_drain_cpu_cache(arch_cpu_id()) > 0);
	assert_int_equal(heap_cached_pages(-1, false), 0);
	assert_int_equal(heap_stats_all(0).free_pages, total);
	test_heap_check_clean();
	heap_set_cpu_caches(false);
}

/*
 * Low memory: an allocation that would fail takes the cached blocks back
 * first. Node 0 is left with one free 1024-page chunk, which a refill of
 * the cache splits; the order-10 allocation still gets it whole.
 */
static void test_cache_drained_on_low_memory(void **state)
{
	static struct page_info *small[1 << 15];
	struct page_info *big[64], *pg;
	unsigned int n = 0, s = 0;
	const uint32_t exact = HEAP_EXACT_NODE | HEAP_NO_SCRUB;

	test_two_node_heap();
	while (n < 64 && (big[n] = heap_alloc(10, 0, 0, exact, NULL)))
		n++;
	while (s < ARRAY_SIZE(small) &&
	       (small[s] = heap_alloc(0, 0, 0, exact, NULL)))
		s++;
	assert_true(n > 1 && n < 64 && s < ARRAY_SIZE(small));
	assert_int_equal(heap_free(big[--n], 10, HEAP_FREE_ZEROED), 0);

	heap_set_cpu_caches(true);
	pg = heap_alloc(0, 0, 0, exact, NULL);
	assert_non_null(pg);
	assert_int_equal(heap_free(pg, 0, HEAP_FREE_ZEROED), 0);
	assert_int_equal(heap_cached_pages(0, false), 16);
	big[n] = heap_alloc(10, 0, 0, exact, NULL);
	assert_non_null(big[n]);
	assert_int_equal(heap_cached_pages(-1, false), 0);
	for (unsigned int i = 0; i <= n; i++)
		assert_int_equal(heap_free(big[i], 10, HEAP_FREE_ZEROED), 0);
	for (unsigned int i = 0; i < s; i++)
		assert_int_equal(heap_free(small[i], 0, HEAP_FREE_ZEROED), 0);
	test_heap_check_clean();
	heap_set_cpu_caches(false);
}

/* A dirty block in a cache is dirty to the counts and zeroed when handed out. */
static void test_cache_dirty_and_misuse(void **state)
{
	struct page_info *pg;
	uint64_t dirty0;
	uint8_t *va;

	test_two_node_heap();
	heap_set_cpu_caches(true);
	dirty0 = heap_stats_all(0).dirty_pages;
	pg = heap_alloc(0, 0, 0, 0, NULL);
	assert_non_null(pg);
	va = phys_to_virt(pfn_to_paddr(pfn(pg->pfn)));
	memset(va, 0xab, PAGE_SIZE);
	assert_int_equal(heap_free(pg, 0, HEAP_FREE_DIRTY), 0);
	assert_int_equal(heap_stats_all(0).dirty_pages, dirty0 + 1);
	/* A second free of the cached block is refused. */
	TEST_EXPECT_PANIC(heap_free(pg, 0, HEAP_FREE_DIRTY), "not allocated");
	assert_ptr_equal(heap_alloc(0, 0, 0, 0, NULL), pg);
	for (unsigned int i = 0; i < PAGE_SIZE; i++)
		assert_int_equal(va[i], 0);
	assert_int_equal(heap_stats_all(0).dirty_pages, dirty0);
	assert_int_equal(heap_free(pg, 0, HEAP_FREE_ZEROED), 0);
	test_heap_check_clean();
	heap_set_cpu_caches(false);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_exact_missing_node_fails,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(
			test_any_node_starts_at_cpu_node, test_setup,
			test_teardown),
		cmocka_unit_test_setup_teardown(test_lock_stats_only_when_asked,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_cache_few_locks_and_counts,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_cache_bounded_and_drained,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(
			test_cache_drained_on_low_memory, test_setup,
			test_teardown),
		cmocka_unit_test_setup_teardown(test_cache_dirty_and_misuse,
						test_setup, test_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
