/* SPDX-License-Identifier: MIT */
/*
 * boot/multiboot2.c: information blocks built tag by tag in the test,
 * GRUB-like ones (BIOS and UEFI) and malformed ones. Each block is parsed
 * from an exact-size heap copy so that ASan catches any over-read.
 */
#include <stdlib.h>

#include "common.h"
#include <keel/multiboot.h>

#define INFO_PA 0x348000ULL

static struct bootinfo bi;
static uint8_t blk[16384] __attribute__((aligned(8)));
static size_t blk_len;

static void put32(size_t off, uint32_t v)
{
	memcpy(blk + off, &v, 4);
}

static void begin(void)
{
	memset(blk, 0, sizeof(blk));
	blk_len = 8;
}

/* Append a tag; Return: its offset. */
static size_t tag(uint32_t type, const void *payload, size_t len)
{
	size_t off = blk_len;

	put32(off, type);
	put32(off + 4, (uint32_t)(8 + len));
	if (len)
		memcpy(blk + off + 8, payload, len);
	blk_len = (off + 8 + len + 7) & ~(size_t)7;
	return off;
}

static size_t tag_str(uint32_t type, const char *s)
{
	return tag(type, s, strlen(s) + 1);
}

static void finish(void)
{
	tag(0, NULL, 0);
	put32(0, (uint32_t)blk_len);
}

struct e820 {
	uint64_t base, len;
	uint32_t type, zero;
};

static size_t tag_mmap(const struct e820 *e, unsigned int n)
{
	uint8_t buf[8 + 24 * 32];
	uint32_t esize = 24, ver = 0;

	memcpy(buf, &esize, 4);
	memcpy(buf + 4, &ver, 4);
	memcpy(buf + 8, e, 24 * n);
	return tag(6, buf, 8 + 24 * n);
}

static size_t tag_rsdp(uint32_t type)
{
	uint8_t r[36] = "RSD PTR ";

	r[15] = type == 15 ? 2 : 0;
	return tag(type, r, type == 15 ? 36 : 20);
}

struct efi_desc {
	uint32_t type, pad;
	uint64_t phys, virt, pages, attr;
};

static size_t tag_efi(const struct efi_desc *d, unsigned int n)
{
	uint8_t buf[8 + 48 * 32];
	uint32_t dsize = 48, ver = 1;

	memset(buf, 0, sizeof(buf));
	memcpy(buf, &dsize, 4);
	memcpy(buf + 4, &ver, 4);
	for (unsigned int i = 0; i < n; i++)
		memcpy(buf + 8 + 48 * i, &d[i], sizeof(d[i]));
	return tag(17, buf, 8 + 48 * n);
}

static const struct e820 bios_map[] = {
	{0, 0x9fc00, 1, 0},	     {0x9fc00, 0x400, 2, 0},
	{0xf0000, 0x10000, 2, 0},    {0x100000, 0x3fee0000, 1, 0},
	{0x3ffe0000, 0x20000, 2, 0}, {0xfffc0000, 0x40000, 2, 0},
};

/* Parse @len bytes of the block from an exact-size copy. */
static int parse_len(size_t len, uint64_t info_pa)
{
	uint8_t *copy = malloc(len ? len : 1);
	int rc;

	memcpy(copy, blk, len);
	bootinfo_init(&bi, BOOT_MULTIBOOT2);
	sandbox_console_clear();
	rc = multiboot2_parse(&bi, copy, len, info_pa);
	free(copy);
	return rc;
}

static int parse(void)
{
	return parse_len(blk_len, INFO_PA);
}

static bool reserved_named(const char *name)
{
	for (unsigned int i = 0; i < bi.reserved.count; i++)
		if (!strcmp(bi.reserved.regions[i].name, name))
			return true;
	return false;
}

/* GRUB 2.06 under SeaBIOS: tags 21, 1, 2, 3, 4, 6, 14. */
static void build_grub_bios(size_t *rsdp_off)
{
	uint32_t base = 0x100000, mod[2] = {0x400000, 0x480000};
	uint32_t mem[2] = {639, 1047424};
	uint8_t modbuf[8 + 7];

	begin();
	tag(21, &base, 4);
	tag_str(1, "after=exit bootscrub=off");
	tag_str(2, "GRUB 2.06-13+deb12u1");
	memcpy(modbuf, mod, 8);
	memcpy(modbuf + 8, "initrd", 7);
	tag(3, modbuf, sizeof(modbuf));
	tag(4, mem, 8);
	tag_mmap(bios_map, 6);
	*rsdp_off = tag_rsdp(14);
	finish();
}

static void test_grub_bios(void **state)
{
	size_t rsdp_off;

	build_grub_bios(&rsdp_off);
	assert_int_equal(parse(), 0);
	assert_int_equal(test_console_warnings(), 0);
	assert_string_equal(bi.cmdline, "after=exit bootscrub=off");
	assert_string_equal(bi.loader, "GRUB 2.06-13+deb12u1");
	assert_int_equal(bi.ram.count, 2);
	assert_int_equal(pa_val(bi.ram.regions[0].end), 0x9fc00);
	assert_int_equal(pa_val(bi.ram.regions[1].start), 0x100000);
	assert_int_equal(pa_val(bi.ram.regions[1].end), 0x3ffe0000);
	assert_true(test_has_reserved(&bi, 0x400000, 0x480000, "module"));
	assert_true(test_has_reserved(&bi, INFO_PA, INFO_PA + blk_len,
				      "loader info"));
	assert_true(
		test_has_reserved(&bi, 0xfffc0000, 0x100000000ULL, "reserved"));
	assert_int_equal(pa_val(bi.acpi_rsdp), INFO_PA + rsdp_off + 8);
}

/* GRUB under OVMF: RSDP v1 and v2, EFI map only (no tag 6). */
static void test_grub_uefi(void **state)
{
	static const struct efi_desc d[] = {
		{7, 0, 0, 0, 0xa0, 0},		  /* conventional */
		{3, 0, 0x100000, 0, 0x100, 0},	  /* boot services code */
		{4, 0, 0x200000, 0, 0x100, 0},	  /* boot services data */
		{1, 0, 0x300000, 0, 0x100, 0},	  /* loader code */
		{2, 0, 0x400000, 0, 0x100, 0},	  /* loader data */
		{6, 0, 0x500000, 0, 0x10, 0},	  /* runtime data */
		{10, 0, 0x510000, 0, 0x10, 0},	  /* acpi nvs */
		{9, 0, 0x520000, 0, 0x10, 0},	  /* acpi reclaim */
		{11, 0, 0xffc00000, 0, 0x400, 0}, /* mmio */
		{0, 0, 0x530000, 0, 0x10, 0},	  /* reserved */
		{99, 0, 0x540000, 0, 0x10, 0},	  /* unknown */
		{7, 0, 0x100000000ULL, 0, 0x40000, 0},
	};
	size_t v2_off;

	begin();
	tag_str(1, "");
	v2_off = tag_rsdp(15);
	tag_rsdp(14); /* v1 after v2 must not win */
	tag_efi(d, ARRAY_SIZE(d));
	finish();
	assert_int_equal(parse(), 0);
	assert_int_equal(test_console_warnings(), 0);
	assert_int_equal(pa_val(bi.acpi_rsdp), INFO_PA + v2_off + 8);
	/* The four adjacent boot services / loader ranges are merged. */
	assert_int_equal(bi.ram.count, 3);
	assert_int_equal(pa_val(bi.ram.regions[0].end), 0xa0000);
	assert_int_equal(pa_val(bi.ram.regions[1].start), 0x100000);
	assert_int_equal(pa_val(bi.ram.regions[1].end), 0x500000);
	assert_int_equal(pa_val(bi.ram.regions[2].start), 0x100000000ULL);
	assert_int_equal(pa_val(bi.ram.regions[2].end), 0x140000000ULL);
	assert_true(
		test_has_reserved(&bi, 0x500000, 0x510000, "efi runtime data"));
	assert_true(test_has_reserved(&bi, 0x510000, 0x520000, "acpi nvs"));
	assert_true(
		test_has_reserved(&bi, 0x520000, 0x530000, "acpi reclaimable"));
	assert_true(
		test_has_reserved(&bi, 0xffc00000, 0x100000000ULL, "efi mmio"));
	assert_true(test_has_reserved(&bi, 0x530000, 0x540000, "efi reserved"));
	assert_true(test_has_reserved(&bi, 0x540000, 0x550000, "efi type 99"));
	assert_string_equal(bi.loader, "multiboot2");
}

static void test_mmap_wins_over_efi(void **state)
{
	static const struct efi_desc d[] = {
		{7, 0, 0x100000000ULL, 0, 0x1000, 0},
		{6, 0, 0x500000, 0, 0x10, 0},
	};

	begin();
	tag_efi(d, ARRAY_SIZE(d));
	tag_mmap(bios_map, 6);
	finish();
	assert_int_equal(parse(), 0);
	assert_int_equal(test_console_warnings(), 0);
	assert_int_equal(bi.ram.count, 2);
	assert_false(reserved_named("efi runtime data"));
}

static void test_rsdp_order_v1_then_v2(void **state)
{
	size_t v2_off;

	begin();
	tag_mmap(bios_map, 6);
	tag_rsdp(14);
	v2_off = tag_rsdp(15);
	finish();
	assert_int_equal(parse(), 0);
	assert_int_equal(pa_val(bi.acpi_rsdp), INFO_PA + v2_off + 8);
}

static void test_rsdp_bad(void **state)
{
	size_t off;
	uint8_t shortr[12] = "RSD PTR ";

	begin();
	tag_mmap(bios_map, 6);
	off = tag_rsdp(14);
	memcpy(blk + off + 8, "RSD PTX ", 8);
	tag(15, shortr, sizeof(shortr)); /* too short for v2 */
	finish();
	assert_int_equal(parse(), 0);
	assert_int_equal(test_console_warnings(), 2);
	assert_true(test_console_contains("no RSDP signature"));
	assert_true(test_console_contains("tag 15"));
	assert_int_equal(pa_val(bi.acpi_rsdp), 0);
}

static void test_total_size_lies(void **state)
{
	size_t rsdp_off;

	build_grub_bios(&rsdp_off);
	put32(0, (uint32_t)blk_len + 4096); /* larger than given */
	assert_int_equal(parse(), 0);
	assert_int_equal(test_console_warnings(), 1);
	assert_true(test_console_contains("total_size"));
	assert_int_equal(bi.ram.count, 2);

	put32(0, 4);
	assert_int_equal(parse(), -EINVAL);
	assert_true(test_console_contains("total_size 4"));

	assert_int_equal(parse_len(7, INFO_PA), -EINVAL);
	assert_int_equal(parse_len(0, INFO_PA), -EINVAL);
}

static void test_truncated_everywhere(void **state)
{
	size_t rsdp_off;

	/* Every prefix of a valid block: never reads outside (ASan). */
	build_grub_bios(&rsdp_off);
	for (size_t len = 0; len <= blk_len; len++) {
		int rc = parse_len(len, INFO_PA);

		if (len == blk_len)
			assert_int_equal(rc, 0);
		for (unsigned int i = 0; i < bi.ram.count; i++)
			assert_true(pa_val(bi.ram.regions[i].start) <
				    pa_val(bi.ram.regions[i].end));
	}
}

static void test_tag_size_overflow(void **state)
{
	size_t off;

	begin();
	tag_mmap(bios_map, 6);
	off = tag_str(1, "hello");
	finish();
	put32(off + 4, 0x7ffffff0);
	assert_int_equal(parse(), 0);
	assert_int_equal(test_console_warnings(), 1);
	assert_true(test_console_contains("size 2147483632"));
	assert_string_equal(bi.cmdline, "");
	assert_int_equal(bi.ram.count, 2);
}

static void test_tag_size_too_small(void **state)
{
	size_t off;

	begin();
	tag_mmap(bios_map, 6);
	off = tag_str(1, "hello");
	finish();
	put32(off + 4, 4);
	assert_int_equal(parse(), 0);
	assert_int_equal(test_console_warnings(), 1);
	assert_true(test_console_contains("size 4"));
}

static void test_bad_mmap_entry_size_meminfo(void **state)
{
	size_t off;
	uint32_t mem[2] = {639, 65536};

	begin();
	tag(4, mem, 8);
	off = tag_mmap(bios_map, 6);
	finish();
	put32(off + 8, 16);
	assert_int_equal(parse(), 0);
	assert_int_equal(test_console_warnings(), 2);
	assert_true(test_console_contains("entry_size 16"));
	assert_true(test_console_contains("mem_upper"));
	assert_int_equal(bi.ram.count, 2);
	assert_int_equal(pa_val(bi.ram.regions[1].end),
			 0x100000 + (65536ULL << 10));
}

static void test_mmap_odd_entry_size(void **state)
{
	/* entry_size 28: not a multiple of 8, still parsed in 28-byte steps. */
	uint8_t buf[8 + 28 * 2];
	uint32_t esize = 28;

	memset(buf, 0, sizeof(buf));
	memcpy(buf, &esize, 4);
	memcpy(buf + 8, &bios_map[0], 20);
	memcpy(buf + 8 + 28, &bios_map[3], 20);
	begin();
	tag(6, buf, sizeof(buf));
	finish();
	assert_int_equal(parse(), 0);
	assert_int_equal(test_console_warnings(), 1);
	assert_int_equal(bi.ram.count, 2);
	assert_int_equal(pa_val(bi.ram.regions[1].end), 0x3ffe0000);
}

static void test_no_end_tag_and_no_ram(void **state)
{
	begin();
	tag_str(1, "x");
	put32(0, (uint32_t)blk_len);
	assert_int_equal(parse(), -EINVAL);
	assert_int_equal(test_console_warnings(), 2);
	assert_true(test_console_contains("no end tag"));
	assert_true(test_console_contains("no RAM"));
	assert_string_equal(bi.cmdline, "x");
}

static void test_duplicates_and_strings(void **state)
{
	char longstr[1500];

	memset(longstr, 'a', sizeof(longstr) - 1);
	longstr[sizeof(longstr) - 1] = '\0';
	begin();
	tag_mmap(bios_map, 6);
	tag_str(1, longstr);
	tag_str(1, "second");
	tag(2, "GRUB", 4); /* no NUL */
	tag_mmap(bios_map, 1);
	finish();
	assert_int_equal(parse(), 0);
	assert_int_equal(test_console_warnings(), 3);
	/* Over the old 1 KiB limit, under BOOTINFO_CMDLINE_MAX: whole. */
	assert_string_equal(bi.cmdline, longstr);
	assert_string_equal(bi.loader, "GRUB");
	assert_true(test_console_contains("duplicate tag 1"));
	assert_true(test_console_contains("duplicate tag 6"));
	assert_true(test_console_contains("not NUL-terminated"));
	assert_int_equal(bi.ram.count, 2);
}

/*
 * A command line longer than BOOTINFO_CMDLINE_MAX loses whole words: the
 * mem= word across the last byte goes, the short word after it stays.
 */
static void test_cmdline_whole_words(void **state)
{
	static const char head[] = "loglevel=6 ";
	size_t pad = BOOTINFO_CMDLINE_MAX - 6 - strlen(head);
	char *line = malloc(BOOTINFO_CMDLINE_MAX + 64);
	char *want = malloc(BOOTINFO_CMDLINE_MAX);

	assert_non_null(line);
	assert_non_null(want);
	strcpy(line, head);
	memset(line + strlen(head), 'p', pad);
	strcpy(line + strlen(head) + pad, " mem=900M b=2");
	snprintf(want, BOOTINFO_CMDLINE_MAX, "%.*s b=2",
		 (int)(strlen(head) + pad), line);
	begin();
	tag_mmap(bios_map, 6);
	tag_str(1, line);
	finish();
	assert_int_equal(parse(), 0);
	assert_int_equal(test_console_warnings(), 1);
	assert_true(test_console_contains("multiboot2: cmdline"));
	assert_true(test_console_contains("\"mem=900M\""));
	assert_string_equal(bi.cmdline, want);
	assert_int_equal(bi.fixups, 1);
	free(line);
	free(want);
}

static void test_map_problems(void **state)
{
	static const struct e820 bad[] = {
		{0x100000, 0x100000, 1, 0},
		{0x180000, 0x1000, 2, 0},	/* overlaps RAM */
		{0x200000000ULL, 0, 1, 0},	/* zero length */
		{~0ULL - 0xfff, 0x10000, 1, 0}, /* wraps */
	};
	static const struct efi_desc huge[] = {
		{7, 0, 0x1000, 0, 1ULL << 60, 0},
		{7, 0, 0x100000, 0, 0x100, 0},
	};

	begin();
	tag_mmap(bad, ARRAY_SIZE(bad));
	finish();
	assert_int_equal(parse(), 0);
	assert_int_equal(test_console_warnings(), 3);
	assert_true(test_console_contains("overlaps"));
	assert_true(test_console_contains("length 0"));
	assert_true(test_console_contains("wraps"));
	/* The zero-length RAM entry is counted as dropped, like any other. */
	assert_int_equal(bi.dropped_ram, 1);
	for (unsigned int i = 0; i < bi.ram.count; i++)
		assert_true(pa_val(bi.ram.regions[i].start) <
			    pa_val(bi.ram.regions[i].end));

	begin();
	tag_efi(huge, ARRAY_SIZE(huge));
	finish();
	assert_int_equal(parse(), 0);
	assert_int_equal(test_console_warnings(), 1);
	assert_int_equal(bi.ram.count, 1);
}

static void test_misaligned_info(void **state)
{
	size_t rsdp_off;

	build_grub_bios(&rsdp_off);
	assert_int_equal(parse_len(blk_len, INFO_PA + 4), 0);
	assert_int_equal(test_console_warnings(), 1);
	assert_true(test_console_contains("not 8-byte aligned"));
	assert_int_equal(pa_val(bi.acpi_rsdp), INFO_PA + 4 + rsdp_off + 8);
}

/*
 * OVMF's map at 8 MiB (ACPI NVS pages between conventional memory) under
 * a keel image that reaches past it, as keel.elf with its old 2 MiB room
 * did ([1 MiB, 0x819000), issue 36 §4): sanitise says so in one error
 * line per firmware range, naming the image's range and the firmware's,
 * and an image inside RAM draws none.
 */
static void ovmf_8m_map(void)
{
	static const struct efi_desc d[] = {
		{7, 0, 0x100000, 0, 0x700, 0},	/* [1 MiB, 8 MiB) */
		{10, 0, 0x800000, 0, 0x8, 0},	/* acpi nvs */
		{7, 0, 0x808000, 0, 0x3, 0},	/* conventional */
		{10, 0, 0x80b000, 0, 0x1, 0},	/* acpi nvs */
		{7, 0, 0x80c000, 0, 0x4, 0},	/* conventional */
		{10, 0, 0x810000, 0, 0xf0, 0},	/* acpi nvs */
		{7, 0, 0x900000, 0, 0x7000, 0}, /* up to 128 MiB */
	};

	begin();
	tag_efi(d, ARRAY_SIZE(d));
	finish();
	assert_int_equal(parse(), 0);
	bi.cpu_count = 1;
	bi.cpus[0].boot_cpu = true;
	bi.cpus[0].usable = true;
}

static void test_image_over_firmware(void **state)
{
	ovmf_8m_map();
	bootinfo_add_reserved(&bi, pa(0x100000), pa(0x819000), "kernel");
	sandbox_console_clear();
	bootinfo_sanitise(&bi);
	assert_true(test_console_contains(
		"keel: error: the image [0x100000, 0x819000) (kernel) overlaps "
		"the firmware's acpi nvs [0x800000, 0x808000)"));
	assert_true(test_console_contains("acpi nvs [0x80b000, 0x80c000)"));
	assert_true(test_console_contains("acpi nvs [0x810000, 0x900000)"));
	assert_int_equal(test_console_lines(), 3);
	assert_int_equal(test_console_warnings(), 0);
	/* sanitise is idempotent: said once. */
	sandbox_console_clear();
	bootinfo_sanitise(&bi);
	assert_string_equal(sandbox_console_buffer(), "");
}

/* Sixteen firmware ranges under the image: 8 lines, then a count. */
static void test_image_over_many(void **state)
{
	struct efi_desc d[32];

	for (unsigned int i = 0; i < 16; i++) {
		d[2 * i] =
			(struct efi_desc){7, 0, 0x100000 + i * 0x2000, 0, 1, 0};
		d[2 * i + 1] = (struct efi_desc){10, 0, 0x101000 + i * 0x2000,
						 0,  1, 0};
	}
	begin();
	tag_efi(d, ARRAY_SIZE(d));
	finish();
	assert_int_equal(parse(), 0);
	bi.cpu_count = 1;
	bi.cpus[0].boot_cpu = true;
	bi.cpus[0].usable = true;
	bootinfo_add_reserved(&bi, pa(0x100000), pa(0x120000), "kernel");
	sandbox_console_clear();
	bootinfo_sanitise(&bi);
	assert_int_equal(test_console_lines(), 9);
	assert_true(test_console_contains(
		"keel: error: the image [0x100000, 0x120000) (kernel) overlaps "
		"8 more firmware ranges"));
}

static void test_image_in_ram(void **state)
{
	ovmf_8m_map();
	bootinfo_add_reserved(&bi, pa(0x100000), pa(0x619000), "kernel");
	sandbox_console_clear();
	bootinfo_sanitise(&bi);
	assert_string_equal(sandbox_console_buffer(), "");
}

/* An image over a hole nothing in the map names: the hole is named. */
static void test_image_over_hole(void **state)
{
	static const struct efi_desc d[] = {
		{7, 0, 0x100000, 0, 0x100, 0},
		{7, 0, 0x300000, 0, 0x100, 0},
	};

	begin();
	tag_efi(d, ARRAY_SIZE(d));
	finish();
	assert_int_equal(parse(), 0);
	bi.cpu_count = 1;
	bi.cpus[0].boot_cpu = true;
	bi.cpus[0].usable = true;
	bootinfo_add_reserved(&bi, pa(0x100000), pa(0x380000), "kernel");
	sandbox_console_clear();
	bootinfo_sanitise(&bi);
	assert_true(test_console_contains(
		"keel: error: the image [0x100000, 0x380000) (kernel) covers "
		"[0x200000, 0x300000), which the firmware's map does not call "
		"RAM"));
	assert_int_equal(test_console_lines(), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_grub_bios, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_grub_uefi, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_mmap_wins_over_efi,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_rsdp_order_v1_then_v2,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_rsdp_bad, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_total_size_lies,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_truncated_everywhere,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_tag_size_overflow,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_tag_size_too_small,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(
			test_bad_mmap_entry_size_meminfo, test_setup,
			test_teardown),
		cmocka_unit_test_setup_teardown(test_mmap_odd_entry_size,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_no_end_tag_and_no_ram,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_duplicates_and_strings,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_cmdline_whole_words,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_map_problems, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_image_over_firmware,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_image_over_many,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_image_in_ram, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_image_over_hole,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_misaligned_info,
						test_setup, test_teardown),
	};

	return cmocka_run_group_tests(tests, test_setup, test_teardown);
}
