/* SPDX-License-Identifier: MIT */
/* boot/cmdline_copy.c: whole words only, one warning, bounds. */
#include <stdlib.h>

#include "common.h"
#include <keel/cmdline_copy.h>

static unsigned int copy(char *dst, size_t size, const char *src)
{
	sandbox_console_clear();
	return cmdline_copy(dst, size, src, strlen(src), NULL, "test");
}

static void test_fits_verbatim(void **state)
{
	char out[32];

	/* Exactly size - 1 bytes: kept as given, blanks and all. */
	assert_int_equal(copy(out, 16, "a=1\t b=2  c=345"), 0);
	assert_string_equal(out, "a=1\t b=2  c=345");
	assert_int_equal(test_console_warnings(), 0);
	assert_int_equal(copy(out, sizeof(out), ""), 0);
	assert_string_equal(out, "");
	/* A NUL ends the source; len bounds it. */
	assert_int_equal(cmdline_copy(out, sizeof(out), "ab\0cd", 5, NULL, "t"),
			 0);
	assert_string_equal(out, "ab");
	assert_int_equal(cmdline_copy(out, sizeof(out), "abcdef", 3, NULL, "t"),
			 0);
	assert_string_equal(out, "abc");
	assert_int_equal(cmdline_copy(out, sizeof(out), NULL, 9, NULL, "t"), 0);
	assert_string_equal(out, "");
}

static void test_whole_words(void **state)
{
	char out[16];

	/* "mem=900M" would be cut at byte 15: it goes whole, b=2 stays. */
	assert_int_equal(copy(out, sizeof(out), "loglevel=6 mem=900M b=2"), 1);
	assert_string_equal(out, "loglevel=6 b=2");
	assert_int_equal(test_console_warnings(), 1);
	assert_true(test_console_contains("test: 23 bytes"));
	assert_true(test_console_contains("\"mem=900M\""));
	/* Several dropped: still one warning, the first one named. */
	assert_int_equal(copy(out, sizeof(out),
			      "aaaaaaaaaaaaaaaaaaaa b=2 "
			      "cccccccccccccccccccc d=4"),
			 2);
	assert_string_equal(out, "b=2 d=4");
	assert_int_equal(test_console_warnings(), 1);
	assert_true(test_console_contains("2 words dropped"));
	assert_true(test_console_contains("\"aaaaaaaaaaaaaaaaaaaa\""));
	/* A lone overlong word: dropped, not cut. */
	assert_int_equal(copy(out, sizeof(out),
			      "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
			      "xxxxxxxxxxxxxxxx"),
			 1);
	assert_string_equal(out, "");
	assert_true(test_console_contains("xxx...\" (47 bytes)"));
	/* Leading and repeated blanks of an overlong line are not kept. */
	assert_int_equal(copy(out, sizeof(out), "   a=1      b=2      c=3    "),
			 0);
	assert_string_equal(out, "a=1 b=2 c=3");
	assert_int_equal(test_console_warnings(), 0);
}

static void test_quotes(void **state)
{
	char out[20];

	/*
	 * A quoted value is one word, blanks included: cut at its blanks it
	 * would leave x=1234567890 c="a b, an open quote.
	 */
	assert_int_equal(
		copy(out, sizeof(out), "x=1234567890 c=\"a b c d e f g\""), 1);
	assert_string_equal(out, "x=1234567890");
	assert_true(test_console_contains("\"c=\"a b c d e f g\"\""));
	/* Non-printable bytes are not echoed raw. */
	assert_int_equal(copy(out, 4, "\x01\x02\x03\x04\x05"), 1);
	assert_true(test_console_contains("\"?????\""));
}

/* A source read through an accessor (multiboot1, UCS-2). */
static char upper_at(const void *src, size_t i)
{
	char c = ((const char *)src)[i];

	return c >= 'a' && c <= 'z' ? (char)(c - 32) : c;
}

static void test_accessor_and_bootinfo(void **state)
{
	static struct bootinfo bi;
	char *line = malloc(BOOTINFO_CMDLINE_MAX + 100);
	char out[8];
	size_t pad = BOOTINFO_CMDLINE_MAX - 5;

	assert_non_null(line);
	assert_int_equal(
		cmdline_copy(out, sizeof(out), "ab cdefgh", 9, upper_at, "t"),
		1);
	assert_string_equal(out, "AB");

	/* Into bootinfo: a line that lost words is one fixup. */
	bootinfo_init(&bi, BOOT_SANDBOX);
	memset(line, 'p', pad);
	strcpy(line + pad, " mem=900M a=1");
	sandbox_console_clear();
	assert_int_equal(
		cmdline_copy_bootinfo(&bi, line, strlen(line), NULL, "test"),
		1);
	assert_int_equal(bi.fixups, 1);
	assert_int_equal(strlen(bi.cmdline), pad + 4);
	assert_string_equal(bi.cmdline + pad, " a=1");
	/* Fits: no fixup. */
	assert_int_equal(cmdline_copy_bootinfo(&bi, "a=1", 3, NULL, "test"), 0);
	assert_int_equal(bi.fixups, 1);
	assert_string_equal(bi.cmdline, "a=1");
	free(line);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, test_setup, test_teardown)
	const struct CMUnitTest tests[] = {
		T(test_fits_verbatim),
		T(test_whole_words),
		T(test_quotes),
		T(test_accessor_and_bootinfo),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
