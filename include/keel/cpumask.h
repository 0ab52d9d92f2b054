/* SPDX-License-Identifier: MIT */
/*
 * Owner: lib.
 * Sets of logical CPUs: a bit per CPU up to NR_CPUS (512 bytes at 4096).
 * Iteration skips empty words, so walking a sparse mask of a big build
 * costs its set bits plus NR_CPUS / 64 word tests, not NR_CPUS bit tests.
 */
#ifndef KEEL_CPUMASK_H
#define KEEL_CPUMASK_H

#include <keel/config.h>
#include <keel/types.h>

#define NR_CPUS	      CONFIG_NR_CPUS
#define CPUMASK_WORDS ((NR_CPUS + 63) / 64)

typedef struct {
	uint64_t bits[CPUMASK_WORDS];
} cpumask_t;

static inline void cpumask_clear(cpumask_t *m)
{
	for (unsigned int i = 0; i < CPUMASK_WORDS; i++)
		m->bits[i] = 0;
}

static inline void cpumask_set(cpumask_t *m, unsigned int cpu)
{
	m->bits[cpu / 64] |= 1ULL << (cpu % 64);
}

static inline void cpumask_clear_cpu(cpumask_t *m, unsigned int cpu)
{
	m->bits[cpu / 64] &= ~(1ULL << (cpu % 64));
}

static inline bool cpumask_test(const cpumask_t *m, unsigned int cpu)
{
	return (m->bits[cpu / 64] >> (cpu % 64)) & 1;
}

static inline unsigned int cpumask_weight(const cpumask_t *m)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < CPUMASK_WORDS; i++)
		n += __builtin_popcountll(m->bits[i]);
	return n;
}

/* Return: the lowest CPU >= @cpu in @m, or NR_CPUS when there is none. */
static inline unsigned int cpumask_next(const cpumask_t *m, unsigned int cpu)
{
	unsigned int w = cpu / 64;
	uint64_t bits;

	if (cpu >= NR_CPUS)
		return NR_CPUS;
	bits = m->bits[w] & (~0ULL << (cpu % 64));
	while (!bits) {
		if (++w == CPUMASK_WORDS)
			return NR_CPUS;
		bits = m->bits[w];
	}
	return w * 64 + (unsigned int)__builtin_ctzll(bits);
}

#define for_each_cpu_in(cpu, mask)                             \
	for ((cpu) = cpumask_next((mask), 0); (cpu) < NR_CPUS; \
	     (cpu) = cpumask_next((mask), (cpu) + 1))

#endif
