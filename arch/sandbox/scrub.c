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
#include <keel/scrub_prims.h>
#include <keel/string.h>

#include "sandbox_priv.h"

/*
 * The host's ways of zeroing, chosen by the boot-time calibration
 * (common/scrub.c) like on hardware. On x86 hosts: a 16-byte streaming-store
 * loop (the default: glibc's memset only switches to non-temporal stores
 * above a fraction of the LLC, so for the units a scrub mostly sees it is
 * about twice as fast), 8-byte movnti, 32-byte vmovntdq when the host has
 * AVX, rep stosb, memset. Elsewhere memset only.
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

static struct scrub_prims prims;

static void scrub_prims_probe(void)
{
	if (prims.count)
		return;
#if defined(__x86_64__)
	scrub_prims_add(&prims, "movntdq", zero_movntdq);
	scrub_prims_add(&prims, "movnti", zero_movnti);
	if (__builtin_cpu_supports("avx"))
		scrub_prims_add(&prims, "vmovntdq", zero_vmovntdq);
	scrub_prims_add(&prims, "rep stosb", zero_rep_stosb);
#endif
	scrub_prims_add(&prims, "memset", zero_memset);
}

static void scrub_stream(void *va, size_t len)
{
	scrub_prims_probe();
	prims.zero[prims.cur](va, len);
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

/**
 * arch_scrub_range() - zero [va, va+len) with streaming stores.
 * @va: page aligned
 * @len: page multiple
 */
void arch_scrub_range(void *va, size_t len)
{
	scrub_prepare(va, len);
	scrub_stream(va, len);
	observe_scrub(va, len, false);
}

/**
 * arch_scrub_clean_range() - zero and (count one) clean to PoC.
 * @va: page aligned
 * @len: page multiple
 *
 * Return: true (the range is clean to PoC).
 */
bool arch_scrub_clean_range(void *va, size_t len)
{
	scrub_prepare(va, len);
	scrub_stream(va, len);
	observe_scrub(va, len, true);
	sandbox_cache_count_scrub_clean(len);
	return true;
}

/**
 * arch_scrub_init() - list the host's primitives (the first is the default).
 */
void arch_scrub_init(void)
{
	scrub_prims_probe();
	prims.cur = 0;
}

/**
 * arch_scrub_candidates() - the host's primitives, the default first.
 * @names: out: their names
 * @max: room in @names
 *
 * Return: how many were stored (at least 1 when @max is).
 */
unsigned int arch_scrub_candidates(const char **names, unsigned int max)
{
	scrub_prims_probe();
	return scrub_prims_names(&prims, names, max);
}

/**
 * arch_scrub_probe() - zero [va, va+len) with candidate @idx, as
 * arch_scrub_clean_range() would (the clean is not counted: the
 * calibration is no scrub, and the scrub zeroes the range again).
 * @idx: index into arch_scrub_candidates()
 * @va: page aligned
 * @len: page multiple
 */
void arch_scrub_probe(unsigned int idx, void *va, size_t len)
{
	scrub_prims_probe();
	scrub_prepare(va, len);
	prims.zero[scrub_prims_pick(&prims, idx)](va, len);
}

/**
 * arch_scrub_select() - use candidate @idx from now on.
 * @idx: index into arch_scrub_candidates(); out of range keeps the default
 */
void arch_scrub_select(unsigned int idx)
{
	scrub_prims_probe();
	prims.cur = scrub_prims_pick(&prims, idx);
}

/**
 * arch_scrub_primitive() - name for the report.
 *
 * Return: the selected primitive ("movntdq", "memset", ...).
 */
const char *arch_scrub_primitive(void)
{
	scrub_prims_probe();
	return prims.name[prims.cur];
}
