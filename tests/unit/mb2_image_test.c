/* SPDX-License-Identifier: MIT */
/*
 * boot/multiboot2.c, an image's side (issue 36 §4): the multiboot2 header
 * of an image file, whose relocatable tag (10) lets a loader, and a live
 * update (arch/x86_64/liveupdate.c), run it away from its link address;
 * and the information's tag 21 (the image's load base), which the parser
 * says. Each image is read from an exact-size heap copy so that ASan
 * catches any over-read.
 */
#include <stdlib.h>

#include "common.h"
#include <keel/multiboot.h>

#define MB2_MAGIC 0xE85250D6u

static uint8_t img[40960] __attribute__((aligned(8)));

static void put16(size_t off, uint16_t v)
{
	memcpy(img + off, &v, 2);
}

static void put32(size_t off, uint32_t v)
{
	memcpy(img + off, &v, 4);
}

/*
 * A header at @off: an entry tag (3, 12 bytes, padded), a relocatable tag
 * (10, @reloc_size bytes) unless @reloc_size is 0, the end tag. @sum_ok:
 * the checksum right. Return: the header's length.
 */
static uint32_t header(size_t off, uint32_t reloc_size, bool sum_ok)
{
	size_t t = off + 16;
	uint32_t len;

	memset(img, 0, sizeof(img));
	put16(t, 3);
	put32(t + 4, 12);
	put32(t + 8, 0x100068);
	t += 16;
	if (reloc_size) {
		put16(t, 10);
		put16(t + 2, 1);
		put32(t + 4, reloc_size);
		put32(t + 8, 0x100000);
		put32(t + 12, 0xffffffff);
		put32(t + 16, 0x1000);
		put32(t + 20, 1);
		t += (reloc_size + 7) & ~7u;
	}
	put32(t + 4, 8);
	t += 8;
	len = (uint32_t)(t - off);
	put32(off, MB2_MAGIC);
	put32(off + 8, len);
	put32(off + 12, -(MB2_MAGIC + len) + !sum_ok);
	return len;
}

/* multiboot2_image_relocatable() on an exact copy of img[0, @len). */
static bool relocatable(size_t len)
{
	uint8_t *copy = malloc(len ? len : 1);
	bool r;

	assert_non_null(copy);
	memcpy(copy, img, len);
	r = multiboot2_image_relocatable(copy, len);
	free(copy);
	return r;
}

static void test_relocatable(void **state)
{
	uint32_t len = header(64, 24, true);

	(void)state;
	assert_true(relocatable(sizeof(img)));
	assert_true(relocatable(64 + len)); /* the file ends with the header */
	header(32768 - 64, 24, true);	    /* the last place it may be */
	assert_true(relocatable(sizeof(img)));
}

static void test_not_relocatable(void **state)
{
	uint32_t len;

	(void)state;
	header(64, 0, true); /* no tag 10: only at its link address */
	assert_false(relocatable(sizeof(img)));
	header(64, 24, false); /* checksum wrong: no header */
	assert_false(relocatable(sizeof(img)));
	header(32768, 24, true); /* past the first 32 KiB */
	assert_false(relocatable(sizeof(img)));
	header(60, 24, true); /* not 8-byte aligned */
	assert_false(relocatable(sizeof(img)));
	header(64, 16, true); /* tag 10 shorter than its 24 bytes */
	assert_false(relocatable(sizeof(img)));
	len = header(64, 24, true);
	assert_false(relocatable(64 + len - 9)); /* the file ends inside */
	assert_false(relocatable(8));
	assert_false(relocatable(0));
}

static void test_lying_sizes(void **state)
{
	uint32_t len;

	(void)state;
	/* header_length past the file, with the checksum made to match */
	len = header(64, 24, true);
	put32(64 + 8, 1u << 20);
	put32(64 + 12, -(MB2_MAGIC + (1u << 20)));
	assert_false(relocatable(64 + len));
	/* the entry tag says it runs past the header: tag 10 never read */
	header(64, 24, true);
	put32(64 + 16 + 4, 4096);
	assert_false(relocatable(sizeof(img)));
	/* a tag of size 0 would loop forever */
	header(64, 24, true);
	put32(64 + 16 + 4, 0);
	assert_false(relocatable(sizeof(img)));
}

/* The information with RAM, and tag 21 of @size bytes saying @base. */
static void parse_with_tag21(uint32_t size, uint32_t base)
{
	static struct bootinfo bi;
	uint8_t *blk = calloc(1, 256);
	uint32_t v[] = {0, 0, 6, 40, 24, 0};
	uint64_t ram[] = {0x100000, 0x7f00000};
	uint32_t type = 1, zero = 0;
	size_t o = 8;

	assert_non_null(blk);
	memcpy(blk + o, &v[2], 16); /* tag 6: type, size, entry size, version */
	memcpy(blk + o + 16, ram, 16);
	memcpy(blk + o + 32, &type, 4);
	memcpy(blk + o + 36, &zero, 4);
	o += 40;
	v[0] = 21;
	v[1] = size;
	memcpy(blk + o, v, 8);
	memcpy(blk + o + 8, &base, 4);
	o += (size + 7) & ~7u;
	memset(blk + o, 0, 8);
	blk[o + 4] = 8;
	o += 8;
	memcpy(blk, &(uint32_t){(uint32_t)o}, 4);
	bootinfo_init(&bi, BOOT_MULTIBOOT2);
	test_quiet_begin();
	assert_int_equal(multiboot2_parse(&bi, blk, o, 0x90000), 0);
	test_quiet_end();
	free(blk);
}

static void test_load_base_tag(void **state)
{
	(void)state;
	parse_with_tag21(12, 0x1500000);
	assert_true(test_console_contains("keel: multiboot2: the loader put "
					  "the image at 0x1500000 (tag 21)"));
	assert_int_equal(test_console_warnings(), 0);
	parse_with_tag21(8, 0x1500000); /* too short: said, ignored */
	assert_false(test_console_contains("(tag 21)"));
	assert_true(test_console_contains("tag 21 at offset 48: size 8 < 12"));
	assert_int_equal(test_console_warnings(), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_relocatable, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_not_relocatable,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_lying_sizes, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_load_base_tag, test_setup,
						test_teardown),
	};

	return cmocka_run_group_tests(tests, test_setup, test_teardown);
}
