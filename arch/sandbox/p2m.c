/* SPDX-License-Identifier: MIT */
/*
 * Sandbox arch hooks of <arch/p2m.h>. The sandbox builds VMSAv8-64 stage-2
 * tables: the format arm64 checks against its MMU, with the variable root
 * geometry (concatenated roots) EPT lacks, so sandbox boots and tests run
 * the builder's richer path. There is no MMU to publish to or to ask: a
 * commit is counted (one barrier and one TLB flush, what arm64 does) and
 * the hardware probe is not supported.
 */
#include <arch/p2m.h>
#include <asm/sandbox_p2m.h>
#include <keel/errno.h>
#include <keel/p2m_format.h>

static struct sandbox_p2m_counters counters;

const struct p2m_format *arch_p2m_format(void)
{
	return &p2m_format_vmsa_s2;
}

unsigned int arch_p2m_max_ipa_bits(void)
{
	return 48;
}

unsigned int arch_p2m_pa_bits(void)
{
	return 48;
}

/**
 * arch_p2m_commit() - counted: one barrier, one TLB flush per table.
 * @p: the p2m
 */
void arch_p2m_commit(struct p2m *p)
{
	__atomic_fetch_add(&counters.barriers, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&counters.tlb_flushes, 1, __ATOMIC_RELAXED);
}

int arch_p2m_hw_translate(struct p2m *p, uint64_t gpa, paddr_t *pa)
{
	return -EOPNOTSUPP;
}

/**
 * sandbox_p2m_counters() - read the commit counters.
 * @out: filled
 */
void sandbox_p2m_counters(struct sandbox_p2m_counters *out)
{
	out->barriers = __atomic_load_n(&counters.barriers, __ATOMIC_RELAXED);
	out->tlb_flushes =
		__atomic_load_n(&counters.tlb_flushes, __ATOMIC_RELAXED);
}

void sandbox_p2m_counters_reset(void)
{
	__atomic_store_n(&counters.barriers, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&counters.tlb_flushes, 0, __ATOMIC_RELAXED);
}
