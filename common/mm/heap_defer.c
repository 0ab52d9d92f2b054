/* SPDX-License-Identifier: MIT */
/*
 * Deferred ("holed") chunks: the handoff of free RAM cut by bad pages in
 * O(chunks + bad pages), not O(chunks per bad page) (issue 38).
 *
 * The handoff (heap_init=lazy) hands a node's consecutive free ranges that
 * only wholly bad gaps separate (bootmem_gap_bad()) as one span: the
 * maximal aligned chunks over the span, as if the gaps were free. A chunk
 * inside one range is an ordinary free chunk (one head write); a chunk
 * with no heap page is dropped; a chunk that straddles a gap is DEFERRED:
 * a record here (pfn, order, heap pages, dirty), never an entry of the
 * frame table (its first page may be bad), counted as free memory in
 * every counter but free_chunks. The node's gaps are kept sorted with a
 * prefix sum of their pages, so the heap pages of any aligned block of a
 * span are known in O(log gaps).
 *
 * Split on demand (defer_split(), O(1) + a gap lookup, lock held):
 * a record is halved; a half inside one range becomes an ordinary free
 * chunk, a half with no heap page is dropped, a half that still straddles
 * a gap stays deferred. heap_take_block() splits when no list fits
 * (heap_defer_refill(): a record sure to yield the order, by its class,
 * then down its richer half: O(order) steps; else the lock dropped every
 * DEFER_BATCH steps); every walker of free memory
 * settles the node first (heap_defer_settle()); heap_owner_of() and
 * heap_offline()/heap_online() split along the page's path
 * (heap_defer_split_to()). heap_check() verifies the records.
 *
 * Records live in a per-node area asked of bootmem before the handoff,
 * only on nodes with a bad gap (heap_defer_prepare()): a machine without
 * bad pages hands over exactly as before. Live records never outnumber
 * twice the gaps: each holds a heap page and a gap page, so an adjacent
 * (heap, gap) pair, and a gap has two such edges; records are disjoint.
 * A hash by pfn (open addressing, load <= 1/2) finds the record holding
 * a page by probing its aligned-down pfns, as heap_owner_of() probes
 * heads: O(MAX_FREE_ORDER). The handoff writes only what it must (the
 * records, 8 bytes per gap, the list heads it uses): the hash and the
 * gaps' prefix sums are built by the first split (hash_ready()); until
 * then the records are the handoff's, in address order, found by a
 * binary search.
 *
 * The data-loss invariant: no page of a gap is ever written or handed
 * out. (1) The only writes a record causes are the head of an ordinary
 * half, and a half is ordinary only when its gap pages are 0, i.e. when
 * it lies inside one of the node's handed ranges (a span is its ranges
 * and the gaps between them, nothing else), so its head is a heap page.
 * (2) Only ordinary chunks are on the free lists; allocation, scrub and
 * walks see only them. (3) Merging never forms a block holding a gap
 * page: the buddy check reads a buddy only when it lies inside ONE heap
 * range (common/mm/heap.c); a gap page is in no range. The buddy-read
 * proof of heap.c holds with records as objects: if the object X holding
 * buddy page b is a record of order j <= k, X starts at b and the buddy
 * holds X, so a gap page, so it is not inside one range and is not read;
 * j > k would put the block being freed inside X, which holds no block.
 * (4) The gaps are reservations bootmem never frees to the heap, and the
 * heap never adds a range over them (only adopted extents:
 * heap_adopt_owned() takes pages reserved "preserved" or "static-mem"
 * only, never a "bad ..." one). The unit test heap_defer_test checks it page by
 * page.
 *
 * The handoff's side (spans, the area) is common/mm/heap_span.c; what the
 * two share is common/mm/heap_defer_priv.h.
 *
 * Lock: the node's for every record operation; the handoff's span is the
 * boot CPU's (heap_handoff*() run alone).
 */
#include <arch/cpu.h>
#include <arch/mm.h>
#include <keel/bootmem.h>
#include <keel/compiler.h>
#include <keel/heap.h>
#include <keel/heap_boot.h>
#include <keel/printk.h>
#include <keel/string.h>

#include "heap_defer_priv.h"
#include "heap_priv.h"

/* ---- the hash by pfn ---------------------------------------------------- */

static uint64_t slot_of(const struct heap_defer *d, uint64_t pfn)
{
	return (pfn * 0x9e3779b97f4a7c15ULL >> 17) & d->hmask;
}

/*
 * The record slot @h names, -1: none. The table is never cleared (the
 * handoff's downtime): a slot counts only when it names a live record
 * that says it sits there, so a stale or never-written slot reads empty.
 */
static int64_t slot_rec(const struct heap_defer *d, uint64_t h)
{
	uint32_t v = d->hash[h];

	if (!v || v - 1 >= d->used || !d->rec[v - 1].live ||
	    d->rec[v - 1].hslot != h)
		return -1;
	return v - 1;
}

static void hash_put(struct heap_defer *d, uint32_t i)
{
	uint64_t h = slot_of(d, d->rec[i].pfn);

	while (slot_rec(d, h) >= 0)
		h = (h + 1) & d->hmask;
	d->hash[h] = i + 1;
	d->rec[i].hslot = (uint32_t)h;
}

/* The record starting at @pfn (index + 1), its slot in *@slot; 0: none. */
static uint32_t hash_get(const struct heap_defer *d, uint64_t pfn,
			 uint64_t *slot)
{
	for (uint64_t h = slot_of(d, pfn);; h = (h + 1) & d->hmask) {
		int64_t i = slot_rec(d, h);

		if (i < 0 || d->rec[i].pfn == pfn) {
			*slot = h;
			return (uint32_t)(i + 1);
		}
	}
}

/* Remove slot @h, moving back the entries its probe chain needs. */
static void hash_del(struct heap_defer *d, uint64_t h)
{
	uint64_t j = h;
	int64_t i;

	d->hash[h] = 0;
	for (;;) {
		uint64_t home;

		j = (j + 1) & d->hmask;
		i = slot_rec(d, j);
		if (i < 0)
			return;
		home = slot_of(d, d->rec[i].pfn);
		/* Stays unless its home is cyclically outside (h, j]. */
		if ((j > h && (home <= h || home > j)) ||
		    (j < h && home <= h && home > j)) {
			d->hash[h] = d->hash[j];
			d->rec[i].hslot = (uint32_t)h;
			d->hash[j] = 0;
			h = j;
		}
	}
}

/*
 * The hash and the gaps' prefix sums of the locked node's area, built now
 * if they are not yet: the handoff records without them (their pages
 * untouched in the downtime), the first operation that splits puts every
 * live record in and sums the gaps. A record not yet put has hslot
 * DEFER_NO_SLOT, so no stale slot can name it while the others go in
 * (slot_rec()). O(records + gaps), once; after it, the handoff keeps
 * both (heap_defer_rec_new(), heap_span.c's publish).
 */
static void hash_ready(struct heap_defer *d)
{
	uint64_t sum = 0;

	if (!d || d->hashed)
		return;
	for (uint32_t i = 0; i < d->used; i++)
		if (d->rec[i].live)
			hash_put(d, i);
	for (uint32_t x = 0; x < d->gaps; x++) {
		d->before[x] = sum;
		sum += defer_gap_pages(d->gap[x]);
	}
	WRITE_ONCE(d->hashed, true);
}

/* ---- records ------------------------------------------------------------ */

/* Record @i's key on list @L: its class (0) or its order (1). */
static unsigned int list_key(const struct defer_rec *r, int L)
{
	return L ? r->order : r->cls;
}

static void list_add(struct heap_defer *d, uint32_t i)
{
	struct defer_rec *r = &d->rec[i];
	unsigned int z = pfn_zone(r->pfn);

	for (int L = 0; L < 2; L++) {
		unsigned int k = list_key(r, L);

		r->prev[L] = 0;
		r->next[L] =
			d->nonempty[L][z] & (1u << k) ? d->head[z][L][k] : 0;
		if (r->next[L])
			d->rec[r->next[L] - 1].prev[L] = i + 1;
		d->head[z][L][k] = i + 1;
		d->nonempty[L][z] |= 1u << k;
		d->zone_mask[L] |= 1ULL << z;
	}
}

static void list_del(struct heap_defer *d, uint32_t i)
{
	struct defer_rec *r = &d->rec[i];
	unsigned int z = pfn_zone(r->pfn);

	for (int L = 0; L < 2; L++) {
		unsigned int k = list_key(r, L);

		if (r->prev[L])
			d->rec[r->prev[L] - 1].next[L] = r->next[L];
		else
			d->head[z][L][k] = r->next[L];
		if (r->next[L])
			d->rec[r->next[L] - 1].prev[L] = r->prev[L];
		if (!d->head[z][L][k]) {
			d->nonempty[L][z] &= ~(1u << k);
			if (!d->nonempty[L][z])
				d->zone_mask[L] &= ~(1ULL << z);
		}
	}
}

/* Free memory counters of the node: @pages of zone @z (+1 or -1). */
static void count_pages(struct heap_node *hn, uint64_t pfn, uint64_t pages,
			bool dirty, int sign)
{
	uint64_t v = sign > 0 ? pages : -pages;

	hn->stats.free_pages += v;
	hn->stats.zone_free[pfn_zone(pfn)] += v;
	hn->stats.deferred_pages += v;
	if (dirty)
		hn->stats.dirty_pages += v;
}

/* A new record (the area has room: at most twice the gaps live). */
uint32_t heap_defer_rec_new(struct heap_node *hn, uint64_t pfn, unsigned int k,
			    uint64_t pages, bool dirty)
{
	struct heap_defer *d = hn->defer;
	uint32_t i;

	if (d->free_idx) {
		i = d->free_idx - 1;
		d->free_idx = d->rec[i].next[0];
	} else {
		BUG_ON(d->used >= d->cap);
		i = d->used++;
	}
	d->rec[i] = (struct defer_rec){
		.pfn = pfn,
		.pages = pages,
		.order = (uint8_t)k,
		.cls = (uint8_t)(k - fls64((1ULL << k) - pages)),
		.hslot = DEFER_NO_SLOT,
		.dirty = dirty,
		.live = 1};
	list_add(d, i);
	if (d->hashed)
		hash_put(d, i);
	count_pages(hn, pfn, pages, dirty, 1);
	hn->stats.deferred_chunks++;
	return i;
}

static void rec_drop(struct heap_node *hn, uint32_t i, uint64_t slot)
{
	struct heap_defer *d = hn->defer;
	struct defer_rec *r = &d->rec[i];

	list_del(d, i);
	hash_del(d, slot);
	count_pages(hn, r->pfn, r->pages, r->dirty, -1);
	hn->stats.deferred_chunks--;
	r->live = 0;
	r->next[0] = d->free_idx;
	d->free_idx = i + 1;
}

/* ---- gaps --------------------------------------------------------------- */

/* The first gap ending above @p (@by_start: starting at or above @p). */
static uint32_t gap_search(const struct heap_defer *d, uint64_t p,
			   bool by_start)
{
	uint32_t lo = 0, hi = d->gaps;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (by_start ? defer_gap_s(d->gap[mid]) < p
			     : defer_gap_e(d->gap[mid]) <= p)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * Gap pages in the gaps before gap @x (all of them: @x == gaps; @x above:
 * gap @x - 1's prefix already set). The prefix sums are built.
 */
uint64_t heap_defer_gaps_before(const struct heap_defer *d, uint32_t x)
{
	if (x < d->gaps)
		return d->before[x];
	if (!x)
		return 0;
	return d->before[x - 1] + defer_gap_pages(d->gap[x - 1]);
}

/* Gap pages in [@a, @b): O(log gaps) through the prefix sums. */
static uint64_t gap_pages_in(const struct heap_defer *d, uint64_t a, uint64_t b)
{
	uint32_t i = gap_search(d, a, false), j = gap_search(d, b, true);
	uint64_t sum;

	if (i >= j)
		return 0;
	/* Gaps i..j-1 meet [a, b): whole, less what sticks out. */
	sum = heap_defer_gaps_before(d, j) - heap_defer_gaps_before(d, i);
	if (defer_gap_s(d->gap[i]) < a)
		sum -= a - defer_gap_s(d->gap[i]);
	if (defer_gap_e(d->gap[j - 1]) > b)
		sum -= defer_gap_e(d->gap[j - 1]) - b;
	return sum;
}

/* ---- splitting (lock held) ---------------------------------------------- */

/*
 * rec_holding() before the hash is built: no record was split or dropped
 * yet (each path that does builds it first), so the records are the
 * handoff's, live, in address order (spans join in order, each node's
 * records in its own area): a binary search. *@slot: DEFER_NO_SLOT.
 */
static int64_t rec_holding_sorted(const struct heap_defer *d, uint64_t p,
				  uint64_t *slot)
{
	uint32_t lo = 0, hi = d->used;

	*slot = DEFER_NO_SLOT;
	while (lo < hi) { /* the first record starting above @p */
		uint32_t mid = lo + (hi - lo) / 2;

		if (d->rec[mid].pfn <= p)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo && p < d->rec[lo - 1].pfn + (1ULL << d->rec[lo - 1].order))
		return lo - 1;
	return -1;
}

/*
 * The record holding pfn @p (its index, its hash slot in *@slot), or -1:
 * its aligned-down pfns probed, as heap_owner_of() probes heads. A record
 * has order >= 1 (one page cannot straddle a gap).
 */
static int64_t rec_holding(const struct heap_defer *d, uint64_t p,
			   uint64_t *slot)
{
	if (!READ_ONCE(d->hashed))
		return rec_holding_sorted(d, p, slot);
	for (unsigned int k = 1; k <= MAX_FREE_ORDER; k++) {
		uint64_t a = p & ~((1ULL << k) - 1);
		uint32_t v;

		if (!a)
			break;
		v = hash_get(d, a, slot);
		if (v && p < a + (1ULL << d->rec[v - 1].order))
			return v - 1;
	}
	return -1;
}

/*
 * One step: halve record @i (hash slot @slot). A half without gap pages
 * is an ordinary free chunk (one head write: its pages are heap pages, so
 * is its head, see the invariant above); no merge can follow: its buddy
 * is the other half, which holds a gap page. A half of gap pages only is
 * dropped; a half with both stays deferred (*@child: the one of the
 * highest class, -1: none). Return: the order of the ordinary halves
 * made (-1: none).
 */
static int defer_split(struct heap_node *hn, uint32_t i, uint64_t slot,
		       int64_t *child)
{
	struct heap_defer *d = hn->defer;
	struct defer_rec r = d->rec[i];
	unsigned int k = r.order - 1u;
	uint64_t half = 1ULL << k;
	int made = -1;

	rec_drop(hn, i, slot);
	hn->stats.deferred_splits++;
	*child = -1;
	for (uint64_t h = r.pfn; h < r.pfn + 2 * half; h += half) {
		uint64_t g = gap_pages_in(d, h, h + half);
		struct page_info *pg;

		if (g == half)
			continue;
		if (g) {
			uint32_t c =
				heap_defer_rec_new(hn, h, k, half - g, r.dirty);

			if (*child < 0 || d->rec[c].cls > d->rec[*child].cls)
				*child = c;
			continue;
		}
		pg = pfn_to_page(pfn(h));
		write_free_head(pg, h, k, hn->id,
				r.dirty ? 0 : FIRST_DIRTY_NONE, 0);
		heap_list_insert((struct heap_node_locked){hn}, pg);
		made = (int)k;
	}
	return made;
}

/* Drop and take @l's lock (a batch of steps done): others may run. */
static void defer_breathe(struct heap_node_locked l)
{
	uint32_t node = l.hn->id;

	heap_unlock_node(l);
	arch_cpu_relax();
	(void)heap_lock_node(node);
}

/*
 * The first record on list @L with a key in @mask (lowest key first) in
 * the highest zone <= @zone_hi that has one, -1: none.
 */
static int64_t rec_on(const struct heap_defer *d, int L, uint32_t mask,
		      int zone_hi)
{
	uint64_t zm = d->zone_mask[L] & ((2ULL << zone_hi) - 1);

	for (; zm; zm &= ~(1ULL << (fls64(zm) - 1))) {
		int z = fls64(zm) - 1;
		uint32_t m = d->nonempty[L][z] & mask;

		if (m)
			return d->head[z][L][ffs64(m) - 1] - 1;
	}
	return -1;
}

/*
 * A record sure to yield 2^@order (class >= @order: the lowest such
 * class, keeping the richer ones), *@sure set; else one that may (order
 * > @order, the smallest: gaps cluster), *@sure clear; -1: none can.
 */
static int64_t rec_for(const struct heap_defer *d, unsigned int order,
		       int zone_hi, bool *sure)
{
	int64_t i = rec_on(d, 0, ~((1u << order) - 1), zone_hi);

	*sure = i >= 0;
	if (i < 0 && order < MAX_FREE_ORDER)
		i = rec_on(d, 1, ~((2u << order) - 1), zone_hi);
	return i;
}

/**
 * heap_defer_refill() - the locked node's lists cannot fit a block of
 * 2^@order pages in zones <= @zone_hi: split its deferred chunks there
 * until an ordinary chunk that fits appears, the lock dropped every
 * DEFER_BATCH steps (never a pass over every record in one hold).
 *
 * Return: whether one appeared (still on the lists, the lock held).
 */
bool heap_defer_refill(struct heap_node_locked l, unsigned int order,
		       int zone_hi)
{
	struct heap_defer *d = l.hn->defer;
	unsigned int steps = 0;
	int64_t i = -1;
	bool sure = false;

	if (!d || !l.hn->stats.deferred_chunks)
		return false;
	hash_ready(d);
	for (;;) {
		uint64_t slot;

		if (i < 0)
			i = rec_for(d, order, zone_hi, &sure);
		if (i < 0)
			return false;
		hash_get(d, d->rec[i].pfn, &slot);
		if (defer_split(l.hn, (uint32_t)i, slot, &i) >= (int)order)
			return true;
		/* Sure: down the richer half, O(order) steps in all. */
		if (!sure || (i >= 0 && d->rec[i].cls < order))
			i = -1;
		if (++steps % DEFER_BATCH == 0) {
			defer_breathe(l);
			i = -1; /* others ran: look again */
		}
	}
}

/**
 * heap_defer_split_to() - split @node's deferred chunks along pfn @p's
 * path until no record holds it (O(MAX_FREE_ORDER) steps, one hold): @p
 * is then in an ordinary chunk or in a gap. Takes the node lock.
 */
void heap_defer_split_to(uint32_t node, uint64_t p)
{
	struct heap_node_locked l;
	int64_t i;
	uint64_t slot;

	if (node >= heap_nr_nodes || !READ_ONCE(heap_nodes[node]->defer))
		return;
	l = heap_lock_node(node);
	hash_ready(l.hn->defer);
	while (l.hn->stats.deferred_chunks &&
	       (i = rec_holding(l.hn->defer, p, &slot)) >= 0)
		defer_split(l.hn, (uint32_t)i, slot, &i);
	heap_unlock_node(l);
}

/**
 * heap_defer_split_unlocked() - heap_defer_split_to() only when a record
 * of @node holds pfn @p, looked up without the lock: heap_owner_of()'s
 * contract (a quiescent heap, or a page its caller holds, maybe under
 * this very lock: then no record holds it, and no lock is taken).
 */
void heap_defer_split_unlocked(uint32_t node, uint64_t p)
{
	struct heap_defer *d = READ_ONCE(heap_nodes[node]->defer);
	uint64_t slot;

	if (d && READ_ONCE(heap_nodes[node]->stats.deferred_chunks) &&
	    rec_holding(d, p, &slot) >= 0)
		heap_defer_split_to(node, p);
}

/**
 * heap_defer_settle() - every deferred chunk of @node split (a walker of
 * free memory is about to look at its lists), the lock dropped every
 * DEFER_BATCH steps. One unlocked load when the node has none.
 */
void heap_defer_settle(uint32_t node)
{
	struct heap_node_locked l;

	if (node >= heap_nr_nodes ||
	    !READ_ONCE(heap_nodes[node]->stats.deferred_chunks))
		return;
	l = heap_lock_node(node);
	hash_ready(l.hn->defer);
	for (unsigned int steps = 1; l.hn->stats.deferred_chunks; steps++) {
		bool sure;
		int64_t i = rec_for(l.hn->defer, 0, NR_ZONES - 1, &sure);
		uint64_t slot;

		BUG_ON(i < 0);
		hash_get(l.hn->defer, l.hn->defer->rec[i].pfn, &slot);
		defer_split(l.hn, (uint32_t)i, slot, &i);
		if (steps % DEFER_BATCH == 0)
			defer_breathe(l);
	}
	heap_unlock_node(l);
}

/**
 * heap_defer_holding() - the deferred chunk of the locked node holding pfn
 * @p: its first pfn in *@s and order in *@k. Return: false when none.
 */
bool heap_defer_holding(struct heap_node_locked l, uint64_t p, uint64_t *s,
			unsigned int *k)
{
	uint64_t slot;
	int64_t i;

	if (!l.hn->defer || !l.hn->stats.deferred_chunks)
		return false;
	i = rec_holding(l.hn->defer, p, &slot);
	if (i < 0)
		return false;
	*s = l.hn->defer->rec[i].pfn;
	*k = l.hn->defer->rec[i].order;
	return true;
}

/* ---- heap_check()'s side ------------------------------------------------ */

#define DEFER_PROBLEM(bad, l, fmt, ...)                                       \
	do {                                                                  \
		pr_err("heap_check: node %u: deferred " fmt "\n", (l).hn->id, \
		       ##__VA_ARGS__);                                        \
		(*(bad))++;                                                   \
	} while (0)

/* Heap pages of [@s, @e) by the range table (not the gaps: a cross-check). */
static uint64_t range_pages_in(const struct heap_ranges *hr, uint64_t s,
			       uint64_t e)
{
	struct heap_range_pos pos;
	const struct region *r;
	uint64_t n = 0;

	heap_ranges_seek(hr, pfn_to_paddr(pfn(s)), &pos);
	while ((r = heap_ranges_next(hr, &pos))) {
		uint64_t rs = pfn_val(region_start_pfn(r));
		uint64_t re = pfn_val(region_end_pfn(r));

		if (rs >= e)
			break;
		n += MIN(re, e) - MAX(rs, s);
	}
	return n;
}

/* Record @i: aligned, found by its pfn, its page count the ranges'. */
static void check_rec(struct heap_node_locked l, uint32_t i, unsigned int *bad)
{
	const struct heap_defer *d = l.hn->defer;
	const struct defer_rec *r = &d->rec[i];
	unsigned long long pu = r->pfn;
	unsigned int k = r->order;
	uint64_t slot, h;

	if (k < 1 || k > MAX_FREE_ORDER || !r->pfn ||
	    (r->pfn & ((1ULL << k) - 1))) {
		DEFER_PROBLEM(bad, l, "pfn %#llx: order %u, not aligned", pu,
			      k);
		return;
	}
	if (d->hashed ? hash_get(d, r->pfn, &slot) != i + 1
		      : r->hslot != DEFER_NO_SLOT ||
				(i &&
				 d->rec[i - 1].pfn +
						 (1ULL << d->rec[i - 1].order) >
					 r->pfn))
		DEFER_PROBLEM(bad, l, "pfn %#llx: not found by its pfn", pu);
	h = range_pages_in(&l.hn->ranges, r->pfn, r->pfn + (1ULL << k));
	if (h != r->pages || !h || h == (1ULL << k))
		DEFER_PROBLEM(bad, l,
			      "pfn %#llx order %u: %llu heap pages recorded, "
			      "%llu in the ranges",
			      pu, k, (unsigned long long)r->pages,
			      (unsigned long long)h);
	else if (r->cls != k - fls64((1ULL << k) - r->pages))
		DEFER_PROBLEM(bad, l, "pfn %#llx: class %u", pu, r->cls);
}

/* List @L holds the live records, each under its zone and key. */
static uint64_t check_list(struct heap_node_locked l, int L, unsigned int *bad)
{
	const struct heap_defer *d = l.hn->defer;
	uint64_t listed = 0;

	for (unsigned int z = 0; z < NR_ZONES; z++) {
		for (unsigned int k = 0; k <= MAX_FREE_ORDER; k++) {
			bool on = d->nonempty[L][z] & (1u << k);
			uint32_t v = on ? d->head[z][L][k] : 0;

			/* A clear bit's head is not read (not zeroed). */
			if (on && !v)
				DEFER_PROBLEM(bad, l,
					      "list %d %u/%u: bit wrong", L, z,
					      k);
			for (; v && listed <= d->used;
			     v = d->rec[v - 1].next[L]) {
				const struct defer_rec *r = &d->rec[v - 1];

				if (!r->live || list_key(r, L) != k ||
				    pfn_zone(r->pfn) != z)
					DEFER_PROBLEM(
						bad, l,
						"pfn %#llx on list %d "
						"%u/%u",
						(unsigned long long)r->pfn, L,
						z, k);
				listed++;
			}
		}
		if (!!(d->zone_mask[L] & (1ULL << z)) != !!d->nonempty[L][z])
			DEFER_PROBLEM(bad, l, "zone %u: mask bit wrong", z);
	}
	return listed;
}

/**
 * heap_defer_check() - the locked node's deferred records: each aligned,
 * found by its pfn, on its list, its heap pages those the range table
 * says (some, not all); their count and pages the counters'. Their sums
 * in *@sum for the free-memory checks. Disjointness from every other heap
 * object is heap_check()'s tiling walk's (common/mm/heap_check.c).
 *
 * Return: problems found (printed).
 */
unsigned int heap_defer_check(struct heap_node_locked l,
			      struct heap_defer_sums *sum)
{
	const struct heap_defer *d = l.hn->defer;
	const struct heap_stats *st = &l.hn->stats;
	unsigned int bad = 0;
	uint64_t live = 0;

	memset(sum, 0, sizeof(*sum));
	for (uint32_t i = 0; d && i < d->used; i++) {
		const struct defer_rec *r = &d->rec[i];

		if (!r->live)
			continue;
		live++;
		check_rec(l, i, &bad);
		sum->pages += r->pages;
		sum->zone[pfn_zone(r->pfn)] += r->pages;
		sum->dirty += r->dirty ? r->pages : 0;
	}
	if (live != st->deferred_chunks ||
	    (d && (check_list(l, 0, &bad) != live ||
		   check_list(l, 1, &bad) != live)))
		DEFER_PROBLEM(&bad, l, "chunks: %llu live, %llu counted",
			      (unsigned long long)live,
			      (unsigned long long)st->deferred_chunks);
	if (sum->pages != st->deferred_pages)
		DEFER_PROBLEM(&bad, l, "pages: %llu recorded, %llu counted",
			      (unsigned long long)sum->pages,
			      (unsigned long long)st->deferred_pages);
	return bad;
}
