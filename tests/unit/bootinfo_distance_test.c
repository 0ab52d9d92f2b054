/* SPDX-License-Identifier: MIT */
/*
 * boot/bootinfo.c: the NUMA distance matrix through bootinfo_sanitise():
 * missing and partial matrices completed, entries ACPI forbids mended one
 * at a time (or the matrix dropped for 10/20 when several are), asymmetric
 * and unreachable (255) distances kept, and the setter's range check.
 */
#include "common.h"

static struct bootinfo bi;

#define GB (1ULL << 30)

static int setup(void **state)
{
	bootinfo_init(&bi, BOOT_SANDBOX);
	return test_setup(state);
}

static void ram(uint64_t s, uint64_t e, uint32_t node)
{
	bootinfo_add_ram(&bi, pa(s), pa(e), node);
}

static void cpu(uint64_t hwid, uint32_t node)
{
	bootinfo_add_cpu(&bi, hwid, node, 0, (uint32_t)hwid, 0, true);
}

/* Nodes 0 and 2 with RAM (node_count 3), the boot CPU, matrix @m. */
static void three_nodes(const uint8_t (*m)[3])
{
	bootinfo_init(&bi, BOOT_SANDBOX);
	ram(0, GB, 0);
	ram(GB, 2 * GB, 2);
	cpu(0, 0);
	bi.cpus[0].boot_cpu = true;
	for (uint32_t a = 0; a < 3; a++)
		for (uint32_t b = 0; b < 3; b++)
			bootinfo_set_distance(&bi, a, b, m[a][b]);
}

/* Missing: 10/20 silently. */
static void test_distance_missing(void **state)
{
	ram(0, GB, 0);
	ram(GB, 2 * GB, 2);
	cpu(0, 0);
	bi.cpus[0].boot_cpu = true;
	bootinfo_sanitise(&bi);
	assert_int_equal(bi.fixups, 0);
	assert_false(bi.have_distance);
	for (int a = 0; a < 3; a++)
		for (int b = 0; b < 3; b++)
			assert_int_equal(bi.distance[a][b], a == b ? 10 : 20);
}

/* Partial: one direction and no diagonal is completed. */
static void test_distance_partial(void **state)
{
	bootinfo_init(&bi, BOOT_SANDBOX);
	ram(0, GB, 0);
	ram(GB, 2 * GB, 1);
	cpu(0, 0);
	bi.cpus[0].boot_cpu = true;
	bootinfo_set_distance(&bi, 1, 0, 31);
	bootinfo_sanitise(&bi);
	assert_int_equal(bi.fixups, 0);
	assert_true(bi.have_distance);
	assert_int_equal(bi.distance[0][1], 31);
	assert_int_equal(bi.distance[1][0], 31);
	assert_int_equal(bi.distance[1][1], 10);
}

/*
 * One entry ACPI forbids is mended alone, with one warning naming it: a
 * remote 5 takes the reverse (20), a local 11 becomes 10. The rest of the
 * matrix (here asymmetric: 0->2 = 30, 2->0 = 25) stays.
 */
static void test_distance_one_bad(void **state)
{
	static const uint8_t below[3][3] = {
		{10, 5, 30},
		{20, 10, 20},
		{25, 20, 10},
	};
	static const uint8_t diag[3][3] = {
		{10, 20, 30},
		{20, 11, 20},
		{25, 20, 10},
	};
	static const struct {
		const uint8_t (*m)[3];
		unsigned int a, b, want;
		const char *msg;
	} one[] = {
		{below, 0, 1, 20,
		 "distance 0 1 = 5: a remote distance must be above 10, "
		 "using 20"},
		{diag, 1, 1, 10,
		 "distance 1 1 = 11: a local distance must be 10, using 10"},
	};

	for (unsigned int c = 0; c < ARRAY_SIZE(one); c++) {
		three_nodes(one[c].m);
		sandbox_console_clear();
		bootinfo_sanitise(&bi);
		assert_int_equal(bi.fixups, 1);
		assert_int_equal(test_console_lines(), 1);
		assert_true(test_console_contains(one[c].msg));
		assert_true(bi.have_distance);
		for (unsigned int a = 0; a < 3; a++)
			for (unsigned int b = 0; b < 3; b++)
				assert_int_equal(bi.distance[a][b],
						 a == one[c].a && b == one[c].b
							 ? one[c].want
							 : one[c].m[a][b]);
	}
}

/* Two bad entries: the matrix is not trusted, 10/20 + one warning. */
static void test_distance_two_bad(void **state)
{
	static const uint8_t two[3][3] = {
		{10, 5, 30},
		{20, 11, 20},
		{25, 20, 10},
	};

	three_nodes(two);
	sandbox_console_clear();
	bootinfo_sanitise(&bi);
	assert_int_equal(bi.fixups, 1);
	assert_int_equal(test_console_lines(), 1);
	assert_true(test_console_contains(
		"distance 0 1 = 5: a remote distance must be above 10 (2 bad "
		"entries), using 10/20 for all nodes"));
	assert_false(bi.have_distance);
	for (int a = 0; a < 3; a++)
		for (int b = 0; b < 3; b++)
			assert_int_equal(bi.distance[a][b], a == b ? 10 : 20);
}

/* Out-of-range node ids are refused by the setter. */
static void test_distance_node_range(void **state)
{
	bootinfo_init(&bi, BOOT_SANDBOX);
	bootinfo_set_distance(&bi, MAX_NUMNODES, 0, 20);
	assert_false(bi.have_distance);
	assert_int_equal(bi.fixups, 1);
}

/*
 * ACPI allows distance[a][b] != distance[b][a]: the matrix is kept as
 * given, quietly (it was replaced by 10/20 before, which lost that node
 * 2's memory is nearest to node 1's CPUs).
 */
static void test_distance_asymmetric_kept(void **state)
{
	static const uint8_t m[3][3] = {
		{10, 20, 40},
		{21, 10, 15},
		{12, 50, 10},
	};

	three_nodes(m);
	sandbox_console_clear();
	bootinfo_sanitise(&bi);
	assert_int_equal(bi.fixups, 0);
	assert_int_equal(test_console_lines(), 0);
	assert_true(bi.have_distance);
	for (unsigned int a = 0; a < 3; a++)
		for (unsigned int b = 0; b < 3; b++)
			assert_int_equal(bi.distance[a][b], m[a][b]);
	/* Idempotent. */
	bootinfo_sanitise(&bi);
	assert_int_equal(bi.fixups, 0);
	assert_int_equal(bi.distance[1][2], 15);
}

/* 255 = unreachable: a valid remote distance, kept both as given and
 * when it fills an unset reverse. */
static void test_distance_unreachable(void **state)
{
	bootinfo_init(&bi, BOOT_SANDBOX);
	ram(0, GB, 0);
	ram(GB, 2 * GB, 1);
	ram(2 * GB, 3 * GB, 2);
	cpu(0, 0);
	bi.cpus[0].boot_cpu = true;
	bootinfo_set_distance(&bi, 0, 1, 255);
	bootinfo_set_distance(&bi, 1, 0, 20);
	bootinfo_set_distance(&bi, 2, 0, 255);
	bootinfo_sanitise(&bi);
	assert_int_equal(bi.fixups, 0);
	assert_true(bi.have_distance);
	assert_int_equal(bi.distance[0][1], 255);
	assert_int_equal(bi.distance[1][0], 20);
	assert_int_equal(bi.distance[2][0], 255);
	assert_int_equal(bi.distance[0][2], 255); /* the reverse */
	assert_int_equal(bi.distance[1][2], 20);  /* not given */
	/* The policy as parsers see it. */
	assert_null(bootinfo_distance_problem(0, 1, 255));
	assert_null(bootinfo_distance_problem(0, 1, 11));
	assert_null(bootinfo_distance_problem(3, 3, 10));
	assert_non_null(bootinfo_distance_problem(0, 1, 10));
	assert_non_null(bootinfo_distance_problem(2, 2, 255));
	assert_non_null(bootinfo_distance_problem(0, 1, 256));
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup, test_teardown)
	const struct CMUnitTest tests[] = {
		T(test_distance_missing),     T(test_distance_partial),
		T(test_distance_one_bad),     T(test_distance_two_bad),
		T(test_distance_node_range),  T(test_distance_asymmetric_kept),
		T(test_distance_unreachable),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
