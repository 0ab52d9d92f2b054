/* SPDX-License-Identifier: MIT */
/*
 * Sandbox arch hooks of <arch/scrub.h>: the host's ways of zeroing, with an
 * optional observer of every zeroed range for the tests
 * (sandbox_set_scrub_observer()).
 */
#include <arch/mm.h>
#include <arch/scrub.h>
#include <asm/os.h>
#include <asm/sandbox.h>
#include <keel/compiler.h>
#include <keel/string.h>

#include "sandbox_priv.h"

/*
 * The host's ways of zeroing, chosen by the boot-time calibration
 * (common/scrub/scrub_calib.c) like on hardware. On x86 hosts: a 16-byte
  * streaming-store loop (the default: glibc's memset only switches to
   * non-temporal stores above a fraction of the LLC, so for the units a scrub
    * mostly sees it is about twice as fast), 8-byte movnti, 32-byte vmovntdq
     * when the host has AVX, rep stosb, memset. Elsewhere memset only.
 */

#if defined(__x86_64__)
/* The compiler's intrinsics for the streaming stores, not libc (though it
 * pulls in <stdlib.h> for _mm_malloc(), which nothing here calls). */
#include <immintrin.h>

static void zero_movntdq(void *va, size_t len)
{
	__m128i zero = _mm_setzero_si128();
	char *p = va;

	for (size_t i = 0; i < len; i += 64) {
		_mm_stream_si128((__m128i *)(p + i), zero);
		_mm_stream_si128((__m128i *)(p + i + 16), zero);
		_mm_stream_si128((__m128i *)(p + i + 32), zero);
		_mm_stream_si128((__m128i *)(p + i + 48), zero);
	}
	/* Streaming stores are weakly ordered: publish them before return. */
	_mm_sfence();
}

static void zero_movnti(void *va, size_t len)
{
	long long *p = va;

	for (size_t i = 0; i < len / 8; i += 4) {
		_mm_stream_si64(p + i, 0);
		_mm_stream_si64(p + i + 1, 0);
		_mm_stream_si64(p + i + 2, 0);
		_mm_stream_si64(p + i + 3, 0);
	}
	_mm_sfence();
}

__attribute__((target("avx"))) static void zero_vmovntdq(void *va, size_t len)
{
	__m256i zero = _mm256_setzero_si256();
	char *p = va;

	for (size_t i = 0; i < len; i += 64) {
		_mm256_stream_si256((__m256i *)(p + i), zero);
		_mm256_stream_si256((__m256i *)(p + i + 32), zero);
	}
	_mm_sfence();
	_mm256_zeroupper();
}

static void zero_rep_stosb(void *va, size_t len)
{
	__asm__ __volatile__("rep stosb"
			     : "+D"(va), "+c"(len)
			     : "a"(0)
			     : "memory");
}
#endif

static void zero_memset(void *va, size_t len)
{
	memset(va, 0, len);
}

/*
 * The first touch of an arena page is what the host pays for in a sandbox
 * scrub; 2 MiB pages make it about twice as cheap. Only ranges about to be
 * written whole get them: the rest of the arena (frame table, sparse RAM)
 * must keep costing 4 KiB per touched page. Hosts without THP refuse the
 * advice, which is harmless.
 */
static void scrub_prepare(void *va, size_t len)
{
	if (len >= (2u << 20))
		os_advise_hugepage(va, len);
}

static void (*scrub_observer)(paddr_t start, uint64_t len, bool clean);

/**
 * sandbox_set_scrub_observer() - per-range callback for tests.
 * @fn: called with the physical range after it was zeroed
 */
void sandbox_set_scrub_observer(void (*fn)(paddr_t start, uint64_t len,
					   bool clean))
{
	scrub_observer = fn;
}

static void observe_scrub(void *va, size_t len, bool clean)
{
	void (*fn)(paddr_t, uint64_t, bool) = scrub_observer;

	if (fn && sandbox_in_arena(va, len))
		fn(arch_virt_to_phys(va), len, clean);
}

/* Zero with @fn as a scrub does: 2 MiB pages, observed, cleans counted. */
static void sandbox_zero(void (*fn)(void *, size_t), void *va, size_t len,
			 bool clean)
{
	scrub_prepare(va, len);
	fn(va, len);
	observe_scrub(va, len, clean);
	if (clean)
		sandbox_cache_count_scrub_clean(len);
}

/* A primitive's two entries around the raw loop zero_<name>(). */
#define SANDBOX_PRIM(fn)                                 \
	static void fn##_range(void *va, size_t len)     \
	{                                                \
		sandbox_zero(zero_##fn, va, len, false); \
	}                                                \
	static void fn##_clean(void *va, size_t len)     \
	{                                                \
		sandbox_zero(zero_##fn, va, len, true);  \
	}

#define PRIM(name, fn)                             \
	{                                          \
		name, fn##_range, fn##_clean, NULL \
	}

SANDBOX_PRIM(memset)
#if defined(__x86_64__)
SANDBOX_PRIM(movntdq)
SANDBOX_PRIM(movnti)
SANDBOX_PRIM(vmovntdq)
SANDBOX_PRIM(rep_stosb)

static bool host_has_avx(void)
{
	return __builtin_cpu_supports("avx");
}
#endif

static const struct arch_scrub_prim prims[] = {
#if defined(__x86_64__)
	PRIM("movntdq", movntdq),
	PRIM("movnti", movnti),
	{"vmovntdq", vmovntdq_range, vmovntdq_clean, host_has_avx},
	PRIM("rep stosb", rep_stosb),
#endif
	PRIM("memset", memset),
};

/**
 * arch_scrub_prims() - the host's ways of zeroing, the default first.
 * @table: out: the primitives
 *
 * Return: how many.
 */
unsigned int arch_scrub_prims(const struct arch_scrub_prim **table)
{
	*table = prims;
	return ARRAY_SIZE(prims);
}

/** arch_scrub_init() - nothing to enable on the host. */
void arch_scrub_init(void)
{
}
