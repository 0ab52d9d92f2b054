/* SPDX-License-Identifier: MIT */
/*
 * Bad memory in the report (issue 38 §6): the "bad_memory" object and its
 * human line, read from bootmem's reserved table, where every bad range
 * is a reservation named after its source (include/keel/badmem.h: "bad
 * firmware", "bad option", ...). The table is trimmed to RAM, so every
 * page counted is a RAM page; each is counted once (bootmem gives a byte
 * the first name it is reserved under). O(reserved regions + RAM
 * regions): 100,000 bad pages are a few ms.
 *
 * ranges: one row per bad region, [start, end, pages, source] (a list of
 * lists, as memmap.reserved); above
 * BADMEM_RANGES_SHOWN regions (unless report=full) the regions are cut
 * into that many groups of consecutive regions, one row each spanning
 * its group, with the bad pages inside it and its source ("mixed" when
 * they differ): every bad page stays inside some row and the pages add up.
 * The rows after the table's (pages taken out by the heap, a lattice's
 * pages in keel's own reservations, kept runs) are grouped the same way.
 *
 * A page a live update's handover carried is counted under the source
 * where it first went bad (its reservation's name, "bad handover mce",
 * ...; a restored domain's page by the heap's reason), and once more in
 * handover_pages; one inside a domain whose restore failed stays reserved
 * with the domain's memory ("preserved") and is counted here from the
 * handover's records (kept_pages, one row a run).
 *
 * corrected_errors, corrected_pages, corrected_offlined: the corrected
 * memory errors the drains counted (keel/ce_count.h), present when there
 * were any (or report=full), even with no page out of service.
 *
 * Runs on the boot CPU at report time, every other CPU parked: no lock.
 */
#include <keel/bad_queue.h>
#include <keel/badmem.h>
#include <keel/bootmem.h>
#include <keel/ce_count.h>
#include <keel/compiler.h>
#include <keel/heap.h>
#include <keel/heap_boot.h>
#include <keel/heap_check.h>
#include <keel/json.h>
#include <keel/liveupdate.h>
#include <keel/printk.h>
#include <keel/range_table.h>
#include <keel/report.h>
#include <keel/string.h>
#include <keel/ticks.h>

#include "report_priv.h"

/* Rows of bad_memory.ranges at most unless report=full. */
#define BADMEM_RANGES_SHOWN 32

/* Pages of [s, e) on each node, from bootmem's RAM table. */
static void count_nodes(uint64_t s, uint64_t e, uint64_t *by_node)
{
	unsigned int count = 0, lo;
	const struct region *ram = bootmem_ram_regions(&count);

	if (!ram)
		return;
	for (lo = regions_first_ending_above(ram, count, pa(s));
	     lo < count && pa_val(ram[lo].start) < e; lo++) {
		uint64_t rs = MAX(s, pa_val(ram[lo].start));
		uint64_t re = MIN(e, pa_val(ram[lo].end));

		if (re > rs && ram[lo].node < MAX_NUMNODES)
			by_node[ram[lo].node] += (re - rs) / PAGE_SIZE;
	}
}

/* heap_offline()'s sources (HEAP_BAD_FROM_* >> 4) as the report's. */
static const enum badmem_source heap_sources[5] = {
	BADMEM_OPTION,	  /* the host's API, no source named: the operator's */
	BADMEM_OPTION,	  /* HEAP_BAD_FROM_OPTION */
	BADMEM_MCE,	  /* HEAP_BAD_FROM_MCE */
	BADMEM_INJECTION, /* HEAP_BAD_FROM_INJECTION */
	BADMEM_HANDOVER,  /* HEAP_BAD_FROM_HANDOVER: a restored domain's */
};

/*
 * The pages the heap took out at runtime (heap_offline(): a machine check,
 * inject=poison), each one page, node by node.
 */
static void count_runtime(struct badmem_counts *c)
{
	for (unsigned int n = 0; n < heap_node_count(); n++) {
		struct heap_stats st;
		uint64_t ns;

		if (heap_stats((int)n, 0, &st) || !st.bad_pages)
			continue;
		c->pages += st.bad_pages;
		c->runtime_pages += st.bad_pages;
		c->held_pages += st.bad_held_pages;
		c->ranges += st.bad_pages;
		if (n < MAX_NUMNODES)
			c->by_node[n] += st.bad_pages;
		for (unsigned int s = 0; s < ARRAY_SIZE(heap_sources); s++)
			c->by_source[heap_sources[s]] += st.bad_by_source[s];
		ns = ticks_to_ns(st.offline_max_ticks);
		c->offline_ns_max = MAX(c->offline_ns_max, ns);
	}
}

/*
 * The rows after the table's (runtime pages, kept runs, a lattice's runs
 * in reservations): @per items a row, [lowest start, highest end, pages,
 * source or "mixed"], so that 500,000 pages of a badram= lattice are a
 * few dozen rows unless report=full.
 */
struct rows {
	struct jw *w;
	uint64_t per, n; /* items a row; in the open one */
	uint64_t s, e, pages;
	int src;
	bool mixed;
};

static void rows_flush(struct rows *g)
{
	if (!g->n)
		return;
	jw_arr(g->w, NULL);
	jw_u64(g->w, NULL, g->s);
	jw_u64(g->w, NULL, g->e);
	jw_u64(g->w, NULL, g->pages);
	jw_str(g->w, NULL,
	       g->mixed ? "mixed"
			: badmem_source_key((enum badmem_source)g->src));
	jw_arr_end(g->w);
	g->n = 0;
}

static void rows_add(struct rows *g, uint64_t s, uint64_t e, int src)
{
	if (!g->n) {
		*g = (struct rows){
			.w = g->w, .per = g->per, .s = s, .e = e, .src = src};
	}
	g->s = MIN(g->s, s);
	g->e = MAX(g->e, e);
	g->pages += (e - s) / PAGE_SIZE;
	g->mixed |= src != g->src;
	if (++g->n >= g->per)
		rows_flush(g);
}

/* A runtime page's row: [start, end, 1, source]. */
static void runtime_row(pfn_t p, unsigned int reason, int holder, void *arg)
{
	uint64_t a = pa_val(pfn_to_paddr(p));

	(void)holder;
	rows_add(arg, a, a + PAGE_SIZE,
		 (int)heap_sources[MIN((reason >> 4) & 7, 4u)]);
}

typedef void kept_fn(uint64_t s, uint64_t e, int src, void *arg);

/*
 * The pages of [s, e) of source @src inside @rv ("preserved") that no
 * heap extent holds (heap_owner_of(): HEAP_OWNER_NONE), in runs, to @fn.
 */
static void kept_pieces(const struct region *rv, uint64_t s, uint64_t e,
			int src, kept_fn *fn, void *arg)
{
	uint64_t from = 0;
	bool in_run = false;

	s = MAX(s, pa_val(rv->start));
	e = MIN(e, pa_val(rv->end));
	for (uint64_t p = s; p < e; p += PAGE_SIZE) {
		bool none = heap_owner_of(paddr_to_pfn(pa(p)), NULL, NULL) ==
			    HEAP_OWNER_NONE;

		if (none && !in_run)
			from = p;
		if (!none && in_run)
			fn(from, p, src, arg);
		in_run = none;
	}
	if (in_run)
		fn(from, e, src, arg);
}

/*
 * Each run of carried bad pages kept reserved with a domain whose
 * restore failed (the handover's bad ranges inside "preserved" memory the
 * heap did not adopt) to @fn. O(carried pages x MAX_FREE_ORDER +
 * carried ranges x log reserved regions).
 */
static void for_each_kept(kept_fn *fn, void *arg)
{
	const struct bi_handover *h = liveupdate_info()->taken;
	unsigned int count = 0;
	const struct region *r = bootmem_reserved_regions(&count);

	for (unsigned int j = 0; h && r && j < h->bad_recs; j++) {
		int src = (int)handover_bad_source(&h->bad[j]);

		for (unsigned int i = 0; i < h->bad[j].count; i++) {
			struct handover_range x =
				handover_bad_range(&h->bad[j], i);
			unsigned int lo = regions_first_ending_above(
				r, count, pa(x.start));

			for (; lo < count && pa_val(r[lo].start) < x.end; lo++)
				if (!strncmp(r[lo].name, "preserved",
					     sizeof(r[lo].name)))
					kept_pieces(&r[lo], x.start, x.end, src,
						    fn, arg);
		}
	}
}

/*
 * Each run of a lattice's pages (bootmem's badram= patterns) in a
 * reservation with no bad name (keel's own: the frame table's pieces in
 * the gaps a lattice leaves are one region across its runs) that the heap
 * does not hold, to @fn: never written, never handed out, bad. A
 * "preserved" region (a domain whose restore failed) is left to
 * for_each_kept().
 * O(lattice pages in such reservations x MAX_FREE_ORDER).
 */
static void for_each_lattice_reserved(kept_fn *fn, void *arg)
{
	unsigned int count = 0;
	const struct region *r = bootmem_reserved_regions(&count);

	for (unsigned int i = 0; r && i < count; i++) {
		uint64_t s = pa_val(r[i].start), e = pa_val(r[i].end), ls, le;

		if (badmem_region_source(r[i].name) >= 0 ||
		    !strncmp(r[i].name, "preserved", sizeof(r[i].name)))
			continue;
		while (s < e && bootmem_lattice_after(s, &ls, &le) && ls < e) {
			struct region run = r[i];

			run.start = pa(MAX(s, ls));
			run.end = pa(MIN(e, le));
			kept_pieces(&run, pa_val(run.start), pa_val(run.end),
				    BADMEM_OPTION, fn, arg);
			s = le;
		}
	}
}

static void count_run(struct badmem_counts *c, uint64_t s, uint64_t e, int src)
{
	c->pages += (e - s) / PAGE_SIZE;
	c->ranges++;
	c->by_source[src] += (e - s) / PAGE_SIZE;
	count_nodes(s, e, c->by_node);
}

static void count_kept(uint64_t s, uint64_t e, int src, void *arg)
{
	struct badmem_counts *c = arg;

	count_run(c, s, e, src);
	c->kept_pages += (e - s) / PAGE_SIZE;
	c->kept_runs++;
}

static void count_lattice(uint64_t s, uint64_t e, int src, void *arg)
{
	struct badmem_counts *c = arg;

	count_run(c, s, e, src);
	c->lattice_runs++;
}

static void kept_row(uint64_t s, uint64_t e, int src, void *arg)
{
	rows_add(arg, s, e, src);
}

/**
 * badmem_report_count() - the bad pages of this boot.
 * @c: out: totals, per source and per node.
 */
void badmem_report_count(struct badmem_counts *c)
{
	unsigned int count = 0;
	const struct region *r = bootmem_reserved_regions(&count);

	*c = (struct badmem_counts){0};
	count_runtime(c);
	for_each_kept(count_kept, c);
	for_each_lattice_reserved(count_lattice, c);
	if (liveupdate_info()->taken)
		c->handover_pages = liveupdate_info()->taken->bad_pages;
	for (unsigned int i = 0; r && i < count; i++) {
		int src = badmem_region_source(r[i].name);
		uint64_t pages;

		if (src < 0)
			continue;
		pages = (pa_val(r[i].end) - pa_val(r[i].start)) / PAGE_SIZE;
		c->pages += pages;
		c->ranges++;
		c->by_source[src] += pages;
		count_nodes(pa_val(r[i].start), pa_val(r[i].end), c->by_node);
	}
}

/* Rows of one group [first, last] of bad regions (indices into @r). */
static void json_group(struct jw *w, const struct region *r, unsigned int first,
		       unsigned int last)
{
	uint64_t pages = 0;
	int src = -1;
	bool mixed = false;

	for (unsigned int i = first; i <= last; i++) {
		int s = badmem_region_source(r[i].name);

		if (s < 0)
			continue;
		mixed |= src >= 0 && s != src;
		src = src < 0 ? s : src;
		pages += (pa_val(r[i].end) - pa_val(r[i].start)) / PAGE_SIZE;
	}
	jw_arr(w, NULL);
	jw_u64(w, NULL, pa_val(r[first].start));
	jw_u64(w, NULL, pa_val(r[last].end));
	jw_u64(w, NULL, pages);
	jw_str(w, NULL,
	       mixed ? "mixed" : badmem_source_key((enum badmem_source)src));
	jw_arr_end(w);
}

/*
 * bad_memory.ranges: every bad region, or BADMEM_RANGES_SHOWN groups of
 * them; then the rest (struct rows): each page taken out at runtime,
 * each node's under its lock, each run kept with a domain whose restore
 * failed, each run of a lattice in a reservation.
 */
static void json_ranges(struct jw *w, const struct badmem_counts *c)
{
	uint64_t rest = c->runtime_pages + c->kept_runs + c->lattice_runs;
	uint64_t ranges = c->ranges - rest, per = 1;
	unsigned int count = 0, seen = 0, first = 0, group = 0;
	const struct region *r = bootmem_reserved_regions(&count);
	struct rows g = {.w = w, .per = 1};

	if (!report_full() && ranges > BADMEM_RANGES_SHOWN)
		per = (ranges + BADMEM_RANGES_SHOWN - 1) / BADMEM_RANGES_SHOWN;
	if (!report_full() && rest > BADMEM_RANGES_SHOWN)
		g.per = (rest + BADMEM_RANGES_SHOWN - 1) / BADMEM_RANGES_SHOWN;
	jw_arr(w, "ranges");
	for (unsigned int i = 0; r && i < count; i++) {
		if (badmem_region_source(r[i].name) < 0)
			continue;
		if (!group++)
			first = i;
		seen++;
		if (group == per || seen == ranges) {
			json_group(w, r, first, i);
			group = 0;
		}
	}
	for (unsigned int n = 0; c->runtime_pages && n < heap_node_count(); n++)
		heap_for_each_bad(n, runtime_row, &g);
	if (c->kept_runs)
		for_each_kept(kept_row, &g);
	if (c->lattice_runs)
		for_each_lattice_reserved(kept_row, &g);
	rows_flush(&g);
	jw_arr_end(w);
}

/**
 * badmem_report_json() - the report's "bad_memory" object.
 * @w: the report's writer.
 * @nodes: the nodes of this boot (by_node's length).
 */
void badmem_report_json(struct jw *w, unsigned int nodes)
{
	struct ce_count_stats ce;
	struct badmem_counts c;

	badmem_report_count(&c);
	ce_count_stats(&ce);
	jw_obj(w, "bad_memory");
	jw_u64(w, "pages", c.pages);
	if (ce.errors || report_full()) {
		jw_u64(w, "corrected_errors", ce.errors);
		jw_u64(w, "corrected_pages", ce.pages);
		jw_u64(w, "corrected_offlined", ce.offlined);
	}
	/* Broken but not taken out (keel's own, or waiting): not in pages. */
	if (bad_queue_kept(NULL, NULL) || report_full())
		jw_u64(w, "not_taken_pages", bad_queue_kept(NULL, NULL));
	/* No bad page: the compact report's budget keeps only the count. */
	if (!c.pages && !report_full()) {
		jw_obj_end(w);
		return;
	}
	jw_u64(w, "range_count", c.ranges);
	json_ranges(w, &c);
	jw_obj(w, "by_source");
	for (int s = 0; s < BADMEM_SOURCES; s++)
		jw_u64(w, badmem_source_key((enum badmem_source)s),
		       c.by_source[s]);
	jw_obj_end(w);
	jw_arr(w, "by_node");
	for (unsigned int n = 0; n < nodes && n < MAX_NUMNODES; n++)
		jw_u64(w, NULL, c.by_node[n]);
	jw_arr_end(w);
	/* The longest runtime offline (heap_offline()). */
	jw_u64(w, "offline_ns_max", c.offline_ns_max);
	/* Still in a block or a domain's extent: not in audit.bad_pages. */
	jw_u64(w, "held_pages", c.held_pages);
	/* Carried by the live update's handover (in by_source: first source). */
	jw_u64(w, "handover_pages", c.handover_pages);
	/* Of those, kept reserved with a domain whose restore failed. */
	jw_u64(w, "kept_pages", c.kept_pages);
	jw_obj_end(w);
}

/**
 * badmem_report_human() - the "bad memory:" line (none without bad pages
 * or corrected errors).
 */
void badmem_report_human(void)
{
	struct ce_count_stats ce;
	struct badmem_counts c;
	char carried[48] = "", corrected[96] = "", not_taken[112] = "";
	unsigned int kept = bad_queue_kept(NULL, NULL);

	badmem_report_count(&c);
	ce_count_stats(&ce);
	if (!c.pages && !ce.errors && !kept)
		return;
	if (kept)
		snprintf(not_taken, sizeof(not_taken),
			 "; %u more broken but not taken out (keel's own or "
			 "reserved), named bad to a live update's next image",
			 kept);
	if (c.handover_pages)
		snprintf(carried, sizeof(carried),
			 ", %llu carried by the handover",
			 (unsigned long long)c.handover_pages);
	if (ce.errors)
		snprintf(corrected, sizeof(corrected),
			 "; %llu corrected errors on %llu pages, %llu taken "
			 "out for them",
			 (unsigned long long)ce.errors,
			 (unsigned long long)ce.pages,
			 (unsigned long long)ce.offlined);
	pr_info("bad memory: %llu pages in %llu ranges out of service "
		"(firmware %llu, option %llu, mce %llu, injection %llu, "
		"handover %llu)%s%s%s\n",
		(unsigned long long)c.pages, (unsigned long long)c.ranges,
		(unsigned long long)c.by_source[BADMEM_FIRMWARE],
		(unsigned long long)c.by_source[BADMEM_OPTION],
		(unsigned long long)c.by_source[BADMEM_MCE],
		(unsigned long long)c.by_source[BADMEM_INJECTION],
		(unsigned long long)c.by_source[BADMEM_HANDOVER], carried,
		corrected, not_taken);
}
