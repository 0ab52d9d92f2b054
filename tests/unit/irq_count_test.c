/* SPDX-License-Identifier: MIT */
/*
 * common/irq/irq_count.c: the interrupt counters, one entry per CPU of
 * cpu_table from bootmem (not NR_CPUS arrays): nothing counted before
 * irq_counts_init(), each CPU counting into its own entry after it, and
 * irq_census() marking the online CPUs that run with interrupts on.
 */
#include "common.h"

#include <arch/cpu.h>
#include <arch/irq.h>
#include <keel/cpumask.h>
#include <keel/latency.h>
#include <keel/smp.h>

static void count_on_cpu1(void *arg)
{
	(void)arg;
	irq_count_taken(false);
	irq_count_taken(false);
	irq_count_unexpected();
}

static void test_counts_per_cpu(void **state)
{
	struct test_machine_cfg c = {
		.nodes = 1,
		.node = {{64 * MiB, 2, 0}},
		.no_handoff = true,
	};
	const struct irq_cpu_counts *k0, *k1;
	cpumask_t one;

	(void)state;
	/* Before the counters exist: nothing counted, nothing written. */
	irq_count_taken(false);
	assert_null(irq_counts(0));
	assert_int_equal(test_machine_boot(&c), 2);
	irq_counts_init();
	k0 = irq_counts(0);
	k1 = irq_counts(1);
	assert_non_null(k0);
	assert_non_null(k1);
	assert_null(irq_counts(cpu_count));
	assert_int_equal(k0->taken + k0->idle_wakes + k1->taken, 0);

	assert_int_equal(arch_cpu_id(), 0);
	irq_count_taken(false);
	irq_count_taken(true);
	irq_count_spurious();
	irq_count_stray_masked(3);
	cpumask_clear(&one);
	cpumask_set(&one, 1);
	smp_run_on(&one, count_on_cpu1, NULL);
	assert_int_equal(k0->taken, 1);
	assert_int_equal(k0->idle_wakes, 1);
	assert_int_equal(k0->spurious, 1);
	assert_int_equal(k0->stray_masked, 3);
	assert_int_equal(k0->unexpected, 0);
	assert_int_equal(k1->taken, 2);
	assert_int_equal(k1->unexpected, 1);
	assert_int_equal(k1->idle_wakes + k1->spurious, 0);

	irq_count_masked_at_boot(1, 24, 2);
	assert_int_equal(irq_boot_masked()->entries, 24);
	assert_int_equal(irq_boot_masked()->unmasked, 2);

	irq_census();
	assert_true(k0->on_seen && k1->on_seen);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_counts_per_cpu, test_setup,
						test_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
