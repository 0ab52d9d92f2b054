/* SPDX-License-Identifier: MIT */
/*
 * x86_64 arch hooks of <arch/p2m.h>: Intel EPT, 4 levels, 48-bit guest
 * physical addresses, output addresses below MAXPHYADDR (CPUID
 * 0x80000008 EAX[7:0]; 36 when the leaf is absent, as the SDM says).
 *
 * keel never executes VMXON, so nothing caches EPT translations: a commit
 * needs no INVEPT (x86 stores are ordered and the tables are ordinary
 * write-back memory, so no barrier either). An embedding hypervisor
 * issues INVEPT single-context with ept_eptp() of the table once, after
 * the build. There is no way to ask the CPU to walk an EPT table outside
 * VMX non-root operation: hw_translate is not supported.
 */
#include <arch/p2m.h>
#include <asm/x86.h>
#include <keel/errno.h>
#include <keel/p2m_format.h>

const struct p2m_format *arch_p2m_format(void)
{
	return &p2m_format_ept;
}

unsigned int arch_p2m_max_ipa_bits(void)
{
	return 48;
}

/**
 * arch_p2m_pa_bits() - MAXPHYADDR.
 *
 * Return: 36..52.
 */
unsigned int arch_p2m_pa_bits(void)
{
	unsigned int bits = 36;

	if (cpuid(0x80000000, 0).eax >= 0x80000008)
		bits = cpuid(0x80000008, 0).eax & 0xff;
	if (bits < 36)
		bits = 36;
	return bits > 52 ? 52 : bits;
}

void arch_p2m_commit(struct p2m *p)
{
}

int arch_p2m_hw_translate(struct p2m *p, uint64_t gpa, paddr_t *pa)
{
	return -EOPNOTSUPP;
}
