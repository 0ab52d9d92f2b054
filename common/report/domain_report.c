/* SPDX-License-Identifier: MIT */
/*
 * Domains, step 5: the report (docs/report-format.md). The `domains`
 * table, one row per domain (built or failed; the compact report keeps a
 * few rows when there are many: domain_summary.c), `domains_build_ns`,
 * and `domains_info` (dropped, problems, sampling, the p2m format, the
 * heap's free memory before the build and after destroy, the summary of
 * every domain). Human lines: one per domain up to DOMAIN_HUMAN_LINES,
 * else the failed ones; then a summary, sizes in a unit that fits.
 * Times are summed over the CPUs that built a domain (alloc/zero/map/
 * maint), except build_ns, which is wall time. Boot CPU; no lock.
 */
#include <keel/cachemaint.h>
#include <keel/compiler.h>
#include <keel/domain.h>
#include <keel/enum_names.h>
#include <keel/heap.h>
#include <keel/heap_check.h>
#include <keel/json.h>
#include <keel/p2m.h>
#include <keel/printk.h>
#include <keel/string.h>
#include <keel/trace.h>

#include "report_priv.h"

#define DOMAIN_HUMAN_LINES 16

static void json_row(struct jw *w, const struct domain_view *d)
{
	uint64_t ns = domain_build_ns(d);

	jw_row(w);
	jw_u64(w, NULL, d->id);
	jw_str(w, NULL, d->name);
	jw_u64(w, NULL, d->node);
	jw_u64(w, NULL, d->bytes);
	jw_u64(w, NULL, d->remote_bytes);
	for (unsigned int k = 0; k < DOMAIN_EXTENT_KINDS; k++)
		jw_u64(w, NULL, d->built ? d->extents[k] : 0);
	jw_u64(w, NULL, d->built ? d->heap_extents : 0);
	jw_u64(w, NULL, ns);
	jw_u64(w, NULL, ticks_to_ns(d->alloc_ticks));
	jw_u64(w, NULL, ticks_to_ns(d->zero_ticks));
	jw_u64(w, NULL, ticks_to_ns(d->map_ticks));
	jw_u64(w, NULL, ticks_to_ns(d->maint_ticks));
	jw_u64(w, NULL, ticks_to_ns(d->lock_max_ticks));
	jw_u64(w, NULL, d->table_pages);
	jw_u64(w, NULL, d->cpus);
	jw_milli(w, NULL, d->built ? rate_gbps_milli(d->bytes, ns) : 0);
	if (d->failed)
		jw_str(w, NULL, d->fail_reason);
	else
		jw_null(w, NULL);
	jw_str(w, NULL, domain_origin_name(d->origin));
	if (d->vcpus)
		jw_u64(w, NULL, d->vcpus);
	else
		jw_null(w, NULL);
	jw_str(w, NULL, d->kernel);
	/* Pages offlined in its extents: still its own (heap_offline()). */
	jw_u64(w, NULL, d->p2m ? heap_held_bad_pages(d->id) : 0);
	jw_row_end(w);
}

static void json_snap(struct jw *w, const char *key,
		      const struct domain_heap_snap *s)
{
	if (!s->taken) {
		jw_null(w, key);
		return;
	}
	jw_obj(w, key);
	jw_u64(w, "free_pages", s->free_pages);
	jw_u64(w, "free_chunks", s->free_chunks);
	jw_obj_end(w);
}

static void json_bench(struct jw *w, const struct domain_bench *b)
{
	if (!b->done) {
		jw_null(w, "bench");
		return;
	}
	jw_obj(w, "bench");
	jw_u64(w, "bytes", b->bytes);
	jw_u64(w, "node", b->node);
	jw_str(w, "mode", cachemaint_mode_name(heap_cachemaint()->mode));
	jw_u64(w, "deferred_ns", ticks_to_ns(b->deferred.ticks));
	jw_u64(w, "eager_ns", ticks_to_ns(b->eager.ticks));
	jw_u64(w, "deferred_zeroed_bytes", b->deferred.zeroed_bytes);
	jw_u64(w, "deferred_maint_bytes", b->deferred.maint_bytes);
	jw_u64(w, "eager_zeroed_bytes", b->eager.zeroed_bytes);
	jw_u64(w, "eager_maint_bytes", b->eager.maint_bytes);
	jw_bool(w, "ok", !b->deferred_err && !b->eager_err);
	jw_obj_end(w);
}

/**
 * domains_report_json() - the report's domains keys for @ds (none without
 * domains).
 */
void domains_report_json(struct jw *w, const struct domain_set *ds)
{
	static const char *const cols[] = {
		"id",		"name",	      "node",	     "bytes",
		"remote_bytes", "extents_1g", "extents_2m",  "extents_4k",
		"heap_extents", "build_ns",   "alloc_ns",    "zero_ns",
		"map_ns",	"maint_ns",   "lock_max_ns", "table_pages",
		"cpus",		"gbps",	      "fail_reason", "origin",
		"vcpus",	"kernel",     "bad_pages",
	};
	const struct domain_set_stats *st = domain_set_stats(ds);
	bool chosen[DOMAIN_MAX];
	struct domain_view v;
	unsigned int rows;

	if (!st->count && !st->dropped)
		return;
	rows = domain_report_pick(ds, chosen);
	JW_TABLE(w, "domains", cols);
	for (unsigned int i = 0; domain_view(ds, i, &v); i++)
		if (chosen[i])
			json_row(w, &v);
	jw_table_end(w);
	jw_u64(w, "domains_build_ns", ticks_to_ns(st->build_ticks));
	jw_obj(w, "domains_info");
	jw_u64(w, "dropped", st->dropped);
	jw_u64(w, "problems", st->problems);
	jw_u64(w, "zero_sampled", st->zero_sampled);
	jw_u64(w, "hw_checked", st->hw_checked);
	jw_str(w, "p2m_format", p2m_format_name());
	json_snap(w, "before", &st->before);
	json_snap(w, "after", &st->after);
	json_bench(w, &st->bench);
	domains_summary_json(w, ds, rows);
	jw_obj_end(w);
}

/* origin= words of domains[].origin (one table: keel/enum_names.h). */
static const struct enum_name domain_origin_names[] = {
	{DOMAIN_ORIGIN_BOOT, "boot"},
	{DOMAIN_ORIGIN_STATIC, "static"},
	{DOMAIN_ORIGIN_HANDOVER, "handover"},
	ENUM_NAMES_END,
};

const char *domain_origin_name(enum domain_origin o)
{
	return enum_name(domain_origin_names, o);
}

/* d->shown: the name made printable (a DT name may hold any byte). */
static void human_line(const struct domain_view *d)
{
	uint64_t ns = domain_build_ns(d);
	uint64_t g = rate_gbps_milli(d->bytes, ns);
	const char *st = d->origin == DOMAIN_ORIGIN_STATIC     ? " static"
			 : d->origin == DOMAIN_ORIGIN_HANDOVER ? " restored"
							       : "";
	char size[FORMAT_BYTES_LEN], remote[FORMAT_BYTES_LEN];

	format_bytes(size, sizeof(size), d->bytes, FORMAT_DOWN);
	if (d->failed) {
		pr_info("domain %u %s: %s%s on node %u: FAILED: %s\n", d->id,
			d->shown, size, st, d->node, d->fail_reason);
		return;
	}
	format_bytes(remote, sizeof(remote), d->remote_bytes, FORMAT_DOWN);
	pr_info("domain %u %s: %s%s on node %u (%s remote), "
		"%llu+%llu+%llu extents 1G+2M+4K, %llu us on %u CPUs, "
		"%llu.%03llu GB/s\n",
		d->id, d->shown, size, st, d->node, remote,
		(unsigned long long)d->extents[0],
		(unsigned long long)d->extents[1],
		(unsigned long long)d->extents[2],
		(unsigned long long)(ns / 1000), d->cpus,
		(unsigned long long)(g / 1000), (unsigned long long)(g % 1000));
}

/** domains_report_human() - the "domain" lines of @ds (bounded, see above). */
void domains_report_human(const struct domain_set *ds)
{
	const struct domain_set_stats *st = domain_set_stats(ds);
	unsigned int built = 0, failed = 0, lines = 0;
	uint64_t bytes = 0, tables = 0;
	char b[FORMAT_BYTES_LEN], t[FORMAT_BYTES_LEN];
	struct domain_view v;

	for (unsigned int i = 0; domain_view(ds, i, &v); i++) {
		built += v.built;
		failed += v.failed;
		bytes += v.built ? v.bytes : 0;
		tables += v.built ? v.table_pages : 0;
		if ((st->count <= DOMAIN_HUMAN_LINES || v.failed) &&
		    lines++ < DOMAIN_HUMAN_LINES)
			human_line(&v);
	}
	if (!st->count)
		return;
	format_bytes(b, sizeof(b), bytes, FORMAT_DOWN);
	format_bytes(t, sizeof(t), tables << PAGE_SHIFT, FORMAT_DOWN);
	pr_info("domains: %u built (%s + %s of tables), %u failed, %u "
		"dropped, in %llu us\n",
		built, b, t, failed, st->dropped,
		(unsigned long long)(ticks_to_ns(st->build_ticks) / 1000));
}
