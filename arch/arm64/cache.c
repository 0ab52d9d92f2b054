/* SPDX-License-Identifier: MIT */
/*
 * arm64 cache maintenance and the scrub primitive (DESIGN §5, §6).
 *
 * Line sizes come from CTR_EL0 (DminLine), the zeroing block from
 * DCZID_EL0; both are read once by arch_scrub_init() (and lazily before).
 * Every range operation issues its per-line instructions and then exactly
 * one DSB: never a barrier per line.
 *
 * arch_scrub_clean_range() zeroes one DC ZVA block and immediately cleans
 * its lines to PoC while they are still in the cache, so the clean costs
 * no extra memory read; one DSB at the end makes the whole range clean.
 */
#include <arch/cache.h>
#include <arch/scrub.h>
#include <asm/arm64.h>
#include <keel/compiler.h>

static unsigned int dline;     /* D-cache line, bytes */
static unsigned int zva_block; /* DC ZVA block, bytes; 0 = prohibited */

static void cache_probe(void)
{
	uint64_t ctr = read_sysreg(ctr_el0);
	uint64_t dczid = read_sysreg(dczid_el0);

	dline = 4u << ((ctr >> 16) & 0xf);
	zva_block = (dczid & (1u << 4)) ? 0 : 4u << (dczid & 0xf);
}

static inline unsigned int line_size(void)
{
	if (unlikely(!dline))
		cache_probe();
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

/**
 * arch_scrub_init() - read the line and DC ZVA block sizes.
 */
void arch_scrub_init(void)
{
	cache_probe();
}

/**
 * arch_scrub_primitive() - "dc zva", or "stp" when DC ZVA is prohibited.
 * Return: the name for the report.
 */
const char *arch_scrub_primitive(void)
{
	line_size();
	return zva_block ? "dc zva" : "stp";
}

static void zero_stores(uintptr_t a, uintptr_t end)
{
	for (; a < end; a += 16)
		__asm__ __volatile__("stp xzr, xzr, [%0]" ::"r"(a) : "memory");
}

/**
 * arch_scrub_range() - zero [va, va+len) (page aligned) with DC ZVA.
 * @va: start.
 * @len: bytes.
 */
void arch_scrub_range(void *va, size_t len)
{
	uintptr_t a = (uintptr_t)va, end = a + len;
	uintptr_t b;

	line_size();
	b = zva_block;
	if (!b || b > PAGE_SIZE) {
		zero_stores(a, end);
		return;
	}
	for (; a < end; a += b)
		__asm__ __volatile__("dc zva, %0" ::"r"(a) : "memory");
	dsb(ish);
}

/**
 * arch_scrub_clean_range() - zero [va, va+len) and clean it to PoC, each
 * block cleaned right after it is zeroed, one DSB at the end.
 * @va: start (page aligned).
 * @len: bytes (page multiple).
 * Return: true (the range is clean to PoC).
 */
bool arch_scrub_clean_range(void *va, size_t len)
{
	uintptr_t a = (uintptr_t)va, end = a + len;
	uintptr_t l = line_size();
	uintptr_t b = zva_block;

	if (!b || b > PAGE_SIZE)
		b = l;
	for (; a < end; a += b) {
		if (zva_block && zva_block <= PAGE_SIZE)
			__asm__ __volatile__("dc zva, %0" ::"r"(a) : "memory");
		else
			zero_stores(a, a + b);
		for (uintptr_t c = a; c < a + b; c += l)
			__asm__ __volatile__("dc cvac, %0" ::"r"(c) : "memory");
	}
	dsb(sy);
	return true;
}
