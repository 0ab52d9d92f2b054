/* SPDX-License-Identifier: MIT */
/*
 * The report's "cpus" table and "smp" object: the SMP room's CPU table
 * and bring-up times, joined with the scrub's workers (cpus[].scrubber).
 */
#include <keel/json.h>
#include <keel/report.h>
#include <keel/scrub.h>
#include <keel/smp.h>
#include <keel/trace.h>

#include "report_priv.h"

static int64_t signed_ticks_to_ns(int64_t t)
{
	if (t < 0)
		return -(int64_t)ticks_to_ns((uint64_t)0 - (uint64_t)t);
	return (int64_t)ticks_to_ns((uint64_t)t);
}

/*
 * The report's "smp" object: how the CPUs were started, how long it took,
 * and how many CPUs read another CPU's hardware id at check-in.
 */
static void smp_report_bringup(struct jw *w)
{
	unsigned int mismatch = 0;
	int64_t skew = 0;
	uint64_t v;

	for (unsigned int c = 1; c < cpu_count; c++) {
		int64_t t = signed_ticks_to_ns(cpu_table[c].tsc_skew_ticks);

		if (smp_cpu_hwid_seen(c, &v) && v != cpu_table[c].hwid)
			mismatch++;
		if ((t < 0 ? -t : t) > (skew < 0 ? -skew : skew))
			skew = t;
	}
	jw_obj(w, "smp");
	jw_str(w, "start", enum_name(smp_start_names, smp_start_used()));
	jw_u64(w, "bringup_ns", smp_bringup_ns());
	/* cpus[].tsc_skew_ns's largest magnitude, there or not (>64 CPUs). */
	jw_i64(w, "tsc_skew_max_ns", skew);
	/* Each mismatch is also a warning line: report=full only. */
	if (report_full())
		jw_u64(w, "hwid_mismatches", mismatch);
	jw_obj_end(w);
}

/**
 * smp_report_json() - the report's "cpus" table and "smp" object (keys
 * cpus[].*, smp.*).
 * @w: the report's writer.
 */
void smp_report_json(struct jw *w)
{
	static const char *const cols[] = {
		"id",	       "hwid",	      "node",	     "package",
		"core",	       "thread",      "online",	     "scrubber",
		"smt_sibling", "fail_reason", "tsc_skew_ns", "up_ns",
		"hwid_seen",
	};
	/*
	 * The bring-up columns cost 15 bytes a CPU: report=full only; above
	 * 64 CPUs the skew too (report_cpu_detail()), 10 more.
	 */
	bool full = report_full(), skew = report_cpu_detail(cpu_count);
	uint64_t v;

	jw_table(w, "cpus", cols,
		 full ? ARRAY_SIZE(cols) : ARRAY_SIZE(cols) - 3 + skew);
	for (unsigned int c = 0; c < cpu_count && c < NR_CPUS; c++) {
		const struct cpu_info *ci = &cpu_table[c];

		jw_row(w);
		jw_u64(w, NULL, c);
		jw_u64(w, NULL, ci->hwid);
		jw_u64(w, NULL, ci->node);
		jw_u64(w, NULL, ci->package);
		jw_u64(w, NULL, ci->core);
		jw_u64(w, NULL, ci->thread);
		jw_bool(w, NULL, ci->online);
		jw_bool(w, NULL, scrub_stats.cpu[c].worker);
		jw_bool(w, NULL, ci->smt_sibling);
		jw_str(w, NULL, ci->online ? NULL : ci->fail_reason);
		if (skew)
			jw_i64(w, NULL, signed_ticks_to_ns(ci->tsc_skew_ticks));
		if (full) {
			if (smp_cpu_up_ns(c, &v))
				jw_u64(w, NULL, v);
			else
				jw_null(w, NULL);
			if (smp_cpu_hwid_seen(c, &v))
				jw_u64(w, NULL, v);
			else
				jw_null(w, NULL);
		}
		jw_row_end(w);
	}
	jw_table_end(w);
	smp_report_bringup(w);
}
