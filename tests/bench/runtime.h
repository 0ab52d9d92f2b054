/* SPDX-License-Identifier: MIT */
/*
 * tests/bench/heap_runtime (issue 37): what its files share. The host's
 * hooks (tests/embed/host.c, tests/embed's own), the reference allocator
 * compiled only into the benchmark (runtime_ref.c) and the benchmark
 * (heap_runtime.c).
 */
#ifndef BENCH_RUNTIME_H
#define BENCH_RUNTIME_H

#include <keel/hooks.h>

#include "../embed/embed.h"

/*
 * The host's hooks are tests/embed/host.c, the same as tests/embed's
 * (embed.h: the region, the CPU of each thread, the host's lock and its
 * counts by kind); the region lies at EMBED_PHYS_BASE (not at 0).
 */
#define RT_PHYS_BASE EMBED_PHYS_BASE

/* The reference: one free list per order, one global lock (the host's). */
#define REF_MAX_ORDER 18
int ref_open(uint64_t pages);
uint64_t ref_alloc(unsigned int order); /* a pfn, or REF_NONE */
void ref_free(uint64_t pfn, unsigned int order);
uint64_t ref_free_pages(void);
bool ref_whole(void); /* all free, merged as at ref_open() */
#define REF_NONE (~0ull)

#endif
