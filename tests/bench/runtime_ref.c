// SPDX-License-Identifier: MIT
/*
 * The reference allocator of tests/bench/heap_runtime, compiled only into
 * the benchmark: a textbook binary buddy allocator over pfns 0..pages-1,
 * one doubly linked free list per order (0..REF_MAX_ORDER) behind one
 * global lock, the host's own (tests/embed/host.c, counted as HOST_LOCK_REF).
 * Per page 12 bytes of metadata (links, order, free flag), written at the
 * head of each block it lists, as a frame table would be. Allocation takes
 * the smallest order that has a block and splits it; free merges with the
 * buddy while the buddy is a free block of the same order. No per-CPU
 * cache, no nodes: what keel's heap is measured beside.
 */
#include <stdlib.h>
#include <sys/mman.h>

#include "runtime.h"

#define NIL 0xffffffffu

struct ref_page {
	uint32_t next, prev; /* free list links (pfns), NIL at the ends */
	uint8_t order;	     /* of the free block this page heads */
	uint8_t free;	     /* heads a free block */
};

static struct ref_page *meta;
static uint64_t total;
static uint32_t head[REF_MAX_ORDER + 1];
static uint64_t nfree;
static uint64_t blocks_at_open[REF_MAX_ORDER + 1];
static arch_lock_t lock;

static void push(uint32_t p, unsigned int k)
{
	meta[p] = (struct ref_page){
		.next = head[k], .prev = NIL, .order = (uint8_t)k, .free = 1};
	if (head[k] != NIL)
		meta[head[k]].prev = p;
	head[k] = p;
}

static void unlink_block(uint32_t p, unsigned int k)
{
	struct ref_page *m = &meta[p];

	if (m->prev != NIL)
		meta[m->prev].next = m->next;
	else
		head[k] = m->next;
	if (m->next != NIL)
		meta[m->next].prev = m->prev;
	m->free = 0;
}

/* The pool: @pages pfns, cut into maximal aligned blocks. Return: 0/-1. */
int ref_open(uint64_t pages)
{
	uint64_t p = 0;

	if (pages >= NIL)
		return -1;
	meta = mmap(NULL, pages * sizeof(*meta), PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (meta == MAP_FAILED)
		return -1;
	for (unsigned int k = 0; k <= REF_MAX_ORDER; k++)
		head[k] = NIL;
	host.lock_kind = HOST_LOCK_REF;
	arch_lock_init(&lock);
	host.lock_kind = HOST_LOCK_OTHER;
	total = pages;
	while (p < pages) {
		unsigned int k = REF_MAX_ORDER;

		while (k &&
		       ((p & ((1ull << k) - 1)) || p + (1ull << k) > pages))
			k--;
		push((uint32_t)p, k);
		blocks_at_open[k]++;
		p += 1ull << k;
	}
	nfree = pages;
	return 0;
}

uint64_t ref_alloc(unsigned int order)
{
	unsigned int k = order;
	uint32_t p;

	if (order > REF_MAX_ORDER)
		return REF_NONE;
	arch_lock(&lock);
	while (k <= REF_MAX_ORDER && head[k] == NIL)
		k++;
	if (k > REF_MAX_ORDER) {
		arch_unlock(&lock);
		return REF_NONE;
	}
	p = head[k];
	unlink_block(p, k);
	while (k > order) {
		k--;
		push(p + (1u << k), k);
	}
	nfree -= 1ull << order;
	arch_unlock(&lock);
	return p;
}

void ref_free(uint64_t pfn, unsigned int order)
{
	uint32_t p = (uint32_t)pfn;
	unsigned int k = order;

	arch_lock(&lock);
	nfree += 1ull << order;
	while (k < REF_MAX_ORDER) {
		uint32_t b = p ^ (1u << k);

		if (b >= total || !meta[b].free || meta[b].order != k)
			break;
		unlink_block(b, k);
		p &= ~(1u << k);
		k++;
	}
	push(p, k);
	arch_unlock(&lock);
}

uint64_t ref_free_pages(void)
{
	return nfree;
}

/*
 * Every page back and merged as it was at ref_open(): each list holds as
 * many blocks as it did then (a lost page or a missed merge shows).
 */
bool ref_whole(void)
{
	for (unsigned int k = 0; k <= REF_MAX_ORDER; k++) {
		uint64_t n = 0;

		for (uint32_t p = head[k]; p != NIL; p = meta[p].next)
			n++;
		if (n != blocks_at_open[k])
			return false;
	}
	return nfree == total;
}
