/* SPDX-License-Identifier: MIT */
/*
 * Owner: mm.
 * Bringing the heap up (common/mm/heap_init.c): heap_init(), the handoff of
 * bootmem's free ranges (heap_handoff(), heap_add_range()), the per-node range tables and
 * the handoff modes; then what the opener sets up around the runtime API
 * (keel/heap.h): each CPU's node, the per-CPU caches, and reserved RAM
 * adopted as a domain's. Boot code (common/boot.c, bootmem, the domain
 * room's static memory and restore, tests) and a host that opens the heap.
 * See DESIGN §4 for the O(chunks) handoff.
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
 * without room refuses the ranges it cannot hold, each with an error; the
 * audit counts their pages apart (heap_refused_pages(), audit.refused_pages),
 * out of service. Called by heap_handoff().
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
 * The same in two steps (a live update's new image, docs/liveupdate.md):
 * heap_handoff_first() sizes the tables, hands over each node's free
 * ranges in address order until the node holds at least @bytes (~0ULL:
 * all, one step) and closes bootmem;
 * heap_handoff_rest() hands over the others. Return: ranges handed over.
 */
unsigned int heap_handoff_first(bool dirty, uint64_t bytes);
unsigned int heap_handoff_rest(void);
/*
 * heap_refused_pages(): the free RAM heap_handoff() could not add (no
 * state for its node, a full range table; each range warned): out of
 * service, a class of the audit's own.
 */
uint64_t heap_refused_pages(void);

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
 * @node's heap ranges in address order: struct region in bytes, frames
 * through region_start_pfn()/region_end_pfn(); no lock: boot or
 * quiescent. A node keeps them in slices (common/mm/heap_ranges.c), so
 * they are read one at a time: struct heap_range_pos pos = {0}, then
 * heap_node_range_next(node, &pos) until NULL. heap_node_range_count():
 * how many (O(slices)).
 */
struct heap_range_pos {
	unsigned int slice, i;
};
const struct region *heap_node_range_next(uint32_t node,
					  struct heap_range_pos *pos);
unsigned int heap_node_range_count(uint32_t node);

/* heap_node_count(): the node count given to heap_init(). */
unsigned int heap_node_count(void);

/*
 * heap_set_cpu_node(): CPU @cpu (its arch_cpu_id()) is on @node, where its
 * HEAP_ANY_NODE allocations start (node 0 until said). No lock; call it
 * when the CPU is set up. heap_cpu_node(): the calling CPU's node.
 */
void heap_set_cpu_node(unsigned int cpu, uint32_t node);
uint32_t heap_cpu_node(void);

/*
 * Per-CPU caches (DESIGN §15): heap_alloc() and heap_free() of orders 0
 * to 10 are served by the calling CPU's cache of its node's blocks,
 * refilled and emptied in batches under the node lock, bounded (8095
 * pages per CPU, a quarter of the heap in all). Cached blocks count as
 * free in every counter.
 * heap_drain_caches(): every cache back to the free lists (audit, checks,
 * a live update's freeze, low memory; heap_alloc() does it before it
 * fails). heap_drain_cpu_cache(): one CPU's, for a CPU going offline.
 * Lock: each cache's, then the node's. Return: the pages given back.
 * heap_set_cpu_caches(): on, or off (drained); heap_init() leaves them
 * off, whoever opens the heap for its runtime turns them on.
 */
uint64_t heap_drain_caches(void);
uint64_t heap_drain_cpu_cache(unsigned int cpu);
void heap_set_cpu_caches(bool on);

/*
 * Reserved RAM that joins the heap as a domain's and leaves it again: a
 * domain's static memory at boot, a live update's restore (the domain
 * room's domain_static.c and domain_restore.c).
 *
 * heap_adopt_owned(): pfns [@start, @end) of @node, RAM the heap was never
 * given (reserved at boot: a domain's static memory, xen,static-mem), join
 * the heap as extents owned by @owner: the range is added to the node's
 * range table and cut into maximal aligned blocks, as a handoff cuts a
 * free range (one head write each, flagged PGF_ADOPTED). The contents are
 * the owner's and stay as they are: never zeroed, never scrubbed, no cache
 * maintenance. heap_owner_of(), heap_stats()'s owned_pages and audit=full
 * see them as owned; heap_stats()'s adopted_pages counts them, so that
 * the audit does not also count them as reserved. heap_free_owned()
 * refuses them: they leave the heap only through heap_release_owned().
 * Lock: the node's. Return: the extents made (> 0), -EINVAL (no such
 * node, owner 0, empty, a pfn without a frame table entry, overlapping
 * heap memory) or -ENOSPC (the node's range table is full).
 */
long heap_adopt_owned(uint32_t node, pfn_t start, pfn_t end, uint16_t owner);
/*
 * heap_release_owned(): undo heap_adopt_owned() of exactly [@start,
 * @end): every block must be an adopted extent of @owner; the range leaves
 * the heap (reserved again, contents untouched).
 * Lock: the node's. Return: 0, -EINVAL (misuse: refused, nothing changed;
 * panics when heap_strict is set) or -ENOSPC (the range table cannot be
 * split: nothing changed).
 */
int heap_release_owned(uint32_t node, pfn_t start, pfn_t end, uint16_t owner);

#ifdef __cplusplus
}
#endif

#endif
