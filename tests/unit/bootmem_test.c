/* SPDX-License-Identifier: MIT */
/*
 * common/mm/bootmem.c: top-down placement, alignment, node preference and
 * fallback by distance, exhaustion panics naming the request, reserved
 * wins over RAM, free range iteration, mem= and the handoff; tables that
 * grow (100,000 separate reserved ranges, by hand and from a bootinfo's
 * preserved ranges) and the merge only at their limit.
 */
#include "common.h"

/* Two nodes of 64 MiB each plus a far third node of 32 MiB. */
static const struct test_ram three_nodes[] = {
	{16 * MiB, 80 * MiB, 0},
	{80 * MiB, 144 * MiB, 1},
	{256 * MiB, 288 * MiB, 2},
};

static void setup_three(const struct test_rsv *rsv, unsigned int rsv_count,
			bool far2)
{
	struct test_machine_cfg c = {
		.ram = three_nodes,
		.ram_count = 3,
		.rsv = rsv,
		.rsv_count = rsv_count,
		.bootmem_only = true,
	};

	if (far2) {
		/* node 0: 1 is near (15), 2 far (40); node 1: 2 at 25 */
		uint8_t d[3][3] = {{10, 15, 40}, {15, 10, 25}, {40, 25, 10}};

		for (int a = 0; a < 3; a++)
			for (int b = 0; b < 3; b++)
				c.distance[a][b] = d[a][b];
	}
	test_machine_boot(&c);
}

static uint32_t node_of(paddr_t p)
{
	unsigned int n, i;
	const struct region *r = bootmem_ram_regions(&n);

	for (i = 0; i < n; i++)
		if (pa_val(p) >= pa_val(r[i].start) &&
		    pa_val(p) < pa_val(r[i].end))
			return r[i].node;
	return 0xffffffffu;
}

static bool is_reserved_as(paddr_t p, uint64_t size, const char *name)
{
	unsigned int n, i;
	const struct region *r = bootmem_reserved_regions(&n);

	for (i = 0; i < n; i++)
		if (pa_val(r[i].start) <= pa_val(p) &&
		    pa_val(p) + size <= pa_val(r[i].end))
			return !strcmp(r[i].name, name);
	return false;
}

/* Bytes of the RAM regions on @node, or of the reserved ones named @name. */
static uint64_t named_bytes(uint32_t node, const char *name)
{
	unsigned int n, i;
	const struct region *r =
		name ? bootmem_reserved_regions(&n) : bootmem_ram_regions(&n);
	uint64_t sum = 0;

	for (i = 0; i < n; i++)
		if (name ? !strcmp(r[i].name, name) : r[i].node == node)
			sum += pa_val(r[i].end) - pa_val(r[i].start);
	return sum;
}

static void test_top_down_and_align(void **state)
{
	paddr_t a, b, c;

	setup_three(NULL, 0, false);
	a = bootmem_alloc(4096, 4096, 0, "a");
	assert_int_equal(pa_val(a), 80 * MiB - 4096);
	b = bootmem_alloc(5000, 4096, 0, "b"); /* rounded to 2 pages */
	assert_int_equal(pa_val(b), 80 * MiB - 3 * 4096);
	c = bootmem_alloc(4096, 2 * MiB, 0, "c");
	assert_int_equal(pa_val(c), 78 * MiB);
	assert_int_equal(pa_val(c) % (2 * MiB), 0);
	assert_true(is_reserved_as(a, 4096, "a"));
	assert_true(is_reserved_as(b, 8192, "b"));
	assert_true(is_reserved_as(c, 4096, "c"));
	/* The gap between c and b stays free and is used next. */
	a = bootmem_alloc(4096, 4096, 0, "d");
	assert_int_equal(pa_val(a), 80 * MiB - 4 * 4096);
	assert_int_equal(bootmem_allocation_count(), 4);
	assert_int_equal(bootmem_allocated_bytes(), 5 * 4096);
	/* Bad alignment is refused, not rounded. */
	assert_int_equal(pa_val(bootmem_alloc_try(4096, 3 * 4096, 0, "x")),
			 pa_val(INVALID_PADDR));
}

/*
 * bootmem_alloc_at(): the range itself when it is free RAM of the node
 * asked (or of any, BOOTMEM_ANY_NODE), nothing reserved otherwise:
 * reserved in part, across a node's edge or a hole, unaligned, empty.
 */
static void test_alloc_at(void **state)
{
	static const struct test_rsv rsv[] = {{40 * MiB, 41 * MiB, "fw"}};
	const paddr_t none = INVALID_PADDR;
	unsigned int n0, n1;

	(void)state;
	setup_three(rsv, 1, false);
	bootmem_reserved_regions(&n0);
	assert_int_equal(
		pa_val(bootmem_alloc_at(pa(30 * MiB), 2 * MiB, 0, "here")),
		30 * MiB);
	assert_true(is_reserved_as(pa(30 * MiB), 2 * MiB, "here"));
	/* Taken now, or reserved in part: refused. */
	assert_int_equal(pa_val(bootmem_alloc_at(pa(31 * MiB), MiB, 0, "x")),
			 pa_val(none));
	assert_int_equal(
		pa_val(bootmem_alloc_at(pa(39 * MiB), 2 * MiB, 0, "x")),
		pa_val(none));
	/* Another node's RAM, a node's edge, a hole, no RAM at all. */
	assert_int_equal(pa_val(bootmem_alloc_at(pa(90 * MiB), MiB, 0, "x")),
			 pa_val(none));
	assert_int_equal(pa_val(bootmem_alloc_at(pa(79 * MiB), 2 * MiB,
						 BOOTMEM_ANY_NODE, "across")),
			 79 * MiB);
	assert_int_equal(
		pa_val(bootmem_alloc_at(pa(77 * MiB), 2 * MiB, 0, "x")),
		77 * MiB);
	assert_int_equal(pa_val(bootmem_alloc_at(pa(143 * MiB), 2 * MiB,
						 BOOTMEM_ANY_NODE, "x")),
			 pa_val(none));
	assert_int_equal(pa_val(bootmem_alloc_at(pa(300 * MiB), MiB,
						 BOOTMEM_ANY_NODE, "x")),
			 pa_val(none));
	/* Unaligned, or nothing. */
	assert_int_equal(
		pa_val(bootmem_alloc_at(pa(50 * MiB + 512), 4096, 0, "x")),
		pa_val(none));
	assert_int_equal(pa_val(bootmem_alloc_at(pa(50 * MiB), 0, 0, "x")),
			 pa_val(none));
	bootmem_reserved_regions(&n1);
	assert_int_equal(n1, n0 + 3);
	assert_int_equal(bootmem_allocated_bytes(), 6 * MiB);
}

static void test_same_name_merges(void **state)
{
	unsigned int n0, n1, i;
	paddr_t p;

	setup_three(NULL, 0, false);
	bootmem_reserved_regions(&n0);
	for (i = 0; i < 100; i++)
		bootmem_alloc(4096, 4096, 1, "many");
	bootmem_reserved_regions(&n1);
	assert_int_equal(n1, n0 + 1);
	p = bootmem_alloc(4096, 4096, 1, "other");
	assert_int_equal(pa_val(p), 144 * MiB - 101 * 4096);
	bootmem_reserved_regions(&n1);
	assert_int_equal(n1, n0 + 2);
}

static void test_node_preference_and_fallback(void **state)
{
	paddr_t p;

	setup_three(NULL, 0, true);
	p = bootmem_alloc(1 * MiB, 4096, 2, "n2");
	assert_int_equal(node_of(p), 2);
	assert_int_equal(pa_val(p), 287 * MiB);
	/* Fill node 0 completely (64 MiB), then the next one goes to 1. */
	p = bootmem_alloc(64 * MiB, 4096, 0, "fill0");
	assert_int_equal(pa_val(p), 16 * MiB);
	p = bootmem_alloc(4096, 4096, 0, "spill");
	assert_int_equal(node_of(p), 1);
	/* Fill node 1: node 0's next choice is node 2 (distance 40). */
	bootmem_alloc(64 * MiB - 4096, 4096, 1, "fill1");
	p = bootmem_alloc(4096, 4096, 0, "far");
	assert_int_equal(node_of(p), 2);
	/* No preference: the highest free memory wherever it is. */
	p = bootmem_alloc(4096, 4096, BOOTMEM_ANY_NODE, "any");
	assert_int_equal(node_of(p), 2);
}

static void test_fallback_order_by_distance(void **state)
{
	struct test_machine_cfg c = {0};
	static const struct test_ram r[] = {
		{16 * MiB, 32 * MiB, 0},
		{32 * MiB, 48 * MiB, 1},
		{48 * MiB, 64 * MiB, 2},
	};
	paddr_t p;

	/* node 2: node 0 is nearer (12) than node 1 (30). */
	c.ram = r;
	c.ram_count = 3;
	c.bootmem_only = true;
	c.distance[0][1] = c.distance[1][0] = 20;
	c.distance[0][2] = c.distance[2][0] = 12;
	c.distance[1][2] = c.distance[2][1] = 30;
	c.distance[0][0] = c.distance[1][1] = c.distance[2][2] = 10;
	test_machine_boot(&c);
	bootmem_alloc(16 * MiB, 4096, 2, "fill2");
	p = bootmem_alloc(4096, 4096, 2, "near");
	assert_int_equal(node_of(p), 0);
}

static void test_exhaustion_panics(void **state)
{
	setup_three(NULL, 0, false);
	TEST_EXPECT_PANIC(bootmem_alloc(1ULL << 40, 4096, 1, "giant-table"),
			  "cannot allocate 1099511627776 bytes");
	assert_non_null(strstr(sandbox_last_panic(), "giant-table"));
	assert_non_null(strstr(sandbox_last_panic(), "node 1"));
	assert_non_null(strstr(sandbox_last_panic(), "align 0x1000"));
	assert_int_equal(pa_val(bootmem_alloc_try(1ULL << 40, 4096, 1, "t")),
			 pa_val(INVALID_PADDR));
	/* Too aligned to fit anywhere: also a panic naming it. */
	TEST_EXPECT_PANIC(bootmem_alloc(4096, 1ULL << 40, 0, "aligned-thing"),
			  "aligned-thing");
}

static void test_reserved_wins(void **state)
{
	static const struct test_rsv rsv[] = {
		{76 * MiB, 84 * MiB, "firmware"}, /* across nodes 0/1 */
		{20 * MiB, 21 * MiB, "kernel"},
		{200 * MiB, 300 * MiB, "outside"}, /* partly non-RAM */
	};
	uint64_t idx, expect_free;
	paddr_t s, e, p;
	uint32_t node;
	uint64_t free = 0, prev_end = 0;
	unsigned int ranges = 0;

	setup_three(rsv, 3, false);
	/* 8 MiB + 1 MiB + 32 MiB of RAM (node 2 entirely) are reserved. */
	assert_int_equal(bootmem_reserved_ram_bytes(), 41 * MiB);
	for_each_free_range (idx, &s, &e, &node) {
		assert_true(pa_val(s) >= prev_end);
		assert_true(pa_val(s) < pa_val(e));
		assert_int_equal(node_of(s), node);
		assert_int_equal(node_of(pa(pa_val(e) - 1)), node);
		assert_false(pa_val(s) < 84 * MiB && pa_val(e) > 76 * MiB);
		assert_false(pa_val(s) < 21 * MiB && pa_val(e) > 20 * MiB);
		prev_end = pa_val(e);
		free += pa_val(e) - pa_val(s);
		ranges++;
	}
	expect_free = (64 + 64 + 32) * MiB - 41 * MiB;
	assert_int_equal(free, expect_free);
	assert_int_equal(ranges, 3); /* [16,20) [21,76) [84,144) */
	/* Allocation skips reserved memory: node 2 has nothing. */
	p = bootmem_alloc(4096, 4096, 0, "x");
	assert_int_equal(pa_val(p), 76 * MiB - 4096);
	assert_int_equal(named_bytes(2, NULL), 32 * MiB);
	TEST_EXPECT_PANIC(bootmem_alloc(200 * MiB, 4096, 2, "too-big"),
			  "too-big");
	/* Reserving over an existing name keeps the first name. */
	assert_int_equal(bootmem_reserve(pa(19 * MiB), 3 * MiB, "later"), 0);
	assert_true(is_reserved_as(pa(20 * MiB), MiB, "kernel"));
	assert_true(is_reserved_as(pa(19 * MiB), MiB, "later"));
	assert_true(is_reserved_as(pa(21 * MiB), MiB, "later"));
	assert_int_equal(bootmem_reserved_ram_bytes(),
			 41 * MiB + 2 * MiB + 4096);
}

static void test_mem_limit(void **state)
{
	struct test_machine_cfg c = {
		.ram = three_nodes,
		.ram_count = 3,
		.no_handoff = true,
		.mem_limit = 100 * MiB,
	};
	uint64_t idx, free = 0;
	paddr_t s, e;
	uint32_t node;

	test_machine_boot(&c);
	/* 160 MiB of RAM, 100 kept: up to 116 MiB (node 0 + 36 of node 1) */
	assert_int_equal(named_bytes(0, "mem="), 60 * MiB);
	assert_true(is_reserved_as(pa(116 * MiB), 28 * MiB, "mem="));
	assert_true(is_reserved_as(pa(256 * MiB), 32 * MiB, "mem="));
	for_each_free_range (idx, &s, &e, &node) {
		assert_true(pa_val(e) <= 116 * MiB);
		free += pa_val(e) - pa_val(s);
	}
	/* the frame table took some of the 100 MiB */
	assert_int_equal(free + bootmem_allocated_bytes(), 100 * MiB);
	assert_int_equal(bootmem_reserved_ram_bytes(),
			 60 * MiB + bootmem_allocated_bytes());
}

/* mem= that would leave too little free RAM is not applied at all. */
static void test_mem_limit_refused(void **state)
{
	struct test_machine_cfg c = {
		.ram = three_nodes,
		.ram_count = 3,
		.bootmem_only = true,
	};

	test_machine_boot(&c);
	/* 2 MiB kept (all free) but 3 MiB needed: refused, nothing cut. */
	assert_int_equal(bootmem_limit(2 * MiB, 3 * MiB), -ENOMEM);
	assert_int_equal(named_bytes(0, "mem="), 0);
	assert_int_equal(bootmem_reserved_ram_bytes(), 0);
	assert_int_equal(pa_val(bootmem_limit_top()), ~0ULL);
	/* Enough: applied, and the cut is where the 2 MiB end. */
	assert_int_equal(bootmem_limit(2 * MiB, 1 * MiB), 0);
	assert_int_equal(pa_val(bootmem_limit_top()), 18 * MiB);
	assert_int_equal(named_bytes(0, "mem="), 158 * MiB);
	/* More RAM than there is: nothing to cut. */
	bootmem_init();
	bootmem_init_from_bootinfo(&test_bi);
	assert_int_equal(bootmem_limit(1 * GiB, 0), 0);
	assert_int_equal(named_bytes(0, "mem="), 0);
}

/* The frame table covers the RAM mem= keeps, not the RAM it hides. */
static void test_mem_limit_frametable(void **state)
{
	struct test_machine_cfg c = {
		.ram = three_nodes,
		.ram_count = 3,
		.no_handoff = true,
		.mem_limit = 8 * MiB,
	};

	test_machine_boot(&c);
	assert_non_null(pfn_to_page_or_null(pfn((16 * MiB) >> 12)));
	assert_non_null(pfn_to_page_or_null(pfn((24 * MiB >> 12) - 1)));
	assert_null(pfn_to_page_or_null(pfn(24 * MiB >> 12)));
	assert_null(pfn_to_page_or_null(pfn(100 * MiB >> 12)));
	assert_null(pfn_to_page_or_null(pfn(260 * MiB >> 12)));
	/* 8 MiB of entries at most (+ section table, page rounding) */
	assert_true(frametable_bytes() <=
		    (8 * MiB >> 12) * sizeof(struct page_info) + 2 * 4096);
}

/*
 * More reservations than the table holds: neighbours with the smallest
 * gaps merge, every byte asked for stays reserved, none becomes free.
 */
static void test_reserved_table_full_merges(void **state)
{
	const unsigned int n = BOOTMEM_STATIC_REGIONS + 300;
	struct test_machine_cfg c = {
		.ram = three_nodes,
		.ram_count = 3,
		.bootmem_only = true,
	};
	uint64_t idx, gap = 0;
	paddr_t s, e;
	uint32_t node;
	unsigned int count;
	char name[16];

	test_machine_boot(&c);
	/* A table at its limit: the static one may not grow. */
	bootmem_set_table_limit(BOOTMEM_STATIC_REGIONS);
	test_quiet_begin();
	/* One page every 3 pages from 16 MiB; each its own name. */
	for (unsigned int i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "r%u", i);
		assert_int_equal(bootmem_reserve(pa(16 * MiB + i * 3 * 4096ULL),
						 4096, name),
				 0);
	}
	test_quiet_end();
	bootmem_reserved_regions(&count);
	assert_true(count <= BOOTMEM_STATIC_REGIONS);
	assert_true(bootmem_merged_regions(&gap) >= 300);
	/* every merge reserved one 2-page gap */
	assert_int_equal(gap, bootmem_merged_regions(NULL) * 2 * 4096ULL);
	for (unsigned int i = 0; i < n; i++) {
		paddr_t a = pa(16 * MiB + i * 3 * 4096ULL);

		snprintf(name, sizeof(name), "r%u", i);
		assert_true(is_reserved_as(a, 4096, name) ||
			    is_reserved_as(a, 4096, "merged"));
	}
	for_each_free_range (idx, &s, &e, &node)
		for (unsigned int i = 0; i < n; i++) {
			uint64_t a = 16 * MiB + i * 3 * 4096ULL;

			assert_false(a >= pa_val(s) && a < pa_val(e));
		}
	/* Allocation still works with a full table, and is reserved. */
	s = bootmem_alloc(8192, 4096, 0, "late");
	assert_true(is_reserved_as(s, 8192, "late") ||
		    is_reserved_as(s, 8192, "merged"));
}

/* The reserved table is sorted, non-overlapping, and covers @model. */
static void check_rsv_table(const bool *model, unsigned int pages)
{
	unsigned int n, i;
	const struct region *r = bootmem_reserved_regions(&n);

	for (i = 0; i < n; i++) {
		assert_true(pa_val(r[i].start) < pa_val(r[i].end));
		if (i)
			assert_true(pa_val(r[i - 1].end) <= pa_val(r[i].start));
	}
	for (unsigned int p = 0; p < pages; p++) {
		uint64_t a = 16 * MiB + p * 4096ULL;
		bool in = false;

		for (i = 0; i < n; i++)
			in |= pa_val(r[i].start) <= a && a < pa_val(r[i].end);
		assert_int_equal(in, model[p]);
	}
}

/*
 * A reservation that merges with the region before it and absorbs the one
 * after it, then goes on past it (found by fuzz-maps: the table was left
 * overlapping and a reserved page was handed to the heap), and random
 * reservation sequences against a page model.
 */
static void test_reserve_merge_across(void **state)
{
	static bool model[4096];
	struct test_machine_cfg c = {
		.ram = three_nodes,
		.ram_count = 3,
		.bootmem_only = true,
	};
	uint64_t x = 0x2545f4914f6cdd1dULL;

	test_machine_boot(&c);
	/* [16M+0, +5 pages) "a", [16M+28, +100) "a", then [16M+1, +30) "a" */
	bootmem_reserve(pa(16 * MiB), 5 * 4096, "a");
	bootmem_reserve(pa(16 * MiB + 28 * 4096), 100 * 4096, "a");
	bootmem_reserve(pa(16 * MiB + 1 * 4096), 30 * 4096, "a");
	memset(model, 0, sizeof(model));
	for (unsigned int p = 0; p < 128; p++)
		model[p] = true;
	check_rsv_table(model, 256);

	for (unsigned int round = 0; round < 20; round++) {
		test_machine_boot(&c);
		memset(model, 0, sizeof(model));
		for (unsigned int k = 0; k < 300; k++) {
			unsigned int p, len;
			static const char *const names[] = {"a", "b", "c"};

			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			p = (unsigned int)(x % 4000);
			len = 1 + (unsigned int)((x >> 20) % 60);
			if (p + len > 4096)
				len = 4096 - p;
			bootmem_reserve(pa(16 * MiB + p * 4096ULL),
					len * 4096ULL, names[(x >> 40) % 3]);
			for (unsigned int q = p; q < p + len; q++)
				model[q] = true;
		}
		check_rsv_table(model, 4096);
	}
}

static void test_handoff_closes(void **state)
{
	struct test_machine_cfg c = {
		.ram = three_nodes,
		.ram_count = 3,
		.no_handoff = true,
	};
	uint64_t idx, free = 0;
	paddr_t s, e;
	uint32_t node;
	unsigned int ranges = 0, n;

	test_machine_boot(&c);
	for_each_free_range (idx, &s, &e, &node) {
		free += pa_val(e) - pa_val(s);
		ranges++;
	}
	n = heap_handoff(true);
	assert_int_equal(n, ranges);
	assert_int_equal(heap_stats_all(0).total_pages, free >> 12);
	assert_int_equal(heap_stats_all(0).free_pages, free >> 12);
	TEST_EXPECT_PANIC(bootmem_alloc(4096, 4096, 0, "late"),
			  "bootmem closed");
}

/* The reserved region holding [p, p + size) is named @name: binary search. */
static bool reserved_as_fast(uint64_t p, uint64_t size, const char *name)
{
	unsigned int n, lo = 0, hi;
	const struct region *r = bootmem_reserved_regions(&n);

	hi = n;
	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;

		if (pa_val(r[mid].end) <= p)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && pa_val(r[lo].start) <= p &&
	       p + size <= pa_val(r[lo].end) && !strcmp(r[lo].name, name);
}

#define SEPARATE_RANGES 100000
static const struct test_ram two_gib[] = {{16 * MiB, 16 * MiB + 2 * GiB, 0}};

/* Issue 30 §3: 100,000 separate reservations all kept, none merged. */
static void test_100k_reserved_kept(void **state)
{
	struct test_machine_cfg c = {
		.ram = two_gib,
		.ram_count = 1,
		.bootmem_only = true,
	};
	unsigned int count;

	test_machine_boot(&c);
	for (unsigned int i = 0; i < SEPARATE_RANGES; i++)
		assert_int_equal(bootmem_reserve(pa(32 * MiB + i * 8192ULL),
						 4096, "preserved"),
				 0);
	bootmem_reserved_regions(&count);
	assert_true(count >= SEPARATE_RANGES);
	assert_int_equal(bootmem_merged_regions(NULL), 0);
	for (unsigned int i = 0; i < SEPARATE_RANGES; i++) {
		uint64_t a = 32 * MiB + i * 8192ULL;

		assert_true(reserved_as_fast(a, 4096, "preserved"));
		assert_false(reserved_as_fast(a + 4096, 4096, "preserved"));
	}
	/* The grown tables are reserved memory, named. */
	assert_true(named_bytes(0, "bootmem tables") >=
		    SEPARATE_RANGES * sizeof(struct region));
}

/*
 * The same through a bootinfo, as a live update's preserved ranges come:
 * bootmem sizes its table before it loads them, so that no table lands
 * on a range not loaded yet: every preserved page keeps its name.
 */
static void test_100k_preserved_from_bootinfo(void **state)
{
	struct test_rsv *rsv = calloc(SEPARATE_RANGES, sizeof(*rsv));
	struct test_machine_cfg c = {
		.ram = two_gib,
		.ram_count = 1,
		.rsv = rsv,
		.rsv_count = SEPARATE_RANGES,
		.bootmem_only = true,
	};
	unsigned int count;

	assert_non_null(rsv);
	/*
	 * At the top of RAM, where a table would go first; ascending, as a
	 * handover lists them.
	 */
	for (unsigned int i = 0; i < SEPARATE_RANGES; i++) {
		uint64_t a =
			16 * MiB + 2 * GiB - (SEPARATE_RANGES - i) * 8192ULL;

		rsv[i] = (struct test_rsv){a, a + 4096, "preserved"};
	}
	test_machine_boot(&c);
	assert_int_equal(test_bi.reserved.count, SEPARATE_RANGES);
	assert_int_equal(test_bi.merged_reserved, 0);
	bootmem_reserved_regions(&count);
	assert_true(count >= SEPARATE_RANGES);
	assert_int_equal(bootmem_merged_regions(NULL), 0);
	for (unsigned int i = 0; i < SEPARATE_RANGES; i++)
		assert_true(reserved_as_fast(rsv[i].start, 4096, "preserved"));
	assert_true(named_bytes(0, "bootmem tables") >=
		    SEPARATE_RANGES * sizeof(struct region));
	free(rsv);
}

/* bootmem's RAM table is bootinfo's, taken over: not a copy. */
static void test_ram_table_taken_over(void **state)
{
	unsigned int count;

	setup_three(NULL, 0, false);
	assert_ptr_equal(bootmem_ram_regions(&count), test_bi.ram.regions);
	assert_int_equal(count, test_bi.ram.count);
	assert_int_equal(count, 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_top_down_and_align,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_same_name_merges,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_alloc_at, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(
			test_node_preference_and_fallback, test_setup,
			test_teardown),
		cmocka_unit_test_setup_teardown(test_fallback_order_by_distance,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_exhaustion_panics,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_reserved_wins, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_mem_limit, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_mem_limit_refused,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_mem_limit_frametable,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_reserved_table_full_merges,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_reserve_merge_across,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_handoff_closes, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_100k_reserved_kept,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(
			test_100k_preserved_from_bootinfo, test_setup,
			test_teardown),
		cmocka_unit_test_setup_teardown(test_ram_table_taken_over,
						test_setup, test_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
