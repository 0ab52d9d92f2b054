/* SPDX-License-Identifier: MIT */
/*
 * Owner: irq.
 * Interrupt latency (DESIGN §12): the probe of latency=on
 * (common/irq/latency.c), the interrupt counters (common/irq/irq_count.c)
 * and their report (common/report/latency_report.c).
 * The probe reads the interrupts-off tracer, which lives below the locks
 * (<keel/irqsoff.h>, common/lib/irqsoff.c); nothing below the irq room
 * includes this header.
 */
#ifndef KEEL_LATENCY_H
#define KEEL_LATENCY_H

#include <arch/irq.h>
#include <keel/cachemaint.h>
#include <keel/irqsoff.h>
#include <keel/types.h>

struct jw;

/*
 * The interrupt counters (common/irq/irq_count.c): one entry per CPU of
 * cpu_table, each written by its own CPU (the arch's handlers call the
 * irq_count_*() of <arch/irq.h>); the report reads them.
 */
struct irq_cpu_counts {
	uint32_t taken;	       /* interrupts handled, idle wakes aside */
	uint32_t idle_wakes;   /* interrupts that only ended an idle halt */
	uint32_t unexpected;   /* interrupts keel never asked for */
	uint32_t spurious;     /* the controller's spurious ones */
	uint32_t stray_masked; /* inputs a stray's handler masked */
	uint8_t on_seen;       /* irq_census(): 0 not asked, 1 off, 2 on */
};

/* The controllers' inputs masked at boot (x86_64: the I/O APICs'). */
struct irq_boot_masked {
	unsigned int controllers, entries, unmasked;
};

/* The counters from bootmem; call after smp_init(), before the handoff. */
void irq_counts_init(void);
/* @cpu's counters, or NULL (none yet, or not a CPU of cpu_table). */
const struct irq_cpu_counts *irq_counts(unsigned int cpu);
const struct irq_boot_masked *irq_boot_masked(void);

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

/*
 * Common code's handler (common/irq/latency.c), called by the arch's interrupt
 * entry with interrupts masked, once per timer interrupt, on the CPU that
 * armed it. @entry: arch_ticks() read first thing in the entry path.
 */
void irq_timer_handler(uint64_t entry);
/*
 * The interrupt counters (common/irq/irq_count.c), called by the arch's
 * handlers. Count an interrupt taken on the calling CPU for the report: the timer
 * interrupts of irq_timer_handler() (irq.count) apart from the idle
 * wake-ups an arch takes to end a halt (@idle_wake; irq.idle_wakes).
 */
void irq_count_taken(bool idle_wake);
/* Count an interrupt keel never asked for (irq.unexpected). */
void irq_count_unexpected(void);
/*
 * Count a spurious interrupt (irq.spurious): x86_64 the local APIC's
 * spurious vector with nothing in service, arm64 INTIDs 1020-1023.
 */
void irq_count_spurious(void);
/*
 * The firmware's interrupt controller inputs, masked once at boot before
 * any CPU turns interrupts on (x86_64: every redirection entry of the
 * MADT's I/O APICs): @controllers, @entries in all, @unmasked of which
 * the firmware had left unmasked (irq.ioapics, irq.ioapic_entries,
 * irq.ioapic_unmasked).
 */
void irq_count_masked_at_boot(unsigned int controllers, unsigned int entries,
			      unsigned int unmasked);
/*
 * @entries controller inputs masked by a stray interrupt's handler
 * because they deliver its vector (irq.ioapic_stray_masked).
 */
void irq_count_stray_masked(unsigned int entries);

#endif
