/* SPDX-License-Identifier: MIT */
/*
 * Owner: mm.
 * Bringing the heap up (common/mm/heap_init.c): heap_init(), the handoff of
 * bootmem's free ranges (heap_handoff(), heap_add_range()), the per-node range tables and
 * the handoff modes. Boot code only (common/boot.c, bootmem, tests); the
 * runtime API is keel/heap.h. See DESIGN §4 for the O(chunks) handoff.
 */
#ifndef KEEL_HEAP_BOOT_H
#define KEEL_HEAP_BOOT_H

#ifndef KEEL_CONFIG_GIVEN /* keel's own build; a host's (make lib) takes less */
#include <keel/bootinfo.h>
#endif
#include <keel/node_limits.h>
#include <keel/enum_names.h>
#include <keel/heap.h>

#ifdef __cplusplus
extern "C" {
#endif

struct region;

#define HEAP_MAX_RANGES 256 /* per node, beside its state; more from bootmem */

enum heap_init_mode {
	HEAP_INIT_LAZY = 0, /* one head write per chunk (default) */
	HEAP_INIT_CHUNKED,  /* every entry of every chunk written (Xen 4.17) */
	HEAP_INIT_PAGEWISE, /* one free per page (pre-2022 Xen) */
};

void heap_init(enum heap_init_mode mode, unsigned int node_count,
	       const uint8_t (*distance)[MAX_NUMNODES]);
enum heap_init_mode heap_mode(void);
extern const struct enum_name heap_mode_names[];
const char *heap_mode_name(enum heap_init_mode mode);

/*
 * heap_size_ranges(): before the handoff, the heap counts bootmem's free
 * ranges per node and asks bootmem for a larger range table where the
 * static one cannot hold them (from the node's own memory). A node left
 * without room refuses the ranges it cannot hold, each with an error, and
 * the audit shows their pages as lost. Called by heap_handoff().
 */
void heap_size_ranges(void);

/*
 * heap_handoff(): every free range of bootmem (for_each_free_range) joins
 * the heap (heap_size_ranges(), then heap_add_range() each), then bootmem
 * is closed (bootmem_close()). @dirty: the chunks need scrubbing (the
 * default; false: trusted clean, bootscrub=off and tests).
 * Return: number of ranges handed over.
 */
unsigned int heap_handoff(bool dirty);

/*
 * heap_add_range(): [start, end) of free RAM on @node becomes heap memory:
 * registered in the node's range table and decomposed into maximal aligned
 * chunks (DESIGN §4). @dirty: chunks need scrubbing before use.
 * Lock: the node's. Return: number of chunks of that decomposition (the
 * same figure in every heap_init mode, pagewise included), 0 when the
 * range is refused (overlap, unknown node, no frame table storage, range
 * table full).
 */
uint64_t heap_add_range(uint32_t node, pfn_t start, pfn_t end, bool dirty);

/*
 * Order of the first chunk of the free range [s, e) (pfns): min(MAX_FREE_ORDER,
 * fls(e - s) - 1, ffs(s) - 1), and 0 for pfn 0. heap_add_range() cuts a
 * range by calling it repeatedly. Pure; exposed for tests.
 */
unsigned int heap_chunk_order(uint64_t s, uint64_t e);

/* Chunks inserted at handoff, all nodes. */
uint64_t heap_chunk_count(void);
/*
 * @node's sorted range table (@count set): struct region in bytes, frames
 * through region_start_pfn()/region_end_pfn(); no lock: boot or quiescent.
 */
const struct region *heap_node_ranges(uint32_t node, unsigned int *count);

#ifdef __cplusplus
}
#endif

#endif
