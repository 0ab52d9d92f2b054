/* SPDX-License-Identifier: MIT */
/*
 * Owner: mm.
 * Corrected memory errors (issue 38: memory that fails slowly), counted
 * per page in a small fixed table (common/mm/ce_count.c); a page that
 * reaches the threshold (ce_offline=, docs/cmdline.md) is taken out of
 * service as soft (heap_offline(), HEAP_BAD_SOFT | HEAP_BAD_FROM_MCE:
 * heap_online() may give it back). Fed by the bad queue's drain
 * (BAD_QUEUE_MCE_CORRECTED): one caller at a time, no lock.
 */
#ifndef KEEL_CE_COUNT_H
#define KEEL_CE_COUNT_H

#include <keel/types.h>

/* Pages counted at once; beyond, the entry worth least is replaced. */
#define CE_COUNT_SLOTS 64

/* What the counting saw, for the report's bad_memory. */
struct ce_count_stats {
	uint64_t errors;    /* corrected memory errors noted */
	uint64_t pages;	    /* pages the table took in (see ce_count.c) */
	uint64_t offlined;  /* of those, soft-offlined at the threshold */
	uint64_t evictions; /* entries replaced because the table was full */
};

/*
 * ce_count_note() - one corrected error in page @p (@info: its MCi_STATUS,
 * for the log). @threshold: ce_offline= (0: never taken out). One line
 * the first time the table takes the page in, one when it reaches
 * @threshold (heap_offline() as soft, from a machine check); the errors
 * between print nothing (a storm must not flood the console).
 * Return: the page's errors counted so far (1 for a page just taken in).
 */
uint32_t ce_count_note(pfn_t p, uint64_t info, uint32_t threshold);

/* ce_count_stats() - the totals so far, into *@out. */
void ce_count_stats(struct ce_count_stats *out);

/* ce_count_reset() - forget every page and total (unit tests). */
void ce_count_reset(void);

#endif
