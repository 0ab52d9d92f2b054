/* SPDX-License-Identifier: MIT */
/*
 * Owner: selftest.
 * Stress with verification (stress=N seconds): every online CPU allocates
 * and frees random blocks on random nodes at once, stamps each block it
 * holds with a pattern naming the owner CPU and the pfn, and checks the
 * pattern before freeing. Two CPUs handed overlapping blocks, a block the
 * heap zeroed wrongly or a scrubber writing into allocated memory all show
 * up as corruptions. At the end every block is freed, heap_check() must
 * find nothing and the heap must hold as many free pages as before.
 */
#ifndef KEEL_STRESS_H
#define KEEL_STRESS_H

#include <keel/cpumask.h>
#include <keel/types.h>

struct jw;

/* Per CPU; written only by that CPU while it stresses. */
struct stress_cpu_stats {
	uint64_t ops; /* allocations + frees */
	uint64_t allocs, frees;
	uint64_t alloc_failures; /* heap_alloc() returned NULL */
	uint64_t bytes_verified; /* pattern bytes read back and compared */
	/* Pattern mismatches, non-zero clean blocks, invalid blocks. */
	uint64_t corruptions;
	/* Scrub steps that scrubbed a chunk (idle or re-scrub), their time. */
	uint64_t scrub_steps, scrub_ticks;
	/* Since the stress began: late when the CPU was still scrubbing. */
	uint64_t start_ticks;
	uint64_t ticks; /* time this CPU stressed (scrub_ticks included) */
	bool ran;
};

struct stress_stats {
	uint64_t seconds; /* requested */
	uint64_t ticks;	  /* wall time of stress_run() */
	uint64_t ops, allocs, frees, alloc_failures;
	uint64_t bytes_verified;
	uint64_t corruptions;
	uint64_t free_before, free_after; /* heap_stats_all(0).free_pages */
	/*
	 * false when a background idle scrub was still running at the start:
	 * chunks it had detached were missing from free_before, so only
	 * free_after >= free_before can be required.
	 */
	bool baseline_exact;
	bool zero_check;	    /* allocations were checked to read zero */
	unsigned int heap_problems; /* heap_check() after the run */
	unsigned int cpus;	    /* CPUs that ran */
	bool ran;
	const char *fail_reason; /* NULL when ok */
	/* cpu_count entries, from stress_init_cpus() (kept across runs). */
	struct stress_cpu_stats *cpu;
};

extern struct stress_stats stress_stats;

/*
 * stress_run(): stress every online CPU for @seconds (each CPU also does a
 * minimum number of operations), then free everything and audit. The boot
 * CPU must call it; other CPUs still busy (idle scrub) join when free.
 */
void stress_run(uint64_t seconds);

/*
 * stress_init_cpus(): allocate the per-CPU tables for cpu_count CPUs from
 * bootmem. After smp_init(), before the handoff.
 */
void stress_init_cpus(void);

/* Return: false when the last stress_run() found a problem. */
bool stress_ok(void);
/* Return: why stress_ok() is false ("stress: ..."), or NULL. */
const char *stress_fail_reason(void);

/*
 * Test hook: called on the freeing CPU just before a block's pattern is
 * verified (block [p, p + 2^order), stamped by @cpu). NULL in production.
 */
extern void (*stress_test_corrupt_hook)(unsigned int cpu, pfn_t p,
					unsigned int order);

#endif
