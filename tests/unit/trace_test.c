/* SPDX-License-Identifier: MIT */
/* common/smp/trace.c: per-CPU bounded buffers and tick conversion. */
#include "common.h"

#include <keel/trace.h>

static void test_events_recorded_in_order(void **state)
{
	const struct trace_event *ev;
	unsigned int before, count;
	bool over;
	uint64_t t0 = arch_ticks();

	(void)state;
	trace_events(0, &before, &over);
	trace_mark("m");
	trace_begin("phase");
	trace_event("unit", TRACE_END, 7, 4096);
	ev = trace_events(0, &count, &over);
	assert_non_null(ev);
	assert_int_equal(count, before + 3);
	assert_false(over);

	ev += before;
	assert_string_equal(ev[0].name, "m");
	assert_int_equal(ev[0].kind, TRACE_MARK);
	assert_string_equal(ev[1].name, "phase");
	assert_int_equal(ev[1].kind, TRACE_BEGIN);
	assert_string_equal(ev[2].name, "unit");
	assert_int_equal(ev[2].kind, TRACE_END);
	assert_int_equal(ev[2].arg0, 7);
	assert_int_equal(ev[2].arg1, 4096);
	for (unsigned int i = 0; i < 3; i++) {
		assert_int_equal(ev[i].cpu, 0);
		assert_true(ev[i].ticks >= t0);
		if (i)
			assert_true(ev[i].ticks >= ev[i - 1].ticks);
	}
}

static void test_other_cpu_empty(void **state)
{
	unsigned int count = 123;
	bool over = true;

	(void)state;
	assert_null(trace_events(5, &count, &over));
	assert_int_equal(count, 0);
	assert_false(over);
	assert_null(trace_events(NR_CPUS + 3, &count, NULL));
	assert_int_equal(count, 0);
}

/*
 * trace=summary (the default): detail events (scrub units) are summed per
 * node and per CPU and kept out of the buffer; trace=full stores them too.
 * An end without its begin is not a unit.
 */
static void test_detail_summary_and_full(void **state)
{
	struct trace_summary n, c;
	unsigned int before, count;
	bool over;
	uint64_t t0 = arch_ticks();

	(void)state;
	trace_set_mode(TRACE_MODE_SUMMARY);
	assert_false(trace_full());
	assert_false(trace_summary_node(3, &n));
	trace_events(0, &before, &over);
	trace_detail("unit", TRACE_END, 3, 1); /* no begin: ignored */
	trace_detail("unit", TRACE_BEGIN, 3, 4096);
	trace_detail("unit", TRACE_END, 3, 4096);
	trace_detail("unit", TRACE_BEGIN, 3, 8192);
	trace_detail("unit", TRACE_END, 3, 8192);
	trace_events(0, &count, &over);
	assert_int_equal(count, before);

	assert_true(trace_summary_node(3, &n));
	assert_string_equal(n.name, "unit");
	assert_int_equal(n.count, 2);
	assert_int_equal(n.arg1, 4096 + 8192);
	assert_true(n.first_ticks >= t0);
	assert_true(n.last_ticks >= n.first_ticks);
	assert_true(n.busy_ticks <= n.last_ticks - n.first_ticks);
	assert_true(trace_summary_cpu(0, &c));
	assert_int_equal(c.count, 2);
	assert_int_equal(c.arg1, 4096 + 8192);
	assert_int_equal(c.first_ticks, n.first_ticks);
	assert_false(trace_summary_node(4, &n));
	assert_false(trace_summary_cpu(1, &c));
	assert_false(trace_summary_node(MAX_NUMNODES, &n));

	trace_set_mode(TRACE_MODE_FULL);
	assert_true(trace_full());
	trace_detail("unit", TRACE_BEGIN, 3, 4096);
	trace_detail("unit", TRACE_END, 3, 4096);
	trace_events(0, &count, &over);
	assert_int_equal(count, before + 2);
	assert_true(trace_summary_node(3, &n));
	assert_int_equal(n.count, 3);
	opts.trace = TRACE_MODE_SUMMARY;
}

static void test_overflow_keeps_first_events(void **state)
{
	const struct trace_event *ev;
	unsigned int count;
	bool over;

	(void)state;
	for (unsigned int i = 0; i < TRACE_EVENTS_PER_CPU + 10; i++)
		trace_event("fill", TRACE_MARK, i, 0);
	ev = trace_events(0, &count, &over);
	assert_int_equal(count, TRACE_EVENTS_PER_CPU);
	assert_true(over);
	/* The first event (from the first test) is still there. */
	assert_string_equal(ev[0].name, "m");
	assert_string_equal(ev[count - 1].name, "fill");
}

static void test_ticks_to_ns(void **state)
{
	uint64_t saved = arch_entry_ticks;

	(void)state;
	/* The sandbox timer is 1 GHz: conversion is exact, even at the top. */
	assert_int_equal(arch_ticks_hz(), 1000000000ull);
	assert_int_equal(ticks_to_ns(0), 0);
	assert_int_equal(ticks_to_ns(1), 1);
	assert_int_equal(ticks_to_ns(1999999999ull), 1999999999ull);
	assert_true(ticks_to_ns(UINT64_MAX) == UINT64_MAX);

	arch_entry_ticks = 1000;
	assert_int_equal(ticks_to_ns_since_entry(1500), 500);
	assert_int_equal(ticks_to_ns_since_entry(999), 0);
	assert_int_equal(ticks_to_ns_since_entry(1000), 0);
	arch_entry_ticks = saved;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_events_recorded_in_order,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_other_cpu_empty,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_detail_summary_and_full,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(
			test_overflow_keeps_first_events, test_setup,
			test_teardown),
		cmocka_unit_test_setup_teardown(test_ticks_to_ns, test_setup,
						test_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
