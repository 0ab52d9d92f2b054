/* SPDX-License-Identifier: MIT */
/*
 * keel's own helpers (not libc names, so built on every arch including the
 * sandbox): strlcpy, bounded number/size parsing for the parsers, size
 * formatting (format_size for option values, format_bytes for the human
 * lines), an in-place non-recursive sort and the IEEE
 * CRC-32 used by U-Boot environments.
 *
 * Invariants: the parse_* functions read exactly [s, s+len) and nothing
 * else; no function allocates, locks or recurses.
 */
#include <keel/compiler.h>
#include <keel/errno.h>
#include <keel/string.h>

#include "crc32_table.h"

/**
 * strlcpy() - copy @src into @dst of @size bytes, truncating.
 * Return: strlen(@src), so truncation is detected by a result >= @size.
 */
size_t strlcpy(char *dst, const char *src, size_t size)
{
	size_t n = strlen(src);

	if (size) {
		size_t c = n < size - 1 ? n : size - 1;

		memcpy(dst, src, c);
		dst[c] = '\0';
	}
	return n;
}

/*
 * Each byte's value as a hex digit plus one, 0 when it is none: one load,
 * no branch on the digit's class (the parsers read 100,000 firmware lines
 * of a dozen hex digits each in a live update's downtime).
 */
static const uint8_t hex_plus1[256] = {
	['0'] = 1,  ['1'] = 2,	['2'] = 3,  ['3'] = 4,	['4'] = 5,  ['5'] = 6,
	['6'] = 7,  ['7'] = 8,	['8'] = 9,  ['9'] = 10, ['a'] = 11, ['b'] = 12,
	['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16, ['A'] = 11, ['B'] = 12,
	['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16,
};

/**
 * hex_digit() - the value of hex digit @c (either case).
 * Return: 0-15, or -1 when @c is not one.
 */
int hex_digit(char c)
{
	return (int)hex_plus1[(unsigned char)c] - 1;
}

/*
 * Parse the number at the front of [s, s+len); *used = bytes consumed.
 * A loop per base, so that the overflow check divides by a constant
 * (a shift, a multiply), not by a variable: the parsers read 100,000
 * firmware lines of two numbers each in a live update's downtime.
 */
static int parse_number(const char *s, size_t len, uint64_t *out, size_t *used)
{
	size_t i = 0, first;
	uint64_t v = 0;

	if (len >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		for (i = first = 2; i < len; i++) {
			unsigned int d = hex_plus1[(unsigned char)s[i]];

			if (!d--)
				break;
			if (v >> 60)
				return -ERANGE; /* v * 16 + d > UINT64_MAX */
			v = v << 4 | d;
		}
	} else {
		for (first = 0; i < len; i++) {
			unsigned int d = (unsigned int)(s[i] - '0');

			if (d > 9)
				break;
			if (v > (UINT64_MAX - d) / 10)
				return -ERANGE;
			v = v * 10 + d;
		}
	}
	if (i == first)
		return -EINVAL;
	*out = v;
	*used = i;
	return 0;
}

/**
 * parse_u64() - decimal or 0x-hex number filling exactly [s, s+len).
 * Return: 0, -EINVAL (empty, not a number, junk after it) or -ERANGE.
 */
int parse_u64(const char *s, size_t len, uint64_t *out)
{
	size_t used;
	uint64_t v;
	int ret;

	ret = parse_number(s, len, &v, &used);
	if (ret)
		return ret;
	if (used != len)
		return -EINVAL;
	*out = v;
	return 0;
}

/**
 * parse_size() - like parse_u64() plus one optional K/M/G/T suffix (either
 * case, powers of 1024).
 * Return: 0, -EINVAL or -ERANGE (the scaled value overflows 64 bits).
 */
int parse_size(const char *s, size_t len, uint64_t *out)
{
	unsigned int shift = 0;
	size_t used;
	uint64_t v;
	int ret;

	ret = parse_number(s, len, &v, &used);
	if (ret)
		return ret;
	if (used + 1 == len) {
		static const char suffixes[] = "KMGT";
		char c = s[used] & ~0x20; /* upper case */

		for (unsigned int i = 0; i < 4; i++)
			if (c == suffixes[i])
				shift = 10 * (i + 1);
		if (!shift)
			return -EINVAL;
	} else if (used != len) {
		return -EINVAL;
	}
	if (shift && v > (UINT64_MAX >> shift))
		return -ERANGE;
	*out = v << shift;
	return 0;
}

/**
 * format_size() - @bytes in the largest binary unit that divides it
 * exactly: "512M", "1G", "4K"; plain digits otherwise (and for 0).
 */
void format_size(char *buf, size_t size, uint64_t bytes)
{
	static const char units[] = "TGMK";
	static const unsigned int shifts[] = {40, 30, 20, 10};

	for (unsigned int i = 0; bytes && i < ARRAY_SIZE(shifts); i++) {
		uint64_t unit = 1ULL << shifts[i];

		if ((bytes & (unit - 1)) == 0) {
			snprintf(buf, size, "%llu%c",
				 (unsigned long long)(bytes >> shifts[i]),
				 units[i]);
			return;
		}
	}
	snprintf(buf, size, "%llu", (unsigned long long)bytes);
}

/**
 * format_bytes() - @bytes for a human line: in the largest unit of 1024
 * that leaves an integer part ("4 KiB", "300 MiB", "1.98 GiB"), with two
 * decimals when it is not a whole number of them ("1.5 KiB" when the
 * decimals are exact, "1.00 MiB" for 1 MiB and 4 KiB: two decimals say
 * that it was rounded), "N bytes" below 1 KiB ("1 byte"). @round says
 * which way the hundredths go: FORMAT_DOWN never prints more than @bytes
 * (what there is: free memory), FORMAT_UP never less (what is needed); a
 * value that rounds up to 1024 of a unit is printed in the next one.
 */
void format_bytes(char *buf, size_t size, uint64_t bytes,
		  enum format_round round)
{
	static const char *const units[] = {"KiB", "MiB", "GiB",
					    "TiB", "PiB", "EiB"};
	unsigned int u = 0;
	uint64_t h; /* hundredths of units[u]: below 102400 but in EiB */
	bool exact;

	if (bytes < 1024) {
		snprintf(buf, size, "%llu byte%s", (unsigned long long)bytes,
			 bytes == 1 ? "" : "s");
		return;
	}
	while (u + 1 < ARRAY_SIZE(units) && bytes >> (10 * (u + 2)))
		u++;
	for (;;) {
		unsigned int shift = 10 * (u + 1);
		__uint128_t x = (__uint128_t)bytes * 100;
		__uint128_t mask = ((__uint128_t)1 << shift) - 1;

		exact = !(x & mask);
		h = (uint64_t)((x + (round == FORMAT_UP ? mask : 0)) >> shift);
		if (h < 102400 || u + 1 == ARRAY_SIZE(units))
			break;
		u++; /* 1023.999 MiB rounded up: 1 GiB */
	}
	if (exact && h % 100 == 0)
		snprintf(buf, size, "%llu %s", (unsigned long long)(h / 100),
			 units[u]);
	else if (exact && h % 10 == 0)
		snprintf(buf, size, "%llu.%llu %s",
			 (unsigned long long)(h / 100),
			 (unsigned long long)(h % 100 / 10), units[u]);
	else
		snprintf(buf, size, "%llu.%02llu %s",
			 (unsigned long long)(h / 100),
			 (unsigned long long)(h % 100), units[u]);
}

static void swap_bytes(unsigned char *a, unsigned char *b, size_t size)
{
	while (size--) {
		unsigned char t = *a;

		*a++ = *b;
		*b++ = t;
	}
}

/* Restore the max-heap below @root, looking at elements [0, count). */
static void sift_down(unsigned char *base, size_t root, size_t count,
		      size_t size, int (*cmp)(const void *, const void *))
{
	for (;;) {
		size_t child = 2 * root + 1;

		if (child >= count)
			return;
		if (child + 1 < count &&
		    cmp(base + child * size, base + (child + 1) * size) < 0)
			child++;
		if (cmp(base + root * size, base + child * size) >= 0)
			return;
		swap_bytes(base + root * size, base + child * size, size);
		root = child;
	}
}

/**
 * sort() - sort @count elements of @size bytes in place. Heapsort: no
 * recursion, no allocation, O(n log n) worst case; not stable.
 */
void sort(void *base, size_t count, size_t size,
	  int (*cmp)(const void *, const void *))
{
	unsigned char *b = base;

	if (count < 2 || size == 0)
		return;
	for (size_t i = count / 2; i-- > 0;)
		sift_down(b, i, count, size, cmp);
	for (size_t end = count - 1; end > 0; end--) {
		swap_bytes(b, b + end * size, size);
		sift_down(b, 0, end, size, cmp);
	}
}

/** cmp_u64() - sort() order of uint64_t: Return: <0, 0 or >0. */
int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* The 4 bytes at @p as a little-endian word (any alignment). */
static inline uint32_t le32_at(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

/*
 * The CRC as a polynomial over GF(2), reflected: bit 31 is x^0, bit 0 is
 * x^31. @a times @b modulo the polynomial: shift-and-add over @a's terms,
 * @b multiplied by x at each step (a right shift, the polynomial folded
 * in when x^32 appears).
 */
static uint32_t crc_mul(uint32_t a, uint32_t b)
{
	uint32_t prod = 0;

	for (uint32_t bit = 1u << 31; a; bit >>= 1) {
		if (a & bit) {
			prod ^= b;
			a ^= bit;
		}
		b = (b >> 1) ^ (b & 1 ? 0xEDB88320u : 0);
	}
	return prod;
}

/* x^(8 * @bytes) modulo the polynomial: square and multiply, O(log n). */
static uint32_t crc_shift_of(uint64_t bytes)
{
	uint32_t result = 1u << 31, sq = 1u << 23; /* x^0, then x^8 */

	for (; bytes; bytes >>= 1) {
		if (bytes & 1)
			result = crc_mul(result, sq);
		sq = crc_mul(sq, sq);
	}
	return result;
}

/* One slice-by-8 step of the register @c (not inverted) over @p[0..7]. */
static inline uint32_t crc_step8(uint32_t c, const unsigned char *p)
{
	uint32_t lo = c ^ le32_at(p), hi = le32_at(p + 4);

	return crc32_tab[7][lo & 0xff] ^ crc32_tab[6][(lo >> 8) & 0xff] ^
	       crc32_tab[5][(lo >> 16) & 0xff] ^ crc32_tab[4][lo >> 24] ^
	       crc32_tab[3][hi & 0xff] ^ crc32_tab[2][(hi >> 8) & 0xff] ^
	       crc32_tab[1][(hi >> 16) & 0xff] ^ crc32_tab[0][hi >> 24];
}

/*
 * Below this a buffer is one stream: the three streams' joins cost two
 * crc_mul() and a crc_shift_of() (some 40 multiplications of 32 steps),
 * a few microseconds' worth of bytes.
 */
#define CRC_STREAMS_MIN (64 * 1024)

/**
 * crc32() - IEEE 802.3 CRC-32 (reflected, polynomial 0xEDB88320) as zlib
 * and U-Boot compute it; pass the previous result as @crc to continue,
 * 0 to start. Sliced by 8 (crc32_table.h, 8 KiB): a live update's
 * handover with 100,000 bad-page ranges is 1.6 MB, checksummed by the old
 * image and again by the new one in the downtime, where the bitwise form
 * took some 20 ns a byte. One stream is bound by the latency of its chain
 * (table loads, then their XOR, then the next loads), not by the loads:
 * a long buffer is three thirds read side by side, each from a register
 * of 0, joined after (the register is linear: the CRC of A || B is A's
 * moved past B's bytes, times x^(8|B|), plus B's from 0). Integer only:
 * no SIMD or FPU, for every arch's early boot.
 * Return: the updated CRC.
 */
uint32_t crc32(uint32_t crc, const void *buf, size_t len)
{
	const unsigned char *p = buf;
	uint32_t c = ~crc;

	if (len >= CRC_STREAMS_MIN) {
		size_t n = (len / 3) & ~(size_t)7;
		const unsigned char *q = p + n, *r = p + 2 * n;
		uint32_t c1 = 0, c2 = 0, x;

		for (size_t i = 0; i < n; i += 8) {
			c = crc_step8(c, p + i);
			c1 = crc_step8(c1, q + i);
			c2 = crc_step8(c2, r + i);
		}
		x = crc_shift_of(n);
		c = crc_mul(x, crc_mul(x, c) ^ c1) ^ c2;
		p += 3 * n;
		len -= 3 * n;
	}
	for (; len >= 8; p += 8, len -= 8)
		c = crc_step8(c, p);
	while (len--)
		c = (c >> 8) ^ crc32_tab[0][(c ^ *p++) & 0xff];
	return ~c;
}

/**
 * crc32_combine() - crc32() of A followed by B, from A's (@crc_a), B's
 * (@crc_b) and B's length: A's CRC moved past B's bytes (times x^(8n))
 * plus B's (the pre- and post-inversions cancel out, the CRC being affine
 * in its input). O(log @len_b): a live update writes its bad-page records
 * before the freeze with their CRC, and the freeze checksums only the
 * rest of the handover.
 * Return: crc32(0, A || B).
 */
uint32_t crc32_combine(uint32_t crc_a, uint32_t crc_b, uint64_t len_b)
{
	return crc_mul(crc_shift_of(len_b), crc_a) ^ crc_b;
}
