/* SPDX-License-Identifier: MIT */
/*
 * common/lib/lib.c: strlcpy, parse_u64/parse_size, format_size,
 * format_bytes, sort, crc32.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include <arch/crc.h>
#include <keel/errno.h>
#include <keel/string.h>

static void test_strlcpy(void **state)
{
	char buf[8];

	memset(buf, 'X', sizeof(buf));
	assert_int_equal(strlcpy(buf, "hello", sizeof(buf)), 5);
	assert_string_equal(buf, "hello");
	assert_int_equal(strlcpy(buf, "0123456789", sizeof(buf)), 10);
	assert_string_equal(buf, "0123456");
	memset(buf, 'X', sizeof(buf));
	assert_int_equal(strlcpy(buf, "abc", 0), 3);
	assert_int_equal(buf[0], 'X');
	assert_int_equal(strlcpy(buf, "abc", 1), 3);
	assert_int_equal(buf[0], '\0');
}

static int pu(const char *s, uint64_t *v)
{
	return parse_u64(s, strlen(s), v);
}

static int ps(const char *s, uint64_t *v)
{
	return parse_size(s, strlen(s), v);
}

static void test_parse_u64(void **state)
{
	uint64_t v = 77;

	assert_int_equal(pu("0", &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(pu("12345", &v), 0);
	assert_int_equal(v, 12345);
	assert_int_equal(pu("0x1F", &v), 0);
	assert_int_equal(v, 31);
	assert_int_equal(pu("0XfF", &v), 0);
	assert_int_equal(v, 255);
	assert_int_equal(pu("18446744073709551615", &v), 0);
	assert_true(v == UINT64_MAX);
	assert_int_equal(pu("0xffffffffffffffff", &v), 0);
	assert_true(v == UINT64_MAX);
	v = 77;
	assert_int_equal(pu("18446744073709551616", &v), -ERANGE);
	assert_int_equal(pu("0x10000000000000000", &v), -ERANGE);
	assert_int_equal(pu("0x1fffffffffffffff0", &v), -ERANGE);
	assert_int_equal(pu("99999999999999999999", &v), -ERANGE);
	assert_int_equal(pu("18446744073709551620", &v), -ERANGE);
	assert_true(v == 77); /* untouched by a refusal */
	assert_int_equal(pu("0xfg", &v), -EINVAL);
	assert_int_equal(pu("9:", &v), -EINVAL);
	assert_int_equal(pu("\x80", &v), -EINVAL);
	assert_int_equal(pu("", &v), -EINVAL);
	assert_int_equal(pu("0x", &v), -EINVAL);
	assert_int_equal(pu("12a", &v), -EINVAL);
	assert_int_equal(pu("-1", &v), -EINVAL);
	assert_int_equal(pu(" 1", &v), -EINVAL);
	assert_int_equal(pu("1 ", &v), -EINVAL);
	assert_int_equal(pu("1K", &v), -EINVAL);
	assert_int_equal(v, 77); /* untouched on error */
	assert_int_equal(pu("0x000000000000000000fF", &v), 0); /* 20 digits */
	assert_int_equal(v, 255);
	assert_int_equal(pu("000000000000000000000042", &v), 0);
	assert_int_equal(v, 42);
	assert_int_equal(pu("1844674407370955161", &v), 0);
	assert_true(v == UINT64_MAX / 10);
	/* Only [s, s+len) is read: "123" of "1234". */
	assert_int_equal(parse_u64("1234", 3, &v), 0);
	assert_int_equal(v, 123);
	assert_int_equal(parse_u64("1234", 0, &v), -EINVAL);
}

static void test_parse_size(void **state)
{
	uint64_t v = 0;

	assert_int_equal(ps("4K", &v), 0);
	assert_int_equal(v, 4096);
	assert_int_equal(ps("4k", &v), 0);
	assert_int_equal(v, 4096);
	assert_int_equal(ps("128M", &v), 0);
	assert_int_equal(v, 128ULL << 20);
	assert_int_equal(ps("3G", &v), 0);
	assert_int_equal(v, 3ULL << 30);
	assert_int_equal(ps("2T", &v), 0);
	assert_int_equal(v, 2ULL << 40);
	assert_int_equal(ps("0x10M", &v), 0);
	assert_int_equal(v, 16ULL << 20);
	assert_int_equal(ps("777", &v), 0);
	assert_int_equal(v, 777);
	assert_int_equal(ps("16777215T", &v), 0);
	assert_true(v == 16777215ULL << 40);
	assert_int_equal(ps("16777216T", &v), -ERANGE);
	assert_int_equal(ps("17179869184G", &v), -ERANGE);
	assert_int_equal(ps("1X", &v), -EINVAL);
	assert_int_equal(ps("1KB", &v), -EINVAL);
	assert_int_equal(ps("K", &v), -EINVAL);
	assert_int_equal(ps("", &v), -EINVAL);
	assert_int_equal(parse_size("1MG", 2, &v), 0);
	assert_int_equal(v, 1ULL << 20);
}

static void test_format_size(void **state)
{
	static const struct {
		uint64_t bytes;
		const char *text;
	} cases[] = {
		{0, "0"},
		{1, "1"},
		{4096, "4K"},
		{512ULL << 20, "512M"},
		{1ULL << 30, "1G"},
		{3ULL << 40, "3T"},
		{(1ULL << 30) + 4096, "1048580K"},
		{12345, "12345"},
		{1536ULL << 20, "1536M"},
	};
	char buf[32];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		format_size(buf, sizeof(buf), cases[i].bytes);
		assert_string_equal(buf, cases[i].text);
	}
	format_size(buf, 3, 12345);
	assert_string_equal(buf, "12");
	/* Round trip through parse_size. */
	for (int i = 0; i < 1000; i++) {
		uint64_t v = ((uint64_t)rand() << 12) * (uint64_t)(rand() % 5),
			 back = 1;

		format_size(buf, sizeof(buf), v);
		assert_int_equal(parse_size(buf, strlen(buf), &back), 0);
		assert_true(back == v);
	}
}

/* format_bytes(): a unit that fits, two decimals, rounded as asked. */
static void test_format_bytes(void **state)
{
	static const struct {
		uint64_t bytes;
		enum format_round round;
		const char *text;
	} cases[] = {
		{0, FORMAT_DOWN, "0 bytes"},
		{1, FORMAT_DOWN, "1 byte"},
		{1023, FORMAT_UP, "1023 bytes"},
		{4096, FORMAT_DOWN, "4 KiB"},
		{4096, FORMAT_UP, "4 KiB"},
		{40960, FORMAT_UP, "40 KiB"},
		{1536, FORMAT_DOWN, "1.5 KiB"},
		{(1023ULL << 20) + 996148, FORMAT_DOWN, "1023.95 MiB"},
		/* 1.98975 GiB: down to 1.98, never up to 1.99 or 2.0. */
		{(1ULL << 30) * 198975 / 100000, FORMAT_DOWN, "1.98 GiB"},
		{(1ULL << 30) * 198975 / 100000, FORMAT_UP, "1.99 GiB"},
		{(2ULL << 30) - 1, FORMAT_DOWN, "1.99 GiB"},
		{(2ULL << 30) - 1, FORMAT_UP, "2.00 GiB"},
		{(1ULL << 30) - 1, FORMAT_UP, "1.00 GiB"},
		{(1ULL << 30) - 1, FORMAT_DOWN, "1023.99 MiB"},
		{(2ULL << 30) + (1ULL << 30) / 10 + 1, FORMAT_DOWN, "2.10 GiB"},
		{(2ULL << 30) + (1ULL << 30) / 10, FORMAT_DOWN, "2.09 GiB"},
		{(1ULL << 20) + 4096, FORMAT_UP, "1.01 MiB"},
		{3ULL << 40, FORMAT_DOWN, "3 TiB"},
		{1ULL << 50, FORMAT_DOWN, "1 PiB"},
		{UINT64_MAX, FORMAT_DOWN, "15.99 EiB"},
		{UINT64_MAX, FORMAT_UP, "16.00 EiB"},
		/* Rounded away: two decimals say so. */
		{(1ULL << 20) + 4096, FORMAT_DOWN, "1.00 MiB"},
		{(1ULL << 20) + (1ULL << 19), FORMAT_DOWN, "1.5 MiB"},
		{(3ULL << 30) + (1ULL << 30) / 4, FORMAT_DOWN, "3.25 GiB"},
	};
	char buf[24];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		format_bytes(buf, sizeof(buf), cases[i].bytes, cases[i].round);
		assert_string_equal(buf, cases[i].text);
	}
	format_bytes(buf, 4, 1ULL << 30, FORMAT_DOWN);
	assert_string_equal(buf, "1 G");
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

struct rec {
	uint64_t key;
	char pad[13];
};

static int cmp_rec(const void *a, const void *b)
{
	const struct rec *x = a, *y = b;

	return (x->key > y->key) - (x->key < y->key);
}

static void test_sort(void **state)
{
	static int a[1000];
	static unsigned int hist[64], hist2[64];
	static struct rec r[300];

	srand(42);
	for (size_t n = 0; n < 1000; n = n * 2 + 1) {
		for (size_t i = 0; i < 64; i++)
			hist[i] = hist2[i] = 0;
		for (size_t i = 0; i < n; i++) {
			a[i] = rand() % 64 - 32;
			hist[a[i] + 32]++;
		}
		sort(a, n, sizeof(a[0]), cmp_int);
		for (size_t i = 0; i < n; i++) {
			hist2[a[i] + 32]++;
			if (i)
				assert_true(a[i - 1] <= a[i]);
		}
		/* A permutation of the input: same multiset. */
		for (size_t i = 0; i < 64; i++)
			assert_int_equal(hist[i], hist2[i]);
	}
	/* Odd element size, already sorted and reversed input. */
	for (size_t i = 0; i < 300; i++) {
		r[i].key = 300 - i;
		r[i].pad[0] = (char)i;
	}
	sort(r, 300, sizeof(r[0]), cmp_rec);
	for (size_t i = 0; i < 300; i++) {
		assert_int_equal(r[i].key, i + 1);
		assert_int_equal((unsigned char)r[i].pad[0], (299 - i) & 0xff);
	}
	sort(r, 300, sizeof(r[0]), cmp_rec);
	for (size_t i = 0; i < 300; i++)
		assert_int_equal(r[i].key, i + 1);
	sort(NULL, 0, 4, cmp_int);
}

static void test_crc32(void **state)
{
	static const char check[] = "123456789";
	static const char fox[] = "The quick brown fox jumps over the lazy dog";

	assert_int_equal(crc32(0, check, 9), 0xCBF43926u);
	assert_int_equal(crc32(0, fox, sizeof(fox) - 1), 0x414FA339u);
	assert_int_equal(crc32(0, "", 0), 0);
	assert_int_equal(crc32(0, "a", 1), 0xE8B7BE43u);
	/* Incremental == one shot. */
	for (size_t cut = 0; cut <= 9; cut++)
		assert_int_equal(
			crc32(crc32(0, check, cut), check + cut, 9 - cut),
			0xCBF43926u);
}

/* crc32_combine(): A || B from A's and B's CRCs, at every cut. */
static void test_crc32_combine(void **state)
{
	static unsigned char buf[4099];
	uint32_t whole;

	(void)state;
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (unsigned char)(i * 131 + (i >> 7) * 17 + 5);
	whole = crc32(0, buf, sizeof(buf));
	for (size_t cut = 0; cut <= sizeof(buf); cut += cut < 70 ? 1 : 97)
		assert_int_equal(
			crc32_combine(crc32(0, buf, cut),
				      crc32(0, buf + cut, sizeof(buf) - cut),
				      sizeof(buf) - cut),
			whole);
	assert_int_equal(crc32_combine(0xCBF43926u, 0, 0), 0xCBF43926u);
	assert_int_equal(crc32_combine(0, 0xCBF43926u, 9), 0xCBF43926u);
}

/* The bitwise definition, the reference the sliced crc32() must match. */
static uint32_t crc32_bitwise(uint32_t crc, const unsigned char *p, size_t n)
{
	crc = ~crc;
	while (n--) {
		crc ^= *p++;
		for (int k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0xEDB88320u & -(crc & 1));
	}
	return ~crc;
}

/* @n bytes of a linear congruential sequence from @seed. */
static void fill_lcg(unsigned char *buf, size_t n, uint32_t seed)
{
	for (size_t i = 0; i < n; i++) {
		seed = seed * 1103515245u + 12345u;
		buf[i] = (unsigned char)(seed >> 16);
	}
}

/* Every length 0..80 at every offset 0..7, and continued at every cut. */
static void test_crc32_sliced(void **state)
{
	static unsigned char buf[96];

	(void)state;
	fill_lcg(buf, sizeof(buf), 0x12345678);
	for (size_t off = 0; off < 8; off++)
		for (size_t n = 0; n <= 80; n++)
			assert_int_equal(crc32(0, buf + off, n),
					 crc32_bitwise(0, buf + off, n));
	for (size_t cut = 0; cut <= 80; cut++)
		assert_int_equal(crc32(crc32(7, buf, cut), buf + cut, 80 - cut),
				 crc32_bitwise(7, buf, 80));
}

/*
 * Buffers long enough for crc32()'s three streams (64 KiB on): at lengths
 * whose thirds are and are not multiples of 8, from an odd offset, from a
 * CRC carried in, and cut inside a stream, all against the bitwise form.
 */
static void test_crc32_streams(void **state)
{
	static const size_t lens[] = {65536, 65537, 65543, 70001, 200003};
	static unsigned char buf[270016];

	(void)state;
	fill_lcg(buf, sizeof(buf), 0x9e3779b9);
	for (size_t k = 0; k < sizeof(lens) / sizeof(lens[0]); k++) {
		size_t n = lens[k];

		assert_int_equal(crc32(0, buf, n), crc32_bitwise(0, buf, n));
		assert_int_equal(crc32(0xdeadbeef, buf + 3, n),
				 crc32_bitwise(0xdeadbeef, buf + 3, n));
		assert_int_equal(crc32(crc32(0, buf, 70000), buf + 70000, n),
				 crc32_bitwise(0, buf, 70000 + n));
	}
}

/*
 * The arch's CRC (arch_crc32(), arch/sandbox/crc.c: x86_64's carry-less
 * folding, arch/x86_64/crc_fold.S, on an x86-64 host that has it) against the bitwise form: the register it
 * leaves for the bytes it says it took, at every length 0..1300 from
 * offsets 0..7 and a register carried in; then crc32() over them, which
 * takes it from 256 bytes on. A host without the instruction takes none
 * (0 bytes, register untouched).
 */
static void test_crc32_arch(void **state)
{
	static unsigned char buf[1320];
	size_t took = 0;

	(void)state;
	fill_lcg(buf, sizeof(buf), 0x2545f491);
	for (size_t off = 0; off < 8; off++)
		for (size_t n = 0; n <= 1300; n++) {
			uint32_t reg = ~0x1234567u;
			size_t k = arch_crc32(&reg, buf + off, n);

			assert_true(k <= n);
			took += k;
			assert_int_equal(
				~reg, crc32_bitwise(0x1234567u, buf + off, k));
			assert_int_equal(
				crc32(0x1234567u, buf + off, n),
				crc32_bitwise(0x1234567u, buf + off, n));
		}
	if (!__builtin_cpu_supports("pclmul"))
		print_message("no pclmul on this host: arch_crc32() took %zu "
			      "bytes\n",
			      took);
	else
		assert_true(took > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_strlcpy),
		cmocka_unit_test(test_parse_u64),
		cmocka_unit_test(test_parse_size),
		cmocka_unit_test(test_format_size),
		cmocka_unit_test(test_format_bytes),
		cmocka_unit_test(test_sort),
		cmocka_unit_test(test_crc32),
		cmocka_unit_test(test_crc32_combine),
		cmocka_unit_test(test_crc32_sliced),
		cmocka_unit_test(test_crc32_streams),
		cmocka_unit_test(test_crc32_arch),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
