/* SPDX-License-Identifier: MIT */
/*
 * The allocation self-benchmark's part of the report (bench=on): the
 * "bench" table from bench_rows[] (common/selftest/bench.c fills them, see
 * include/keel/bench.h for what each column means) and "bench_info".
 * Boot CPU, at report time; no lock.
 */
#include <keel/bench.h>
#include <keel/compiler.h>
#include <keel/json.h>
#include <keel/report.h>

#include "report_priv.h"

/*
 * The compact report keeps the rows of the first BENCH_REPORT_NODES nodes
 * benchmarked (every row on a machine of 1 or 2 nodes): 12 rows a node,
 * over 4 KB at 8 nodes, would not fit the report's budget at 256 CPUs
 * (DESIGN §9). report=full prints them all; bench_info counts them.
 */
#define BENCH_REPORT_NODES 2

/* Row @i is printed: report=full, or its node is one of the first ones. */
static bool bench_row_shown(unsigned int i)
{
	unsigned int nodes = 0;

	if (report_full())
		return true;
	for (unsigned int j = 0; j <= i; j++)
		nodes += !j || bench_rows[j].node != bench_rows[j - 1].node;
	return nodes <= BENCH_REPORT_NODES;
}

static void bench_json_row(struct jw *w, const struct bench_row *b)
{
	jw_row(w);
	jw_u64(w, NULL, b->order);
	jw_u64(w, NULL, b->node);
	jw_u64(w, NULL, b->count);
	jw_u64(w, NULL, b->ns_avg);
	jw_u64(w, NULL, b->ns_max);
	jw_u64(w, NULL, b->lock_ns_max);
	jw_u64(w, NULL, b->maint_ns);
	jw_str(w, NULL, b->mode);
	jw_bool(w, NULL, b->dirty);
	jw_row_end(w);
}

/**
 * bench_report_json() - the report's "bench" table (keys bench[].*; empty
 * unless bench=on) and, after bench=on, "bench_info".
 * @w: the report's writer.
 */
void bench_report_json(struct jw *w)
{
	static const char *const cols[] = {
		"order",       "node",	   "count", "ns_avg", "ns_max",
		"lock_ns_max", "maint_ns", "mode",  "dirty",
	};
	unsigned int n = MIN(bench_row_count, (unsigned int)BENCH_MAX_ROWS);
	unsigned int shown = 0;

	JW_TABLE(w, "bench", cols);
	for (unsigned int i = 0; i < n; i++) {
		if (!bench_row_shown(i))
			continue;
		bench_json_row(w, &bench_rows[i]);
		shown++;
	}
	jw_table_end(w);
	if (!n)
		return;
	jw_obj(w, "bench_info");
	jw_u64(w, "rows", shown);
	jw_u64(w, "rows_left_out", n - shown);
	jw_obj_end(w);
}
