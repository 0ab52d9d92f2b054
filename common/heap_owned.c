/* SPDX-License-Identifier: MIT */
/*
 * Owned extents: a domain's memory in O(extents), not O(pages).
 *
 * heap_alloc_owned() takes a block off the free lists exactly as
 * heap_alloc() does, but writes only its head, under the node lock:
 * state PGS_OWNED, order, node, pfn and the owner id (in the union with
 * first_dirty). No tail entry is written, so a 1 GiB extent costs one
 * page_info write instead of 262144. An owned extent may be as large as a
 * free chunk (2^MAX_FREE_ORDER pages, 8 TiB): it is still one head write
 * (plus the heads of the halves a split puts back), so a 1 TiB domain can
 * be one allocation. A caller taking a big extent passes HEAP_NO_SCRUB and
 * zeroes it itself, split across CPUs (common/domain_big.c): zeroing here
 * is done by the calling CPU alone. Zeroing of the dirty part happens
 * after the unlock, on the calling CPU, in pieces of at most 2 MiB (a
 * bounded stretch of non-preemptible work between two points where an
 * interrupt can be taken). Cache maintenance: cachemaint=eager keeps its
 * per-page, in-lock baseline; otherwise a clean_poc block needs none,
 * HEAP_NO_FLUSH leaves it to the caller (by range), and anything else
 * gets one range operation after the unlock.
 *
 * heap_free_owned() turns the head back into a free (dirty) head and
 * merges it like heap_free(): the merge proof in common/heap.c covers
 * owned heads (a PGS_OWNED head never reads as "free").
 *
 * heap_owner_of() finds the block holding any pfn without reading a tail:
 * inside a heap range, every page lies in exactly one naturally aligned
 * block (free chunk, anonymous block, owned extent or a chunk detached by
 * the scrubber). Let A = [a, a + 2^k) be an aligned block inside the range
 * that no block strictly contains (to begin with, the largest aligned
 * block around p inside the range). The block X holding page a either
 * contains A -- then X = A -- or is smaller and, being aligned, starts at
 * a. Either way the entry of a is a head. If X does not reach p, the half
 * of A holding p is again contained in no block (A itself is not one), so
 * the descent reads only heads, at most MAX_FREE_ORDER + 1 of them.
 *
 * Lock: heap_alloc_owned/heap_free_owned take one node lock at a time;
 * heap_owner_of takes none (quiescent heap, or a page the caller holds).
 */
#include <arch/cache.h>
#include <arch/cpu.h>
#include <arch/mm.h>
#include <arch/scrub.h>
#include <keel/cachemaint.h>
#include <keel/compiler.h>
#include <keel/errno.h>
#include <keel/heap.h>
#include <keel/printk.h>
#include <keel/string.h>

#include "heap_priv.h"

#define ZERO_PIECE_PAGES ((2ULL << 20) >> PAGE_SHIFT) /* 2 MiB */

/* Pages owned per owner id (0: unused); atomics, nodes lock separately. */
static uint64_t owned_by[HEAP_MAX_OWNER + 1];

/* heap_init(): no extent is owned yet. */
void heap_owned_reset(void)
{
	memset(owned_by, 0, sizeof(owned_by));
}

/* Zero [p + fd, p + 2^order) in pieces of at most 2 MiB. */
static void zero_pieces(uint64_t p, unsigned int order, uint32_t fd)
{
	uint64_t q = p + fd, end = p + (1ULL << order);

	while (q < end) {
		uint64_t n = MIN(end - q, ZERO_PIECE_PAGES);

		arch_scrub_range(phys_to_virt(pfn_to_paddr(pfn(q))),
				 n << PAGE_SHIFT);
		q += n;
	}
}

/* cachemaint=eager in the lock: zero, then clean page by page (timed). */
static void owned_eager(struct page_info *pg, unsigned int order,
			struct heap_taken *t, uint32_t flags,
			struct heap_alloc_info *info)
{
	uint64_t t0 = arch_ticks(), t1;
	bool zero = t->fd != FIRST_DIRTY_NONE && !(flags & HEAP_NO_SCRUB);

	if (zero)
		info->zeroed_bytes = ((1ULL << order) - t->fd) << PAGE_SHIFT;
	heap_eager_in_lock(pg, order, t, flags);
	t1 = arch_ticks();
	info->maint_bytes = (1ULL << order) << PAGE_SHIFT;
	info->maint_ticks = t1 - t0;
}

/* After the unlock: zero what is dirty, then the maintenance still due. */
static void owned_finish(struct page_info *pg, unsigned int order,
			 const struct heap_taken *t, uint32_t flags,
			 struct heap_alloc_info *info)
{
	enum cachemaint_mode m = cachemaint_mode();
	uint64_t t0;

	if (t->fd != FIRST_DIRTY_NONE && !(flags & HEAP_NO_SCRUB)) {
		t0 = arch_ticks();
		zero_pieces(t->pfn, order, t->fd);
		info->zero_ticks = arch_ticks() - t0;
		info->zeroed_bytes = ((1ULL << order) - t->fd) << PAGE_SHIFT;
	}
	if (m == CACHEMAINT_EAGER)
		return;
	if (flags & HEAP_NO_FLUSH) {
		if (flags & HEAP_ICACHE)
			arch_inval_icache_all();
		return;
	}
	t0 = arch_ticks();
	cachemaint_after_alloc(pg, order, flags);
	info->maint_ticks = arch_ticks() - t0;
	if (!t->poc && (m == CACHEMAINT_DEFERRED || m == CACHEMAINT_CLFLUSH))
		info->maint_bytes = (1ULL << order) << PAGE_SHIFT;
}

/**
 * heap_alloc_owned() - an extent of 2^@order pages owned by @owner, one
 * head write (see heap.h).
 *
 * Return: the head entry, or NULL.
 */
struct page_info *heap_alloc_owned(unsigned int order, int node, uint32_t flags,
				   uint16_t owner, struct heap_alloc_info *info)
{
	struct heap_alloc_info scratch;
	struct heap_taken t = {.fd = FIRST_DIRTY_NONE};
	struct page_info *pg = NULL;
	const uint32_t *candidates;
	unsigned int i, count;
	uint32_t exact;

	if (!info)
		info = &scratch;
	*info = (struct heap_alloc_info){0};
	if (order > MAX_FREE_ORDER || !heap_nr_nodes || owner == 0)
		return NULL;
	candidates = heap_alloc_candidates(node, flags, &exact, &count);
	for (i = 0; i < count && !pg; i++) {
		struct heap_node_locked l = heap_lock_node(candidates[i]);
		uint64_t held;

		pg = heap_take_block(l, order, NR_ZONES - 1, &t, PGS_OWNED,
				     owner);
		if (pg) {
			l.hn->stats.owned_pages += 1ULL << order;
			if (cachemaint_mode() == CACHEMAINT_EAGER)
				owned_eager(pg, order, &t, flags, info);
		}
		held = heap_unlock_node_ticks(l);
		info->lock_ticks = MAX(info->lock_ticks, held);
	}
	if (!pg)
		return NULL;
	__atomic_fetch_add(&owned_by[owner], 1ULL << order, __ATOMIC_RELAXED);
	info->was_dirty = t.fd != FIRST_DIRTY_NONE;
	info->clean_poc = t.poc;
	info->node = pg->node;
	owned_finish(pg, order, &t, flags, info);
	return pg;
}

/**
 * heap_free_owned() - give back @owner's extent headed by @head, dirty.
 *
 * Return: 0, or -EINVAL on misuse when heap_strict is off (panics when on).
 */
int heap_free_owned(struct page_info *head, unsigned int order, uint16_t owner)
{
	const struct heap_free_args a = {
		.fn = "heap_free_owned",
		.max_order = MAX_FREE_ORDER,
		.state = PGS_OWNED,
		.owner = owner,
		.first_dirty = 0, /* the guest wrote it: all dirty */
	};
	int ret = heap_free_block(head, order, &a);

	if (!ret)
		__atomic_fetch_sub(&owned_by[owner], 1ULL << order,
				   __ATOMIC_RELAXED);
	return ret;
}

/** heap_owned_pages() - Return: pages @owner holds (0: all owners). */
uint64_t heap_owned_pages(uint16_t owner)
{
	uint64_t sum = 0;

	if (owner)
		return __atomic_load_n(&owned_by[owner], __ATOMIC_RELAXED);
	for (unsigned int n = 0; n < heap_nr_nodes; n++)
		sum += READ_ONCE(heap_nodes[n].stats.owned_pages);
	return sum;
}

/*
 * The order of the largest aligned block around @p inside [s, e): the
 * starting point of the descent (no block can be larger, and pfn 0 is
 * only ever an order-0 block).
 */
static unsigned int top_order(uint64_t p, uint64_t s, uint64_t e)
{
	unsigned int k;

	for (k = MAX_FREE_ORDER; k > 0; k--) {
		uint64_t a = p & ~((1ULL << k) - 1);

		if (a && a >= s && a + (1ULL << k) <= e)
			break;
	}
	return k;
}

/**
 * heap_owner_of() - who holds pfn @pp, and the head and order of its block
 * (see heap.h and the file comment for why only heads are read).
 *
 * Return: HEAP_OWNER_*, an owner id, or -EIO.
 */
int heap_owner_of(pfn_t pp, pfn_t *head, unsigned int *order)
{
	uint64_t p = pfn_val(pp);
	const struct pfn_range *r = NULL;
	unsigned int n, k;

	for (n = 0; n < heap_nr_nodes && !r; n++)
		r = pfn_range_table_find(&heap_nodes[n].ranges, pp);
	if (!r)
		return HEAP_OWNER_NONE;
	n--;
	for (k = top_order(p, pfn_val(r->start), pfn_val(r->end));; k--) {
		uint64_t a = p & ~((1ULL << k) - 1);
		const struct page_info *pg = pfn_to_page(pfn(a));
		int who = heap_head_owner(pg);

		if (who < 0 || pg->pfn != a || pg->order > k || pg->node != n)
			break;
		if (p < a + (1ULL << pg->order)) {
			if (head)
				*head = pfn(a);
			if (order)
				*order = pg->order;
			return who;
		}
		if (!k)
			break;
	}
	pr_err("heap_owner_of: pfn %#llx: no head describes it\n",
	       (unsigned long long)p);
	return -EIO;
}
