/* SPDX-License-Identifier: MIT */
/*
 * The heap's fragmentation as the aging benchmark (tests/bench/
 * heap_aging.c) and its make check guard (tests/unit/heap_aging_test.c)
 * read it: every node's free chunks walked (heap_for_each_block() gives
 * the walked node's caches back first), their pages, those in chunks of
 * 2 MiB and up, the chunk count and the largest order.
 */
#ifndef BENCH_HEAP_FRAG_H
#define BENCH_HEAP_FRAG_H

#include <keel/heap_boot.h>
#include <keel/heap_check.h>

#include <string.h>

#define FRAG_ORDER_2M 9

struct frag {
	uint64_t free_pages, free_2m_pages, chunks;
	unsigned int largest_order;
};

static inline void frag_block(struct page_info *head, unsigned int order,
			      int owner, void *arg)
{
	struct frag *f = (struct frag *)arg;

	(void)head;
	if (owner != HEAP_OWNER_FREE)
		return;
	f->free_pages += 1ull << order;
	f->chunks++;
	if (order >= FRAG_ORDER_2M)
		f->free_2m_pages += 1ull << order;
	if (order > f->largest_order)
		f->largest_order = order;
}

/* *@f of every node. Return: the problems the walks found (0: none). */
static inline unsigned int frag_walk(struct frag *f)
{
	unsigned int bad = 0;

	memset(f, 0, sizeof(*f));
	for (unsigned int n = 0; n < heap_node_count(); n++)
		bad += heap_for_each_block(n, frag_block, f);
	return bad;
}

#endif
