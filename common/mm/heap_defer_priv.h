/* SPDX-License-Identifier: MIT */
/*
 * The deferred chunks' state, shared by common/mm/heap_defer.c (records,
 * splitting, the check) and common/mm/heap_span.c (the handoff's spans,
 * the per-node area). Not an interface: nothing else includes it.
 */
#ifndef COMMON_HEAP_DEFER_PRIV_H
#define COMMON_HEAP_DEFER_PRIV_H

#include <keel/heap.h>

struct heap_node;

/* Split steps per lock hold on the allocation path and in a settle. */
#define DEFER_BATCH 64

struct defer_rec {
	uint64_t pfn;
	uint64_t pages; /* heap pages in [pfn, pfn + 2^order) */
	uint32_t hslot; /* its slot in the hash, DEFER_NO_SLOT: none yet */
	/* Lists [zone][cls] (0) and [zone][order] (1): index + 1, 0: none. */
	uint32_t next[2], prev[2];
	uint8_t order;
	/*
	 * Its list: order - fls(gap pages). Fewer gap pages than 2^(order -
	 * o) leave an aligned 2^o block without one (pigeonhole), so the
	 * record is sure to yield any order <= cls.
	 */
	uint8_t cls;
	uint8_t dirty; /* its heap pages need scrubbing */
	uint8_t live;
};

struct defer_gap {
	uint64_t s, e;	 /* pfns, a wholly bad gap inside a span */
	uint64_t before; /* gap pages in the gaps before this one */
};

/* A record's hslot before the hash holds it (never a slot: < 2^31). */
#define DEFER_NO_SLOT 0xffffffffu

/*
 * A node's area. Only what lies before head[] is zeroed when it is made:
 * head[z][L][k] counts only while its bit in nonempty[L][z] is set, so
 * the handoff touches the heads of the zones it records in, not all of
 * them (2 x 53 x 32 entries); both lists of a zone share its lines.
 */
struct heap_defer {
	struct defer_rec *rec;
	uint32_t cap, used, free_idx; /* free_idx: a chain through next[0] */
	/*
	 * Index + 1, never cleared: heap_defer.c. Built by the first record
	 * operation after the handoff (hashed clear until then): the
	 * handoff's records never touch it.
	 */
	uint32_t *hash;
	uint64_t hmask;
	bool hashed;
	struct defer_gap *gap;
	uint32_t gaps, gap_cap;
	/* Per list (0: by class, 1: by order), as the heap's free lists. */
	uint64_t zone_mask[2];
	uint32_t nonempty[2][NR_ZONES];
	uint32_t head[NR_ZONES][2][MAX_FREE_ORDER + 1]; /* not zeroed */
};

/*
 * A new record of @hn (lock held; its area has room, see heap_defer.c).
 * Return: its index.
 */
uint32_t heap_defer_rec_new(struct heap_node *hn, uint64_t pfn, unsigned int k,
			    uint64_t pages, bool dirty);
/* Gap pages in the gaps before gap @x (all of them: @x == gaps). */
uint64_t heap_defer_gaps_before(const struct heap_defer *d, uint32_t x);

#endif
