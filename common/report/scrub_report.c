/* SPDX-License-Identifier: MIT */
/*
 * The scrub's part of the boot report: the "scrub" object of KEEL-REPORT
 * (scrub.mode ... scrub.per_cpu[], docs/report-format.md) and the "scrub:"
 * human lines, from scrub_stats (common/scrub/scrub.c).
 *
 * Runs on the boot CPU at report time, every other CPU parked: no lock.
 */
#include <keel/cpumask.h>
#include <keel/json.h>
#include <keel/printk.h>
#include <keel/report.h>
#include <keel/scrub.h>
#include <keel/scrub_prims.h>
#include <keel/smp.h>
#include <keel/string.h>
#include <keel/trace.h>

#include "report_priv.h"

/*
 * ", CPUs x.xxx-y.yyy GB/s": the spread of the busy-time rates of the
 * workers whose main node is @node, or "" when none scrubbed. It stands in
 * for the per-CPU lines, which are debug only.
 */
static const char *node_cpu_rates(unsigned int node, char *buf, size_t size)
{
	uint64_t lo = ~0ull, hi = 0;

	for (unsigned int c = 0; c < cpu_count && c < NR_CPUS; c++) {
		const struct scrub_cpu_stats *s = &scrub_stats.cpu[c];
		uint64_t r;

		if (!s->bytes || s->node != node)
			continue;
		r = rate_gbps_milli(s->bytes, ticks_to_ns(s->ticks));
		lo = r < lo ? r : lo;
		hi = r > hi ? r : hi;
	}
	if (lo > hi)
		return "";
	snprintf(buf, size, ", CPUs %llu.%03llu-%llu.%03llu GB/s",
		 (unsigned long long)(lo / 1000),
		 (unsigned long long)(lo % 1000),
		 (unsigned long long)(hi / 1000),
		 (unsigned long long)(hi % 1000));
	return buf;
}

/* "scrub: primitive movnti (measured): movnti 9.1, rep stosb 0.8 GB/s". */
static void report_calibration(void)
{
	char buf[160];
	size_t used = 0;

	buf[0] = '\0';
	for (unsigned int i = 0; i < scrub_stats.calib_count; i++) {
		const struct scrub_calib *c = &scrub_stats.calib[i];
		uint64_t ns = ticks_to_ns(c->ticks);
		uint64_t r = rate_gbps_milli(c->bytes, ns ? ns : 1);
		int n = snprintf(buf + used, sizeof(buf) - used,
				 "%s%s %llu.%01llu", i ? ", " : ": ",
				 c->primitive, (unsigned long long)(r / 1000),
				 (unsigned long long)(r % 1000 / 100));

		if (n < 0 || (size_t)n >= sizeof(buf) - used)
			break;
		used += (size_t)n;
	}
	pr_info("scrub: primitive %s (%s)%s%s, calibration %llu us\n",
		scrub_prims_current_name(),
		scrub_choice_name(scrub_stats.choice), buf,
		scrub_stats.calib_count ? " GB/s" : "",
		(unsigned long long)(ticks_to_ns(scrub_stats.calib_ticks) /
				     1000));
}

/**
 * scrub_report_human() - the "scrub:" lines: the whole scrub, the
 * primitive and its calibration, one line per node (per CPU at
 * loglevel=3).
 * @nodes: node count of this boot.
 */
void scrub_report_human(unsigned int nodes)
{
	uint64_t ns, r;
	char rates[64];

	if (scrub_stats.mode == SCRUB_OFF)
		return;
	ns = ticks_to_ns(scrub_stats.ticks);
	r = rate_gbps_milli(scrub_stats.bytes, ns);

	pr_info("scrub: %s, %llu MiB by %u workers in %llu us "
		"(%llu.%03llu GB/s, %s)\n",
		scrub_mode_name(scrub_stats.mode),
		(unsigned long long)(scrub_stats.bytes >> 20),
		scrub_stats.workers, (unsigned long long)(ns / 1000),
		(unsigned long long)(r / 1000), (unsigned long long)(r % 1000),
		scrub_prims_current_name());
	report_calibration();
	for (unsigned int n = 0; n < nodes; n++) {
		const struct scrub_node_stats *s = &scrub_stats.node[n];
		char by[48] = "";

		if (s->helper_of != NUMA_NO_NODE)
			snprintf(by, sizeof(by),
				 " (no CPUs: node %u's workers)", s->helper_of);
		ns = ticks_to_ns(s->ticks);
		r = rate_gbps_milli(s->bytes, ns);
		pr_info("scrub: node %u: %llu MiB in %llu us "
			"(%llu.%03llu GB/s) by %u CPUs%s%s\n",
			n, (unsigned long long)(s->bytes >> 20),
			(unsigned long long)(ns / 1000),
			(unsigned long long)(r / 1000),
			(unsigned long long)(r % 1000),
			cpumask_weight(&s->cpus), by,
			node_cpu_rates(n, rates, sizeof(rates)));
	}
	/* One line per CPU: only at loglevel=3 (the JSON has them). */
	for (unsigned int c = 0; c < cpu_count && c < NR_CPUS; c++) {
		const struct scrub_cpu_stats *s = &scrub_stats.cpu[c];

		if (!s->worker && !s->bytes)
			continue;
		ns = ticks_to_ns(s->ticks);
		r = rate_gbps_milli(s->bytes, ns);
		pr_debug("scrub: cpu %u (node %u): %llu MiB in %u "
			 "units, %llu us (%llu.%03llu GB/s)\n",
			 c, s->node, (unsigned long long)(s->bytes >> 20),
			 s->units, (unsigned long long)(ns / 1000),
			 (unsigned long long)(r / 1000),
			 (unsigned long long)(r % 1000));
	}
}

/* The "calibration" table: every primitive timed at boot, and its rate. */
static void calib_json(struct jw *w)
{
	static const char *const cols[] = {
		"primitive",
		"gbps",
		"bytes",
		"ns",
	};

	JW_TABLE(w, "calibration", cols);
	for (unsigned int i = 0; i < scrub_stats.calib_count; i++) {
		const struct scrub_calib *sc = &scrub_stats.calib[i];
		uint64_t cns = ticks_to_ns(sc->ticks);

		jw_row(w);
		jw_str(w, NULL, sc->primitive);
		jw_milli(w, NULL, rate_gbps_milli(sc->bytes, cns ? cns : 1));
		jw_u64(w, NULL, sc->bytes);
		jw_u64(w, NULL, cns);
		jw_row_end(w);
	}
	jw_table_end(w);
}

/* The "per_node" table: what was scrubbed on each of @nodes, and by whom. */
static void per_node_json(struct jw *w, unsigned int nodes)
{
	static const char *const cols[] = {
		"node",	     "bytes", "ns",	    "cpus",
		"helper_of", "gbps",  "unit_bytes",
	};
	unsigned int c;

	JW_TABLE(w, "per_node", cols);
	for (unsigned int n = 0; n < nodes; n++) {
		const struct scrub_node_stats *sn = &scrub_stats.node[n];
		uint64_t nns = ticks_to_ns(sn->ticks);

		jw_row(w);
		jw_u64(w, NULL, n);
		jw_u64(w, NULL, sn->bytes);
		jw_u64(w, NULL, nns);
		jw_arr(w, NULL);
		for_each_cpu_in (c, &sn->cpus)
			jw_u64(w, NULL, c);
		jw_arr_end(w);
		if (sn->helper_of == NUMA_NO_NODE)
			jw_null(w, NULL);
		else
			jw_u64(w, NULL, sn->helper_of);
		jw_milli(w, NULL, rate_gbps_milli(sn->bytes, nns));
		jw_u64(w, NULL, sn->unit_bytes);
		jw_row_end(w);
	}
	jw_table_end(w);
}

/*
 * The "per_cpu" table: one row per CPU that was a worker or scrubbed. No
 * rate column (bytes / ns gives it), and above 64 CPUs, unless
 * report=full (report_cpu_detail()), no idle_ns (scrub.idle_max_ns stays)
 * and no row for a worker that scrubbed nothing (cpus[].scrubber names
 * it): a 256-CPU report must fit the console budget.
 */
static void per_cpu_json(struct jw *w)
{
	static const char *const cols[] = {
		"cpu", "node", "bytes", "ns", "units", "idle_ns",
	};
	bool idle = report_cpu_detail(cpu_count);

	jw_table(w, "per_cpu", cols, ARRAY_SIZE(cols) - !idle);
	for (unsigned int c = 0; c < cpu_count && c < NR_CPUS; c++) {
		const struct scrub_cpu_stats *sc = &scrub_stats.cpu[c];
		uint64_t cns = ticks_to_ns(sc->ticks);

		/* Above 64 CPUs (compact): a worker that scrubbed nothing. */
		if ((!sc->worker || !idle) && !sc->bytes)
			continue;
		jw_row(w);
		jw_u64(w, NULL, c);
		jw_u64(w, NULL, sc->node);
		jw_u64(w, NULL, sc->bytes);
		jw_u64(w, NULL, cns);
		jw_u64(w, NULL, sc->units);
		if (idle)
			jw_u64(w, NULL, ticks_to_ns(sc->idle_ticks));
		jw_row_end(w);
	}
	jw_table_end(w);
}

/* The longest per_cpu[].idle_ns (printed or not). */
static uint64_t idle_max_ns(void)
{
	uint64_t t = 0;

	for (unsigned int c = 0; c < cpu_count && c < NR_CPUS; c++)
		if (scrub_stats.cpu[c].worker || scrub_stats.cpu[c].bytes)
			t = MAX(t, scrub_stats.cpu[c].idle_ticks);
	return ticks_to_ns(t);
}

/**
 * scrub_report_json() - the report's "scrub" object (keys scrub.*).
 * @w: the report's writer.
 * @nodes: node count of this boot.
 */
void scrub_report_json(struct jw *w, unsigned int nodes)
{
	const struct scrub_stats *s = &scrub_stats;
	uint64_t ns = ticks_to_ns(s->ticks);
	unsigned int c;

	jw_obj(w, "scrub");
	jw_str(w, "mode", scrub_mode_name(s->mode));
	jw_u64(w, "ns", ns);
	jw_u64(w, "bytes", s->bytes);
	jw_u64(w, "workers", s->workers);
	jw_str(w, "primitive", scrub_prims_current_name());
	jw_str(w, "primitive_by", scrub_choice_name(s->choice));
	jw_u64(w, "calibration_ns", ticks_to_ns(s->calib_ticks));
	calib_json(w);
	jw_u64(w, "heap_ready_ns", ticks_to_ns(s->heap_ready_ticks));
	jw_u64(w, "all_clean_ns", ticks_to_ns(s->all_clean_ticks));
	jw_u64(w, "unit_bytes", s->unit_bytes);
	jw_milli(w, "gbps", rate_gbps_milli(s->bytes, ns));
	jw_u64(w, "idle_max_ns", idle_max_ns());
	/*
	 * inject=scrub-stop:N: the workers that quit (their units were
	 * redone); stopped_cpu, the first key, names the lowest of them.
	 */
	if (s->stopped_cpu >= 0)
		jw_u64(w, "stopped_cpu", (uint64_t)s->stopped_cpu);
	else
		jw_null(w, "stopped_cpu");
	jw_arr(w, "stopped_cpus");
	for_each_cpu_in (c, &s->stopped)
		jw_u64(w, NULL, c);
	jw_arr_end(w);
	per_node_json(w, nodes);
	per_cpu_json(w);
	jw_obj_end(w);
}
