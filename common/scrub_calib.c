/* SPDX-License-Identifier: MIT */
/*
 * Choosing how to scrub (DESIGN §5): the arch's zeroing primitive, timed
 * at boot on dirty memory nobody uses yet (scrub_calibrate(), the choice
 * itself in scrub_choose_primitive()), and the size of a node's work unit
 * (scrub_unit_pages()).
 *
 * Writes scrub_stats' calibration fields. Runs on the boot CPU before any
 * worker starts, and reads the chunk table of common/scrub_work.c
 * (common/scrub_priv.h) that nobody else touches then: no lock.
 */
#include <arch/cpu.h>
#include <arch/mm.h>
#include <arch/scrub.h>
#include <keel/options.h>
#include <keel/printk.h>
#include <keel/scrub.h>
#include <keel/smp.h>

#include "scrub_priv.h"

/* Does scrub_primitive=@forced name @name ('_' standing for ' ')? */
static bool primitive_matches(const char *forced, const char *name)
{
	for (; *forced && *name; forced++, name++) {
		char f = *forced == '_' ? ' ' : *forced;

		if (f != *name)
			return false;
	}
	return !*forced && !*name;
}

/* Is @a faster than @b (bytes per tick; unmeasured is slowest)? */
static bool calib_faster(const struct scrub_calib *a,
			 const struct scrub_calib *b)
{
	if (!a->bytes)
		return false;
	if (!b->bytes)
		return true;
	/* Below the clock's resolution: as fast as it gets. */
	if (!a->ticks || !b->ticks)
		return !a->ticks && b->ticks;
	/* a->bytes / a->ticks > b->bytes / b->ticks, without division. */
	return (unsigned __int128)a->bytes * b->ticks >
	       (unsigned __int128)b->bytes * a->ticks;
}

/**
 * scrub_choose_primitive() - the primitive to use (see keel/scrub.h).
 * @c: the candidates, with their measurements
 * @count: how many
 * @forced: scrub_primitive= ("" when not given)
 * @forced_unknown: out: @forced names no candidate
 *
 * Return: the index of the primitive to use.
 */
unsigned int scrub_choose_primitive(const struct scrub_calib *c,
				    unsigned int count, const char *forced,
				    bool *forced_unknown)
{
	unsigned int best = 0;

	*forced_unknown = false;
	if (forced && *forced) {
		for (unsigned int i = 0; i < count; i++)
			if (primitive_matches(forced, c[i].primitive))
				return i;
		*forced_unknown = true;
	}
	for (unsigned int i = 1; i < count; i++)
		if (calib_faster(&c[i], &c[best]))
			best = i;
	return best;
}

/**
 * scrub_unit_pages() - a node's work unit (see keel/scrub.h).
 * @dirty_pages: what the node has to scrub
 * @worker_count: the workers that start on it
 * @cap_pages: bootscrub_chunk, in pages
 *
 * Return: pages per unit.
 */
uint64_t scrub_unit_pages(uint64_t dirty_pages, unsigned int worker_count,
			  uint64_t cap_pages)
{
	uint64_t min = SCRUB_MIN_UNIT_BYTES >> PAGE_SHIFT, want;

	if (!cap_pages)
		cap_pages = 1;
	if (!worker_count)
		worker_count = 1;
	want = dirty_pages / ((uint64_t)worker_count * SCRUB_UNITS_PER_WORKER);
	want = MAX(ALIGN_DOWN(want, min), min);
	return MIN(want, cap_pages);
}

/*
 * The calibration region: the start of the largest dirty chunk, on the
 * boot CPU's node when it has one. Dirty free memory before the heap opens
 * is used by nobody, and the scrub zeroes it again afterwards.
 * Return: its bytes (0: no dirty memory).
 */
static uint64_t calib_region(void **va)
{
	uint32_t home = cpu_table[arch_cpu_id()].node;
	const struct scrub_chunk *best = NULL;
	bool best_local = false;

	for (unsigned int n = 0; n < scrub_nodes; n++) {
		const struct scrub_node_work *nw = &scrub_work[n];

		for (unsigned int i = nw->first_chunk;
		     i < nw->first_chunk + nw->chunk_count; i++) {
			const struct scrub_chunk *ch = &scrub_chunks[i];
			bool local = n == home;

			if (!best || (local && !best_local) ||
			    (local == best_local && ch->pages > best->pages)) {
				best = ch;
				best_local = local;
			}
		}
	}
	if (!best)
		return 0;
	*va = phys_to_virt(pfn_to_paddr(pfn(best->start_pfn)));
	return MIN(SCRUB_PROBE_BYTES, best->pages << PAGE_SHIFT);
}

/**
 * scrub_calibrate() - time the arch's primitives, select one.
 * @measure: time them (false: bootscrub=off, nothing to measure on)
 *
 * Every primitive the arch offers is timed on the calibration region (a
 * warm-up with the first, then two rounds in turn, the best of each) and
 * the fastest selected, or the one scrub_primitive= names.
 */
void scrub_calibrate(bool measure)
{
	const char *names[ARCH_SCRUB_MAX_PRIMITIVES];
	unsigned int count = arch_scrub_candidates(names, ARRAY_SIZE(names));
	struct scrub_calib *c = scrub_stats.calib;
	uint64_t t_start = arch_ticks(), len = 0;
	unsigned int pick;
	bool unknown;
	void *va = NULL;

	if (measure) {
		scrub_collect_pass();
		len = calib_region(&va);
	}
	for (unsigned int i = 0; i < count; i++) {
		c[i].primitive = names[i];
		c[i].bytes = 0;
		c[i].ticks = 0;
	}
	if (len) {
		arch_scrub_probe(0, va, len);
		for (unsigned int round = 0; round < 2; round++) {
			for (unsigned int i = 0; i < count; i++) {
				uint64_t t0 = arch_ticks(), t;

				arch_scrub_probe(i, va, len);
				t = arch_ticks() - t0;
				if (!c[i].bytes || t < c[i].ticks)
					c[i].ticks = t;
				c[i].bytes = len;
			}
		}
		scrub_stats.calib_count = count;
	}
	pick = scrub_choose_primitive(c, count, opts.scrub_primitive, &unknown);
	if (unknown)
		pr_warn("scrub_primitive=%s: this CPU has no such primitive, "
			"using %s\n",
			opts.scrub_primitive, names[pick]);
	scrub_stats.choice = !unknown && opts.scrub_primitive[0]
				     ? SCRUB_CHOICE_FORCED
			     : len ? SCRUB_CHOICE_MEASURED
				   : SCRUB_CHOICE_DEFAULT;
	arch_scrub_select(pick);
	scrub_stats.calib_ticks = arch_ticks() - t_start;
}

/**
 * scrub_choice_name() - how scrub.primitive was chosen, for the report.
 * @c: the choice
 *
 * Return: "measured", "forced" or "default".
 */
const char *scrub_choice_name(enum scrub_choice c)
{
	switch (c) {
	case SCRUB_CHOICE_MEASURED:
		return "measured";
	case SCRUB_CHOICE_FORCED:
		return "forced";
	case SCRUB_CHOICE_DEFAULT:
		break;
	}
	return "default";
}
