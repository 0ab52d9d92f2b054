/* SPDX-License-Identifier: MIT */
/*
 * The latency probe's run state (common/irq/latency.c), and what its unit
 * test drives the handler with. The report reads the results through
 * latency_stats() (keel/latency.h), never this. Not an interface.
 */
#ifndef COMMON_LATENCY_PRIV_H
#define COMMON_LATENCY_PRIV_H

#include <keel/cachemaint.h>
#include <keel/domain.h>
#include <keel/latency.h>

#define LAT_MIN_SAMPLES 1000
#define LAT_MIN_MS	100
/* A phase whose timer stopped firing ends here (and shows it). */
#define LAT_MAX_MS 20000
/* The build-local domain (and build-remote's largest probe-owned one), and
 * when build-local starts no more. */
#define LAT_DOMAIN_BYTES (1ull << 30)
/* latency.load: build-remote's domains (build-local: domain_build_local). */
#define LAT_LOAD_CMDLINE "local+remote-domain="
#define LAT_LOAD_PROBE	 "local+remote-probe-domains"
#define LAT_BUILD_MS	 2000
/* latency_period= bounds, us. */
#define LAT_PERIOD_MIN_US 10
#define LAT_PERIOD_MAX_US 1000000

/*
 * One latency_run(): what its phases need, made from the options it is
 * handed and handed down to them (the mailbox functions get it as their
 * argument, the timer handler through lat_attach()).
 */
struct lat_run {
	struct latency_stats *st;	    /* the results */
	uint64_t period;		    /* ticks */
	volatile uint64_t deadline;	    /* the armed one (probe CPU only) */
	struct latency_phase *volatile cur; /* the running phase, or NULL */
	/* The handler samples and re-arms (probe CPU only, probe_fn()). */
	volatile bool sampling;
	uint32_t stop; /* the phase is over (atomic) */
	/*
	 * The loads' builds: bootscrub=, domains_trust=, their problems, and
	 * the running phase's cache maintenance policy (ctx.maint = &maint,
	 * set between phases), counted in the run's own sink: the boot's
	 * policy and counters are never touched.
	 */
	struct domain_ctx ctx;
	struct cachemaint maint;
	struct cachemaint_stats maint_stats;
	/* build-remote's domain= domains, each on the plan's node. */
	const struct domain_spec *load_spec;
	unsigned int load_count;
	uint32_t load_node[DOMAIN_MAX];
};

/* The run the timer handler serves (NULL: none, it ignores the timer). */
void lat_attach(struct lat_run *r);

#endif
