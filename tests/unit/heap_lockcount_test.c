// SPDX-License-Identifier: MIT
/*
 * The heap's per-CPU count of node-lock acquisitions (heap_cpu_node_locks(),
 * churn=N's lock_per_op): every node lock the calling CPU takes is counted
 * once, on that CPU only, whatever took it (allocation, free, owned
 * extents, the checks); the per-CPU caches take few.
 */
#include "common.h"

#include <keel/heap_check.h>

/* Three nodes of unequal size: allocations below go to each of them. */
static void three_node_machine(void)
{
	static const struct test_ram ram[] = {
		{0, 32 * MiB, 0},
		{32 * MiB, 96 * MiB, 1},
		{128 * MiB, 136 * MiB, 2},
	};

	test_machine_boot(&(struct test_machine_cfg){
		.ram = ram, .ram_count = 3, .mode = HEAP_INIT_LAZY});
	heap_strict = true;
	heap_set_cpu_node(arch_cpu_id(), 0);
}

/* Every node's lock acquisitions (heap_stats().locks), summed. */
static uint64_t all_node_locks(void)
{
	uint64_t sum = 0;

	for (unsigned int n = 0; n < heap_node_count(); n++) {
		struct heap_stats st;

		assert_int_equal(heap_stats((int)n, 0, &st), 0);
		sum += st.locks;
	}
	return sum;
}

/* One CPU: its count moves exactly as the nodes' counts do, no other's. */
static void test_counted_once_on_this_cpu(void **state)
{
	unsigned int cpu = arch_cpu_id(), other = cpu ? 0 : 1;
	uint64_t mine, mine2, theirs, nodes, nodes2;
	struct page_info *a, *b, *o;

	three_node_machine();
	theirs = heap_cpu_node_locks(other);
	mine = heap_cpu_node_locks(cpu);
	nodes = all_node_locks(); /* after its own lock of each node */
	a = heap_alloc(3, 1, 0, 0, NULL);
	b = heap_alloc(0, HEAP_ANY_NODE, 0, 0, NULL);
	o = heap_alloc_owned(5, 2, HEAP_EXACT_NODE, 7, NULL, NULL);
	assert_non_null(a);
	assert_non_null(b);
	assert_non_null(o);
	assert_int_equal(heap_free(a, 3, HEAP_FREE_ZEROED), 0);
	assert_int_equal(heap_free(b, 0, HEAP_FREE_DIRTY), 0);
	assert_int_equal(heap_free_owned(o, 5, 7), 0);
	nodes2 = all_node_locks();
	mine2 = heap_cpu_node_locks(cpu);
	/* Six operations, a lock each at least. */
	assert_true(nodes2 - nodes >= 6);
	/* This CPU also took the first all_node_locks()'s locks. */
	assert_int_equal(mine2 - mine, nodes2 - nodes + heap_node_count());
	assert_int_equal(heap_cpu_node_locks(other), theirs);
	/* A CPU no cache slot covers counts nothing, reads 0. */
	assert_int_equal(heap_cpu_node_locks(1u << 30), 0);
	test_heap_check_clean();
}

/* With the caches on, order-0 churn takes a node lock per batch at most. */
static void test_caches_take_few(void **state)
{
	unsigned int cpu = arch_cpu_id();
	struct page_info *pg[8];
	uint64_t mine;

	three_node_machine();
	heap_set_cpu_caches(true);
	mine = heap_cpu_node_locks(cpu);
	for (unsigned int r = 0; r < 200; r++) {
		for (unsigned int i = 0; i < 8; i++) {
			pg[i] = heap_alloc(0, HEAP_ANY_NODE, 0, HEAP_NO_SCRUB,
					   NULL);
			assert_non_null(pg[i]);
		}
		for (unsigned int i = 0; i < 8; i++)
			assert_int_equal(heap_free(pg[i], 0, HEAP_FREE_ZEROED),
					 0);
	}
	/* 3200 operations, the 8 blocks refilled once: a handful of locks. */
	assert_true(heap_cpu_node_locks(cpu) - mine <= 3200 / 16 / 16);
	heap_set_cpu_caches(false);
	test_heap_check_clean();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_counted_once_on_this_cpu,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_caches_take_few,
						test_setup, test_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
