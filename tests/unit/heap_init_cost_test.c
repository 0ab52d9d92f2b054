/* SPDX-License-Identifier: MIT */
/*
 * heap_init() costs O(nodes present) (issue 37 §4, issue 36 §5): each
 * node's state is one bootmem allocation on that node, made for the nodes
 * present only, nothing of it in keel's image; the per-owner counters hold
 * the owners actually used (HEAP_OWNER_SLOTS), refusing one more with a
 * warning and a failure, never a wrong count.
 */
#include "common.h"

/* Four nodes of 32 MiB each. */
static const struct test_ram four_nodes[] = {
	{16 * MiB, 48 * MiB, 0},
	{48 * MiB, 80 * MiB, 1},
	{80 * MiB, 112 * MiB, 2},
	{112 * MiB, 144 * MiB, 3},
};

static void boot_nodes(unsigned int nodes, bool handoff)
{
	struct test_machine_cfg c = {
		.ram = four_nodes,
		.ram_count = nodes,
		.no_handoff = !handoff,
	};

	test_machine_boot(&c);
}

/*
 * Bytes bootmem reserved under @name, and in *@per_node those inside each
 * of the four nodes' RAM.
 */
static uint64_t reserved_as(const char *name, uint64_t per_node[4])
{
	unsigned int count;
	const struct region *r = bootmem_reserved_regions(&count);
	uint64_t sum = 0;

	for (unsigned int n = 0; n < 4; n++)
		per_node[n] = 0;
	for (unsigned int i = 0; i < count; i++) {
		uint64_t s = pa_val(r[i].start), e = pa_val(r[i].end);

		if (strcmp(r[i].name, name))
			continue;
		sum += e - s;
		for (unsigned int n = 0; n < 4; n++)
			if (s >= four_nodes[n].start && e <= four_nodes[n].end)
				per_node[n] += e - s;
	}
	return sum;
}

/*
 * One node present: one node's state asked of bootmem (the old heap
 * cleared 64 nodes' worth of static tables, 3 MiB, and asked nothing);
 * four nodes: four times that, each on its own node.
 */
static void test_state_per_node_present(void **state)
{
	uint64_t one, four, per[4];

	(void)state;
	boot_nodes(1, false);
	one = reserved_as("heap node", per);
	assert_true(one > 0);
	assert_int_equal(per[0], one);
	/* A node's lists, counters and first range table: well under 64 KiB. */
	assert_true(one <= 64 * 1024);

	boot_nodes(4, false);
	four = reserved_as("heap node", per);
	assert_int_equal(four, 4 * one);
	for (unsigned int n = 0; n < 4; n++)
		assert_int_equal(per[n], one);
	assert_int_equal(heap_node_count(), 4);
}

/* The state is the heap's: every page of the nodes is still accounted. */
static void test_state_accounted(void **state)
{
	uint64_t per[4], ram = 0;

	(void)state;
	boot_nodes(4, true);
	for (unsigned int n = 0; n < 4; n++)
		ram += four_nodes[n].end - four_nodes[n].start;
	assert_true(reserved_as("heap node", per) > 0);
	assert_int_equal(heap_stats_all(0).total_pages,
			 (ram - bootmem_reserved_ram_bytes()) >> PAGE_SHIFT);
	assert_int_equal(heap_stats_all(0).free_pages,
			 heap_stats_all(0).total_pages);
	test_heap_check_clean();
}

/*
 * HEAP_OWNER_SLOTS owners may hold pages at once, each counted right; one
 * more is refused (NULL, one warning), and a heap_init() forgets them all.
 */
static void test_owner_table_bounded(void **state)
{
	static struct page_info *pg[HEAP_OWNER_SLOTS];
	unsigned int n;

	(void)state;
	boot_nodes(4, true);
	/* Owner ids spread over the whole id space, not 1..N. */
	for (n = 0; n < HEAP_OWNER_SLOTS; n++) {
		uint16_t owner = (uint16_t)(1 + n * 61);

		pg[n] = heap_alloc_owned(0, HEAP_ANY_NODE, HEAP_NO_SCRUB, owner,
					 NULL, NULL);
		assert_non_null(pg[n]);
	}
	assert_int_equal(heap_stats_all(0).owned_pages, HEAP_OWNER_SLOTS);
	for (n = 0; n < HEAP_OWNER_SLOTS; n++)
		assert_int_equal(
			heap_stats_all((uint16_t)(1 + n * 61)).owned_pages, 1);
	assert_int_equal(heap_stats_all(2).owned_pages, 0); /* never an owner */

	test_quiet_begin();
	assert_null(heap_alloc_owned(0, HEAP_ANY_NODE, HEAP_NO_SCRUB, 2, NULL,
				     NULL));
	test_quiet_end();
	assert_true(test_console_contains("owner 2 refused"));
	/* An owner with a slot still allocates. */
	assert_int_equal(heap_free_owned(pg[0], 0, 1), 0);
	pg[0] = heap_alloc_owned(0, HEAP_ANY_NODE, HEAP_NO_SCRUB, 1, NULL,
				 NULL);
	assert_non_null(pg[0]);

	for (n = 0; n < HEAP_OWNER_SLOTS; n++)
		assert_int_equal(
			heap_free_owned(pg[n], 0, (uint16_t)(1 + n * 61)), 0);
	assert_int_equal(heap_stats_all(0).owned_pages, 0);
	assert_int_equal(heap_stats_all(1).owned_pages, 0);

	/* A new heap: every slot free again. */
	boot_nodes(1, true);
	pg[0] = heap_alloc_owned(0, HEAP_ANY_NODE, HEAP_NO_SCRUB, 2, NULL,
				 NULL);
	assert_non_null(pg[0]);
	assert_int_equal(heap_stats_all(2).owned_pages, 1);
	assert_int_equal(heap_free_owned(pg[0], 0, 2), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_state_per_node_present,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_state_accounted,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_owner_table_bounded,
						test_setup, test_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
