/* SPDX-License-Identifier: MIT */
/*
 * common/selftest/stress.c: a 2-node 4-CPU machine stressed with verification.
  * The clean runs must find nothing and give every page back; the negative
 * tests corrupt memory behind the stress's back (a held block through the
 * test hook, free memory that the heap believes clean) and require the
 * verifier to catch and count it.
 */
#include "common.h"

#include <keel/heap_boot.h>
#include <keel/heap_check.h>
#include <keel/report.h>
#include <keel/scrub.h>
#include <keel/stress.h>

#define MIB (1ull << 20)

static const struct test_machine_cfg two_nodes = {
	.dirty = true, /* as booted: bootscrub on */
	.nodes = 2,
	.node = {{32 * MIB, 2, 0}, {32 * MIB, 2, 0}},
	/* Dirty memory is not zero: a missed scrub shows as a corruption. */
	.fill = 0xa5,
};

static uint64_t dirty_pages(void)
{
	uint64_t n = 0;

	for (unsigned int i = 0; i < heap_node_count(); i++)
		n += test_node_stats(i)->dirty_pages;
	return n;
}

static void assert_every_cpu_worked(unsigned int online)
{
	assert_int_equal(stress_stats.cpus, online);
	for (unsigned int c = 0; c < online; c++) {
		const struct stress_cpu_stats *st = &stress_stats.cpu[c];

		assert_true(st->ran);
		assert_true(st->ops > 0);
		assert_true(st->allocs > 0);
		/* Everything allocated was freed again. */
		assert_int_equal(st->allocs, st->frees);
		assert_true(st->bytes_verified > 0);
		assert_true(stress_ops_per_s(st->ops, st->ticks) > 0);
	}
}

/* bootscrub=idle: the background scrub still runs when the stress starts. */
static void test_stress_idle_scrub_clean_run(void **state)
{
	unsigned int online;
	uint64_t before;

	(void)state;
	online = test_machine_boot(&two_nodes);
	assert_int_equal(online, 4);
	before = heap_stats_all(0).free_pages;
	scrub_boot(SCRUB_IDLE, 1 * MIB, false);

	test_quiet_begin();
	stress_run(1);
	test_quiet_end();
	scrub_wait_all_clean();

	assert_true(stress_ok());
	assert_null(stress_fail_reason());
	assert_int_equal(stress_stats.corruptions, 0);
	assert_int_equal(stress_stats.heap_problems, 0);
	assert_true(stress_stats.zero_check);
	assert_every_cpu_worked(online);
	assert_true(stress_stats.ops >= stress_stats.allocs);
	assert_int_equal(heap_stats_all(0).free_pages, before);
	assert_int_equal(dirty_pages(), 0);
	assert_int_equal(heap_check(), 0);
}

/* bootscrub=on: exact before/after and no dirty chunk left behind. */
static void test_stress_scrub_on_exact_accounting(void **state)
{
	static struct scrub_cpu_stats cpus[4];
	struct scrub_stats scrub;
	struct page_info *pg;
	unsigned int online;
	uint64_t before;

	(void)state;
	online = test_machine_boot(&two_nodes);
	scrub_boot(SCRUB_ON, 1 * MIB, false);
	assert_int_equal(cpu_count, ARRAY_SIZE(cpus));
	/* Dirty memory the stress must scrub again, whatever it does. */
	pg = heap_alloc(9, 0, 0, 0, NULL);
	assert_non_null(pg);
	assert_int_equal(heap_free(pg, 9, HEAP_FREE_DIRTY), 0);
	assert_true(dirty_pages() > 0);
	before = heap_stats_all(0).free_pages;
	scrub = scrub_stats;
	memcpy(cpus, scrub_stats.cpu, sizeof(cpus));

	test_quiet_begin();
	stress_run(0);
	test_quiet_end();

	/*
	 * The report's boot scrub figures leave out the stress's re-scrubs
	 * (which the scrub counts nowhere): every one of them, per node and
	 * per CPU, as the boot scrub left them.
	 */
	assert_memory_equal(&scrub_stats, &scrub, sizeof(scrub));
	assert_memory_equal(scrub_stats.cpu, cpus, sizeof(cpus));

	assert_true(stress_ok());
	assert_true(stress_stats.baseline_exact);
	assert_int_equal(stress_stats.free_before, before);
	assert_int_equal(stress_stats.free_after, before);
	assert_int_equal(heap_stats_all(0).free_pages, before);
	assert_every_cpu_worked(online);
	assert_int_equal(dirty_pages(), 0);
	assert_int_equal(heap_check(), 0);
}

static uint32_t hook_fired;
static uint64_t hook_pfn;

/* Flip one word in the middle of the first block CPU 2 frees. */
static void corrupt_once(unsigned int cpu, pfn_t p, unsigned int order)
{
	uint32_t zero = 0;
	uint64_t *w;

	if (cpu != 2 ||
	    !__atomic_compare_exchange_n(&hook_fired, &zero, 1, false,
					 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		return;
	hook_pfn = pfn_val(p) + ((1ull << order) >> 1);
	w = phys_to_virt(pfn_to_paddr(pfn(hook_pfn)));
	w[PAGE_SIZE / 2 / sizeof(*w)] ^= 0x10;
}

static void test_stress_detects_corrupted_block(void **state)
{
	char pfn_text[32];

	(void)state;
	test_machine_boot(&two_nodes);
	scrub_boot(SCRUB_ON, 1 * MIB, false);
	hook_fired = 0;
	stress_test_corrupt_hook = corrupt_once;

	test_quiet_begin();
	stress_run(0);
	test_quiet_end();
	stress_test_corrupt_hook = NULL;

	assert_int_equal(hook_fired, 1);
	assert_false(stress_ok());
	assert_non_null(stress_fail_reason());
	assert_non_null(strstr(stress_fail_reason(), "corruption"));
	/* Exactly the one block, counted on the CPU that owned it. */
	assert_int_equal(stress_stats.corruptions, 1);
	assert_int_equal(stress_stats.cpu[2].corruptions, 1);
	snprintf(pfn_text, sizeof(pfn_text), "pfn %#llx offset 0x800",
		 (unsigned long long)hook_pfn);
	assert_true(test_console_contains(pfn_text));
	assert_true(test_console_contains("cpu 2: pattern mismatch"));
	/* The heap itself is fine: only the contents were touched. */
	assert_int_equal(stress_stats.heap_problems, 0);
	assert_int_equal(stress_stats.free_after, stress_stats.free_before);
}

static void poke_chunk(struct page_info *head, unsigned int order,
		       unsigned int zone, void *arg)
{
	(void)zone, (void)arg;
	for (uint64_t i = 0; i < (1ull << order); i++) {
		uint64_t *w = phys_to_virt(
			pfn_to_paddr(pfn(pfn_val(page_to_pfn(head)) + i)));

		w[0] = 0xdeadbeef;
	}
}

/* Free memory the heap calls clean but that is not zero is caught. */
static void test_stress_detects_unscrubbed_clean_memory(void **state)
{
	(void)state;
	test_machine_boot(&two_nodes);
	scrub_boot(SCRUB_ON, 1 * MIB, false);
	for (unsigned int n = 0; n < heap_node_count(); n++)
		heap_for_each_free(n, poke_chunk, NULL);

	test_quiet_begin();
	stress_run(0);
	test_quiet_end();

	assert_false(stress_ok());
	assert_true(stress_stats.corruptions > 0);
	assert_true(test_console_contains("allocated clean block not zero"));
	assert_true(test_console_contains("found 0xdeadbeef, expected 0"));
	assert_int_equal(stress_stats.heap_problems, 0);
}

/* bootscrub=off: no zero check (memory was never scrubbed), still clean. */
static void test_stress_scrub_off(void **state)
{
	unsigned int online;

	(void)state;
	online = test_machine_boot(&two_nodes);
	scrub_boot(SCRUB_OFF, 1 * MIB, false);

	test_quiet_begin();
	stress_run(0);
	test_quiet_end();

	assert_true(stress_ok());
	assert_false(stress_stats.zero_check);
	assert_every_cpu_worked(online);
	assert_int_equal(stress_stats.free_after, stress_stats.free_before);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(
			test_stress_idle_scrub_clean_run, test_setup,
			test_teardown),
		cmocka_unit_test_setup_teardown(
			test_stress_scrub_on_exact_accounting, test_setup,
			test_teardown),
		cmocka_unit_test_setup_teardown(
			test_stress_detects_corrupted_block, test_setup,
			test_teardown),
		cmocka_unit_test_setup_teardown(
			test_stress_detects_unscrubbed_clean_memory, test_setup,
			test_teardown),
		cmocka_unit_test_setup_teardown(test_stress_scrub_off,
						test_setup, test_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
