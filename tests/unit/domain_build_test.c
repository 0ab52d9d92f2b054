/* SPDX-License-Identifier: MIT */
/*
 * Domains, the build (common/domain_build.c, domain_check.c,
 * domain_destroy.c) on a small sandbox machine of 2 nodes with real
 * heap and p2m: sizes, extents and nodes against what was asked; the
 * checks find nothing on a good build and find memory that was not
 * zeroed; bootscrub=off memory is zeroed by the build; a domain the heap
 * cannot give fails alone and gives back everything; destroy returns
 * every page; domain_build_local() leaves the heap as it found it.
 */
#include "common.h"
#include <keel/domain.h>
#include <keel/p2m.h>

#include "../../common/domain_priv.h"

#define NODE_RAM (64 * MiB)

static void machine(uint8_t fill, bool dirty, const char *cmdline)
{
	struct test_machine_cfg cfg = {
		.nodes = 2,
		.node = {{NODE_RAM, 2, 0}, {NODE_RAM, 2, 0}},
		.fill = fill,
		.dirty = dirty,
		.cmdline = cmdline,
		.cachemaint = CACHEMAINT_DEFERRED,
	};

	assert_int_equal(test_machine_boot(&cfg), 4);
}

static unsigned int build(void)
{
	unsigned int n = domains_setup(&opts, &test_bi);

	test_quiet_begin();
	domains_build(NULL);
	test_quiet_end();
	return n;
}

/*
 * Give every domain back: heapapi's per-owner counters live across
 * heap_init() (a machine per test), so each test leaves none owned.
 */
static void destroy(void)
{
	test_quiet_begin();
	domains_destroy_all();
	test_quiet_end();
	assert_int_equal(heap_owned_pages(0), 0);
}

static unsigned int check(bool zero)
{
	unsigned int p;

	test_quiet_begin();
	p = domains_check(zero);
	test_quiet_end();
	return p;
}

/* Three domains: pinned, unpinned, mixed extents; all checks clean. */
static void test_build_and_destroy(void **state)
{
	uint64_t before;

	machine(0xab, true,
		"domain=6M@1 domain=3M domain=2052K@0 bootscrub=on");
	before = heap_free_pages();
	assert_int_equal(build(), 3);
	assert_true(domains[0].built && domains[1].built && domains[2].built);
	assert_int_equal(domains[0].node, 1);
	assert_int_equal(domains[0].extents[1], 3);
	assert_int_equal(domains[0].extents[2], 0);
	assert_int_equal(domains[2].node, 0);
	assert_int_equal(domains[2].extents[1], 1);
	assert_int_equal(domains[2].extents[2], 1);
	assert_int_equal(domains[1].remote_bytes, 0);
	for (unsigned int i = 0; i < 3; i++) {
		assert_int_equal(heap_owned_pages(domains[i].id),
				 domains[i].spec.bytes >> PAGE_SHIFT);
		assert_true(domains[i].table_pages >= 1);
	}
	/* Dirty (0xab) memory handed over dirty: zeroed by the build. */
	assert_int_equal(check(true), 0);
	assert_true(domains_zero_sampled > 0);
	assert_int_equal(domains_problem_count(), 0);
	test_quiet_begin();
	domains_destroy_all();
	test_quiet_end();
	assert_int_equal(heap_free_pages(), before);
	assert_int_equal(heap_owned_pages(0), 0);
	assert_int_equal(domains_problem_count(), 0);
}

/*
 * bootscrub=off: the heap calls 0xab memory clean; the build zeroes it.
 * The same memory with bootscrub=on trusted clean is not zeroed, and the
 * zero check must say so (the check can fail).
 */
static void test_untrusted_zeroed(void **state)
{
	machine(0xab, false, "domain=4M domain=12K bootscrub=off");
	build();
	assert_true(domains[0].built && domains[1].built);
	assert_true(domains[0].zero_ticks > 0);
	assert_int_equal(check(true), 0);
	destroy();

	machine(0xab, false, "domain=4M bootscrub=on");
	build();
	assert_true(domains[0].built);
	assert_true(check(true) > 0);
	assert_true(test_console_contains("guest memory not zero"));
	destroy();
}

/* Bigger than all free memory: fails alone with the named reason. */
static void test_too_big_fails_alone(void **state)
{
	uint64_t before;

	machine(0, false, "domain=1G domain=2M");
	before = heap_free_pages();
	assert_int_equal(build(), 2);
	assert_true(domains[0].failed);
	assert_false(domains[0].built);
	assert_non_null(
		strstr(domains[0].fail_reason, "out of memory: 1 GiB asked, "));
	assert_true(domains[1].built);
	assert_int_equal(heap_free_pages() + 512 + domains[1].table_pages,
			 before);
	assert_int_equal(check(false), 0);
	destroy();
}

/* The local probe build: on this CPU, then destroyed; -ENOMEM rolls back. */
static void test_build_local(void **state)
{
	uint64_t before;

	machine(0, false, NULL);
	before = heap_free_pages();
	assert_int_equal(domain_build_local(5 * MiB + 4096, 1, 9), 0);
	assert_int_equal(heap_free_pages(), before);
	assert_int_equal(heap_owned_pages(0), 0);
	/* Passes the plan (none here) but not the heap: all given back. */
	test_quiet_begin();
	assert_int_equal(domain_build_local(256 * MiB, 0, 18), -ENOMEM);
	test_quiet_end();
	assert_int_equal(heap_free_pages(), before);
	assert_int_equal(heap_owned_pages(0), 0);
	assert_int_equal(domain_build_local(0, 0, 9), -EINVAL);
	assert_int_equal(domain_build_local(MiB, 7, 9), -EINVAL);
}

/* The work unit: 1 GiB from 1 GiB up, else shared by the node's CPUs. */
static void test_unit_shift(void **state)
{
	assert_int_equal(domain_unit_shift(1ull << 30, 64), 30);
	assert_int_equal(domain_unit_shift(64ull << 30, 1), 30);
	assert_int_equal(domain_unit_shift(256 * MiB, 2), 25);
	assert_int_equal(domain_unit_shift(4 * MiB, 8), 21);
	assert_int_equal(domain_unit_shift(1023 * MiB, 0), 27);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_build_and_destroy,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_untrusted_zeroed,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_too_big_fails_alone,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_build_local, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_unit_shift, test_setup,
						test_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
