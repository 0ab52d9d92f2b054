/* SPDX-License-Identifier: MIT */
/*
 * The report's trace keys, from the per-CPU buffers of common/smp/trace.c:
 * every stored event (trace[]), the per-node summary of the detail events
 * (trace_summary[]), which buffers overflowed, how many CPUs were traced.
 */
#include <keel/config.h>
#include <keel/enum_names.h>
#include <keel/json.h>
#include <keel/smp.h>
#include <keel/trace.h>

#include "report_priv.h"

static const char *trace_kind_name(uint8_t kind)
{
	switch (kind) {
	case TRACE_BEGIN:
		return "begin";
	case TRACE_END:
		return "end";
	default:
		return "mark";
	}
}

/*
 * trace_summary: the detail events (scrub units) summed per node, printed
 * in every trace mode; with trace=summary it is all the report has of them.
 */
static void json_trace_summary(struct jw *w, unsigned int nodes)
{
	static const char *const cols[] = {
		"name",	    "node",    "count",	  "bytes",
		"first_ns", "last_ns", "busy_ns",
	};

	JW_TABLE(w, "trace_summary", cols);
	for (unsigned int n = 0; n < nodes; n++) {
		struct trace_summary ts;

		if (!trace_summary_node(n, &ts))
			continue;
		jw_row(w);
		jw_str(w, NULL, ts.name);
		jw_u64(w, NULL, n);
		jw_u64(w, NULL, ts.count);
		jw_u64(w, NULL, ts.arg1);
		jw_u64(w, NULL, ticks_to_ns_since_entry(ts.first_ticks));
		jw_u64(w, NULL, ticks_to_ns_since_entry(ts.last_ticks));
		jw_u64(w, NULL, ticks_to_ns(ts.busy_ticks));
		jw_row_end(w);
	}
	jw_table_end(w);
}

/**
 * trace_report_json() - the report's trace keys: trace_mode, trace[],
 * trace_summary[], trace_overflow, trace_overflow_cpus, trace_cpus.
 * @w: the report's writer.
 * @nodes: node count of this boot.
 */
void trace_report_json(struct jw *w, unsigned int nodes)
{
	static const char *const cols[] = {
		"name", "cpu", "ns", "kind", "arg0", "arg1",
	};
	bool any_overflow = false;

	jw_str(w, "trace_mode",
	       enum_name(trace_mode_names,
			 trace_full() ? TRACE_MODE_FULL : TRACE_MODE_SUMMARY));
	JW_TABLE(w, "trace", cols);
	for (unsigned int c = 0; c < cpu_count && c < NR_CPUS; c++) {
		unsigned int count = 0;
		bool overflowed = false;
		const struct trace_event *ev =
			trace_events(c, &count, &overflowed);

		any_overflow |= overflowed;
		for (unsigned int i = 0; ev && i < count; i++) {
			jw_row(w);
			jw_str(w, NULL, ev[i].name);
			jw_u64(w, NULL, ev[i].cpu);
			jw_u64(w, NULL, ticks_to_ns_since_entry(ev[i].ticks));
			jw_str(w, NULL, trace_kind_name(ev[i].kind));
			jw_u64(w, NULL, ev[i].arg0);
			jw_u64(w, NULL, ev[i].arg1);
			jw_row_end(w);
		}
	}
	jw_table_end(w);
	json_trace_summary(w, nodes);
	jw_bool(w, "trace_overflow", any_overflow);
	jw_arr(w, "trace_overflow_cpus");
	for (unsigned int c = 0; c < cpu_count && c < NR_CPUS; c++) {
		unsigned int count;
		bool overflowed;

		trace_events(c, &count, &overflowed);
		if (overflowed)
			jw_u64(w, NULL, c);
	}
	jw_arr_end(w);
	jw_u64(w, "trace_cpus", trace_cpus_recorded());
}
