/* SPDX-License-Identifier: MIT */
/*
 * The report's "nodes" table: the sanitised bootinfo's nodes, joined with
 * the SMP room's CPUs (nodes[].cpus) and the heap's free memory
 * (nodes[].free_bytes).
 */
#include <keel/bootinfo.h>
#include <keel/heap.h>
#include <keel/json.h>
#include <keel/numa.h>
#include <keel/smp.h>

#include "report_priv.h"

/**
 * numa_report_json() - the report's "nodes" table (keys nodes[].*).
 * @w: the report's writer.
 * @bi: the sanitised bootinfo of this boot.
 */
void numa_report_json(struct jw *w, const struct bootinfo *bi)
{
	static const char *const cols[] = {
		"id",	    "mem_bytes",  "ranges", "cpus",
		"distance", "free_bytes", "fw_id",
	};

	JW_TABLE(w, "nodes", cols);
	for (unsigned int n = 0; n < bi->node_count; n++) {
		struct heap_stats st;
		bool heap = !heap_stats(n, 0, &st);

		jw_row(w);
		jw_u64(w, NULL, n);
		jw_u64(w, NULL, bootinfo_node_ram_bytes(bi, n));
		jw_arr(w, NULL);
		for (unsigned int i = 0; i < bi->ram.count; i++) {
			if (bi->ram.regions[i].node != n)
				continue;
			jw_arr(w, NULL);
			jw_u64(w, NULL, pa_val(bi->ram.regions[i].start));
			jw_u64(w, NULL, pa_val(bi->ram.regions[i].end));
			jw_arr_end(w);
		}
		jw_arr_end(w);
		jw_arr(w, NULL);
		for (unsigned int c = 0; c < cpu_count && c < NR_CPUS; c++)
			if (cpu_table[c].node == n)
				jw_u64(w, NULL, c);
		jw_arr_end(w);
		jw_arr(w, NULL);
		for (unsigned int m = 0; m < bi->node_count; m++)
			jw_u64(w, NULL, bi->distance[n][m]);
		jw_arr_end(w);
		jw_u64(w, NULL, heap ? st.free_pages * PAGE_SIZE : 0);
		if (bi->node_fw_id[n] == NODE_FW_ID_NONE)
			jw_str(w, NULL, NULL); /* null */
		else
			jw_u64(w, NULL, bi->node_fw_id[n]);
		jw_row_end(w);
	}
	jw_table_end(w);
}
