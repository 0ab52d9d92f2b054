/* SPDX-License-Identifier: MIT */
/*
 * The IEEE 802.3 CRC-32 (reflected, polynomial 0xEDB88320) as zlib and
 * U-Boot compute it: crc32(), crc32_combine(). The handover of a live
 * update is checksummed with it (include/keel/handover.h).
 *
 * A long buffer goes first to the CPU's own instructions where the arch
 * has them (arch_crc32(), <arch/crc.h>: x86 carry-less multiplication,
 * arm64's CRC32 instructions), the rest to the tables. The arch's answer
 * is checked once against the tables on a fixed buffer before it is
 * used: a wrong one is one warning and the tables from then on.
 *
 * Not in the heap library (libkeel-heap.a): nothing there checksums, and
 * a host linking it provides no arch_crc32().
 */
#include <arch/crc.h>
#include <keel/compiler.h>
#include <keel/printk.h>
#include <keel/string.h>

#include "crc32_table.h"

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

/*
 * The register @c (not inverted) over [@p, @p + @len) by the tables: a
 * long buffer as three streams side by side (see crc32()).
 */
static uint32_t crc_tables(uint32_t c, const unsigned char *p, size_t len)
{
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
	return c;
}

/* Arch answers below this many bytes are not asked for (a call, a check). */
#define CRC_ARCH_MIN 256

/*
 * Does arch_crc32() give the tables' register? Asked once, on 1,023
 * bytes of the tables themselves (a fixed buffer nobody writes) at an
 * odd address, from a register not 0; the answer kept (0 not yet asked,
 * 1 yes, -1 no). Two CPUs asking at once get the same answer: no lock.
 */
static bool crc_arch_ok(void)
{
	const unsigned char *buf = (const unsigned char *)crc32_tab + 1;
	static int state;
	int s = __atomic_load_n(&state, __ATOMIC_RELAXED);
	uint32_t hw = 0x5eed, sw;
	size_t n;

	if (s)
		return s > 0;
	n = arch_crc32(&hw, buf, 1023);
	sw = crc_tables(0x5eed, buf, MIN(n, (size_t)1023));
	if (n > 1023 || hw != sw) {
		pr_warn("crc32: the CPU's CRC-32 (arch_crc32()) gives %#x for "
			"%zu bytes where the tables give %#x: the tables "
			"only\n",
			hw, n, sw);
		s = -1;
	} else {
		s = n ? 1 : -1;
	}
	__atomic_store_n(&state, s, __ATOMIC_RELAXED);
	return s > 0;
}

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
 * moved past B's bytes, times x^(8|B|), plus B's from 0). From 256 bytes
 * on, the CPU's own instructions first where the arch has them
 * (arch_crc32(), checked once against the tables): a 1.6 MB handover in
 * some 30 us instead of 300 on the sandbox's host.
 * Return: the updated CRC.
 */
uint32_t crc32(uint32_t crc, const void *buf, size_t len)
{
	const unsigned char *p = buf;
	uint32_t c = ~crc;

	if (len >= CRC_ARCH_MIN && crc_arch_ok()) {
		size_t n = arch_crc32(&c, p, len);

		p += n;
		len -= n;
	}
	return ~crc_tables(c, p, len);
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
