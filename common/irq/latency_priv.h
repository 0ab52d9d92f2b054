/* SPDX-License-Identifier: MIT */
/*
 * The latency probe's state, shared by common/latency.c (the probe) and
 * common/latency_report.c (the report). Not an interface.
 */
#ifndef COMMON_LATENCY_PRIV_H
#define COMMON_LATENCY_PRIV_H

#include <keel/cachemaint.h>
#include <keel/latency.h>

#define LAT_MIN_SAMPLES 1000
#define LAT_MIN_MS	100
/* A phase whose timer stopped firing ends here (and shows it). */
#define LAT_MAX_MS 20000
/* Buckets up to 2^LAT_MAX_LOG2 ns (about 18 minutes); above: the last. */
#define LAT_MAX_LOG2   40
#define LAT_BUCKETS    (4 * LAT_MAX_LOG2 + 4)
#define LAT_MAX_PHASES 5
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

struct lat_phase {
	const char *name;
	enum cachemaint_mode mode; /* asked for; then the one in force */
	bool remote, local;	   /* load on the other CPUs / the probe CPU */
	bool ran;
	unsigned int builds; /* domains built: probe CPU or the load CPUs */
	int build_err;	     /* the last one's error, 0 */
	uint64_t samples, min_ns, max_ns;
	uint64_t max_at;      /* the worst sample's deadline (arch_ticks()) */
	uint64_t ticks;	      /* the phase's length */
	uint64_t irqsoff_max; /* ticks */
	const char *irqsoff_site;
	uint32_t hist[LAT_BUCKETS];
};

struct lat_state {
	bool requested;		 /* latency=on */
	const char *unsupported; /* why there is no probe, or NULL */
	const char *load;	 /* latency.load */
	const char *timer_mode;
	unsigned int cpu;	/* the probe CPU */
	unsigned int max_order; /* the stand-in load's largest block */
	uint64_t domain_bytes;	/* build-local's domain */
	uint64_t remote_bytes;	/* build-remote's, without domain= words */
	uint64_t period, period_ns;
	volatile uint64_t deadline; /* the armed one (probe CPU only) */
	enum cachemaint_mode boot_mode;
	struct lat_phase *volatile cur; /* the running phase, or NULL */
	/* The handler samples and re-arms (probe CPU only, probe_fn()). */
	volatile bool sampling;
	uint32_t stop;
	struct lat_phase phase[LAT_MAX_PHASES];
	unsigned int phase_count;
};

extern struct lat_state lat;

unsigned int lat_bucket(uint64_t ns);
uint64_t lat_bucket_lo(unsigned int b);

#endif
