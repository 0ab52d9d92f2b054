/* SPDX-License-Identifier: MIT */
/*
 * The `liveupdate` object of the report and its human line (DESIGN §13,
 * docs/liveupdate.md): what this image found of the last one (the
 * handover: taken, refused, discarded, none), its generation and build
 * ids, what was preserved, the phases of the last jump and the downtime
 * on one clock, and the words of the preserved domains read back.
 *
 * Keys: liveupdate.{state, generation, build; then, unless a cold boot
 * asks for no update: asked, freeze_bound_ms, from_build,
 * handover_bytes, preserved_ranges, preserved_bytes, domains,
 * domains_restored, domains_failed, extents, phases.{freeze,
 * handover_write, relocate, entry_to_heap, restore, verify}, downtime_ns
 * (the old freeze to the domains restored), verified_words, mismatches,
 * guests_resumed, guests_stop_ns, guests_not_resumed, kept_pages.{handover,
 * p2m_tables}}. Build ids are 16 hex digits, as strings.
 *
 * What an update keeps that a cold boot of the same machine does not
 * (kept_pages, and its human line): the handover's own pages, reserved
 * while the restored domains live (their records are read from it, and
 * the next update copies them), and the restored domains' p2m table
 * pages, reserved "preserved" (the domains run on them; a cold boot
 * counts its tables allocated). Every other page is counted as the cold
 * boot counts it.
 */
#include <keel/compiler.h>
#include <keel/domain.h>
#include <keel/guest.h>
#include <keel/json.h>
#include <keel/liveupdate.h>
#include <keel/printk.h>
#include <keel/string.h>
#include <keel/ticks.h>

#include "report_priv.h"

static const char *const state_names[] = {
	[HANDOVER_NONE] = "none",
	[HANDOVER_TAKEN] = "taken",
	[HANDOVER_REFUSED] = "refused",
	[HANDOVER_DISCARDED] = "discarded",
};

static void jw_build(struct jw *w, const char *key, uint64_t id)
{
	char hex[17];

	if (!id) {
		jw_null(w, key);
		return;
	}
	snprintf(hex, sizeof(hex), "%016llx", (unsigned long long)id);
	jw_str(w, key, hex);
}

/* What this image keeps reserved that a cold boot would not (the top). */
struct lu_kept {
	uint64_t handover, tables;
};

static struct lu_kept kept_of(const struct liveupdate_info *l,
			      const struct domain_set *ds)
{
	struct lu_kept k = {0, 0};
	struct domain_view v;

	if (l->state != HANDOVER_TAKEN)
		return k;
	k.handover = ALIGN_UP(l->handover_bytes, PAGE_SIZE) >> PAGE_SHIFT;
	for (unsigned int i = 0; ds && domain_view(ds, i, &v); i++)
		if (v.origin == DOMAIN_ORIGIN_HANDOVER && v.built)
			k.tables += v.table_pages;
	return k;
}

/** liveupdate_report_json() - the `liveupdate` object. */
void liveupdate_report_json(struct jw *w, const struct domain_set *ds)
{
	struct lu_kept k = kept_of(liveupdate_info(), ds);
	const struct liveupdate_info *l = liveupdate_info();
	const struct guests_state *g = guests_state();

	jw_obj(w, "liveupdate");
	jw_str(w, "state", state_names[l->state]);
	jw_u64(w, "generation", l->generation);
	jw_build(w, "build", l->build);
	/* A cold boot that asks for none: the compact report's budget. */
	if (l->state == HANDOVER_NONE && !l->asked) {
		jw_obj_end(w);
		return;
	}
	jw_u64(w, "asked", l->asked);
	jw_u64(w, "freeze_bound_ms", l->freeze_bound_ms);
	jw_build(w, "from_build", l->from_build);
	jw_u64(w, "handover_bytes", l->handover_bytes);
	jw_u64(w, "preserved_ranges", l->preserved_ranges);
	jw_u64(w, "preserved_bytes", l->preserved_bytes);
	jw_u64(w, "domains", l->domains);
	jw_u64(w, "domains_restored", l->domains_restored);
	jw_u64(w, "domains_failed", l->domains_failed);
	jw_u64(w, "extents", l->extents);
	jw_obj(w, "phases");
	jw_u64(w, "freeze", l->freeze_ns);
	jw_u64(w, "handover_write", l->handover_write_ns);
	jw_u64(w, "relocate", l->relocate_ns);
	jw_u64(w, "entry_to_heap", l->entry_to_heap_ns);
	jw_u64(w, "restore", l->restore_ns);
	jw_u64(w, "verify", l->verify_ns);
	jw_obj_end(w);
	if (l->timed)
		jw_u64(w, "downtime_ns", l->downtime_ns);
	else
		jw_null(w, "downtime_ns");
	jw_u64(w, "verified_words", l->verified_words);
	jw_u64(w, "mismatches", l->mismatches);
	jw_u64(w, "guests_resumed", g->resumed);
	jw_u64(w, "guests_stop_ns", g->stop_after_ns);
	jw_str(w, "guests_not_resumed", g->carry_why);
	jw_obj(w, "kept_pages");
	jw_u64(w, "handover", k.handover);
	jw_u64(w, "p2m_tables", k.tables);
	jw_obj_end(w);
	jw_obj_end(w);
}

/* The guests' line: how many resumed, the largest blackout they saw. */
static void guests_line(const struct liveupdate_info *l)
{
	const struct guests_state *g = guests_state();
	uint64_t max = 0;

	if (!g->carried && !g->resumed)
		return;
	for (unsigned int i = 0; i < g->count; i++)
		if (g->vcpu[i].resumed)
			max = MAX(max, ticks_to_ns(g->vcpu[i].gap_ticks));
	pr_info("liveupdate: %u guests resumed, blackout max %llu.%llu ms "
		"(downtime %llu.%llu ms)\n",
		g->resumed, (unsigned long long)(max / 1000000),
		(unsigned long long)(max / 100000 % 10),
		(unsigned long long)(l->downtime_ns / 1000000),
		(unsigned long long)(l->downtime_ns / 100000 % 10));
}

/* The pages kept reserved, and why (see the top). */
static void kept_line(const struct liveupdate_info *l,
		      const struct domain_set *ds)
{
	struct lu_kept k = kept_of(l, ds);

	pr_info("liveupdate: kept reserved beyond a cold boot: %llu page%s of "
		"the handover (the restored domains' records, for the next "
		"update), %llu p2m table page%s the restored domains run on (a "
		"cold boot counts them allocated)\n",
		(unsigned long long)k.handover, k.handover == 1 ? "" : "s",
		(unsigned long long)k.tables, k.tables == 1 ? "" : "s");
}

/** liveupdate_report_human() - one line after a handover was taken. */
void liveupdate_report_human(const struct domain_set *ds)
{
	const struct liveupdate_info *l = liveupdate_info();
	char size[FORMAT_BYTES_LEN], what[128];

	if (l->state != HANDOVER_TAKEN)
		return;
	format_bytes(size, sizeof(size), l->preserved_bytes, FORMAT_DOWN);
	/* The size is the preserved memory's: said so when not all came. */
	if (l->domains_restored == l->domains && !l->domains_failed)
		snprintf(what, sizeof(what), "%u domains (%s) restored",
			 l->domains_restored, size);
	else
		snprintf(what, sizeof(what),
			 "%u of %u domains restored (%s preserved; the "
			 "others' memory stays reserved)",
			 l->domains_restored, l->domains, size);
	pr_info("liveupdate: generation %llu, %s in %llu.%llu ms downtime, "
		"%llu mismatches\n",
		(unsigned long long)l->generation, what,
		(unsigned long long)(l->downtime_ns / 1000000),
		(unsigned long long)(l->downtime_ns / 100000 % 10),
		(unsigned long long)l->mismatches);
	kept_line(l, ds);
	guests_line(l);
}
