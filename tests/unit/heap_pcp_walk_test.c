// SPDX-License-Identifier: MIT
/*
 * The heap's walkers handle the blocks in the per-CPU caches themselves
 * (issue 37 §1: a block in a cache is free memory to every count), so
 * that no caller drains the caches for them: heap_take_dirty() reaches a
 * dirty cached block when the free lists have none, and
 * heap_for_each_free() of one node sees that node's cached blocks as
 * free chunks without emptying another node's caches.
 */
#include "common.h"

/* arch/sandbox/cpu.c: what arch_cpu_id() returns on this thread. */
void sandbox_set_cpu_id(unsigned int cpu, uint64_t hwid);

/* node 0: [0, 64M), node 1: [64M, 128M), handed over clean. */

/*
 * Blocks freed dirty into the calling CPU's cache: heap_take_dirty() finds
 * them (before, it read only the lists, which are clean here, and said
 * NULL: the scrubber missed them unless its caller drained every cache),
 * heap_put_clean() gives them back, the clean cached blocks stay.
 */
static void test_take_dirty_reaches_caches(void **state)
{
	static const unsigned int orders[] = {0, 0, 3, 9};
	struct page_info *pg[4];
	uint64_t total, pages = 0, taken = 0;
	struct heap_stats st;
	unsigned int k;

	(void)state;
	test_two_node_heap();
	heap_set_cpu_caches(true);
	total = heap_stats_all(0).free_pages;
	for (unsigned int i = 0; i < 4; i++) {
		pg[i] = heap_alloc(orders[i], 0, 0, HEAP_NO_SCRUB, NULL);
		assert_non_null(pg[i]);
	}
	for (unsigned int i = 0; i < 4; i++) {
		assert_int_equal(heap_free(pg[i], orders[i], HEAP_FREE_DIRTY),
				 0);
		pages += 1ull << orders[i];
	}
	assert_int_equal(heap_cached_pages(0, true), pages);
	assert_int_equal(heap_stats_all(0).dirty_pages, pages);

	while ((pg[0] = heap_take_dirty(0, &k))) {
		assert_int_equal(pg[0]->first_dirty, 0);
		taken += 1ull << k;
		heap_put_clean(pg[0], k, false);
	}
	assert_int_equal(taken, pages);
	assert_null(heap_take_dirty(1, &k));
	assert_int_equal(heap_cached_pages(-1, true), 0);
	assert_true(heap_cached_pages(0, false) > 0); /* no drain */
	assert_int_equal(heap_stats(0, 0, &st), 0);
	assert_int_equal(st.dirty_pages, 0);
	assert_int_equal(heap_stats_all(0).free_pages, total);
	test_heap_check_clean();
	heap_set_cpu_caches(false);
}

struct walked {
	uint64_t pages;
};

static void count_free(struct page_info *head, unsigned int order,
		       unsigned int zone, void *arg)
{
	struct walked *w = arg;

	(void)head;
	(void)zone;
	w->pages += 1ull << order;
}

/*
 * The walk of node 0 counts node 0's cached blocks as free (its count
 * equals the node's free pages), and leaves CPU 1's cache of node 1
 * alone (before, every node's caches were drained for any walk).
 */
static void test_walk_sees_its_node_only(void **state)
{
	unsigned int self = arch_cpu_id();
	struct page_info *a, *b;
	struct walked w = {0};
	struct heap_stats st;
	uint64_t other;

	(void)state;
	test_two_node_heap();
	heap_set_cpu_caches(true);
	a = heap_alloc(0, 0, 0, HEAP_NO_SCRUB, NULL);
	assert_non_null(a);
	sandbox_set_cpu_id(1, 1);
	b = heap_alloc(0, 1, 0, HEAP_NO_SCRUB | HEAP_EXACT_NODE, NULL);
	assert_non_null(b);
	assert_int_equal(heap_free(b, 0, HEAP_FREE_ZEROED), 0);
	sandbox_set_cpu_id(self, self);
	assert_int_equal(heap_free(a, 0, HEAP_FREE_ZEROED), 0);
	other = heap_cached_pages(1, false);
	assert_true(other > 0);
	assert_true(heap_cached_pages(0, false) > 0);

	assert_int_equal(heap_stats(0, 0, &st), 0);
	heap_for_each_free(0, count_free, &w);
	assert_int_equal(w.pages, st.free_pages);
	assert_int_equal(heap_cached_pages(0, false), 0);
	assert_int_equal(heap_cached_pages(1, false), other);
	test_heap_check_clean();
	heap_set_cpu_caches(false);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_take_dirty_reaches_caches,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_walk_sees_its_node_only,
						test_setup, test_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
