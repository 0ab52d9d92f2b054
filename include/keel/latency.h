/* SPDX-License-Identifier: MIT */
/*
 * Interrupt latency (DESIGN §12): the probe of latency=on
 * (common/latency.c), its report (common/latency_report.c) and the
 * interrupts-off tracer (common/irqsoff.c) that every interrupt-masking
 * site goes through (irq_save_at() / irq_restore(), and the
 * spin_lock_irqsave() locks of <keel/spinlock.h>).
 */
#ifndef KEEL_LATENCY_H
#define KEEL_LATENCY_H

#include <arch/irq.h>
#include <keel/cachemaint.h>
#include <keel/types.h>

struct jw;

/*
 * The tracer. A region starts where a CPU with interrupts on masks them
 * and ends where it unmasks them; @site names where it started (pass
 * __func__). Every CPU runs with interrupts on outside its critical
 * sections (<arch/irq.h>), so every such section is a region; the tracer
 * keeps state only with latency=on. The idle waits mask interrupts
 * with the raw arch_irq_save() (their halt unmasks them): not regions.
 */
void irqsoff_begin(const char *site);
void irqsoff_end(void);

/* Mask interrupts, timing the region when they were on. */
static inline irqflags_t irq_save_at(const char *site)
{
	irqflags_t f = arch_irq_save();

	if (arch_irq_flags_on(f))
		irqsoff_begin(site);
	return f;
}

static inline void irq_restore(irqflags_t f)
{
	if (arch_irq_flags_on(f))
		irqsoff_end();
	arch_irq_restore(f);
}

#define irq_save() irq_save_at(__func__)

/* Per-CPU tracer state (latency_init_cpus() allocates it). */
struct irqsoff_cpu {
	uint64_t start;	      /* ticks the current region began */
	uint64_t max;	      /* longest region since the last reset */
	const char *site;     /* of the current region */
	const char *max_site; /* of the longest */
} __attribute__((aligned(64)));

/* Turn the tracer on for @count CPUs (state from bootmem); NULL: off. */
void irqsoff_setup(struct irqsoff_cpu *cpus, unsigned int count);
/* Forget every CPU's longest region (between phases, CPUs quiet). */
void irqsoff_reset(void);
/* The longest region of any CPU since the reset; its site in *@site. */
uint64_t irqsoff_max(const char **site);

/* Before the report: which online CPUs run with interrupts on. */
void irq_census(void);

/* latency=on: per-CPU state from bootmem; call after smp_init(). */
void latency_init_cpus(void);
/*
 * latency=on: run the probe's phases (after the scrub, heap open). @o:
 * the boot's options (latency_*=, the domain= list of the load,
 * bootscrub=, domains_trust=), read during the call only.
 */
struct keel_options;
void latency_run(const struct keel_options *o);

/*
 * The probe's histogram: log2 buckets, 4 linear steps per power of two
 * (25% resolution), up to 2^LATENCY_MAX_LOG2 ns (about 18 minutes);
 * above: the last. latency_bucket(): the bucket of @ns;
 * latency_bucket_lo(): the smallest value of bucket @b (its largest:
 * latency_bucket_lo(b + 1) - 1).
 */
#define LATENCY_MAX_LOG2   40
#define LATENCY_BUCKETS	   (4 * LATENCY_MAX_LOG2 + 4)
#define LATENCY_MAX_PHASES 5
unsigned int latency_bucket(uint64_t ns);
uint64_t latency_bucket_lo(unsigned int b);

/* One phase of the probe, as it ran (struct latency_stats). */
struct latency_phase {
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
	uint32_t hist[LATENCY_BUCKETS];
};

/* What latency=on measured (latency_stats()), for the report. */
struct latency_stats {
	bool requested;		 /* latency=on */
	const char *unsupported; /* why there is no probe, or NULL */
	const char *load;	 /* latency.load */
	const char *timer_mode;
	unsigned int cpu;	/* the probe CPU */
	unsigned int max_order; /* the load's largest block */
	uint64_t domain_bytes;	/* build-local's domain */
	uint64_t remote_bytes;	/* build-remote's, without domain= words */
	uint64_t period_ns;
	/* Extents the heap refused back after a load's build (the verdict). */
	unsigned int domain_problems;
	struct latency_phase phase[LATENCY_MAX_PHASES];
	unsigned int phase_count;
};

/* The probe's results (read-only; all zero before latency_run()). */
const struct latency_stats *latency_stats(void);

#endif
