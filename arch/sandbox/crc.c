/* SPDX-License-Identifier: MIT */
/*
 * arch_crc32() (<arch/crc.h>) on an x86-64 host: x86_64's own folding by
 * carry-less multiplication (arch/x86_64/crc_fold.S, built into the
 * sandbox on such a host: arch.mk), when the CPU has PCLMULQDQ, so that
 * the unit tests (tests/unit/lib_test.c, against the bitwise CRC on every
 * length and alignment) and every sandbox boot run the code x86_64 boots
 * with. Another host: none taken, the tables do all.
 */
#include <arch/crc.h>
#include <keel/string.h>

#if defined(__x86_64__)
size_t x86_crc32_fold(uint32_t reg, const void *p, size_t n, void *out);

size_t arch_crc32(uint32_t *reg, const void *buf, size_t len)
{
	size_t n = len & ~(size_t)63;
	unsigned char out[16];

	if (!n || !__builtin_cpu_supports("pclmul") ||
	    !__builtin_cpu_supports("sse2"))
		return 0;
	x86_crc32_fold(*reg, buf, n, out);
	/* The register over these 16 bytes from 0 (crc32() inverts). */
	*reg = ~crc32(~0u, out, sizeof(out));
	return n;
}
#else
size_t arch_crc32(uint32_t *reg, const void *buf, size_t len)
{
	(void)reg;
	(void)buf;
	(void)len;
	return 0;
}
#endif
