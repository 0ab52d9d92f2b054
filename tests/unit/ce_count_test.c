/* SPDX-License-Identifier: MIT */
/*
 * common/mm/ce_count.c: corrected errors counted per page against the
 * real heap (tests/unit/heap_offline_fixture.h's machine). The page
 * reaching the threshold is taken out as soft from a machine check,
 * one line when first seen and one when taken out, none between;
 * errors after it are counted, never acted on again; heap_online() gives
 * it back. Threshold 0 counts and never takes out. A full table replaces
 * the entry with the fewest errors, the least recently seen of those (a
 * page near the threshold keeps its count), an entry already dealt with
 * before any. A page already out of service: said so once, not counted as
 * offlined by the table.
 */
#include "heap_offline_fixture.h"

#include <asm/sandbox.h>
#include <keel/ce_count.h>

#define STATUS 0x9c0000000000009fULL

static struct ce_count_stats ce(void)
{
	struct ce_count_stats st;

	ce_count_stats(&st);
	return st;
}

static void fresh(void)
{
	machine();
	ce_count_reset();
	test_quiet_begin();
	sandbox_console_clear();
}

static void test_threshold(void **state)
{
	uint64_t p = BASE + 77;

	(void)state;
	fresh();
	assert_int_equal(ce_count_note(pfn(p), STATUS, 3), 1);
	assert_int_equal(ce_count_note(pfn(p), STATUS, 3), 2);
	assert_int_equal(stats().bad_pages, 0);
	assert_int_equal(heap_stats_all(0).free_pages, PAGES);
	assert_int_equal(ce_count_note(pfn(p), STATUS, 3), 3);
	assert_int_equal(stats().bad_pages, 1);
	assert_int_equal(stats().bad_by_source[HEAP_BAD_FROM_MCE >> 4], 1);
	assert_int_equal(heap_owner_of(pfn(p), NULL, NULL), HEAP_OWNER_BAD);
	/* More errors: counted, nothing tried, nothing said. */
	assert_int_equal(ce_count_note(pfn(p), STATUS, 3), 4);
	assert_int_equal(ce_count_note(pfn(p), STATUS, 3), 5);
	assert_int_equal(test_console_count(
				 "mce: corrected memory error in page 0x4004d "
				 "(status 0x9c0000000000009f): counted, taken "
				 "out of service at 3 (ce_offline=)\n"),
			 1);
	assert_int_equal(
		test_console_count("mce: page 0x4004d had 3 corrected errors "
				   "(ce_offline=3): taken out of service "
				   "(soft) (0)\n"),
		1);
	assert_int_equal(test_console_lines(), 2);
	assert_int_equal(ce().errors, 5);
	assert_int_equal(ce().pages, 1);
	assert_int_equal(ce().offlined, 1);
	/* Soft: it can come back. */
	assert_int_equal(heap_online(pfn(p)), 0);
	assert_int_equal(heap_stats_all(0).free_pages, PAGES);
	test_heap_check_clean();
}

static void test_never(void **state)
{
	uint64_t p = BASE + 5;

	(void)state;
	fresh();
	for (unsigned int i = 1; i <= 1000; i++)
		assert_int_equal(ce_count_note(pfn(p), STATUS, 0), i);
	assert_int_equal(stats().bad_pages, 0);
	assert_int_equal(test_console_lines(), 1);
	assert_true(test_console_contains("counted (ce_offline=0: never "
					  "taken out)"));
	assert_int_equal(ce().errors, 1000);
	assert_int_equal(ce().offlined, 0);
}

/*
 * Full: page A (2 errors) survives every newcomer, which replaces the
 * least recently seen single-error page; a page already taken out goes
 * first of all.
 */
static void test_eviction(void **state)
{
	uint64_t a = BASE + 1000, done = BASE + 2000;

	(void)state;
	fresh();
	ce_count_note(pfn(a), STATUS, 2);
	for (unsigned int i = 1; i < CE_COUNT_SLOTS; i++)
		ce_count_note(pfn(BASE + i), STATUS, 2);
	assert_int_equal(ce().evictions, 0);
	assert_int_equal(ce_count_note(pfn(a), STATUS, 0), 2);
	/* A newcomer replaces BASE + 1, the oldest with one error. */
	ce_count_note(pfn(BASE + 500), STATUS, 0);
	assert_int_equal(ce().evictions, 1);
	assert_int_equal(ce_count_note(pfn(BASE + 2), STATUS, 0), 2);
	assert_int_equal(ce_count_note(pfn(a), STATUS, 0), 3);
	/* BASE + 1 was forgotten: it starts over (and replaces BASE + 3). */
	assert_int_equal(ce_count_note(pfn(BASE + 1), STATUS, 0), 1);
	assert_int_equal(ce_count_note(pfn(BASE + 3), STATUS, 0), 1);
	assert_int_equal(ce().evictions, 3);
	assert_int_equal(ce().pages, CE_COUNT_SLOTS + 3);

	/* One entry dealt with (offlined at 2): replaced before any other. */
	ce_count_note(pfn(BASE + 2), STATUS, 3); /* 3rd error: taken out */
	assert_int_equal(stats().bad_pages, 1);
	ce_count_note(pfn(done), STATUS, 0);
	assert_int_equal(ce_count_note(pfn(BASE + 5), STATUS, 0), 2);
	assert_int_equal(ce_count_note(pfn(BASE + 2), STATUS, 3), 1);
	/* Taken in again, it meets the heap's -EEXIST at the threshold. */
	ce_count_note(pfn(BASE + 2), STATUS, 3);
	sandbox_console_clear();
	ce_count_note(pfn(BASE + 2), STATUS, 3);
	assert_true(test_console_contains("already out of service (-17)"));
	assert_int_equal(ce().offlined, 1);
	assert_int_equal(heap_online(pfn(BASE + 2)), 0);
	test_heap_check_clean();
}

/* Broken before (a #MC took it out): said once at the threshold. */
static void test_already_offline(void **state)
{
	uint64_t p = BASE + 4242;

	(void)state;
	fresh();
	assert_int_equal(
		heap_offline(pfn(p), HEAP_BAD_BROKEN | HEAP_BAD_FROM_MCE), 0);
	sandbox_console_clear();
	for (unsigned int i = 0; i < 6; i++)
		ce_count_note(pfn(p), STATUS, 2);
	assert_int_equal(
		test_console_count("mce: page 0x41092 had 2 corrected errors "
				   "(ce_offline=2): already out of service "
				   "(-17)\n"),
		1);
	assert_int_equal(test_console_count("mce: "), 2);
	assert_int_equal(ce().offlined, 0);
	assert_int_equal(ce().errors, 6);
	assert_int_equal(stats().bad_pages, 1);
	/* Still broken: never given back. */
	assert_int_equal(heap_online(pfn(p)), -EPERM);
}

/* Not the heap's: refused once, then left alone. */
static void test_not_heap(void **state)
{
	uint64_t p = BASE - 1;

	(void)state;
	fresh();
	for (unsigned int i = 0; i < 4; i++)
		ce_count_note(pfn(p), STATUS, 1);
	assert_int_equal(
		test_console_count("not the heap's to take out: kept as it is "
				   "(-1)\n"),
		1);
	assert_int_equal(ce().offlined, 0);
	assert_int_equal(stats().bad_pages, 0);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, test_setup, test_teardown)
	const struct CMUnitTest tests[] = {
		T(test_threshold),	 T(test_never),	   T(test_eviction),
		T(test_already_offline), T(test_not_heap),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
