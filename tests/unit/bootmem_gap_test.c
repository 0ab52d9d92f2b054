/* SPDX-License-Identifier: MIT */
/*
 * common/mm/bootmem_gap.c: bootmem_gap_bad(), the lazy handoff's question
 * (is a gap between free ranges made of bad pages only?), asked in
 * address order as the handoff asks it and out of order, with the name
 * of the last bad region kept between answers: a region of another name,
 * even one that shares its first bytes, a hole, an empty gap and a gap
 * that is bad and something else all answer false. And the bytes a bad
 * range shares with another reservation are the bad one's.
 */
#include "common.h"

#define PG 4096ULL

static const struct test_ram ram[] = {{1 * GiB, 2 * GiB, 0}};

/* Sorted, apart unless said: each a gap of its own. */
static const struct test_rsv rsv[] = {
	{1 * GiB + 1 * MiB, 1 * GiB + 1 * MiB + PG, "bad firmware"},
	{1 * GiB + 2 * MiB, 1 * GiB + 2 * MiB + PG, "firmware"},
	{1 * GiB + 3 * MiB, 1 * GiB + 3 * MiB + PG, "bad firmware"},
	{1 * GiB + 4 * MiB, 1 * GiB + 4 * MiB + PG, "bad firmwareX"},
	{1 * GiB + 5 * MiB, 1 * GiB + 5 * MiB + PG, "bad option"},
	/* Two regions, one gap: bad, then bad of another source. */
	{1 * GiB + 6 * MiB, 1 * GiB + 6 * MiB + PG, "bad firmware"},
	{1 * GiB + 6 * MiB + PG, 1 * GiB + 6 * MiB + 2 * PG, "bad mce"},
	/* Two regions, one gap: bad, then not. */
	{1 * GiB + 7 * MiB, 1 * GiB + 7 * MiB + PG, "bad firmware"},
	{1 * GiB + 7 * MiB + PG, 1 * GiB + 7 * MiB + 2 * PG, "firmware"},
	/* Two regions with a hole between them. */
	{1 * GiB + 8 * MiB, 1 * GiB + 8 * MiB + PG, "bad firmware"},
	{1 * GiB + 8 * MiB + 2 * PG, 1 * GiB + 8 * MiB + 3 * PG,
	 "bad firmware"},
};

static bool gap(uint64_t at, uint64_t pages)
{
	return bootmem_gap_bad(pa(1 * GiB + at), pa(1 * GiB + at + pages * PG));
}

static void test_gap_bad(void **state)
{
	struct test_machine_cfg c = {
		.ram = ram,
		.ram_count = 1,
		.rsv = rsv,
		.rsv_count = ARRAY_SIZE(rsv),
		.bootmem_only = true,
	};

	(void)state;
	test_machine_boot(&c);
	for (int pass = 0; pass < 2; pass++) {
		assert_true(gap(1 * MiB, 1));
		assert_false(gap(2 * MiB, 1)); /* "firmware": not bad */
		assert_true(gap(3 * MiB, 1));
		assert_false(gap(4 * MiB, 1)); /* shares 12 bytes, not bad */
		assert_true(gap(5 * MiB, 1));
		assert_true(gap(6 * MiB, 2));
		assert_false(gap(7 * MiB, 2));
		assert_false(gap(8 * MiB, 3)); /* a hole in the middle */
		assert_false(gap(9 * MiB, 1)); /* free memory */
		assert_false(gap(1 * MiB, 0)); /* empty */
	}
	/* Out of order: the cursor is only a hint. */
	assert_true(gap(6 * MiB, 2));
	assert_false(gap(2 * MiB, 1));
	assert_true(gap(1 * MiB, 1));
	assert_false(gap(4 * MiB, 1));
}

/*
 * bm_bad_over_others(): a bad range inside or across another reservation
 * names its own bytes (the other split or cut around it); one inside a
 * domain's "preserved" memory, or inside another bad range, does not.
 * Before, the lower start named them all: the bad pages went uncounted.
 */
static const struct test_rsv over[] = {
	{1 * GiB, 1 * GiB + 1 * MiB, "low"},
	{1 * GiB + 8 * PG, 1 * GiB + 9 * PG, "bad option"},
	{1 * GiB + 2 * MiB, 1 * GiB + 3 * MiB, "preserved"},
	{1 * GiB + 2 * MiB + 4 * PG, 1 * GiB + 2 * MiB + 5 * PG, "bad mce"},
	{1 * GiB + 4 * MiB, 1 * GiB + 4 * MiB + 4 * PG, "module"},
	{1 * GiB + 4 * MiB + 2 * PG, 1 * GiB + 4 * MiB + 6 * PG,
	 "bad firmware"},
	{1 * GiB + 5 * MiB, 1 * GiB + 5 * MiB + 4 * PG, "bad option"},
	{1 * GiB + 5 * MiB + PG, 1 * GiB + 5 * MiB + 2 * PG, "bad firmware"},
};

static bool named(uint64_t s, uint64_t e, const char *name)
{
	unsigned int count;
	const struct region *r = bootmem_reserved_regions(&count);

	for (unsigned int i = 0; i < count; i++)
		if (pa_val(r[i].start) == 1 * GiB + s &&
		    pa_val(r[i].end) == 1 * GiB + e && !strcmp(r[i].name, name))
			return true;
	return false;
}

static void test_bad_names_its_bytes(void **state)
{
	struct test_machine_cfg c = {
		.ram = ram,
		.ram_count = 1,
		.rsv = over,
		.rsv_count = ARRAY_SIZE(over),
		.bootmem_only = true,
	};

	(void)state;
	test_machine_boot(&c);
	assert_true(named(0, 8 * PG, "low"));
	assert_true(named(8 * PG, 9 * PG, "bad option"));
	assert_true(named(9 * PG, 1 * MiB, "low"));
	assert_true(named(2 * MiB, 3 * MiB, "preserved"));
	assert_true(named(4 * MiB, 4 * MiB + 2 * PG, "module"));
	assert_true(named(4 * MiB + 2 * PG, 4 * MiB + 6 * PG, "bad firmware"));
	assert_true(named(5 * MiB, 5 * MiB + 4 * PG, "bad option"));
	assert_true(gap(8 * PG, 1));
	assert_true(gap(4 * MiB + 2 * PG, 4));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_gap_bad, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_bad_names_its_bytes,
						test_setup, test_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
