/* SPDX-License-Identifier: MIT */
/*
 * x86_64 arch hooks of <arch/p2m.h>: the format this CPU's hardware walks,
 * as a real x86 hypervisor must pick it: AMD nested page tables when the
 * CPU has SVM with nested paging (CPUID 8000_0001h ECX bit 2, 8000_000Ah
 * EDX bit 0: EPYC servers, QEMU TCG's -cpu max), else Intel EPT; both 4
 * levels, 48-bit guest physical addresses, output addresses below
 * MAXPHYADDR (CPUID 0x80000008 EAX[7:0]; 36 when the leaf is absent, as
 * the SDM says).
 *
 * keel never executes VMXON, and its SVM guests (guest.c) flush the TLB
 * at their first VMRUN, so a commit needs no INVEPT or ASID flush (x86
 * stores are ordered and the tables are ordinary write-back memory, so no
 * barrier either). An embedding hypervisor issues INVEPT single-context
 * with ept_eptp() of the table once, after the build. There is no way to
 * ask the CPU to walk a table outside a guest: hw_translate is not
 * supported.
 */
#include <arch/p2m.h>
#include <asm/x86.h>
#include <keel/errno.h>
#include <keel/p2m_format.h>

/**
 * arch_p2m_format() - NPT on a CPU with SVM and nested paging, else EPT.
 *
 * Return: the format.
 */
const struct p2m_format *arch_p2m_format(void)
{
	bool npt = cpuid(0x80000000, 0).eax >= 0x8000000a &&
		   (cpuid(0x80000001, 0).ecx & (1u << 2)) &&
		   (cpuid(0x8000000a, 0).edx & 1u);

	return npt ? &p2m_format_npt : &p2m_format_ept;
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
