/* SPDX-License-Identifier: MIT */
/*
 * common/liveupdate/lu_room.c: the memory past the old image that a
 * bigger new image may be written over (issue 36 §4, §5). Room: free
 * heap pages, keel's anonymous blocks, RAM kept as "image room". Not
 * room, each named in the refusal: another reserved range (a module),
 * memory that is not RAM, a domain's extent, the handover or the stub.
 */
#include <keel/liveupdate.h>

#include "common.h"

/*
 * The image at [16, 18) MiB, its room [18, 20), a module at [22, 23);
 * RAM [16, 80) and [96, 128) MiB: a hole between.
 */
static const struct test_ram ram[] = {
	{16 * MiB, 80 * MiB, 0},
	{96 * MiB, 128 * MiB, 0},
};
static const struct test_rsv rsv[] = {
	{16 * MiB, 18 * MiB, "kernel"},
	{18 * MiB, 20 * MiB, LU_ROOM_NAME},
	{22 * MiB, 23 * MiB, "module"},
};
static char why[160];

static void machine(void)
{
	struct test_machine_cfg c = {
		.ram = ram,
		.ram_count = ARRAY_SIZE(ram),
		.rsv = rsv,
		.rsv_count = ARRAY_SIZE(rsv),
	};

	test_machine_boot(&c);
	/* Nothing kept by the update (no domains, no handover, no stub). */
	lu_room_begin(NULL, pa(0), 0, pa(0), 0);
	why[0] = '\0';
}

static int room(uint64_t s, uint64_t e)
{
	return liveupdate_room(s, e, why, sizeof(why));
}

static void test_kept_and_free_are_room(void **state)
{
	machine();
	assert_int_equal(room(18 * MiB, 20 * MiB), 0);
	/* Past the kept room: free heap memory up to the module. */
	assert_int_equal(room(18 * MiB, 22 * MiB), 0);
	assert_string_equal(why, "");
}

static void test_module_in_the_way(void **state)
{
	machine();
	assert_int_equal(room(18 * MiB, 22 * MiB + 4096), -EBUSY);
	assert_string_equal(why, "no room for the new image's [0x1200000, "
				 "0x1601000): reserved module [0x1600000, "
				 "0x1700000) is there");
}

static void test_not_ram(void **state)
{
	machine();
	assert_int_equal(room(78 * MiB, 97 * MiB), -EBUSY);
	assert_string_equal(why, "no room for the new image's [0x4e00000, "
				 "0x6100000): 0x5000000 is not RAM in the "
				 "firmware's map");
}

static void test_handover_and_stub_kept(void **state)
{
	machine();
	lu_room_begin(NULL, pa(19 * MiB), 408, pa(40 * MiB), 8192);
	assert_int_equal(room(18 * MiB, 20 * MiB), -EBUSY);
	assert_string_equal(why, "no room for the new image's [0x1200000, "
				 "0x1400000): the handover [0x1300000, "
				 "0x1300198) is there");
	assert_int_equal(room(39 * MiB, 41 * MiB), -EBUSY);
	assert_non_null(strstr(why, "the stub scratch [0x2800000, 0x2802000)"));
}

static void test_domain_memory_in_the_way(void **state)
{
	struct page_info *pg;
	uint64_t p;

	machine();
	pg = heap_alloc_owned(0, 0, HEAP_NO_SCRUB, 7, NULL, NULL);
	assert_non_null(pg);
	p = pa_val(pfn_to_paddr(page_to_pfn(pg)));
	assert_int_equal(room(p, p + 4096), -EBUSY);
	assert_non_null(strstr(why, "domain 7's memory"));
	/* An anonymous block of keel's own is dead after the jump: room. */
	assert_int_equal(heap_free_owned(pg, 0, 7), 0);
	pg = heap_alloc(0, 0, 0, HEAP_NO_SCRUB, NULL);
	assert_non_null(pg);
	p = pa_val(pfn_to_paddr(page_to_pfn(pg)));
	assert_int_equal(room(p, p + 4096), 0);
}

/*
 * Bad memory is never room: a free page offlined (withheld), and a page
 * offlined inside an anonymous block of keel's (the block is room, the
 * page is not: the new image would be written over it; before, the whole
 * block was room). The refusal names the page.
 */
static void test_bad_page_in_the_way(void **state)
{
	struct page_info *pg;
	char want[64];
	uint64_t p;

	machine();
	pg = heap_alloc(0, 0, 0, HEAP_NO_SCRUB, NULL);
	assert_non_null(pg);
	p = pa_val(pfn_to_paddr(page_to_pfn(pg)));
	heap_free(pg, 0, 0);
	assert_int_equal(heap_offline(paddr_to_pfn(pa(p)), HEAP_BAD_BROKEN), 0);
	assert_int_equal(room(p, p + 4096), -EBUSY);
	assert_non_null(strstr(why, "out of service (bad memory)"));

	machine();
	pg = heap_alloc(2, 0, 0, HEAP_NO_SCRUB, NULL);
	assert_non_null(pg);
	p = pa_val(pfn_to_paddr(page_to_pfn(pg)));
	assert_int_equal(
		heap_offline(paddr_to_pfn(pa(p + 2 * 4096)), HEAP_BAD_BROKEN),
		0);
	/* The block's pages before the bad one are room. */
	assert_int_equal(room(p, p + 2 * 4096), 0);
	assert_int_equal(room(p, p + 4 * 4096), -EBUSY);
	snprintf(want, sizeof(want), "page %#llx there",
		 (unsigned long long)(p + 2 * 4096));
	assert_non_null(strstr(why, want));
	heap_free(pg, 2, 0);
	assert_int_equal(room(p + 2 * 4096, p + 3 * 4096), -EBUSY);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_kept_and_free_are_room,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_module_in_the_way,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_not_ram, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_handover_and_stub_kept,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_domain_memory_in_the_way,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_bad_page_in_the_way,
						test_setup, test_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
