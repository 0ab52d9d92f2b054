/* SPDX-License-Identifier: MIT */
/*
 * The churn run's part of the boot report: the "churn" object of
 * KEEL-REPORT (churn.seconds ... churn.per_cpu[], docs/report-format.md)
 * and the "churn:" human line, from churn_stats (common/selftest/churn.c).
 * Both say nothing when churn=N was not given. Rates come from
 * stress_ops_per_s() (stress_report.c), the same arithmetic. The compact
 * report keeps ops_per_s[] (one rate a CPU) but leaves the per_cpu[]
 * rows out past REPORT_CPU_DETAIL_MAX CPUs (report_cpu_detail()).
 *
 * Runs on the boot CPU at report time, every other CPU parked: no lock.
 */
#include <keel/churn.h>
#include <keel/json.h>
#include <keel/printk.h>
#include <keel/report.h>
#include <keel/smp.h>
#include <keel/ticks.h>

#include "report_priv.h"

/* @part / @whole in thousandths (0 when @whole is 0). */
static uint64_t milli_of(uint64_t part, uint64_t whole)
{
	if (!whole)
		return 0;
	return (uint64_t)((unsigned __int128)part * 1000 / whole);
}

static uint64_t share_2m(const struct churn_frag *f)
{
	return milli_of(f->free_2m_pages, f->free_pages);
}

/**
 * churn_report_human() - the "churn:" line, after churn=N.
 */
void churn_report_human(void)
{
	const struct churn_stats *s = &churn_stats;
	uint64_t block_milli = milli_of(s->node_locks - s->domain_node_locks,
					s->allocs + s->frees);

	if (!s->ran)
		return;
	pr_info("churn: %llu ops in %llu ms on %u CPUs, p50 %llu ns, p99 %llu "
		"ns, %llu domains, %llu.%03llu node locks/op (blocks alone "
		"%llu.%03llu), free in 2M+ "
		"chunks %llu.%03llu -> %llu.%03llu, largest free order %u%s\n",
		(unsigned long long)s->ops,
		(unsigned long long)(ticks_to_ns(s->ticks) / 1000000), s->cpus,
		(unsigned long long)ticks_to_ns(s->p50_ticks),
		(unsigned long long)ticks_to_ns(s->p99_ticks),
		(unsigned long long)s->domains,
		(unsigned long long)(milli_of(s->node_locks, s->ops) / 1000),
		(unsigned long long)(milli_of(s->node_locks, s->ops) % 1000),
		(unsigned long long)(block_milli / 1000),
		(unsigned long long)(block_milli % 1000),
		(unsigned long long)(share_2m(&s->start) / 1000),
		(unsigned long long)(share_2m(&s->start) % 1000),
		(unsigned long long)(share_2m(&s->end) / 1000),
		(unsigned long long)(share_2m(&s->end) % 1000),
		s->end.largest_order, churn_ok() ? "" : " (FAILED)");
}

static void churn_per_cpu_json(struct jw *w, const struct churn_stats *s)
{
	static const char *const cols[] = {
		"cpu",
		"ops",
		"allocs",
		"frees",
		"alloc_failures",
		"domains",
		"node_locks",
		"domain_node_locks",
		"ns",
	};

	jw_arr(w, "ops_per_s"); /* one entry per CPU of per_cpu[], in order */
	for (unsigned int c = 0; c < cpu_count; c++)
		if (s->cpu[c].ran)
			jw_u64(w, NULL,
			       stress_ops_per_s(s->cpu[c].ops,
						s->cpu[c].ticks));
	jw_arr_end(w);
	/* The 32 KiB budget at 256 CPUs has no room for the rows. */
	if (!report_cpu_detail(s->cpus))
		return;
	JW_TABLE(w, "per_cpu", cols);
	for (unsigned int c = 0; c < cpu_count; c++) {
		const struct churn_cpu_stats *pc = &s->cpu[c];

		if (!pc->ran)
			continue;
		jw_row(w);
		jw_u64(w, NULL, c);
		jw_u64(w, NULL, pc->ops);
		jw_u64(w, NULL, pc->allocs);
		jw_u64(w, NULL, pc->frees);
		jw_u64(w, NULL, pc->alloc_failures);
		jw_u64(w, NULL, pc->domains);
		jw_u64(w, NULL, pc->node_locks);
		jw_u64(w, NULL, pc->domain_node_locks);
		jw_u64(w, NULL, ticks_to_ns(pc->ticks));
		jw_row_end(w);
	}
	jw_table_end(w);
}

/**
 * churn_report_json() - the report's "churn" object, only after churn=N.
 * @w: the report's writer.
 */
void churn_report_json(struct jw *w)
{
	const struct churn_stats *s = &churn_stats;

	if (!s->ran)
		return;
	jw_obj(w, "churn");
	jw_u64(w, "seconds", s->seconds);
	jw_u64(w, "ns", ticks_to_ns(s->ticks));
	jw_u64(w, "ops", s->ops);
	jw_u64(w, "allocs", s->allocs);
	jw_u64(w, "frees", s->frees);
	jw_u64(w, "alloc_failures", s->alloc_failures);
	jw_u64(w, "domains", s->domains);
	jw_u64(w, "domain_failures", s->domain_failures);
	jw_u64(w, "domain_problems", s->domain_problems);
	jw_u64(w, "p50_ns", ticks_to_ns(s->p50_ticks));
	jw_u64(w, "p99_ns", ticks_to_ns(s->p99_ticks));
	jw_u64(w, "domain_p50_ns", ticks_to_ns(s->domain_p50_ticks));
	jw_u64(w, "domain_p99_ns", ticks_to_ns(s->domain_p99_ticks));
	jw_u64(w, "node_locks", s->node_locks);
	jw_milli(w, "lock_per_op", milli_of(s->node_locks, s->ops));
	jw_u64(w, "domain_node_locks", s->domain_node_locks);
	jw_milli(w, "block_lock_per_op",
		 milli_of(s->node_locks - s->domain_node_locks,
			  s->allocs + s->frees));
	jw_milli(w, "free_2m_share_start", share_2m(&s->start));
	jw_milli(w, "free_2m_share_end", share_2m(&s->end));
	jw_u64(w, "largest_free_order_start", s->start.largest_order);
	jw_u64(w, "largest_free_order_end", s->end.largest_order);
	jw_u64(w, "free_pages_before", s->free_before);
	jw_u64(w, "free_pages_after", s->free_after);
	jw_u64(w, "heap_problems", s->heap_problems);
	jw_bool(w, "ok", churn_ok());
	jw_str(w, "fail_reason", s->fail_reason);
	churn_per_cpu_json(w, s);
	jw_obj_end(w);
}
