// SPDX-License-Identifier: MIT
/*
 * keel/heap.h on one screen (issue 37 §3): the counters come through one
 * call, heap_stats(), for one node or all, one owner or every owner; the
 * contents state of a freed block is heap_free()'s parameter (what
 * heap_free_clean_poc() did is HEAP_FREE_CLEAN_POC), an unknown state is
 * misuse; a NULL policy is the heap's (heap_set_cachemaint()).
 */
#include "common.h"

#define BASE (4096ULL + 256) /* pfn: 17 MiB, aligned to 1 MiB */

/* node 0: [0, 64M), node 1: [64M, 128M), handed over clean. */

/* All nodes is the sum of each node, and allocated is total - free. */
static void test_stats_all_is_sum_of_nodes(void **state)
{
	struct heap_stats all, n0, n1, before;
	struct page_info *a = NULL, *o = NULL;

	test_two_node_heap();
	before = heap_stats_all(0);
	a = heap_alloc(5, 1, 0, HEAP_EXACT_NODE, NULL);
	o = heap_alloc_owned(4, 0, HEAP_EXACT_NODE, 9, NULL, NULL);
	assert_non_null(a);
	assert_non_null(o);
	assert_int_equal(heap_stats(HEAP_ALL_NODES, 0, &all), 0);
	assert_int_equal(heap_stats(0, 0, &n0), 0);
	assert_int_equal(heap_stats(1, 0, &n1), 0);
	assert_int_equal(all.total_pages, n0.total_pages + n1.total_pages);
	assert_int_equal(all.total_pages, before.total_pages);
	assert_int_equal(all.free_pages, n0.free_pages + n1.free_pages);
	assert_int_equal(all.dirty_pages, n0.dirty_pages + n1.dirty_pages);
	assert_int_equal(all.owned_pages, n0.owned_pages + n1.owned_pages);
	assert_int_equal(all.allocated_pages, before.allocated_pages + 32 + 16);
	assert_int_equal(all.allocated_pages, all.total_pages - all.free_pages);
	assert_int_equal(n0.allocated_pages + n1.allocated_pages,
			 all.allocated_pages);
	assert_int_equal(n0.owned_pages, 16);
	assert_int_equal(all.owned_pages, 16);
	/* The per-node detail is each node's only. */
	assert_true(n0.chunks > 0 && n1.chunks > 0);
	assert_int_equal(all.chunks, 0);
	assert_int_equal(all.locks, 0);
	assert_int_equal(heap_free(a, 5, HEAP_FREE_DIRTY), 0);
	assert_int_equal(heap_free_owned(o, 4, 9), 0);
	test_heap_check_clean();
}

/* @owner selects one domain's pages; with one node it is refused. */
static void test_stats_owner_and_bad_args(void **state)
{
	struct heap_stats st;
	struct page_info *o5, *o6;

	test_two_node_heap();
	o5 = heap_alloc_owned(3, 0, 0, 5, NULL, NULL);
	o6 = heap_alloc_owned(6, 1, 0, 6, NULL, NULL);
	assert_non_null(o5);
	assert_non_null(o6);
	assert_int_equal(heap_stats(HEAP_ALL_NODES, 5, &st), 0);
	assert_int_equal(st.owned_pages, 8);
	assert_int_equal(heap_stats(HEAP_ALL_NODES, 6, &st), 0);
	assert_int_equal(st.owned_pages, 64);
	assert_int_equal(heap_stats(HEAP_ALL_NODES, 7, &st), 0);
	assert_int_equal(st.owned_pages, 0);
	assert_int_equal(heap_stats_all(0).owned_pages, 72);
	/* Refused: zeroed, -EINVAL. */
	memset(&st, 0xa5, sizeof(st));
	assert_int_equal(heap_stats(0, 5, &st), -EINVAL);
	assert_int_equal(st.free_pages, 0);
	assert_int_equal(heap_stats(2, 0, &st), -EINVAL);
	assert_int_equal(heap_stats(-2, 0, &st), -EINVAL);
	assert_int_equal(st.total_pages, 0);
	/* bad_node: HEAP_EXACT_NODE on a node that does not exist. */
	assert_null(heap_alloc(0, 3, 0, HEAP_EXACT_NODE, NULL));
	assert_int_equal(heap_stats(1, 0, &st), 0);
	assert_true(st.bad_node >= 1);
	assert_int_equal(st.bad_node, heap_stats_all(0).bad_node);
	assert_int_equal(heap_free_owned(o5, 3, 5), 0);
	assert_int_equal(heap_free_owned(o6, 6, 6), 0);
	assert_int_equal(heap_stats_all(0).owned_pages, 0);
	test_heap_check_clean();
}

static void one_node_no_handoff(void)
{
	static const struct test_ram one_node[] = {
		{0, 64 * MiB, 0},
	};
	struct test_machine_cfg c = {
		.ram = one_node,
		.ram_count = 1,
		.no_handoff = true,
		.cachemaint = CACHEMAINT_DEFERRED,
	};

	test_machine_boot(&c);
	heap_strict = true;
	assert_true(heap_add_range(0, pfn(BASE), pfn(BASE + 256), false));
}

/* Is every free chunk clean to PoC (@poc) or none? Return: chunks. */
static size_t chunks_poc(bool poc)
{
	struct test_snap s = test_heap_snapshot();
	size_t n = s.n;

	for (size_t i = 0; i < s.n; i++)
		assert_int_equal(!!(s.c[i].flags & PGF_CLEAN_POC), poc);
	free(s.c);
	return n;
}

/* HEAP_FREE_CLEAN_POC keeps the chunk clean to PoC; _ZEROED does not. */
static void test_free_clean_poc_is_a_state(void **state)
{
	struct test_snap s;
	struct page_info *pg;
	uint64_t ops;

	one_node_no_handoff();
	s = test_heap_snapshot();
	for (size_t i = 0; i < s.n; i++)
		heap_mark_clean(pfn_to_page(pfn(s.c[i].pfn)), true);
	free(s.c);
	pg = heap_alloc(4, HEAP_ANY_NODE, 0, 0, NULL);
	assert_non_null(pg);
	assert_true(pg->flags & PGF_CLEAN_POC);
	assert_int_equal(heap_free(pg, 4, HEAP_FREE_CLEAN_POC), 0);
	assert_int_equal(chunks_poc(true), 1);
	/* Allocated again: no maintenance, in the heap's sink (cm NULL). */
	ops = heap_cachemaint()->stats->ops;
	pg = heap_alloc(4, HEAP_ANY_NODE, 0, 0, NULL);
	assert_true(pg->flags & PGF_CLEAN_POC);
	assert_int_equal(heap_cachemaint()->stats->ops, ops);
	assert_int_equal(heap_free(pg, 4, HEAP_FREE_ZEROED), 0);
	assert_int_equal(chunks_poc(false), 1);
	pg = heap_alloc(4, HEAP_ANY_NODE, 0, 0, NULL);
	assert_int_equal(heap_cachemaint()->stats->ops, ops + 1);
	assert_int_equal(heap_free(pg, 4, HEAP_FREE_DIRTY), 0);
	assert_int_equal(heap_stats_all(0).dirty_pages, 16);
}

/* A contents state heap_free() does not know is misuse. */
static void test_free_unknown_state_refused(void **state)
{
	struct page_info *pg;
	uint64_t free0;

	test_two_node_heap();
	pg = heap_alloc(2, 0, 0, 0, NULL);
	assert_non_null(pg);
	free0 = heap_stats_all(0).free_pages;
	TEST_EXPECT_PANIC(heap_free(pg, 2, 3), "unknown contents state");
	heap_strict = false;
	test_quiet_begin();
	assert_int_equal(heap_free(pg, 2, 7), -EINVAL);
	assert_true(test_console_contains("unknown contents state"));
	test_quiet_end();
	assert_int_equal(heap_stats_all(0).free_pages, free0);
	assert_int_equal(heap_free(pg, 2, HEAP_FREE_ZEROED), 0);
	heap_strict = true;
	test_heap_check_clean();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_stats_all_is_sum_of_nodes,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_stats_owner_and_bad_args,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_free_clean_poc_is_a_state,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_free_unknown_state_refused,
						test_setup, test_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
