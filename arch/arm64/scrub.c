/* SPDX-License-Identifier: MIT */
/*
 * arm64 arch hooks of <arch/scrub.h>: the scrub primitive (DESIGN §6).
 *
 * arch_scrub_clean_range() zeroes one block (a DC ZVA block, or 256 bytes
 * of stores) and immediately cleans its lines to PoC while they are still
 * in the cache, so the clean costs no extra memory read; one DSB at the end
 * makes the whole range clean. The primitives are a const table; which
 * one runs is common/lib/scrub_prims.c's choice (the calibration's). The
 * line and block sizes are cache.c's, copied here once.
 */
#include <arch/cache.h>
#include <arch/scrub.h>
#include <asm/arm64.h>
#include <keel/compiler.h>

static unsigned int dline;     /* D-cache line, bytes */
static unsigned int zva_block; /* DC ZVA block, bytes; 0 = prohibited */

/*
 * Scrub primitives, timed by the boot-time calibration
 * (common/scrub/scrub_calib.c):
 *   dc zva   zero a DCZID_EL0 block (when DZP is clear and the block is at
 *            most a page)
 *   stnp q   non-temporal pairs of zeroed q registers, 64 bytes a step
 *            (FP/SIMD is enabled by head.S on every CPU)
 *   stp      pairs of xzr, 64 bytes a step (a memset-style loop)
 * Each zeroes a block and cleans its lines to PoC at once (DESIGN §6).
 */
enum zero_prim { ZERO_DC_ZVA, ZERO_STNP_Q, ZERO_STP };

/* The sizes, read once (any CPU: they are the same on every one). */
static void sizes_probe(void)
{
	if (dline)
		return;
	zva_block = arm64_zva_block();
	dline = arch_dcache_line_size();
}

static void zero_stores(uintptr_t a, uintptr_t end)
{
	for (; a < end; a += 64)
		__asm__ __volatile__("stp xzr, xzr, [%0]\n\t"
				     "stp xzr, xzr, [%0, #16]\n\t"
				     "stp xzr, xzr, [%0, #32]\n\t"
				     "stp xzr, xzr, [%0, #48]" ::"r"(a)
				     : "memory");
}

/* q0 and q1 must be zero (zero_q_setup()). */
static void zero_stnp_q(uintptr_t a, uintptr_t end)
{
	for (; a < end; a += 64)
		__asm__ __volatile__("stnp q0, q1, [%0]\n\t"
				     "stnp q0, q1, [%0, #32]" ::"r"(a)
				     : "memory");
}

static void zero_q_setup(void)
{
	__asm__ __volatile__("movi v0.2d, #0\n\t"
			     "movi v1.2d, #0" ::
				     : "memory");
}

/* Zero [a, a + b) with @p: one DC ZVA block, or stores. */
static inline void zero_block(enum zero_prim p, uintptr_t a, uintptr_t b)
{
	switch (p) {
	case ZERO_DC_ZVA:
		for (uintptr_t z = a; z < a + b; z += zva_block)
			__asm__ __volatile__("dc zva, %0" ::"r"(z) : "memory");
		break;
	case ZERO_STNP_Q:
		zero_stnp_q(a, a + b);
		break;
	case ZERO_STP:
		zero_stores(a, a + b);
		break;
	}
}

/* The step of a primitive: a ZVA block, or 256 bytes; whole lines. */
static uintptr_t zero_step(enum zero_prim p)
{
	uintptr_t l = dline;

	if (p == ZERO_DC_ZVA)
		return MAX((uintptr_t)zva_block, l);
	return MAX((uintptr_t)256, l);
}

static void scrub_clean_with(enum zero_prim p, void *va, size_t len)
{
	uintptr_t a = (uintptr_t)va, end = a + len;
	uintptr_t l = dline, b = zero_step(p);

	if (p == ZERO_STNP_Q)
		zero_q_setup();
	for (; a < end; a += b) {
		zero_block(p, a, b);
		for (uintptr_t c = a; c < a + b; c += l)
			__asm__ __volatile__("dc cvac, %0" ::"r"(c) : "memory");
	}
	dsb(sy);
}

/* zero and zero_clean of primitive @p. */
static void zero_range_with(enum zero_prim p, void *va, size_t len)
{
	sizes_probe();
	if (p == ZERO_STNP_Q)
		zero_q_setup();
	zero_block(p, (uintptr_t)va, len);
	dsb(ish);
}

#define ARM64_PRIM(fn, p)                            \
	static void fn##_range(void *va, size_t len) \
	{                                            \
		zero_range_with(p, va, len);         \
	}                                            \
	static void fn##_clean(void *va, size_t len) \
	{                                            \
		sizes_probe();                       \
		scrub_clean_with(p, va, len);        \
	}

ARM64_PRIM(dc_zva, ZERO_DC_ZVA)
ARM64_PRIM(stnp_q, ZERO_STNP_Q)
ARM64_PRIM(stp, ZERO_STP)

/* DC ZVA is allowed (DCZID_EL0.DZP clear) and its block fits a page. */
static bool zva_usable(void)
{
	sizes_probe();
	return zva_block && zva_block <= PAGE_SIZE;
}

static const struct arch_scrub_prim prims[] = {
	{"dc zva", dc_zva_range, dc_zva_clean, zva_usable},
	{"stnp q", stnp_q_range, stnp_q_clean, NULL},
	{"stp", stp_range, stp_clean, NULL},
};

/**
 * arch_scrub_prims() - the table, dc zva (the default when allowed) first.
 * @table: out: the primitives
 *
 * Return: how many.
 */
unsigned int arch_scrub_prims(const struct arch_scrub_prim **table)
{
	*table = prims;
	return ARRAY_SIZE(prims);
}

/**
 * arch_scrub_init() - read the cache line and DC ZVA block sizes.
 */
void arch_scrub_init(void)
{
	arm64_cache_probe();
	dline = 0;
	sizes_probe();
}
