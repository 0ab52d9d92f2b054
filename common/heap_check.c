/* SPDX-License-Identifier: MIT */
/*
 * Reading the buddy heap: counters, range queries, walks of the free lists
 * and heap_check(), the full consistency check behind audit=full. Split
 * from common/heap.c, which owns the state (common/heap_priv.h); every
 * walk here holds the node lock it reads under, one node at a time
 * (heap_check takes its scratch lock first).
 */
#include <arch/cpu.h>
#include <keel/bug.h>
#include <keel/compiler.h>
#include <keel/heap.h>
#include <keel/printk.h>
#include <keel/string.h>

#include "heap_priv.h"

/**
 * heap_for_each_free() - call @fn for every free chunk of @node, under its
 * lock.
 */
void heap_for_each_free(uint32_t node,
			void (*fn)(struct page_info *head, unsigned int order,
				   unsigned int zone, void *arg),
			void *arg)
{
	struct heap_node_locked l;
	unsigned int z, k;

	if (node >= heap_nr_nodes)
		return;
	l = heap_lock_node(node);
	for (z = 0; z < NR_ZONES; z++)
		for (k = 0; k <= MAX_FREE_ORDER; k++) {
			struct page_info *pg = l.hn->free[z][k].head, *next;

			for (; pg; pg = next) {
				next = pg->next;
				fn(pg, k, z, arg);
			}
		}
	heap_unlock_node(l);
}

/* ---- queries ----------------------------------------------------------- */

/** heap_free_pages() - Return: free pages on all nodes. */
uint64_t heap_free_pages(void)
{
	uint64_t sum = 0;
	unsigned int n;

	for (n = 0; n < heap_nr_nodes; n++)
		sum += READ_ONCE(heap_nodes[n].stats.free_pages);
	return sum;
}

/** heap_total_pages() - Return: pages handed to the heap. */
uint64_t heap_total_pages(void)
{
	uint64_t sum = 0;
	unsigned int n;

	for (n = 0; n < heap_nr_nodes; n++)
		sum += READ_ONCE(heap_nodes[n].stats.total_pages);
	return sum;
}

/** heap_allocated_pages() - Return: heap pages not on a free list. */
uint64_t heap_allocated_pages(void)
{
	return heap_total_pages() - heap_free_pages();
}

/** heap_chunk_count() - Return: chunks inserted at handoff, all nodes. */
uint64_t heap_chunk_count(void)
{
	uint64_t sum = 0;
	unsigned int n;

	for (n = 0; n < heap_nr_nodes; n++)
		sum += heap_nodes[n].stats.chunks;
	return sum;
}

/** heap_node_stats() - Return: @node's counters (NULL when out of range). */
const struct heap_node_stats *heap_node_stats(uint32_t node)
{
	return node < heap_nr_nodes ? &heap_nodes[node].stats : NULL;
}

/** heap_node_count() - Return: the node count given to heap_init(). */
unsigned int heap_node_count(void)
{
	return heap_nr_nodes;
}

/** heap_node_ranges() - Return: @node's sorted range table (@count set). */
const struct heap_range *heap_node_ranges(uint32_t node, unsigned int *count)
{
	if (node >= heap_nr_nodes) {
		*count = 0;
		return NULL;
	}
	*count = heap_nodes[node].ranges.count;
	return heap_nodes[node].ranges.regions;
}

/** heap_owns() - Return: whether [p, p + 2^order) is in one range of @node. */
bool heap_owns(uint32_t node, pfn_t p, unsigned int order)
{
	struct heap_node_locked l;
	bool r;

	if (node >= heap_nr_nodes || order > 63)
		return false;
	l = heap_lock_node(node);
	r = heap_owns_locked(l, pfn_val(p), order);
	heap_unlock_node(l);
	return r;
}

/* ---- consistency walk -------------------------------------------------- */

#define CHECK_SCRATCH 16384
static uint64_t check_scratch[CHECK_SCRATCH]; /* pfn << 6 | order */
static spinlock_t check_lock = SPINLOCK_INIT;

static unsigned int check_node(struct heap_node_locked l)
{
	struct heap_node *hn = l.hn;
	uint64_t free = 0, dirty = 0, chunks = 0, zf, end_prev = 0;
	unsigned int z, k, bad = 0, n;

#define PROBLEM(fmt, ...)                                        \
	do {                                                     \
		pr_err("heap_check: node %u: " fmt "\n", hn->id, \
		       ##__VA_ARGS__);                           \
		bad++;                                           \
	} while (0)

	for (n = 1; n < hn->ranges.count; n++)
		if (range_at(&hn->ranges, n)->start <=
		    range_at(&hn->ranges, n - 1)->end)
			PROBLEM("ranges %u and %u overlap or touch", n - 1, n);

	for (z = 0; z < NR_ZONES; z++) {
		unsigned int used = 0;

		zf = 0;
		for (k = 0; k <= MAX_FREE_ORDER; k++) {
			struct free_list *fl = &hn->free[z][k];
			struct page_info *pg, *prev = NULL;
			bool seen_dirty = false;

			if (!!fl->head != !!(hn->nonempty[z] & (1u << k)))
				PROBLEM("zone %u order %u: nonempty bit wrong",
					z, k);
			for (pg = fl->head; pg; prev = pg, pg = pg->next) {
				uint64_t p = pg->pfn;

				if (pg->prev != prev)
					PROBLEM("pfn %#llx: broken prev link",
						(unsigned long long)p);
				if (pg->state != PGS_FREE || pg->order != k)
					PROBLEM("pfn %#llx: state %#x order %u "
						"on list order %u",
						(unsigned long long)p,
						pg->state, pg->order, k);
				if (p & ((1ULL << k) - 1))
					PROBLEM("pfn %#llx: not aligned to "
						"order %u",
						(unsigned long long)p, k);
				if (p == 0 && k)
					PROBLEM("pfn 0 with order %u", k);
				if (pfn_zone(p) != z)
					PROBLEM("pfn %#llx: on zone %u list",
						(unsigned long long)p, z);
				if (pg->node != hn->id)
					PROBLEM("pfn %#llx: node %u",
						(unsigned long long)p,
						pg->node);
				if (!heap_owns_locked(l, p, k))
					PROBLEM("pfn %#llx order %u: outside "
						"the heap ranges",
						(unsigned long long)p, k);
				if (pg->first_dirty != FIRST_DIRTY_NONE &&
				    pg->first_dirty >= (1ULL << k))
					PROBLEM("pfn %#llx: first_dirty %u",
						(unsigned long long)p,
						pg->first_dirty);
				if (pg->first_dirty != FIRST_DIRTY_NONE) {
					seen_dirty = true;
					if (pg->flags & PGF_CLEAN_POC)
						PROBLEM("pfn %#llx: clean_poc "
							"on a dirty chunk",
							(unsigned long long)p);
				} else if (seen_dirty) {
					PROBLEM("pfn %#llx: clean chunk after "
						"a dirty one",
						(unsigned long long)p);
				}
				if (fl->tail == pg && pg->next)
					PROBLEM("pfn %#llx: tail has a next",
						(unsigned long long)p);
				free += 1ULL << k;
				zf += 1ULL << k;
				dirty += chunk_dirty_pages(pg);
				chunks++;
				if (used < CHECK_SCRATCH)
					check_scratch[used] = p << 6 | k;
				used++;
			}
			if (fl->tail != prev)
				PROBLEM("zone %u order %u: tail pointer wrong",
					z, k);
		}
		if (zf != hn->stats.zone_free[z])
			PROBLEM("zone %u: %llu free pages counted, %llu walked",
				z, (unsigned long long)hn->stats.zone_free[z],
				(unsigned long long)zf);
		/* Chunks never cross zones: overlap checked per zone. */
		if (used > CHECK_SCRATCH) {
			pr_warn("heap_check: node %u zone %u: %u chunks, "
				"overlap check skipped\n",
				hn->id, z, used);
			continue;
		}
		sort(check_scratch, used, sizeof(check_scratch[0]), cmp_u64);
		end_prev = 0;
		for (n = 0; n < used; n++) {
			uint64_t p = check_scratch[n] >> 6;
			unsigned int o = check_scratch[n] & 63;

			if (n && p < end_prev)
				PROBLEM("chunks overlap at pfn %#llx",
					(unsigned long long)p);
			end_prev = p + (1ULL << o);
		}
	}
	if (free != hn->stats.free_pages)
		PROBLEM("free_pages %llu, walked %llu",
			(unsigned long long)hn->stats.free_pages,
			(unsigned long long)free);
	if (dirty != hn->stats.dirty_pages)
		PROBLEM("dirty_pages %llu, walked %llu",
			(unsigned long long)hn->stats.dirty_pages,
			(unsigned long long)dirty);
	if (chunks != hn->stats.free_chunks)
		PROBLEM("free_chunks %llu, walked %llu",
			(unsigned long long)hn->stats.free_chunks,
			(unsigned long long)chunks);
	if (free > hn->stats.total_pages)
		PROBLEM("more free pages than total (%llu > %llu)",
			(unsigned long long)free,
			(unsigned long long)hn->stats.total_pages);
#undef PROBLEM
	return bad;
}

/**
 * heap_check() - full consistency walk of every node.
 *
 * Return: number of problems found (each printed).
 */
unsigned int heap_check(void)
{
	unsigned int n, bad = 0;

	spin_lock(&check_lock);
	for (n = 0; n < heap_nr_nodes; n++) {
		struct heap_node_locked l = heap_lock_node(n);

		bad += check_node(l);
		heap_unlock_node(l);
	}
	spin_unlock(&check_lock);
	return bad;
}
