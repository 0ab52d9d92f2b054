/* SPDX-License-Identifier: MIT */
/*
 * The clocks of the heap's host benchmarks (tests/bench/heap_runtime.c,
 * heap_aging.c): thread CPU or monotonic ns, and a per-operation timer
 * (the TSC on x86_64, else the monotonic clock) with its ns per tick.
 */
#ifndef BENCH_CLOCK_H
#define BENCH_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The per-operation timer: the TSC on x86_64, else the monotonic clock. */
static inline uint64_t cycles(void)
{
#ifdef __x86_64__
	uint32_t lo, hi;

	__asm__ volatile("lfence; rdtsc; lfence"
			 : "=a"(lo), "=d"(hi)::"memory");
	return ((uint64_t)hi << 32) | lo;
#else
	return clock_ns(CLOCK_MONOTONIC);
#endif
}

/* ns per cycles() tick, against the monotonic clock over 50 ms. */
static inline double ns_per_cycle_measured(void)
{
	uint64_t c0 = cycles(), t0 = clock_ns(CLOCK_MONOTONIC), t1;

	do
		t1 = clock_ns(CLOCK_MONOTONIC);
	while (t1 - t0 < 50000000ull);
	return (double)(t1 - t0) / (double)(cycles() - c0);
}

#endif
