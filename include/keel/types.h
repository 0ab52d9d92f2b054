/* SPDX-License-Identifier: MIT */
/*
 * Owner: lib.
 * Basic types. Physical addresses and page frame numbers are distinct
 * single-member structs so that one cannot be passed where the other is
 * expected; convert only through the helpers below.
 */
#ifndef KEEL_TYPES_H
#define KEEL_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdarg.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PAGE_SHIFT 12
#define PAGE_SIZE  (1ULL << PAGE_SHIFT)
#define PAGE_MASK  (~(PAGE_SIZE - 1))

typedef struct {
	uint64_t v;
} paddr_t;

typedef struct {
	uint64_t v;
} pfn_t;

static inline paddr_t pa(uint64_t v)
{
	return (paddr_t){v};
}
static inline uint64_t pa_val(paddr_t p)
{
	return p.v;
}
static inline pfn_t pfn(uint64_t v)
{
	return (pfn_t){v};
}
static inline uint64_t pfn_val(pfn_t p)
{
	return p.v;
}
static inline paddr_t pfn_to_paddr(pfn_t p)
{
	return pa(p.v << PAGE_SHIFT);
}
static inline pfn_t paddr_to_pfn(paddr_t p)
{
	return pfn(p.v >> PAGE_SHIFT);
}
static inline pfn_t pfn_add(pfn_t p, uint64_t n)
{
	return pfn(p.v + n);
}
static inline paddr_t pa_add(paddr_t p, uint64_t n)
{
	return pa(p.v + n);
}

/*
 * The one region type: [start, end) in bytes and what it carries. Every
 * table of ranges keel keeps holds these (struct range_table,
 * include/keel/range_table.h): bootinfo's firmware lists, bootmem's RAM
 * and reserved tables, each heap node's ranges. Bounds are bytes (paddr_t);
 * the page view of a region is derived by region_start_pfn() and
 * region_end_pfn(), never stored, so the compiler keeps the two apart.
 * What a table does not use stays 0: a reserved region has no node, RAM
 * no name.
 */
#define REGION_NAME_MAX 24

/* flags: what the firmware said about a range (SRAT memory affinity). */
#define REGION_HOTPLUG	   (1u << 0)
#define REGION_NONVOLATILE (1u << 1)

struct region {
	paddr_t start, end;	    /* [start, end) */
	uint32_t node;		    /* RAM: its NUMA node */
	uint32_t flags;		    /* REGION_* */
	char name[REGION_NAME_MAX]; /* reserved: why (NUL-terminated) */
};

static inline pfn_t region_start_pfn(const struct region *r)
{
	return paddr_to_pfn(r->start);
}
static inline pfn_t region_end_pfn(const struct region *r)
{
	return paddr_to_pfn(r->end);
}
static inline uint64_t region_bytes(const struct region *r)
{
	return r->end.v - r->start.v;
}
/*
 * Do [@s1, @e1) and [@s2, @e2) share a byte? The one interval-overlap
 * test (s1 < e2 && s2 < e1): non-empty ranges assumed.
 */
static inline bool ranges_overlap(uint64_t s1, uint64_t e1, uint64_t s2,
				  uint64_t e2)
{
	return s1 < e2 && s2 < e1;
}
/* Does region @r share a byte with [@s, @e)? */
static inline bool region_overlaps(const struct region *r, paddr_t s, paddr_t e)
{
	return ranges_overlap(pa_val(r->start), pa_val(r->end), pa_val(s),
			      pa_val(e));
}
/* A region of bounds [@s, @e), nothing else set. */
static inline struct region region_of(paddr_t s, paddr_t e)
{
	struct region r;

	__builtin_memset(&r, 0, sizeof(r)); /* C and C++ (keel/ headers) */
	r.start = s;
	r.end = e;
	return r;
}

#define INVALID_PADDR pa(~0ULL)
#define INVALID_PFN   pfn(~0ULL)

#ifdef __cplusplus
}
#endif

#endif
