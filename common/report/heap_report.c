/* SPDX-License-Identifier: MIT */
/*
 * The heap's part of the boot report: the "heap" object of KEEL-REPORT
 * (heap.mode ... heap.per_node[], docs/report-format.md) and the "heap:"
 * human lines. heap.init_ns is the wall time of the whole handoff (from
 * common/boot.c's stamps); heap.per_node[].add_ns the time spent adding
 * that node's ranges to its free lists (heap_add_range()).
 *
 * Runs on the boot CPU at report time, every other CPU parked: no lock.
 */
#include <keel/bench.h>
#include <keel/heap.h>
#include <keel/heap_boot.h>
#include <keel/heap_check.h>
#include <keel/json.h>
#include <keel/printk.h>
#include <keel/trace.h>

#include "report_priv.h"

/* The heap handoff's wall time, from the flow's stamps. */
static uint64_t heap_init_ns(const struct boot_times *bt)
{
	if (bt->heap_init_end < bt->heap_init_begin)
		return 0;
	return ticks_to_ns(bt->heap_init_end - bt->heap_init_begin);
}

/**
 * heap_report_human() - the heap's summary line and one line per node.
 * @nodes: node count of this boot.
 * @bt: the flow's phase stamps.
 */
void heap_report_human(unsigned int nodes, const struct boot_times *bt)
{
	uint64_t init_ns = heap_init_ns(bt);
	struct heap_stats st;

	pr_info("heap: %llu pages free in %llu chunks, init %llu us (%s)\n",
		(unsigned long long)heap_stats_all(0).free_pages,
		(unsigned long long)heap_chunk_count(),
		(unsigned long long)(init_ns / 1000),
		heap_mode_name(heap_mode()));
	for (unsigned int n = 0; n < nodes; n++) {
		if (heap_stats(n, 0, &st))
			continue;
		pr_info("heap: node %u: %llu of %llu pages free, %llu chunks, "
			"%llu dirty, added in %llu us\n",
			n, (unsigned long long)st.free_pages,
			(unsigned long long)st.total_pages,
			(unsigned long long)st.chunks,
			(unsigned long long)st.dirty_pages,
			(unsigned long long)(ticks_to_ns(st.init_ticks) /
					     1000));
	}
}

/**
 * heap_report_json() - the report's "heap" object (keys heap.*).
 * @w: the report's writer.
 * @nodes: node count of this boot.
 * @bt: the flow's phase stamps.
 */
void heap_report_json(struct jw *w, unsigned int nodes,
		      const struct boot_times *bt)
{
	struct heap_stats st, all = heap_stats_all(0);
	static const char *const cols[] = {
		"node",	       "free_pages",  "chunks",
		"add_ns",      "total_pages", "dirty_pages",
		"free_chunks", "ranges",      "lock_max_ns",
	};

	jw_obj(w, "heap");
	jw_str(w, "mode", heap_mode_name(heap_mode()));
	jw_u64(w, "init_ns", heap_init_ns(bt));
	jw_u64(w, "chunks", heap_chunk_count());
	jw_u64(w, "total_pages", all.total_pages);
	jw_u64(w, "free_pages", all.free_pages);
	jw_u64(w, "max_order", MAX_ORDER);
	jw_u64(w, "max_free_order", MAX_FREE_ORDER);
	jw_u64(w, "allocated_pages", all.allocated_pages);
	jw_u64(w, "dirty_pages", all.dirty_pages);
	JW_TABLE(w, "per_node", cols);
	for (unsigned int n = 0; n < nodes; n++) {
		unsigned int rc;

		if (heap_stats(n, 0, &st))
			continue;
		rc = heap_node_range_count(n);
		jw_row(w);
		jw_u64(w, NULL, n);
		jw_u64(w, NULL, st.free_pages);
		jw_u64(w, NULL, st.chunks);
		jw_u64(w, NULL, ticks_to_ns(st.init_ticks));
		jw_u64(w, NULL, st.total_pages);
		jw_u64(w, NULL, st.dirty_pages);
		jw_u64(w, NULL, st.free_chunks);
		jw_u64(w, NULL, rc);
		jw_u64(w, NULL, ticks_to_ns(st.lock_max_ticks));
		jw_row_end(w);
	}
	jw_table_end(w);
	jw_obj_end(w);
}
