/* SPDX-License-Identifier: MIT */
/*
 * keel's own helpers (not libc names, so built on every arch including the
 * sandbox): strlcpy, bounded number/size parsing for the parsers, size
 * formatting (format_size for option values, format_bytes for the human
 * lines) and an in-place non-recursive sort. The IEEE CRC-32 is
 * common/lib/crc32.c.
 *
 * Invariants: the parse_* functions read exactly [s, s+len) and nothing
 * else; no function allocates, locks or recurses.
 */
#include <keel/compiler.h>
#include <keel/errno.h>
#include <keel/string.h>

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
 * See keel/string.h: the parsers read 100,000 firmware lines of a dozen
 * hex digits each in a live update's downtime.
 */
const uint8_t lib_hex_plus1[256] = {
	['0'] = 1,  ['1'] = 2,	['2'] = 3,  ['3'] = 4,	['4'] = 5,  ['5'] = 6,
	['6'] = 7,  ['7'] = 8,	['8'] = 9,  ['9'] = 10, ['a'] = 11, ['b'] = 12,
	['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16, ['A'] = 11, ['B'] = 12,
	['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16,
};

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
			unsigned int d = lib_hex_plus1[(unsigned char)s[i]];

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
