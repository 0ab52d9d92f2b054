/* SPDX-License-Identifier: MIT */
/* common/mm/numa.c: node count, distances, nearest node, fallback order. */
#include "common.h"

static struct bootinfo bi;

/* 4 nodes on a line: 0 - 1 - 2 - 3, distance 10 + 10 * hops. */
static void line_topology(void)
{
	bootinfo_init(&bi, BOOT_SANDBOX);
	bi.node_count = 4;
	for (uint32_t a = 0; a < 4; a++)
		for (uint32_t b = 0; b < 4; b++)
			bootinfo_set_distance(
				&bi, a, b,
				(uint8_t)(10 + 10 * (a > b ? a - b : b - a)));
}

static void test_before_init_and_single(void **state)
{
	bootinfo_init(&bi, BOOT_SANDBOX);
	bi.node_count = 1;
	numa_init(&bi);
	assert_int_equal(numa_node_count(), 1);
	assert_int_equal(node_distance(0, 0), 10);
	assert_int_equal(node_distance(0, 1), 255);
	assert_int_equal(numa_nearest(0, 1), 0);
	assert_int_equal(numa_nearest(0, 0), NUMA_NO_NODE);
}

static void test_distances(void **state)
{
	line_topology();
	numa_init(&bi);
	assert_int_equal(numa_node_count(), 4);
	assert_int_equal(node_distance(0, 3), 40);
	assert_int_equal(node_distance(2, 1), 20);
	assert_int_equal(node_distance(3, 3), 10);
	assert_int_equal(node_distance(4, 0), 255);

	/* No matrix: 10/20. */
	bootinfo_init(&bi, BOOT_SANDBOX);
	bi.node_count = 3;
	numa_init(&bi);
	assert_int_equal(node_distance(0, 2), 20);
	assert_int_equal(node_distance(1, 1), 10);

	/* Invalid matrix (unsanitised): 10/20 too. */
	line_topology();
	bi.distance[1][2] = 3;
	numa_init(&bi);
	assert_int_equal(node_distance(0, 3), 20);

	/* Out-of-range count falls back to one node. */
	test_quiet_begin();
	bi.node_count = MAX_NUMNODES + 1;
	numa_init(&bi);
	test_quiet_end();
	assert_int_equal(numa_node_count(), 1);
}

static void test_nearest(void **state)
{
	line_topology();
	numa_init(&bi);
	assert_int_equal(numa_nearest(1, 0xf), 1); /* itself */
	assert_int_equal(numa_nearest(0, 0x8), 3);
	assert_int_equal(numa_nearest(0, 0xc), 2);
	assert_int_equal(numa_nearest(1, 0x5), 0); /* tie: lowest */
	assert_int_equal(numa_nearest(3, 0x3), 1);
	assert_int_equal(numa_nearest(2, 0), NUMA_NO_NODE);
	assert_int_equal(numa_nearest(2, 1ULL << 10), NUMA_NO_NODE);
	assert_int_equal(numa_nearest(99, 0x6), 1);
}

static void test_fallback_order(void **state)
{
	uint32_t order[MAX_NUMNODES];

	line_topology();
	numa_init(&bi);
	assert_int_equal(numa_fallback_order(2, order), 4);
	assert_int_equal(order[0], 2);
	assert_int_equal(order[1], 1); /* 1 and 3 tie at 20: lower id */
	assert_int_equal(order[2], 3);
	assert_int_equal(order[3], 0);
	assert_int_equal(numa_fallback_order(0, order), 4);
	for (uint32_t i = 0; i < 4; i++)
		assert_int_equal(order[i], i);
	/* Distances never decrease along the order, for every start. */
	for (uint32_t f = 0; f < 4; f++) {
		numa_fallback_order(f, order);
		assert_int_equal(order[0], f);
		for (int i = 2; i < 4; i++)
			assert_true(node_distance(f, order[i - 1]) <=
				    node_distance(f, order[i]));
	}
}

/*
 * Asymmetric matrix (ACPI allows it): each query has a direction.
 *   from\to  0    1    2
 *     0     10   20   40
 *     1     21   10   15
 *     2     12  255   10
 */
static void asymmetric(void)
{
	static const uint8_t m[3][3] = {
		{10, 20, 40},
		{21, 10, 15},
		{12, 255, 10},
	};

	bootinfo_init(&bi, BOOT_SANDBOX);
	bi.node_count = 3;
	for (uint32_t a = 0; a < 3; a++)
		for (uint32_t b = 0; b < 3; b++)
			bootinfo_set_distance(&bi, a, b, m[a][b]);
	numa_init(&bi);
}

static void test_asymmetric_directions(void **state)
{
	uint32_t order[MAX_NUMNODES];

	asymmetric();
	/* Kept as given. */
	assert_int_equal(node_distance(1, 2), 15);
	assert_int_equal(node_distance(2, 1), 255);
	assert_int_equal(node_distance(0, 1), 20);
	assert_int_equal(node_distance(1, 0), 21);
	/* Seen from node 2 (its row): 0 is near, 1 unreachable. */
	assert_int_equal(numa_nearest(2, 0x3), 0);
	/* Seen from the candidates (distance[c][2]): 1's CPUs are nearer. */
	assert_int_equal(numa_nearest_to(2, 0x3), 1);
	assert_int_equal(numa_nearest_to(2, 0x7), 2); /* itself */
	assert_int_equal(numa_nearest_to(0, 0x6), 2); /* 12 < 20 */
	assert_int_equal(numa_nearest(0, 0x6), 1);    /* 20 < 40 */
	assert_int_equal(numa_nearest_to(1, 0), NUMA_NO_NODE);
	/* Fallback for allocations on node n: by distance[n][other]. */
	assert_int_equal(numa_fallback_order(0, order), 3);
	assert_int_equal(order[1], 1);
	assert_int_equal(order[2], 2);
	numa_fallback_order(1, order);
	assert_int_equal(order[1], 2); /* 15 < 21 */
	assert_int_equal(order[2], 0);
	/* Unreachable last. */
	numa_fallback_order(2, order);
	assert_int_equal(order[0], 2);
	assert_int_equal(order[1], 0);
	assert_int_equal(order[2], 1);
}

/* An unreachable node is chosen only when nothing else is a candidate. */
static void test_unreachable_only_as_last_resort(void **state)
{
	asymmetric();
	assert_int_equal(numa_nearest(2, 0x2), 1);
	assert_int_equal(numa_nearest_to(1, 0x4), 2);
	/* 255 from 2 to 1, 12 from 2 to 0: 0 even though 1 has the lower
	 * id would win a tie. */
	assert_int_equal(numa_nearest(2, 0x3), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_before_init_and_single,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_distances, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_nearest, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_fallback_order, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_asymmetric_directions,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(
			test_unreachable_only_as_last_resort, test_setup,
			test_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
