/* SPDX-License-Identifier: MIT */
/*
 * common/mm/bootmem.c at its edges: a reservation at the top of the
 * address space (its end clamped to the last page boundary) leaves no
 * region of 0 bytes in the reserved table (append_above() took one, where
 * the fill takes none), and ranges then loaded above every other one are
 * still appended in order, each page named once.
 */
#include "common.h"

#define TOP_PAGE (~0ULL & ~0xfffULL)

/* Every reserved region holds at least a page, sorted, disjoint. */
static void check_regions(unsigned int want)
{
	unsigned int n;
	const struct region *r = bootmem_reserved_regions(&n);

	assert_int_equal(n, want);
	for (unsigned int i = 0; i < n; i++) {
		assert_true(pa_val(r[i].start) < pa_val(r[i].end));
		if (i)
			assert_true(pa_val(r[i - 1].end) <= pa_val(r[i].start));
	}
}

static void test_top_of_address_space(void **state)
{
	(void)state;
	bootmem_init();
	assert_int_equal(bootmem_add(pa(16 * MiB), 64 * MiB, 0), 0);
	/* Its end, past 2^64, is clamped to TOP_PAGE: nothing to reserve. */
	assert_int_equal(bootmem_reserve(pa(TOP_PAGE), 4096, "top"), 0);
	assert_int_equal(bootmem_reserve(pa(TOP_PAGE + 16), 1, "top"), 0);
	check_regions(0);
	/* The page below it is reservable, and so is RAM after it. */
	assert_int_equal(bootmem_reserve(pa(TOP_PAGE - 4096), 4096, "high"), 0);
	check_regions(1);
	assert_int_equal(bootmem_reserve(pa(20 * MiB), 4096, "a"), 0);
	assert_int_equal(bootmem_reserve(pa(24 * MiB), 4096, "b"), 0);
	check_regions(3);
	assert_int_equal(bootmem_reserved_ram_bytes(), 2 * 4096);
}

/* An empty reservation is refused, and reserves nothing. */
static void test_empty(void **state)
{
	(void)state;
	bootmem_init();
	assert_int_equal(bootmem_add(pa(16 * MiB), 64 * MiB, 0), 0);
	assert_int_equal(bootmem_reserve(pa(20 * MiB), 0, "none"), -EINVAL);
	check_regions(0);
}

/*
 * bootmem's allocations against a model: a page bitmap of RAM in two
 * regions with a hole between them, random reservations (equal starts,
 * touching, overlapping, across the hole), then random requests of
 * random sizes and alignments in an order that makes the walks' cursors
 * serve both easier and harder shapes. Each allocation must be the
 * highest aligned fit the bitmap has, or none when it has none.
 */
#define M_BASE	(16 * MiB)
#define M_PAGES 8192 /* 32 MiB: [16, 28) and [32, 48) MiB are RAM */
static bool m_free[M_PAGES];

static uint64_t rnd_state = 0x9e3779b97f4a7c15ULL;
static uint64_t rnd(uint64_t n)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state % n;
}

static void m_set(uint64_t s, uint64_t e, bool v)
{
	for (uint64_t p = s; p < e && p < M_PAGES; p++)
		m_free[p] = v;
}

/* The highest aligned fit of @pages at @align pages: its page, or -1. */
static int64_t m_fit(uint64_t pages, uint64_t align)
{
	for (int64_t p = (int64_t)(M_PAGES - pages); p >= 0; p--) {
		uint64_t a = M_BASE / 4096 + (uint64_t)p, k;

		if (a % align)
			continue;
		for (k = 0; k < pages && m_free[p + (int64_t)k]; k++)
			;
		if (k == pages)
			return p;
	}
	return -1;
}

/* bootmem's free ranges are the bitmap's runs (RAM regions apart). */
static void m_check_free(void)
{
	uint64_t idx, p = 0, n = 0;
	uint32_t node;
	paddr_t fs, fe;

	for_each_free_range (idx, &fs, &fe, &node) {
		uint64_t s = (pa_val(fs) - M_BASE) / 4096;
		uint64_t e = (pa_val(fe) - M_BASE) / 4096;

		for (; p < s; p++)
			assert_false(m_free[p]);
		for (; p < e; p++)
			assert_true(m_free[p]);
		assert_true(e == M_PAGES || e == 3072 || !m_free[e]);
		n++;
	}
	for (; p < M_PAGES; p++)
		assert_false(m_free[p]);
	assert_true(n <= bootmem_free_ranges_at_most(0));
}

static void test_alloc_model(void **state)
{
	unsigned int placed = 0, refused = 0;

	(void)state;
	for (unsigned int round = 0; round < 40; round++) {
		bootmem_init();
		memset(m_free, 0, sizeof(m_free));
		assert_int_equal(bootmem_add(pa(M_BASE), 12 * MiB, 0), 0);
		assert_int_equal(bootmem_add(pa(32 * MiB), 16 * MiB, 0), 0);
		m_set(0, 3072, true);
		m_set(4096, 8192, true);
		for (unsigned int i = 0, n = 1 + rnd(200); i < n; i++) {
			uint64_t s = rnd(M_PAGES), len = 1 + rnd(16);

			if (i && rnd(4) == 0)
				s = s & ~63ULL; /* equal or near starts */
			bootmem_reserve(pa(M_BASE + s * 4096), len * 4096,
					rnd(2) ? "x" : "y");
			m_set(s, s + len, false);
		}
		for (unsigned int i = 0; i < 300; i++) {
			uint64_t pages = 1 + rnd(rnd(3) ? 8 : 600);
			uint64_t align = 1ULL << rnd(rnd(4) ? 3 : 10);
			int64_t want = m_fit(pages, align);
			paddr_t got = bootmem_alloc_try(
				pages * 4096, align * 4096,
				rnd(2) ? 0 : BOOTMEM_ANY_NODE, "m");

			if (want < 0) {
				assert_int_equal(pa_val(got),
						 pa_val(INVALID_PADDR));
				refused++;
				continue;
			}
			if (pa_val(got) != M_BASE + (uint64_t)want * 4096)
				fail_msg("round %u alloc %u: %llu pages at "
					 "%llu: "
					 "got %#llx, the highest fit is %#llx",
					 round, i, (unsigned long long)pages,
					 (unsigned long long)align,
					 (unsigned long long)pa_val(got),
					 (unsigned long long)(M_BASE +
							      want * 4096));
			m_set((uint64_t)want, (uint64_t)want + pages, false);
			placed++;
		}
		m_check_free();
	}
	/* Both outcomes were exercised, many times. */
	assert_true(placed > 1000 && refused > 100);
}

/*
 * bootmem_free_at_least(): true exactly when one free range holds the
 * bytes (the sum of several does not), wherever that range lies.
 */
static void test_free_at_least(void **state)
{
	(void)state;
	bootmem_init();
	assert_int_equal(bootmem_add(pa(16 * MiB), 64 * MiB, 0), 0);
	assert_int_equal(bootmem_add(pa(128 * MiB), 8 * MiB, 1), 0);
	/* Free: [16M, 20M), [20M + 4K, 80M) and [128M, 136M). */
	assert_int_equal(bootmem_reserve(pa(20 * MiB), 4096, "bad"), 0);
	assert_true(bootmem_free_at_least(60 * MiB - 4096));
	assert_false(bootmem_free_at_least(60 * MiB));
	assert_int_equal(bootmem_largest_free(), 60 * MiB - 4096);
	/* The sum of the free ranges, and RAM whatever is reserved. */
	assert_int_equal(bootmem_free_bytes(), 72 * MiB - 4096);
	assert_int_equal(bootmem_ram_bytes(), 72 * MiB);
	/* The largest now last: the walk goes past the smaller ones. */
	assert_int_equal(bootmem_reserve(pa(24 * MiB), 56 * MiB, "rest"), 0);
	assert_true(bootmem_free_at_least(8 * MiB));
	assert_false(bootmem_free_at_least(8 * MiB + 1));
	assert_true(bootmem_free_at_least(0));
	assert_int_equal(bootmem_free_bytes(), 16 * MiB - 4096);
	assert_int_equal(bootmem_ram_bytes(), 72 * MiB);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_top_of_address_space,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_empty, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_alloc_model, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_free_at_least, test_setup,
						test_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
