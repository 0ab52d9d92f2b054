/* SPDX-License-Identifier: MIT */
/*
 * Guests, the report (docs/report-format.md): the `guests` table, one row
 * per vCPU of the last round, and `guests_info` beside it, as
 * `domains_info` sits beside `domains`; one human line per guest, above
 * GUEST_HUMAN_LINES only those with a problem, then a summary.
 *
 * The compact report keeps every row up to GUEST_REPORT_ROWS guests;
 * above, the guests with a problem or a stage-2 fault (the first
 * GUEST_REPORT_PICKED) and the one with the largest blackout, and
 * guests_info.rows_left_out says how many are missing (report=full:
 * every row). guests_info sums every guest of the round.
 *
 * Nothing is written unless guests=on ran a round (guests_info.rounds):
 * on a machine that cannot run guests, the empty table and
 * guests_info.unsupported say why. Boot CPU; no lock.
 */
#include <keel/compiler.h>
#include <keel/guest.h>
#include <keel/json.h>
#include <keel/printk.h>
#include <keel/string.h>
#include <keel/ticks.h>

#include "report_priv.h"

#define GUEST_REPORT_ROWS   16
#define GUEST_REPORT_PICKED 2
#define GUEST_HUMAN_LINES   16

static bool guest_bad(const struct vcpu *v)
{
	return v->bad_words || v->stage2_faults || v->end != GUEST_END_DONE;
}

/* The rows the report prints (all of them up to GUEST_REPORT_ROWS). */
static unsigned int pick_rows(const struct guests_state *g, bool full,
			      bool *chosen)
{
	unsigned int rows = 0, picked = 0, worst = 0;

	for (unsigned int i = 0; i < g->count; i++) {
		const struct vcpu *v = &g->vcpu[i];

		chosen[i] = full || g->count <= GUEST_REPORT_ROWS ||
			    (guest_bad(v) && picked++ < GUEST_REPORT_PICKED);
		if (v->gap_ticks > g->vcpu[worst].gap_ticks)
			worst = i;
	}
	if (g->count)
		chosen[worst] = true;
	for (unsigned int i = 0; i < g->count; i++)
		rows += chosen[i];
	return rows;
}

static void json_ipa(struct jw *w, uint64_t ipa)
{
	if (ipa == (uint64_t)GUEST_NO_IPA)
		jw_null(w, NULL);
	else
		jw_u64(w, NULL, ipa);
}

static void json_row(struct jw *w, const struct vcpu *v)
{
	jw_row(w);
	jw_u64(w, NULL, v->domain);
	jw_u64(w, NULL, v->cpu);
	jw_u64(w, NULL, v->pages_walked);
	jw_u64(w, NULL, v->bad_words);
	json_ipa(w, v->first_bad_ipa);
	jw_u64(w, NULL, v->stage2_faults);
	json_ipa(w, v->fault_ipa);
	jw_u64(w, NULL, ticks_to_ns(v->gap_ticks));
	jw_u64(w, NULL, v->runs);
	jw_str(w, NULL, guest_end_name(v->end));
	jw_u64(w, NULL, ticks_to_ns(v->walk_cpu_ticks));
	jw_u64(w, NULL, v->pages_skipped);
	jw_row_end(w);
}

static uint64_t blackout_max_ticks(const struct guests_state *g)
{
	uint64_t m = 0;

	for (unsigned int i = 0; i < g->count; i++)
		m = MAX(m, g->vcpu[i].gap_ticks);
	return m;
}

static void json_info(struct jw *w, const struct guests_state *g,
		      unsigned int rows)
{
	uint64_t walk_ns = ticks_to_ns(g->walk_ticks);

	jw_obj(w, "guests_info");
	jw_str(w, "unsupported", g->unsupported);
	jw_u64(w, "rounds", g->rounds);
	jw_u64(w, "count", g->count);
	jw_u64(w, "blackout_max_ns", ticks_to_ns(blackout_max_ticks(g)));
	jw_u64(w, "bad_words", g->bad_words_rounds);
	jw_u64(w, "problems", g->problems);
	jw_u64(w, "touch", g->touch);
	jw_u64(w, "run_ms", g->run_ms);
	jw_u64(w, "slice_us", GUEST_SLICE_US);
	jw_u64(w, "walk_bytes", g->walk_bytes);
	jw_u64(w, "pages_skipped", g->skipped_pages);
	jw_u64(w, "walk_ns", walk_ns);
	jw_milli(w, "walk_gbps", rate_gbps_milli(g->walk_bytes, walk_ns));
	jw_u64(w, "run_ns", ticks_to_ns(g->run_ticks));
	jw_u64(w, "rows_left_out", g->count - rows);
	jw_obj_end(w);
}

/**
 * guests_report_json() - `guests` and `guests_info` (none without
 * guests=on).
 * @w: the report's writer
 * @full: report=full: every row
 */
void guests_report_json(struct jw *w, bool full)
{
	static const char *const cols[] = {
		"domain",      "cpu",		"pages_walked",
		"bad_words",   "first_bad_ipa", "stage2_faults",
		"fault_ipa",   "blackout_ns",	"runs",
		"exit_reason", "walk_ns",	"pages_skipped",
	};
	const struct guests_state *g = guests_state();
	bool chosen[DOMAIN_MAX];
	unsigned int rows;

	if (!g->rounds)
		return;
	rows = pick_rows(g, full, chosen);
	JW_TABLE(w, "guests", cols);
	for (unsigned int i = 0; i < g->count; i++)
		if (chosen[i])
			json_row(w, &g->vcpu[i]);
	jw_table_end(w);
	json_info(w, g, rows);
}

static void human_line(const struct vcpu *v)
{
	uint64_t us = ticks_to_ns(v->gap_ticks) / 1000;
	char skipped[48] = "";

	if (v->pages_skipped)
		snprintf(skipped, sizeof(skipped), ", %llu bad pages skipped",
			 (unsigned long long)v->pages_skipped);
	pr_info("guest %u: cpu %u, %llu pages walked, %llu bad words, "
		"%llu stage-2 faults, blackout %llu.%03llu ms, %llu runs, "
		"%s%s\n",
		v->domain, v->cpu, (unsigned long long)v->pages_walked,
		(unsigned long long)v->bad_words,
		(unsigned long long)v->stage2_faults,
		(unsigned long long)(us / 1000),
		(unsigned long long)(us % 1000), (unsigned long long)v->runs,
		guest_end_name(v->end), skipped);
}

/** guests_report_human() - the "guest" lines (bounded) and the summary. */
void guests_report_human(void)
{
	const struct guests_state *g = guests_state();
	uint64_t ns = ticks_to_ns(g->walk_ticks);
	uint64_t gb = rate_gbps_milli(g->walk_bytes, ns);
	uint64_t us = ticks_to_ns(blackout_max_ticks(g)) / 1000;
	unsigned int lines = 0;
	char walk[96];

	if (!g->rounds || g->unsupported)
		return;
	for (unsigned int i = 0; i < g->count; i++)
		if ((g->count <= GUEST_HUMAN_LINES || guest_bad(&g->vcpu[i])) &&
		    lines++ < GUEST_HUMAN_LINES)
			human_line(&g->vcpu[i]);
	/* A walk under a microsecond (or none) is said so, never "0 us". */
	if (g->walk_bytes && ns >= 1000)
		snprintf(walk, sizeof(walk),
			 "%llu MiB walked in %llu us (%llu.%03llu GB/s "
			 "through stage 2)",
			 (unsigned long long)(g->walk_bytes >> 20),
			 (unsigned long long)(ns / 1000),
			 (unsigned long long)(gb / 1000),
			 (unsigned long long)(gb % 1000));
	else if (g->walk_bytes)
		snprintf(walk, sizeof(walk), "%llu KiB walked in %llu ns",
			 (unsigned long long)(g->walk_bytes >> 10),
			 (unsigned long long)ns);
	else
		snprintf(walk, sizeof(walk), "no memory walked");
	pr_info("guests: %u in round %u, %s, %llu bad pages skipped, %llu bad "
		"words in all rounds, blackout at most %llu.%03llu ms\n",
		g->count, g->rounds, walk, (unsigned long long)g->skipped_pages,
		(unsigned long long)g->bad_words_rounds,
		(unsigned long long)(us / 1000),
		(unsigned long long)(us % 1000));
}
