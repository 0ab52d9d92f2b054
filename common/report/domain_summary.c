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
#include <keel/json.h>
#include <keel/report.h>
#include <keel/string.h>
#include <keel/trace.h>

#include "../domain/domain_priv.h"
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

static bool same_kind(const struct domain *a, const struct domain *b)
{
	size_t n = reason_kind_len(a->fail_reason);

	return n == reason_kind_len(b->fail_reason) &&
	       !strncmp(a->fail_reason, b->fail_reason, n);
}

/** domain_build_ns() - Return: @d's build wall time in ns (0: not built). */
uint64_t domain_build_ns(const struct domain *d)
{
	if (!d->built || d->end_ticks < d->start_ticks)
		return 0;
	return ticks_to_ns(d->end_ticks - d->start_ticks);
}

/* The largest and the slowest built domain (index, -1 when none). */
static void pick_built(int *largest, int *slowest)
{
	*largest = *slowest = -1;
	for (unsigned int i = 0; i < domains_count; i++) {
		const struct domain *d = &domains[i];

		if (!d->built)
			continue;
		if (*largest < 0 ||
		    d->spec.bytes > domains[*largest].spec.bytes)
			*largest = (int)i;
		if (*slowest < 0 ||
		    domain_build_ns(d) > domain_build_ns(&domains[*slowest]))
			*slowest = (int)i;
	}
}

/**
 * domain_report_pick() - which rows of the `domains` table the report
 * prints (see the file comment).
 * @chosen: out, one flag per domain
 * Return: the number of rows chosen.
 */
unsigned int domain_report_pick(bool chosen[DOMAIN_MAX])
{
	bool all = report_full() || domains_count <= DOMAIN_REPORT_ROWS;
	const struct domain *first = NULL;
	unsigned int kinds = 0, n = 0;
	int largest, slowest;

	for (unsigned int i = 0; i < DOMAIN_MAX; i++)
		chosen[i] = all && i < domains_count;
	if (all)
		return domains_count;
	pick_built(&largest, &slowest);
	if (largest >= 0)
		chosen[largest] = true;
	if (slowest >= 0)
		chosen[slowest] = true;
	for (unsigned int i = 0; i < domains_count && kinds < 2; i++) {
		const struct domain *d = &domains[i];

		if (!d->failed || (first && same_kind(first, d)))
			continue;
		chosen[i] = true;
		first = first ? first : d;
		kinds++;
	}
	for (unsigned int i = 0; i < domains_count; i++)
		n += chosen[i];
	return n;
}

/* domains_info.by_node: built and failed domains, built bytes, per node. */
static void json_by_node(struct jw *w)
{
	static const char *const cols[] = {"node", "built", "failed",
					   "built_bytes"};
	uint64_t seen = 0;

	JW_TABLE(w, "by_node", cols);
	for (unsigned int i = 0; i < domains_count; i++) {
		uint32_t node = domains[i].node;
		unsigned int built = 0, failed = 0;
		uint64_t bytes = 0;

		if (seen >> node & 1)
			continue;
		for (unsigned int j = i; j < domains_count; j++) {
			const struct domain *d = &domains[j];

			if (d->node != node)
				continue;
			built += d->built;
			failed += d->failed;
			bytes += d->built ? d->spec.bytes : 0;
		}
		seen |= 1ull << node;
		jw_row(w);
		jw_u64(w, NULL, node);
		jw_u64(w, NULL, built);
		jw_u64(w, NULL, failed);
		jw_u64(w, NULL, bytes);
		jw_row_end(w);
	}
	jw_table_end(w);
}

/*
 * The first failed domain of each reason kind (at most
 * DOMAIN_REASON_KINDS), their counts in @count; what is left over counts
 * in *@other. Return: kinds found.
 */
static unsigned int reason_kinds(const struct domain **kind,
				 unsigned int *count, unsigned int *other)
{
	unsigned int n = 0;

	*other = 0;
	for (unsigned int i = 0; i < domains_count; i++) {
		const struct domain *d = &domains[i];
		unsigned int k = 0;

		if (!d->failed)
			continue;
		while (k < n && !same_kind(kind[k], d))
			k++;
		if (k == n && n == DOMAIN_REASON_KINDS) {
			(*other)++;
			continue;
		}
		if (k == n) {
			kind[n] = d;
			count[n++] = 0;
		}
		count[k]++;
	}
	return n;
}

/* domains_info.reasons: [kind, count, id of the first] per reason kind. */
static void json_reasons(struct jw *w)
{
	static const char *const cols[] = {"reason", "count", "first"};
	const struct domain *kind[DOMAIN_REASON_KINDS];
	unsigned int count[DOMAIN_REASON_KINDS], other;
	unsigned int n = reason_kinds(kind, count, &other);

	JW_TABLE(w, "reasons", cols);
	for (unsigned int k = 0; k < n; k++) {
		jw_row(w);
		jw_strn(w, NULL, kind[k]->fail_reason,
			reason_kind_len(kind[k]->fail_reason));
		jw_u64(w, NULL, count[k]);
		jw_u64(w, NULL, kind[k]->id);
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

static void json_id(struct jw *w, const char *key, int i)
{
	if (i < 0)
		jw_null(w, key);
	else
		jw_u64(w, key, domains[i].id);
}

/**
 * domains_summary_json() - the summary keys of domains_info (see the file
 * comment).
 * @w: the report's writer, inside domains_info
 * @rows: the rows the `domains` table printed (domain_report_pick())
 */
void domains_summary_json(struct jw *w, unsigned int rows)
{
	uint64_t bytes = 0, tables = 0, remote = 0, fixed = 0;
	unsigned int built = 0, failed = 0;
	int largest, slowest;

	for (unsigned int i = 0; i < domains_count; i++) {
		const struct domain *d = &domains[i];

		built += d->built;
		failed += d->failed;
		if (!d->built)
			continue;
		bytes += d->spec.bytes;
		if (d->origin == DOMAIN_ORIGIN_STATIC)
			fixed += d->spec.bytes;
		tables += d->table_pages;
		remote += d->remote_bytes;
	}
	pick_built(&largest, &slowest);
	jw_u64(w, "rows", rows);
	jw_u64(w, "rows_left_out", domains_count - rows);
	jw_u64(w, "built", built);
	jw_u64(w, "failed", failed);
	jw_u64(w, "built_bytes", bytes);
	jw_u64(w, "static_bytes", fixed);
	jw_u64(w, "table_pages", tables);
	jw_u64(w, "remote_bytes", remote);
	json_id(w, "largest", largest);
	json_id(w, "slowest", slowest);
	json_by_node(w);
	json_reasons(w);
}
