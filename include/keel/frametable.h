/* SPDX-License-Identifier: MIT */
/*
 * Owner: mm.
 * The frame table: one struct page_info per RAM page, kept per node in
 * sections of FT_SECTION_PAGES pages; only sections containing RAM have
 * storage, allocated from bootmem on the section's node (in one piece per
 * node, per section, or per FT_BLOCK_PAGES block when the node's free RAM
 * is fragmented). The section table holds only the sections with RAM
 * (sized by RAM, not by the highest address); pfn_to_page() is one
 * comparison plus an index when they are one run, else a binary search
 * of the runs (O(log runs)) first. Entries are contiguous within a block.
 *
 * Invariant (DESIGN §4): an entry is meaningful only if its page is the head
 * of a free chunk, the head of an owned extent (a domain's), or the head
 * of an anonymous allocated block (keel's own). Tail
 * entries of free chunks and of all blocks are never written and never
 * read (heap_init=lazy): the block holding a page is found by probing its
 * aligned-down heads (heap_owner_of()). A head that stops being one (its
 * chunk merged into a lower buddy) is invalidated to PGS_FREE_TAIL. The
 * frame table memory is therefore not zeroed at boot.
 */
#ifndef KEEL_FRAMETABLE_H
#define KEEL_FRAMETABLE_H

#include <keel/types.h>

#ifdef __cplusplus
extern "C" {
#endif

#define FT_SECTION_SHIFT 15 /* 32768 pages = 128 MiB per section */
#define FT_SECTION_PAGES (1ULL << FT_SECTION_SHIFT)
#define FT_BLOCK_SHIFT	 9 /* 512 pages: 16 KiB of entries */
#define FT_BLOCK_PAGES	 (1U << FT_BLOCK_SHIFT)

enum page_state {
	PGS_NONE = 0,	      /* never a heap page (hole / reserved) */
	PGS_FREE = 0x5a,      /* head of a free chunk */
	PGS_ALLOCATED = 0xa5, /* part of an allocated block */
	PGS_FREE_TAIL = 0x3c, /* chunked tail, or a head merged away */
	PGS_OWNED = 0x69,     /* head of an extent owned by a domain */
	PGS_BAD = 0x96,	      /* an offlined page, withheld (heap_offline()) */
};

/* page_info flags */
#define PGF_CLEAN_POC  0x01 /* chunk cleaned to PoC since last written */
#define PGF_NEED_FLUSH 0x02 /* allocated with no_flush, not yet flushed */
/*
 * Owned head adopted from reserved RAM (heap_adopt_owned()): never freed;
 * the first head of each adopted range also says PGF_ADOPTED_FIRST.
 */
#define PGF_ADOPTED	  0x04
#define PGF_ADOPTED_FIRST 0x08
/* Head of an anonymous block (heap_alloc()), and one in a per-CPU cache. */
#define PGF_ANON   0x10
#define PGF_CACHED 0x20
/*
 * Head of an anonymous block or owned extent that holds a page offlined
 * while it was allocated: its free withholds that page (heap_offline()).
 */
#define PGF_HAS_BAD	 0x40

#define FIRST_DIRTY_NONE 0xffffffffu

struct page_info {
	struct page_info *next, *prev; /* free list links (free heads) */
	uint64_t pfn;		       /* this page's frame number */
	union {
		/* free head: first page offset that may be dirty */
		uint32_t first_dirty;
		uint32_t owner; /* owned head: the domain (1..65535) */
	};
	uint8_t state; /* enum page_state */
	uint8_t order; /* free head / allocated block: its order */
	uint8_t flags; /* PGF_* */
	uint8_t node;
};

/*
 * Set up the section table and allocate, per node, the storage of every
 * section containing RAM (one bootmem allocation per node, node-local).
 * Needs bootmem populated and the node count.
 */
void frametable_init(unsigned int node_count);

/*
 * Where the table lies, piece by piece: the section table (node
 * FRAMETABLE_SECTIONS) and each node's entries stored in one piece.
 * frametable_placement(): this table's (a live update hands it on);
 * frametable_hint(): the last image's, for the next frametable_init(),
 * which puts each piece there again when it is the same size and free.
 */
struct frametable_piece {
	uint64_t start, end; /* physical, page aligned */
	uint32_t node, pad;
};
#define FRAMETABLE_SECTIONS 0xffffffffu
unsigned int frametable_placement(struct frametable_piece *out,
				  unsigned int max);
void frametable_hint(const struct frametable_piece *h, unsigned int n);

/* NULL when the pfn has no frame table storage. */
struct page_info *pfn_to_page_or_null(pfn_t p);

/* pfn_to_page: the pfn must be RAM (CHECK in debug builds). */
struct page_info *pfn_to_page(pfn_t p);

static inline pfn_t page_to_pfn(const struct page_info *pg)
{
	return pfn(pg->pfn);
}

/*
 * The entry of pfn @p when @cur is the entry of p - 1 and both are RAM of
 * one run: entries are contiguous within a block, so only a block start
 * needs a lookup.
 */
static inline struct page_info *pfn_to_page_next(struct page_info *cur,
						 uint64_t p)
{
	if (!(p & (FT_BLOCK_PAGES - 1)))
		return pfn_to_page(pfn(p));
	return cur + 1;
}

/* Bytes of frame table storage allocated (report). */
uint64_t frametable_bytes(void);
/* Bootmem allocations the frame table took (1 + nodes when unfragmented). */
unsigned int frametable_pieces(void);
/* RAM reserved as "no frametable": its entries found no free RAM. */
uint64_t frametable_left_out_bytes(void);

#ifdef __cplusplus
}
#endif

#endif
