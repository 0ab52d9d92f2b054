/* SPDX-License-Identifier: MIT */
/*
 * Stage-2 tables (common/domain/p2m.c): the builder
 * on the sandbox heap in each format and geometry: mixed 1G/2M/4K maps
 * walked and translated, refusals, exact table page counts, a commit per
 * table, -ENOMEM without a lost page, destroy giving every page back;
 * runs of leaves with p2m_map_run(). The descriptor formats themselves:
 * p2m_format_test.c.
 */
#include "common.h"

#include <asm/sandbox_p2m.h>
#include <keel/heap_check.h>
#include <keel/p2m.h>
#include <keel/p2m_format.h>
#include <keel/p2m_selftest.h>

static const struct test_ram two_nodes[] = {
	{16 * MiB, 48 * MiB, 0},
	{48 * MiB, 80 * MiB, 1},
};

static void machine(void)
{
	struct test_machine_cfg c = {
		.ram = two_nodes,
		.ram_count = 2,
		/* Garbage everywhere: tables must be zeroed by p2m, not the heap. */
		.fill = 0xa5,
	};

	test_machine_boot(&c);
	heap_strict = true;
}

struct fmt_case {
	const struct p2m_format *fmt;
	unsigned int ipa_bits, root_pages;
	/* Table pages of 512 x 2 MiB at gpa 0 (the root's included). */
	uint64_t pages_1g_of_2m;
};

/* VMSA 48: root + L1 + L2; VMSA 40: 2 concatenated roots + L2; EPT: 3. */
static const struct fmt_case fmts[] = {
	{&p2m_format_vmsa_s2, 48, 1, 3}, {&p2m_format_vmsa_s2, 40, 2, 3},
	{&p2m_format_vmsa_s2, 32, 1, 2}, {&p2m_format_ept, 48, 1, 3},
	{&p2m_format_ept, 40, 1, 3},
};

struct leaf {
	uint64_t gpa, pa;
	unsigned int order;
};

struct collect {
	struct leaf l[1200];
	unsigned int n;
};

static int collect_fn(uint64_t gpa, paddr_t p, unsigned int order, void *arg)
{
	struct collect *c = arg;

	assert_true(c->n < ARRAY_SIZE(c->l));
	c->l[c->n++] = (struct leaf){gpa, pa_val(p), order};
	return 0;
}

static void test_page_counts(void **state)
{
	machine();
	for (unsigned int i = 0; i < ARRAY_SIZE(fmts); i++) {
		uint64_t before = heap_stats_all(0).free_pages;
		struct p2m p;

		assert_int_equal(
			p2m_init_format(&p, 0, fmts[i].ipa_bits, fmts[i].fmt),
			0);
		assert_int_equal(p2m_table_pages(&p), fmts[i].root_pages);
		assert_int_equal(before - heap_stats_all(0).free_pages,
				 fmts[i].root_pages);
		for (uint64_t g = 0; g < GiB; g += 2 * MiB)
			assert_int_equal(p2m_map(&p, g, pa(GiB + g), 9), 0);
		assert_int_equal(p2m_table_pages(&p), fmts[i].pages_1g_of_2m);
		/* One 1 GiB block next to it: one more L1 entry only. */
		if (fmts[i].ipa_bits > 32 || fmts[i].fmt == &p2m_format_ept) {
			uint64_t t = p2m_table_pages(&p);

			assert_int_equal(p2m_map(&p, GiB, pa(0), 18), 0);
			assert_int_equal(p2m_table_pages(&p), t);
		}
		/* 4 KiB pages of one 2 MiB region: one L2 (new 1G) + one L3. */
		{
			uint64_t t = p2m_table_pages(&p);

			for (uint64_t g = 0; g < 2 * MiB; g += PAGE_SIZE)
				assert_int_equal(
					p2m_map(&p, 2 * GiB + g, pa(g), 0), 0);
			assert_int_equal(p2m_table_pages(&p), t + 2);
		}
		assert_int_equal(before - heap_stats_all(0).free_pages,
				 p2m_table_pages(&p));
		p2m_destroy(&p);
		assert_int_equal(p2m_table_pages(&p), 0);
		assert_int_equal(heap_stats_all(0).free_pages, before);
		test_heap_check_clean();
	}
}

/* Mixed 1G/2M/4K: the walk lists exactly them, in gpa order. */
static void check_mixed(const struct fmt_case *f)
{
	static struct collect c;
	struct p2m p;
	paddr_t out;
	unsigned int order;

	assert_int_equal(p2m_init_format(&p, -1, f->ipa_bits, f->fmt), 0);
	/* Mapped out of order on purpose: the walk sorts by gpa. */
	assert_int_equal(p2m_map(&p, 2 * GiB, pa(5 * GiB), 18), 0);
	for (uint64_t i = 0; i < 4; i++)
		assert_int_equal(p2m_map(&p, GiB + i * 2 * MiB,
					 pa(0x7000000ULL - i * 2 * MiB), 9),
				 0);
	for (uint64_t i = 0; i < 3; i++)
		assert_int_equal(p2m_map(&p, i * PAGE_SIZE,
					 pa(0x100000ULL + (9 - i) * PAGE_SIZE),
					 0),
				 0);
	p2m_commit(&p);

	c.n = 0;
	assert_int_equal(p2m_walk(&p, collect_fn, &c), 0);
	assert_int_equal(c.n, 8);
	for (unsigned int i = 0; i < 3; i++) {
		assert_int_equal(c.l[i].gpa, i * PAGE_SIZE);
		assert_int_equal(c.l[i].pa, 0x100000ULL + (9 - i) * PAGE_SIZE);
		assert_int_equal(c.l[i].order, 0);
	}
	for (unsigned int i = 0; i < 4; i++) {
		assert_int_equal(c.l[3 + i].gpa, GiB + i * 2 * MiB);
		assert_int_equal(c.l[3 + i].pa, 0x7000000ULL - i * 2 * MiB);
		assert_int_equal(c.l[3 + i].order, 9);
	}
	assert_int_equal(c.l[7].gpa, 2 * GiB);
	assert_int_equal(c.l[7].pa, 5 * GiB);
	assert_int_equal(c.l[7].order, 18);

	assert_int_equal(p2m_translate(&p, 2 * PAGE_SIZE + 0x123, &out, &order),
			 0);
	assert_int_equal(pa_val(out), 0x100000ULL + 7 * PAGE_SIZE + 0x123);
	assert_int_equal(order, 0);
	assert_int_equal(
		p2m_translate(&p, GiB + 6 * MiB + 0x1234, &out, &order), 0);
	assert_int_equal(pa_val(out), 0x7000000ULL - 6 * MiB + 0x1234);
	assert_int_equal(order, 9);
	assert_int_equal(p2m_translate(&p, 3 * GiB - 8, &out, &order), 0);
	assert_int_equal(pa_val(out), 6 * GiB - 8);
	assert_int_equal(order, 18);
	/* Holes, and past the top of the IPA space. */
	assert_int_equal(p2m_translate(&p, 3 * PAGE_SIZE, &out, NULL), -ENOENT);
	assert_int_equal(p2m_translate(&p, GiB + 8 * MiB, &out, NULL), -ENOENT);
	assert_int_equal(p2m_translate(&p, 3 * GiB, &out, NULL), -ENOENT);
	assert_int_equal(p2m_translate(&p, 1ULL << f->ipa_bits, &out, NULL),
			 -ENOENT);
	/* The sandbox has no MMU to ask. */
	assert_int_equal(p2m_hw_translate(&p, 0, &out), -EOPNOTSUPP);
	p2m_destroy(&p);
}

static void test_mixed(void **state)
{
	machine();
	for (unsigned int i = 0; i < ARRAY_SIZE(fmts); i++) {
		uint64_t before = heap_stats_all(0).free_pages;

		if (fmts[i].ipa_bits < 34)
			continue; /* 5 GiB output, 3 GiB input: not in 32 bits */
		check_mixed(&fmts[i]);
		assert_int_equal(heap_stats_all(0).free_pages, before);
	}
	test_heap_check_clean();
}

static void test_refusals(void **state)
{
	machine();
	for (unsigned int i = 0; i < ARRAY_SIZE(fmts); i++) {
		uint64_t top = 1ULL << fmts[i].ipa_bits, t;
		struct p2m p;

		assert_int_equal(
			p2m_init_format(&p, 0, fmts[i].ipa_bits, fmts[i].fmt),
			0);
		assert_int_equal(p2m_map(&p, GiB, pa(GiB), 18), 0);
		assert_int_equal(p2m_map(&p, 0, pa(0), 0), 0);
		t = p2m_table_pages(&p);
		/* Orders other than 0, 9, 18. */
		assert_int_equal(p2m_map(&p, 0, pa(0), 1), -EINVAL);
		assert_int_equal(p2m_map(&p, 0, pa(0), 27), -EINVAL);
		/* Misaligned guest or machine address. */
		assert_int_equal(p2m_map(&p, 4 * MiB + PAGE_SIZE, pa(0), 9),
				 -EINVAL);
		assert_int_equal(p2m_map(&p, 4 * MiB, pa(PAGE_SIZE), 9),
				 -EINVAL);
		assert_int_equal(p2m_map(&p, 2 * GiB + 2 * MiB, pa(0), 18),
				 -EINVAL);
		/* Overlaps: inside a block, over a table, the same page twice. */
		assert_int_equal(p2m_map(&p, GiB + 8 * MiB, pa(0), 0), -EINVAL);
		assert_int_equal(p2m_map(&p, GiB + 8 * MiB, pa(0), 9), -EINVAL);
		assert_int_equal(p2m_map(&p, 0, pa(2 * MiB), 9), -EINVAL);
		assert_int_equal(p2m_map(&p, 0, pa(GiB), 18), -EINVAL);
		assert_int_equal(p2m_map(&p, 0, pa(PAGE_SIZE), 0), -EINVAL);
		/* Out of range: at or far past the top of the IPA space, past
		 * the output address width. The last page below the top maps. */
		assert_int_equal(p2m_map(&p, top, pa(0), 0), -EINVAL);
		assert_int_equal(p2m_map(&p, top - PAGE_SIZE, pa(0), 0), 0);
		assert_int_equal(p2m_map(&p, top - 2 * MiB, pa(0), 9), -EINVAL);
		assert_int_equal(p2m_map(&p, ~0ULL & ~(GiB - 1), pa(0), 18),
				 -EINVAL);
		assert_int_equal(p2m_map(&p, 8 * MiB, pa(1ULL << p.pa_bits), 0),
				 -EINVAL);
		/* The refusals allocated nothing (the last good map: 2 tables
		 * at most for a new 1G region near the top). */
		assert_true(p2m_table_pages(&p) <= t + 3);
		p2m_destroy(&p);
	}
	/* IPA widths the formats cannot do. */
	{
		struct p2m p;

		assert_int_equal(
			p2m_init_format(&p, 0, 31, &p2m_format_vmsa_s2),
			-EINVAL);
		assert_int_equal(p2m_init_format(&p, 0, 49, &p2m_format_ept),
				 -EINVAL);
		p2m_destroy(&p); /* a failed init destroys as a no-op */
		assert_int_equal(p2m_init(&p, 0, 0), 0);
		assert_int_equal(p.ipa_bits, 48);
		assert_string_equal(p2m_format_name(), "vmsav8-64-s2");
		p2m_destroy(&p);
	}
	test_heap_check_clean();
}

/* p2m_map() writes only; p2m_commit() is one barrier + one TLB flush. */
static void test_commit_once(void **state)
{
	struct sandbox_p2m_counters c;
	struct p2m p;

	machine();
	sandbox_p2m_counters_reset();
	assert_int_equal(p2m_init(&p, 1, 0), 0);
	for (uint64_t g = 0; g < 64 * MiB; g += 2 * MiB)
		assert_int_equal(p2m_map(&p, g, pa(g), 9), 0);
	for (uint64_t g = 0; g < MiB; g += PAGE_SIZE)
		assert_int_equal(p2m_map(&p, GiB + g, pa(g), 0), 0);
	sandbox_p2m_counters(&c);
	assert_int_equal(c.barriers, 0);
	assert_int_equal(c.tlb_flushes, 0);
	p2m_commit(&p);
	sandbox_p2m_counters(&c);
	assert_int_equal(c.barriers, 1);
	assert_int_equal(c.tlb_flushes, 1);
	p2m_destroy(&p);
}

/* 1 TiB of 1 GiB blocks: 1024 leaves in 3 table pages (root + 2 L1). */
static int count_fn(uint64_t gpa, paddr_t p, unsigned int order, void *arg)
{
	uint64_t *n = arg;

	if (order != 18 || gpa != *n * GiB || pa_val(p) != gpa + GiB)
		return -1;
	++*n;
	return 0;
}

static void test_one_tib(void **state)
{
	const struct p2m_format *f[] = {&p2m_format_vmsa_s2, &p2m_format_ept};
	struct p2m p;
	paddr_t out;

	machine();
	for (unsigned int i = 0; i < ARRAY_SIZE(f); i++) {
		uint64_t n = 0;

		assert_int_equal(p2m_init_format(&p, 0, 48, f[i]), 0);
		for (uint64_t g = 0; g < 1024; g++)
			assert_int_equal(
				p2m_map(&p, g * GiB, pa((g + 1) * GiB), 18), 0);
		assert_int_equal(p2m_table_pages(&p), 3);
		assert_int_equal(p2m_walk(&p, count_fn, &n), 0);
		assert_int_equal(n, 1024);
		assert_int_equal(p2m_translate(&p, 1024 * GiB - 1, &out, NULL),
				 0);
		assert_int_equal(pa_val(out), 1025 * GiB - 1);
		p2m_destroy(&p);
	}
}

/* Every table page comes from the p2m's node. */
static void test_node_local(void **state)
{
	struct p2m p;

	machine();
	for (int node = 0; node < 2; node++) {
		uint64_t before = test_node_stats(node)->free_pages;

		assert_int_equal(p2m_init(&p, node, 0), 0);
		assert_true(heap_owns(node, paddr_to_pfn(p.root), 0));
		for (uint64_t g = 0; g < 4 * MiB; g += PAGE_SIZE)
			assert_int_equal(p2m_map(&p, g, pa(g), 0), 0);
		/* Root, L1, L2, two L3: all from @node. */
		assert_int_equal(p2m_table_pages(&p), 5);
		assert_int_equal(before - test_node_stats(node)->free_pages, 5);
		p2m_destroy(&p);
		assert_int_equal(test_node_stats(node)->free_pages, before);
	}
}

/* A walk callback's non-zero return stops the walk and is returned. */
static int stop_at_second(uint64_t gpa, paddr_t p, unsigned int order,
			  void *arg)
{
	unsigned int *n = arg;

	return ++*n == 2 ? 42 : 0;
}

static void test_walk_stops(void **state)
{
	unsigned int n = 0;
	struct p2m p;

	machine();
	assert_int_equal(p2m_init(&p, 0, 0), 0);
	for (uint64_t g = 0; g < 4; g++)
		assert_int_equal(
			p2m_map(&p, g * PAGE_SIZE, pa(g * PAGE_SIZE), 0), 0);
	assert_int_equal(p2m_walk(&p, stop_at_second, &n), 42);
	assert_int_equal(n, 2);
	p2m_destroy(&p);
}

/* Out of heap in the middle of a map: -ENOMEM, and destroy loses nothing. */
static void test_enomem(void **state)
{
	static struct page_info *hog[40000];
	unsigned int held = 0;
	uint64_t before;
	struct p2m p;

	machine();
	before = heap_stats_all(0).free_pages;
	while (held < ARRAY_SIZE(hog) &&
	       (hog[held] = heap_alloc(0, HEAP_ANY_NODE, 0, 0, NULL)))
		held++;
	assert_int_equal(heap_stats_all(0).free_pages, 0);
	/* Two pages back: the root and an L1; the L2 fails. */
	assert_int_equal(heap_free(hog[--held], 0, HEAP_FREE_ZEROED), 0);
	assert_int_equal(heap_free(hog[--held], 0, HEAP_FREE_ZEROED), 0);
	assert_int_equal(p2m_init(&p, 0, 0), 0);
	assert_int_equal(p2m_map(&p, 0, pa(0), 0), -ENOMEM);
	assert_int_equal(p2m_table_pages(&p), 2);
	p2m_destroy(&p);
	assert_int_equal(heap_stats_all(0).free_pages, 2);
	while (held)
		assert_int_equal(heap_free(hog[--held], 0, HEAP_FREE_ZEROED),
				 0);
	assert_int_equal(heap_stats_all(0).free_pages, before);
	test_heap_check_clean();
}

/* p2m_selftest=on on the sandbox: passes, reports, gives every page back. */
static void test_selftest(void **state)
{
	uint64_t before;

	machine();
	before = heap_stats_all(0).free_pages;
	test_quiet_begin();
	assert_int_equal(p2m_selftest(-1), 0);
	assert_true(test_console_contains("p2m: selftest vmsav8-64-s2, 3 "
					  "tables"));
	assert_true(test_console_contains(": ok"));
	test_quiet_end();
	assert_int_equal(heap_stats_all(0).free_pages, before);
	test_heap_check_clean();
}

/*
 * p2m_map_run(): 600 leaves of 1 GiB across a leaf-table boundary (512),
 * each translating to its own machine address; an overlap in a run stops
 * it there (the leaves before stay); a run past the top or misaligned maps
 * nothing.
 */
static void test_map_run(void **state)
{
	static struct collect c;

	machine();
	for (unsigned int i = 0; i < ARRAY_SIZE(fmts); i++) {
		uint64_t top = 1ULL << fmts[i].ipa_bits;
		struct p2m p;
		paddr_t out;

		if (fmts[i].ipa_bits < 40)
			continue;
		assert_int_equal(
			p2m_init_format(&p, 0, fmts[i].ipa_bits, fmts[i].fmt),
			0);
		assert_int_equal(p2m_map_run(&p, 0, pa(GiB), 18, 600), 0);
		for (uint64_t g = 0; g < 600; g += 73) {
			assert_int_equal(
				p2m_translate(&p, g * GiB + 4096, &out, NULL),
				0);
			assert_int_equal(pa_val(out), (g + 1) * GiB + 4096);
		}
		assert_int_equal(p2m_translate(&p, 600 * GiB, &out, NULL),
				 -ENOENT);
		c.n = 0;
		assert_int_equal(p2m_walk(&p, collect_fn, &c), 0);
		assert_int_equal(c.n, 600);
		/* 601G taken: the run 600G..602G maps 600G and stops. */
		assert_int_equal(p2m_map(&p, 601 * GiB, pa(0), 18), 0);
		assert_int_equal(p2m_map_run(&p, 600 * GiB, pa(0), 18, 3),
				 -EINVAL);
		assert_int_equal(p2m_translate(&p, 600 * GiB, &out, NULL), 0);
		assert_int_equal(p2m_translate(&p, 602 * GiB, &out, NULL),
				 -ENOENT);
		assert_int_equal(p2m_map_run(&p, top - GiB, pa(0), 18, 2),
				 -EINVAL);
		assert_int_equal(p2m_translate(&p, top - GiB, &out, NULL),
				 -ENOENT);
		assert_int_equal(
			p2m_map_run(&p, 700 * GiB + 2 * MiB, pa(0), 18, 1),
			-EINVAL);
		p2m_destroy(&p);
	}
	test_heap_check_clean();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_page_counts, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_mixed, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_one_tib, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_refusals, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_map_run, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_commit_once, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_node_local, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_walk_stops, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_enomem, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_selftest, test_setup,
						test_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
