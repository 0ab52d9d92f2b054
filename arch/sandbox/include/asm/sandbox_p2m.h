/* SPDX-License-Identifier: MIT */
/*
 * Sandbox-only: what arch_p2m_commit() would have done on hardware,
 * counted for the unit tests (arch/sandbox/p2m.c).
 */
#ifndef ASM_SANDBOX_P2M_H
#define ASM_SANDBOX_P2M_H

#include <keel/types.h>

struct sandbox_p2m_counters {
	uint64_t barriers;    /* DSB-like store barriers */
	uint64_t tlb_flushes; /* whole-VMID TLB invalidations */
};
void sandbox_p2m_counters(struct sandbox_p2m_counters *out);
void sandbox_p2m_counters_reset(void);

#endif
