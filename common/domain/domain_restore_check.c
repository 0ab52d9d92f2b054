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
 * Cost: O(n log n) for the n ranges (a heapsort of each run, a merge of
 * the runs and one sweep), never O(n^2): a handover may carry millions of
 * extents. The ranges are copied into runs of heap blocks, 16 bytes each
 * (one block when the heap has one that large); the owner (domain index
 * and kind) rides in the low 12 bits of the start, which a page-aligned
 * range leaves 0.
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

/*
 * Every range of @h, tagged with its owner, into the runs: span i into
 * runs[i / per][i % per]. Return: how many.
 */
static uint64_t gather(const struct bi_handover *h,
		       struct handover_span *const *runs, uint64_t per)
{
	uint64_t n = 0;

	for (unsigned int i = 0; i < h->domain_count; i++) {
		const struct bi_handover_domain *d = &h->domains[i];
		uint64_t tag = (uint64_t)i << 1;

		for (uint32_t k = 0; k < d->table_count; k++, n++) {
			struct handover_range r = handover_domain_tables(d, k);
			struct handover_span *o = &runs[n / per][n % per];

			o->start = (r.start & ~TAG_MASK) | tag | TAG_TABLE;
			o->end = r.end;
		}
		for (uint32_t k = 0; k < d->extent_count; k++, n++) {
			struct handover_extent x = handover_domain_extent(d, k);
			struct handover_span *o = &runs[n / per][n % per];

			o->start = (x.pa & ~TAG_MASK) | tag;
			o->end = x.pa + (x.pages << PAGE_SHIFT);
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

/* The k-way merge of the sorted runs: a binary heap of runs by their next. */
struct merge {
	struct handover_span *const *runs;
	uint64_t *at, *len;
	uint32_t *heap, n;
};

static uint64_t next_start(const struct merge *m, uint32_t r)
{
	return m->runs[r][m->at[r]].start;
}

static void sift_down(struct merge *m, uint32_t i)
{
	for (;;) {
		uint32_t c = 2 * i + 1, t;

		if (c >= m->n)
			return;
		if (c + 1 < m->n &&
		    next_start(m, m->heap[c + 1]) < next_start(m, m->heap[c]))
			c++;
		if (next_start(m, m->heap[i]) <= next_start(m, m->heap[c]))
			return;
		t = m->heap[i];
		m->heap[i] = m->heap[c];
		m->heap[c] = t;
		i = c;
	}
}

/**
 * domains_disjoint() - are the extents and table ranges of every domain of
 * @h pairwise disjoint? @runs: @k blocks of @per spans each (together at
 * least handover_span_count(@h)); @idx: 3 x @k words of scratch for the
 * merge. Each run is sorted, then the runs are merged in address order
 * and swept once: O(n log n) for n spans, whatever the blocks (a heap
 * whose free memory is in 64 KiB pieces, a failing column's badram=
 * pattern's, has no block for them all).
 * Return: 0; -EINVAL with @why ("handover: domains[i] (name) memory
 * [s, e) overlaps domains[j] (name) p2m table pages [s, e)") naming the
 * first overlap in address order; -ENOMEM when the runs are too small.
 */
int domains_disjoint(const struct bi_handover *h,
		     struct handover_span *const *runs, uint32_t k,
		     uint64_t per, uint64_t *idx, char *why, size_t n)
{
	uint64_t count = handover_span_count(h);
	struct merge m = {runs, idx, idx + k, (uint32_t *)(idx + 2 * k), 0};
	struct handover_span far = {0, 0};
	bool any = false;

	if (!k || count > (uint64_t)k * per) {
		snprintf(why, n,
			 "handover: %llu extents and table ranges, room to "
			 "check %llu",
			 (unsigned long long)count,
			 (unsigned long long)((uint64_t)k * per));
		return -ENOMEM;
	}
	count = gather(h, runs, per);
	for (uint32_t r = 0; r < k; r++) {
		uint64_t base = (uint64_t)r * per;

		m.at[r] = 0;
		m.len[r] = count > base ? MIN(per, count - base) : 0;
		sort(runs[r], m.len[r], sizeof(*runs[r]), cmp_span);
		if (m.len[r])
			m.heap[m.n++] = r;
	}
	for (uint32_t i = m.n / 2; i-- > 0;)
		sift_down(&m, i);
	/* far: the span reaching furthest among those met before. */
	while (m.n) {
		uint32_t r = m.heap[0];
		struct handover_span s = runs[r][m.at[r]];

		if (any && (s.start & ~TAG_MASK) < far.end) {
			say_overlap(h, &far, &s, why, n);
			return -EINVAL;
		}
		if (!any || s.end > far.end)
			far = s;
		any = true;
		if (++m.at[r] == m.len[r])
			m.heap[0] = m.heap[--m.n];
		sift_down(&m, 0);
	}
	return 0;
}

static void *block_va(struct page_info *pg)
{
	return phys_to_virt(pfn_to_paddr(page_to_pfn(pg)));
}

/*
 * The spans in @k blocks of 2^@order pages and a block for their table
 * (the blocks, the runs, the merge's words: 6 words a block), then the
 * check; all given back dirty. Return: as domains_disjoint(), -ENOMEM
 * when the heap has not that many blocks.
 */
static int disjoint_in_blocks(const struct bi_handover *h, uint64_t count,
			      unsigned int order, struct page_info *first,
			      char *why, size_t n)
{
	uint64_t per = (PAGE_SIZE << order) / sizeof(struct handover_span);
	uint32_t k = (uint32_t)((count + per - 1) / per), got = 1;
	uint64_t pages = ((uint64_t)k * 6 * sizeof(uint64_t) + PAGE_SIZE - 1) >>
			 PAGE_SHIFT;
	unsigned int t_order = pages > 1 ? (unsigned int)fls64(pages - 1) : 0;
	struct page_info *tpg, **pgs;
	struct handover_span **runs;
	int err = -ENOMEM;

	tpg = heap_alloc(t_order, HEAP_ANY_NODE, 0, HEAP_NO_SCRUB, NULL);
	if (!tpg) {
		heap_free(first, order, HEAP_FREE_DIRTY);
		goto none;
	}
	pgs = block_va(tpg);
	runs = (struct handover_span **)(pgs + k);
	pgs[0] = first;
	for (; got < k; got++) {
		pgs[got] = heap_alloc(order, HEAP_ANY_NODE, 0, HEAP_NO_SCRUB,
				      NULL);
		if (!pgs[got])
			break;
	}
	if (got == k) {
		for (uint32_t r = 0; r < k; r++)
			runs[r] = block_va(pgs[r]);
		err = domains_disjoint(h, runs, k, per,
				       (uint64_t *)(void *)(runs + k), why, n);
	}
	for (uint32_t r = 0; r < got; r++)
		heap_free(pgs[r], order, HEAP_FREE_DIRTY);
	heap_free(tpg, t_order, HEAP_FREE_DIRTY);
	if (err != -ENOMEM)
		return err;
none:
	snprintf(why, n,
		 "handover: no %u blocks of %llu KiB free to check that its "
		 "%llu extents and table ranges are disjoint",
		 k, (unsigned long long)((PAGE_SIZE << order) >> 10),
		 (unsigned long long)count);
	return -ENOMEM;
}

/**
 * domains_restore_disjoint() - domains_disjoint() over @h with scratch
 * from the heap (anonymous blocks, given back dirty at once; the restore
 * has taken nothing yet): one block for all the spans, or else as many
 * blocks of the largest order the heap has. Return: 0, or -EINVAL /
 * -ENOMEM with @why.
 */
int domains_restore_disjoint(const struct bi_handover *h, char *why, size_t n)
{
	uint64_t count = handover_span_count(h);
	uint64_t pages =
		(count * sizeof(struct handover_span) + PAGE_SIZE - 1) >>
		PAGE_SHIFT;
	unsigned int order = pages > 1 ? (unsigned int)fls64(pages - 1) : 0;
	struct page_info *pg = NULL;
	struct handover_span *run;
	uint64_t idx[3];
	int err;

	if (!count)
		return 0;
	for (int o = (int)order; o >= 0; o--) {
		pg = heap_alloc((unsigned int)o, HEAP_ANY_NODE, 0,
				HEAP_NO_SCRUB, NULL);
		if (pg && (unsigned int)o < order)
			return disjoint_in_blocks(h, count, (unsigned int)o, pg,
						  why, n);
		if (pg)
			break;
	}
	if (!pg) {
		snprintf(why, n,
			 "handover: no memory free to check that its %llu "
			 "extents and table ranges are disjoint",
			 (unsigned long long)count);
		return -ENOMEM;
	}
	run = block_va(pg);
	err = domains_disjoint(
		h, &run, 1, (PAGE_SIZE << order) / sizeof(struct handover_span),
		idx, why, n);
	heap_free(pg, order, HEAP_FREE_DIRTY);
	return err;
}
