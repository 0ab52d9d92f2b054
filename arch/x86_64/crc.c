/* SPDX-License-Identifier: MIT */
/*
 * arch_crc32() (<arch/crc.h>): carry-less folding (PCLMULQDQ, CPUID leaf
 * 1 ECX bit 1) by crc_fold.S, its 16 bytes reduced by the tables. Without
 * the instruction: none taken, the tables do all.
 */
#include <arch/crc.h>
#include <asm/x86.h>
#include <keel/string.h>

size_t x86_crc32_fold(uint32_t reg, const void *p, size_t n, void *out);

/*
 * Whether the CPU has PCLMULQDQ, asked once (CPUID is a VM exit under a
 * hypervisor, and the handover's 1.6 MB come 16 KiB a call): 0 not yet,
 * 1 yes, -1 no. Two CPUs asking at once get the same answer: no lock.
 */
static bool have_pclmul(void)
{
	static int state;
	int s = __atomic_load_n(&state, __ATOMIC_RELAXED);

	if (!s) {
		s = cpuid(1, 0).ecx & (1u << 1) ? 1 : -1;
		__atomic_store_n(&state, s, __ATOMIC_RELAXED);
	}
	return s > 0;
}

size_t arch_crc32(uint32_t *reg, const void *buf, size_t len)
{
	size_t n = len & ~(size_t)63;
	unsigned char out[16];

	if (!n || !have_pclmul())
		return 0;
	x86_crc32_fold(*reg, buf, n, out);
	/* The register over these 16 bytes from 0 (crc32() inverts). */
	*reg = ~crc32(~0u, out, sizeof(out));
	return n;
}
