// SPDX-License-Identifier: MIT
/*
 * Corrected memory errors counted per page (keel/ce_count.h).
 *
 * A corrected error costs nothing by itself, but a page that keeps
 * producing them is likely to fail for good: once a page has had
 * ce_offline= of them it is taken out of service as soft (heap_offline(),
 * HEAP_BAD_SOFT | HEAP_BAD_FROM_MCE), which heap_online() may undo.
 *
 * The table: CE_COUNT_SLOTS (64) entries of 24 bytes, each a page, its
 * errors and when it last had one (the error's number, a clock that only
 * the errors move), searched linearly at a drain point (64 compares an
 * error, beside the queue slot it already took). 64 is a judgement: room
 * for the few pages of failing cells that do repeat plus the scattered
 * one-off errors around them, in 1.5 KiB of .bss (arm64's image must stay
 * within 2 MiB, its link asserts it). When the
 * table is full, a new page replaces, in order of preference: an entry
 * whose page was already dealt with (offlined or refused: it needs no
 * more counting); else the entry with the fewest errors, the least
 * recently seen of those. So a page near the threshold keeps its count
 * through a storm of single errors on other pages, and the one replaced
 * is the page with the weakest case. A replaced page seen again starts
 * over at 1 (and is taken in again: ce_count_stats().pages counts it
 * twice; exact while fewer than CE_COUNT_SLOTS pages had errors).
 *
 * Lock: none. The only caller is the bad queue's take
 * (common/mm/bad_take.c), and bad_queue_drain() lets one CPU drain at a
 * time.
 */
#include <keel/ce_count.h>
#include <keel/errno.h>
#include <keel/heap.h>
#include <keel/printk.h>
#include <keel/string.h>

struct ce_entry {
	uint64_t pfn;
	uint64_t last;	 /* stats.errors when it last had one */
	uint32_t errors; /* 0: the entry is free */
	bool done;	 /* offlined, or the heap refused it for good */
};

static struct ce_entry table[CE_COUNT_SLOTS];
static struct ce_count_stats stats;

/* The entry of page @p, or NULL. */
static struct ce_entry *find(uint64_t p)
{
	for (unsigned int i = 0; i < CE_COUNT_SLOTS; i++)
		if (table[i].errors && table[i].pfn == p)
			return &table[i];
	return NULL;
}

/* A free entry, or the one to replace (file comment). */
static struct ce_entry *victim(void)
{
	struct ce_entry *best = NULL;

	for (unsigned int i = 0; i < CE_COUNT_SLOTS; i++) {
		struct ce_entry *e = &table[i];

		if (!e->errors)
			return e;
		if (!best || e->done > best->done ||
		    (e->done == best->done &&
		     (e->errors < best->errors ||
		      (e->errors == best->errors && e->last < best->last))))
			best = e;
	}
	stats.evictions++;
	return best;
}

/* @e reached the threshold: out of service as soft, one line. */
static void take_out(struct ce_entry *e, uint32_t threshold)
{
	int err = heap_offline(
		pfn(e->pfn),
		(enum heap_bad_reason)(HEAP_BAD_SOFT | HEAP_BAD_FROM_MCE));
	const char *what = "taken out of service (soft)";

	/* Busy or out of list pages: tried again at its next error. */
	e->done = err != -EBUSY && err != -ENOMEM;
	if (!err)
		stats.offlined++;
	else if (err == -EEXIST)
		what = "already out of service";
	else if (!e->done)
		what = "not taken out now, tried again at its next error";
	else
		what = "not the heap's to take out: kept as it is";
	pr_warn("mce: page %#llx had %u corrected errors (ce_offline=%u): "
		"%s (%d)\n",
		(unsigned long long)e->pfn, e->errors, threshold, what, err);
}

/**
 * ce_count_note() - count one corrected error in page @p (keel/ce_count.h).
 * @p: the page the bank named
 * @info: its MCi_STATUS, for the first line
 * @threshold: ce_offline= (0: counted, never taken out)
 *
 * Return: the page's errors so far.
 */
uint32_t ce_count_note(pfn_t p, uint64_t info, uint32_t threshold)
{
	struct ce_entry *e = find(pfn_val(p));

	stats.errors++;
	if (!e) {
		e = victim();
		*e = (struct ce_entry){.pfn = pfn_val(p)};
		stats.pages++;
		if (threshold)
			pr_warn("mce: corrected memory error in page %#llx "
				"(status %#llx): counted, taken out of "
				"service at %u (ce_offline=)\n",
				(unsigned long long)pfn_val(p),
				(unsigned long long)info, threshold);
		else
			pr_warn("mce: corrected memory error in page %#llx "
				"(status %#llx): counted (ce_offline=0: never "
				"taken out)\n",
				(unsigned long long)pfn_val(p),
				(unsigned long long)info);
	}
	if (e->errors < UINT32_MAX)
		e->errors++;
	e->last = stats.errors;
	if (threshold && !e->done && e->errors >= threshold)
		take_out(e, threshold);
	return e->errors;
}

/** ce_count_stats() - the totals so far (keel/ce_count.h). */
void ce_count_stats(struct ce_count_stats *out)
{
	*out = stats;
}

/** ce_count_reset() - an empty table, totals 0 (unit tests). */
void ce_count_reset(void)
{
	memset(table, 0, sizeof(table));
	memset(&stats, 0, sizeof(stats));
}
