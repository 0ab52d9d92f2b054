/* SPDX-License-Identifier: MIT */
/*
 * The stress run's part of the boot report: the "stress" object of
 * KEEL-REPORT (stress.seconds ... stress.per_cpu[], docs/report-format.md)
 * and the "stress:" human line, from stress_stats (common/selftest/stress.c).
  * Both say nothing when stress=N was not given.
 *
 * Runs on the boot CPU at report time, every other CPU parked: no lock.
 */
#include <arch/cpu.h>
#include <keel/json.h>
#include <keel/printk.h>
#include <keel/report.h>
#include <keel/smp.h>
#include <keel/stress.h>
#include <keel/trace.h>

#include "report_priv.h"

/**
 * stress_ops_per_s() - a rate for the report.
 * @ops: operations
 * @ticks: time they took
 *
 * Return: @ops per second, 0 when @ticks is 0.
 */
uint64_t stress_ops_per_s(uint64_t ops, uint64_t ticks)
{
	if (!ticks)
		return 0;
	return (uint64_t)((unsigned __int128)ops * arch_ticks_hz() / ticks);
}

/**
 * stress_report_human() - the "stress:" line, after stress=N.
 */
void stress_report_human(void)
{
	if (!stress_stats.ran)
		return;
	pr_info("stress: %llu ops in %llu ms on %u CPUs (%llu ops/s), "
		"%llu bytes verified, %llu corruptions%s\n",
		(unsigned long long)stress_stats.ops,
		(unsigned long long)(ticks_to_ns(stress_stats.ticks) / 1000000),
		stress_stats.cpus,
		(unsigned long long)stress_ops_per_s(stress_stats.ops,
						     stress_stats.ticks),
		(unsigned long long)stress_stats.bytes_verified,
		(unsigned long long)stress_stats.corruptions,
		stress_ok() ? "" : " (FAILED)");
}

/**
 * stress_report_json() - the report's "stress" object (keys stress.*), only after stress=N.
 * @w: the report's writer.
 */
void stress_report_json(struct jw *w)
{
	static const char *const cols[] = {
		"cpu",	       "ops",	      "ops_per_s", "start_ns",
		"ns",	       "scrub_steps", "scrub_ns",  "bytes_verified",
		"corruptions",
	};
	const struct stress_stats *st = &stress_stats;

	if (!st->ran)
		return;
	jw_obj(w, "stress");
	jw_u64(w, "seconds", st->seconds);
	jw_u64(w, "ns", ticks_to_ns(st->ticks));
	jw_u64(w, "ops", st->ops);
	jw_u64(w, "ops_per_s", stress_ops_per_s(st->ops, st->ticks));
	jw_u64(w, "allocs", st->allocs);
	jw_u64(w, "frees", st->frees);
	jw_u64(w, "alloc_failures", st->alloc_failures);
	jw_u64(w, "bytes_verified", st->bytes_verified);
	jw_u64(w, "corruptions", st->corruptions);
	jw_u64(w, "heap_problems", st->heap_problems);
	jw_u64(w, "free_pages_before", st->free_before);
	jw_u64(w, "free_pages_after", st->free_after);
	jw_bool(w, "baseline_exact", st->baseline_exact);
	jw_bool(w, "zero_check", st->zero_check);
	jw_bool(w, "ok", stress_ok());
	jw_str(w, "fail_reason", st->fail_reason);
	JW_TABLE(w, "per_cpu", cols);
	for (unsigned int c = 0; c < cpu_count && c < NR_CPUS; c++) {
		const struct stress_cpu_stats *pc = &st->cpu[c];

		if (!pc->ran)
			continue;
		jw_row(w);
		jw_u64(w, NULL, c);
		jw_u64(w, NULL, pc->ops);
		jw_u64(w, NULL, stress_ops_per_s(pc->ops, pc->ticks));
		jw_u64(w, NULL, ticks_to_ns(pc->start_ticks));
		jw_u64(w, NULL, ticks_to_ns(pc->ticks));
		jw_u64(w, NULL, pc->scrub_steps);
		jw_u64(w, NULL, ticks_to_ns(pc->scrub_ticks));
		jw_u64(w, NULL, pc->bytes_verified);
		jw_u64(w, NULL, pc->corruptions);
		jw_row_end(w);
	}
	jw_table_end(w);
	jw_obj_end(w);
}
