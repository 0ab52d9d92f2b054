/* SPDX-License-Identifier: MIT */
/*
 * bench=on's domain benchmark (common/selftest/domain_bench.c) compares like
  * with like: whatever bootscrub= and domains_trust= say, the eager and the
 * deferred build zero the same bytes, and clean the same bytes to PoC
 * unless the mode skips memory known clean to PoC (then the deferred
 * build cleans none: the difference measured). The heap is left with no
 * dirty page and as many free pages as before. On the sandbox's 2 nodes
 * of 64 MiB with the real heap, scrub and p2m.
 */
#include "common.h"
#include <keel/bench.h>
#include <keel/cachemaint.h>
#include <keel/domain.h>
#include <keel/heap_check.h>

#include "../../common/domain/domain_priv.h"

/* The domains of the test's boot (the flow holds one likewise). */
static struct domain_set ds;

#define NODE_RAM (64 * MiB)

static void machine(const char *cmdline, bool dirty)
{
	struct test_machine_cfg cfg = {
		.nodes = 2,
		.node = {{NODE_RAM, 2, 0}, {NODE_RAM, 2, 0}},
		.fill = 0xab,
		.dirty = dirty,
		.cmdline = cmdline,
		.cachemaint = CACHEMAINT_DEFERRED,
	};

	assert_int_equal(test_machine_boot(&cfg), 4);
}

static uint64_t free_before;

/* domains_bench(&ds) on the machine's domains. */
static const struct domain_bench *bench(void)
{
	free_before = heap_stats_all(0).free_pages;
	domains_setup(&ds, &opts, &test_bi);
	test_quiet_begin();
	domains_bench(&ds);
	test_quiet_end();
	assert_true(ds.stats.bench.done);
	assert_int_equal(ds.stats.bench.eager_err, 0);
	assert_int_equal(ds.stats.bench.deferred_err, 0);
	return &ds.stats.bench;
}

/* After the bench: the heap as it was, nothing dirty, nothing owned. */
static void heap_as_before(void)
{
	assert_int_equal(heap_stats_all(0).free_pages, free_before);
	assert_int_equal(heap_stats_all(0).dirty_pages, 0);
	assert_int_equal(heap_stats_all(0).owned_pages, 0);
	assert_int_equal(heap_cachemaint()->mode, CACHEMAINT_DEFERRED);
}

/* A boot-scrubbed heap: nothing to zero, eager cleans all, deferred none. */
static void test_bench_scrubbed(void **state)
{
	const struct domain_bench *b;

	machine("domain=6M@1 bootscrub=on", true);
	test_quiet_begin();
	scrub_boot(SCRUB_ON, 8 * MiB, false);
	test_quiet_end();
	b = bench();
	assert_int_equal(b->bytes, 6 * MiB);
	assert_int_equal(b->eager.zeroed_bytes, 0);
	assert_int_equal(b->deferred.zeroed_bytes, 0);
	assert_int_equal(b->eager.maint_bytes, 6 * MiB);
	assert_int_equal(b->deferred.maint_bytes, 0);
	heap_as_before();
}

/*
 * bootscrub=off: nothing is known clean, so both builds zero every byte
 * and clean every byte to PoC.
 */
static void test_bench_untrusted(void **state)
{
	const struct domain_bench *b;

	machine("domain=6M@1 bootscrub=off", false);
	b = bench();
	assert_int_equal(b->eager.zeroed_bytes, 6 * MiB);
	assert_int_equal(b->deferred.zeroed_bytes, 6 * MiB);
	assert_int_equal(b->eager.maint_bytes, 6 * MiB);
	assert_int_equal(b->deferred.maint_bytes, 6 * MiB);
	heap_as_before();
}

/*
 * bootscrub=off domains_trust=on: memory trusted clean. The eager build
 * dirties what it frees; the deferred build must not be handed that to
 * zero (it was: 6 MiB zeroed against the eager build's none).
 */
static void test_bench_trusted(void **state)
{
	const struct domain_bench *b;

	machine("domain=6M@1 bootscrub=off domains_trust=on", false);
	b = bench();
	assert_int_equal(b->eager.zeroed_bytes, 0);
	assert_int_equal(b->deferred.zeroed_bytes, 0);
	assert_int_equal(b->eager.maint_bytes, 6 * MiB);
	assert_int_equal(b->deferred.maint_bytes, 0);
	heap_as_before();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_bench_scrubbed, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_bench_untrusted,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_bench_trusted, test_setup,
						test_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
