/* SPDX-License-Identifier: MIT */
/*
 * The heap's side of the scrub (keel/heap_scrub.h): an idle scrubber
 * detaches one dirty free chunk (at most 2^MAX_ORDER pages, a larger one
 * is split first), zeroes it with no lock held and gives it back clean;
 * the boot scrub marks chunks it zeroed in place. A detached chunk's head
 * says PGS_ALLOCATED, so no buddy check merges with it meanwhile (the
 * proof in common/mm/heap.c) and heap_owner_of() reports it as keel's.
 *
 * Lock: each call takes the chunk's node lock once.
 */
#include <keel/bug.h>
#include <keel/heap.h>
#include <keel/heap_scrub.h>

#include "heap_priv.h"

/*
 * Split the dirty chunk @pg (pfn *@p, order @j, first dirty offset *@fd,
 * off its list) down to @order, keeping the piece that holds its first
 * dirty page: the halves below it go back clean, those above it dirty
 * from their first page. Keeping any other piece would not terminate: a
 * clean piece put back merges into a chunk whose first_dirty is where it
 * was, and the scrubber would take the same piece again.
 */
static struct page_info *split_to_first_dirty(struct heap_node_locked l,
					      struct page_info *pg, uint64_t *p,
					      unsigned int j,
					      unsigned int order, uint32_t *fd)
{
	while (j > order) {
		uint64_t half = 1ULL << --j;

		if (*fd < half) {
			struct page_info *up = pfn_to_page(pfn(*p + half));

			write_free_head(up, *p + half, j, l.hn->id, 0, 0);
			heap_list_insert(l, up);
		} else {
			write_free_head(pg, *p, j, l.hn->id, FIRST_DIRTY_NONE,
					0);
			heap_list_insert(l, pg);
			*fd -= (uint32_t)half;
			*p += half;
			pg = pfn_to_page(pfn(*p));
		}
	}
	return pg;
}

/*
 * A dirty block of a CPU's cache for the scrubber, but never one that
 * holds a page offlined while it was cached (a free that raced the mark:
 * heap_offline.c): the scrub would write the bad page. Such a block goes
 * back to the lists with its bad pages withheld, and the next is taken;
 * each try empties a cache slot, so this ends.
 */
static struct page_info *take_cached_dirty(uint32_t node, unsigned int *order)
{
	struct page_info *pg;

	while ((pg = heap_pcp_take_dirty(node, order))) {
		struct heap_node_locked l = heap_lock_node(node);
		bool bad = heap_block_holds_bad(l, pg->pfn, *order);

		if (bad)
			heap_insert_checked(l, pg, pg->pfn, *order);
		heap_unlock_node(l);
		if (!bad)
			return pg;
	}
	return NULL;
}

/**
 * heap_take_dirty() - detach one dirty free chunk of @node, of order
 * MAX_ORDER at most (a larger one is split first, keeping the piece with
 * its first dirty page), so an idle scrubber holds a bounded piece; when
 * the lists have none, a dirty block from a CPU's cache (free memory too:
 * no caller drains the caches first).
 *
 * Return: its head (order in *@order), or NULL when the node has none.
 */
struct page_info *heap_take_dirty(uint32_t node, unsigned int *order)
{
	struct heap_node_locked l;
	struct page_info *pg = NULL;
	int z;

	if (node >= heap_nr_nodes)
		return NULL;
	heap_defer_settle(node); /* a deferred chunk is free memory too */
	l = heap_lock_node(node);
	for (z = NR_ZONES - 1; z >= 0 && !pg; z--) {
		uint32_t m;

		for (m = l.hn->nonempty[z]; m; m &= m - 1) {
			unsigned int k = (unsigned int)ffs64(m) - 1;
			struct page_info *t = l.hn->free[z][k].tail;

			if (t->first_dirty != FIRST_DIRTY_NONE) {
				pg = t;
				break;
			}
		}
	}
	if (pg) {
		uint64_t p = pg->pfn;
		uint32_t fd = pg->first_dirty;
		unsigned int k = pg->order;

		heap_list_remove(l, pg);
		if (k > MAX_ORDER) {
			pg = split_to_first_dirty(l, pg, &p, k, MAX_ORDER, &fd);
			k = MAX_ORDER;
			write_free_head(pg, p, k, l.hn->id, fd, 0);
		}
		/* Detached: reads as allocated to every buddy check. */
		pg->state = PGS_ALLOCATED;
		*order = k;
	}
	heap_unlock_node(l);
	/* None on the lists: a dirty block in a CPU's cache is free too. */
	return pg ? pg : take_cached_dirty(node, order);
}

/**
 * heap_put_clean() - return a chunk detached by heap_take_dirty(), now
 * zeroed (and cleaned to PoC when @clean_poc: the whole chunk, the pages
 * before its first dirty one included).
 */
void heap_put_clean(struct page_info *pg, unsigned int order, bool clean_poc)
{
	struct heap_node_locked l = heap_lock_node(pg->node);

	CHECK(pg->state == PGS_ALLOCATED && pg->order == order);
	pg->first_dirty = FIRST_DIRTY_NONE;
	pg->flags = clean_poc ? PGF_CLEAN_POC : 0;
	heap_insert_checked(l, pg, pg->pfn, order);
	heap_unlock_node(l);
}

/**
 * heap_mark_clean() - a free chunk has been scrubbed in place (boot scrub):
 * mark it clean and move it to the clean end of its list.
 */
void heap_mark_clean(struct page_info *head, bool clean_poc)
{
	struct heap_node_locked l = heap_lock_node(head->node);

	CHECK(head->state == PGS_FREE);
	heap_list_remove(l, head);
	head->first_dirty = FIRST_DIRTY_NONE;
	head->flags = clean_poc ? PGF_CLEAN_POC : 0;
	heap_list_insert(l, head);
	heap_unlock_node(l);
}
