/* SPDX-License-Identifier: MIT */
/*
 * Guest isolation across a live update (DESIGN §13, docs/liveupdate.md):
 * before any domain of a handover is restored, every extent and every
 * table range of every domain must be pairwise disjoint from every other
 * one, its own domain's included. A domain whose memory covers its own
 * p2m table pages could rewrite its own stage 2 and reach any frame; one
 * whose memory covers another domain's root or tables, or another
 * domain's memory, breaks that domain's isolation. boot/handover.c proved
 * each range lies in the preserved ranges; this proves none overlaps
 * another.
 *
 * Cost: O(n log n) for the n ranges (a heapsort and one sweep), never
 * O(n^2): a handover may carry millions of extents. The ranges are copied
 * into @scratch, 16 bytes each; the owner (domain index and kind) rides
 * in the low 12 bits of the start, which a page-aligned range leaves 0.
 *
 * Pure: reads the records the reader kept, writes @scratch and @why.
 */
#include <arch/mm.h>
#include <keel/compiler.h>
#include <keel/domain.h>
#include <keel/errno.h>
#include <keel/frametable.h>
#include <keel/handover.h>
#include <keel/heap.h>
#include <keel/printk.h>
#include <keel/string.h>

#include "domain_priv.h"

#define TAG_MASK  0xfffull
#define TAG_TABLE 1ull /* bit 0 of the tag: a table range, else an extent */

static int cmp_span(const void *a, const void *b)
{
	const struct handover_span *x = a, *y = b;

	return (x->start > y->start) - (x->start < y->start);
}

/** handover_span_count() - the ranges domains_disjoint() checks in @h. */
uint64_t handover_span_count(const struct bi_handover *h)
{
	uint64_t n = 0;

	for (unsigned int i = 0; i < h->domain_count; i++)
		n += (uint64_t)h->domains[i].table_count +
		     h->domains[i].extent_count;
	return n;
}

/* Every range of @h into @out, tagged with its owner. Return: how many. */
static uint64_t gather(const struct bi_handover *h, struct handover_span *out)
{
	uint64_t n = 0;

	for (unsigned int i = 0; i < h->domain_count; i++) {
		const struct bi_handover_domain *d = &h->domains[i];
		uint64_t tag = (uint64_t)i << 1;

		for (uint32_t k = 0; k < d->table_count; k++, n++) {
			struct handover_range r = handover_domain_tables(d, k);

			out[n].start = (r.start & ~TAG_MASK) | tag | TAG_TABLE;
			out[n].end = r.end;
		}
		for (uint32_t k = 0; k < d->extent_count; k++, n++) {
			struct handover_extent x = handover_domain_extent(d, k);

			out[n].start = (x.pa & ~TAG_MASK) | tag;
			out[n].end = x.pa + (x.pages << PAGE_SHIFT);
		}
	}
	return n;
}

static const char *kind(const struct handover_span *s)
{
	return s->start & TAG_TABLE ? "p2m table pages" : "memory";
}

static void say_overlap(const struct bi_handover *h,
			const struct handover_span *a,
			const struct handover_span *b, char *why, size_t n)
{
	unsigned int da = (unsigned int)((a->start & TAG_MASK) >> 1);
	unsigned int db = (unsigned int)((b->start & TAG_MASK) >> 1);

	snprintf(why, n,
		 "handover: domains[%u] (%s) %s [%#llx, %#llx) overlaps "
		 "domains[%u] (%s) %s [%#llx, %#llx)",
		 da, h->domains[da].name, kind(a),
		 (unsigned long long)(a->start & ~TAG_MASK),
		 (unsigned long long)a->end, db, h->domains[db].name, kind(b),
		 (unsigned long long)(b->start & ~TAG_MASK),
		 (unsigned long long)b->end);
}

/**
 * domains_disjoint() - are the extents and table ranges of every domain of
 * @h pairwise disjoint? @scratch holds @cap spans (at least
 * handover_span_count(@h)).
 * Return: 0; -EINVAL with @why ("handover: domains[i] (name) memory
 * [s, e) overlaps domains[j] (name) p2m table pages [s, e)") naming the
 * first overlap in address order; -ENOMEM when @cap is too small.
 */
int domains_disjoint(const struct bi_handover *h, struct handover_span *scratch,
		     uint64_t cap, char *why, size_t n)
{
	uint64_t count = handover_span_count(h), far = 0;

	if (count > cap) {
		snprintf(why, n,
			 "handover: %llu extents and table ranges, room to "
			 "check %llu",
			 (unsigned long long)count, (unsigned long long)cap);
		return -ENOMEM;
	}
	count = gather(h, scratch);
	sort(scratch, count, sizeof(*scratch), cmp_span);
	/* far: the span reaching furthest among those before i. */
	for (uint64_t i = 1; i < count; i++) {
		if ((scratch[i].start & ~TAG_MASK) < scratch[far].end) {
			say_overlap(h, &scratch[far], &scratch[i], why, n);
			return -EINVAL;
		}
		if (scratch[i].end > scratch[far].end)
			far = i;
	}
	return 0;
}

/**
 * domains_restore_disjoint() - domains_disjoint() over @h with scratch
 * from the heap (an anonymous block, given back dirty at once; the
 * restore has taken nothing yet). Return: 0, or -EINVAL / -ENOMEM with
 * @why.
 */
int domains_restore_disjoint(const struct bi_handover *h, char *why, size_t n)
{
	uint64_t count = handover_span_count(h);
	uint64_t pages =
		(count * sizeof(struct handover_span) + PAGE_SIZE - 1) >>
		PAGE_SHIFT;
	unsigned int order = pages > 1 ? (unsigned int)fls64(pages - 1) : 0;
	struct page_info *pg;
	int err;

	if (!count)
		return 0;
	pg = heap_alloc(order, HEAP_ANY_NODE, 0, HEAP_NO_SCRUB, NULL);
	if (!pg) {
		snprintf(why, n,
			 "handover: no %llu KiB free to check that its %llu "
			 "extents and table ranges are disjoint",
			 (unsigned long long)((PAGE_SIZE << order) >> 10),
			 (unsigned long long)count);
		return -ENOMEM;
	}
	err = domains_disjoint(
		h, phys_to_virt(pfn_to_paddr(page_to_pfn(pg))),
		(PAGE_SIZE << order) / sizeof(struct handover_span), why, n);
	heap_free(pg, order, HEAP_FREE_DIRTY);
	return err;
}
