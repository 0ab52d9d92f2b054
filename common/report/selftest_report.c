/* SPDX-License-Identifier: MIT */
/*
 * The report's small sections whose numbers other rooms keep as data:
 * "cachemaint" (mm's maintenance counters) and "p2m" (the p2m self-test's
 * result).
 */
#include <keel/cachemaint.h>
#include <keel/heap.h>
#include <keel/json.h>
#include <keel/p2m.h>
#include <keel/p2m_selftest.h>

#include "report_priv.h"

/**
 * cachemaint_report_json() - the report's "cachemaint" object (keys
 * cachemaint.*).
 * @w: the report's writer.
 */
void cachemaint_report_json(struct jw *w)
{
	/* The boot's policy and sink: the flow gave them to the heap. */
	const struct cachemaint *cm = heap_cachemaint();

	jw_obj(w, "cachemaint");
	jw_str(w, "mode", cachemaint_mode_name(cm->mode));
	jw_u64(w, "ops", cm->stats->ops);
	jw_u64(w, "bytes", cm->stats->bytes);
	jw_u64(w, "batches", cm->stats->batches);
	jw_obj_end(w);
}

/**
 * p2m_report_json() - the report's "p2m" object, after p2m_selftest().
 * @w: the report's writer
 */
void p2m_report_json(struct jw *w)
{
	const struct p2m_selftest_result *st = p2m_selftest_result();

	if (!st->ran)
		return;
	jw_obj(w, "p2m");
	jw_obj(w, "selftest");
	jw_str(w, "format", st->format);
	jw_u64(w, "ipa_bits", st->ipa_bits);
	jw_u64(w, "tables", st->tables);
	jw_u64(w, "samples", st->samples);
	jw_u64(w, "hw_checked", st->hw_checked);
	jw_u64(w, "table_pages", st->table_pages);
	jw_bool(w, "ok", st->ok);
	jw_obj_end(w);
	jw_obj_end(w);
}
