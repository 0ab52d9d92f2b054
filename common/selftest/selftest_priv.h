/* SPDX-License-Identifier: MIT */
/*
 * What the runs of the selftest room share (stress.c, churn.c): a per-CPU
 * random choice generator and the heap's free pages read under each node
 * lock. Not an interface: nothing outside common/selftest/ includes it.
 */
#ifndef COMMON_SELFTEST_PRIV_H
#define COMMON_SELFTEST_PRIV_H

#include <keel/types.h>

/* xorshift64*: small, no state beyond one word, good enough for choices. */
static inline uint64_t selftest_rnd(uint64_t *state)
{
	uint64_t x = *state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * 0x2545f4914f6cdd1dull;
}

/* A seed for CPU @cpu at time @t0: different per CPU, never 0. */
static inline uint64_t selftest_seed(unsigned int cpu, uint64_t t0)
{
	uint64_t s = ((uint64_t)(cpu + 1) * 0x9e3779b97f4a7c15ull) ^ t0;

	return s ? s : 1;
}

/*
 * The heap's free pages, each node's counter read under its lock (an idle
 * scrub may be detaching chunks: heap_free_pages() would race).
 */
uint64_t selftest_free_pages_locked(void);

#endif
