/* SPDX-License-Identifier: MIT */
/*
 * arch_crc32() (<arch/crc.h>) on an x86-64 host: folding by carry-less
 * multiplication (PCLMULQDQ), when the CPU has it, through the compiler's
 * builtins (no host header). Four 16-byte lanes a 64-byte step: each lane
 * L, read as the next 16 bytes of the message, is replaced by one whose
 * CRC contribution 64 bytes further on is the same, L_lo * k(544) xor
 * L_hi * k(480), plus the 16 bytes found there. At the end the lanes fold
 * into one (k(160), k(96), 16 bytes apart), whose 16 bytes the tables
 * reduce (crc32()), the register having been xored into the first lane.
 *
 * k(n) is x^n modulo the CRC's polynomial (0x104C11DB7, x^32 + ...),
 * bit-reflected in 32 bits and shifted left by one (a reflected product of
 * two 64-bit halves comes out one bit low). Derived with a few lines of
 * Python (x^n by shift and reduce) and checked against zlib's CRC on
 * every length, as the unit test checks this function against the
 * bitwise CRC (tests/unit/lib_test.c).
 */
#include <arch/crc.h>
#include <keel/string.h>

typedef long long v2di __attribute__((vector_size(16)));

#define CRC_TARGET __attribute__((target("sse2,pclmul")))

/* Lane @x moved 16 x (number of lanes) bytes on, by @k = {k(lo), k(hi)}. */
static CRC_TARGET v2di fold(v2di x, v2di k)
{
	return __builtin_ia32_pclmulqdq128(x, k, 0x00) ^
	       __builtin_ia32_pclmulqdq128(x, k, 0x11);
}

static CRC_TARGET size_t crc_fold(uint32_t *reg, const unsigned char *p,
				  size_t len)
{
	const v2di k4 = {0x154442bd4LL, 0x1c6e41596LL}; /* k(544), k(480) */
	const v2di k1 = {0x1751997d0LL, 0x0ccaa009eLL}; /* k(160), k(96) */
	size_t n = len & ~(size_t)63;
	unsigned char out[16];
	v2di x[4], d[4], y;

	memcpy(x, p, sizeof(x));
	x[0] ^= (v2di){(long long)*reg, 0};
	for (size_t off = 64; off < n; off += 64) {
		memcpy(d, p + off, sizeof(d));
		for (unsigned int i = 0; i < 4; i++)
			x[i] = fold(x[i], k4) ^ d[i];
	}
	y = x[0];
	for (unsigned int i = 1; i < 4; i++)
		y = fold(y, k1) ^ x[i];
	memcpy(out, &y, sizeof(out));
	/* The register over these 16 bytes from 0 (crc32() inverts). */
	*reg = ~crc32(~0u, out, sizeof(out));
	return n;
}

size_t arch_crc32(uint32_t *reg, const void *buf, size_t len)
{
	if (len < 64 || !__builtin_cpu_supports("pclmul") ||
	    !__builtin_cpu_supports("sse2"))
		return 0;
	return crc_fold(reg, buf, len);
}
