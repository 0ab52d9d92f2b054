/* SPDX-License-Identifier: MIT */
/*
 * arm64 arch hooks of <arch/cache.h>: cache maintenance (DESIGN §5).
 *
 * Line sizes come from CTR_EL0 (DminLine), the zeroing block (for
 * scrub.c) from DCZID_EL0; both are read once by arch_scrub_init() (and
 * lazily before). Every range operation issues its per-line instructions
 * and then exactly one DSB: never a barrier per line.
 */
#include <arch/cache.h>
#include <asm/arm64.h>
#include <keel/compiler.h>

static unsigned int dline;     /* D-cache line, bytes */
static unsigned int zva_block; /* DC ZVA block, bytes; 0 = prohibited */

/**
 * arm64_cache_probe() - read the D-cache line and DC ZVA block sizes.
 */
void arm64_cache_probe(void)
{
	uint64_t ctr = read_sysreg(ctr_el0);
	uint64_t dczid = read_sysreg(dczid_el0);

	dline = 4u << ((ctr >> 16) & 0xf);
	zva_block = (dczid & (1u << 4)) ? 0 : 4u << (dczid & 0xf);
}

static inline unsigned int line_size(void)
{
	if (unlikely(!dline))
		arm64_cache_probe();
	return dline;
}

/**
 * arch_dcache_line_size() - smallest D-cache line (CTR_EL0.DminLine).
 * Return: bytes.
 */
unsigned int arch_dcache_line_size(void)
{
	return line_size();
}

/**
 * arm64_zva_block() - the DC ZVA block (DCZID_EL0).
 * Return: bytes, 0 when DC ZVA is prohibited.
 */
unsigned int arm64_zva_block(void)
{
	line_size();
	return zva_block;
}

/**
 * arch_dcache_coherent() - arm64: maintenance is needed for PoC users.
 * Return: false.
 */
bool arch_dcache_coherent(void)
{
	return false;
}

/**
 * arch_clean_dcache_range() - DC CVAC over [va, va+len), one DSB.
 * @va: start.
 * @len: bytes.
 */
void arch_clean_dcache_range(void *va, size_t len)
{
	uintptr_t l = line_size();
	uintptr_t a = ALIGN_DOWN((uintptr_t)va, l), end = (uintptr_t)va + len;

	for (; a < end; a += l)
		__asm__ __volatile__("dc cvac, %0" ::"r"(a) : "memory");
	dsb(sy);
}

/**
 * arch_clean_inval_dcache_range() - DC CIVAC over [va, va+len), one DSB.
 * @va: start.
 * @len: bytes.
 */
void arch_clean_inval_dcache_range(void *va, size_t len)
{
	uintptr_t l = line_size();
	uintptr_t a = ALIGN_DOWN((uintptr_t)va, l), end = (uintptr_t)va + len;

	for (; a < end; a += l)
		__asm__ __volatile__("dc civac, %0" ::"r"(a) : "memory");
	dsb(sy);
}

/**
 * arch_inval_icache_all() - IC IALLU, then DSB and ISB.
 */
void arch_inval_icache_all(void)
{
	__asm__ __volatile__("ic iallu" ::: "memory");
	dsb(nsh);
	isb();
}
