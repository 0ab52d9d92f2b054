/* SPDX-License-Identifier: MIT */
/*
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
 * The two range types: [start, end) in bytes and in page frames. Every
 * table of ranges keel keeps (include/keel/range_table.h) holds one or the
 * other, and its user's region type begins with one of these pairs.
 * may_alias: a table reads its user's regions through them.
 */
struct paddr_range {
	paddr_t start, end;
} __attribute__((__may_alias__));

struct pfn_range {
	pfn_t start, end;
} __attribute__((__may_alias__));

/*
 * The head of a region type (a range and what it carries, such as a node
 * or a name): .range is the whole range, .start and .end its bounds.
 */
#define PADDR_RANGE_HEAD                    \
	union {                             \
		struct paddr_range range;   \
		struct {                    \
			paddr_t start, end; \
		};                          \
	}
#define PFN_RANGE_HEAD                    \
	union {                           \
		struct pfn_range range;   \
		struct {                  \
			pfn_t start, end; \
		};                        \
	}

#define INVALID_PADDR pa(~0ULL)
#define INVALID_PFN   pfn(~0ULL)

#endif
