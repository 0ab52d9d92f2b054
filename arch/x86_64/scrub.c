/* SPDX-License-Identifier: MIT */
/*
 * x86_64 arch hooks of <arch/scrub.h>: the zeroing instructions this arch
 * has, as a const table (the calibration in common/scrub/scrub_calib.c times
 * them and common/lib/scrub_prims.c keeps the choice). Each touches only
 * registers and the range it was given, so every CPU may run any of them
 * at once.
 *
 * arch_scrub_init() also has cache.c choose (and print) its maintenance
 * instructions.
 */
#include <arch/scrub.h>
#include <asm/x86.h>
#include <keel/compiler.h>
#include <keel/cpumask.h>
#include <keel/printk.h>
#include <keel/smp.h>

/*
 * Scrub primitives: every zeroing instruction this CPU may have, timed by
 * the boot-time calibration (common/scrub/scrub_calib.c), which selects one:
 *   movnti     8-byte non-temporal stores (every x86_64 CPU)
 *   movntdq    16-byte non-temporal stores (SSE2: every x86_64 CPU)
 *   vmovntdq   32-byte non-temporal stores (AVX: CPUID.1:ECX[28] with
 *              XSAVE, [26]; arch_scrub_init() sets CR4.OSXSAVE and XCR0's
 *              SSE and AVX bits on every online CPU first)
 *   clzero     AMD's zero-a-line (CPUID 0x80000008:EBX[0])
 *   rep stosb  one instruction; fast with ERMS (CPUID.7:EBX[9]) / FSRM
 *              (CPUID.7:EDX[4]), emulated byte by byte under QEMU TCG
 * Non-temporal ones and clzero are weakly ordered: each range ends in
 * SFENCE. keel is built without SSE (-mno-sse), so no compiler-generated
 * code uses the vector registers these loops clobber.
 */

static void zero_movnti(void *va, size_t len)
{
	uint64_t *p = va;

	for (size_t i = 0; i < len / 8; i += 4) {
		__asm__ __volatile__("movnti %1, (%0)\n\t"
				     "movnti %1, 8(%0)\n\t"
				     "movnti %1, 16(%0)\n\t"
				     "movnti %1, 24(%0)"
				     :
				     : "r"(p + i), "r"(0ULL)
				     : "memory");
	}
	__asm__ __volatile__("sfence" ::: "memory");
}

static void zero_movntdq(void *va, size_t len)
{
	char *p = va;

	__asm__ __volatile__("pxor %%xmm0, %%xmm0" ::: "memory");
	for (size_t i = 0; i < len; i += 64)
		__asm__ __volatile__("movntdq %%xmm0, (%0)\n\t"
				     "movntdq %%xmm0, 16(%0)\n\t"
				     "movntdq %%xmm0, 32(%0)\n\t"
				     "movntdq %%xmm0, 48(%0)"
				     :
				     : "r"(p + i)
				     : "memory");
	__asm__ __volatile__("sfence" ::: "memory");
}

static void zero_vmovntdq(void *va, size_t len)
{
	char *p = va;

	__asm__ __volatile__("vpxor %%xmm0, %%xmm0, %%xmm0" ::: "memory");
	for (size_t i = 0; i < len; i += 128)
		__asm__ __volatile__("vmovntdq %%ymm0, (%0)\n\t"
				     "vmovntdq %%ymm0, 32(%0)\n\t"
				     "vmovntdq %%ymm0, 64(%0)\n\t"
				     "vmovntdq %%ymm0, 96(%0)"
				     :
				     : "r"(p + i)
				     : "memory");
	__asm__ __volatile__("sfence\n\tvzeroupper" ::: "memory");
}

static void zero_clzero(void *va, size_t len)
{
	char *p = va;

	/* clzero zeroes the 64-byte line rAX points into. */
	for (size_t i = 0; i < len; i += 64)
		__asm__ __volatile__(".byte 0x0f, 0x01, 0xfc"
				     :
				     : "a"(p + i)
				     : "memory");
	__asm__ __volatile__("sfence" ::: "memory");
}

static void zero_rep_stosb(void *va, size_t len)
{
	__asm__ __volatile__("rep stosb"
			     : "+D"(va), "+c"(len)
			     : "a"(0)
			     : "memory");
}

#define X86_CR4_OSXSAVE	 (1ul << 18)
#define XCR0_X87_SSE_AVX 0x7u

/* AVX usable once XCR0 allows it: the CPU has AVX, XSAVE and YMM state. */
static bool avx_possible(void)
{
	struct cpuid_regs l1 = cpuid(1, 0);

	if (!(l1.ecx & (1u << 26)) || !(l1.ecx & (1u << 28)) ||
	    cpuid(0, 0).eax < 0xd)
		return false;
	return (cpuid(0xd, 0).eax & 0x6) == 0x6;
}

/* On every online CPU: CR4.OSXSAVE, then XCR0 |= x87 | SSE | AVX. */
static void avx_enable_cpu(void *arg)
{
	unsigned long cr4;
	uint32_t lo, hi;

	(void)arg;
	__asm__ __volatile__("mov %%cr4, %0" : "=r"(cr4));
	if (!(cr4 & X86_CR4_OSXSAVE))
		__asm__ __volatile__(
			"mov %0, %%cr4" ::"r"(cr4 | X86_CR4_OSXSAVE));
	__asm__ __volatile__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	lo |= XCR0_X87_SSE_AVX;
	__asm__ __volatile__("xsetbv" ::"a"(lo), "d"(hi), "c"(0));
}

/* After avx_enable_cpu(): does this CPU run AVX now? */
static bool avx_enabled(void)
{
	uint32_t lo, hi;

	if (!(cpuid(1, 0).ecx & (1u << 27)))
		return false;
	__asm__ __volatile__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	return (lo & 0x6) == 0x6;
}

static bool have_clzero(void)
{
	return cpuid(0x80000000, 0).eax >= 0x80000008 &&
	       (cpuid(0x80000008, 0).ebx & 1);
}

/* Coherent: zeroing is all a clean to PoC needs. */
static const struct arch_scrub_prim prims[] = {
	{"movnti", zero_movnti, zero_movnti, NULL},
	{"movntdq", zero_movntdq, zero_movntdq, NULL},
	{"vmovntdq", zero_vmovntdq, zero_vmovntdq, avx_enabled},
	{"clzero", zero_clzero, zero_clzero, have_clzero},
	{"rep stosb", zero_rep_stosb, zero_rep_stosb, NULL},
};

/**
 * arch_scrub_prims() - the table, movnti (the default) first.
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
 * arch_scrub_init() - enable AVX state on every online CPU when the CPU
 * has AVX (vmovntdq), say which primitives it has, and choose the cache
 * maintenance instructions.
 */
void arch_scrub_init(void)
{
	struct cpuid_regs l7 = {0};
	cpumask_t online;

	if (cpuid(0, 0).eax >= 7)
		l7 = cpuid(7, 0);
	if (avx_possible()) {
		smp_online_mask(&online);
		smp_run_on(&online, avx_enable_cpu, NULL);
	}
	pr_info("scrub: this CPU has movnti, movntdq%s%s, rep stosb "
		"(ERMS %s, FSRM %s)\n",
		avx_enabled() ? ", vmovntdq" : "",
		have_clzero() ? ", clzero" : "",
		l7.ebx & (1u << 9) ? "yes" : "no",
		l7.edx & (1u << 4) ? "yes" : "no");
	x86_cache_setup();
}
