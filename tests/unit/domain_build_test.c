/* SPDX-License-Identifier: MIT */
/*
 * Domains, the build (common/domain/domain_build.c, domain_check.c,
 * domain_destroy.c) on a small sandbox machine of 2 nodes with real
 * heap and p2m: sizes, extents and nodes against what was asked; the
 * checks find nothing on a good build and find memory that was not
 * zeroed; bootscrub=off memory is zeroed by the build; a domain the heap
 * cannot give fails alone and gives back everything; destroy returns
 * every page; domain_build_local() leaves the heap as it found it.
 * Big extents (common/domain/domain_big.c) on a sparse machine of 2 x 16 GiB:
 * one heap extent above MAX_ORDER per power of two, 1 GiB leaves, the
 * checks, audit=full, destroy round trip, zeroing split in 1 GiB units,
 * and the roll-back of a failed local build that had taken big extents.
 */
#include "common.h"
#include <keel/audit.h>
#include <keel/bench.h>
#include <keel/cachemaint.h>
#include <keel/domain.h>
#include <keel/heap_boot.h>
#include <keel/heap_check.h>
#include <keel/p2m.h>
#include <keel/progress.h>

#include "../../common/domain/domain_priv.h"

/* The domains of the test's boot (the flow holds one likewise). */
static struct domain_set ds;
/* The one-CPU builds' problems (extents the heap refused back). */
static unsigned int local_problems;

/* What a one-CPU build runs under: the options of the test's machine. */
static struct domain_ctx *lctx(void)
{
	static struct domain_ctx c;

	domain_ctx_init(&c, &opts, &local_problems);
	return &c;
}

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

/* 2 nodes of 16 GiB, sparse: nothing is touched unless written. */
static void machine_big(bool dirty, const char *cmdline)
{
	struct test_machine_cfg cfg = {
		.nodes = 2,
		.node = {{16 * GiB, 2, 0}, {16 * GiB, 2, 0}},
		.dirty = dirty,
		.cmdline = cmdline,
		.cachemaint = CACHEMAINT_DEFERRED,
	};

	assert_int_equal(test_machine_boot(&cfg), 4);
}

static unsigned int build(void)
{
	unsigned int n = domains_setup(&ds, &opts, &test_bi);

	test_quiet_begin();
	domains_build(&ds, NULL);
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
	domains_destroy_all(&ds);
	test_quiet_end();
	assert_int_equal(heap_stats_all(0).owned_pages, 0);
}

static unsigned int check(bool zero)
{
	unsigned int p;

	test_quiet_begin();
	p = domains_check(&ds, zero);
	test_quiet_end();
	return p;
}

/*
 * The fewest heap extents: 32 MiB + 2 MiB + 8 KiB is three naturally
 * aligned blocks (orders 13, 9 and 1), mapped with 17 leaves of 2 MiB and
 * two of 4 KiB (the 8 KiB tail by the unit path); the checks accept
 * leaves inside an extent and catch an extent at the wrong guest address;
 * destroy gives each extent back whole.
 */
static void test_fewest_extents(void **state)
{
	uint64_t before;
	paddr_t pa0;
	unsigned int order;

	machine(0, false, "domain=34824K@0 bootscrub=on");
	before = heap_stats_all(0).free_pages;
	assert_int_equal(build(), 1);
	assert_true(ds.d[0].built);
	assert_int_equal(ds.d[0].heap_extents, 3);
	assert_int_equal(ds.d[0].extents[0], 0);
	assert_int_equal(ds.d[0].extents[1], 17);
	assert_int_equal(ds.d[0].extents[2], 2);
	assert_int_equal(heap_stats_all(ds.d[0].id).owned_pages,
			 (34824 * KiB) >> 12);
	assert_int_equal(p2m_translate(ds.d[0].p2m, 0, &pa0, &order), 0);
	assert_int_equal(order, 9);
	assert_int_equal(heap_owner_of(paddr_to_pfn(pa0), NULL, &order),
			 ds.d[0].id);
	assert_int_equal(order, 13);
	assert_int_equal(check(true), 0);
	assert_int_equal(ds.d[0].nbig, 2);
	assert_int_equal(ds.d[0].big_bytes, 34 * MiB);
	/* The 32 MiB extent said to start 2 MiB further: caught. */
	ds.d[0].big[0].gpa += 2 * MiB;
	assert_true(check(false) > 0);
	assert_true(test_console_contains("frame not an extent"));
	ds.d[0].big[0].gpa -= 2 * MiB;
	destroy();
	assert_int_equal(heap_stats_all(0).free_pages, before);
	assert_int_equal(ds.stats.problems, 16); /* its 16 leaves */
	test_heap_check_clean();
}

/* Three domains: pinned, unpinned, mixed extents; all checks clean. */
static void test_build_and_destroy(void **state)
{
	uint64_t before;

	machine(0xab, true,
		"domain=6M@1 domain=3M domain=2052K@0 bootscrub=on");
	before = heap_stats_all(0).free_pages;
	assert_int_equal(build(), 3);
	assert_true(ds.d[0].built && ds.d[1].built && ds.d[2].built);
	assert_int_equal(ds.d[0].node, 1);
	assert_int_equal(ds.d[0].extents[1], 3);
	assert_int_equal(ds.d[0].extents[2], 0);
	assert_int_equal(ds.d[2].node, 0);
	assert_int_equal(ds.d[2].extents[1], 1);
	assert_int_equal(ds.d[2].extents[2], 1);
	assert_int_equal(ds.d[1].remote_bytes, 0);
	for (unsigned int i = 0; i < 3; i++) {
		assert_int_equal(heap_stats_all(ds.d[i].id).owned_pages,
				 ds.d[i].spec.bytes >> PAGE_SHIFT);
		assert_true(ds.d[i].table_pages >= 1);
	}
	/* Dirty (0xab) memory handed over dirty: zeroed by the build. */
	assert_int_equal(check(true), 0);
	assert_true(ds.stats.zero_sampled > 0);
	assert_int_equal(ds.stats.problems, 0);
	test_quiet_begin();
	domains_destroy_all(&ds);
	test_quiet_end();
	assert_int_equal(heap_stats_all(0).free_pages, before);
	assert_int_equal(heap_stats_all(0).owned_pages, 0);
	assert_int_equal(ds.stats.problems, 0);
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
	assert_true(ds.d[0].built && ds.d[1].built);
	assert_true(ds.d[0].zero_ticks > 0);
	assert_int_equal(check(true), 0);
	destroy();

	machine(0xab, false, "domain=4M bootscrub=on");
	build();
	assert_true(ds.d[0].built);
	assert_true(check(true) > 0);
	assert_true(test_console_contains("guest memory not zero"));
	destroy();
}

/* Bigger than all free memory: fails alone with the named reason. */
static void test_too_big_fails_alone(void **state)
{
	uint64_t before;

	machine(0, false, "domain=1G domain=2M");
	before = heap_stats_all(0).free_pages;
	assert_int_equal(build(), 2);
	assert_true(ds.d[0].failed);
	assert_false(ds.d[0].built);
	assert_non_null(
		strstr(ds.d[0].fail_reason, "out of memory: 1 GiB asked + "));
	assert_true(ds.d[1].built);
	assert_int_equal(heap_stats_all(0).free_pages + 512 +
				 ds.d[1].table_pages,
			 before);
	assert_int_equal(check(false), 0);
	destroy();
}

/* The local probe build: on this CPU, then destroyed; -ENOMEM rolls back. */
static void test_build_local(void **state)
{
	uint64_t before;

	machine(0, false, NULL);
	before = heap_stats_all(0).free_pages;
	assert_int_equal(domain_build_local(5 * MiB + 4096, 1, 9, lctx()), 0);
	assert_int_equal(heap_stats_all(0).free_pages, before);
	assert_int_equal(heap_stats_all(0).owned_pages, 0);
	/* Passes the plan (none here) but not the heap: all given back. */
	test_quiet_begin();
	assert_int_equal(domain_build_local(256 * MiB, 0, 18, lctx()), -ENOMEM);
	test_quiet_end();
	assert_int_equal(heap_stats_all(0).free_pages, before);
	assert_int_equal(heap_stats_all(0).owned_pages, 0);
	assert_int_equal(domain_build_local(0, 0, 9, lctx()), -EINVAL);
	assert_int_equal(domain_build_local(MiB, 7, 9, lctx()), -EINVAL);
}

/*
 * bench=on: the largest domain built deferred and eager on this CPU, the
 * memory back and clean (no dirty page) after each, counters restored.
 */
static void test_bench(void **state)
{
	uint64_t before, ops;

	machine(0, true, "domain=2M domain=6M@1 bootscrub=on");
	test_quiet_begin();
	scrub_boot(SCRUB_ON, 8 * MiB, false);
	test_quiet_end();
	before = heap_stats_all(0).free_pages;
	ops = heap_cachemaint()->stats->ops;
	domains_setup(&ds, &opts, &test_bi);
	test_quiet_begin();
	domains_bench(&ds);
	test_quiet_end();
	assert_true(ds.stats.bench.done);
	assert_int_equal(ds.stats.bench.bytes, 6 * MiB);
	assert_int_equal(ds.stats.bench.node, 1);
	assert_int_equal(ds.stats.bench.deferred_err, 0);
	assert_int_equal(ds.stats.bench.eager_err, 0);
	assert_true(ds.stats.bench.eager.ticks > 0);
	assert_int_equal(heap_stats_all(0).free_pages, before);
	assert_int_equal(heap_stats_all(0).dirty_pages, 0);
	assert_int_equal(heap_stats_all(0).owned_pages, 0);
	assert_int_equal(heap_cachemaint()->stats->ops, ops);
	assert_int_equal(heap_cachemaint()->mode, CACHEMAINT_DEFERRED);
}

/*
 * domains_build(&ds, @cpus) with the boot CPU alone (node 0): the node-1
 * domain is built by node 0's CPU, the nearest in the mask, and nothing
 * runs elsewhere.
 */
static void test_build_on_mask(void **state)
{
	cpumask_t one;

	machine(0, false, "domain=6M@1 domain=2M@0");
	cpumask_clear(&one);
	cpumask_set(&one, 0);
	domains_setup(&ds, &opts, &test_bi);
	test_quiet_begin();
	domains_build(&ds, &one);
	test_quiet_end();
	for (unsigned int i = 0; i < 2; i++) {
		assert_true(ds.d[i].built);
		assert_int_equal(ds.d[i].build_node, 0);
		assert_int_equal(ds.d[i].cpu_bits[0], 1);
	}
	assert_int_equal(ds.d[0].node, 1);
	assert_int_equal(ds.d[0].remote_bytes, 0);
	assert_int_equal(check(false), 0);
	destroy();
}

/*
 * Big extents: 5 GiB = one 4 GiB heap extent + one 1 GiB, 3 GiB = 2 + 1;
 * leaves stay 1 GiB; the checks and audit=full accept them; destroy gives
 * back every page, in no more free chunks than before.
 */
static void test_big_extents(void **state)
{
	struct audit_result a;
	unsigned int order;
	pfn_t head;
	uint64_t p;

	machine_big(false, "domain=5G@0 domain=3G@1 bootscrub=off "
			   "domains_trust=on");
	assert_int_equal(build(), 2);
	assert_true(ds.d[0].built && ds.d[1].built);
	assert_int_equal(ds.d[0].nbig, 2);
	assert_int_equal(ds.d[0].big[0].order, MAX_ORDER + 2);
	assert_int_equal(ds.d[0].big[1].order, MAX_ORDER);
	assert_int_equal(ds.d[0].big_bytes, 5 * GiB);
	assert_int_equal(ds.d[0].extents[0], 5);
	assert_int_equal(ds.d[0].heap_extents, 2);
	assert_int_equal(ds.d[1].nbig, 2);
	assert_int_equal(ds.d[1].big[0].order, MAX_ORDER + 1);
	assert_int_equal(ds.d[1].big[1].order, MAX_ORDER);
	assert_int_equal(ds.d[1].extents[0], 3);
	assert_int_equal(ds.d[1].heap_extents, 2);
	assert_int_equal(ds.d[1].remote_bytes, 0);
	/* A pfn deep inside the 4 GiB extent: its head and order. */
	p = pfn_val(paddr_to_pfn(ds.d[0].big[0].pa)) + (3ull << 18) + 77;
	assert_int_equal(heap_owner_of(pfn(p), &head, &order), ds.d[0].id);
	assert_int_equal(pfn_val(head),
			 pfn_val(paddr_to_pfn(ds.d[0].big[0].pa)));
	assert_int_equal(order, MAX_ORDER + 2);
	assert_int_equal(check(false), 0);
	test_quiet_begin();
	audit_run(&a, true);
	test_quiet_end();
	assert_true(a.ok);
	assert_int_equal(a.owned_pages, (8 * GiB) >> PAGE_SHIFT);
	assert_int_equal(a.lost_pages, 0);
	test_heap_check_clean();
	/* A leaf of the big prefix moved inside its extent: caught. */
	ds.d[0].big[0].gpa += GiB;
	assert_true(check(false) > 0);
	assert_true(test_console_contains("frame not an extent"));
	ds.d[0].big[0].gpa -= GiB;
	destroy();
	assert_int_equal(ds.stats.after.free_pages, ds.stats.before.free_pages);
	assert_true(ds.stats.after.free_chunks <= ds.stats.before.free_chunks);
	assert_int_equal(ds.stats.problems, 4); /* its 4 leaves */
	test_heap_check_clean();
}

/* 0xab at the start and middle of every free GiB of node 0. */
static void poke_free_gibs(void)
{
	for (uint64_t g = GiB; g < 16 * GiB; g += GiB) {
		if (heap_owner_of(paddr_to_pfn(pa(g)), NULL, NULL) !=
			    HEAP_OWNER_FREE ||
		    heap_owner_of(paddr_to_pfn(pa(g + GiB - 1)), NULL, NULL) !=
			    HEAP_OWNER_FREE)
			continue;
		memset(phys_to_virt(pa(g)), 0xab, 64);
		memset(phys_to_virt(pa(g + GiB / 2)), 0xab, 64);
	}
}

/*
 * bootscrub=off: a 2 GiB big extent the heap calls clean is zeroed by the
 * build in two 1 GiB units; trusted (domains_trust=on), it is not, and
 * the zero check says so.
 */
static void test_big_extent_zeroed(void **state)
{
	machine_big(false, "domain=2G@0 bootscrub=off");
	poke_free_gibs();
	build();
	assert_true(ds.d[0].built);
	assert_int_equal(ds.d[0].nbig, 1);
	assert_true(ds.d[0].big[0].zero);
	assert_int_equal(ds.d[0].big[0].units, 2);
	assert_true(ds.d[0].zero_ticks > 0);
	assert_int_equal(check(true), 0);
	destroy();

	machine_big(false, "domain=2G@0 bootscrub=off domains_trust=on");
	poke_free_gibs();
	build();
	assert_true(ds.d[0].built);
	assert_false(ds.d[0].big[0].zero);
	assert_true(check(true) > 0);
	assert_true(test_console_contains("guest memory not zero"));
	destroy();
}

/*
 * A local build with big extents; one larger than both nodes (the small
 * path may go off-node) runs out and gives them all back.
 */
static void test_big_local_rollback(void **state)
{
	uint64_t before;

	machine_big(false, "bootscrub=off domains_trust=on");
	before = heap_stats_all(0).free_pages;
	assert_int_equal(domain_build_local(3 * GiB, 0, MAX_FREE_ORDER, lctx()),
			 0);
	assert_int_equal(heap_stats_all(0).free_pages, before);
	test_quiet_begin();
	assert_int_equal(
		domain_build_local(32 * GiB, 0, MAX_FREE_ORDER, lctx()),
		-ENOMEM);
	test_quiet_end();
	assert_int_equal(heap_stats_all(0).free_pages, before);
	assert_int_equal(heap_stats_all(0).owned_pages, 0);
	test_heap_check_clean();
}

static int private_err[4];

/* @arg: the struct domain_ctx every CPU's builds share. */
static void private_worker(void *arg)
{
	unsigned int cpu = arch_cpu_id();

	for (unsigned int i = 0; i < 8 && !private_err[cpu]; i++)
		private_err[cpu] = domain_build_private(
			6 * MiB + 8192, (int)cpu_table[cpu].node, 9, cpu, arg);
}

/*
 * domain_build_private(): every CPU builds and destroys its own domains
 * at once (the latency probe's build-remote load); the heap ends as it
 * began; a slot past the owner ids is refused.
 */
static void test_build_private(void **state)
{
	uint64_t before;
	cpumask_t all;

	machine(0, false, NULL);
	before = heap_stats_all(0).free_pages;
	smp_online_mask(&all);
	for (unsigned int c = 0; c < 4; c++)
		private_err[c] = 0;
	smp_run_on(&all, private_worker, lctx());
	for (unsigned int c = 0; c < 4; c++)
		assert_int_equal(private_err[c], 0);
	assert_int_equal(heap_stats_all(0).free_pages, before);
	assert_int_equal(heap_stats_all(0).owned_pages, 0);
	assert_int_equal(
		domain_build_private(MiB, 0, 9,
				     HEAP_MAX_OWNER - DOMAIN_PRIVATE_OWNER + 1,
				     lctx()),
		-EINVAL);
	assert_int_equal(local_problems, 0);
	test_heap_check_clean();
}

/*
 * Progress lines of the build: the bytes built over every domain being
 * built (a failed one, without a table, is left out); nothing before 5 s;
 * a real short build prints no line.
 */
static void test_progress(void **state)
{
	static struct p2m fake;
	struct progress p;
	uint64_t hz = arch_ticks_hz();

	machine(0, false, "domain=6M domain=2M@1");
	build();
	assert_false(test_console_contains("% done"));
	destroy();
	ds.stats.count = 3;
	ds.d[0].p2m = ds.d[1].p2m = &fake;
	ds.d[2].p2m = NULL;
	ds.d[0].bytes_built = 30ull << 30;
	ds.d[1].bytes_built = 20ull << 30;
	ds.d[2].bytes_built = 50ull << 30;
	progress_begin(&p, "domains", 200ull << 30);
	assert_false(domains_progress_at(&ds, &p, p.start + 4 * hz));
	test_quiet_begin();
	assert_true(domains_progress_at(&ds, &p, p.start + 6 * hz));
	test_quiet_end();
	assert_true(test_console_contains("domains: 25% done, 50 GiB of 200"));
	assert_false(domains_progress_at(&ds, &p, p.start + 7 * hz));
	ds.d[0].p2m = ds.d[1].p2m = NULL;
	ds.stats.count = 0;
}

/*
 * domain_plan_nodes() (the latency probe's load): each domain= word on the
 * node domains_build()'s plan gives it on the same heap -- pinned, the
 * most free budget left, a node that is none -- quietly (the boot's own
 * plan warns), a word too large for the heap included.
 */
static void test_plan_nodes(void **state)
{
	uint64_t free[MAX_NUMNODES];
	uint32_t node[8];
	unsigned int n;

	machine(0, false,
		"domain=40M domain=8M@0 domain=30M domain=4M@7 domain=1G "
		"domain=20M domain=2M@1");
	n = opts.domain_count;
	assert_int_equal(n, 7);
	sandbox_console_clear();
	domain_plan_nodes(opts.domain, n, node);
	assert_int_equal(test_console_warnings(), 0);
	assert_int_equal(domains_setup(&ds, &opts, &test_bi), n);
	domain_budget(free, heap_node_count());
	test_quiet_begin();
	domain_plan(&ds, free, heap_node_count());
	test_quiet_end();
	assert_true(test_console_contains("domain3 asks for node 7"));
	assert_true(ds.d[4].failed); /* 1 GiB: more than the machine */
	for (unsigned int i = 0; i < n; i++)
		assert_int_equal(node[i], ds.d[i].node);
	/* 40 MiB leave its node less than 30 MiB: the next goes elsewhere. */
	assert_true(node[0] != node[2]);
	assert_int_equal(node[1], 0);
	assert_int_equal(node[6], 1);
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
		cmocka_unit_test_setup_teardown(test_fewest_extents, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_untrusted_zeroed,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_too_big_fails_alone,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_build_local, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_build_on_mask, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_bench, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_unit_shift, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_plan_nodes, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_big_extents, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_big_extent_zeroed,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_big_local_rollback,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_build_private, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_progress, test_setup,
						test_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
