/* SPDX-License-Identifier: MIT */
/*
 * Owner: lib.
 * DOC: range tables
 *
 * The one table type keel keeps ranges in, after Linux's struct
 * memblock_type: a sorted array of struct region (include/keel/types.h),
 * none overlapping. bootinfo's RAM list, bootmem's RAM and reserved tables
 * and each heap node's ranges are all one struct range_table. Its
 * operations (common/lib/range_table.c) sort, merge, fill gaps, split and
 * join; two regions that touch become one only when same() says their
 * payloads (node, name, flags) agree.
 *
 * A table starts on storage its user gives (a static array) and, when it
 * is full, doubles (as memblock_double_array() does) into storage that
 * grow() returns, up to @max regions; only past that limit (or when grow()
 * has nothing) does an add return -ENOSPC, and its user falls back (bootmem
 * and bootinfo merge the nearest reserved neighbours, with a warning).
 * bootinfo grows from an early pool (boot/bootinfo.c) before bootmem
 * exists, bootmem from bootmem itself.
 *
 * No lock: the user serialises access.
 */
#ifndef KEEL_RANGE_TABLE_H
#define KEEL_RANGE_TABLE_H

#include <keel/bug.h>
#include <keel/types.h>

/*
 * The limit every growing table of keel is given: 2^20 regions (48 MiB of
 * table), far above any machine's RAM banks, reserved ranges or preserved
 * extents (a 64-domain live update of 2 MiB extents is thousands).
 */
#define RANGE_TABLE_MAX_REGIONS (1u << 20)

struct range_table {
	struct region *regions; /* @cap slots, @count in use */
	unsigned int count;	/* sorted by start, none overlapping */
	unsigned int cap;
	unsigned int max; /* grow no further (<= cap: never grows) */
	/*
	 * A list still being built (range_table_append()): a region was
	 * appended below the end of the one before it, so the list may be
	 * out of order or overlap. Until then it is sorted and disjoint.
	 */
	bool unsorted;
	/* May @a extend over @b's payload? NULL: always. */
	bool (*same)(const struct region *a, const struct region *b);
	/*
	 * Storage for @cap regions (the table's own are copied over by the
	 * caller), or NULL when there is none; NULL hook: a fixed table.
	 */
	struct region *(*grow)(struct range_table *t, unsigned int cap);
};

/* A fixed table over @store, an array of @cap regions (count 0). */
#define RANGE_TABLE_INIT(store, cap_, same_)                                  \
	{                                                                     \
		.regions = (store), .count = 0, .cap = (cap_), .max = (cap_), \
		.same = (same_), .grow = NULL,                                \
	}
/* The same, growing through @grow_ up to @max_ regions. */
#define RANGE_TABLE_INIT_GROWING(store, cap_, same_, grow_, max_)             \
	{                                                                     \
		.regions = (store), .count = 0, .cap = (cap_), .max = (max_), \
		.same = (same_), .grow = (grow_),                             \
	}

unsigned int regions_first_ending_above(const struct region *r,
					unsigned int count, paddr_t a);
unsigned int range_table_first_ending_above(const struct range_table *t,
					    paddr_t a);
/* The first of sorted, disjoint @r ending at page @n's end or above it. */
static inline unsigned int
regions_first_ending_above_pfn(const struct region *r, unsigned int count,
			       uint64_t n)
{
	return regions_first_ending_above(
		r, count, pa((n << PAGE_SHIFT) + PAGE_SIZE - 1));
}
const struct region *range_table_find(const struct range_table *t, paddr_t a);
int range_table_add(struct range_table *t, paddr_t start, paddr_t end,
		    const struct region *payload);
int range_table_append(struct range_table *t, const struct region *r);
int range_table_fill(struct range_table *t, paddr_t start, paddr_t end,
		     const struct region *payload);
int range_table_remove(struct range_table *t, paddr_t start, paddr_t end);
bool range_table_first_gap(const struct range_table *t, paddr_t start,
			   paddr_t end, struct region *gap);
void range_table_sort(struct range_table *t);
unsigned int range_table_nearest_pair(const struct range_table *t,
				      uint64_t *gap);
void range_table_join_next(struct range_table *t, unsigned int i);
uint64_t range_table_coalesce(struct range_table *t, unsigned int want,
			      void (*join)(struct region *into,
					   const struct region *next));
/*
 * How many joins a full table of @count regions makes at once: an
 * eighth, so n adds into a full table sort and scan it O(n / count)
 * times, not n.
 */
static inline unsigned int range_table_coalesce_batch(unsigned int count)
{
	return count / 8 > 1 ? count / 8 : 1;
}
void range_table_delete(struct range_table *t, unsigned int i);
bool range_table_double(struct range_table *t);
bool range_table_move(struct range_table *t, struct region *store,
		      unsigned int cap);

/* The region holding frame @p (a heap node's table), or NULL. */
static inline const struct region *
range_table_find_pfn(const struct range_table *t, pfn_t p)
{
	return range_table_find(t, pfn_to_paddr(p));
}

#endif
