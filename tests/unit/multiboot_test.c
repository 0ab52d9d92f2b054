/* SPDX-License-Identifier: MIT */
/*
 * boot/multiboot.c: multiboot1 information built in a fake physical memory
 * image (pa 0 = image[0]) and read through a bounds-checked accessor.
 */
#include <stdlib.h>

#include "common.h"
#include <keel/multiboot.h>

#define IMG_SIZE   0x10000
#define INFO_PA	   0x1000
#define MMAP_PA	   0x2000
#define CMD_PA	   0x3000
#define MODS_PA	   0x4000
#define NAME_PA	   0x5000
#define MB_MEM	   (1u << 0)
#define MB_CMDLINE (1u << 2)
#define MB_MODS	   (1u << 3)
#define MB_MMAP	   (1u << 6)
#define MB_LOADER  (1u << 9)

static struct bootinfo bi;
static uint8_t *img;
static size_t img_size;
static unsigned int reads_refused;

static const void *img_read(uint64_t p, size_t len, void *ctx)
{
	if (p > img_size || len > img_size - p) {
		reads_refused++;
		return NULL;
	}
	return img + p;
}

static void put32(uint64_t p, uint32_t v)
{
	memcpy(img + p, &v, 4);
}

static void put64(uint64_t p, uint64_t v)
{
	memcpy(img + p, &v, 8);
}

static unsigned int mmap_len;

static void mmap_add_sized(uint32_t size, uint64_t base, uint64_t len,
			   uint32_t type)
{
	put32(MMAP_PA + mmap_len, size);
	put64(MMAP_PA + mmap_len + 4, base);
	put64(MMAP_PA + mmap_len + 12, len);
	put32(MMAP_PA + mmap_len + 20, type);
	mmap_len += size + 4;
	put32(INFO_PA + 44, mmap_len);
}

static void mmap_add(uint64_t base, uint64_t len, uint32_t type)
{
	mmap_add_sized(20, base, len, type);
}

/* QEMU's shape: flags 0x24f, mmap, cmdline, loader name "qemu". */
static void build_qemu(void)
{
	memset(img, 0, IMG_SIZE);
	mmap_len = 0;
	put32(INFO_PA, MB_MEM | 2 | MB_CMDLINE | MB_MODS | MB_MMAP | MB_LOADER);
	put32(INFO_PA + 4, 639);
	put32(INFO_PA + 8, 130048);
	put32(INFO_PA + 16, CMD_PA);
	strcpy((char *)img + CMD_PA, "/path/keel.elf after=exit mem=64M");
	put32(INFO_PA + 20, 0);
	put32(INFO_PA + 24, MODS_PA);
	put32(INFO_PA + 48, MMAP_PA);
	put32(INFO_PA + 64, NAME_PA);
	strcpy((char *)img + NAME_PA, "qemu");
	mmap_add(0, 0x9fc00, 1);
	mmap_add(0x9fc00, 0x400, 2);
	mmap_add(0xf0000, 0x10000, 2);
	mmap_add(0x100000, 0x7ee0000, 1);
	mmap_add(0x7fe0000, 0x20000, 2);
	mmap_add(0xfffc0000, 0x40000, 2);
	mmap_add(0x100000000ULL, 0x40000000, 1);
}

static int parse(void)
{
	bootinfo_init(&bi, BOOT_MULTIBOOT1);
	sandbox_console_clear();
	reads_refused = 0;
	return multiboot1_parse(&bi, INFO_PA, img_read, NULL);
}

static bool reserved_covers(uint64_t s, uint64_t e, const char *name)
{
	for (unsigned int i = 0; i < bi.reserved.count; i++)
		if (pa_val(bi.reserved.regions[i].start) <= s &&
		    pa_val(bi.reserved.regions[i].end) >= e &&
		    !strcmp(bi.reserved.regions[i].name, name))
			return true;
	return false;
}

static int setup(void **state)
{
	img_size = IMG_SIZE;
	img = calloc(1, IMG_SIZE);
	if (!img)
		return -1;
	return test_setup(state);
}

static int teardown(void **state)
{
	free(img);
	return test_teardown(state);
}

static void test_qemu_info(void **state)
{
	build_qemu();
	assert_int_equal(parse(), 0);
	assert_int_equal(test_console_warnings(), 0);
	assert_int_equal(bi.ram.count, 3);
	assert_int_equal(pa_val(bi.ram.regions[0].start), 0);
	assert_int_equal(pa_val(bi.ram.regions[0].end), 0x9fc00);
	assert_int_equal(pa_val(bi.ram.regions[1].start), 0x100000);
	assert_int_equal(pa_val(bi.ram.regions[1].end), 0x7fe0000);
	assert_int_equal(pa_val(bi.ram.regions[2].start), 0x100000000ULL);
	assert_int_equal(pa_val(bi.ram.regions[2].end), 0x140000000ULL);
	assert_true(test_has_reserved(&bi, 0x9fc00, 0xa0000, "reserved"));
	assert_true(
		test_has_reserved(&bi, 0xfffc0000, 0x100000000ULL, "reserved"));
	assert_string_equal(bi.cmdline, "/path/keel.elf after=exit mem=64M");
	assert_string_equal(bi.loader, "qemu");
	assert_true(reserved_covers(INFO_PA, INFO_PA + 68, "loader info"));
	assert_true(
		reserved_covers(MMAP_PA, MMAP_PA + mmap_len, "loader info"));
	assert_true(reserved_covers(CMD_PA, CMD_PA + 34, "loader info"));
	assert_true(reserved_covers(NAME_PA, NAME_PA + 5, "loader info"));
	assert_int_equal(reads_refused, 0);
	for (unsigned int i = 0; i < bi.ram.count; i++)
		assert_int_equal(bi.ram.regions[i].node, 0);
}

static void test_types_named(void **state)
{
	build_qemu();
	mmap_add(0x7fff0000ULL, 0x1000, 3);
	mmap_add(0x7fff1000ULL, 0x1000, 4);
	mmap_add(0x7fff2000ULL, 0x1000, 5);
	mmap_add(0x7fff3000ULL, 0x1000, 12);
	assert_int_equal(parse(), 0);
	assert_int_equal(test_console_warnings(), 0);
	/* Type 5 is RAM that failed (issue 38): RAM, and reserved as bad. */
	assert_int_equal(bi.ram.count, 4);
	assert_int_equal(pa_val(bi.ram.regions[3].start), 0x7fff2000);
	assert_int_equal(pa_val(bi.ram.regions[3].end), 0x7fff3000);
	assert_true(test_has_reserved(&bi, 0x7fff0000, 0x7fff1000,
				      "acpi reclaimable"));
	assert_true(test_has_reserved(&bi, 0x7fff1000, 0x7fff2000, "acpi nvs"));
	assert_true(
		test_has_reserved(&bi, 0x7fff2000, 0x7fff3000, "bad firmware"));
	assert_true(test_has_reserved(&bi, 0x7fff3000, 0x7fff4000,
				      "firmware type 12"));
}

static void test_modules(void **state)
{
	build_qemu();
	put32(INFO_PA + 20, 3);
	put32(MODS_PA + 0, 0x200000);
	put32(MODS_PA + 4, 0x280000);
	put32(MODS_PA + 8, 0x6000);
	strcpy((char *)img + 0x6000, "initrd");
	put32(MODS_PA + 16, 0x300000);
	put32(MODS_PA + 20, 0x300000); /* empty: warned, skipped */
	put32(MODS_PA + 32, 0x400000);
	put32(MODS_PA + 36, 0x3ff000); /* inverted: warned, skipped */
	assert_int_equal(parse(), 0);
	assert_int_equal(test_console_warnings(), 2);
	assert_true(test_console_contains("module 1"));
	assert_true(test_console_contains("module 2"));
	assert_true(test_has_reserved(&bi, 0x200000, 0x280000, "module"));
	assert_true(reserved_covers(0x6000, 0x6007, "loader info"));
	assert_true(reserved_covers(MODS_PA, MODS_PA + 48, "loader info"));
}

static void test_mods_count_huge(void **state)
{
	build_qemu();
	put32(INFO_PA + 20, 0xffffffff);
	put32(INFO_PA + 24, 0xfff0); /* 64 modules would run past the image */
	assert_int_equal(parse(), 0);
	assert_int_equal(test_console_warnings(), 2);
	assert_true(test_console_contains("mods_count"));
	assert_true(test_console_contains("mods_addr"));
}

static void test_no_mmap_uses_meminfo(void **state)
{
	build_qemu();
	put32(INFO_PA, MB_MEM | MB_CMDLINE);
	put32(INFO_PA + 4, 1000); /* > 640: clamped */
	assert_int_equal(parse(), 0);
	assert_int_equal(test_console_warnings(), 2);
	assert_true(test_console_contains("mem_lower"));
	assert_int_equal(bi.ram.count, 2);
	assert_int_equal(pa_val(bi.ram.regions[0].end), 640 << 10);
	assert_int_equal(pa_val(bi.ram.regions[1].start), 1 << 20);
	assert_int_equal(pa_val(bi.ram.regions[1].end),
			 (1 << 20) + (130048ULL << 10));
	assert_string_equal(bi.loader, "multiboot1");
}

static void test_no_ram_at_all(void **state)
{
	build_qemu();
	put32(INFO_PA, MB_CMDLINE);
	assert_int_equal(parse(), -EINVAL);
	assert_int_equal(bi.ram.count, 0);
	assert_true(test_console_contains("no RAM"));
}

static void test_info_unreadable(void **state)
{
	build_qemu();
	bootinfo_init(&bi, BOOT_MULTIBOOT1);
	sandbox_console_clear();
	assert_int_equal(multiboot1_parse(&bi, IMG_SIZE - 2, img_read, NULL),
			 -EINVAL);
	assert_int_equal(test_console_warnings(), 1);
	/* Flags promise 68 bytes but only 8 remain. */
	put32(IMG_SIZE - 8, MB_MMAP | MB_LOADER);
	sandbox_console_clear();
	assert_int_equal(multiboot1_parse(&bi, IMG_SIZE - 8, img_read, NULL),
			 -EINVAL);
	assert_int_equal(test_console_warnings(), 1);
	assert_true(test_console_contains("truncated"));
	assert_int_equal(bi.ram.count, 0);
}

static void test_mmap_entry_size_zero(void **state)
{
	build_qemu();
	mmap_add_sized(0, 0x200000000ULL, 0x1000, 1);
	mmap_len += 20; /* room after it that must not be read as entries */
	put32(INFO_PA + 44, mmap_len);
	assert_int_equal(parse(), 0);
	assert_int_equal(test_console_warnings(), 1);
	assert_true(test_console_contains("size 0"));
	assert_int_equal(bi.ram.count, 3);
}

static void test_mmap_entry_size_lies(void **state)
{
	build_qemu();
	mmap_add_sized(4000, 0x200000000ULL, 0x1000, 1);
	put32(INFO_PA + 44, mmap_len - 4000 + 20);
	assert_int_equal(parse(), 0);
	assert_int_equal(test_console_warnings(), 1);
	assert_true(test_console_contains("runs past mmap_length"));
	assert_int_equal(bi.ram.count, 3);
}

static void test_mmap_bigger_entries(void **state)
{
	/* size 24: a 4-byte extension the parser must skip. */
	build_qemu();
	mmap_len = 0;
	mmap_add_sized(24, 0, 0x80000, 1);
	mmap_add_sized(24, 0x100000, 0x100000, 1);
	assert_int_equal(parse(), 0);
	assert_int_equal(test_console_warnings(), 0);
	assert_int_equal(bi.ram.count, 2);
	assert_int_equal(pa_val(bi.ram.regions[1].end), 0x200000);
}

static void test_mmap_unreadable_falls_back(void **state)
{
	build_qemu();
	put32(INFO_PA + 48, IMG_SIZE - 16); /* mmap_length 140 runs out */
	assert_int_equal(parse(), 0);
	assert_int_equal(test_console_warnings(),
			 2); /* mmap unreadable, meminfo used */
	assert_true(test_console_contains("mmap at"));
	assert_int_equal(bi.ram.count, 2);
	assert_int_equal(pa_val(bi.ram.regions[0].end), 639 << 10);
}

static void test_zero_overlap_wrap(void **state)
{
	build_qemu();
	mmap_add(0x300000000ULL, 0, 1);		      /* zero length */
	mmap_add(0x100000000ULL + 0x1000, 0x2000, 2); /* overlaps RAM */
	mmap_add(0xfffffffffffff000ULL, 0x2000, 2);   /* wraps */
	assert_int_equal(parse(), 0);
	assert_int_equal(test_console_warnings(), 3);
	assert_true(test_console_contains("length 0"));
	assert_true(test_console_contains("overlaps"));
	assert_true(test_console_contains("wraps"));
	assert_int_equal(bi.ram.count, 3);
	/* The zero-length RAM entry is counted as dropped, like any other. */
	assert_int_equal(bi.dropped_ram, 1);
	assert_int_equal(bi.dropped_reserved, 0);
	assert_true(test_has_reserved(&bi, 0x100001000ULL, 0x100003000ULL,
				      "reserved"));
}

static void test_cmdline_unterminated(void **state)
{
	build_qemu();
	put32(INFO_PA + 16, IMG_SIZE - 5);
	memcpy(img + IMG_SIZE - 5, "abcde", 5);
	assert_int_equal(parse(), 0);
	assert_int_equal(test_console_warnings(), 1);
	assert_true(test_console_contains("cmdline: unreadable"));
	assert_string_equal(bi.cmdline, "abcde");
}

/* Longer than the old 1 KiB limit: kept whole, mem= across byte 1023 too. */
static void test_cmdline_over_1k(void **state)
{
	char *line = (char *)img + 0x8000;
	size_t pad = 1020 - strlen("a=1 ");

	build_qemu();
	strcpy(line, "a=1 ");
	memset(line + 4, 'x', pad);
	strcpy(line + 4 + pad, " mem=900M after=exit");
	assert_true(strstr(line, "mem=900M") - line < 1023);
	assert_true(strstr(line, "mem=900M") - line + 8 > 1023);
	put32(INFO_PA + 16, 0x8000);
	assert_int_equal(parse(), 0);
	assert_int_equal(test_console_warnings(), 0);
	assert_string_equal(bi.cmdline, line);
	assert_int_equal(bi.fixups, 0);
	assert_true(reserved_covers(0x8000, 0x8000 + strlen(line) + 1,
				    "loader info"));
}

/*
 * Longer than BOOTINFO_CMDLINE_MAX: words that do not fit are dropped
 * whole, never cut, and the shorter words after them still fit.
 */
static void test_cmdline_too_long(void **state)
{
	static const char head[] = "a=1 ";
	char *line = (char *)img + 0x8000;
	size_t pad = BOOTINFO_CMDLINE_MAX - 6 - strlen(head);
	char *want = malloc(BOOTINFO_CMDLINE_MAX);

	assert_non_null(want);
	build_qemu();
	/* "a=1 xxx...x mem=900M b=2": mem=900M straddles the last byte. */
	strcpy(line, head);
	memset(line + strlen(head), 'x', pad);
	strcpy(line + strlen(head) + pad, " mem=900M b=2");
	put32(INFO_PA + 16, 0x8000);
	snprintf(want, BOOTINFO_CMDLINE_MAX, "%.*s b=2",
		 (int)(strlen(head) + pad), line);
	assert_int_equal(parse(), 0);
	assert_int_equal(test_console_warnings(), 1);
	assert_true(test_console_contains("1 word dropped whole"));
	assert_true(test_console_contains("\"mem=900M\""));
	assert_string_equal(bi.cmdline, want);
	assert_int_equal(bi.fixups, 1);
	assert_true(reserved_covers(0x8000, 0x8000 + strlen(line) + 1,
				    "loader info"));

	/* One word longer than the whole buffer: only that word goes. */
	build_qemu();
	memset(line, 'y', 5000);
	strcpy(line + 5000, " after=exit");
	put32(INFO_PA + 16, 0x8000);
	assert_int_equal(parse(), 0);
	assert_int_equal(test_console_warnings(), 1);
	assert_string_equal(bi.cmdline, "after=exit");
	free(want);
}

static void test_loader_name_unreadable(void **state)
{
	build_qemu();
	put32(INFO_PA + 64, IMG_SIZE + 100);
	assert_int_equal(parse(), 0);
	assert_int_equal(test_console_warnings(), 1);
	assert_true(test_console_contains("boot_loader_name: unreadable"));
	assert_string_equal(bi.loader, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_qemu_info, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_types_named, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_modules, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_mods_count_huge,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_no_mmap_uses_meminfo,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_no_ram_at_all, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_info_unreadable,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_mmap_entry_size_zero,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_mmap_entry_size_lies,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_mmap_bigger_entries,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_mmap_unreadable_falls_back,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_zero_overlap_wrap,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_cmdline_unterminated,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_cmdline_over_1k,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_cmdline_too_long,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_loader_name_unreadable,
						test_setup, test_teardown),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
