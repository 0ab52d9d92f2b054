/* SPDX-License-Identifier: MIT */
/*
 * A sorted table of non-overlapping ranges, the one shape keel keeps ranges
 * in (bootinfo's sanitised RAM, bootmem's RAM and reserved tables, each
 * heap node's ranges), after Linux's struct memblock_type.
 *
 * Two table types, one per unit, so that the compiler refuses a mix-up:
 * struct paddr_range_table holds byte ranges (paddr_t bounds: bootinfo,
 * bootmem), struct pfn_range_table page ranges (pfn_t bounds: the heap).
 * Their functions (paddr_range_table_*(), pfn_range_table_*()) take and
 * return bounds of their unit only. Both are one struct range_table
 * underneath, whose functions (range_table_*(), on raw 64-bit bounds) are
 * the single implementation, called only through the typed ones.
 *
 * The table does not own a region type: its users have their own (struct
 * bi_ram, struct bootmem_region, struct heap_range), each beginning with
 * the range's two bounds [start, end) of the table's unit, which
 * PADDR_/PFN_RANGE_TABLE_CHECK_TYPE() prove at build time. Everything after
 * them (a node, a name) is the user's payload; two regions that touch
 * become one only when same() says their payloads agree.
 *
 * No allocation, no lock: the user owns the storage and serialises access.
 */
#ifndef KEEL_RANGE_TABLE_H
#define KEEL_RANGE_TABLE_H

#include <keel/bug.h>
#include <keel/types.h>

/* The raw bounds at the head of every region, as the core reads them. */
struct range {
	uint64_t start, end; /* [start, end) */
} __attribute__((__may_alias__));

#define RANGE_TABLE_FIELDS                                                 \
	void *regions;	    /* @cap slots of @size bytes, @count in use */ \
	unsigned int count; /* sorted by start, none overlapping */        \
	unsigned int cap;                                                  \
	unsigned int size; /* bytes per region, bounds first */            \
	/* May a region with payload @b extend @a? NULL: always. */        \
	bool (*same)(const void *a, const void *b)

/* The untyped core: only the typed tables below use it directly. */
struct range_table {
	RANGE_TABLE_FIELDS;
};

/*
 * A typed table: the core (for the core's functions) and the same fields
 * by name (count, regions: what users read).
 */
#define RANGE_TABLE_TYPED(name)                     \
	struct name {                               \
		union {                             \
			struct range_table core;    \
			struct {                    \
				RANGE_TABLE_FIELDS; \
			};                          \
		};                                  \
	}

RANGE_TABLE_TYPED(paddr_range_table);
RANGE_TABLE_TYPED(pfn_range_table);

/* A user's region type must begin with two 64-bit bounds. */
#define RANGE_TABLE_CHECK_TYPE(type, start_field, end_field)       \
	BUILD_BUG_ON(__builtin_offsetof(type, start_field) != 0 || \
		     __builtin_offsetof(type, end_field) != 8 ||   \
		     sizeof(((type *)0)->start_field) != 8 ||      \
		     sizeof(((type *)0)->end_field) != 8)

#define RANGE_TABLE_CHECK_UNIT(type, unit)                            \
	BUILD_BUG_ON(!__builtin_types_compatible_p(                   \
			     __typeof__(((type *)0)->start), unit) || \
		     !__builtin_types_compatible_p(                   \
			     __typeof__(((type *)0)->end), unit))

/* @type begins with paddr_t start, end: a region of a paddr_range_table. */
#define PADDR_RANGE_TABLE_CHECK_TYPE(type)        \
	RANGE_TABLE_CHECK_TYPE(type, start, end); \
	RANGE_TABLE_CHECK_UNIT(type, paddr_t)

/* @type begins with pfn_t start, end: a region of a pfn_range_table. */
#define PFN_RANGE_TABLE_CHECK_TYPE(type)          \
	RANGE_TABLE_CHECK_TYPE(type, start, end); \
	RANGE_TABLE_CHECK_UNIT(type, pfn_t)

/* A table over @store, an array of @cap regions (count 0). */
#define RANGE_TABLE_INIT(store, cap_, same_)                   \
	{                                                      \
		.regions = (store), .count = 0, .cap = (cap_), \
		.size = sizeof((store)[0]), .same = (same_),   \
	}
#define PADDR_RANGE_TABLE_INIT(store, cap_, same_)           \
	{                                                    \
		.core = RANGE_TABLE_INIT(store, cap_, same_) \
	}
#define PFN_RANGE_TABLE_INIT(store, cap_, same_)             \
	{                                                    \
		.core = RANGE_TABLE_INIT(store, cap_, same_) \
	}

static inline struct range *range_at(const struct range_table *t,
				     unsigned int i)
{
	return (struct range *)((char *)t->regions + (size_t)i * t->size);
}

/* The core (common/lib/range_table.c); see the typed functions below. */
unsigned int range_table_first_ending_above(const struct range_table *t,
					    uint64_t a);
const struct range *range_table_find(const struct range_table *t, uint64_t a);
int range_table_add(struct range_table *t, uint64_t start, uint64_t end,
		    const void *payload);
int range_table_fill(struct range_table *t, uint64_t start, uint64_t end,
		     const void *payload);
int range_table_remove(struct range_table *t, uint64_t start, uint64_t end);
bool range_table_first_gap(const struct range_table *t, uint64_t start,
			   uint64_t end, uint64_t *gap_start,
			   uint64_t *gap_end);
void range_table_sort(struct range_table *t);
unsigned int range_table_nearest_pair(const struct range_table *t,
				      uint64_t *gap);
void range_table_join_next(struct range_table *t, unsigned int i);
bool range_table_grow(struct range_table *t, void *store, unsigned int cap);

/* ---- byte ranges ------------------------------------------------------- */

static inline struct paddr_range *
paddr_range_at(const struct paddr_range_table *t, unsigned int i)
{
	return (struct paddr_range *)range_at(&t->core, i);
}

static inline unsigned int
paddr_range_table_first_ending_above(const struct paddr_range_table *t,
				     paddr_t a)
{
	return range_table_first_ending_above(&t->core, pa_val(a));
}

static inline const struct paddr_range *
paddr_range_table_find(const struct paddr_range_table *t, paddr_t a)
{
	return (const struct paddr_range *)range_table_find(&t->core,
							    pa_val(a));
}

static inline int paddr_range_table_add(struct paddr_range_table *t,
					paddr_t start, paddr_t end,
					const void *payload)
{
	return range_table_add(&t->core, pa_val(start), pa_val(end), payload);
}

static inline int paddr_range_table_fill(struct paddr_range_table *t,
					 paddr_t start, paddr_t end,
					 const void *payload)
{
	return range_table_fill(&t->core, pa_val(start), pa_val(end), payload);
}

static inline int paddr_range_table_remove(struct paddr_range_table *t,
					   paddr_t start, paddr_t end)
{
	return range_table_remove(&t->core, pa_val(start), pa_val(end));
}

static inline bool
paddr_range_table_first_gap(const struct paddr_range_table *t, paddr_t start,
			    paddr_t end, struct paddr_range *gap)
{
	uint64_t s, e;

	if (!range_table_first_gap(&t->core, pa_val(start), pa_val(end), &s,
				   &e))
		return false;
	gap->start = pa(s);
	gap->end = pa(e);
	return true;
}

static inline void paddr_range_table_sort(struct paddr_range_table *t)
{
	range_table_sort(&t->core);
}

static inline unsigned int
paddr_range_table_nearest_pair(const struct paddr_range_table *t,
			       uint64_t *gap_bytes)
{
	return range_table_nearest_pair(&t->core, gap_bytes);
}

static inline void paddr_range_table_join_next(struct paddr_range_table *t,
					       unsigned int i)
{
	range_table_join_next(&t->core, i);
}

/* ---- page ranges ------------------------------------------------------- */

static inline struct pfn_range *pfn_range_at(const struct pfn_range_table *t,
					     unsigned int i)
{
	return (struct pfn_range *)range_at(&t->core, i);
}

static inline const struct pfn_range *
pfn_range_table_find(const struct pfn_range_table *t, pfn_t p)
{
	return (const struct pfn_range *)range_table_find(&t->core, pfn_val(p));
}

static inline int pfn_range_table_add(struct pfn_range_table *t, pfn_t start,
				      pfn_t end, const void *payload)
{
	return range_table_add(&t->core, pfn_val(start), pfn_val(end), payload);
}

static inline unsigned int
pfn_range_table_first_ending_above(const struct pfn_range_table *t, pfn_t p)
{
	return range_table_first_ending_above(&t->core, pfn_val(p));
}

static inline int pfn_range_table_remove(struct pfn_range_table *t, pfn_t start,
					 pfn_t end)
{
	return range_table_remove(&t->core, pfn_val(start), pfn_val(end));
}

static inline bool pfn_range_table_grow(struct pfn_range_table *t, void *store,
					unsigned int cap)
{
	return range_table_grow(&t->core, store, cap);
}

#endif
