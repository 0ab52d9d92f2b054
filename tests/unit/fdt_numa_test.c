/* SPDX-License-Identifier: MIT */
/*
 * boot/fdt/fdt_numa.c (and the numa-node-ids of fdt_mem.c, fdt_cpus.c): the
 * distance-map and the node map, on blobs built by numa_dt(). Fixture:
 * fdt_fixture.h.
 */
#include "fdt_fixture.h"

/*
 * An asymmetric distance-map with an unreachable (255) entry is kept as
 * given (it was replaced by the defaults before); a one-way entry is
 * mirrored; an entry naming a node without memory or CPU: one warning.
 */
static void test_distance_asymmetric(void **state)
{
	static const uint32_t ids[3] = {0, 1, 2};
	static const uint32_t trip[][3] = {
		{0, 1, 20}, {1, 0, 21},	 {0, 2, 40}, {2, 0, 12},
		{1, 2, 15}, {2, 1, 255}, {0, 7, 30}, {7, 1, 30},
	};
	static const uint8_t want[3][3] = {
		{10, 20, 40},
		{21, 10, 15},
		{12, 255, 10},
	};

	parse_numa_dt(ids, 3, trip, ARRAY_SIZE(trip));
	assert_int_equal(test_console_warnings(), 1);
	assert_true(test_console_contains(
		"distance-matrix entry 0 7 names node 7, which has no memory "
		"and no CPU: ignored (2 such entries)"));
	bootinfo_sanitise(&bi);
	assert_int_equal(bi.node_count, 3);
	assert_true(bi.have_distance);
	for (unsigned int a = 0; a < 3; a++)
		for (unsigned int b = 0; b < 3; b++)
			assert_int_equal(bi.distance[a][b], want[a][b]);
}

/* One bad triplet is skipped (the reverse stands in); two drop the map. */
static void test_distance_bad_entries(void **state)
{
	static const uint32_t ids[2] = {0, 1};
	static const uint32_t one[][3] = {{0, 0, 10}, {0, 1, 10}, {1, 0, 30}};
	static const uint32_t two[][3] = {{0, 0, 11}, {0, 1, 10}, {1, 0, 30}};

	parse_numa_dt(ids, 2, one, ARRAY_SIZE(one));
	assert_int_equal(test_console_warnings(), 1);
	assert_true(test_console_contains(
		"distance-matrix entry 0 1 = 10: a remote distance must be "
		"above 10, entry skipped"));
	bootinfo_sanitise(&bi);
	assert_true(bi.have_distance);
	assert_int_equal(bi.distance[0][1], 30);
	assert_int_equal(bi.distance[1][0], 30);

	parse_numa_dt(ids, 2, two, ARRAY_SIZE(two));
	assert_int_equal(test_console_warnings(), 1);
	assert_true(test_console_contains(
		"distance-matrix entry 0 0 = 11: a local distance must be 10 "
		"(2 bad entries), using defaults"));
	bootinfo_sanitise(&bi);
	assert_false(bi.have_distance);
	assert_int_equal(bi.distance[1][0], 20);
}

/*
 * A /distance-map under another compatible (numa,distance-map-v1, as in
 * Cavium's first two-socket ThunderX device tree) or none: ignored as
 * Linux ignores it, with one warning instead of silence, and the default
 * distances, not the map's 30.
 */
static void test_distance_map_other_compatible(void **state)
{
	static const uint32_t ids[2] = {0, 1};
	static const uint32_t trip[][3] = {{0, 0, 10}, {0, 1, 30}, {1, 1, 10}};
	static const char *const compat[] = {"numa,distance-map-v1", NULL};
	static const char *const said[] = {
		"distance-map is \"numa,distance-map-v1\", not "
		"numa-distance-map-v1: ignored, using default distances",
		"distance-map has no compatible: ignored, using default "
		"distances",
	};

	for (unsigned int i = 0; i < ARRAY_SIZE(compat); i++) {
		size_t len;
		uint8_t *blob = numa_dt(ids, 2, trip, ARRAY_SIZE(trip), &len);
		uint8_t *b = malloc(len + 256), *exact;
		int off;

		assert_non_null(b);
		assert_int_equal(fdt_open_into(blob, b, (int)len + 256), 0);
		off = fdt_path_offset(b, "/distance-map");
		assert_true(off >= 0);
		if (compat[i])
			assert_int_equal(fdt_setprop_string(b, off,
							    "compatible",
							    compat[i]),
					 0);
		else
			assert_int_equal(fdt_delprop(b, off, "compatible"), 0);
		assert_int_equal(fdt_pack(b), 0);
		exact = copy_exact(b, fdt_totalsize(b));
		sandbox_console_clear();
		assert_int_equal(parse_buf(exact, fdt_totalsize(b)), 0);
		assert_int_equal(test_console_warnings(), 1);
		assert_true(test_console_contains(said[i]));
		bootinfo_sanitise(&bi);
		assert_int_equal(bi.node_count, 2);
		assert_false(bi.have_distance);
		assert_int_equal(bi.distance[0][1], 20);
		assert_int_equal(bi.distance[1][0], 20);
		free(exact);
		free(b);
		free(blob);
	}
}

/*
 * 20 numa-node-ids, in the blob in ascending and then in descending order:
 * either way the lowest MAX_NUMNODES (0-15) are kept, 16-19 fold into the
 * kept node nearest by their own row (16 -> 3, 17 -> 9, 18 unreachable
 * everywhere -> 0, 19 ties 5 and 7 at 13, the reverse 7 -> 19 = 14 <
 * 5 -> 19 = 30 picks 7); one warning, counted.
 */
static void test_node_fold(void **state)
{
	/*
	 * MAX_NUMNODES + 4 ids: the extra four are X = MAX_NUMNODES + 0..3.
	 * X+0 -> 3 (11 beats 30), X+1 -> 9 (12 beats 13), X+2 -> 0 (only
	 * unreachable entries: the lowest kept node), X+3 -> 7 (a tie at 13
	 * broken by the reverse distance, 14 beats 30).
	 */
	const uint32_t x = MAX_NUMNODES, n = MAX_NUMNODES + 4;
	const uint32_t trip[][3] = {
		{x, 3, 11},	{x, 4, 30},	 {x + 1, 9, 12},
		{x + 1, 8, 13}, {x + 2, 0, 255}, {x + 2, 1, 255},
		{x + 3, 5, 13}, {x + 3, 7, 13},	 {5, x + 3, 30},
		{7, x + 3, 14}, {3, 5, 25},	 {5, 3, 35},
		{3, x, 12},
	};
	static const uint32_t fold[4] = {3, 9, 0, 7};
	static uint32_t ids[MAX_NUMNODES + 4];
	char want[128];

	snprintf(want, sizeof(want),
		 "dt: %u proximity domains, %u kept (MAX_NUMNODES=%u), 4 "
		 "folded into their nearest node",
		 n, x, x);
	for (unsigned int order = 0; order < 2; order++) {
		for (unsigned int i = 0; i < n; i++)
			ids[i] = order ? n - 1 - i : i;
		parse_numa_dt(ids, n, trip, ARRAY_SIZE(trip));
		assert_int_equal(test_console_warnings(), 1);
		assert_true(test_console_contains(want));
		assert_int_equal(bi.fixups, 1);
		assert_int_equal(bi.dropped_nodes, 4);
		assert_int_equal(bi.ram.count, n);
		assert_int_equal(bi.cpu_count, n);
		/* RAM [i GiB, i+1 GiB) and MPIDR i belong to ids[i]. */
		for (unsigned int r = 0; r < n; r++) {
			uint32_t id = ids[pa_val(bi.ram.regions[r].start) / GB];

			assert_int_equal(bi.ram.regions[r].node,
					 id < x ? id : fold[id - x]);
			id = ids[bi.cpus[r].hwid];
			assert_int_equal(bi.cpus[r].node,
					 id < x ? id : fold[id - x]);
		}
		bootinfo_sanitise(&bi);
		assert_int_equal(bi.node_count, x);
		assert_int_equal(bi.distance[3][5], 25);
		assert_int_equal(bi.distance[5][3], 35);
		assert_int_equal(bi.distance[3][4], 20); /* not given */
	}
}

/*
 * Issue 20 §2.5: numa-node-id 0xffffffff is NUMA_NO_NODE: refused with
 * one warning for the whole tree (none before), its memory and CPU on
 * node 0 (the fallback of a missing id); no node has that fw_id.
 */
static void test_node_id_no_node(void **state)
{
	static const uint32_t ids[3] = {0, 0xffffffff, 1};

	parse_numa_dt(ids, 3, NULL, 0);
	assert_int_equal(test_console_warnings(), 1);
	assert_true(test_console_contains(
		"dt: memory@40000000 numa-node-id 0xffffffff is NUMA_NO_NODE: "
		"refused, using node 0"));
	/*
	 * The refused id's GiB falls back to node 0 and so merges with
	 * node 0's GiB below it as it is added (issue 20 §2.2): two ranges.
	 */
	assert_int_equal(bi.ram.count, 2);
	assert_int_equal(bi.cpu_count, 3);
	/* numa_dt() nodes come out in reverse: find them by address. */
	for (unsigned int i = 0; i < 2; i++) {
		bool low = pa_val(bi.ram.regions[i].start) == 0;

		assert_int_equal(pa_val(bi.ram.regions[i].end) -
					 pa_val(bi.ram.regions[i].start),
				 low ? 2 * GB : GB);
		assert_int_equal(bi.ram.regions[i].node, low ? 0 : 1);
	}
	for (unsigned int i = 0; i < 3; i++)
		assert_int_equal(bi.cpus[i].node, bi.cpus[i].hwid == 2 ? 1 : 0);
	assert_int_equal(bi.node_fw_id[0], 0);
	assert_int_equal(bi.node_fw_id[1], 1);
	assert_int_equal(bi.node_fw_id[2], NODE_FW_ID_NONE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_distance_asymmetric,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_distance_bad_entries,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(
			test_distance_map_other_compatible, test_setup,
			test_teardown),
		cmocka_unit_test_setup_teardown(test_node_fold, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_node_id_no_node,
						test_setup, test_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
