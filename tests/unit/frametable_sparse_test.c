/* SPDX-License-Identifier: MIT */
/*
 * common/mm/frametable.c's section table follows RAM, not the highest
 * address (issue 37 §4): a 1 GiB arena at pa 2^46 (a host that maps
 * pa == va) costs the frame table the same bytes as at pa 1 GiB, its
 * entries and one page of section table, and its heap opens and runs
 * there; RAM spread over many far-apart runs (one 128 MiB section each,
 * up to 2^45.6) has an entry for every RAM pfn and none for any pfn of the
 * holes around them, between them or past the top.
 */
#include "common.h"

static uint64_t ft_reserved(void)
{
	const struct region *r;
	unsigned int count;
	uint64_t bytes = 0;

	r = bootmem_reserved_regions(&count);
	for (unsigned int i = 0; i < count; i++)
		if (!strcmp(r[i].name, "frametable"))
			bytes += pa_val(r[i].end) - pa_val(r[i].start);
	return bytes;
}

/* Bytes the frame table took for 1 GiB of RAM at @base, heap opened. */
static uint64_t cost_at(uint64_t base)
{
	const struct test_ram ram[] = {{base, base + GiB, 0}};
	struct test_machine_cfg c = {.ram = ram, .ram_count = 1};
	struct page_info *pg;

	test_machine_boot(&c);
	assert_int_equal(ft_reserved(), frametable_bytes());
	/* The heap works there: a page out and back (pfn_to_page on free). */
	pg = heap_alloc(0, HEAP_ANY_NODE, 0, HEAP_NO_SCRUB, NULL);
	assert_non_null(pg);
	assert_true(pa_val(pfn_to_paddr(page_to_pfn(pg))) >= base);
	heap_free(pg, 0, HEAP_FREE_ZEROED);
	assert_null(pfn_to_page_or_null(pfn((base >> 12) - 1)));
	assert_null(pfn_to_page_or_null(pfn((base + GiB) >> 12)));
	assert_non_null(pfn_to_page_or_null(pfn((base + GiB - 1) >> 12)));
	return frametable_bytes();
}

static void test_same_cost_at_any_address(void **state)
{
	uint64_t entries = (GiB >> 12) * sizeof(struct page_info);
	uint64_t low, high;

	(void)state;
	low = cost_at(GiB);
	high = cost_at(1ULL << 46);
	/* The entries and one page of section table, wherever RAM is. */
	assert_int_equal(low, entries + 4096);
	assert_int_equal(high, low);
	assert_int_equal(frametable_pieces(), 2);
}

/*
 * @n ranges of 16 MiB, range i + 1 16 GiB * 2^(i % 8) + 128 MiB past range
 * i (a section each, far apart, up to 2^45.6), on two nodes: every
 * RAM pfn its own entry, every hole pfn none.
 */
static void test_many_far_runs(void **state)
{
	const unsigned int n = 96;
	struct test_ram *r = calloc(n, sizeof(*r));
	struct test_machine_cfg c = {.ram = r, .ram_count = n};
	uint64_t at = 16 * MiB, entries = 0;

	(void)state;
	assert_non_null(r);
	for (unsigned int i = 0; i < n; i++) {
		r[i].start = at;
		r[i].end = at + 16 * MiB;
		r[i].node = i >= n / 2;
		entries += 16 * MiB >> 12;
		at += (GiB << (i % 8)) * 16 + 128 * MiB;
	}
	assert_true(r[n - 1].end < (1ULL << 47));
	c.no_handoff = true;
	test_machine_boot(&c);
	for (unsigned int i = 0; i < n; i++) {
		uint64_t s = r[i].start >> 12, e = r[i].end >> 12;

		assert_null(pfn_to_page_or_null(pfn(s - 1)));
		assert_null(pfn_to_page_or_null(pfn(e)));
		/* A pfn of the section between this run and the next. */
		assert_null(pfn_to_page_or_null(pfn(e + FT_SECTION_PAGES)));
		for (uint64_t p = s; p < e; p += 61)
			pfn_to_page(pfn(p))->pfn = p;
		pfn_to_page(pfn(e - 1))->pfn = e - 1;
	}
	for (unsigned int i = 0; i < n; i++) {
		uint64_t s = r[i].start >> 12, e = r[i].end >> 12;

		for (uint64_t p = s; p < e; p += 61)
			assert_int_equal(pfn_to_page(pfn(p))->pfn, p);
		assert_int_equal(pfn_to_page(pfn(e - 1))->pfn, e - 1);
	}
	assert_null(pfn_to_page_or_null(pfn(0)));
	assert_null(pfn_to_page_or_null(pfn(1ULL << 35)));
	assert_null(pfn_to_page_or_null(pfn(~0ULL >> 12)));
	/* Entries plus one page of section table per piece, at most. */
	assert_true(frametable_bytes() >= entries * sizeof(struct page_info));
	assert_true(frametable_bytes() <= entries * sizeof(struct page_info) +
						  frametable_pieces() * 4096);
	free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_same_cost_at_any_address,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_many_far_runs, test_setup,
						test_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
