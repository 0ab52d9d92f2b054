/* SPDX-License-Identifier: MIT */
/*
 * Choosing how to scrub (DESIGN §5): the arch's zeroing primitive, timed
 * on the real work (scrub_calibrate() .. scrub_calib_end(), the choice
 * itself in scrub_choose_primitive()), and the size of a node's work unit
 * (scrub_unit_pages()).
 *
 * The calibration writes no memory of its own. The first
 * count * SCRUB_CALIB_ROUNDS units of at least 2 MiB (or bootscrub_chunk)
 * the scrub does (boot or idle scrub, on any worker) are samples: each is given a candidate in turn
 * (scrub_calib_claim(): sample t gets candidate t % count), which zeroes
 * its first SCRUB_PROBE_BYTES; the rest of the unit, and every other
 * unit, uses the selected primitive (the default, or scrub_primitive=,
 * until the choice). So each candidate is timed on cold DRAM under the
 * load of the real scrub, not on a cache-resident sample; its fastest
 * sample counts. The worker that
 * accounts for the last sample selects the fastest for every worker
 * (scrub_prims_select()); a scrub with fewer units ends the calibration
 * with what it measured (scrub_calib_end(), unmeasured ones are slowest).
 *
 * Lock-free: a sample's ticket (an atomic counter) is its own slot in
 * calib_sample[], published by the atomic count of samples done; the
 * choice is made once (calib_open is cleared by whoever makes it).
 * scrub_calibrate() and scrub_calib_end() run on the boot CPU while no
 * worker scrubs. The results stay here (scrub_calib_result()); scrub.c,
 * the one writer of scrub_stats, copies them in.
 */
#include <arch/cpu.h>
#include <arch/mm.h>
#include <arch/scrub.h>
#include <keel/atomic.h>
#include <keel/printk.h>
#include <keel/scrub.h>
#include <keel/scrub_prims.h>
#include <keel/smp.h>
#include <keel/string.h>

#include "scrub_priv.h"

/* scrub_primitive= (scrub_set_primitive()): "" = the calibration decides. */
static char forced_name[16];

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

/* What the calibration found: the candidates, the choice (the report's). */
static struct scrub_calib_result result;
static unsigned int calib_total;   /* samples wanted (count * rounds) */
static unsigned int calib_claimed; /* samples handed out (atomic) */
static unsigned int calib_done;	   /* samples accounted (atomic) */
static unsigned int calib_open;	   /* sampling, no choice yet (atomic) */
static unsigned int calib_forced;  /* scrub_primitive= names a candidate */
static uint64_t calib_start;
static uint64_t calib_min_bytes; /* smaller units are no samples */
/* Sample t (candidate t % count), written by the CPU that timed it. */
static struct scrub_calib
	calib_sample[ARCH_SCRUB_MAX_PRIMITIVES * SCRUB_CALIB_ROUNDS];

/**
 * scrub_calibrate() - list the candidates, select the default or the one
 * scrub_primitive= names, and open the sampling of the scrub's units.
 * @measure: there is a scrub to time (false: bootscrub=off)
 * @unit_bytes: the scrub's unit (bootscrub_chunk): a smaller one is no
 * sample below 2 MiB
 */
void scrub_calibrate(bool measure, uint64_t unit_bytes)
{
	struct scrub_calib *c = result.calib;
	unsigned int count, pick;
	bool unknown;

	scrub_prims_probe();
	count = MIN(scrub_prims_count(),
		    (unsigned int)ARCH_SCRUB_MAX_PRIMITIVES);
	for (unsigned int i = 0; i < count; i++) {
		c[i].primitive = scrub_prims_name(i);
		c[i].bytes = 0;
		c[i].ticks = 0;
	}
	result.count = measure ? count : 0;
	pick = scrub_choose_primitive(c, count, forced_name, &unknown);
	if (unknown)
		pr_warn("scrub_primitive=%s: this CPU has no such primitive, "
			"using the fastest measured\n",
			forced_name);
	calib_forced = !unknown && forced_name[0];
	result.choice =
		calib_forced ? SCRUB_CHOICE_FORCED : SCRUB_CHOICE_DEFAULT;
	scrub_prims_select(calib_forced ? pick : 0);
	calib_total = count * SCRUB_CALIB_ROUNDS;
	memset(calib_sample, 0, sizeof(calib_sample));
	calib_claimed = 0;
	calib_done = 0;
	calib_start = arch_ticks();
	calib_min_bytes = MIN(SCRUB_MIN_UNIT_BYTES, unit_bytes);
	result.ticks = 0;
	atomic_store_release(&calib_open, measure ? 1u : 0u);
}

/*
 * Each candidate's fastest sample into result.calib[]: the best of
 * its rounds, so that a sample whose CPU was interrupted (or, in the
 * sandbox, not run by the host for a while) does not count against it.
 * Return: how many candidates have a sample.
 */
static unsigned int calib_best(unsigned int count)
{
	unsigned int measured = 0;

	for (unsigned int i = 0; i < count; i++) {
		struct scrub_calib *c = &result.calib[i];

		for (unsigned int t = i; t < calib_total; t += count)
			if (calib_faster(&calib_sample[t], c)) {
				c->bytes = calib_sample[t].bytes;
				c->ticks = calib_sample[t].ticks;
			}
		measured += c->bytes != 0;
	}
	return measured;
}

/* Select the fastest measured (unless forced); once. */
static void calib_finish(void)
{
	unsigned int count = result.count, pick, measured;
	bool unknown;

	if (!__atomic_exchange_n(&calib_open, 0u, __ATOMIC_ACQ_REL))
		return;
	/* Every sample accounted before calib_done's update is visible. */
	(void)atomic_load_acquire(&calib_done);
	measured = calib_best(count);
	result.ticks = arch_ticks() - calib_start;
	if (calib_forced || !measured)
		return;
	pick = scrub_choose_primitive(result.calib, count, "", &unknown);
	scrub_prims_select(pick);
	result.choice = SCRUB_CHOICE_MEASURED;
}

/**
 * scrub_calib_claim() - should the unit about to be scrubbed be a sample?
 * @bytes: its size; a piece below a whole unit (2 MiB, or bootscrub_chunk
 * when smaller) is not: too short to time memory rather than the call.
 * @cand: out: the candidate to time on its first SCRUB_PROBE_BYTES
 *
 * Return: the sample's ticket for scrub_calib_account(), or -1: no sample.
 */
int scrub_calib_claim(uint64_t bytes, unsigned int *cand)
{
	unsigned int t;

	if (bytes < calib_min_bytes || !atomic_load_acquire(&calib_open) ||
	    atomic_load_relaxed(&calib_claimed) >= calib_total)
		return -1;
	t = atomic_fetch_add(&calib_claimed, 1u);
	if (t >= calib_total)
		return -1;
	*cand = t % result.count;
	return (int)t;
}

/**
 * scrub_calib_account() - a sample's result; the last one makes the choice.
 * @ticket: from scrub_calib_claim()
 * @bytes: zeroed with its candidate
 * @ticks: in this many ticks of the calling CPU
 */
void scrub_calib_account(int ticket, uint64_t bytes, uint64_t ticks)
{
	calib_sample[ticket].bytes = bytes;
	calib_sample[ticket].ticks = ticks;
	if (atomic_fetch_add(&calib_done, 1u) + 1 == calib_total)
		calib_finish();
}

/**
 * scrub_calib_result() - what the calibration found, for scrub_stats.
 * Boot CPU, no worker scrubbing (after scrub_calibrate() or
 * scrub_calib_end()).
 * Return: the results (valid until the next scrub_calibrate()).
 */
const struct scrub_calib_result *scrub_calib_result(void)
{
	return &result;
}

/**
 * scrub_calib_end() - the scrub is over: choose with what was measured, if
 * the scrub had fewer units than samples wanted. Boot CPU, no worker
 * scrubbing.
 */
void scrub_calib_end(void)
{
	calib_finish();
}

/**
 * scrub_set_primitive() - scrub_primitive= for this boot: @name forced
 * ("" = the calibration decides). Copied; keel_main() calls it once.
 */
void scrub_set_primitive(const char *name)
{
	strlcpy(forced_name, name, sizeof(forced_name));
}

/**
 * scrub_choice_name() - how scrub.primitive was chosen, for the report.
 * @c: the choice
 *
 * Return: "measured", "forced" or "default".
 */
const char *scrub_choice_name(enum scrub_choice c)
{
	static const struct enum_name names[] = {
		{SCRUB_CHOICE_MEASURED, "measured"},
		{SCRUB_CHOICE_FORCED, "forced"},
		{SCRUB_CHOICE_DEFAULT, "default"},
		ENUM_NAMES_END,
	};

	return enum_name(names, c);
}
