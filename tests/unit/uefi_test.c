/* SPDX-License-Identifier: MIT */
/*
 * boot/uefi.c: the UEFI memory map and LoadOptions translations, on maps
 * built here (QEMU_EFI.fd-like, and malformed ones) in exactly-sized heap
 * buffers so ASan catches any read past the given length.
 */
#include <stdlib.h>

#include "common.h"
#include <keel/errno.h>
#include <keel/uefi.h>

#define KB   (1ULL << 10)
#define MB   (1ULL << 20)
#define DESC 48 /* QEMU_EFI.fd's DescriptorSize */

static struct bootinfo bi;

struct d {
	uint32_t type;
	uint64_t start, bytes, attr;
};

#define WB UEFI_MEMORY_WB

/* @n descriptors with stride @stride in an exact heap buffer. */
static uint8_t *build_map(const struct d *ds, size_t n, size_t stride)
{
	uint8_t *m = calloc(n ? n : 1, stride);

	assert_non_null(m);
	for (size_t i = 0; i < n; i++) {
		struct uefi_mem_desc e = {
			.type = ds[i].type,
			.phys_start = ds[i].start,
			.virt_start = 0,
			.pages = ds[i].bytes >> 12,
			.attribute = ds[i].attr,
		};

		memcpy(m + i * stride, &e, sizeof(e));
	}
	return m;
}

static const struct region *reserved(const char *name, unsigned int nth)
{
	for (unsigned int i = 0; i < bi.reserved.count; i++)
		if (!strcmp(bi.reserved.regions[i].name, name) && !nth--)
			return &bi.reserved.regions[i];
	return NULL;
}

static int setup(void **state)
{
	bootinfo_init(&bi, BOOT_EFI);
	return test_setup(state);
}

/* The layout QEMU_EFI.fd gives a 1G virt machine (simplified). */
static void test_qemu_like(void **state)
{
	static const struct d ds[] = {
		{UEFI_MMIO, 0x04000000, 64 * MB, 0},
		{UEFI_CONVENTIONAL, 0x40000000, 512 * MB, WB},
		{UEFI_LOADER_CODE, 0x60000000, 2 * MB, WB},
		{UEFI_BOOT_SERVICES_DATA, 0x60200000, 6 * MB, WB},
		{UEFI_ACPI_RECLAIM, 0x60800000, 64 * KB, WB},
		{UEFI_RUNTIME_SERVICES_DATA, 0x60810000, 1 * MB, WB},
		{UEFI_RUNTIME_SERVICES_CODE, 0x60910000, 1 * MB, WB},
		{UEFI_CONVENTIONAL, 0x60a10000, 0x1f5f0000, WB},
		{UEFI_ACPI_NVS, 0x80000000, 4 * KB, WB},
		{UEFI_RESERVED, 0x80001000, 4 * KB, WB},
	};
	size_t n = ARRAY_SIZE(ds);
	uint8_t *m = build_map(ds, n, DESC);
	struct uefi_mmap_stats st;

	(void)state;
	assert_int_equal(uefi_mmap_to_bootinfo(m, n * DESC, DESC, &bi, &st), 0);
	assert_int_equal(test_console_warnings(), 0);
	assert_int_equal(bi.fixups, 0);
	assert_int_equal(st.descs, n);
	assert_int_equal(st.acpi_reclaim_bytes, 64 * KB);
	assert_int_equal(st.runtime_bytes, 2 * MB);
	assert_int_equal(st.ram_bytes, 520 * MB + 0x1f5f0000);

	/* Contiguous RAM descriptors merge; runtime/ACPI split them. */
	assert_int_equal(bi.ram.count, 2);
	assert_int_equal(pa_val(bi.ram.regions[0].start), 0x40000000);
	assert_int_equal(pa_val(bi.ram.regions[0].end), 0x60800000);
	assert_int_equal(bi.ram.regions[0].node, NUMA_NO_NODE);
	assert_int_equal(pa_val(bi.ram.regions[1].start), 0x60a10000);
	assert_int_equal(pa_val(bi.ram.regions[1].end), 0x80000000);

	assert_non_null(reserved("acpi reclaim", 0));
	assert_int_equal(pa_val(reserved("acpi reclaim", 0)->end), 0x60810000);
	/* Runtime code and data merge into one range. */
	assert_non_null(reserved("efi runtime", 0));
	assert_int_equal(pa_val(reserved("efi runtime", 0)->start), 0x60810000);
	assert_int_equal(pa_val(reserved("efi runtime", 0)->end), 0x60a10000);
	assert_null(reserved("efi runtime", 1));
	assert_non_null(reserved("acpi nvs", 0));
	assert_non_null(reserved("efi reserved", 0));
	/* MMIO is neither RAM nor reserved. */
	for (unsigned int i = 0; i < bi.reserved.count; i++)
		assert_true(pa_val(bi.reserved.regions[i].start) >= 0x40000000);
	free(m);
}

/* Larger stride than the struct (newer firmware): fields still found. */
static void test_stride_and_uncached(void **state)
{
	static const struct d ds[] = {
		{UEFI_CONVENTIONAL, 0x100000, 1 * MB, WB},
		{UEFI_CONVENTIONAL, 0x200000, 1 * MB, 0}, /* UC only: skipped */
		{UEFI_BOOT_SERVICES_CODE, 0x300000, 1 * MB, WB},
		{UEFI_CONVENTIONAL, 0x400000, 0, WB}, /* empty: dropped */
	};
	uint8_t *m = build_map(ds, ARRAY_SIZE(ds), 64);

	(void)state;
	assert_int_equal(uefi_mmap_to_bootinfo(m, 4 * 64, 64, &bi, NULL), 0);
	/* The empty RAM descriptor is warned and counted, not skipped. */
	assert_int_equal(test_console_warnings(), 1);
	assert_int_equal(bi.dropped_ram, 1);
	assert_int_equal(bi.ram.count, 2);
	assert_int_equal(pa_val(bi.ram.regions[0].end), 0x200000);
	assert_int_equal(pa_val(bi.ram.regions[1].start), 0x300000);
	assert_int_equal(bi.reserved.count, 0);
	free(m);
}

static void test_bad_desc_size(void **state)
{
	static const struct d ds[] = {{UEFI_CONVENTIONAL, 0, 4 * KB, WB}};
	uint8_t *m = build_map(ds, 1, 2048);
	static const size_t bad[] = {0, 8, 39, 44, 2048};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		sandbox_console_clear();
		bootinfo_init(&bi, BOOT_EFI);
		assert_int_equal(
			uefi_mmap_to_bootinfo(m, 2048, bad[i], &bi, NULL),
			-EINVAL);
		assert_int_equal(test_console_warnings(), 1);
		assert_true(test_console_contains("DescriptorSize"));
		assert_int_equal(bi.ram.count, 0);
		assert_int_equal(bi.fixups, 1);
	}
	free(m);
}

static void test_malformed_descs(void **state)
{
	static const struct d ds[] = {
		{UEFI_CONVENTIONAL, 0x1000000, 1 * MB, WB},
		{UEFI_CONVENTIONAL, 0x2000800, 1 * MB, WB},   /* unaligned */
		{UEFI_CONVENTIONAL, ~0xfffULL, 2 * 4096, WB}, /* overflows */
		{UEFI_CONVENTIONAL, 0x3000000, 1 * MB, WB},
	};
	uint8_t *m = build_map(ds, ARRAY_SIZE(ds), DESC);

	(void)state;
	/* Ragged: 10 bytes of a fifth descriptor. */
	uint8_t *r = calloc(1, 4 * DESC + 10);

	assert_non_null(r);
	memcpy(r, m, 4 * DESC);
	assert_int_equal(
		uefi_mmap_to_bootinfo(r, 4 * DESC + 10, DESC, &bi, NULL), 0);
	assert_true(test_console_contains("not a multiple"));
	assert_true(test_console_contains("not 4 KiB aligned"));
	assert_true(test_console_contains("overflows"));
	assert_int_equal(test_console_warnings(), 3);
	assert_int_equal(bi.fixups, 3);
	assert_int_equal(bi.ram.count, 2);
	assert_int_equal(pa_val(bi.ram.regions[1].start), 0x3000000);
	free(r);
	free(m);

	/* No map at all: nothing, quietly. */
	sandbox_console_clear();
	bootinfo_init(&bi, BOOT_EFI);
	assert_int_equal(uefi_mmap_to_bootinfo(NULL, 4096, DESC, &bi, NULL), 0);
	assert_int_equal(bi.ram.count, 0);
	assert_int_equal(test_console_warnings(), 0);
}

/* @s as UCS-2 at an odd address (alignment must not matter). */
static uint8_t *ucs2(const char *s, size_t *bytes, uint8_t **base)
{
	size_t n = strlen(s);
	uint8_t *b = malloc(2 * n + 1);

	assert_non_null(b);
	for (size_t i = 0; i < n; i++) {
		b[1 + 2 * i] = (uint8_t)s[i];
		b[2 + 2 * i] = 0;
	}
	*bytes = 2 * n;
	*base = b;
	return b + 1;
}

static bool lo(const char *in, char *out, size_t out_len)
{
	size_t bytes;
	uint8_t *base;
	uint8_t *w = ucs2(in, &bytes, &base);
	bool grub = uefi_load_options(w, bytes, out, out_len);

	free(base);
	return grub;
}

static void test_load_options(void **state)
{
	char out[64];

	(void)state;
	assert_false(lo("after=poweroff acpi=force", out, sizeof(out)));
	assert_string_equal(out, "after=poweroff acpi=force");
	assert_false(lo("\\keel.efi after=halt", out, sizeof(out)));
	assert_string_equal(out, "after=halt");
	assert_false(lo("fs0:\\EFI\\keel\\keel a=1", out, sizeof(out)));
	assert_string_equal(out, "a=1");
	assert_false(lo("KEEL.EFI", out, sizeof(out)));
	assert_string_equal(out, "");
	assert_true(lo("BOOT_IMAGE=/keel\tbootscrub=off", out, sizeof(out)));
	assert_string_equal(out, "bootscrub=off");
	assert_true(lo("BOOT_IMAGE=/keel", out, sizeof(out)));
	assert_string_equal(out, "");
	assert_false(lo("  acpi=off", out, sizeof(out)));
	assert_string_equal(out, "acpi=off");
	assert_int_equal(test_console_warnings(), 0);

	/* Too long for the buffer: whole words dropped, one warning. */
	assert_false(lo("after=poweroff acpi=force", out, 16));
	assert_string_equal(out, "after=poweroff");
	assert_int_equal(test_console_warnings(), 1);
	/* Never a cut word, even when that leaves nothing. */
	assert_false(lo("after=poweroff acpi=force", out, 10));
	assert_string_equal(out, "");
	assert_int_equal(test_console_warnings(), 2);
	/* The image's word takes no room; a later short word still fits. */
	assert_true(lo("BOOT_IMAGE=/boot/keel a=1 bbbb=2 c=3", out, 8));
	assert_string_equal(out, "a=1 c=3");
	assert_int_equal(test_console_warnings(), 3);

	/* Odd byte count: the last half character is ignored. */
	{
		static const uint8_t w[] = {'a', 0, '=', 0, '1', 0, 'x'};

		assert_false(uefi_load_options(w, sizeof(w), out, sizeof(out)));
		assert_string_equal(out, "a=1");
	}
	/* Stops at a NUL. */
	{
		static const uint8_t w[] = {'a', 0, 0, 0, 0x01, 0x02};

		assert_false(uefi_load_options(w, sizeof(w), out, sizeof(out)));
		assert_string_equal(out, "a");
	}
	/* Binary boot-option data: ignored with a warning. */
	{
		static const uint8_t w[] = {'a', 0, 0x01, 0x02, 'b', 0};

		sandbox_console_clear();
		assert_false(uefi_load_options(w, sizeof(w), out, sizeof(out)));
		assert_string_equal(out, "");
		assert_int_equal(test_console_warnings(), 1);
		assert_true(test_console_contains("not text"));
	}
	assert_false(uefi_load_options(NULL, 100, out, sizeof(out)));
	assert_string_equal(out, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_qemu_like, setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_stride_and_uncached, setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_bad_desc_size, setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_malformed_descs, setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_load_options, setup,
						test_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
