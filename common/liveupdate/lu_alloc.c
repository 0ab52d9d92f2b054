/* SPDX-License-Identifier: MIT */
/*
 * A live update's memory from the heap (lu_priv.h): the handover and the
 * stub's scratch, each one block of 2^order pages below the arch's bound,
 * and, when they do not fit, how large a block there was.
 */
#include <keel/compiler.h>
#include <keel/heap.h>

#include "lu_priv.h"

/* The order of the block lu_alloc() takes for @bytes. */
unsigned int lu_order(uint64_t bytes)
{
	uint64_t pages = ALIGN_UP(bytes, PAGE_SIZE) >> PAGE_SHIFT;
	unsigned int order = 0;

	while ((1ULL << order) < pages)
		order++;
	return order;
}

/* 2^order pages for @bytes, below 2^@max_bits. Return: pa or INVALID. */
paddr_t lu_alloc(uint64_t bytes, unsigned int max_bits)
{
	unsigned int order = lu_order(bytes);
	struct page_info *pg;

	if (order > MAX_ORDER)
		return INVALID_PADDR;
	pg = heap_alloc(order, HEAP_ANY_NODE, max_bits, 0, NULL);
	return pg ? pfn_to_paddr(page_to_pfn(pg)) : INVALID_PADDR;
}

/*
 * The largest block lu_alloc() could have had below 2^@max_bits, in
 * bytes (0: none), for the refusal: on a machine whose free memory is in
 * small pieces (a badram= pattern leaves 124 KiB between bad pages) the
 * handover, one block, may not fit. Taken and given back, order by order.
 */
uint64_t lu_largest(unsigned int max_bits)
{
	for (int order = MAX_ORDER; order >= 0; order--) {
		struct page_info *pg = heap_alloc(
			(unsigned int)order, HEAP_ANY_NODE, max_bits, 0, NULL);

		if (pg) {
			heap_free(pg, (unsigned int)order, HEAP_FREE_DIRTY);
			return (uint64_t)PAGE_SIZE << order;
		}
	}
	return 0;
}
