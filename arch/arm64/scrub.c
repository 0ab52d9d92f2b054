/* SPDX-License-Identifier: MIT */
/*
 * arm64 arch hooks of <arch/scrub.h>: the scrub primitive (DESIGN §6).
 *
 * arch_scrub_clean_range() zeroes one block (a DC ZVA block, or 256 bytes
 * of stores) and immediately cleans its lines to PoC while they are still
 * in the cache, so the clean costs no extra memory read; one DSB at the end
 * makes the whole range clean. The primitive is chosen by the calibration
 * (arch_scrub_select()) on the boot CPU before any worker runs. The line
 * and block sizes are cache.c's, copied here when the primitives are
 * listed.
 */
#include <arch/cache.h>
#include <arch/scrub.h>
#include <asm/arm64.h>
#include <keel/compiler.h>

static unsigned int dline;     /* D-cache line, bytes */
static unsigned int zva_block; /* DC ZVA block, bytes; 0 = prohibited */

/*
 * Scrub primitives, timed by the boot-time calibration (common/scrub.c):
 *   dc zva   zero a DCZID_EL0 block (when DZP is clear and the block is at
 *            most a page)
 *   stnp q   non-temporal pairs of zeroed q registers, 64 bytes a step
 *            (FP/SIMD is enabled by head.S on every CPU)
 *   stp      pairs of xzr, 64 bytes a step (a memset-style loop)
 * Each zeroes a block and cleans its lines to PoC at once (DESIGN §6).
 */
enum zero_prim { ZERO_DC_ZVA, ZERO_STNP_Q, ZERO_STP };

static const char *const prim_names[] = {
	[ZERO_DC_ZVA] = "dc zva",
	[ZERO_STNP_Q] = "stnp q",
	[ZERO_STP] = "stp",
};

static enum zero_prim prims[3];
static unsigned int prim_count, prim_cur;

static void prims_probe(void)
{
	dline = arch_dcache_line_size();
	zva_block = arm64_zva_block();
	prim_count = 0;
	if (zva_block && zva_block <= PAGE_SIZE)
		prims[prim_count++] = ZERO_DC_ZVA;
	prims[prim_count++] = ZERO_STNP_Q;
	prims[prim_count++] = ZERO_STP;
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

/**
 * arch_scrub_init() - read the line and DC ZVA block sizes, list the
 * primitives (dc zva first when allowed).
 */
void arch_scrub_init(void)
{
	arm64_cache_probe();
	prims_probe();
	prim_cur = 0;
}

/**
 * arch_scrub_candidates() - the primitives this CPU may use, the default
 * first.
 * @names: out: their names
 * @max: room in @names
 *
 * Return: how many were stored.
 */
unsigned int arch_scrub_candidates(const char **names, unsigned int max)
{
	unsigned int n;

	if (!prim_count)
		prims_probe();
	n = MIN(prim_count, max);
	for (unsigned int i = 0; i < n; i++)
		names[i] = prim_names[prims[i]];
	return n;
}

/**
 * arch_scrub_probe() - zero and clean [va, va+len) with candidate @idx.
 * @idx: index into arch_scrub_candidates() (out of range: the default)
 * @va: page aligned
 * @len: page multiple
 */
void arch_scrub_probe(unsigned int idx, void *va, size_t len)
{
	if (!prim_count)
		prims_probe();
	scrub_clean_with(prims[idx < prim_count ? idx : 0], va, len);
}

/**
 * arch_scrub_select() - use candidate @idx from now on.
 * @idx: index into arch_scrub_candidates() (out of range: the default)
 */
void arch_scrub_select(unsigned int idx)
{
	if (!prim_count)
		prims_probe();
	prim_cur = idx < prim_count ? idx : 0;
}

/**
 * arch_scrub_primitive() - the name of the primitive in use.
 * Return: "dc zva", "stnp q" or "stp".
 */
const char *arch_scrub_primitive(void)
{
	if (!prim_count)
		prims_probe();
	return prim_names[prims[prim_cur]];
}

/**
 * arch_scrub_range() - zero [va, va+len) (page aligned) with the selected
 * primitive; no cleaning.
 * @va: start.
 * @len: bytes.
 */
void arch_scrub_range(void *va, size_t len)
{
	enum zero_prim p;

	if (!prim_count)
		prims_probe();
	p = prims[prim_cur];
	if (p == ZERO_STNP_Q)
		zero_q_setup();
	zero_block(p, (uintptr_t)va, len);
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
	if (!prim_count)
		prims_probe();
	scrub_clean_with(prims[prim_cur], va, len);
	return true;
}
