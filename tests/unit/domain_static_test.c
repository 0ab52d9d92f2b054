/* SPDX-License-Identifier: MIT */
/*
 * Static domains (issue 28 §0; common/domain/domain_static.c,
  * heap_adopt_owned() in common/mm/heap_owned.c) on a small sandbox machine of
   * 2 nodes x 64 MiB: a domain whose xen,static-mem ranges (reserved
    * "static-mem", as boot/ leaves them) become its owned extents, mapped from
     * guest address 0, never zeroed (a pattern written before the build
      * survives the build, the checks, the audit and destroy, bootscrub=off
       * included); every frame answers heap_owner_of() with its id; audit=full
        * balances with no page counted twice; destroy gives the ranges back to
         * reserved, not to the free lists; a range above a mem= cut refuses the
          * domain and stays untouched; the heap refuses misuse of adopted
           * memory.
 */
#include "common.h"
#include <keel/audit.h>
#include <keel/bootmem.h>
#include <keel/domain.h>
#include <keel/heap_boot.h>
#include <keel/heap_check.h>
#include <keel/p2m.h>

#include "../../common/domain/domain_priv.h"

/* The domains of the test's boot (the flow holds one likewise). */
static struct domain_set ds;

#define NODE_RAM (64 * MiB)
/* Node 0 is [16 MiB, 80 MiB), node 1 [80 MiB, 144 MiB) (TEST_RAM_BASE). */
#define A_START (32 * MiB) /* 2 MiB aligned: 3 x 2 MiB + 3 x 4 KiB leaves */
#define A_END	(38 * MiB + 12 * KiB)
#define B_START (96 * MiB + 4 * KiB) /* guest 6 MiB + 12 KiB: 4 KiB leaves */
#define B_END	(98 * MiB + 4 * KiB)

static const struct test_rsv static_rsv[] = {
	{A_START, A_END, "static-mem"},
	{B_START, B_END, "static-mem"},
};

static void machine(const char *cmdline, uint64_t mem_limit)
{
	struct test_machine_cfg cfg = {
		.nodes = 2,
		.node = {{NODE_RAM, 2, 0}, {NODE_RAM, 2, 0}},
		.rsv = static_rsv,
		.rsv_count = ARRAY_SIZE(static_rsv),
		.fill = 0xab,
		.dirty = true,
		.cmdline = cmdline,
		.mem_limit = mem_limit,
		.cachemaint = CACHEMAINT_DEFERRED,
	};
	struct bi_domain *d = &test_bi.domains[0];

	assert_int_equal(test_machine_boot(&cfg), 4);
	/* What boot/fdt/fdt_dom0less.c makes of a xen,domain with both ranges. */
	memset(d, 0, sizeof(*d));
	strcpy(d->name, "st");
	d->bytes = (A_END - A_START) + (B_END - B_START);
	d->vcpus = 2;
	d->is_static = true;
	d->static_mem[0] = region_of(pa(A_START), pa(A_END));
	d->static_mem[1] = region_of(pa(B_START), pa(B_END));
	d->static_count = 2;
	test_bi.domain_count = 1;
}

static uint64_t pattern(uint64_t p)
{
	return p * 0x9e3779b97f4a7c15ull ^ 0x7374617469636d65ull;
}

static void fill(uint64_t s, uint64_t e)
{
	for (uint64_t p = s; p < e; p += 8)
		*(uint64_t *)phys_to_virt(pa(p)) = pattern(p);
}

/* Every word of [s, e) still holds the pattern. */
static bool intact(uint64_t s, uint64_t e)
{
	for (uint64_t p = s; p < e; p += 8)
		if (*(const uint64_t *)phys_to_virt(pa(p)) != pattern(p))
			return false;
	return true;
}

/* Maximal naturally aligned blocks of pages [s, e), counted here. */
static unsigned int blocks(uint64_t s, uint64_t e)
{
	unsigned int n = 0;

	for (uint64_t p = s; p < e; n++) {
		uint64_t size = 1;

		while (!(p & size) && p + 2 * size <= e)
			size *= 2;
		p += size;
	}
	return n;
}

static struct domain *find(const char *name)
{
	for (unsigned int i = 0; i < ds.stats.count; i++)
		if (!strcmp(ds.d[i].name, name))
			return &ds.d[i];
	return NULL;
}

/* Every frame of [s, e) owned by @owner (heap_owner_of()). */
static bool owned_by(uint64_t s, uint64_t e, int owner)
{
	for (uint64_t p = s; p < e; p += PAGE_SIZE)
		if (heap_owner_of(paddr_to_pfn(pa(p)), NULL, NULL) != owner)
			return false;
	return true;
}

static void build(void)
{
	test_quiet_begin();
	domains_setup(&ds, &opts, &test_bi);
	domains_build(&ds, NULL);
	test_quiet_end();
}

static void audit_ok(void)
{
	struct audit_result a;

	test_quiet_begin();
	audit_run(&a, true);
	test_quiet_end();
	assert_true(a.ok);
	assert_int_equal(a.lost_pages, 0);
	assert_int_equal(a.problems, 0);
	assert_int_equal(a.owned_pages, heap_stats_all(0).owned_pages);
}

/*
 * A static domain beside a heap one, bootscrub=off (the build zeroes all
 * heap memory it takes): the static ranges are adopted, not zeroed.
 */
static void test_static_built(void **state)
{
	uint64_t free0, pages = (A_END - A_START + B_END - B_START) >> 12;
	struct domain *st;
	unsigned int problems;

	machine("bootscrub=off domain=4M", 0);
	fill(A_START, A_END);
	fill(B_START, B_END);
	free0 = heap_stats_all(0).free_pages;
	build();
	st = find("st");
	assert_non_null(st);
	assert_true(st->built);
	assert_false(st->failed);
	assert_int_equal(st->origin, DOMAIN_ORIGIN_STATIC);
	assert_int_equal(st->vcpus, 2);
	assert_int_equal(st->node, 0);
	assert_int_equal(st->spec.bytes, pages << 12);
	assert_int_equal(st->remote_bytes, B_END - B_START);
	assert_int_equal(st->extents[0], 0);
	assert_int_equal(st->extents[1], 3);
	assert_int_equal(st->extents[2], 3 + 512);
	assert_int_equal(st->heap_extents,
			 blocks(A_START >> 12, A_END >> 12) +
				 blocks(B_START >> 12, B_END >> 12));
	assert_int_equal(st->zero_ticks, 0);
	assert_true(find("domain0")->built);
	/* Only the boot domain and the tables came from the free lists. */
	assert_true(heap_stats_all(0).free_pages < free0 - (4 * MiB >> 12));
	assert_true(heap_stats_all(0).free_pages >
		    free0 - (4 * MiB >> 12) - 64);
	assert_int_equal(heap_stats_all(st->id).owned_pages, pages);
	assert_int_equal(heap_stats_all(0).adopted_pages, pages);
	assert_true(owned_by(A_START, A_END, st->id));
	assert_true(owned_by(B_START, B_END, st->id));
	assert_true(intact(A_START, A_END));
	assert_true(intact(B_START, B_END));

	test_quiet_begin();
	problems = domains_check(&ds, true);
	test_quiet_end();
	assert_int_equal(problems, 0);
	assert_true(intact(A_START, A_END));
	audit_ok();

	test_quiet_begin();
	domains_destroy_all(&ds);
	test_quiet_end();
	assert_int_equal(ds.stats.problems, 0);
	assert_int_equal(heap_stats_all(0).free_pages, free0);
	assert_int_equal(heap_stats_all(0).owned_pages, 0);
	assert_int_equal(heap_stats_all(0).adopted_pages, 0);
	assert_int_equal(heap_owner_of(paddr_to_pfn(pa(A_START)), NULL, NULL),
			 HEAP_OWNER_NONE);
	assert_true(intact(A_START, A_END));
	assert_true(intact(B_START, B_END));
	audit_ok();
}

/* The checks can fail: a record that no longer matches the table. */
static void test_static_check_finds(void **state)
{
	struct domain *st;
	unsigned int problems;

	machine("bootscrub=on", 0);
	build();
	st = find("st");
	assert_true(st->built);
	st->st.range[0].start = pa(A_START + PAGE_SIZE);
	test_quiet_begin();
	problems = domains_check(&ds, false);
	test_quiet_end();
	assert_true(problems > 0);
	assert_true(test_console_contains("st: frame not an extent of this "
					  "domain (guest 0 -> 0x2000000)"));
	st->st.range[0].start = pa(A_START);
	test_quiet_begin();
	domains_destroy_all(&ds);
	test_quiet_end();
	assert_int_equal(heap_stats_all(0).adopted_pages, 0);
}

/*
 * The machine's static domain "st", its memory filled first, refused
 * before the build with @why: nothing adopted, the memory untouched, the
 * audit balanced.
 */
static void built_refused(const char *why)
{
	struct domain *st;

	fill(A_START, A_END);
	build();
	st = find("st");
	assert_true(st->failed);
	assert_false(st->built);
	assert_string_equal(st->fail_reason, why);
	assert_int_equal(heap_stats_all(0).adopted_pages, 0);
	assert_true(intact(A_START, A_END));
	audit_ok();
}

/* Above a mem= cut: refused before the build, the range left alone. */
static void test_static_above_mem_cut(void **state)
{
	(void)state;
	machine("bootscrub=on", 70 * MiB);
	built_refused("xen,static-mem [0x6001000, 0x6201000) is above the "
		      "mem= cut");
	assert_int_equal(heap_stats_all(0).owned_pages, 0);
}

/*
 * Two static ranges of one domain that overlap: refused before the build
 * with one warning naming both, nothing adopted, the memory untouched.
 */
static void test_static_self_overlap(void **state)
{
	(void)state;
	machine("bootscrub=on", 0);
	test_bi.domains[0].static_mem[1] =
		region_of(pa(A_START + 64 * KiB), pa(A_START + 128 * KiB));
	built_refused("xen,static-mem [0x2010000, 0x2020000) overlaps its own "
		      "[0x2000000, 0x2603000)");
}

/*
 * A static range holding a page of a badram= pattern kept as a lattice
 * (no reservation names it: boot/badmem.c): refused before the build,
 * naming the page, nothing adopted, the memory untouched. Before the
 * check, the domain was built on the bad page.
 */
static void test_static_on_lattice(void **state)
{
	uint64_t bad = A_START + 7 * PAGE_SIZE;

	(void)state;
	machine("bootscrub=on", 0);
	test_bi.lattice[0] = (struct lattice){0x1f, (bad >> 12) & 0x1f};
	test_bi.lattice_count = 1;
	built_refused("xen,static-mem [0x2000000, 0x2603000) holds page "
		      "0x2007000 of a badram= pattern");
	test_bi.lattice_count = 0;
}

/* heap_adopt_owned() of the first bootmem reserved range named @name. */
static long adopt_named(const char *name)
{
	unsigned int count;
	const struct region *r = bootmem_reserved_regions(&count);

	for (unsigned int i = 0; i < count; i++)
		if (!strcmp(r[i].name, name))
			return heap_adopt_owned(r[i].node,
						region_start_pfn(&r[i]),
						region_end_pfn(&r[i]), 8);
	fail_msg("no reserved range named %s", name);
	return 0;
}

/* Misuse of adopted memory: refused (strict: a panic naming it). */
static void test_adopt_misuse(void **state)
{
	struct page_info *pg;
	pfn_t s = paddr_to_pfn(pa(A_START)), e = paddr_to_pfn(pa(A_END));

	machine("bootscrub=on", 0);
	/* Node 0's static-mem adopted as node 1's; keel's own frame table. */
	assert_int_equal(heap_adopt_owned(1, s, e, 7), -EINVAL);
	assert_int_equal(adopt_named("frametable"), -EINVAL);
	assert_int_equal(heap_stats_all(0).adopted_pages, 0);
	assert_int_equal(heap_adopt_owned(0, s, e, 7), 4);
	/* Twice, or over free heap memory: overlaps. */
	assert_int_equal(heap_adopt_owned(0, s, e, 8), -EINVAL);
	/* Heap memory of this node, of another node. */
	assert_int_equal(heap_adopt_owned(0, pfn(0x1000), pfn(0x1100), 8),
			 -EINVAL);
	assert_int_equal(heap_adopt_owned(0, pfn(0x5000), pfn(0x5100), 8),
			 -EINVAL);
	assert_int_equal(heap_adopt_owned(0, s, e, 0), -EINVAL);
	pg = pfn_to_page(s);
	TEST_EXPECT_PANIC(heap_free_owned(pg, pg->order, 7),
			  "adopted memory (heap_release_owned)");
	TEST_EXPECT_PANIC(heap_release_owned(0, s, e, 8),
			  "not this owner's extent");
	TEST_EXPECT_PANIC(heap_release_owned(0, pfn(0x1000), pfn(0x1001), 7),
			  "not this owner's extent"); /* a free page */
	TEST_EXPECT_PANIC(heap_release_owned(0, s, pfn(pfn_val(e) - 1), 7),
			  "not a whole adopted range");
	TEST_EXPECT_PANIC(heap_release_owned(0, pfn(pfn_val(s) + 1), e, 7),
			  "not an adopted extent");
	assert_int_equal(heap_stats_all(7).owned_pages,
			 pfn_val(e) - pfn_val(s));
	assert_int_equal(heap_release_owned(0, s, e, 7), 0);
	assert_int_equal(heap_stats_all(7).owned_pages, 0);
	assert_int_equal(heap_stats_all(0).adopted_pages, 0);
	test_heap_check_clean();
	audit_ok();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_static_built, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_static_check_finds,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_static_above_mem_cut,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_adopt_misuse, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_static_self_overlap,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_static_on_lattice,
						test_setup, test_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
