/* SPDX-License-Identifier: MIT */
/*
 * common/frametable.c: every RAM pfn has its own entry, holes at section
 * edges have none, a section shared by two nodes lives on the node of its
 * lowest RAM page, each node's storage is node-local and accounted.
 */
#include "heap_fixture.h"

static const struct hf_ram ram[] = {
	{16 * MiB, 100 * MiB, 0},
	{100 * MiB, 300 * MiB, 1},
	{1 * GiB, 1 * GiB + 64 * MiB, 2},
};

static uint32_t node_of_paddr(uint64_t a)
{
	for (unsigned int i = 0; i < ARRAY_SIZE(ram); i++)
		if (a >= ram[i].start && a < ram[i].end)
			return ram[i].node;
	return 0xffffffffu;
}

static void setup(void)
{
	struct hf_cfg c = {
		.ram = ram,
		.ram_count = ARRAY_SIZE(ram),
		.no_handoff = true,
	};

	hf_setup(&c);
}

static void test_every_ram_pfn_has_an_entry(void **state)
{
	uint64_t p;

	setup();
	assert_null(pfn_to_page_or_null(pfn(0)));
	assert_null(pfn_to_page_or_null(pfn((16 * MiB >> 12) - 1)));
	assert_null(pfn_to_page_or_null(pfn(300 * MiB >> 12)));
	assert_null(pfn_to_page_or_null(pfn(512 * MiB >> 12)));
	assert_null(pfn_to_page_or_null(pfn((GiB + 64 * MiB) >> 12)));
	assert_null(pfn_to_page_or_null(pfn(1ULL << 40)));
	/* Distinct entries: write each pfn, read all back. */
	for (unsigned int i = 0; i < ARRAY_SIZE(ram); i++)
		for (p = ram[i].start >> 12; p < ram[i].end >> 12; p += 7)
			pfn_to_page(pfn(p))->pfn = p;
	for (unsigned int i = 0; i < ARRAY_SIZE(ram); i++)
		for (p = ram[i].start >> 12; p < ram[i].end >> 12; p += 7)
			assert_int_equal(pfn_to_page(pfn(p))->pfn, p);
	HF_EXPECT_PANIC(pfn_to_page(pfn(0)), "no frame table entry");
}

static void test_node_local_storage(void **state)
{
	const struct bootmem_region *r;
	unsigned int count, i;
	uint64_t ft = 0, sec1 = (128 * MiB) >> 12;

	setup();
	/* Section 0 holds node 0 and node 1 pages: stored on node 0. */
	assert_int_equal(node_of_paddr(pa_val(virt_to_phys(
				 pfn_to_page(pfn(99 * MiB >> 12))))),
			 0);
	assert_int_equal(node_of_paddr(pa_val(virt_to_phys(
				 pfn_to_page(pfn(101 * MiB >> 12))))),
			 0);
	/* Sections 1 and 2 are node 1's: contiguous, on node 1. */
	assert_int_equal(
		node_of_paddr(pa_val(virt_to_phys(pfn_to_page(pfn(sec1))))), 1);
	assert_ptr_equal(pfn_to_page(pfn(2 * sec1)),
			 pfn_to_page(pfn(2 * sec1 - 1)) + 1);
	assert_int_equal(node_of_paddr(pa_val(
				 virt_to_phys(pfn_to_page(pfn(GiB >> 12))))),
			 2);
	/* All of it is reserved as "frametable" and accounted. */
	r = bootmem_reserved_regions(&count);
	for (i = 0; i < count; i++)
		if (!strcmp(r[i].name, "frametable"))
			ft += pa_val(r[i].end) - pa_val(r[i].start);
	assert_int_equal(ft, frametable_bytes());
	/* entries: (128M - 16M) + (300M - 128M) + 64M of pages, 32 B each */
	assert_true(frametable_bytes() >=
		    ((112 + 172 + 64) * MiB >> 12) * sizeof(struct page_info));
	assert_true(frametable_bytes() <=
		    ((112 + 172 + 64) * MiB >> 12) * sizeof(struct page_info) +
			    16 * 4096);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_ram_pfn_has_an_entry),
		cmocka_unit_test(test_node_local_storage),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
