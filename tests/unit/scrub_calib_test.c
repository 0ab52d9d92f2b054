/* SPDX-License-Identifier: MIT */
/*
 * common/scrub/scrub.c and the primitives of keel/scrub_prims.h: choosing the
 * fastest primitive (or the one scrub_primitive= names), the unit size,
 * and the calibration timing the scrub's own units.
 */
#include "scrub_fixture.h"

/* ---- choosing the primitive and the unit (arch-neutral logic) ---------- */

static void test_choose_primitive(void **state)
{
	/* 8 MiB each: b and c equally fast (tie to the lower), a slower. */
	struct scrub_calib c[] = {
		{"a", 8 * MIB, 100},
		{"rep stosb", 8 * MIB, 50},
		{"c", 8 * MIB, 50},
		{"d", 4 * MIB, 26}, /* half the bytes in a bit more than half */
	};
	struct scrub_calib none[] = {{"x", 0, 0}, {"y", 0, 0}};
	bool unknown;

	(void)state;
	assert_int_equal(scrub_choose_primitive(c, 4, "", &unknown), 1);
	assert_false(unknown);
	assert_int_equal(scrub_choose_primitive(c, 4, NULL, &unknown), 1);
	/* Forced by name; '_' stands for the space. */
	assert_int_equal(scrub_choose_primitive(c, 4, "c", &unknown), 2);
	assert_false(unknown);
	assert_int_equal(scrub_choose_primitive(c, 4, "a", &unknown), 0);
	assert_int_equal(scrub_choose_primitive(c, 4, "rep_stosb", &unknown),
			 1);
	assert_int_equal(scrub_choose_primitive(c, 4, "rep stosb", &unknown),
			 1);
	/* A prefix or a name the CPU lacks is no match: the fastest wins. */
	assert_int_equal(scrub_choose_primitive(c, 4, "rep", &unknown), 1);
	assert_true(unknown);
	assert_int_equal(scrub_choose_primitive(c, 4, "clzero", &unknown), 1);
	assert_true(unknown);
	/* A faster rate wins whatever the probe size. */
	c[3].ticks = 24;
	assert_int_equal(scrub_choose_primitive(c, 4, "", &unknown), 3);
	/* Below the clock's resolution is fastest; unmeasured never wins. */
	c[2].ticks = 0;
	assert_int_equal(scrub_choose_primitive(c, 4, "", &unknown), 2);
	assert_int_equal(scrub_choose_primitive(none, 2, "", &unknown), 0);
	none[1].bytes = PAGE_SIZE;
	none[1].ticks = 1000;
	assert_int_equal(scrub_choose_primitive(none, 2, "", &unknown), 1);
	assert_int_equal(scrub_choose_primitive(c, 0, "a", &unknown), 0);
}

static void test_unit_pages(void **state)
{
	const uint64_t mib = MIB >> PAGE_SHIFT, cap = 128 * mib;

	(void)state;
	/* Big node: every worker has far more than 16 units of the cap. */
	assert_int_equal(scrub_unit_pages(64 * 1024 * mib, 4, cap), cap);
	/* 1 GiB for 2 workers: 16 units each, 32 MiB. */
	assert_int_equal(scrub_unit_pages(1024 * mib, 2, cap), 32 * mib);
	/* 1000 MiB for 1 worker: 62.5 MiB, whole 2 MiB: 62 MiB. */
	assert_int_equal(scrub_unit_pages(1000 * mib, 1, cap), 62 * mib);
	/* Small nodes: never below 2 MiB... */
	assert_int_equal(scrub_unit_pages(10 * mib, 4, cap), 2 * mib);
	assert_int_equal(scrub_unit_pages(0, 0, cap), 2 * mib);
	/* ...unless bootscrub_chunk is smaller. */
	assert_int_equal(scrub_unit_pages(1024 * mib, 1, 1), 1);
	assert_int_equal(scrub_unit_pages(1024 * mib, 1, 0), 1);
}

/* The fastest calibrated primitive, computed here from the report data. */
static const char *fastest_calibrated(void)
{
	unsigned int best = 0;

	for (unsigned int i = 1; i < scrub_stats.calib_count; i++) {
		const struct scrub_calib *a = &scrub_stats.calib[i];
		const struct scrub_calib *b = &scrub_stats.calib[best];

		if ((double)a->bytes / (a->ticks ? a->ticks : 1) >
		    (double)b->bytes / (b->ticks ? b->ticks : 1))
			best = i;
	}
	return scrub_stats.calib[best].primitive;
}

static void test_calibration_picks_fastest(void **state)
{
	unsigned int count;

	(void)state;
	boot3(2, 1, 1, NULL);
	count = scrub_prims_count();
	scrub_boot(SCRUB_ON, 128 * MIB, false);
	assert_all_clean(3);
	assert_int_equal(scrub_stats.calib_count, count);
	for (unsigned int i = 0; i < count; i++) {
		assert_string_equal(scrub_stats.calib[i].primitive,
				    scrub_prims_name(i));
		/* Its fastest sample: at most 8 MiB of a unit. */
		assert_true(scrub_stats.calib[i].bytes > 0);
		assert_true(scrub_stats.calib[i].bytes <= SCRUB_PROBE_BYTES);
	}
	assert_int_equal(scrub_stats.choice, SCRUB_CHOICE_MEASURED);
	assert_string_equal(scrub_prims_current_name(), fastest_calibrated());

	/*
	 * 64 MiB nodes, 128M cap: 16 units per worker would be under 2 MiB,
	 * so 2 MiB; node 0's 2 workers have even less each.
	 */
	for (unsigned int n = 0; n < 3; n++)
		assert_int_equal(scrub_stats.node[n].unit_bytes, 2 * MIB);
	/* Idle time at the end: within the scrub, for every worker. */
	for (unsigned int c = 0; c < 4; c++) {
		assert_true(scrub_stats.cpu[c].worker);
		assert_true(scrub_stats.cpu[c].idle_ticks <= scrub_stats.ticks);
	}
}

/*
 * The calibration times the scrub's own units: with 1 MiB units each
 * candidate's fastest sample is one whole unit (not 8 MiB of memory of its
 * own), every byte is zeroed and cleaned once (the cleans count exactly
 * the scrubbed bytes), and the choice is made during the scrub.
 */
static void test_calibration_on_real_units(void **state)
{
	struct sandbox_cache_counters cc;
	unsigned int count;
	uint64_t total, sampled = 0;

	(void)state;
	boot3(2, 1, 1, "bootscrub_chunk=1M");
	count = scrub_prims_count();
	total = free_bytes_all(3);
	sandbox_cache_counters_reset();
	scrub_boot(SCRUB_ON, 1 * MIB, false);
	assert_all_clean(3);
	assert_int_equal(scrub_stats.calib_count, count);
	for (unsigned int i = 0; i < count; i++) {
		assert_int_equal(scrub_stats.calib[i].bytes, MIB);
		sampled += scrub_stats.calib[i].bytes;
	}
	assert_true(sampled <= scrub_stats.bytes);
	assert_int_equal(scrub_stats.bytes, total);
	sandbox_cache_counters(&cc);
	assert_int_equal(cc.scrub_clean_bytes, total);
	assert_int_equal(scrub_stats.choice, SCRUB_CHOICE_MEASURED);
	assert_string_equal(scrub_prims_current_name(), fastest_calibrated());
}

static void test_calibration_forced(void **state)
{
	(void)state;
	/* memset is every sandbox host's primitive. */
	boot3(1, 1, 1, "scrub_primitive=memset");
	scrub_boot(SCRUB_ON, 1 * MIB, false);
	assert_all_clean(3);
	assert_string_equal(scrub_prims_current_name(), "memset");
	assert_int_equal(scrub_stats.choice, SCRUB_CHOICE_FORCED);
	assert_true(scrub_stats.calib_count >= 1);
	for (unsigned int n = 0; n < 3; n++)
		assert_int_equal(scrub_stats.node[n].unit_bytes, 1 * MIB);

	/* A name the host does not have: one warning, the measured choice. */
	boot3(1, 1, 1, "scrub_primitive=no_such_insn");
	test_quiet_begin();
	scrub_boot(SCRUB_ON, 4 * MIB, false);
	test_quiet_end();
	assert_true(test_console_contains("scrub_primitive=no_such_insn: this "
					  "CPU has no such primitive, using"));
	assert_int_equal(scrub_stats.choice, SCRUB_CHOICE_MEASURED);
	assert_string_equal(scrub_prims_current_name(), fastest_calibrated());
	assert_all_clean(3);

	/* bootscrub=off measures nothing: the default, or the forced one. */
	boot3(1, 1, 1, "bootscrub=off");
	scrub_boot(SCRUB_OFF, 4 * MIB, false);
	assert_int_equal(scrub_stats.calib_count, 0);
	assert_int_equal(scrub_stats.choice, SCRUB_CHOICE_DEFAULT);
	boot3(1, 1, 1, "bootscrub=off scrub_primitive=memset");
	scrub_boot(SCRUB_OFF, 4 * MIB, false);
	assert_int_equal(scrub_stats.choice, SCRUB_CHOICE_FORCED);
	assert_string_equal(scrub_prims_current_name(), "memset");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_calibration_on_real_units,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_choose_primitive,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_unit_pages, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_calibration_picks_fastest,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_calibration_forced,
						test_setup, test_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
