/* SPDX-License-Identifier: MIT */
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

#define for_each_cpu_in(cpu, mask)                \
	for ((cpu) = 0; (cpu) < NR_CPUS; (cpu)++) \
		if (cpumask_test((mask), (cpu)))

#endif
