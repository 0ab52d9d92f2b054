/* SPDX-License-Identifier: MIT */
/*
 * The fixture of the boot scrub unit tests (scrub*_test.c): a 3-node
 * machine whose RAM is filled with 0xAA before the handoff, and walks of
 * the free lists that check every free page reads zero afterwards.
 */
#ifndef TEST_SCRUB_FIXTURE_H
#define TEST_SCRUB_FIXTURE_H

#include "common.h"

#include <keel/scrub_prims.h>

#include <keel/scrub.h>

#define MIB (1ull << 20)

struct walk {
	uint64_t pages, nonzero_pages, dirty_chunks, clean_poc_chunks;
	uint64_t chunks;
};

static inline bool page_is_zero(pfn_t p)
{
	const uint64_t *w = phys_to_virt(pfn_to_paddr(p));

	for (unsigned int i = 0; i < PAGE_SIZE / sizeof(*w); i++)
		if (w[i])
			return false;
	return true;
}

static inline void walk_chunk(struct page_info *head, unsigned int order,
			      unsigned int zone, void *arg)
{
	struct walk *w = arg;
	uint64_t n = 1ull << order;

	(void)zone;
	w->chunks++;
	w->pages += n;
	if (head->first_dirty != FIRST_DIRTY_NONE)
		w->dirty_chunks++;
	if (head->flags & PGF_CLEAN_POC)
		w->clean_poc_chunks++;
	for (uint64_t i = 0; i < n; i++)
		if (!page_is_zero(pfn_add(page_to_pfn(head), i)))
			w->nonzero_pages++;
}

static inline struct walk walk_node(uint32_t node)
{
	struct walk w = {0};

	heap_for_each_free(node, walk_chunk, &w);
	return w;
}

/* Every free page of every node is zero and every chunk clean. */
static inline void assert_all_clean(unsigned int nodes)
{
	uint64_t pages = 0;

	for (unsigned int n = 0; n < nodes; n++) {
		struct walk w = walk_node(n);

		pages += w.pages;
		assert_int_equal(w.nonzero_pages, 0);
		assert_int_equal(w.dirty_chunks, 0);
	}
	assert_true(pages > 0);
}

static inline uint64_t free_bytes_all(unsigned int nodes)
{
	uint64_t sum = 0;

	for (unsigned int n = 0; n < nodes; n++)
		sum += walk_node(n).pages << PAGE_SHIFT;
	return sum;
}

/* 3 nodes x 64 MiB; CPUs per node as given. */
static inline void boot3(unsigned int c0, unsigned int c1, unsigned int c2,
			 const char *cmdline)
{
	struct test_machine_cfg cfg = {
		.dirty = true, /* as booted: bootscrub on */
		.nodes = 3,
		.node = {{64 * MIB, c0}, {64 * MIB, c1}, {64 * MIB, c2}},
		.cmdline = cmdline,
		.fill = 0xAA,
	};

	test_machine_boot(&cfg);
}

#endif
