/* SPDX-License-Identifier: MIT */
/*
 * Owner: mm.
 * The boot allocator, memblock-shaped: a table of RAM regions (with node)
 * and a table of reserved regions (with a reason). Allocation is top-down,
 * node-local first, then nearest node. Every allocation becomes a named
 * reserved region, so the audit can account for every page. The heap walks
 * the free ranges (for_each_free_range) and then calls bootmem_close():
 * from then on bootmem refuses further allocations. bootmem never calls
 * the heap.
 */
#ifndef KEEL_BOOTMEM_H
#define KEEL_BOOTMEM_H

#include <keel/types.h>
#ifndef KEEL_CONFIG_GIVEN /* keel's own build; a host's (make lib) takes less */
#include <keel/bootinfo.h>
#include <keel/range_table.h>
#endif
#include <keel/node_limits.h>

#ifdef __cplusplus
extern "C" {
#endif

struct bootinfo;
struct region;

struct jw;

/*
 * The RAM and reserved tables (struct region: RAM with its node, reserved
 * with its reason) start on static stores of BOOTMEM_STATIC_REGIONS and
 * double into memory from bootmem itself, up to BOOTMEM_MAX_REGIONS (the
 * limit: far above any machine, a live update's 100,000 preserved
 * ranges included). Only past it does a reserved table merge neighbours.
 */
#define BOOTMEM_STATIC_REGIONS 1024
#define BOOTMEM_MAX_REGIONS    RANGE_TABLE_MAX_REGIONS
#define BOOTMEM_ANY_NODE       NUMA_NO_NODE

void bootmem_init(void);

/*
 * Feed bootmem from a sanitised bootinfo: its RAM table becomes bootmem's
 * (taken over, not copied: bootmem adds to it and grows it from then on),
 * then all reserved ranges (trimmed to RAM; outside RAM they only count as
 * firmware reserved), a live update's carried bad ranges among them, read
 * where they are in the handover's records (struct bootinfo's @carried).
 */
void bootmem_init_from_bootinfo(struct bootinfo *bi);
/*
 * The tables may grow into RAM from now on: every reservation is in
 * (memblock_allow_resize()). bootmem_init_from_bootinfo() says it itself;
 * a bootmem fed by hand calls this once its reserved ranges are added.
 */
void bootmem_allow_resize(void);

/*
 * Return: 0 or -ENOSPC (RAM table at its limit) / -EINVAL. A reserved
 * table at its limit merges neighbouring reservations instead of failing.
 */
int bootmem_add(paddr_t base, uint64_t size, uint32_t node);
int bootmem_reserve(paddr_t base, uint64_t size, const char *why);

/*
 * bootmem_alloc(): @size bytes aligned to @align (power of two, >= page),
 * top-down, on @node if it can, else the nearest node by distance (ties:
 * lowest id), BOOTMEM_ANY_NODE for no preference. The memory is not zeroed.
 * Records a reserved region named @why. Panics naming @why, size, align
 * and node when nothing fits.
 */
paddr_t bootmem_alloc(uint64_t size, uint64_t align, uint32_t node,
		      const char *why);
/*
 * [@at, @at + @size) itself (page aligned), when all of it is free RAM of
 * @node (BOOTMEM_ANY_NODE: any); else INVALID_PADDR and nothing
 * reserved. A live update puts its frame table where the last image's
 * lay (common/mm/frametable.c).
 */
paddr_t bootmem_alloc_at(paddr_t at, uint64_t size, uint32_t node,
			 const char *why);
/* As bootmem_alloc() but returns INVALID_PADDR instead of panicking. */
paddr_t bootmem_alloc_try(uint64_t size, uint64_t align, uint32_t node,
			  const char *why);

/*
 * Iterate the free ranges (RAM minus reserved), ascending, each within one
 * node and one RAM region: @idx is the iterator state, starting at 0. A
 * badram= lattice's pages are in them (the heap's handoff takes them):
 * what an allocation may use is bootmem_largest_free()'s.
 * Return: false when done.
 */
bool bootmem_next_free_range(uint64_t *idx, paddr_t *start, paddr_t *end,
			     uint32_t *node);

#define for_each_free_range(idx, s, e, n) \
	for ((idx) = 0; bootmem_next_free_range(&(idx), (s), (e), (n));)

/*
 * bootmem_close(): the free ranges have been handed over (heap_handoff()):
 * every later allocation panics. Once only.
 */
void bootmem_close(void);

/*
 * mem=: keep the first @max_bytes of RAM (ascending, reserved RAM counted);
 * the RAM above becomes a reserved region named "mem=" (so the audit still
 * accounts for it). Call after bootmem_init_from_bootinfo(). 0 = no limit.
 * Not applied (-ENOMEM) when less than @min_free bytes would stay free.
 */
int bootmem_limit(uint64_t max_bytes, uint64_t min_free);
/* Where mem= cut RAM (top of the address space when it did not). */
paddr_t bootmem_limit_top(void);
/*
 * Reserved regions merged into a neighbour because the table was full, and
 * (@gap_bytes, may be NULL) the bytes between them reserved with them.
 */
unsigned int bootmem_merged_regions(uint64_t *gap_bytes);
/*
 * A lower limit than BOOTMEM_MAX_REGIONS for both tables (at least the
 * static BOOTMEM_STATIC_REGIONS), until bootmem_init(): how the tests
 * reach the merge that only a table at its limit falls back on.
 */
void bootmem_set_table_limit(unsigned int max);

/*
 * Whether a free range of @node holds @bytes (no alignment): O(RAM /
 * @bytes x log reserved), the reserved ranges not walked one by one.
 */
bool bootmem_node_free_at_least(uint32_t node, uint64_t bytes);

/*
 * Bytes of the largest free range clear of the lattices (the largest
 * allocation that fits).
 */
uint64_t bootmem_largest_free(void);
/*
 * Whether some free range holds @bytes clear of the lattices: the walk
 * stops at the first that does (100,000 bad pages cut the free RAM in as
 * many ranges).
 */
bool bootmem_free_at_least(uint64_t bytes);
/* Bytes of RAM, reserved or not: O(RAM regions). */
uint64_t bootmem_ram_bytes(void);
/*
 * Bytes of the free ranges, a badram= lattice's pages in them: one walk of
 * every free range (a machine of 100,000 bad pages: as many steps).
 */
uint64_t bootmem_free_bytes(void);
/*
 * Reserved regions the allocations' top-down walks stepped over since
 * bootmem_init(): amortised O(1) per allocation of one shape (a cursor),
 * not O(reserved regions); the unit tests count them.
 */
uint64_t bootmem_walk_steps(void);
/*
 * Pieces of bootinfo's reserved list that bootmem_init_from_bootinfo()
 * could not append at the table's end in address order and gave to the
 * general fill (an overlap, or a list loaded out of order): a long list
 * in a few sorted runs is merged as it loads, so only its overlaps count;
 * the unit tests count them.
 */
uint64_t bootmem_load_filled(void);

/*
 * bootmem_alloc_series(): many pieces on one node in one top-down walk,
 * reserved a gap at a time (the frame table of a node whose free memory
 * is cut every few MiB by bad pages). @size_of: the next piece's bytes
 * (asked again until it is placed); @placed: where it went.
 * Return: the pieces placed, from the first (fewer: the node is full).
 */
struct bootmem_series {
	uint32_t node;
	unsigned int count, done;
	const char *why;
	uint64_t (*size_of)(void *arg);
	void (*placed)(void *arg, paddr_t at);
	void *arg;
};
unsigned int bootmem_alloc_series(struct bootmem_series *sr);
/*
 * A bound on @node's free ranges (for_each_free_range), not walking them:
 * its RAM regions plus the reserved regions inside them.
 */
uint64_t bootmem_free_ranges_at_most(uint32_t node);
/*
 * The heap ranges reserved region @r can hold for a domain (0: not named
 * "preserved" or "static-mem"; more than one across a badram= lattice),
 * and their sum over @node's reserved regions.
 */
uint64_t bootmem_region_domain_ranges(const struct region *r);
uint64_t bootmem_domain_ranges(uint32_t node);
/*
 * The reserved table's first store (bootmem_init_from_bootinfo()), in
 * regions: bootmem_presize_need() for the list's @pieces in RAM (one a
 * reservation, more where it spans RAM ranges) and @carried ranges a
 * handover carried, on @ram_ranges RAM ranges; a store with
 * BOOTMEM_PRESIZE_TIGHT_SLACK more is the smallest bootmem asks for. A
 * live update's old image asks it of the next image's list before the
 * freeze (common/liveupdate/lu_alloc.c), as bootmem will.
 */
#define BOOTMEM_PRESIZE_TIGHT_SLACK 128
uint64_t bootmem_presize_need(uint64_t pieces, uint64_t carried,
			      uint64_t ram_ranges);
/*
 * The widest free range a badram= pattern (a lattice) leaves anywhere,
 * in bytes: ~0 with no pattern (include/keel/lattice.h).
 */
uint64_t bootmem_lattice_gap_bytes(void);
/*
 * Is every page of [@s, @e) in a bad reservation (include/keel/badmem.h:
 * a "bad ..." name) and in no other? The heap's handoff hands free ranges
 * separated only by such gaps as one span (common/mm/heap_defer.c).
 * False for an empty gap. O(regions in the gap) for gaps asked in address
 * order, O(log reserved) more otherwise (common/mm/bootmem_gap.c).
 */
bool bootmem_gap_bad(paddr_t s, paddr_t e);

/*
 * badram= patterns too dense for the reserved table (struct bootinfo's
 * @lattice, common/mm/bootmem_lattice.c): their pages are free RAM to
 * for_each_free_range() (the heap's handoff takes them, and the heap
 * takes them out of service: bad_lattice_take()), never to an
 * allocation. bootmem_lattice_after(): the run of their pages holding @x
 * or the first above it, [*@s, *@e). Return: whether there is one.
 */
bool bootmem_lattice_after(uint64_t x, uint64_t *s, uint64_t *e);

/*
 * Read-only views for the audit and the report. bootmem_reserved_regions():
 * the whole reserved table; a live update's carried bad ranges, read in
 * place beside it until then (common/mm/bootmem_carried.c), join it at
 * the first call (a write of one region each: not in the update's
 * downtime). bootmem_reserved_table(): the table as it stands, for a
 * reader in the downtime that asks about other names only: a carried
 * range never cuts a region of it (where both hold bytes, the region
 * names them).
 */
const struct region *bootmem_ram_regions(unsigned int *count);
const struct region *bootmem_reserved_regions(unsigned int *count);
const struct region *bootmem_reserved_table(unsigned int *count);
/*
 * The carried bad ranges join the reserved table now (a live update's new
 * image, its domains restored: common/boot.c), not at the first reader.
 * Once; nothing to do without them. The boot CPU, nothing else reading.
 */
void bootmem_join_carried(void);
uint64_t bootmem_allocated_bytes(void);
unsigned int bootmem_allocation_count(void);
/* Bytes of RAM covered by reserved regions (each byte counted once). */
uint64_t bootmem_reserved_ram_bytes(void);

#ifdef __cplusplus
}
#endif

#endif
