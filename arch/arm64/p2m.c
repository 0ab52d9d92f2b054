/* SPDX-License-Identifier: MIT */
/*
 * arm64 arch hooks of <arch/p2m.h>: VMSAv8-64 stage-2 tables, 4 KiB
 * granule, IPA and output size from ID_AA64MMFR0_EL1.PARange capped at 48
 * bits (52 needs FEAT_LPA2 descriptors, which keel does not write).
 *
 * Commit (at EL2): DSB ISHST makes the builder's plain stores visible to
 * the table walker (walks are Inner Shareable and cacheable, VTCR_EL2
 * IRGN0/ORGN0/SH0, so no cache maintenance is needed), then with
 * VTTBR_EL2 holding this table's VMID, TLBI VMALLS12E1IS drops any
 * stage-1+2 entry an earlier table with the same VMID left, DSB ISH waits
 * for it, ISB. At EL1 there is no stage 2: the DSB alone.
 *
 * hw_translate (EL2 only): interrupts masked; VTCR_EL2 and VTTBR_EL2 set
 * to the table, SCTLR_EL1.M = 0 (stage 1 off: VA = IPA), HCR_EL2.VM = 1;
 * local TLBI for the VMID, AT S12E1R, PAR_EL1 read; every register put
 * back. Arm ARM (DDI 0487 J.a): C5.5 "A64 system instructions for address
 * translation" (AT S12E1R), D17.2 "PAR_EL1" (F = bit 0, PA = bits 47:12 on
 * success), "HCR_EL2", "VTCR_EL2", "VTTBR_EL2".
 */
#include <arch/p2m.h>
#include <asm/arm64.h>
#include <keel/errno.h>
#include <keel/p2m.h>
#include <keel/p2m_format.h>

#define HCR_VM	    (1ULL << 0)
#define PAR_F	    (1ULL << 0)
#define PAR_PA_MASK 0x0000fffffffff000ULL

const struct p2m_format *arch_p2m_format(void)
{
	return &p2m_format_vmsa_s2;
}

/**
 * arch_p2m_max_ipa_bits() - PARange, at most 48.
 *
 * Return: 32..48.
 */
unsigned int arch_p2m_max_ipa_bits(void)
{
	unsigned int bits = mm_pa_bits();

	return bits > 48 ? 48 : bits;
}

unsigned int arch_p2m_pa_bits(void)
{
	return arch_p2m_max_ipa_bits();
}

/**
 * arch_p2m_commit() - publish a finished table (see the file comment).
 * @p: the p2m
 */
void arch_p2m_commit(struct p2m *p)
{
	uint64_t vttbr;

	dsb(ishst);
	if (arm64_el != 2)
		return;
	vttbr = read_sysreg(vttbr_el2);
	write_sysreg(vmsa_s2_vttbr(p->root, p->vmid), vttbr_el2);
	isb();
	__asm__ __volatile__("tlbi vmalls12e1is" ::: "memory");
	dsb(ish);
	write_sysreg(vttbr, vttbr_el2);
	isb();
}

/* AT S12E1R of @gpa with the stage-2 registers already set. Return: PAR_EL1. */
static uint64_t at_s12e1r(uint64_t gpa)
{
	__asm__ __volatile__("tlbi vmalls12e1" ::: "memory");
	dsb(nsh);
	isb();
	__asm__ __volatile__("at s12e1r, %0" ::"r"(gpa) : "memory");
	isb();
	return read_sysreg(par_el1);
}

/**
 * arch_p2m_hw_translate() - ask the MMU to walk the table for @gpa.
 * @p: the p2m, committed
 * @gpa: the guest physical address
 * @out: the machine address the MMU found
 *
 * Return: 0, -ENOENT (PAR_EL1.F: a fault), -EOPNOTSUPP below EL2.
 */
int arch_p2m_hw_translate(struct p2m *p, uint64_t gpa, paddr_t *out)
{
	uint64_t daif, vtcr, vttbr, hcr, sctlr, par_saved, par;

	if (arm64_el != 2)
		return -EOPNOTSUPP;
	daif = read_sysreg(daif);
	__asm__ __volatile__("msr daifset, #0xf" ::: "memory");
	vtcr = read_sysreg(vtcr_el2);
	vttbr = read_sysreg(vttbr_el2);
	hcr = read_sysreg(hcr_el2);
	sctlr = read_sysreg(sctlr_el1);
	par_saved = read_sysreg(par_el1);

	write_sysreg(vmsa_s2_vtcr(p->ipa_bits, p->start_level, p->pa_bits),
		     vtcr_el2);
	write_sysreg(vmsa_s2_vttbr(p->root, p->vmid), vttbr_el2);
	write_sysreg(SCTLR_EL1_RES1, sctlr_el1); /* M = 0: stage 1 off */
	write_sysreg(hcr | HCR_VM, hcr_el2);
	isb();
	par = at_s12e1r(gpa);

	write_sysreg(hcr, hcr_el2);
	write_sysreg(sctlr, sctlr_el1);
	write_sysreg(vttbr, vttbr_el2);
	write_sysreg(vtcr, vtcr_el2);
	write_sysreg(par_saved, par_el1);
	isb();
	write_sysreg(daif, daif);

	if (par & PAR_F)
		return -ENOENT;
	*out = pa((par & PAR_PA_MASK) | (gpa & (PAGE_SIZE - 1)));
	return 0;
}
