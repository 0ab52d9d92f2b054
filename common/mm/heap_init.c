/* SPDX-License-Identifier: MIT */
/*
 * Bringing up the buddy heap: heap_init() (empty nodes, their range tables
 * and fallback orders), heap_size_ranges() (range tables for nodes with
 * many free ranges, asked of bootmem), heap_add_range(), the handoff of
 * a free range, and heap_handoff(), which walks bootmem's free ranges into
 * the heap and closes bootmem (bootmem is below the heap: it never calls
 * it).
 * The free lists and merging they rely on are in common/mm/heap.c.
 *
 * Handoff (heap_add_range) in three modes that reach the same free lists:
 *  lazy:     one head write per chunk; then only the first and the last
 *            chunk of the range can have a free buddy outside it (greedy
 *            maximal chunks never pair up inside a range), so two merge
 *            attempts restore full merging. O(chunks).
 *  chunked:  every entry written (PGS_FREE_TAIL) first, then each chunk
 *            inserted with merging (Xen 4.17). O(pages).
 *  pagewise: every entry written as an allocated page, then one free per
 *            page with merging and the lock taken per page (old Xen).
 *
 * Lock: heap_add_range() takes the node lock around the range table and the
 * free lists; the baselines write their entries before that, when nobody
 * can see the range yet.
 */
#include <arch/cpu.h>
#include <arch/mm.h>
#include <keel/bootmem.h>
#include <keel/compiler.h>
#include <keel/errno.h>
#include <keel/heap.h>
#include <keel/heap_boot.h>
#include <keel/numa.h>
#include <keel/printk.h>
#include <keel/string.h>

#include "heap_priv.h"

static enum heap_init_mode mode;
/* Pages heap_handoff() could not add (heap_refused_pages()). */
static uint64_t refused_pages;

/*
 * Node @n's state and its first range table (HEAP_MAX_RANGES slots), one
 * bootmem allocation on the node (the nearest with room when it has
 * none): only the nodes present cost memory, and only their state is
 * cleared. Return: the state, or NULL when bootmem has no room.
 */
static struct heap_node *node_state(unsigned int n)
{
	uint64_t bytes = HEAP_NODE_STATE_BYTES;
	paddr_t p = bootmem_alloc_try(bytes, PAGE_SIZE, n, "heap node");
	struct heap_node *hn;

	if (pa_val(p) == pa_val(INVALID_PADDR)) {
		pr_err("heap: no boot memory for node %u's state (%llu bytes): "
		       "the heap has %u nodes\n",
		       n, (unsigned long long)bytes, n);
		return NULL;
	}
	hn = phys_to_virt(p);
	memset(hn, 0, sizeof(*hn));
	arch_lock_init(&hn->lock);
	hn->id = n;
	heap_ranges_init(&hn->ranges, (struct region *)(hn + 1),
			 HEAP_MAX_RANGES);
	return hn;
}

/* Node @n's fallback order among the @count nodes, self first. */
static void node_fallback(struct heap_node *hn, unsigned int n,
			  unsigned int count,
			  const uint8_t (*distance)[MAX_NUMNODES])
{
	uint32_t order[MAX_NUMNODES];
	unsigned int c = 0, i, j;

	if (n < numa_node_count())
		c = numa_fallback_order(n, order);
	for (i = 0; i < c; i++)
		if (order[i] < count)
			hn->fallback[hn->fallback_count++] = order[i];
	if (hn->fallback_count)
		return;
	/* No NUMA view: sort by @distance (or by id), self first. */
	for (i = 0; i < count; i++)
		hn->fallback[i] = (n + i) % count;
	hn->fallback_count = count;
	for (i = 1; distance && i < count; i++)
		for (j = i; j > 1; j--) {
			uint32_t a = hn->fallback[j - 1];
			uint32_t b = hn->fallback[j];

			if (distance[n][a] < distance[n][b] ||
			    (distance[n][a] == distance[n][b] && a < b))
				break;
			hn->fallback[j - 1] = b;
			hn->fallback[j] = a;
		}
}

/**
 * heap_init() - empty heap for @count nodes in handoff mode @m, each
 * node's state asked of bootmem (which must be open): O(@count), nothing
 * sized by MAX_NUMNODES is cleared. A node bootmem has no room for ends
 * the heap's nodes there (its ranges are refused at the handoff).
 * @distance: used for the fallback order only when the NUMA layer has none.
 */
void heap_init(enum heap_init_mode m, unsigned int count,
	       const uint8_t (*distance)[MAX_NUMNODES])
{
	unsigned int n;

	if (count == 0)
		count = 1;
	if (count > MAX_NUMNODES)
		count = MAX_NUMNODES;
	heap_nr_nodes = 0;
	heap_pcp_reset();
	heap_owned_reset();
	mode = m;
	for (n = 0; n < count; n++) {
		heap_nodes[n] = node_state(n);
		if (!heap_nodes[n]) {
			count = n;
			break;
		}
	}
	for (n = 0; n < count; n++)
		node_fallback(heap_nodes[n], n, count, distance);
	heap_nr_nodes = count;
	heap_pcp_prepare();
	/* Last: the check's scratch is what the heap's own state left. */
	heap_check_init();
}

/*
 * Give @node a larger range table: @tab of @cap entries (boot memory the
 * heap owns for good). The ranges already registered move over.
 */
static void grow_ranges(uint32_t node, struct region *tab, unsigned int cap)
{
	struct heap_node_locked l = heap_lock_node(node);

	heap_ranges_grow(&l.hn->ranges, tab, cap);
	heap_unlock_node(l);
}

/**
 * heap_size_ranges() - before the handoff: every node whose free ranges
 * may outnumber its range table gets a table that holds them all, asked
 * of bootmem on the node itself. The count is bootmem's bound (its RAM
 * regions plus the reserved ones inside them: no walk over 100,000 free
 * ranges), and one more for each region reserved for a domain: a live
 * update's restore adds each extent as a range of its own (the free
 * ranges around it come later, heap_handoff_rest()), where a heap whose
 * free memory is in 64 KiB pieces (a badram= pattern's) has no block to
 * grow the table into (an update with 1,408 extents failed there:
 * "no room in its node's range table"). Each table allocated can split
 * one free range in two (of any node), hence the slack.
 *
 * When bootmem has no piece for one such table (a badram= lattice's
 * 124 KiB gaps hold 2,600 regions), the node's ranges go in slices, each
 * table a piece that fits (heap_ranges_split(), common/mm/heap_ranges.c);
 * a node whose table fits keeps one, exactly as before. A node in slices
 * already (a test's) is left as it is.
 */
void heap_size_ranges(void)
{
	unsigned int slack = heap_nr_nodes + 8;

	for (uint32_t node = 0; node < heap_nr_nodes; node++) {
		const struct heap_ranges *hr = &heap_nodes[node]->ranges;
		uint64_t want = bootmem_free_ranges_at_most(node) +
				bootmem_domain_ranges(node) + slack;
		unsigned int cap = (unsigned int)MIN(want, 1ULL << 30);
		paddr_t p;
		int n;

		if (hr->count > 1 || cap <= hr->one.t.cap)
			continue;
		p = bootmem_alloc_try((uint64_t)cap * sizeof(struct region),
				      PAGE_SIZE, node, "heap ranges");
		if (pa_val(p) != pa_val(INVALID_PADDR)) {
			grow_ranges(node, phys_to_virt(p), cap);
			continue;
		}
		/* Slices; no room for them either: ranges refused later. */
		n = heap_ranges_split(node, heap_ranges_piece_bytes(), slack);
		if (n < 0)
			pr_warn("heap: node %u: no boot memory for %u ranges, "
				"in one table or in slices (%d)\n",
				node, cap, n);
		else
			pr_info("heap: node %u: ranges in %d slices (no "
				"piece for one table of %u)\n",
				node, n, cap);
	}
}

/** heap_mode() - Return: the handoff mode given to heap_init(). */
enum heap_init_mode heap_mode(void)
{
	return mode;
}

/* heap_init= words and heap.mode (one table: parse and print). */
const struct enum_name heap_mode_names[] = {
	{HEAP_INIT_LAZY, "lazy"},
	{HEAP_INIT_CHUNKED, "chunked"},
	{HEAP_INIT_PAGEWISE, "pagewise"},
	ENUM_NAMES_END,
};

/** heap_mode_name() - Return: "lazy", "chunked" or "pagewise". */
const char *heap_mode_name(enum heap_init_mode m)
{
	return enum_name(heap_mode_names, m);
}

/* Write every entry of [s, e) with @state (chunked / pagewise baselines). */
static void write_all_entries(uint64_t s, uint64_t e, uint32_t node,
			      uint8_t state)
{
	struct page_info *pg = NULL;
	uint64_t p;

	for (p = s; p < e; p++) {
		pg = (p == s) ? pfn_to_page(pfn(p)) : pfn_to_page_next(pg, p);
		page_set(pg, p, state, 0, node, FIRST_DIRTY_NONE, 0);
	}
}

static uint64_t add_lazy(struct heap_node_locked l, uint64_t s, uint64_t e,
			 uint32_t fd)
{
	uint64_t p = s, last = s, chunks = 0;
	struct page_info *first, *pg;
	unsigned int k;

	/* Phase 1: one head write per chunk, no merging. */
	while (p < e) {
		k = heap_chunk_order(p, e);
		pg = pfn_to_page(pfn(p));
		write_free_head(pg, p, k, l.hn->id, fd, 0);
		heap_list_insert(l, pg);
		last = p;
		p += 1ULL << k;
		chunks++;
	}

	/*
	 * Phase 2: every page of [s, e) is now a free head or inside one, so
	 * buddy reads are safe. Only the first chunk (buddy below) and the
	 * last one (buddy above) can pair with memory outside the range;
	 * merges inside the range follow from those chains.
	 */
	first = pfn_to_page(pfn(s));
	k = first->order;
	heap_list_remove(l, first);
	first = heap_merge_insert(l, first, s, k);
	if (last != s && last >= first->pfn + (1ULL << first->order)) {
		pg = pfn_to_page(pfn(last));
		k = pg->order;
		heap_list_remove(l, pg);
		heap_merge_insert(l, pg, last, k);
	}
	return chunks;
}

static uint64_t add_chunked(struct heap_node_locked l, uint64_t s, uint64_t e,
			    uint32_t fd)
{
	uint64_t p = s, chunks = 0;

	while (p < e) {
		unsigned int k = heap_chunk_order(p, e);
		struct page_info *pg = pfn_to_page(pfn(p));

		write_free_head(pg, p, k, l.hn->id, fd, 0);
		heap_merge_insert(l, pg, p, k);
		p += 1ULL << k;
		chunks++;
	}
	return chunks;
}

/**
 * heap_add_range() - [start, end) of free RAM on @node joins the heap.
 *
 * Return: number of chunks the range decomposes into (DESIGN §4; the same
 * figure in every mode), 0 when the range was refused.
 */
uint64_t heap_add_range(uint32_t node, pfn_t start, pfn_t end, bool dirty)
{
	uint64_t s = pfn_val(start), e = pfn_val(end), chunks = 0, p;
	uint32_t fd = dirty ? 0 : FIRST_DIRTY_NONE;
	uint64_t t0 = arch_ticks();
	struct heap_node_locked l;
	int err;

	/* The frame table covers all RAM: a range outside it is a bug. */
	if (node >= heap_nr_nodes || e <= s || !pfn_to_page_or_null(start) ||
	    !pfn_to_page_or_null(pfn(e - 1))) {
		pr_warn("heap: range [%#llx, %#llx) on node %u refused\n",
			(unsigned long long)s, (unsigned long long)e, node);
		return 0;
	}
	/*
	 * The baselines write every entry before the range is registered:
	 * nobody can look at them yet.
	 */
	if (mode == HEAP_INIT_CHUNKED)
		write_all_entries(s, e, node, PGS_FREE_TAIL);
	else if (mode == HEAP_INIT_PAGEWISE)
		write_all_entries(s, e, node, PGS_ALLOCATED);

	l = heap_lock_node(node);
	err = heap_ranges_add(&l.hn->ranges, s, e);
	if (!err) {
		l.hn->stats.total_pages += e - s;
		if (mode == HEAP_INIT_LAZY)
			chunks = add_lazy(l, s, e, fd);
		else if (mode == HEAP_INIT_CHUNKED)
			chunks = add_chunked(l, s, e, fd);
	}
	heap_unlock_node(l);
	if (err) {
		pr_err("heap: range [%#llx, %#llx) on node %u: %s\n",
		       (unsigned long long)s, (unsigned long long)e, node,
		       err == -ENOSPC ? "range table full"
				      : "overlaps heap or crosses a slice");
		return 0;
	}

	if (mode == HEAP_INIT_PAGEWISE) {
		for (p = s; p < e; p++) {
			struct page_info *pg = pfn_to_page(pfn(p));

			l = heap_lock_node(node);
			pg->first_dirty = fd;
			pg->flags = 0;
			heap_merge_insert(l, pg, p, 0);
			heap_unlock_node(l);
		}
		for (p = s; p < e; p += 1ULL << heap_chunk_order(p, e))
			chunks++;
	}

	l = heap_lock_node(node);
	l.hn->stats.chunks += chunks;
	l.hn->stats.init_ticks += arch_ticks() - t0;
	heap_unlock_node(l);
	return chunks;
}

/*
 * Where the handoff stands. A first step of @bytes (a live update's) hands
 * each node the free ranges from its lowest RAM on until it holds
 * @bytes: the restore and the resumed guests allocate before the second
 * step, node-local where they can (a guest's image and stage-2 path
 * tables on its domain's node, for the guest's life), so every node with
 * free RAM must be open, not only the lowest addresses. A range longer
 * than what the node still needs, with a badram= lattice's pages past
 * that, is cut (at FIRST_CUT_ALIGN): the first step takes out only the
 * lattice pages of O(@bytes), not of the whole range, inside the update's
 * downtime (bad_lattice_take(): 30 ms for a 4 GiB sandbox machine's
 * 32,768, 5 ms cut). Other ranges are not cut, so that without a lattice
 * the two steps leave exactly the chunks one handoff does; with one, the
 * cut leaves a few smaller chunks at one boundary per node.
 * first_upto[n]: node n's free RAM below it joined in the first step (0:
 * none); the second step hands over the rest. The free ranges cannot
 * change in between: bootmem is closed.
 */
#define FIRST_CUT_ALIGN (2ULL << 20)
static uint64_t first_upto[MAX_NUMNODES];
static bool handoff_dirty, handoff_done;

/* [s, e) on @node joins the heap; refused pages counted. */
static void hand_one(uint32_t node, paddr_t s, paddr_t e)
{
	/* Lazy: ranges across bad gaps join in spans (heap_defer.c). */
	if (mode == HEAP_INIT_LAZY) {
		refused_pages +=
			heap_span_add(node, pfn_val(paddr_to_pfn(s)),
				      pfn_val(paddr_to_pfn(e)), handoff_dirty);
		return;
	}
	if (!heap_add_range(node, paddr_to_pfn(s), paddr_to_pfn(e),
			    handoff_dirty))
		refused_pages += (pa_val(e) - pa_val(s)) >> PAGE_SHIFT;
}

/* Where node @n's RAM begins and ends (*@start ~0ULL: it has none). */
static void node_ram_span(uint32_t n, uint64_t *start, uint64_t *end)
{
	unsigned int count;
	const struct region *r = bootmem_ram_regions(&count);

	*start = ~0ULL;
	*end = 0;
	for (unsigned int i = 0; r && i < count; i++) {
		if (r[i].node != n)
			continue;
		*start = MIN(*start, pa_val(r[i].start));
		*end = MAX(*end, pa_val(r[i].end));
	}
}

/*
 * Node @n's free ranges in address order until at least @bytes joined;
 * first_upto[n] set. Return: the ranges handed over.
 */
static unsigned int hand_node(uint32_t n, uint64_t bytes)
{
	uint64_t idx, end, given = 0;
	unsigned int count = 0;
	uint32_t node;
	paddr_t s, e;

	node_ram_span(n, &idx, &end);
	if (idx == ~0ULL)
		return 0;
	/* Past the node's last RAM: none of its ranges is left. */
	while (given < bytes && idx < end &&
	       bootmem_next_free_range(&idx, &s, &e, &node)) {
		uint64_t cut =
			ALIGN_UP(pa_val(s) + (bytes - given), FIRST_CUT_ALIGN);
		uint64_t ls, le;

		if (node != n)
			continue;
		if (cut > pa_val(s) && cut < pa_val(e) &&
		    bootmem_lattice_after(cut, &ls, &le) && ls < pa_val(e)) {
			e = pa(cut); /* the rest waits for the second step */
			idx = cut;
		}
		hand_one(node, s, e);
		given += pa_val(e) - pa_val(s);
		count++;
	}
	refused_pages += heap_span_flush();
	first_upto[n] = idx < end ? idx : ~0ULL;
	return count;
}

/* Every free byte the first step left. Return: the ranges handed over. */
static unsigned int hand_rest(void)
{
	unsigned int n = 0;
	uint64_t idx;
	uint32_t node;
	paddr_t s, e;

	for_each_free_range (idx, &s, &e, &node) {
		uint64_t from = node < MAX_NUMNODES ? first_upto[node] : 0;

		if (pa_val(e) <= from)
			continue; /* the first step's */
		hand_one(node, pa(MAX(pa_val(s), from)), e);
		n++;
	}
	refused_pages += heap_span_flush();
	handoff_done = true;
	return n;
}

/* Said once the handoff is over. */
static void say_refused(void)
{
	if (refused_pages)
		pr_warn("heap: %llu pages of free RAM refused at the handoff "
			"(each range said above): out of service, the audit "
			"counts them apart\n",
			(unsigned long long)refused_pages);
}

/**
 * heap_handoff_first() - the first step of a handoff in two (a live
 * update's: docs/liveupdate.md): the heap's tables sized for all of
 * bootmem's free ranges, then, on each node, its free ranges in address
 * order until it holds at least @bytes (~0ULL: every range, one step),
 * and bootmem closed to allocations (its free ranges stay readable for
 * heap_handoff_rest()). The heap is open on every node with free RAM.
 * @dirty: the chunks need scrubbing before use.
 *
 * Return: number of ranges handed over.
 */
unsigned int heap_handoff_first(bool dirty, uint64_t bytes)
{
	unsigned int n = 0;

	refused_pages = 0;
	handoff_dirty = dirty;
	handoff_done = false;
	memset(first_upto, 0, sizeof(first_upto));
	heap_size_ranges();
	if (mode == HEAP_INIT_LAZY)
		heap_defer_prepare(); /* bootmem still open */
	if (bytes == ~0ULL) {
		n = hand_rest();
	} else {
		for (uint32_t node = 0;
		     node < heap_nr_nodes && node < MAX_NUMNODES; node++)
			n += hand_node(node, bytes);
	}
	bootmem_close();
	if (handoff_done)
		say_refused();
	return n;
}

/**
 * heap_handoff_rest() - the second step: every free range of bootmem
 * heap_handoff_first() left joins the heap. Return: ranges handed over.
 */
unsigned int heap_handoff_rest(void)
{
	unsigned int n;

	if (handoff_done)
		return 0;
	n = hand_rest();
	say_refused();
	return n;
}

/**
 * heap_handoff() - every free range of bootmem joins the heap, then
 * bootmem closes. @dirty: the chunks need scrubbing before use.
 *
 * Return: number of ranges handed over.
 */
unsigned int heap_handoff(bool dirty)
{
	return heap_handoff_first(dirty, ~0ULL);
}

/**
 * heap_refused_pages() - free RAM bootmem handed over that the heap
 * refused (no state for its node, a full range table): never handed out,
 * the audit's to count (audit.refused_pages), not lost.
 */
uint64_t heap_refused_pages(void)
{
	return refused_pages;
}
