/* SPDX-License-Identifier: MIT */
/*
 * common/mm/heap_init.c: a live update's handoff in two steps on a
 * machine of several nodes. Between heap_handoff_first() and
 * heap_handoff_rest() the restore and the resumed guests allocate: a
 * guest's image and its stage-2 path tables on its domain's node
 * (guest_stage2.c), for the guest's life. The first step must therefore
 * open every node with free RAM, not only the lowest addresses (node 0),
 * and the two steps together must still leave the heap as one handoff.
 */
#include "common.h"

#define FIRST (64 * MiB)

/* Node 0 low, node 1 high: 512 MiB each. */
static const struct test_ram two_nodes[] = {
	{16 * MiB, 528 * MiB, 0},
	{528 * MiB, 1040 * MiB, 1},
};

/* The two nodes interleaved, 128 MiB a piece. */
static const struct test_ram interleaved[] = {
	{16 * MiB, 144 * MiB, 0},
	{144 * MiB, 272 * MiB, 1},
	{272 * MiB, 400 * MiB, 0},
	{400 * MiB, 528 * MiB, 1},
};

/* A reserved page every 4 MiB from 32 MiB on: many free ranges. */
#define CUT_COUNT 200
static struct test_rsv cuts[CUT_COUNT];

static void boot(const struct test_ram *ram, unsigned int count, bool handoff,
		 bool cut)
{
	struct test_machine_cfg c = {
		.ram = ram,
		.ram_count = count,
		.rsv = cut ? cuts : NULL,
		.rsv_count = cut ? CUT_COUNT : 0,
		.no_handoff = !handoff,
	};

	for (unsigned int i = 0; i < CUT_COUNT; i++) {
		uint64_t a = 32 * MiB + i * 4 * MiB + 8192;

		cuts[i] = (struct test_rsv){a, a + 4096, "bad firmware"};
	}
	test_machine_boot(&c);
}

static uint64_t node_free(int node)
{
	struct heap_stats st;

	assert_int_equal(heap_stats(node, 0, &st), 0);
	return st.free_pages;
}

/*
 * After the first step each node holds at least FIRST of free memory
 * (both have far more; with the cuts, not all of it); after the second
 * the heap is exactly one handoff's.
 */
static void two_steps(const struct test_ram *ram, unsigned int count, bool cut)
{
	struct test_snap one, two;
	unsigned int n1, n2;

	boot(ram, count, true, cut);
	one = test_heap_snapshot();
	boot(ram, count, false, cut);
	n1 = heap_handoff_first(false, FIRST);
	for (int node = 0; node < 2; node++) {
		assert_true(node_free(node) >= FIRST >> PAGE_SHIFT);
		/* Cut every 4 MiB: the first step stops well short. */
		if (cut)
			assert_true(node_free(node) < (200 * MiB) >>
				    PAGE_SHIFT);
	}
	n2 = heap_handoff_rest();
	assert_true(!cut || n2 > 0);
	assert_true(n1 + n2 >= 2);
	assert_int_equal(heap_handoff_rest(), 0);
	two = test_heap_snapshot();
	test_snap_equal(&one, &two);
	test_heap_check_clean();
	assert_int_equal(heap_refused_pages(), 0);
	free(one.c);
	free(two.c);
}

static void test_each_node_opened(void **state)
{
	(void)state;
	two_steps(two_nodes, 2, false);
}

static void test_each_node_opened_cut(void **state)
{
	(void)state;
	two_steps(two_nodes, 2, true);
}

static void test_interleaved_nodes(void **state)
{
	(void)state;
	two_steps(interleaved, 4, true);
}

/* One step asked for all: every range at once, nothing left for rest. */
static void test_all_at_once(void **state)
{
	struct test_snap one, two;

	(void)state;
	boot(interleaved, 4, true, true);
	one = test_heap_snapshot();
	boot(interleaved, 4, false, true);
	assert_true(heap_handoff_first(false, ~0ULL) > 100);
	assert_int_equal(heap_handoff_rest(), 0);
	two = test_heap_snapshot();
	test_snap_equal(&one, &two);
	free(one.c);
	free(two.c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_each_node_opened,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_each_node_opened_cut,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_interleaved_nodes,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_all_at_once, test_setup,
						test_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
