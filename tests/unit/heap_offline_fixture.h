/* SPDX-License-Identifier: MIT */
/*
 * The machine of tests/unit/heap_offline*_test.c: one node of 4 GiB of
 * RAM (bootmem's frame table at its top), the heap given [1 GiB, 2 GiB),
 * one order-18 chunk; its counters; and take_all(), which allocates
 * everything and fails on a bad page handed out or a page handed out
 * twice.
 */
#ifndef TESTS_HEAP_OFFLINE_FIXTURE_H
#define TESTS_HEAP_OFFLINE_FIXTURE_H

#include "common.h"

#include <keel/heap_check.h>

#define BASE  (1ULL << 18) /* pfn of 1 GiB */
#define ORDER 18
#define PAGES (1ULL << ORDER)

static const struct test_ram ram4g[] = {
	{0, 4 * GiB, 0},
};

/*
 * One node, 4 GiB of RAM (bootmem's frame table at its top), @rsv
 * reserved; the heap holds [1 GiB, 2 GiB): one chunk.
 */
static inline void boot_4g(const struct test_rsv *rsv, unsigned int rsv_count)
{
	struct test_machine_cfg c = {
		.ram = ram4g,
		.ram_count = 1,
		.rsv = rsv,
		.rsv_count = rsv_count,
		.no_handoff = true,
	};

	test_machine_boot(&c);
	heap_strict = true;
	assert_true(heap_add_range(0, pfn(BASE), pfn(BASE + PAGES), false) > 0);
}

/* boot_4g() with nothing reserved: the heap's chunk all free. */
static inline void machine(void)
{
	boot_4g(NULL, 0);
	assert_int_equal(heap_stats_all(0).free_pages, PAGES);
}

/* The first page of adopted_machine()'s domain range (3 GiB, 512 pages). */
#define ADOPTED_PFN ((3 * GiB) >> 12)
#define ADOPTED_END (ADOPTED_PFN + 512)

/*
 * boot_4g() with [3 GiB, 3 GiB + 2 MiB) reserved as @name ("static-mem": a
 * domain's static memory; "preserved": a live update's) and adopted by the
 * heap for owner 7 (the heap's chunk free too: the list of marked pages is
 * a heap block).
 */
static inline void adopted_machine(const char *name)
{
	const struct test_rsv rsv[] = {
		{3 * GiB, 3 * GiB + 2 * MiB, name},
	};

	boot_4g(rsv, 1);
	assert_true(heap_adopt_owned(0, pfn(ADOPTED_PFN), pfn(ADOPTED_END), 7) >
		    0);
}

static inline struct heap_stats stats(void)
{
	struct heap_stats st;

	assert_int_equal(heap_stats(0, 0, &st), 0);
	return st;
}

/* Pages of the held list (keel's, allocated while pages are held). */
static inline uint64_t list_pages(void)
{
	return stats().bad_list_pages;
}

struct block {
	uint64_t pfn;
	unsigned int order;
};
static struct block blocks[8192];

static inline int cmp_block(const void *a, const void *b)
{
	const struct block *x = a, *y = b;

	return x->pfn < y->pfn ? -1 : x->pfn > y->pfn;
}

/*
 * Allocate everything (largest blocks first): no block holds a page of
 * @bad[0..@nbad), none overlaps another (a page handed out twice), and
 * they add up to @want pages. Then free them all. Return: blocks taken.
 */
static inline unsigned int take_all(const uint64_t *bad, unsigned int nbad,
				    uint64_t want)
{
	unsigned int n = 0;
	uint64_t got = 0;

	for (int k = ORDER; k >= 0; k--) {
		struct page_info *pg;

		while ((pg = heap_alloc((unsigned int)k, 0, 0, HEAP_NO_SCRUB,
					NULL))) {
			assert_true(n < ARRAY_SIZE(blocks));
			blocks[n++] = (struct block){pg->pfn, (unsigned int)k};
			got += 1ULL << k;
		}
	}
	assert_int_equal(got, want);
	assert_int_equal(heap_stats_all(0).free_pages, 0);
	qsort(blocks, n, sizeof(blocks[0]), cmp_block);
	for (unsigned int i = 0; i < n; i++) {
		uint64_t s = blocks[i].pfn, e = s + (1ULL << blocks[i].order);

		if (i)
			assert_true(blocks[i - 1].pfn +
					    (1ULL << blocks[i - 1].order) <=
				    s);
		for (unsigned int b = 0; b < nbad; b++)
			assert_false(bad[b] >= s && bad[b] < e);
	}
	for (unsigned int i = 0; i < n; i++)
		assert_int_equal(heap_free(pfn_to_page(pfn(blocks[i].pfn)),
					   blocks[i].order, HEAP_FREE_ZEROED),
				 0);
	return n;
}

#endif
