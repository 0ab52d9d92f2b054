/* SPDX-License-Identifier: MIT */
/*
 * Owner: selftest.
 * The heap at runtime under churn (churn=N seconds, DESIGN §15): every
 * online CPU creates and destroys domains of random sizes and allocates
 * and frees anonymous blocks of random orders for that long, timing each
 * operation. At the end every block is freed, the heap must hold exactly
 * as many free pages as before and heap_check() must find nothing; the
 * report's "churn" object gives the rates, the p50/p99 per operation,
 * node-lock acquisitions per operation and the fragmentation of free
 * memory at the start and at the end.
 */
#ifndef KEEL_CHURN_H
#define KEEL_CHURN_H

#include <keel/types.h>

struct keel_options;

/* Per CPU; written only by that CPU while it churns. */
struct churn_cpu_stats {
	uint64_t ops; /* allocs + frees + domains created + destroyed */
	uint64_t allocs, frees;	    /* anonymous blocks */
	uint64_t alloc_failures;    /* heap_alloc() returned NULL */
	uint64_t domains;	    /* created and destroyed */
	uint64_t domain_failures;   /* domain_build_private() failed */
	uint64_t node_locks;	    /* node-lock acquisitions while it ran */
	uint64_t domain_node_locks; /* of those, in domain create + destroy */
	uint64_t ticks;		    /* time this CPU churned */
	bool ran;
};

/* Free memory's shape: walked, per-CPU caches drained first. */
struct churn_frag {
	uint64_t free_pages;
	uint64_t free_2m_pages;	    /* in free chunks of 2 MiB and larger */
	unsigned int largest_order; /* of any free chunk */
};

struct churn_stats {
	uint64_t seconds; /* requested */
	uint64_t ticks;	  /* wall time of the churn (CPUs started to joined) */
	uint64_t ops, allocs, frees, alloc_failures;
	uint64_t domains, domain_failures, domain_problems;
	uint64_t node_locks, domain_node_locks;
	/* Anonymous block operations, one domain create + destroy: ticks. */
	uint64_t p50_ticks, p99_ticks;
	uint64_t domain_p50_ticks, domain_p99_ticks;
	struct churn_frag start, end;
	uint64_t free_before, free_after; /* free pages, exact */
	unsigned int heap_problems;	  /* heap_check() after the run */
	unsigned int cpus;		  /* CPUs that ran */
	bool ran;
	const char *fail_reason; /* NULL when ok */
	/* cpu_count entries, from churn_init_cpus(). */
	struct churn_cpu_stats *cpu;
};

extern struct churn_stats churn_stats;

/*
 * churn_init_cpus(): the per-CPU tables for cpu_count CPUs, from bootmem.
 * After smp_init(), before the handoff.
 */
void churn_init_cpus(void);

/*
 * churn_run(): churn every online CPU for @o->churn_seconds (each CPU does
 * a minimum number of operations even past the deadline), then free
 * everything, scrub what the domains left dirty (unless bootscrub=off)
 * and check. Boot CPU, every other CPU idle (after the idle scrub).
 */
void churn_run(const struct keel_options *o);

/* Return: false when the last churn_run() found a problem. */
bool churn_ok(void);
/* Return: why churn_ok() is false ("churn: ..."), or NULL. */
const char *churn_fail_reason(void);

#endif
