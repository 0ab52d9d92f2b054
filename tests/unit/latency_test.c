/* SPDX-License-Identifier: MIT */
/*
 * common/irq/latency.c, common/lib/irqsoff.c and the sandbox's interrupt
 * (arch/sandbox/irq.c): the histogram's buckets, the interrupts-off
 * tracer's regions and sites, and a timer signal held back while
 * "interrupts are off" and taken, late, once they are on.
 */
#include "common.h"

#include <arch/cpu.h>
#include <arch/irq.h>
#include <keel/latency.h>
#include <keel/spinlock.h>

#include "../../common/irq/latency_priv.h"

static void spin_ns(uint64_t ns)
{
	uint64_t end = arch_ticks() + ns;

	while (arch_ticks() < end)
		;
}

/* Every value falls in its bucket; a bucket is at most 25% wide. */
static void test_buckets(void **state)
{
	(void)state;
	for (uint64_t v = 0; v < (1ull << 38); v = v * 9 / 8 + 1) {
		unsigned int b = latency_bucket(v);
		uint64_t lo = latency_bucket_lo(b),
			 hi = latency_bucket_lo(b + 1);

		assert_true(b < LATENCY_BUCKETS - 1);
		assert_true(lo <= v && v < hi);
		assert_true(b < 4 || (hi - lo) * 4 <= lo);
		assert_true(latency_bucket(lo) == b &&
			    latency_bucket(hi - 1) == b);
	}
	assert_int_equal(latency_bucket(UINT64_MAX), LATENCY_BUCKETS - 1);
}

static struct irqsoff_cpu slots[2];
/* The run the handler serves in test_timer_held_while_off(). */
static struct latency_stats run_stats;
static struct lat_run run = {.st = &run_stats};
static spinlock_t region_lock = SPINLOCK_INIT;

static int setup(void **state)
{
	irqsoff_setup(slots, 2);
	irqsoff_reset();
	return test_setup(state);
}

/*
 * After every test, also one whose assertion failed half-way: interrupts
 * off before the probe stops (its handler arms only while it samples),
 * the timer cancelled, the lock free, the tracer's slots gone. A failed
 * test used to leave interrupts on, and the next one then counted
 * samples while they were meant to be off.
 */
static int teardown(void **state)
{
	arch_irq_disable();
	run.sampling = false;
	arch_timer_cancel();
	run.cur = NULL;
	lat_attach(NULL);
	spin_lock_init(&region_lock);
	irqsoff_reset();
	irqsoff_setup(NULL, 0);
	return test_teardown(state);
}

static void locked_region(spinlock_t *l)
{
	irqflags_t f;

	spin_lock_irqsave(l, f);
	spin_ns(1000000);
	spin_unlock_irqrestore(l, f);
}

/*
 * Regions begun with interrupts on are timed and named; others are not.
 * Each region is checked alone (irqsoff_reset() between them) against
 * the time it spun: the host may preempt a spin, which only makes it
 * measure longer, so "at least 1 ms" holds on a busy host. Comparing two
 * regions' lengths does not: a preempted 1 ms region measured longer
 * than an unpreempted 2 ms one, and the test failed.
 */
static void test_irqsoff_regions(void **state)
{
	const char *site;
	irqflags_t f, inner;

	(void)state;
	/* Interrupts off (the default): nothing is a region. */
	f = irq_save_at("masked");
	spin_ns(1000000);
	irq_restore(f);
	assert_int_equal(irqsoff_max(&site), 0);
	assert_null(site);

	arch_irq_enable();
	f = irq_save_at("outer");
	inner = irq_save_at("inner"); /* nested: part of "outer" */
	spin_ns(1000000);
	irq_restore(inner);
	irq_restore(f);
	assert_true(irqsoff_max(&site) >= 1000000);
	assert_string_equal(site, "outer");

	irqsoff_reset();
	locked_region(&region_lock); /* a lock's region: its caller named */
	assert_true(irqsoff_max(&site) >= 1000000);
	assert_string_equal(site, "locked_region");
	assert_false(spin_is_locked(&region_lock));
	arch_irq_disable();

	irqsoff_reset();
	assert_int_equal(irqsoff_max(&site), 0);
}

/*
 * The probe's signal arrives only with interrupts on: armed 1 ms ahead,
 * held back for 20 ms, it is taken at once after arch_irq_enable() and
 * its sample is at least 19 ms late; the next ones follow every period.
 */
static void test_timer_held_while_off(void **state)
{
	static struct latency_phase ph;
	const char *why = NULL;
	uint64_t t0, end, first;

	(void)state;
	ph = (struct latency_phase){.name = "test"};
	assert_int_equal(arch_timer_init_cpu(&why), 0);
	run_stats.cpu = arch_cpu_id();
	run.period = 1000000;
	run.deadline = arch_ticks() + 1000000;
	first = run.deadline;
	run.cur = &ph;
	run.sampling = true;
	lat_attach(&run);
	arch_timer_arm_at(run.deadline);
	spin_ns(20000000);
	assert_int_equal(READ_ONCE(ph.samples), 0);

	arch_irq_enable();
	t0 = arch_ticks();
	/* 3 periods are 3 ms; 5 s tolerates a host 1000x slower. */
	end = t0 + 5000000000ull;
	while (READ_ONCE(ph.samples) < 3 && arch_ticks() < end)
		;
	arch_irq_disable();
	run.sampling = false;
	arch_timer_cancel();
	run.cur = NULL;
	lat_attach(NULL);
	assert_true(ph.samples >= 3);
	assert_true(ph.max_ns >= 19000000);
	assert_true(ph.min_ns <= ph.max_ns);
	/* When the worst one was due: one of this run's deadlines. */
	assert_true(ph.max_at >= first && ph.max_at < run.deadline);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_buckets, setup, teardown),
		cmocka_unit_test_setup_teardown(test_irqsoff_regions, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_timer_held_while_off,
						setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
