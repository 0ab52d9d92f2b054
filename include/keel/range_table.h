/* SPDX-License-Identifier: MIT */
/*
 * A sorted table of non-overlapping ranges, the one shape keel keeps ranges
 * in (bootmem's RAM and reserved tables, each heap node's ranges), after
 * Linux's struct memblock_type.
 *
 * The table does not own a region type: its users have their own (struct
 * bootmem_region, struct heap_range), each beginning with the range's two
 * 64-bit bounds [start, end), which the table reads as a struct range.
 * Everything after them (a node, a name) is the user's payload; two regions
 * that touch become one only when same() says their payloads agree.
 *
 * No allocation, no lock: the user owns the storage and serialises access.
 */
#ifndef KEEL_RANGE_TABLE_H
#define KEEL_RANGE_TABLE_H

#include <keel/bug.h>
#include <keel/types.h>

/* The bounds at the head of every region; may_alias: read through users'
 * own types (paddr_t, pfn_t pairs). */
struct range {
	uint64_t start, end; /* [start, end) */
} __attribute__((__may_alias__));

struct range_table {
	void *regions;	    /* @cap slots of @size bytes, @count in use */
	unsigned int count; /* sorted by start, none overlapping */
	unsigned int cap;
	unsigned int size; /* bytes per region, struct range first */
	/* May a region with payload @b extend @a? NULL: always. */
	bool (*same)(const void *a, const void *b);
};

/* A user's region type must begin with two 64-bit bounds. */
#define RANGE_TABLE_CHECK_TYPE(type, start_field, end_field)       \
	BUILD_BUG_ON(__builtin_offsetof(type, start_field) != 0 || \
		     __builtin_offsetof(type, end_field) != 8 ||   \
		     sizeof(((type *)0)->start_field) != 8 ||      \
		     sizeof(((type *)0)->end_field) != 8)

/* A table over @store, an array of @cap regions (count 0). */
#define RANGE_TABLE_INIT(store, cap_, same_)                   \
	{                                                      \
		.regions = (store), .count = 0, .cap = (cap_), \
		.size = sizeof((store)[0]), .same = (same_),   \
	}

static inline struct range *range_at(const struct range_table *t,
				     unsigned int i)
{
	return (struct range *)((char *)t->regions + (size_t)i * t->size);
}

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

#endif
