/* SPDX-License-Identifier: MIT */
/* common/lib/progress.c: when progress lines are printed, and what they say. */
#include "common.h"

#include <keel/progress.h>

#define S(x) ((uint64_t)(x)*arch_ticks_hz())

/* Run a phase of @secs seconds with an update every 100 ms at a steady
 * rate; return the lines printed and the ticks of each in @at. */
static unsigned int run_phase(struct progress *p, uint64_t total,
			      unsigned int secs, uint64_t *at)
{
	unsigned int lines = 0;
	uint64_t steps = (uint64_t)secs * 10;

	for (uint64_t i = 1; i <= steps; i++) {
		uint64_t now = p->start + S(i) / 10;

		if (progress_update_at(p, total * i / steps, now))
			at[lines++] = now - p->start;
	}
	return lines;
}

static void test_short_phase_is_silent(void **state)
{
	struct progress p;
	uint64_t at[32];

	progress_begin(&p, "scrub", 1ULL << 30);
	assert_int_equal(run_phase(&p, 1ULL << 30, PROGRESS_FIRST_S - 1, at),
			 0);
	assert_int_equal(test_console_lines(), 0);
}

static void test_long_phase_is_bounded_and_spread(void **state)
{
	struct progress p;
	uint64_t at[32];
	unsigned int n;

	progress_begin(&p, "scrub", 1ULL << 40);
	n = run_phase(&p, 1ULL << 40, 1000, at);
	assert_int_equal(n, PROGRESS_MAX_LINES);
	assert_int_equal(test_console_lines(), PROGRESS_MAX_LINES);
	assert_true(at[0] >= S(PROGRESS_FIRST_S));
	for (unsigned int i = 1; i < n; i++)
		assert_true(at[i] - at[i - 1] >= S(PROGRESS_PERIOD_S));
	/* Spread over the phase, not bunched at its start: the last line
	 * comes in the phase's last fifth. */
	assert_true(at[n - 1] >= S(800));
}

static void test_period_between_lines(void **state)
{
	struct progress p;
	uint64_t at[32];
	unsigned int n;

	progress_begin(&p, "domains", 20ULL << 30);
	n = run_phase(&p, 20ULL << 30, 22, at);
	/* 5, 10, 15, 20 s at the most: never two lines within 5 s. */
	assert_true(n >= 3 && n <= 4);
	for (unsigned int i = 1; i < n; i++)
		assert_true(at[i] - at[i - 1] >= S(PROGRESS_PERIOD_S));
}

static void test_line_content(void **state)
{
	struct progress p;

	progress_begin(&p, "scrub", 100ULL << 30);
	/* 42 GiB in 10 s: 4.5 GB/s (45097156608 / 1e10 = 4.5), 58 GiB at
	 * that rate is about 13 s. */
	assert_true(progress_update_at(&p, 42ULL << 30, p.start + S(10)));
	assert_true(test_console_contains("keel: scrub: 42% done, 42 GiB of "
					  "100 GiB, 4.5 GB/s, about 13 s "
					  "left"));
	/* Done, nothing (total zero), nothing before the first delay. */
	assert_false(progress_update_at(&p, 100ULL << 30, p.start + S(60)));
	progress_begin(&p, "scrub", 0);
	assert_false(progress_update_at(&p, 0, p.start + S(60)));
	progress_begin(&p, "scrub", 1ULL << 30);
	assert_false(progress_update_at(&p, 1, p.start + S(1)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_short_phase_is_silent,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(
			test_long_phase_is_bounded_and_spread, test_setup,
			test_teardown),
		cmocka_unit_test_setup_teardown(test_period_between_lines,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_line_content, test_setup,
						test_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
