/* SPDX-License-Identifier: MIT */
/*
 * Domains, the report's summary (docs/report-format.md, domains_info):
 * what the report says about all domains at once, so that the compact
 * report (the default) can leave most rows of the `domains` table out and
 * stay within its size budget (DESIGN §9: <= 32 KiB at 256 CPUs) with 64
 * domains, many of them failed.
 *
 * The compact report prints every row up to DOMAIN_REPORT_ROWS domains;
 * above, only chosen ones: the largest and the slowest domain built and
 * the first failed domain of each of the first two reasons, in id order.
 * domains_info.rows_left_out says how many are missing (report=full
 * prints them all), and the summary covers every domain: counts by state
 * and by node, bytes, table pages, and the failed ones' reasons grouped
 * by kind (the reason's text before its first ':' or digit, so "out of
 * memory: 3 GiB asked ..." and "out of memory: 5 GiB asked ..." are one
 * kind) with a count, at most DOMAIN_REASON_KINDS kinds, the rest as
 * "other".
 *
 * Boot CPU, after the build (or destroy); no lock.
 */
#include <keel/bootinfo.h>
#include <keel/domain.h>
#include <keel/json.h>
#include <keel/report.h>
#include <keel/string.h>
#include <keel/trace.h>

#include "report_priv.h"

#define DOMAIN_REPORT_ROWS  4
#define DOMAIN_REASON_KINDS 4

_Static_assert(MAX_NUMNODES <= 64, "by_node's node set is one uint64_t");

/* Length of @reason's kind: up to its first ':' or digit, no end blanks. */
static size_t reason_kind_len(const char *reason)
{
	size_t n = 0;

	while (reason[n] && reason[n] != ':' &&
	       !(reason[n] >= '0' && reason[n] <= '9'))
		n++;
	while (n && reason[n - 1] == ' ')
		n--;
	return n;
}

/* Two failed domains' reasons of one kind? */
static bool same_kind(const struct domain_view *a, const struct domain_view *b)
{
	size_t n = reason_kind_len(a->fail_reason);

	return n == reason_kind_len(b->fail_reason) &&
	       !strncmp(a->fail_reason, b->fail_reason, n);
}

/** domain_build_ns() - Return: @v's build wall time in ns (0: not built). */
uint64_t domain_build_ns(const struct domain_view *v)
{
	return ticks_to_ns(v->build_ticks);
}

/* The largest and the slowest built domain (index, -1 when none). */
static void pick_built(const struct domain_set *ds, int *largest, int *slowest)
{
	uint64_t big = 0, slow = 0;
	struct domain_view v;

	*largest = *slowest = -1;
	for (unsigned int i = 0; domain_view(ds, i, &v); i++) {
		if (!v.built)
			continue;
		if (*largest < 0 || v.bytes > big) {
			*largest = (int)i;
			big = v.bytes;
		}
		if (*slowest < 0 || domain_build_ns(&v) > slow) {
			*slowest = (int)i;
			slow = domain_build_ns(&v);
		}
	}
}

/**
 * domain_report_pick() - which rows of the `domains` table the report
 * prints (see the file comment).
 * @chosen: out, one flag per domain
 * Return: the number of rows chosen.
 */
unsigned int domain_report_pick(const struct domain_set *ds,
				bool chosen[DOMAIN_MAX])
{
	unsigned int count = domain_set_stats(ds)->count;
	bool all = report_full() || count <= DOMAIN_REPORT_ROWS;
	struct domain_view first, v;
	unsigned int kinds = 0, n = 0;
	int largest, slowest;

	for (unsigned int i = 0; i < DOMAIN_MAX; i++)
		chosen[i] = all && i < count;
	if (all)
		return count;
	pick_built(ds, &largest, &slowest);
	if (largest >= 0)
		chosen[largest] = true;
	if (slowest >= 0)
		chosen[slowest] = true;
	for (unsigned int i = 0; kinds < 2 && domain_view(ds, i, &v); i++) {
		if (!v.failed || (kinds && same_kind(&first, &v)))
			continue;
		chosen[i] = true;
		if (!kinds)
			first = v;
		kinds++;
	}
	for (unsigned int i = 0; i < count; i++)
		n += chosen[i];
	return n;
}

/* One by_node row: the domains of @node from domain @i on. */
static void by_node_row(struct jw *w, const struct domain_set *ds,
			unsigned int i, uint32_t node)
{
	unsigned int built = 0, failed = 0;
	struct domain_view v;
	uint64_t bytes = 0;

	for (unsigned int j = i; domain_view(ds, j, &v); j++) {
		if (v.node != node)
			continue;
		built += v.built;
		failed += v.failed;
		bytes += v.built ? v.bytes : 0;
	}
	jw_row(w);
	jw_u64(w, NULL, node);
	jw_u64(w, NULL, built);
	jw_u64(w, NULL, failed);
	jw_u64(w, NULL, bytes);
	jw_row_end(w);
}

/* domains_info.by_node: built and failed domains, built bytes, per node. */
static void json_by_node(struct jw *w, const struct domain_set *ds)
{
	static const char *const cols[] = {"node", "built", "failed",
					   "built_bytes"};
	struct domain_view v;
	uint64_t seen = 0;

	JW_TABLE(w, "by_node", cols);
	for (unsigned int i = 0; domain_view(ds, i, &v); i++) {
		if (seen >> v.node & 1)
			continue;
		seen |= 1ull << v.node;
		by_node_row(w, ds, i, v.node);
	}
	jw_table_end(w);
}

/*
 * The first failed domain of each reason kind (at most
 * DOMAIN_REASON_KINDS), their counts in @count; what is left over counts
 * in *@other. Return: kinds found.
 */
static unsigned int reason_kinds(const struct domain_set *ds,
				 struct domain_view *kind, unsigned int *count,
				 unsigned int *other)
{
	struct domain_view v;
	unsigned int n = 0;

	*other = 0;
	for (unsigned int i = 0; domain_view(ds, i, &v); i++) {
		unsigned int k = 0;

		if (!v.failed)
			continue;
		while (k < n && !same_kind(&kind[k], &v))
			k++;
		if (k == n && n == DOMAIN_REASON_KINDS) {
			(*other)++;
			continue;
		}
		if (k == n) {
			kind[n] = v;
			count[n++] = 0;
		}
		count[k]++;
	}
	return n;
}

/* domains_info.reasons: [kind, count, id of the first] per reason kind. */
static void json_reasons(struct jw *w, const struct domain_set *ds)
{
	static const char *const cols[] = {"reason", "count", "first"};
	struct domain_view kind[DOMAIN_REASON_KINDS];
	unsigned int count[DOMAIN_REASON_KINDS], other;
	unsigned int n = reason_kinds(ds, kind, count, &other);

	JW_TABLE(w, "reasons", cols);
	for (unsigned int k = 0; k < n; k++) {
		jw_row(w);
		jw_strn(w, NULL, kind[k].fail_reason,
			reason_kind_len(kind[k].fail_reason));
		jw_u64(w, NULL, count[k]);
		jw_u64(w, NULL, kind[k].id);
		jw_row_end(w);
	}
	if (other) {
		jw_row(w);
		jw_str(w, NULL, "other");
		jw_u64(w, NULL, other);
		jw_null(w, NULL);
		jw_row_end(w);
	}
	jw_table_end(w);
}

static void json_id(struct jw *w, const struct domain_set *ds, const char *key,
		    int i)
{
	struct domain_view v;

	if (i < 0 || !domain_view(ds, (unsigned int)i, &v))
		jw_null(w, key);
	else
		jw_u64(w, key, v.id);
}

/**
 * domains_summary_json() - the summary keys of domains_info (see the file
 * comment).
 * @w: the report's writer, inside domains_info
 * @ds: the boot's domains
 * @rows: the rows the `domains` table printed (domain_report_pick())
 */
void domains_summary_json(struct jw *w, const struct domain_set *ds,
			  unsigned int rows)
{
	uint64_t bytes = 0, tables = 0, remote = 0, fixed = 0;
	unsigned int built = 0, failed = 0;
	struct domain_view v;
	int largest, slowest;

	for (unsigned int i = 0; domain_view(ds, i, &v); i++) {
		built += v.built;
		failed += v.failed;
		if (!v.built)
			continue;
		bytes += v.bytes;
		if (v.origin == DOMAIN_ORIGIN_STATIC)
			fixed += v.bytes;
		tables += v.table_pages;
		remote += v.remote_bytes;
	}
	pick_built(ds, &largest, &slowest);
	jw_u64(w, "rows", rows);
	jw_u64(w, "rows_left_out", domain_set_stats(ds)->count - rows);
	jw_u64(w, "built", built);
	jw_u64(w, "failed", failed);
	jw_u64(w, "built_bytes", bytes);
	jw_u64(w, "static_bytes", fixed);
	jw_u64(w, "table_pages", tables);
	jw_u64(w, "remote_bytes", remote);
	json_id(w, ds, "largest", largest);
	json_id(w, ds, "slowest", slowest);
	json_by_node(w, ds);
	json_reasons(w, ds);
}
