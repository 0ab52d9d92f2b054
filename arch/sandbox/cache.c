/* SPDX-License-Identifier: MIT */
/*
 * Sandbox arch hooks of <arch/cache.h>. A coherent host has no maintenance
 * to do, so each operation is counted (ops, bytes) and reported to an
 * optional observer, which is what the unit tests check.
 * arch_dcache_coherent() says false on purpose so that the maintenance
 * paths of common/ run here. The scrub's cleans (scrub.c) are counted here
 * too.
 */
#include <arch/cache.h>
#include <arch/mm.h>
#include <asm/sandbox.h>

#include "sandbox_priv.h"

static struct sandbox_cache_counters cc;
static void (*cache_observer)(paddr_t start, uint64_t len, bool invalidate);

static void observe(void *va, size_t len, bool invalidate)
{
	void (*fn)(paddr_t, uint64_t, bool) = cache_observer;

	if (fn)
		fn(sandbox_in_arena(va, len) ? arch_virt_to_phys(va)
					     : INVALID_PADDR,
		   len, invalidate);
}

/**
 * sandbox_cache_count_scrub_clean() - count one arch_scrub_clean_range().
 * @len: bytes zeroed and cleaned
 */
void sandbox_cache_count_scrub_clean(size_t len)
{
	__atomic_fetch_add(&cc.scrub_clean_ops, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&cc.scrub_clean_bytes, len, __ATOMIC_RELAXED);
}

/**
 * arch_clean_dcache_range() - counted clean to PoC.
 * @va: start
 * @len: bytes
 */
void arch_clean_dcache_range(void *va, size_t len)
{
	__atomic_fetch_add(&cc.clean_ops, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&cc.clean_bytes, len, __ATOMIC_RELAXED);
	observe(va, len, false);
}

/**
 * arch_clean_inval_dcache_range() - counted clean + invalidate to PoC.
 * @va: start
 * @len: bytes
 */
void arch_clean_inval_dcache_range(void *va, size_t len)
{
	__atomic_fetch_add(&cc.clean_inval_ops, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&cc.clean_inval_bytes, len, __ATOMIC_RELAXED);
	observe(va, len, true);
}

/**
 * arch_inval_icache_all() - counted I-cache invalidate.
 */
void arch_inval_icache_all(void)
{
	__atomic_fetch_add(&cc.icache_invals, 1, __ATOMIC_RELAXED);
}

/**
 * arch_dcache_coherent() - the sandbox pretends not to be coherent.
 *
 * Return: false, so that common/ exercises (and counts) maintenance.
 */
bool arch_dcache_coherent(void)
{
	return false;
}

/**
 * arch_dcache_line_size() - the line size maintenance is batched by.
 *
 * Return: 64.
 */
unsigned int arch_dcache_line_size(void)
{
	return 64;
}

/**
 * sandbox_cache_counters() - snapshot of the maintenance counters.
 * @out: filled
 */
void sandbox_cache_counters(struct sandbox_cache_counters *out)
{
	out->clean_ops = __atomic_load_n(&cc.clean_ops, __ATOMIC_RELAXED);
	out->clean_bytes = __atomic_load_n(&cc.clean_bytes, __ATOMIC_RELAXED);
	out->clean_inval_ops =
		__atomic_load_n(&cc.clean_inval_ops, __ATOMIC_RELAXED);
	out->clean_inval_bytes =
		__atomic_load_n(&cc.clean_inval_bytes, __ATOMIC_RELAXED);
	out->icache_invals =
		__atomic_load_n(&cc.icache_invals, __ATOMIC_RELAXED);
	out->scrub_clean_ops =
		__atomic_load_n(&cc.scrub_clean_ops, __ATOMIC_RELAXED);
	out->scrub_clean_bytes =
		__atomic_load_n(&cc.scrub_clean_bytes, __ATOMIC_RELAXED);
}

/**
 * sandbox_cache_counters_reset() - zero every counter.
 */
void sandbox_cache_counters_reset(void)
{
	__atomic_store_n(&cc.clean_ops, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&cc.clean_bytes, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&cc.clean_inval_ops, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&cc.clean_inval_bytes, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&cc.icache_invals, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&cc.scrub_clean_ops, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&cc.scrub_clean_bytes, 0, __ATOMIC_RELAXED);
}

/**
 * sandbox_set_cache_observer() - per-range callback for tests.
 * @fn: called with the physical range (INVALID_PADDR outside the arena)
 */
void sandbox_set_cache_observer(void (*fn)(paddr_t start, uint64_t len,
					   bool invalidate))
{
	cache_observer = fn;
}
