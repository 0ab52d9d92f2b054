/* SPDX-License-Identifier: MIT */
/*
 * The latency probe's part of the boot report: the "latency" object
 * (latency.probe_cpu ... latency.phases[], latency.hist) after latency=on,
 * the "irq" object (interrupts taken per CPU) on every boot, and one human
 * line per phase. Percentiles come from the histogram: the upper bound of
 * the bucket holding the sample, so within 25% above the true value
 * (never above max_ns, which is exact, like min_ns).
 *
 * The "irq" object reads the irq room's per-CPU interrupt counters
 * (irq_counts(), common/irq/irq_count.c) with every CPU parked.
 */
#include <arch/cpu.h>
#include <keel/cpumask.h>
#include <keel/json.h>
#include <keel/latency.h>
#include <keel/printk.h>
#include <keel/report.h>
#include <keel/smp.h>
#include <keel/trace.h>

#include "report_priv.h"

/* The @q-th percentile (per mille) of @ph, in ns. */
static uint64_t percentile(const struct latency_phase *ph, unsigned int q)
{
	uint64_t want = (ph->samples * q + 999) / 1000, seen = 0;

	if (!ph->samples)
		return 0;
	for (unsigned int b = 0; b < LATENCY_BUCKETS; b++) {
		seen += ph->hist[b];
		if (seen >= want && seen) {
			uint64_t hi = b + 1 < LATENCY_BUCKETS
					      ? latency_bucket_lo(b + 1) - 1
					      : ph->max_ns;

			return MIN(MAX(hi, ph->min_ns), ph->max_ns);
		}
	}
	return ph->max_ns;
}

static const char *mode_name(const struct latency_phase *ph)
{
	return cachemaint_mode_name(ph->mode);
}

/**
 * latency_report_human() - one line per phase after latency=on.
 */
void latency_report_human(void)
{
	const struct latency_stats *lat = latency_stats();

	if (!lat->requested)
		return;
	if (lat->unsupported) {
		pr_info("latency: no probe: %s\n", lat->unsupported);
		return;
	}
	pr_info("latency: probe CPU %u, period %llu us, timer %s, load %s "
		"(%llu MiB domains, extents of order %u at most)\n",
		lat->cpu, (unsigned long long)(lat->period_ns / 1000),
		lat->timer_mode, lat->load,
		(unsigned long long)(lat->domain_bytes >> 20), lat->max_order);
	for (unsigned int i = 0; i < lat->phase_count; i++) {
		const struct latency_phase *ph = &lat->phase[i];

		if (!ph->ran)
			continue;
		pr_info("latency: %-12s %-8s %6llu samples: min %llu p50 %llu "
			"p99 %llu max %llu ns; irqs off at most %llu ns (%s)\n",
			ph->name, mode_name(ph),
			(unsigned long long)ph->samples,
			(unsigned long long)ph->min_ns,
			(unsigned long long)percentile(ph, 500),
			(unsigned long long)percentile(ph, 990),
			(unsigned long long)ph->max_ns,
			(unsigned long long)ticks_to_ns(ph->irqsoff_max),
			ph->irqsoff_site ? ph->irqsoff_site : "-");
	}
}

static void phases_json(struct jw *w, const struct latency_stats *lat)
{
	static const char *const cols[] = {
		"phase",	"cachemaint", "samples", "min_ns",
		"p50_ns",	"p99_ns",     "max_ns",	 "irqsoff_max_ns",
		"irqsoff_site", "ns",	      "builds",	 "max_at_ns",
	};

	JW_TABLE(w, "phases", cols);
	for (unsigned int i = 0; i < lat->phase_count; i++) {
		const struct latency_phase *ph = &lat->phase[i];

		if (!ph->ran)
			continue;
		jw_row(w);
		jw_str(w, NULL, ph->name);
		jw_str(w, NULL, mode_name(ph));
		jw_u64(w, NULL, ph->samples);
		jw_u64(w, NULL, ph->min_ns);
		jw_u64(w, NULL, percentile(ph, 500));
		jw_u64(w, NULL, percentile(ph, 990));
		jw_u64(w, NULL, ph->max_ns);
		jw_u64(w, NULL, ticks_to_ns(ph->irqsoff_max));
		jw_str(w, NULL, ph->irqsoff_site);
		jw_u64(w, NULL, ticks_to_ns(ph->ticks));
		jw_u64(w, NULL, ph->builds);
		jw_u64(w, NULL, ticks_to_ns_since_entry(ph->max_at));
		jw_row_end(w);
	}
	jw_table_end(w);
}

/* latency.hist: per phase row, [bucket_lo_ns, count] of non-empty buckets. */
static void hist_json(struct jw *w, const struct latency_stats *lat)
{
	jw_arr(w, "hist");
	for (unsigned int i = 0; i < lat->phase_count; i++) {
		const struct latency_phase *ph = &lat->phase[i];

		if (!ph->ran)
			continue;
		jw_arr(w, NULL);
		for (unsigned int b = 0; b < LATENCY_BUCKETS; b++) {
			if (!ph->hist[b])
				continue;
			jw_arr(w, NULL);
			jw_u64(w, NULL, latency_bucket_lo(b));
			jw_u64(w, NULL, ph->hist[b]);
			jw_arr_end(w);
		}
		jw_arr_end(w);
	}
	jw_arr_end(w);
}

/* Sparse, so that 4096 quiet CPUs cost nothing: [[cpu, count], ...]. */
static void irq_json(struct jw *w)
{
	const struct irq_boot_masked *bm = irq_boot_masked();
	unsigned int cpus = 0, on = 0;
	uint64_t wakes = 0, unexpected = 0, spurious = 0, stray_masked = 0;

	jw_obj(w, "irq");
	jw_arr(w, "count");
	for (unsigned int c = 0; c < cpu_count; c++) {
		const struct irq_cpu_counts *k = irq_counts(c);

		if (!k)
			continue;
		if (k->idle_wakes) {
			wakes += k->idle_wakes;
			cpus++;
		}
		unexpected += k->unexpected;
		spurious += k->spurious;
		stray_masked += k->stray_masked;
		on += k->on_seen == 2;
		if (!k->taken)
			continue;
		jw_arr(w, NULL);
		jw_u64(w, NULL, c);
		jw_u64(w, NULL, k->taken);
		jw_arr_end(w);
	}
	jw_arr_end(w);
	jw_u64(w, "idle_wakes", wakes);
	jw_u64(w, "idle_wake_cpus", cpus);
	jw_u64(w, "unexpected", unexpected);
	jw_u64(w, "spurious", spurious);
	jw_u64(w, "ioapics", bm->controllers);
	jw_u64(w, "ioapic_entries", bm->entries);
	jw_u64(w, "ioapic_unmasked", bm->unmasked);
	jw_u64(w, "ioapic_stray_masked", stray_masked);
	jw_u64(w, "on_cpus", on);
	jw_obj_end(w);
}

/**
 * latency_report_json() - the report's "irq" object, and "latency" after
 * latency=on.
 * @w: the report's writer
 */
void latency_report_json(struct jw *w)
{
	const struct latency_stats *lat = latency_stats();

	irq_json(w);
	if (!lat->requested)
		return;
	jw_obj(w, "latency");
	jw_u64(w, "probe_cpu", lat->cpu);
	jw_u64(w, "period_ns", lat->period_ns);
	jw_str(w, "load", lat->load);
	jw_u64(w, "max_order", lat->max_order);
	jw_u64(w, "domain_bytes", lat->domain_bytes);
	jw_u64(w, "remote_domain_bytes", lat->remote_bytes);
	jw_str(w, "timer", lat->timer_mode);
	jw_str(w, "unsupported", lat->unsupported);
	if (!lat->unsupported) {
		phases_json(w, lat);
		/*
		 * Up to 164 buckets a phase, as many as the timings spread
		 * over: report=full only (the phases' min, p50, p99 and max
		 * summarise it), so that the compact report keeps its size
		 * budget (DESIGN §9).
		 */
		if (report_full())
			hist_json(w, lat);
		else
			jw_null(w, "hist");
	}
	jw_obj_end(w);
}
