/* SPDX-License-Identifier: MIT */
/*
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

#include <keel/bootinfo.h>
#include <keel/types.h>

struct jw;

#define BOOTMEM_MAX_REGIONS 1024
#define BOOTMEM_ANY_NODE    NUMA_NO_NODE

struct bootmem_region {
	PADDR_RANGE_HEAD;	      /* [start, end), page aligned */
	uint32_t node;		      /* RAM: its node; reserved: unused */
	char name[BOOTINFO_NAME_MAX]; /* reserved: the reason */
};

void bootmem_init(void);

/*
 * Feed bootmem from a sanitised bootinfo: all RAM ranges, then all reserved
 * ranges (trimmed to RAM; outside RAM they only count as firmware reserved).
 */
void bootmem_init_from_bootinfo(const struct bootinfo *bi);

/*
 * Return: 0 or -ENOSPC (RAM table full) / -EINVAL. A full reserved table
 * merges neighbouring reservations instead of failing.
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
/* As bootmem_alloc() but returns INVALID_PADDR instead of panicking. */
paddr_t bootmem_alloc_try(uint64_t size, uint64_t align, uint32_t node,
			  const char *why);

/*
 * Iterate the free ranges (RAM minus reserved), ascending, each within one
 * node and one RAM region: @idx is the iterator state, starting at 0.
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

/* Bytes of the largest free range (the largest allocation that fits). */
uint64_t bootmem_largest_free(void);

/* Read-only views for the audit and the report. */
const struct bootmem_region *bootmem_ram_regions(unsigned int *count);
const struct bootmem_region *bootmem_reserved_regions(unsigned int *count);
uint64_t bootmem_allocated_bytes(void);
unsigned int bootmem_allocation_count(void);
/* Bytes of RAM covered by reserved regions (each byte counted once). */
uint64_t bootmem_reserved_ram_bytes(void);

#endif
