/* SPDX-License-Identifier: MIT */
/*
 * The lazy handoff's spans (issue 38): a node's consecutive free ranges
 * that only wholly bad gaps separate (bootmem_gap_bad()) join the heap as
 * one span, decomposed into the maximal aligned chunks over it: ordinary
 * chunks inside one range, deferred chunks across a gap (recorded, not
 * written: common/mm/heap_defer.c, whose header argues why no gap page is
 * ever written or handed out), gap-only chunks dropped. O(chunks + gaps).
 * A span of one range is heap_add_range() as before: a machine without
 * bad pages hands over exactly the same chunks.
 *
 * Lock: the node's around the range table, the gaps and the lists; the
 * span being built is the boot CPU's (heap_handoff*() run alone).
 */
#include <arch/cpu.h>
#include <arch/mm.h>
#include <keel/bootmem.h>
#include <keel/compiler.h>
#include <keel/errno.h>
#include <keel/heap.h>
#include <keel/heap_boot.h>
#include <keel/printk.h>
#include <keel/string.h>

#include "heap_defer_priv.h"
#include "heap_priv.h"

/* ---- the handoff -------------------------------------------------------- */

/*
 * The span being built (the boot CPU's: the handoff runs alone). Its
 * gaps are staged in its node's array from gap0 on, past the count the
 * splits read, and published when the span is flushed (under the lock).
 */
static struct {
	bool open, dirty;
	uint32_t node;
	uint64_t s, e; /* pfns: its first range's start, its last's end */
	unsigned int ranges;
	uint32_t gap0; /* its first gap in the node's array */
} span;

/*
 * Node @n's area for up to @gaps gaps, asked of bootmem on the node: its
 * header, then the gaps, the records and the hash, each written from its
 * start on as it fills (the hash only after the handoff: heap_defer.c),
 * so the handoff touches the pages it uses, not the area's bound. Only
 * the header's counts are zeroed (heap_defer_priv.h).
 */
static struct heap_defer *area_for(uint32_t n, uint64_t gaps)
{
	uint64_t cap = 2 * gaps + 2, slots = 4;
	uint64_t bytes, at;
	struct heap_defer *d;
	paddr_t p;

	while (slots < 2 * cap)
		slots <<= 1;
	at = ALIGN_UP(sizeof(*d), 16);
	bytes = at + gaps * sizeof(struct defer_gap) +
		cap * sizeof(struct defer_rec) + slots * sizeof(uint32_t) +
		gaps * sizeof(uint64_t);
	p = bootmem_alloc_try(bytes, PAGE_SIZE, n, "heap deferred chunks");
	if (pa_val(p) == pa_val(INVALID_PADDR)) {
		pr_warn("heap: no boot memory for node %u's deferred chunks "
			"(%llu bytes): its bad pages are handed around one "
			"range at a time\n",
			n, (unsigned long long)bytes);
		return NULL;
	}
	d = phys_to_virt(p);
	memset(d, 0, __builtin_offsetof(struct heap_defer, head));
	d->gap = (struct defer_gap *)((char *)d + at);
	d->gap_cap = (uint32_t)gaps;
	d->rec = (struct defer_rec *)(d->gap + gaps);
	d->cap = (uint32_t)cap;
	d->hash = (uint32_t *)(d->rec + cap);
	d->hmask = slots - 1;
	d->before = (uint64_t *)(d->hash + slots);
	return d;
}

/*
 * Does node @n have a wholly bad gap between two consecutive free ranges?
 * The free ranges from its lowest RAM on, until the first such gap (a
 * few ranges on a machine with bad pages, all of them without).
 */
static bool node_has_bad_gap(uint32_t n)
{
	unsigned int count;
	const struct region *r = bootmem_ram_regions(&count);
	uint64_t idx = ~0ULL, end = 0, prev_e = 0;
	uint32_t node, prev_node = ~0u;
	paddr_t s, e;

	for (unsigned int i = 0; r && i < count; i++)
		if (r[i].node == n) {
			idx = MIN(idx, pa_val(r[i].start));
			end = MAX(end, pa_val(r[i].end));
		}
	while (idx < end && bootmem_next_free_range(&idx, &s, &e, &node)) {
		if (node == n && prev_node == n &&
		    bootmem_gap_bad(pa(prev_e), s))
			return true;
		prev_node = node;
		prev_e = pa_val(e);
	}
	return false;
}

/**
 * heap_defer_prepare() - before a lazy handoff: each node with a wholly
 * bad gap between two consecutive free ranges gets its area (bootmem is
 * still open), sized by bootmem's bound on its free ranges (no count of
 * its gaps needed: a gap lies between two ranges). A node without:
 * nothing asked, the handoff as before.
 */
void heap_defer_prepare(void)
{
	span.open = false;
	for (uint32_t n = 0; n < heap_nr_nodes && n < MAX_NUMNODES; n++)
		if (!heap_nodes[n]->defer && node_has_bad_gap(n))
			heap_nodes[n]->defer =
				area_for(n, MIN(bootmem_free_ranges_at_most(n),
						1ULL << 28));
}

/*
 * How many pages of [@p, @p + 2^@k) are gap pages: the span's gaps from
 * *@gi on (advanced past those below @p: the chunks come in order, so
 * the whole span costs O(chunks + gaps)).
 */
static uint64_t span_gap_pages(const struct heap_defer *d, uint32_t *gi,
			       uint64_t p, unsigned int k)
{
	uint64_t end = p + (1ULL << k), g = 0;

	while (*gi < d->gaps && defer_gap_e(d->gap[*gi]) <= p)
		(*gi)++;
	for (uint32_t j = *gi; j < d->gaps && defer_gap_s(d->gap[j]) < end; j++)
		g += MIN(defer_gap_e(d->gap[j]), end) -
		     MAX(defer_gap_s(d->gap[j]), p);
	return g;
}

/*
 * The span's chunks, the lock held: ordinary ones on the lists (one head
 * write each), deferred ones recorded, gap-only ones dropped; then, as
 * add_lazy() does, the first and the last chunk merged with what lies
 * outside. Return: chunks made (the dropped ones not counted).
 */
static uint64_t span_chunks(struct heap_node_locked l)
{
	struct heap_defer *d = l.hn->defer;
	uint64_t p = span.s, chunks = 0, last = ~0ULL;
	uint32_t fd = span.dirty ? 0 : FIRST_DIRTY_NONE, gi = span.gap0;
	struct page_info *pg, *first = NULL;
	unsigned int k;

	while (p < span.e) {
		uint64_t g;

		k = heap_chunk_order(p, span.e);
		g = span_gap_pages(d, &gi, p, k);
		if (g < (1ULL << k))
			chunks++;
		if (g && g < (1ULL << k)) {
			heap_defer_rec_new(l.hn, p, k, (1ULL << k) - g,
					   span.dirty);
		} else if (!g) {
			pg = pfn_to_page(pfn(p));
			write_free_head(pg, p, k, l.hn->id, fd, 0);
			heap_list_insert(l, pg);
			first = p == span.s ? pg : first;
			last = p;
		}
		p += 1ULL << k;
	}
	if (first) {
		k = first->order;
		heap_list_remove(l, first);
		first = heap_merge_insert(l, first, span.s, k);
	}
	if (last != ~0ULL && last != span.s &&
	    (!first || last >= first->pfn + (1ULL << first->order))) {
		pg = pfn_to_page(pfn(last));
		k = pg->order;
		heap_list_remove(l, pg);
		heap_merge_insert(l, pg, last, k);
	}
	return chunks;
}

/* Pages of the staged gaps [@a, @b). */
static uint64_t gap_sum(const struct heap_defer *d, uint32_t a, uint32_t b)
{
	uint64_t n = 0;

	for (; a < b; a++)
		n += defer_gap_pages(d->gap[a]);
	return n;
}

/*
 * The span's ranges join the node's table, the lock held: range i runs
 * from gap i-1's end (the span's start) to gap i's start (the span's
 * end). One the table refuses ends the span before it: the gaps kept are
 * published, the span's end pulled in. Return: pages refused.
 */
static uint64_t span_register(struct heap_node_locked l)
{
	struct heap_defer *d = l.hn->defer;
	uint32_t n = span.ranges - 1, i;
	uint64_t s = span.s, e, refused = 0;
	int err = 0;

	for (i = 0; i <= n; i++) {
		e = i < n ? defer_gap_s(d->gap[span.gap0 + i]) : span.e;
		err = heap_ranges_add(&l.hn->ranges, s, e);
		if (err) {
			pr_err("heap: range [%#llx, %#llx) on node %u: %s\n",
			       (unsigned long long)s, (unsigned long long)e,
			       l.hn->id,
			       err == -ENOSPC
				       ? "range table full"
				       : "overlaps heap or crosses a slice");
			break;
		}
		l.hn->stats.total_pages += e - s;
		if (i < n)
			s = defer_gap_e(d->gap[span.gap0 + i]);
	}
	if (err) { /* ranges i.. refused; the span ends at range i-1's end */
		refused = span.e - s - gap_sum(d, span.gap0 + i, span.gap0 + n);
		span.e = i ? defer_gap_s(d->gap[span.gap0 + i - 1]) : span.s;
		n = i ? i - 1 : 0;
	}
	for (i = 0; d->hashed && i < n; i++) /* the prefix sums if built */
		d->before[span.gap0 + i] =
			heap_defer_gaps_before(d, span.gap0 + i);
	d->gaps = span.gap0 + n;
	return refused;
}

/**
 * heap_span_flush() - the span being built joins the heap: one range as
 * heap_add_range() always did, several (registered now, one lock hold) as
 * span_chunks() says.
 *
 * Return: pages refused.
 */
uint64_t heap_span_flush(void)
{
	struct heap_node_locked l;
	uint64_t t0, refused;

	if (!span.open)
		return 0;
	span.open = false;
	if (span.ranges == 1)
		return heap_add_range(span.node, pfn(span.s), pfn(span.e),
				      span.dirty)
			       ? 0
			       : span.e - span.s;
	t0 = arch_ticks();
	l = heap_lock_node(span.node);
	refused = span_register(l);
	l.hn->stats.chunks += span_chunks(l);
	l.hn->stats.init_ticks += arch_ticks() - t0;
	heap_unlock_node(l);
	return refused;
}

/* Can [@s, ...) of @node extend the open span across a bad gap? */
static bool span_extends(uint32_t node, uint64_t s, bool dirty)
{
	struct heap_defer *d;

	if (!span.open || node != span.node || dirty != span.dirty ||
	    s <= span.e || node >= heap_nr_nodes)
		return false;
	d = heap_nodes[node]->defer;
	return d && span.gap0 + span.ranges - 1 < d->gap_cap &&
	       defer_gap_fits(span.e, s) &&
	       bootmem_gap_bad(pfn_to_paddr(pfn(span.e)), pfn_to_paddr(pfn(s)));
}

/**
 * heap_span_add() - the lazy handoff's free range [@s, @e) (pfns) of
 * @node: it extends the span being built when only a bad gap lies between
 * them (the gap staged), else the span is flushed and a new one starts
 * with it.
 *
 * Return: pages refused.
 */
uint64_t heap_span_add(uint32_t node, uint64_t s, uint64_t e, bool dirty)
{
	uint64_t refused;

	if (span_extends(node, s, dirty)) {
		struct heap_defer *d = heap_nodes[node]->defer;

		d->gap[span.gap0 + span.ranges - 1] = defer_gap_make(span.e, s);
		span.e = e;
		span.ranges++;
		return 0;
	}
	refused = heap_span_flush();
	span = (typeof(span)){.open = true,
			      .dirty = dirty,
			      .node = node,
			      .s = s,
			      .e = e,
			      .ranges = 1,
			      .gap0 = node < heap_nr_nodes &&
						      heap_nodes[node]->defer
					      ? heap_nodes[node]->defer->gaps
					      : 0};
	return refused;
}
