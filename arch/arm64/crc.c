/* SPDX-License-Identifier: MIT */
/*
 * arch_crc32() (<arch/crc.h>): the CRC32X instruction (the CRC32
 * extension: ID_AA64ISAR0_EL1.CRC32, bits 19:16, not 0; optional in
 * Armv8.0, required from Armv8.1), 8 bytes an instruction on the
 * general registers: the IEEE polynomial, reflected, the register not
 * inverted, as crc32()'s own; the bytes before an 8-byte boundary by
 * CRC32B. Without the extension: none taken, the tables do all.
 */
#include <arch/crc.h>
#include <asm/arm64.h>

/*
 * Whether the CPU has the CRC32 instructions, asked once (an ID register
 * read traps to a hypervisor that sets HCR_EL2.TID3, and the handover's
 * 1.6 MB come 16 KiB a call): 0 not yet, 1 yes, -1 no. Two CPUs asking at
 * once get the same answer: no lock.
 */
static bool have_crc32(void)
{
	static int state;
	int s = __atomic_load_n(&state, __ATOMIC_RELAXED);

	if (!s) {
		s = (read_sysreg(id_aa64isar0_el1) >> 16) & 0xf ? 1 : -1;
		__atomic_store_n(&state, s, __ATOMIC_RELAXED);
	}
	return s > 0;
}

size_t arch_crc32(uint32_t *reg, const void *buf, size_t len)
{
	const unsigned char *p = buf;
	uint32_t c = *reg;
	size_t i = 0, n;

	if (len < 8 || !have_crc32())
		return 0;
	/* Bytes up to an 8-byte boundary (-mstrict-align: aligned loads). */
	for (; (uintptr_t)(p + i) & 7; i++)
		__asm__(".arch_extension crc\n\t"
			"crc32b %w0, %w0, %w1"
			: "+r"(c)
			: "r"((uint32_t)p[i]));
	n = i + ((len - i) & ~(size_t)7);
	for (; i < n; i += 8)
		__asm__(".arch_extension crc\n\t"
			"crc32x %w0, %w0, %x1"
			: "+r"(c)
			: "r"(*(const uint64_t *)(const void *)(p + i)));
	*reg = c;
	return n;
}
