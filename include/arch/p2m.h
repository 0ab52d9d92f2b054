/* SPDX-License-Identifier: MIT */
/*
 * Arch hooks of the stage-2 tables (include/keel/p2m.h): which format the
 * arch's MMU walks, how large its addresses may be, and the two things
 * only the arch can do: publish a finished table (barrier + TLB
 * maintenance) and ask the MMU to translate through it.
 *
 *   arm64    vmsav8-64-s2, IPA from ID_AA64MMFR0_EL1.PARange (<= 48);
 *            commit: DSB ISHST, TLBI VMALLS12E1IS for the VMID, DSB ISH,
 *            ISB (at EL1 only the DSB: there is no stage 2 to flush);
 *            hw_translate at EL2 with AT S12E1R.
 *   x86_64   ept, 48-bit guest addresses, MAXPHYADDR from CPUID; keel
 *            never enters VMX operation, so no INVEPT and no probe.
 *   sandbox  vmsav8-64-s2 (the format with a hardware check on arm64 and
 *            the variable root geometry), 48 bits; commit is counted.
 */
#ifndef ARCH_P2M_H
#define ARCH_P2M_H

#include <keel/types.h>

struct p2m;
struct p2m_format;

const struct p2m_format *arch_p2m_format(void);
/* The largest guest-physical address width the MMU can use. */
unsigned int arch_p2m_max_ipa_bits(void);
/* The physical address width stage-2 output addresses must fit. */
unsigned int arch_p2m_pa_bits(void);
/* Make the table's writes visible to the walker and drop stale TLB entries. */
void arch_p2m_commit(struct p2m *p);
/* 0 and *pa, -ENOENT on a fault, -EOPNOTSUPP when the arch cannot. */
int arch_p2m_hw_translate(struct p2m *p, uint64_t gpa, paddr_t *pa);

#endif
