/* SPDX-License-Identifier: MIT */
/*
 * What bootmem's operations cost beside many reserved ranges (issue 38:
 * 100,000 bad pages are as many reserved regions), counted, never timed:
 * the top-down walks step over O(1) regions per allocation of one shape
 * (bootmem_walk_steps()), a series of pieces lands disjoint and named, a
 * reserved list in a few sorted runs loads with every range named, the
 * bound on free ranges holds, a request wider than every gap walks them
 * once, and a handoff in two steps (a live update's new image) leaves the
 * heap as one handoff does.
 */
#include "common.h"

#define BAD_COUNT  20000
#define BAD_STRIDE (64 * 1024ULL)
/* The last one 60 KiB below the top of RAM: every gap above is small. */
#define BAD_BASE (16 * MiB + 2 * GiB - BAD_COUNT * BAD_STRIDE)

static const struct test_ram two_gib[] = {{16 * MiB, 16 * MiB + 2 * GiB, 0}};

/* 2 GiB on one node, a reserved page every 64 KiB from BAD_BASE to the top. */
static void boot_cut(bool bootmem_only, bool handoff)
{
	struct test_rsv *rsv = calloc(BAD_COUNT, sizeof(*rsv));
	struct test_machine_cfg c = {
		.ram = two_gib,
		.ram_count = 1,
		.rsv = rsv,
		.rsv_count = BAD_COUNT,
		.bootmem_only = bootmem_only,
		.no_handoff = !handoff,
	};

	assert_non_null(rsv);
	for (unsigned int i = 0; i < BAD_COUNT; i++) {
		uint64_t a = BAD_BASE + i * BAD_STRIDE;

		rsv[i] = (struct test_rsv){a, a + 4096, "bad firmware"};
	}
	test_machine_boot(&c);
	free(rsv);
}

/* The reserved region holding [a, a + n), or NULL (binary search). */
static const struct region *rsv_holding(uint64_t a, uint64_t n)
{
	unsigned int count, lo = 0, hi;
	const struct region *r = bootmem_reserved_regions(&count);

	hi = count;
	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;

		if (pa_val(r[mid].end) <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < count && pa_val(r[lo].start) <= a &&
	    a + n <= pa_val(r[lo].end))
		return &r[lo];
	return NULL;
}

/* Bytes of the reserved regions named @name. */
static uint64_t named(const char *name)
{
	unsigned int count;
	const struct region *r = bootmem_reserved_regions(&count);
	uint64_t sum = 0;

	for (unsigned int i = 0; i < count; i++)
		if (!strcmp(r[i].name, name))
			sum += pa_val(r[i].end) - pa_val(r[i].start);
	return sum;
}

/* The reserved table sorted, disjoint, same-name neighbours joined. */
static void assert_rsv_table_sound(void)
{
	unsigned int count;
	const struct region *r = bootmem_reserved_regions(&count);

	for (unsigned int i = 1; i < count; i++) {
		assert_true(pa_val(r[i - 1].end) <= pa_val(r[i].start));
		if (pa_val(r[i - 1].end) == pa_val(r[i].start))
			assert_true(strcmp(r[i - 1].name, r[i].name));
	}
}

/*
 * 5,000 allocations of 16 KiB top-down through 20,000 bad pages: each
 * lands in a 60 KiB gap, and the walks step over O(1) reserved regions
 * each (without the cursor, each walk started at the top and stepped
 * over every gap used before it: about 800 on average).
 */
#define ALLOCS 5000
static void test_walk_amortised(void **state)
{
	uint64_t last = ~0ULL, steps;

	boot_cut(true, false);
	steps = bootmem_walk_steps();
	for (unsigned int i = 0; i < ALLOCS; i++) {
		paddr_t p = bootmem_alloc(16 * 1024, PAGE_SIZE, 0, "piece");
		const struct region *r = rsv_holding(pa_val(p), 16 * 1024);

		assert_true(pa_val(p) < last);
		last = pa_val(p);
		assert_non_null(r);
		assert_string_equal(r->name, "piece");
	}
	steps = bootmem_walk_steps() - steps;
	assert_true(steps <= 3 * ALLOCS);
	assert_rsv_table_sound();
}

/*
 * Requests wider than any gap (a badram= lattice's machine: every gap 124
 * KiB, and the scrub's chunk table, heap_check()'s scratch or a node's
 * frame table asks for more): the first walks the gaps, on its node (the
 * pass over all nodes knows then too); every later one wider than every
 * gap, on either pass and whatever its alignment, walks none; a request
 * that fits still lands. Here gaps of 60 KiB over all of RAM.
 */
static void test_too_wide_walks_once(void **state)
{
	static const struct test_ram ram[] = {
		{16 * MiB, 16 * MiB + BAD_COUNT * BAD_STRIDE, 0}};
	struct test_rsv *rsv = calloc(BAD_COUNT, sizeof(*rsv));
	struct test_machine_cfg c = {
		.ram = ram,
		.ram_count = 1,
		.rsv = rsv,
		.rsv_count = BAD_COUNT,
		.bootmem_only = true,
	};
	uint64_t steps;
	paddr_t p;

	(void)state;
	assert_non_null(rsv);
	for (unsigned int i = 0; i < BAD_COUNT; i++) {
		uint64_t a = 16 * MiB + i * BAD_STRIDE;

		rsv[i] = (struct test_rsv){a, a + 4096, "bad firmware"};
	}
	test_machine_boot(&c);
	free(rsv);
	steps = bootmem_walk_steps();
	p = bootmem_alloc_try(128 * 1024, PAGE_SIZE, 0, "wide");
	assert_int_equal(pa_val(p), pa_val(INVALID_PADDR));
	steps = bootmem_walk_steps() - steps;
	assert_true(steps > 0);
	steps = bootmem_walk_steps();
	assert_int_equal(
		pa_val(bootmem_alloc_try(128 * 1024, PAGE_SIZE, 0, "wide")),
		pa_val(INVALID_PADDR));
	assert_int_equal(pa_val(bootmem_alloc_try(64 * 1024, PAGE_SIZE,
						  BOOTMEM_ANY_NODE, "wide")),
			 pa_val(INVALID_PADDR));
	assert_int_equal(pa_val(bootmem_alloc_try(1 * MiB, 2 * MiB, 0, "wide")),
			 pa_val(INVALID_PADDR));
	assert_int_equal(bootmem_walk_steps() - steps, 0);
	p = bootmem_alloc_try(32 * 1024, PAGE_SIZE, 0, "fits");
	assert_int_not_equal(pa_val(p), pa_val(INVALID_PADDR));
	assert_non_null(rsv_holding(pa_val(p), 32 * 1024));
	assert_int_equal(named("wide"), 0);
	assert_rsv_table_sound();
}

static void one_lattice(struct bootinfo *bi)
{
	bi->lattice[0] = (struct lattice){0x1f, 5}; /* a page in 32 */
	bi->lattice_count = 1;
}

/*
 * A failing column's lattice bounds every gap before any walk (31 pages):
 * a request wider walks none, from the first (the frame table's sections
 * walked every gap of the node, in a live update's downtime too); one as
 * wide as the gaps still lands.
 */
static void test_lattice_too_wide_walks_none(void **state)
{
	static const struct test_ram ram[] = {{16 * MiB, 80 * MiB, 0}};
	struct test_machine_cfg c = {.ram = ram,
				     .ram_count = 1,
				     .bootmem_only = true,
				     .before_bootmem = one_lattice};
	uint64_t steps;
	paddr_t p;

	(void)state;
	test_machine_boot(&c);
	steps = bootmem_walk_steps();
	assert_int_equal(
		pa_val(bootmem_alloc_try(128 * 1024, PAGE_SIZE, 0, "wide")),
		pa_val(INVALID_PADDR));
	assert_false(bootmem_node_free_at_least(0, 124 * 1024 + 1));
	assert_int_equal(bootmem_walk_steps() - steps, 0);
	assert_true(bootmem_node_free_at_least(0, 124 * 1024));
	p = bootmem_alloc_try(124 * 1024, PAGE_SIZE, 0, "fits");
	assert_int_not_equal(pa_val(p), pa_val(INVALID_PADDR));
	assert_int_equal(named("wide"), 0);
	assert_rsv_table_sound();
}

/* A series: pieces of two sizes, in order, disjoint, named, all counted. */
struct series_test {
	unsigned int i;
	uint64_t at[3000];
};

static uint64_t st_size(void *arg)
{
	struct series_test *t = arg;

	return t->i % 2 ? 12 * 1024 : 40 * 1024;
}

static void st_placed(void *arg, paddr_t at)
{
	struct series_test *t = arg;

	t->at[t->i++] = pa_val(at);
}

/* Node 0's series of 3,000 pieces into @t. */
static struct bootmem_series series_of(struct series_test *t)
{
	return (struct bootmem_series){
		.node = 0,
		.count = 3000,
		.why = "series",
		.size_of = st_size,
		.placed = st_placed,
		.arg = t,
	};
}

static void test_series(void **state)
{
	static struct series_test t;
	struct bootmem_series sr = series_of(&t);
	uint64_t free0 = 0, free1 = 0, idx, sum = 0, tables0;
	paddr_t s, e;
	uint32_t node;

	boot_cut(true, false);
	memset(&t, 0, sizeof(t));
	tables0 = named("bootmem tables");
	for_each_free_range (idx, &s, &e, &node)
		free0 += pa_val(e) - pa_val(s);
	assert_int_equal(bootmem_alloc_series(&sr), 3000);
	assert_int_equal(sr.done, 3000);
	for (unsigned int i = 0; i < 3000; i++) {
		uint64_t n = i % 2 ? 12 * 1024 : 40 * 1024;
		const struct region *r = rsv_holding(t.at[i], n);

		/* Top-down, one below the other, never overlapping. */
		if (i)
			assert_true(t.at[i] + n <= t.at[i - 1]);
		assert_non_null(r);
		assert_string_equal(r->name, "series");
		sum += n;
	}
	for_each_free_range (idx, &s, &e, &node)
		free1 += pa_val(e) - pa_val(s);
	/* The series took its bytes; a grown table (named) may take more. */
	assert_int_equal(named("series"), sum);
	assert_int_equal(free0 - free1,
			 sum + named("bootmem tables") - tables0);
	assert_rsv_table_sound();
	/* Every bad page kept its name. */
	for (unsigned int i = 0; i < BAD_COUNT; i++) {
		const struct region *r =
			rsv_holding(BAD_BASE + i * BAD_STRIDE, 4096);

		assert_non_null(r);
		assert_string_equal(r->name, "bad firmware");
	}
}

/* Reserved regions inside [@s, @e). */
static uint64_t regions_in(uint64_t s, uint64_t e)
{
	unsigned int count;
	const struct region *r = bootmem_reserved_regions(&count);
	uint64_t n = 0;

	for (unsigned int i = 0; i < count; i++)
		n += pa_val(r[i].start) >= s && pa_val(r[i].end) <= e;
	return n;
}

/*
 * After a series, a small piece (it lands in a gap the series left, and
 * moves the walk's cursor up there), then one wider than every gap the
 * series left: it lands where the highest fit is, found from the free
 * ranges, stepping over a few regions, not the series' thousands (a
 * frame table among 100,000 bad pages, then the heap's range table).
 */
static void test_series_then_wide(void **state)
{
	static struct series_test t;
	struct bootmem_series sr = series_of(&t);
	uint64_t want = 0, idx, steps, below;
	paddr_t s, e, p;
	uint32_t node;

	boot_cut(true, false);
	memset(&t, 0, sizeof(t));
	assert_int_equal(bootmem_alloc_series(&sr), 3000);
	/* 1,500 gaps filled, 18,500 left under them. */
	assert_true(regions_in(t.at[2999], ~0ULL) > 1000);
	p = bootmem_alloc(4096, PAGE_SIZE, 0, "small");
	assert_true(pa_val(p) > t.at[2999]);
	for_each_free_range (idx, &s, &e, &node)
		if (pa_val(e) - pa_val(s) >= MiB)
			want = MAX(want, pa_val(e) - MiB);
	below = regions_in(want, t.at[2999]);
	steps = bootmem_walk_steps();
	p = bootmem_alloc(MiB, PAGE_SIZE, 0, "wide");
	steps = bootmem_walk_steps() - steps;
	assert_int_equal(pa_val(p), want);
	/* The gaps under the series only (their bad pages: 18,500). */
	assert_true(steps <= below + 8);
	assert_rsv_table_sound();
}

/*
 * A reserved list in three sorted runs (one range at the top first,
 * 3,000 ascending, 40 ascending below them), as a live update's new
 * image lists the firmware's bad pages and the handover's ranges: every
 * range reserved under its own name, and a page given twice under the
 * first name given (the last range, "late", repeats the run's first).
 */
static void test_sort_runs(void **state)
{
	enum { RUN = 3000, LOW = 40, ALL = 1 + RUN + LOW + 1 };
	struct test_rsv *rsv = calloc(ALL, sizeof(*rsv));
	struct test_machine_cfg c = {
		.ram = two_gib,
		.ram_count = 1,
		.rsv = rsv,
		.rsv_count = ALL,
		.bootmem_only = true,
	};
	uint64_t top = 16 * MiB + 2 * GiB - 4096;

	assert_non_null(rsv);
	rsv[0] = (struct test_rsv){top, top + 4096, "top"};
	for (unsigned int i = 0; i < RUN; i++) {
		uint64_t a = 1 * GiB + i * 8192ULL;

		rsv[1 + i] = (struct test_rsv){a, a + 4096, "run"};
	}
	for (unsigned int i = 0; i < LOW; i++) {
		uint64_t a = 64 * MiB + i * 8192ULL;

		rsv[1 + RUN + i] = (struct test_rsv){a, a + 4096, "low"};
	}
	/* Given last, on a page given before: the first name stays. */
	rsv[ALL - 1] = (struct test_rsv){1 * GiB, 1 * GiB + 4096, "late"};
	test_machine_boot(&c);
	for (unsigned int i = 0; i < ALL - 1; i++) {
		const struct region *r = rsv_holding(rsv[i].start, 4096);

		assert_non_null(r);
		assert_string_equal(r->name, rsv[i].name);
		assert_null(rsv_holding(rsv[i].end, 4096));
	}
	assert_string_equal(rsv_holding(1 * GiB, 4096)->name, "run");
	assert_int_equal(bootmem_merged_regions(NULL), 0);
	assert_rsv_table_sound();
	free(rsv);
}

/* bootmem_free_ranges_at_most() bounds the iterator's count. */
static void test_free_ranges_bound(void **state)
{
	uint64_t idx, n = 0;
	paddr_t s, e;
	uint32_t node;

	boot_cut(true, false);
	for_each_free_range (idx, &s, &e, &node)
		n++;
	assert_true(n >= BAD_COUNT);
	assert_true(bootmem_free_ranges_at_most(0) >= n);
}

/*
 * The handoff in two steps (heap_handoff_first(), then the rest) leaves
 * the heap with the chunks one heap_handoff() gives; the first step
 * alone holds at least what it was asked for, and less than all.
 */
static void test_two_steps(void **state)
{
	struct test_snap one, two;
	uint64_t first;

	boot_cut(false, true);
	one = test_heap_snapshot();
	boot_cut(false, false);
	heap_handoff_first(false, 4 * MiB);
	first = heap_stats_all(0).free_pages;
	assert_true(first >= (4 * MiB) >> PAGE_SHIFT);
	assert_true(first < (1 * GiB) >> PAGE_SHIFT);
	assert_true(heap_handoff_rest() > 0);
	assert_int_equal(heap_handoff_rest(), 0);
	two = test_heap_snapshot();
	test_snap_equal(&one, &two);
	test_heap_check_clean();
	free(one.c);
	free(two.c);
}

/*
 * A bootmem fed by hand (its tables may not grow: no
 * bootmem_allow_resize()) and RAM in 100 pieces of 4 MiB every 8 MiB: no
 * piece holds the node's entries, and the series cannot run (its table
 * has no room to merge into): each section still gets one piece of its
 * own (level 2), not 16 KiB blocks, and every page its entry.
 */
static void test_series_cannot_grow(void **state)
{
	uint64_t sections = 0, prev = ~0ULL;

	boot_cut(true, false);
	bootmem_init();
	for (unsigned int i = 0; i < 100; i++)
		assert_int_equal(
			bootmem_add(pa(64 * MiB + i * 8 * MiB), 4 * MiB, 0), 0);
	test_quiet_begin();
	frametable_init(1);
	test_quiet_end();
	for (unsigned int i = 0; i < 100; i++) {
		for (uint64_t p = (64 * MiB + i * 8 * MiB) >> PAGE_SHIFT;
		     p < (68 * MiB + i * 8 * MiB) >> PAGE_SHIFT; p++) {
			assert_non_null(pfn_to_page_or_null(pfn(p)));
			if (p >> FT_SECTION_SHIFT != prev)
				sections++;
			prev = p >> FT_SECTION_SHIFT;
		}
	}
	/* The section table, then one piece per section. */
	assert_int_equal(frametable_pieces(), sections + 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_walk_amortised, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_too_wide_walks_once,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(
			test_lattice_too_wide_walks_none, test_setup,
			test_teardown),
		cmocka_unit_test_setup_teardown(test_series_then_wide,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_series, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_sort_runs, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_free_ranges_bound,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_two_steps, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_series_cannot_grow,
						test_setup, test_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
