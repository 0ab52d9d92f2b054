// SPDX-License-Identifier: MIT
/*
 * The heap at runtime (issue 37): which node an allocation comes from
 * (HEAP_EXACT_NODE on a node that does not exist fails and is counted;
 * HEAP_ANY_NODE starts at the calling CPU's node).
 */
#include "common.h"

/* node 0: [0, 64M), node 1: [64M, 128M), handed over clean. */
static const struct test_ram two_nodes[] = {
	{0, 64 * MiB, 0},
	{64 * MiB, 128 * MiB, 1},
};

static void two_node_machine(void)
{
	struct test_machine_cfg c = {
		.ram = two_nodes,
		.ram_count = 2,
		.mode = HEAP_INIT_LAZY,
	};

	test_machine_boot(&c);
	heap_strict = true;
	heap_set_cpu_node(arch_cpu_id(), 0);
}

/* Today's code gave node 0's memory for a node that does not exist. */
static void test_exact_missing_node_fails(void **state)
{
	uint64_t free0, refused0;

	two_node_machine();
	free0 = heap_free_pages();
	refused0 = heap_bad_node_count();
	assert_null(heap_alloc(0, 2, 0, HEAP_EXACT_NODE));
	assert_null(heap_alloc(0, 63, 0, HEAP_EXACT_NODE));
	assert_null(heap_alloc(0, -7, 0, HEAP_EXACT_NODE));
	assert_null(heap_alloc_owned(0, 5, HEAP_EXACT_NODE, 3, NULL));
	assert_int_equal(heap_bad_node_count(), refused0 + 4);
	assert_int_equal(heap_free_pages(), free0);
	assert_int_equal(heap_owned_pages(3), 0);
	/* Without HEAP_EXACT_NODE a missing node means no preference. */
	struct page_info *pg = heap_alloc(0, 9, 0, 0);

	assert_non_null(pg);
	assert_int_equal(heap_free(pg, 0, false), 0);
	assert_int_equal(heap_bad_node_count(), refused0 + 4);
	test_heap_check_clean();
}

/* Today's code started every HEAP_ANY_NODE allocation at node 0. */
static void test_any_node_starts_at_cpu_node(void **state)
{
	struct page_info *a, *b, *o;

	two_node_machine();
	heap_set_cpu_node(arch_cpu_id(), 1);
	assert_int_equal(heap_cpu_node(), 1);
	a = heap_alloc(0, HEAP_ANY_NODE, 0, 0);
	b = heap_alloc(9, HEAP_ANY_NODE, 0, 0);
	o = heap_alloc_owned(4, HEAP_ANY_NODE, 0, 5, NULL);
	assert_non_null(a);
	assert_non_null(b);
	assert_non_null(o);
	assert_int_equal(a->node, 1);
	assert_int_equal(b->node, 1);
	assert_int_equal(o->node, 1);
	heap_set_cpu_node(arch_cpu_id(), 0);
	assert_int_equal(heap_cpu_node(), 0);
	assert_int_equal(heap_free(a, 0, false), 0);
	assert_int_equal(heap_free(b, 9, false), 0);
	assert_int_equal(heap_free_owned(o, 4, 5), 0);
	a = heap_alloc(0, HEAP_ANY_NODE, 0, 0);
	assert_int_equal(a->node, 0);
	assert_int_equal(heap_free(a, 0, false), 0);
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
	struct heap_node_stats st;
	struct page_info *pg;

	two_node_machine();
	heap_set_lock_stats(false);
	for (unsigned int i = 0; i < 64; i++) {
		pg = heap_alloc(i % 11, 0, 0, HEAP_NO_SCRUB);
		assert_non_null(pg);
		assert_int_equal(heap_free(pg, i % 11, false), 0);
	}
	assert_int_equal(heap_node_stats(0, &st), 0);
	assert_int_equal(st.lock_max_ticks, 0);
	heap_reset_lock_stats(); /* asked: every hold timed from here */
	for (unsigned int i = 0; i < 64; i++) {
		pg = heap_alloc(10, 0, 0, 0);
		assert_non_null(pg);
		assert_int_equal(heap_free(pg, 10, true), 0);
	}
	assert_int_equal(heap_node_stats(0, &st), 0);
	assert_true(st.lock_max_ticks > 0);
	heap_set_lock_stats(false);
	test_heap_check_clean();
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
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
