/* SPDX-License-Identifier: MIT */
/*
 * Arch hooks: cache maintenance by virtual address range. One barrier per
 * call, never per line. On coherent x86_64 common/mm/cachemaint.c calls them
 * only under a clflush policy (cachemaint_policy()). The
 * sandbox counts operations and bytes instead.
 */
#ifndef ARCH_CACHE_H
#define ARCH_CACHE_H

#include <keel/types.h>

/* Clean to the point of coherency (arm64 DC CVAC; x86 CLWB/CLFLUSHOPT). */
void arch_clean_dcache_range(void *va, size_t len);
/* Clean and invalidate to PoC (arm64 DC CIVAC; x86 CLFLUSHOPT/CLFLUSH). */
void arch_clean_inval_dcache_range(void *va, size_t len);
/* Invalidate the whole instruction cache (once per allocation when asked). */
void arch_inval_icache_all(void);
/* True when the platform needs no maintenance for DMA/guest coherency. */
bool arch_dcache_coherent(void);
/* Data cache line size in bytes (for reporting and batching). */
unsigned int arch_dcache_line_size(void);

#endif
