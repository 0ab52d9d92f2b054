/* SPDX-License-Identifier: MIT */
/*
 * common/scrub/scrub.c: the parallel boot scrub, the plan (who scrubs a
  * CPU-less node), idle mode, off mode and the scrub-stop fault injection. RAM
   * is filled with 0xAA before the handoff; afterwards every byte of every free
 * page must read zero. Choosing the primitive and the calibration:
 * scrub_calib_test.c.
 */
#include "scrub_fixture.h"

/* Memory-only @node was scrubbed by @helper's workers (and marked so). */
static void assert_scrubbed_by(unsigned int node, unsigned int helper)
{
	bool helper_cpu = false;
	unsigned int cpu;

	assert_int_equal(scrub_stats.node[node].helper_of, helper);
	for_each_cpu_in (cpu, &scrub_stats.node[node].cpus)
		helper_cpu |= cpu_table[cpu].node == helper;
	assert_true(helper_cpu);
}

static void test_boot_scrub_zeroes_everything(void **state)
{
	struct sandbox_cache_counters cc;
	uint64_t free_bytes[3], total = 0;
	unsigned int workers = 0;

	(void)state;
	boot3(2, 1, 1, NULL);
	for (unsigned int n = 0; n < 3; n++) {
		struct walk w = walk_node(n);

		/* The fill reached the heap: nothing is zero yet. */
		assert_int_equal(w.nonzero_pages, w.pages);
		assert_int_equal(w.dirty_chunks, w.chunks);
		free_bytes[n] = w.pages << PAGE_SHIFT;
		total += free_bytes[n];
	}

	sandbox_cache_counters_reset();
	scrub_boot(SCRUB_ON, 4 * MIB, false);
	assert_all_clean(3);

	assert_int_equal(scrub_stats.mode, SCRUB_ON);
	assert_int_equal(scrub_stats.bytes, total);
	assert_int_equal(scrub_stats.unit_bytes, 4 * MIB);
	assert_int_equal(scrub_stats.stopped_cpu, -1);
	assert_int_equal(scrub_stats.workers, 4);
	assert_true(scrub_stats.heap_ready_ticks > 0);
	assert_int_equal(scrub_stats.all_clean_ticks,
			 scrub_stats.heap_ready_ticks);
	for (unsigned int n = 0; n < 3; n++) {
		assert_int_equal(scrub_stats.node[n].bytes, free_bytes[n]);
		assert_true(cpumask_weight(&scrub_stats.node[n].cpus) >= 1);
		assert_int_equal(scrub_stats.node[n].helper_of, NUMA_NO_NODE);
		assert_true(scrub_stats.node[n].ticks > 0);
		/* Units were cleaned to PoC, so the chunks say so. */
		assert_int_equal(walk_node(n).clean_poc_chunks,
				 walk_node(n).chunks);
	}
	for (unsigned int c = 0; c < 4; c++) {
		assert_true(scrub_stats.cpu[c].worker);
		workers += scrub_stats.cpu[c].units > 0;
	}
	assert_true(workers >= 1);

	/* One clean per unit, covering exactly the scrubbed bytes. */
	sandbox_cache_counters(&cc);
	assert_int_equal(cc.scrub_clean_bytes, total);
	assert_true(cc.scrub_clean_ops >= total / (4 * MIB));
}

static void test_cpuless_node_done_by_nearest(void **state)
{
	struct test_machine_cfg cfg = {
		.dirty = true, /* as booted: bootscrub on */
		.nodes = 3,
		/* node 1: a CPU, no RAM: its worker goes to node 2 */
		.node = {{64 * MIB, 1}, {0, 1}, {64 * MIB, 0}},
		.distance = {{10, 20, 30}, {20, 10, 15}, {30, 15, 10}},
		.fill = 0xAA,
	};
	uint32_t by[MAX_NUMNODES];
	cpumask_t workers;

	(void)state;
	assert_int_equal(test_machine_boot(&cfg), 2);
	scrub_plan(false, &workers, by);
	assert_int_equal(by[0], 0);
	assert_int_equal(by[1], 1);
	assert_int_equal(by[2], 1); /* distance 15 beats 30 */
	assert_int_equal(cpumask_weight(&workers), 2);

	scrub_boot(SCRUB_ON, 1 * MIB, false);
	assert_all_clean(3);
	assert_int_equal(scrub_stats.node[2].bytes,
			 walk_node(2).pages << PAGE_SHIFT);
	assert_scrubbed_by(2, 1);
}

/*
 * Asymmetric distances (ACPI allows them): node 2 has memory and no CPUs;
 * node 1's CPUs reach it at 15, node 0's at 40, while node 2's own row says
 * the opposite (2 -> 0 = 12, 2 -> 1 = 255, unreachable). The helper is the
 * node whose CPUs are nearest to node 2's memory, distance[helper][2]: 1.
 * (Before, the matrix was replaced by 10/20 and node 0 won the tie; by
 * node 2's own row node 0 would win too.)
 */
static void test_cpuless_node_helper_direction(void **state)
{
	struct test_machine_cfg cfg = {
		.dirty = true, /* as booted: bootscrub on */
		.nodes = 3,
		.node = {{32 * MIB, 1}, {32 * MIB, 1}, {64 * MIB, 0}},
		.distance = {{10, 20, 40}, {21, 10, 15}, {12, 255, 10}},
		.fill = 0xAA,
	};
	uint32_t by[MAX_NUMNODES];
	cpumask_t workers;

	(void)state;
	assert_int_equal(test_machine_boot(&cfg), 2);
	assert_int_equal(node_distance(1, 2), 15);
	assert_int_equal(node_distance(2, 1), 255);
	scrub_plan(false, &workers, by);
	assert_int_equal(by[0], 0);
	assert_int_equal(by[1], 1);
	assert_int_equal(by[2], 1);

	scrub_boot(SCRUB_ON, 1 * MIB, false);
	assert_all_clean(3);
	assert_scrubbed_by(2, 1);
}

/*
 * A helper that cannot reach the node (255) is only used when no other
 * node with CPUs exists.
 */
static void test_unreachable_helper_last(void **state)
{
	struct test_machine_cfg cfg = {
		.dirty = true, /* as booted: bootscrub on */
		.nodes = 3,
		.node = {{16 * MIB, 1}, {16 * MIB, 1}, {16 * MIB, 0}},
		.distance = {{10, 20, 255}, {20, 10, 254}, {30, 30, 10}},
	};
	uint32_t by[MAX_NUMNODES];
	cpumask_t workers;

	(void)state;
	assert_int_equal(test_machine_boot(&cfg), 2);
	scrub_plan(false, &workers, by);
	assert_int_equal(by[2], 1);  /* 254 beats unreachable */
	cpu_table[1].online = false; /* node 1's only CPU */
	scrub_plan(false, &workers, by);
	assert_int_equal(by[2], 0); /* nothing else left */
	cpu_table[1].online = true;
}

/*
 * More chunks than the scrub's table gives a node in one pass: 16 nodes
 * leave 256 entries each, and node 0 has 60 unaligned 2 MiB pieces of
 * about 16 chunks each. The scrub must run several passes and still get
 * everything.
 */
static void test_many_chunks_multi_pass(void **state)
{
	struct test_machine_cfg cfg = {
		.dirty = true, /* as booted: bootscrub on */
		.nodes = 16,
		.fill = 0xAA,
	};
	uint64_t total, chunks;

	(void)state;
	cfg.node[0] = (struct test_node_cfg){120 * MIB, 2, 60};
	for (unsigned int n = 1; n < 16; n++)
		cfg.node[n] = (struct test_node_cfg){1 * MIB, 0, 0};
	test_machine_boot(&cfg);
	chunks = walk_node(0).chunks;
	assert_true(chunks > 256);
	total = free_bytes_all(16);
	scrub_boot(SCRUB_ON, 1 * MIB, false);
	assert_all_clean(16);
	assert_int_equal(scrub_stats.bytes, total);
	assert_int_equal(scrub_stats.node[0].bytes,
			 walk_node(0).pages << PAGE_SHIFT);
}

static void test_plan_ties_and_smt(void **state)
{
	struct test_machine_cfg cfg = {
		.dirty = true, /* as booted: bootscrub on */
		.nodes = 3,
		.node = {{16 * MIB, 2}, {16 * MIB, 0}, {16 * MIB, 1}},
	};
	uint32_t by[MAX_NUMNODES];
	cpumask_t workers;

	(void)state;
	assert_int_equal(test_machine_boot(&cfg), 3);
	/* node 1 is 20 away from both 0 and 2: the lowest id wins. */
	scrub_plan(false, &workers, by);
	assert_int_equal(by[1], 0);
	assert_int_equal(cpumask_weight(&workers), 3);

	/* Make CPU 1 the second thread of CPU 0's core. */
	cpu_table[1].package = cpu_table[0].package;
	cpu_table[1].core = cpu_table[0].core;
	cpu_table[1].thread = 1;
	scrub_plan(false, &workers, by);
	assert_int_equal(cpumask_weight(&workers), 2);
	assert_false(cpumask_test(&workers, 1));
	scrub_plan(true, &workers, by);
	assert_int_equal(cpumask_weight(&workers), 3);
}

static void test_idle_mode_ends_all_clean(void **state)
{
	uint64_t total;

	(void)state;
	boot3(1, 1, 1, NULL);
	total = free_bytes_all(3);
	scrub_boot(SCRUB_IDLE, 4 * MIB, false);
	assert_int_equal(scrub_stats.mode, SCRUB_IDLE);
	assert_true(scrub_stats.heap_ready_ticks > 0);
	assert_int_equal(scrub_stats.all_clean_ticks, 0);
	scrub_wait_all_clean();
	assert_true(scrub_stats.all_clean_ticks >=
		    scrub_stats.heap_ready_ticks);
	assert_all_clean(3);
	assert_int_equal(scrub_stats.bytes, total);
}

static void test_idle_mode_single_cpu(void **state)
{
	struct test_machine_cfg cfg = {
		.dirty = true, /* as booted: bootscrub on */
		.nodes = 1,
		.node = {{32 * MIB, 1}},
		.fill = 0xAA,
	};

	uint64_t total;

	(void)state;
	assert_int_equal(test_machine_boot(&cfg), 1);
	total = free_bytes_all(1);
	scrub_boot(SCRUB_IDLE, 4 * MIB, false);
	/* Nobody to work in the background: memory still dirty. */
	assert_int_not_equal(walk_node(0).dirty_chunks, 0);
	scrub_wait_all_clean();
	assert_all_clean(1);
	assert_int_equal(scrub_stats.cpu[0].bytes, total);
	/* It scrubbed, so the report calls it a scrubber (cpus[].scrubber). */
	assert_true(scrub_stats.cpu[0].worker);
	assert_int_equal(scrub_stats.workers, 1);
}

/*
 * Idle mode: the boot CPU is not an idle worker, but whatever it scrubs
 * (stress=N's idle steps, scrub_wait_all_clean()) makes it a scrubber, and
 * scrub.workers counts exactly the CPUs marked so.
 */
static void test_idle_mode_boot_cpu_scrubs(void **state)
{
	struct test_machine_cfg cfg = {
		.dirty = true, /* as booted: bootscrub on */
		.nodes = 1,
		.node = {{64 * MIB, 2}},
		.fill = 0xAA,
	};
	unsigned int marked = 0;

	(void)state;
	assert_int_equal(test_machine_boot(&cfg), 2);
	scrub_boot(SCRUB_IDLE, 1 * MIB, false);
	assert_false(scrub_stats.cpu[0].worker);
	/* What stress=N does on every CPU, the boot CPU included. */
	while (scrub_idle_step())
		;
	scrub_wait_all_clean();
	assert_all_clean(1);
	for (unsigned int c = 0; c < 2; c++) {
		if (scrub_stats.cpu[c].bytes)
			assert_true(scrub_stats.cpu[c].worker);
		marked += scrub_stats.cpu[c].worker;
	}
	assert_true(scrub_stats.cpu[1].worker);
	assert_int_equal(scrub_stats.workers, marked);
}

struct find_chunk {
	uint64_t pfn;
	struct page_info *head;
};

static void find_chunk_of(struct page_info *head, unsigned int order,
			  unsigned int zone, void *arg)
{
	struct find_chunk *f = arg;
	uint64_t p = pfn_val(page_to_pfn(head));

	(void)zone;
	if (f->pfn >= p && f->pfn < p + (1ull << order))
		f->head = head;
}

/*
 * An idle scrub step zeroes a chunk from its first dirty page on. Pages
 * before it were freed clean but written, never cleaned to PoC: the chunk
 * must not come back marked clean to PoC (a guest with its caches off
 * would read what DRAM still holds). Failed before the fix: the whole
 * chunk came back PGF_CLEAN_POC.
 */
/*
 * Two order-3 buddies, lower one in *@a. Where the heap has single
 * order-3 chunks (the boot's allocations decide), the first blocks are
 * no buddies; those are kept in @held until the two halves of one split
 * order-4 chunk come. Return: how many were kept.
 */
static unsigned int alloc_buddies(struct page_info **a, struct page_info **b,
				  struct page_info **held, unsigned int max)
{
	unsigned int n = 0;

	*a = heap_alloc(3, 0, 0, HEAP_NO_SCRUB, NULL);
	for (;;) {
		assert_non_null(*a);
		*b = heap_alloc(3, 0, 0, HEAP_NO_SCRUB, NULL);
		assert_non_null(*b);
		if ((pfn_val(page_to_pfn(*a)) ^ 8) == pfn_val(page_to_pfn(*b)))
			break;
		assert_true(n < max);
		held[n++] = *a;
		*a = *b;
	}
	if (pfn_val(page_to_pfn(*b)) < pfn_val(page_to_pfn(*a))) {
		struct page_info *t = *a;

		*a = *b;
		*b = t;
	}
	return n;
}

static void test_idle_step_keeps_unclean_prefix(void **state)
{
	struct page_info *a, *b, *held[64];
	struct find_chunk f;
	unsigned int n;

	(void)state;
	boot3(1, 1, 1, NULL);
	scrub_boot(SCRUB_ON, 4 * MIB, false);
	/* Buddies, lower one first: the merge's first dirty page is b's. */
	n = alloc_buddies(&a, &b, held, ARRAY_SIZE(held));
	while (n)
		assert_int_equal(heap_free(held[--n], 3, HEAP_FREE_ZEROED), 0);
	assert_int_equal(heap_free(a, 3, HEAP_FREE_ZEROED),
			 0); /* clean, not to PoC */
	assert_int_equal(heap_free(b, 3, HEAP_FREE_DIRTY), 0); /* dirty */
	f = (struct find_chunk){pfn_val(page_to_pfn(a)), NULL};
	heap_for_each_free(0, find_chunk_of, &f);
	assert_non_null(f.head);
	assert_true(f.head->first_dirty != FIRST_DIRTY_NONE);
	assert_true(f.head->first_dirty > 0);
	while (scrub_idle_step())
		;
	f.head = NULL;
	heap_for_each_free(0, find_chunk_of, &f);
	assert_non_null(f.head);
	assert_int_equal(f.head->first_dirty, FIRST_DIRTY_NONE);
	assert_false(f.head->flags & PGF_CLEAN_POC);
	assert_all_clean(3);
}

/*
 * A re-scrub after bootscrub=on (stress=N's steps) is counted nowhere:
 * the chunks come back clean and scrub_stats is the boot scrub's, to the
 * byte and to the CPU; scrub_idle_step() on the same memory counts it.
 */
static void test_rescrub_counted_nowhere(void **state)
{
	struct scrub_cpu_stats cpus[4];
	struct scrub_stats before;
	struct page_info *pg;

	(void)state;
	boot3(2, 1, 1, NULL);
	scrub_boot(SCRUB_ON, 4 * MIB, false);
	before = scrub_stats;
	memcpy(cpus, scrub_stats.cpu, sizeof(cpus));
	for (unsigned int round = 0; round < 2; round++) {
		pg = heap_alloc(9, 0, 0, 0, NULL);
		assert_non_null(pg);
		assert_int_equal(heap_free(pg, 9, HEAP_FREE_DIRTY), 0);
		assert_true(heap_stats_all(0).dirty_pages > 0);
		if (round)
			break;
		assert_true(scrub_rescrub_step());
		assert_false(scrub_rescrub_step());
		assert_int_equal(heap_stats_all(0).dirty_pages, 0);
		assert_all_clean(3);
		assert_memory_equal(&scrub_stats, &before, sizeof(before));
		assert_memory_equal(scrub_stats.cpu, cpus, sizeof(cpus));
	}
	while (scrub_idle_step())
		;
	assert_int_equal(scrub_stats.bytes, before.bytes + (2ull << 20));
	assert_int_equal(scrub_stats.node[0].bytes,
			 before.node[0].bytes + (2ull << 20));
}

static void test_off_mode_touches_nothing(void **state)
{
	struct walk w;

	(void)state;
	boot3(1, 1, 1, "bootscrub=off");
	scrub_boot(SCRUB_OFF, 4 * MIB, false);
	w = walk_node(1);
	assert_int_equal(w.nonzero_pages, w.pages);
	assert_int_equal(scrub_stats.bytes, 0);
	assert_int_equal(scrub_stats.all_clean_ticks, 0);
	assert_true(scrub_stats.heap_ready_ticks > 0);
}

static void test_scrub_stop_finished_by_others(void **state)
{
	uint64_t total;

	(void)state;
	/*
	 * The quitter is CPU 2, node 1's only worker: nobody takes a node's
	 * units in the first round before its own workers have begun, so it
	 * surely claims one (whenever the host runs it) and hands it back.
	 */
	boot3(2, 1, 1, "inject=scrub-stop:2");
	total = free_bytes_all(3);
	test_quiet_begin();
	scrub_boot(SCRUB_ON, 2 * MIB, false);
	test_quiet_end();
	assert_true(test_console_contains("cpu 2 stopped"));
	assert_all_clean(3);
	assert_int_equal(scrub_stats.stopped_cpu, 2);
	/* It gave its unit back before touching it. */
	assert_int_equal(scrub_stats.cpu[2].bytes, 0);
	assert_int_equal(scrub_stats.cpu[2].units, 0);
	assert_int_equal(scrub_stats.bytes, total);
}

/*
 * Several scrub-stop words: every worker that quit is in scrub_stats.stopped
 * with one warning each, stopped_cpu is the lowest. CPUs 2 and 3 are the
 * only workers of nodes 1 and 2, so each surely claims a unit (see above);
 * CPUs 0 and 1 scrub on and finish the work.
 */
static void test_scrub_stop_several(void **state)
{
	(void)state;
	boot3(2, 1, 1, "inject=scrub-stop:3 inject=scrub-stop:2");
	test_quiet_begin();
	scrub_boot(SCRUB_ON, 2 * MIB, false);
	test_quiet_end();
	assert_all_clean(3);
	assert_false(cpumask_test(&scrub_stats.stopped, 0));
	assert_false(cpumask_test(&scrub_stats.stopped, 1));
	assert_true(cpumask_test(&scrub_stats.stopped, 2));
	assert_true(cpumask_test(&scrub_stats.stopped, 3));
	assert_int_equal(scrub_stats.stopped_cpu, 2);
	assert_int_equal(cpumask_weight(&scrub_stats.stopped), 2);
	assert_int_equal(test_console_warnings(), 2);
	assert_true(test_console_contains("cpu 2 stopped"));
	assert_true(test_console_contains("cpu 3 stopped"));
}

/* scrub-stop naming a CPU that does not scrub at boot says so. */
static void test_scrub_stop_not_a_worker(void **state)
{
	(void)state;
	boot3(1, 1, 1, "inject=scrub-stop:1");
	test_quiet_begin();
	scrub_boot(SCRUB_IDLE, 4 * MIB, false);
	scrub_wait_all_clean();
	test_quiet_end();
	assert_true(
		test_console_contains("inject=scrub-stop:1: cpu 1 is not "
				      "a boot scrub worker (bootscrub=idle), "
				      "nothing injected"));
	assert_int_equal(scrub_stats.stopped_cpu, -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(
			test_boot_scrub_zeroes_everything, test_setup,
			test_teardown),
		cmocka_unit_test_setup_teardown(
			test_cpuless_node_done_by_nearest, test_setup,
			test_teardown),
		cmocka_unit_test_setup_teardown(
			test_cpuless_node_helper_direction, test_setup,
			test_teardown),
		cmocka_unit_test_setup_teardown(test_unreachable_helper_last,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_many_chunks_multi_pass,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_plan_ties_and_smt,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_idle_mode_ends_all_clean,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_idle_mode_single_cpu,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_idle_mode_boot_cpu_scrubs,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(
			test_idle_step_keeps_unclean_prefix, test_setup,
			test_teardown),
		cmocka_unit_test_setup_teardown(test_rescrub_counted_nowhere,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_off_mode_touches_nothing,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(
			test_scrub_stop_finished_by_others, test_setup,
			test_teardown),
		cmocka_unit_test_setup_teardown(test_scrub_stop_not_a_worker,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_scrub_stop_several,
						test_setup, test_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
