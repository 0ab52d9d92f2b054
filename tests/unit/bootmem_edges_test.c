/* SPDX-License-Identifier: MIT */
/*
 * common/mm/bootmem.c at its edges: a reservation at the top of the
 * address space (its end clamped to the last page boundary) leaves no
 * region of 0 bytes in the reserved table (append_above() took one, where
 * the fill takes none), and ranges then loaded above every other one are
 * still appended in order, each page named once.
 */
#include "common.h"

#define TOP_PAGE (~0ULL & ~0xfffULL)

/* Every reserved region holds at least a page, sorted, disjoint. */
static void check_regions(unsigned int want)
{
	unsigned int n;
	const struct region *r = bootmem_reserved_regions(&n);

	assert_int_equal(n, want);
	for (unsigned int i = 0; i < n; i++) {
		assert_true(pa_val(r[i].start) < pa_val(r[i].end));
		if (i)
			assert_true(pa_val(r[i - 1].end) <= pa_val(r[i].start));
	}
}

static void test_top_of_address_space(void **state)
{
	(void)state;
	bootmem_init();
	assert_int_equal(bootmem_add(pa(16 * MiB), 64 * MiB, 0), 0);
	/* Its end, past 2^64, is clamped to TOP_PAGE: nothing to reserve. */
	assert_int_equal(bootmem_reserve(pa(TOP_PAGE), 4096, "top"), 0);
	assert_int_equal(bootmem_reserve(pa(TOP_PAGE + 16), 1, "top"), 0);
	check_regions(0);
	/* The page below it is reservable, and so is RAM after it. */
	assert_int_equal(bootmem_reserve(pa(TOP_PAGE - 4096), 4096, "high"), 0);
	check_regions(1);
	assert_int_equal(bootmem_reserve(pa(20 * MiB), 4096, "a"), 0);
	assert_int_equal(bootmem_reserve(pa(24 * MiB), 4096, "b"), 0);
	check_regions(3);
	assert_int_equal(bootmem_reserved_ram_bytes(), 2 * 4096);
}

/* An empty reservation is refused, and reserves nothing. */
static void test_empty(void **state)
{
	(void)state;
	bootmem_init();
	assert_int_equal(bootmem_add(pa(16 * MiB), 64 * MiB, 0), 0);
	assert_int_equal(bootmem_reserve(pa(20 * MiB), 0, "none"), -EINVAL);
	check_regions(0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_top_of_address_space,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_empty, test_setup,
						test_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
