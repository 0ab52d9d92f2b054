/* SPDX-License-Identifier: MIT */
/*
 * common/lib/libc.c: the sandbox links glibc's string functions, so the
 * file is compiled into this test under keel_* names and checked against
 * glibc (the reference is glibc, never keel's own output).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

/* glibc's versions, taken before the renames below hide the names. */
static int (*const ref_snprintf)(char *, size_t, const char *, ...) = snprintf;
static unsigned long long (*const ref_strtoull)(const char *, char **,
						int) = strtoull;
static int (*const ref_strcmp)(const char *, const char *) = strcmp;
static int (*const ref_strncmp)(const char *, const char *, size_t) = strncmp;
static size_t (*const ref_strlen)(const char *) = strlen;
static void *(*const ref_memcpy)(void *, const void *, size_t) = memcpy;

#define memset	  keel_memset
#define memcpy	  keel_memcpy
#define memmove	  keel_memmove
#define memcmp	  keel_memcmp
#define memchr	  keel_memchr
#define strlen	  keel_strlen
#define strnlen	  keel_strnlen
#define strcmp	  keel_strcmp
#define strncmp	  keel_strncmp
#define strchr	  keel_strchr
#define strrchr	  keel_strrchr
#define strtoul	  keel_strtoul
#define strtoull  keel_strtoull
#define vsnprintf keel_vsnprintf
#define snprintf  keel_snprintf
#include "../../common/lib/libc.c"

static int sign(int x)
{
	return (x > 0) - (x < 0);
}

static void test_mem(void **state)
{
	unsigned char a[300], b[300];

	for (size_t off = 0; off < 9; off++) {
		for (size_t n = 0; n < 40; n++) {
			for (int i = 0; i < 300; i++)
				a[i] = (unsigned char)i, b[i] = 0xee;
			assert_ptr_equal(keel_memset(b + off, 0x5a, n),
					 b + off);
			for (size_t i = 0; i < 300; i++)
				assert_int_equal(b[i], i >= off && i < off + n
							       ? 0x5a
							       : 0xee);
			assert_ptr_equal(keel_memcpy(b + off, a + 3, n),
					 b + off);
			assert_int_equal(keel_memcmp(b + off, a + 3, n), 0);
			assert_int_equal(b[off + n], off + n < 300 ? 0xee : 0);
		}
	}
	/* memmove both directions with overlap, against a plain copy. */
	for (size_t d = 0; d < 20; d++) {
		unsigned char ref[300];

		for (int i = 0; i < 300; i++)
			a[i] = (unsigned char)(i * 7);
		ref_memcpy(ref, a, sizeof(ref));
		keel_memmove(a + d, a + 10, 200);
		for (size_t i = 0; i < 200; i++)
			assert_int_equal(a[d + i], ref[10 + i]);
	}
	assert_true(keel_memcmp("abc", "abd", 3) < 0);
	assert_true(keel_memcmp("\xff", "\x01", 1) > 0);
	assert_int_equal(keel_memcmp("abc", "abd", 2), 0);
	assert_ptr_equal(keel_memchr("hello", 'l', 5),
			 (const char *)"hello" + 2);
	assert_null(keel_memchr("hello", 'l', 2));
}

static void test_str(void **state)
{
	static const char *const words[] = {"",	 "a",	 "ab",	 "abc",
					    "b", "\xff", "abcd", "aa"};
	const char *s = "path/to/file";

	assert_int_equal(keel_strlen(""), 0);
	assert_int_equal(keel_strlen(s), 12);
	assert_int_equal(keel_strnlen(s, 4), 4);
	assert_int_equal(keel_strnlen(s, 100), 12);
	for (size_t i = 0; i < 8; i++) {
		for (size_t j = 0; j < 8; j++) {
			assert_int_equal(sign(keel_strcmp(words[i], words[j])),
					 sign(ref_strcmp(words[i], words[j])));
			for (size_t n = 0; n < 5; n++)
				assert_int_equal(
					sign(keel_strncmp(words[i], words[j],
							  n)),
					sign(ref_strncmp(words[i], words[j],
							 n)));
		}
	}
	assert_ptr_equal(keel_strchr(s, '/'), s + 4);
	assert_ptr_equal(keel_strrchr(s, '/'), s + 7);
	assert_ptr_equal(keel_strchr(s, '\0'), s + 12);
	assert_null(keel_strchr(s, 'z'));
	assert_null(keel_strrchr(s, 'z'));
}

static void test_strtoul(void **state)
{
	static const char *const in[] = {
		"0",
		"123",
		"  42xyz",
		"0x1fG",
		"0X10",
		"017",
		"-5",
		"+9",
		"18446744073709551615",
		"18446744073709551616",
		"0x",
		"zz",
		"",
		"0b1",
		"z",
		"0xffffffffffffffffff",
	};
	static const int bases[] = {0, 10, 16, 8, 36};

	for (size_t i = 0; i < sizeof(in) / sizeof(in[0]); i++) {
		for (size_t b = 0; b < 5; b++) {
			char *e1, *e2;
			unsigned long long v1 =
				keel_strtoull(in[i], &e1, bases[b]);
			unsigned long long v2 =
				ref_strtoull(in[i], &e2, bases[b]);

			assert_int_equal(v1, v2);
			assert_ptr_equal(e1, e2);
		}
	}
	assert_int_equal(keel_strtoul("0x20", NULL, 0), 32);
}

/* Format with both implementations and compare bytes and return value. */
#define SAME(fmt, ...)                                                    \
	do {                                                              \
		char k[128], r[128];                                      \
		int nk = keel_snprintf(k, sizeof(k), fmt, ##__VA_ARGS__); \
		int nr = ref_snprintf(r, sizeof(r), fmt, ##__VA_ARGS__);  \
		assert_int_equal(nk, nr);                                 \
		assert_string_equal(k, r);                                \
	} while (0)

static void test_printf_formats(void **state)
{
	int x = 5;

	SAME("plain");
	SAME("%d %i %u", -42, 17, 3000000000u);
	SAME("%x %X %lx %llx", 0xabcdu, 0xabcdu, 0xdeadbeefUL, ~0ULL);
	SAME("%llu %lld %lld", ~0ULL, (long long)INT64_MIN, 123LL);
	SAME("%zu %zx", (size_t)12345, (size_t)0xfff);
	SAME("%p %p", (void *)&x, (void *)0x1000);
	SAME("%s|%c|%%", "str", 'q');
	SAME("[%5d][%-5d][%05d][%-5d]", 42, 42, 42, 42);
	SAME("[%5d][%05d][%+d][% d]", -42, -42, 7, 7);
	SAME("[%08x][%#x][%#08x][%#X]", 0xbeefu, 0xbeefu, 0xbeefu, 0u);
	SAME("[%10s][%-10s][%.2s][%.*s]", "abc", "abc", "abcdef", 3, "xyzzy");
	SAME("[%*d][%-*d][%*s]", 6, 1, 6, 1, -6, "l");
	SAME("[%.3d][%.0d][%8.3d][%o][%#o]", 7, 0, -7, 8u, 8u);
	SAME("[%hhd][%hd][%hhu]", 300, 70000, 257);
	SAME("[%5c][%-3c]", 'a', 'b');
	SAME("%d%%%s", 0, "");
	SAME("%ld %lu %jd", -1L, 1UL, (intmax_t)-9);
	SAME("[%016llx]", 0x1234ULL);
}

static void test_printf_null_and_bounds(void **state)
{
	char buf[16];
	/* volatile: hide the NULL from -Wformat-overflow. */
	const char *volatile nul = NULL;
	int n;

	n = keel_snprintf(buf, sizeof(buf), "%s", nul);
	assert_string_equal(buf, "(null)");
	assert_int_equal(n, 6);

	/* Truncation: returns the full length, always terminates. */
	memset(buf, 'X', sizeof(buf));
	n = keel_snprintf(buf, 5, "hello world %d", 12345);
	assert_int_equal(n, 17);
	assert_string_equal(buf, "hell");
	assert_int_equal(buf[5], 'X');

	memset(buf, 'X', sizeof(buf));
	n = keel_snprintf(buf, 1, "abc");
	assert_int_equal(n, 3);
	assert_int_equal(buf[0], '\0');
	assert_int_equal(buf[1], 'X');

	/* size 0: nothing written, NULL buffer allowed. */
	n = keel_snprintf(NULL, 0, "%d-%s", 123, "xy");
	assert_int_equal(n, 6);
}

static void test_printf_random(void **state)
{
	static const char conv[] = "diuxXs";
	static const char *const flags[] = {"", "-", "0", "-0", "+", " ", "#"};
	char fmt[32];

	srand(1234);
	for (int i = 0; i < 20000; i++) {
		char c = conv[rand() % 6];
		const char *fl = flags[rand() % 7];
		int width = rand() % 3 ? rand() % 25 : 0;
		int prec = rand() % 3 ? -1 : rand() % 12;
		long long v = (long long)(((unsigned long long)rand() << 33) ^
					  (unsigned long long)rand());
		char k[64], r[64];
		int nk, nr;

		if (rand() % 2)
			v = -v;
		if (c == 's' && (fl[0] == '0' || fl[0] == '+' || fl[0] == ' ' ||
				 fl[0] == '#' || (fl[0] && fl[1] == '0')))
			fl = "-"; /* undefined for %s in C */
		if ((c == 'd' || c == 'i' || c == 'u') && fl[0] == '#')
			fl = "";
		if (prec >= 0)
			ref_snprintf(fmt, sizeof(fmt), "%%%s%d.%dll%c", fl,
				     width, prec, c);
		else
			ref_snprintf(fmt, sizeof(fmt), "%%%s%dll%c", fl, width,
				     c);
		if (c == 's') {
			/* "ll" is not a %s modifier. */
			char *p = strstr(fmt, "lls");

			memmove(p, p + 2, 2);
			nk = keel_snprintf(k, sizeof(k), fmt, "keelstring");
			nr = ref_snprintf(r, sizeof(r), fmt, "keelstring");
		} else {
			size_t small = (size_t)(rand() % 40), keep;

			nr = ref_snprintf(r, sizeof(r), fmt, v);
			k[0] = 'X';
			nk = keel_snprintf(k, small, fmt, v);
			assert_int_equal(nk, nr);
			/* A small buffer holds the first size-1 bytes. */
			if (small) {
				keep = MIN((size_t)nr, small - 1);
				assert_int_equal(ref_strlen(k), keep);
				assert_int_equal(ref_strncmp(k, r, keep), 0);
			} else {
				assert_int_equal(k[0], 'X');
			}
			nk = keel_snprintf(k, sizeof(k), fmt, v);
		}
		if (nk != nr || ref_strcmp(k, r))
			fail_msg("fmt \"%s\": keel \"%s\" (%d) glibc \"%s\" "
				 "(%d)",
				 fmt, k, nk, r, nr);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mem),
		cmocka_unit_test(test_str),
		cmocka_unit_test(test_strtoul),
		cmocka_unit_test(test_printf_formats),
		cmocka_unit_test(test_printf_null_and_bounds),
		cmocka_unit_test(test_printf_random),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
