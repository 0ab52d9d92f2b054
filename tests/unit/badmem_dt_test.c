/* SPDX-License-Identifier: MIT */
/*
 * boot/fdt/fdt_chosen.c: /chosen/keel,bad-memory (issue 38 §1,
 * docs/booting-arm64.md): pairs of 64-bit address and size whatever the
 * root's cells, each a "bad firmware" reservation; a length that is not a
 * multiple of 16 and an empty or wrapping pair are one warning each.
 */
#include "fdt_fixture.h"
#include <keel/badmem.h>

/* One node of 1 GiB at 0 and /chosen/keel,bad-memory = @vals (@n u64s). */
static uint8_t *bad_dt(const uint64_t *vals, unsigned int n, int trail,
		       size_t *len)
{
	static const uint32_t ids[] = {0};
	size_t size = 1 << 16, l;
	uint8_t *base = numa_dt(ids, 1, NULL, 0, &l), *b = calloc(1, size);
	uint8_t *exact;
	fdt64_t cells[16];
	int chosen;

	assert_non_null(b);
	assert_true(n <= 16);
	assert_int_equal(fdt_open_into(base, b, (int)size), 0);
	free(base);
	chosen = fdt_add_subnode(b, 0, "chosen");
	assert_true(chosen >= 0);
	for (unsigned int i = 0; i < n; i++)
		cells[i] = cpu_to_fdt64(vals[i]);
	assert_int_equal(fdt_setprop(b, chosen, "keel,bad-memory", cells,
				     (int)(8 * n) + trail),
			 0);
	assert_int_equal(fdt_pack(b), 0);
	*len = fdt_totalsize(b);
	exact = copy_exact(b, *len);
	free(b);
	return exact;
}

static uint64_t bad_pages(void)
{
	uint64_t n = 0;

	for (unsigned int i = 0; i < bi.reserved.count; i++)
		if (badmem_region_source(bi.reserved.regions[i].name) ==
		    BADMEM_FIRMWARE)
			n += (pa_val(bi.reserved.regions[i].end) -
			      pa_val(bi.reserved.regions[i].start)) /
			     4096;
	return n;
}

static void test_pairs(void **state)
{
	static const uint64_t v[] = {0x100000, 0x1000, 0x200000, 0x200000};
	size_t len;
	uint8_t *b = bad_dt(v, 4, 0, &len);

	(void)state;
	assert_int_equal(parse_buf(b, len), 0);
	assert_int_equal(test_console_warnings(), 0);
	assert_int_equal(bad_pages(), 1 + 512);
	assert_true(test_has_reserved(&bi, 0x100000, 0x101000, "bad firmware"));
	assert_true(test_has_reserved(&bi, 0x200000, 0x400000, "bad firmware"));
	free(b);
}

static void test_malformed(void **state)
{
	static const uint64_t w[] = {0x300000, 0x1000, 0x400000};
	/* An empty pair and a wrapping one: one warning each, skipped. */
	static const uint64_t v[] = {0x100000, 0,	 ~0ULL - 0xfff,
				     0x2000,   0x300000, 0x1000};
	size_t len;
	uint8_t *b = bad_dt(v, 6, 0, &len);

	(void)state;
	assert_int_equal(parse_buf(b, len), 0);
	assert_int_equal(test_console_warnings(), 2);
	assert_true(test_console_contains("keel,bad-memory entry 0"));
	assert_true(test_console_contains("keel,bad-memory entry 1"));
	assert_int_equal(bad_pages(), 1);
	free(b);
	/* 20 bytes: the whole pair still read, the 4 left one warning. */
	sandbox_console_clear();
	b = bad_dt(w, 3, -4, &len);
	assert_int_equal(parse_buf(b, len), 0);
	assert_int_equal(test_console_warnings(), 1);
	assert_true(test_console_contains("not a multiple of 16"));
	assert_int_equal(bad_pages(), 1);
	free(b);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, test_setup, test_teardown)
	const struct CMUnitTest tests[] = {
		T(test_pairs),
		T(test_malformed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
