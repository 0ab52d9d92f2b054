/* SPDX-License-Identifier: MIT */
/*
 * The read-back of the pattern (lu_fill.c) in every image after the
 * first: every sampled word of every domain of the handover, restored or
 * failed (a failed domain's memory is untouched too, so it must match).
 *
 * The work goes to the CPUs of each domain's node, as the domain build
 * sends a domain's units to its node's CPUs (common/domain/domain_build.c):
 * one smp_run_on() of every online CPU; each CPU claims the extents of
 * the domains on its node one at a time from the domain's cursor (an
 * atomic add), so the node's CPUs share a domain and memory is read
 * where it lies. A domain whose node has no CPU online is read by the
 * CPUs of the node nearest its memory (numa_nearest_to(), as the scrub
 * picks a memory-only node's helpers); the boot CPU alone reads
 * everything when no other CPU is online.
 *
 * Lock: none; the cursors and the totals are atomics, the pages are the
 * domains' (nobody writes them while this runs).
 */
#include <arch/cpu.h>
#include <keel/atomic.h>
#include <keel/bootinfo.h>
#include <keel/cpumask.h>
#include <keel/handover.h>
#include <keel/numa.h>
#include <keel/smp.h>

#include "lu_priv.h"

struct verify_run {
	const struct bi_handover *h;
	const struct lu_sample *s;
	unsigned int boot_cpu;
	uint32_t reader[BI_HANDOVER_DOMAINS]; /* the node whose CPUs read it */
	uint32_t next[BI_HANDOVER_DOMAINS];   /* the next extent to claim */
	uint64_t words, bad;
	uint32_t cpus; /* CPUs that read at least one page */
};

/* Extent @k of domain @d read back into @t. */
static void verify_extent(const struct verify_run *r,
			  const struct bi_handover_domain *d, uint32_t k,
			  struct lu_tally *t)
{
	struct handover_extent e = handover_domain_extent(d, k);

	lu_extent_pages(r->s, d->id, e.gpa, e.pa, e.pages, k == 0,
			k + 1 == d->extent_count, lu_check_cb, t);
}

/* smp_run_on() worker: the extents of this CPU's node's domains. */
static void verify_worker(void *arg)
{
	struct verify_run *r = arg;
	unsigned int cpu = arch_cpu_id();
	uint32_t node = cpu_table[cpu].node;
	struct lu_tally t = {0, 0};

	for (unsigned int i = 0; i < r->h->domain_count; i++) {
		const struct bi_handover_domain *d = &r->h->domains[i];
		uint32_t k;

		if (r->reader[i] != node &&
		    !(r->reader[i] == NUMA_NO_NODE && cpu == r->boot_cpu))
			continue;
		while ((k = atomic_fetch_add(&r->next[i], 1)) < d->extent_count)
			verify_extent(r, d, k, &t);
	}
	atomic_fetch_add(&r->words, t.words);
	atomic_fetch_add(&r->bad, t.bad);
	if (t.words)
		atomic_fetch_add(&r->cpus, 1);
}

/** lu_verify_domains() - see lu_priv.h. Return: the CPUs that read. */
unsigned int lu_verify_domains(const struct bi_handover *h,
			       const struct lu_sample *s, uint64_t *words,
			       uint64_t *bad)
{
	struct verify_run r = {.h = h, .s = s, .boot_cpu = arch_cpu_id()};
	uint64_t with_cpus = 0;
	cpumask_t online;
	unsigned int cpu;

	smp_online_mask(&online);
	for_each_cpu_in (cpu, &online)
		if (cpu < cpu_count && cpu_table[cpu].node < 64)
			with_cpus |= 1ull << cpu_table[cpu].node;
	for (unsigned int i = 0; i < h->domain_count; i++)
		r.reader[i] = numa_nearest_to(h->domains[i].node, with_cpus);
	smp_run_on(&online, verify_worker, &r);
	*words += r.words;
	*bad += r.bad;
	return r.cpus;
}
