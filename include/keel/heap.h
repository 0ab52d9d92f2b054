/* SPDX-License-Identifier: MIT */
/*
 * The buddy heap: free lists per [node][zone][order], zone = bit width of
 * the pfn (so an aligned power-of-two chunk never crosses a zone), one lock
 * per node. See DESIGN §4 for the O(chunks) handoff and the meaning of
 * page_info entries.
 *
 * Scrub state lives in free chunk heads: first_dirty (FIRST_DIRTY_NONE =
 * clean) and PGF_CLEAN_POC. Free lists keep clean chunks at the head and
 * dirty ones at the tail.
 */
#ifndef KEEL_HEAP_H
#define KEEL_HEAP_H

#include <keel/bootinfo.h>
#include <keel/config.h>
#include <keel/frametable.h>
#include <keel/spinlock.h>
#include <keel/types.h>

struct jw;

#define MAX_ORDER CONFIG_MAX_ORDER
/*
 * Free chunks may be larger than what a caller can allocate: up to
 * 2^MAX_FREE_ORDER pages (8 TiB), so that handing over a range costs one
 * head write per 8 TiB, not per 2^MAX_ORDER pages. 31 keeps first_dirty
 * offsets and the per-zone order masks 32-bit.
 */
#define MAX_FREE_ORDER	31
#define NR_ZONES	53  /* pfn bit widths 0..52 */
#define HEAP_MAX_RANGES 256 /* per node, static; heap_grow_ranges() for more */

enum heap_init_mode {
	HEAP_INIT_LAZY = 0, /* one head write per chunk (default) */
	HEAP_INIT_CHUNKED,  /* every entry of every chunk written (Xen 4.17) */
	HEAP_INIT_PAGEWISE, /* one free per page (pre-2022 Xen) */
};

/* heap_alloc flags: low byte = node + 1 (0 = no preference). */
#define HEAP_NODE(n)	((uint32_t)((n) + 1) & 0xff)
#define HEAP_NODE_OF(f) ((int)((f)&0xff) - 1)
#define HEAP_EXACT_NODE (1u << 8)  /* fail rather than go off-node */
#define HEAP_NO_SCRUB	(1u << 9)  /* caller does not need zeroed pages */
#define HEAP_NO_FLUSH	(1u << 10) /* record maintenance, do it later */
#define HEAP_ICACHE	(1u << 11) /* also invalidate the I-cache */
/* address-width limit: block must lie below 2^bits (DMA). 0 = none */
#define HEAP_BITS(b)	((uint32_t)(b) << 16)
#define HEAP_BITS_OF(f) (((f) >> 16) & 0xff)

struct heap_range {
	pfn_t start, end; /* [start, end) */
};

struct heap_node_stats {
	uint64_t total_pages; /* pages handed to this node */
	uint64_t free_pages;
	uint64_t dirty_pages; /* free pages that still need scrubbing */
	uint64_t chunks;      /* chunks inserted at handoff */
	uint64_t free_chunks; /* current free list entries */
	uint64_t init_ticks;  /* time spent in heap_add_range for the node */
	uint64_t zone_free[NR_ZONES];
	uint64_t lock_max_ticks; /* longest hold of the node lock */
};

void heap_init(enum heap_init_mode mode, unsigned int node_count,
	       const uint8_t (*distance)[MAX_NUMNODES]);
enum heap_init_mode heap_mode(void);
const char *heap_mode_name(enum heap_init_mode mode);

/*
 * heap_add_range(): [start, end) of free RAM on @node becomes heap memory:
 * registered in the node's range table and decomposed into maximal aligned
 * chunks (DESIGN §4). @dirty: chunks need scrubbing before use.
 * Return: number of chunks of that decomposition (the same figure in every
 * heap_init mode, pagewise included), 0 when the range is refused
 * (overlap, unknown node, no frame table storage, range table full).
 */
uint64_t heap_add_range(uint32_t node, pfn_t start, pfn_t end, bool dirty);

/*
 * Order of the first chunk of the free range [s, e) (pfns): min(MAX_FREE_ORDER,
 * fls(e - s) - 1, ffs(s) - 1), and 0 for pfn 0. heap_add_range() cuts a
 * range by calling it repeatedly. Pure; exposed for tests.
 */
unsigned int heap_chunk_order(uint64_t s, uint64_t e);

/*
 * heap_alloc(): a block of 2^@order pages. Prefers clean chunks; a dirty
 * block is scrubbed outside the lock unless HEAP_NO_SCRUB; cache maintenance
 * per cachemaint mode, outside the lock (DESIGN §6). All page_info entries of
 * the block are written (state allocated, order, node, pfn).
 * Return: the head page, or NULL.
 */
struct page_info *heap_alloc(unsigned int order, uint32_t flags);

/*
 * heap_free(): give back a block. @need_scrub: its contents are dirty.
 * Misuse (double free, pfn the heap does not own, order mismatch, order >
 * MAX_ORDER) panics with the pfn and the reason when heap_strict is set
 * (CONFIG_DEBUG default), else is refused with a warning.
 * Return: 0 or -EINVAL.
 */
int heap_free(struct page_info *pg, unsigned int order, bool need_scrub);
extern bool heap_strict;

/* Totals and per-node counters. */
uint64_t heap_free_pages(void);
uint64_t heap_total_pages(void);
uint64_t heap_allocated_pages(void);
uint64_t heap_dirty_pages(void);
uint64_t heap_chunk_count(void);
const struct heap_node_stats *heap_node_stats(uint32_t node);
unsigned int heap_node_count(void);
const struct heap_range *heap_node_ranges(uint32_t node, unsigned int *count);
/*
 * A node's range table holds HEAP_MAX_RANGES until heap_grow_ranges()
 * gives it @cap entries of caller memory (bootmem_handoff() does, for a
 * node with more free ranges than that).
 */
unsigned int heap_range_capacity(uint32_t node);
void heap_grow_ranges(uint32_t node, struct heap_range *tab, unsigned int cap);
/* Is [p, p + 2^order) inside one heap range of @node? */
bool heap_owns(uint32_t node, pfn_t p, unsigned int order);

/*
 * The node lock is in the type: functions that need it take a
 * struct heap_node_locked.
 */
struct heap_node;
struct heap_node_locked {
	struct heap_node *hn;
};
/*
 * Taken with interrupts masked (spin_lock_irqsave: docs/design.md says
 * why); the interrupts-off tracer names the caller (@site).
 */
struct heap_node_locked heap_lock_node_at(uint32_t node, const char *site);
#define heap_lock_node(node) heap_lock_node_at((node), __func__)
void heap_unlock_node(struct heap_node_locked l);
/* Forget every node's lock_max_ticks (benchmarks measure from here). */
void heap_reset_lock_stats(void);

/*
 * Scrub support (scrub.c). heap_take_dirty(): detach one dirty free chunk
 * of @node (from a list tail), NULL when the node has none. The caller
 * scrubs it with no lock held and returns it with heap_put_clean().
 */
struct page_info *heap_take_dirty(uint32_t node, unsigned int *order);
void heap_put_clean(struct page_info *pg, unsigned int order, bool clean_poc);

/*
 * Walk every free chunk of a node under its lock (audit, boot scrub
 * planning). The callback must not call heap functions.
 */
void heap_for_each_free(uint32_t node,
			void (*fn)(struct page_info *head, unsigned int order,
				   unsigned int zone, void *arg),
			void *arg);

/*
 * heap_mark_clean(): after the boot scrub (heap not open yet, no other
 * user): a chunk head is now all zero; set first_dirty = NONE and
 * PGF_CLEAN_POC if @clean_poc, and move it to the clean end of its list.
 * Takes the node lock (workers of one node may finish chunks together).
 */
void heap_mark_clean(struct page_info *head, bool clean_poc);

/*
 * heap_check(): full consistency walk (audit=full, tests): alignment, order
 * bounds, zone and node membership, no overlap, counters. Return: number of
 * problems found (each printed with pr_err).
 */
unsigned int heap_check(void);

/* The report's "heap" object (keys heap.*) and the "heap:" lines
 * (common/heap_report.c). */
void heap_report_json(struct jw *w, unsigned int nodes);
void heap_report_human(unsigned int nodes);

#endif
