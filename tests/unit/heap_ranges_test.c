/* SPDX-License-Identifier: MIT */
/*
 * The heap's range tables (split from heap_test.c): ranges the heap must
 * refuse (overlap, empty, unknown node, no frame table), adjacent ranges
 * merging into one, and a node with more free ranges than its static table
 * getting a larger one from bootmem before the handoff.
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

static void test_bad_ranges_refused(void **state)
{
	const struct region *r;

	manual_machine(HEAP_INIT_LAZY);
	add(0, PFN_16M, PFN_16M + 100, false);
	add(0, PFN_16M + 200, PFN_16M + 300, false);
	test_quiet_begin();
	/* overlaps, empty, unknown node, no frame table storage */
	assert_int_equal(
		heap_add_range(0, pfn(PFN_16M + 50), pfn(PFN_16M + 150), false),
		0);
	assert_int_equal(heap_add_range(0, pfn(PFN_16M + 250),
					pfn(PFN_16M + 350), false),
			 0);
	assert_int_equal(heap_add_range(0, pfn(PFN_16M + 150),
					pfn(PFN_16M + 150), false),
			 0);
	assert_int_equal(heap_add_range(7, pfn(PFN_16M + 400),
					pfn(PFN_16M + 500), false),
			 0);
	assert_int_equal(heap_add_range(0, pfn(1ULL << 30),
					pfn((1ULL << 30) + 8), false),
			 0);
	test_quiet_end();
	assert_int_equal(heap_stats_all(0).free_pages, 200);
	assert_int_equal(heap_stats_all(0).total_pages, 200);
	/* The gap filled exactly: one merged range. */
	add(0, PFN_16M + 100, PFN_16M + 200, false);
	assert_int_equal(heap_node_range_count(0), 1);
	r = heap_node_range_next(0, &(struct heap_range_pos){0});
	assert_int_equal(pfn_val(region_start_pfn(&r[0])), PFN_16M);
	assert_int_equal(pfn_val(region_end_pfn(&r[0])), PFN_16M + 300);
	test_heap_check_clean();
}

/*
 * More free ranges on a node than its static range table holds: the heap
 * counts them before the handoff and asks bootmem for a table on the node
 * (heap_size_ranges()), so every range is handed over and none is lost.
 */
static void test_range_table_grows(void **state)
{
	static struct test_rsv holes[HEAP_MAX_RANGES + 44];
	static const struct test_ram r[] = {{16 * MiB, 64 * MiB, 0}};
	struct test_machine_cfg c = {
		.ram = r,
		.ram_count = 1,
		.rsv = holes,
		.rsv_count = ARRAY_SIZE(holes),
	};
	const struct region *rsv;
	unsigned int n, named = 0;

	/* One reserved page every 32 pages from 16 MiB: 300 free ranges. */
	for (unsigned int i = 0; i < ARRAY_SIZE(holes); i++)
		holes[i] = (struct test_rsv){16 * MiB + i * 32 * 4096ULL,
					     16 * MiB + i * 32 * 4096ULL + 4096,
					     "hole"};
	test_machine_boot(&c);
	assert_true(heap_node_range_count(0) > HEAP_MAX_RANGES);
	/* The table came from bootmem, under the heap's name. */
	rsv = bootmem_reserved_regions(&n);
	for (unsigned int i = 0; i < n; i++)
		named += !strcmp(rsv[i].name, "heap ranges");
	assert_int_equal(named, 1);
	assert_int_equal(heap_stats_all(0).free_pages +
				 bootmem_reserved_ram_bytes() / 4096,
			 (64 - 16) * MiB / 4096);
	test_heap_check_clean();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_bad_ranges_refused,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_range_table_grows,
						test_setup, test_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
