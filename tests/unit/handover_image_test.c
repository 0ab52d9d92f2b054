/* SPDX-License-Identifier: MIT */
/*
 * The new image of a live update, as its loader would read it
 * (boot/handover_image.c): the multiboot1 a.out-kludge header and the
 * arm64 Image header, each good, with keel's need (the image without its
 * room for a bigger next image), and malformed one field at a time.
 * Expected values are the ones written into the headers here.
 */
#include "common.h"
#include <keel/handover.h>

static void put32(uint8_t *b, size_t off, uint32_t v)
{
	memcpy(b + off, &v, 4);
}

static void mb1(uint8_t *b, size_t at, uint32_t flags, uint32_t hdr,
		uint32_t load, uint32_t end, uint32_t bss, uint32_t entry)
{
	put32(b, at, 0x1BADB002);
	put32(b, at + 4, flags);
	put32(b, at + 8, -(0x1BADB002 + flags));
	put32(b, at + 12, hdr);
	put32(b, at + 16, load);
	put32(b, at + 20, end);
	put32(b, at + 24, bss);
	put32(b, at + 28, entry);
}

/* @parse refuses the @len-byte image @f, saying @says (NULL: any reason). */
static void refused(int (*parse)(const void *, uint64_t, struct lu_image *,
				 char *, size_t),
		    const uint8_t *f, uint64_t len, const char *says)
{
	struct lu_image img;
	char why[128];

	assert_int_equal(parse(f, len, &img, why, sizeof(why)), -EINVAL);
	if (says)
		assert_non_null(strstr(why, says));
}

static void test_multiboot1(void **state)
{
	static uint8_t f[16384];
	struct lu_image img;
	char why[128];

	/* keel.elf's shape: header 8 bytes into the file part at 1 MiB. */
	memset(f, 0, sizeof(f));
	mb1(f, 0x1008, 0x10003, 0x100008, 0x100000, 0x102000, 0x500000,
	    0x100040);
	assert_int_equal(lu_image_multiboot1(f, sizeof(f), &img, why, 128), 0);
	assert_int_equal(img.file_off, 0x1000);
	assert_int_equal(img.load, 0x100000);
	assert_int_equal(img.load_end, 0x102000);
	assert_int_equal(img.mem_end, 0x500000);
	assert_int_equal(img.entry, 0x100040);
	/* More file than there is, no address fields, no header, cut. */
	mb1(f, 0x1008, 0x10003, 0x100008, 0x100000, 0x110000, 0, 0x100040);
	refused(lu_image_multiboot1, f, sizeof(f),
		"does not fit the 16384-byte file");
	mb1(f, 0x1008, 0x3, 0x100008, 0x100000, 0x102000, 0, 0x100040);
	refused(lu_image_multiboot1, f, sizeof(f), "no address fields");
	mb1(f, 0x1008, 0x10003, 0x100008, 0x100000, 0x102000, 0, 0x200000);
	refused(lu_image_multiboot1, f, sizeof(f),
		"entry_addr 0x200000 outside");
	mb1(f, 0x1008, 0x10003, 0x200008, 0x100000, 0x102000, 0, 0x100040);
	refused(lu_image_multiboot1, f, sizeof(f), "header_addr");
	refused(lu_image_multiboot1, f, 20, "no multiboot1 header");
	/* No keel need after the header: the whole image is needed. */
	mb1(f, 0x1008, 0x10003, 0x100008, 0x100000, 0x102000, 0x500000,
	    0x100040);
	assert_int_equal(lu_image_multiboot1(f, sizeof(f), &img, why, 128), 0);
	assert_int_equal(img.need_end, 0x500000);
	/* keel's need: the image without the room it leaves for the next. */
	put32(f, 0x1008 + 32, LU_NEED_MAGIC);
	put32(f, 0x1008 + 36, 0x300000);
	assert_int_equal(lu_image_multiboot1(f, sizeof(f), &img, why, 128), 0);
	assert_int_equal(img.need_end, 0x300000);
	assert_int_equal(img.mem_end, 0x500000);
	/* A need past the image, or short of its file: refused. */
	put32(f, 0x1008 + 36, 0x500001);
	refused(lu_image_multiboot1, f, sizeof(f), "need_end 0x500001 outside");
	put32(f, 0x1008 + 36, 0x101000);
	refused(lu_image_multiboot1, f, sizeof(f), "need_end 0x101000 outside");
}

static void test_arm64(void **state)
{
	static uint8_t f[16384];
	struct lu_image img;
	char why[128];

	/* arm64: "ARM\x64" at 0x38, text_offset, image_size. */
	memset(f, 0, sizeof(f));
	memcpy(f + 0x38, "ARM\x64", 4);
	put32(f, 16, 0x80000);
	assert_int_equal(lu_image_arm64(f, sizeof(f), &img, why, 128), 0);
	assert_int_equal(img.mem_end, 0x80000);
	assert_int_equal(img.need_end, 0x80000);
	assert_int_equal(img.load_end, sizeof(f));
	/* keel's need in res2, said by res3; outside [file, image_size]. */
	put32(f, 0x28, (uint32_t)LU_NEED_MAGIC64);
	put32(f, 0x2c, (uint32_t)(LU_NEED_MAGIC64 >> 32));
	put32(f, 0x20, 0x40000);
	assert_int_equal(lu_image_arm64(f, sizeof(f), &img, why, 128), 0);
	assert_int_equal(img.need_end, 0x40000);
	put32(f, 0x20, 0x80001);
	refused(lu_image_arm64, f, sizeof(f), "keel need 524289 outside");
	put32(f, 0x20, 100);
	refused(lu_image_arm64, f, sizeof(f), NULL);
	put32(f, 0x20, 0);
	put32(f, 0x28, 0);
	put32(f, 0x2c, 0);
	put32(f, 16, 100);
	refused(lu_image_arm64, f, sizeof(f), "image_size 100");
	put32(f, 16, 0x80000);
	put32(f, 8, 0x123);
	refused(lu_image_arm64, f, sizeof(f), NULL);
	f[0x38] = 'X';
	refused(lu_image_arm64, f, sizeof(f), "no arm64 Image header");
	refused(lu_image_arm64, f, 10, NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_multiboot1, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_arm64, test_setup,
						test_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
