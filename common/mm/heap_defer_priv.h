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

/*
 * A wholly bad gap inside a span, in the 8 bytes the handoff writes per
 * gap: its first pfn (bits 0-39: any pfn of a 52-bit address) and its
 * pages (bits 40-63). A longer gap, or one higher up, is not spanned: the
 * ranges on its two sides join apart (heap_span.c). The prefix sums of
 * the gaps' pages (heap_defer.c) are built with the hash.
 */
struct defer_gap {
	uint64_t v;
};

#define DEFER_GAP_PFN_BITS 40
#define DEFER_GAP_MAX	   ((1ULL << (64 - DEFER_GAP_PFN_BITS)) - 1)

static inline struct defer_gap defer_gap_make(uint64_t s, uint64_t e)
{
	return (struct defer_gap){s | (e - s) << DEFER_GAP_PFN_BITS};
}

/* Can [@s, @e) be a gap? */
static inline bool defer_gap_fits(uint64_t s, uint64_t e)
{
	return e >> DEFER_GAP_PFN_BITS == 0 && e - s <= DEFER_GAP_MAX;
}

static inline uint64_t defer_gap_s(struct defer_gap g)
{
	return g.v & ((1ULL << DEFER_GAP_PFN_BITS) - 1);
}

static inline uint64_t defer_gap_pages(struct defer_gap g)
{
	return g.v >> DEFER_GAP_PFN_BITS;
}

static inline uint64_t defer_gap_e(struct defer_gap g)
{
	return defer_gap_s(g) + defer_gap_pages(g);
}

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
	 * operation after the handoff (hashed clear until then), with
	 * before[]: the handoff's records and gaps never touch either.
	 */
	uint32_t *hash;
	uint64_t hmask;
	bool hashed;
	struct defer_gap *gap;
	uint64_t *before; /* before[i]: pages of gaps 0..i-1 (hashed set) */
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
