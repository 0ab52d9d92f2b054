/* SPDX-License-Identifier: MIT */
/*
 * The boot allocator's files, one room (mm): bootmem.c keeps the tables
 * (RAM, reserved), their loading, growth and iteration; bootmem_alloc.c
 * places allocations in them (top-down walks with a cursor, series of
 * pieces); bootmem_fit.c places the reserved table's own store before
 * the table exists. What they share, and nothing else: the public
 * interface is include/keel/bootmem.h.
 *
 * Lock: none (the boot CPU, before the APs work).
 */
#ifndef KEEL_MM_BOOTMEM_PRIV_H
#define KEEL_MM_BOOTMEM_PRIV_H

#include <keel/bootinfo.h>
#include <keel/range_table.h>
#include <keel/types.h>

extern struct range_table *bm_ram; /* RAM: its own table or bootinfo's */
extern struct range_table bm_rsv;  /* reserved, each byte named once */
extern bool bm_closed;		   /* handed to the heap: no allocation */
extern uint64_t bm_alloc_bytes;	   /* allocated, for the report */
extern unsigned int bm_alloc_count;
extern uint64_t bm_dropped_bytes; /* RAM mem= hid */

bool bm_same_name(const struct region *a, const struct region *b);
/* Reserve [s, e) (page aligned) under @why where nothing is reserved. */
void bm_reserve_range(uint64_t s, uint64_t e, const char *why);
/* A table grew: reserve its new store, now that the operation is over. */
void bm_flush_grown(void);
/* RAM changed or the reserved table started again: walks start at the top. */
void bm_cursors_reset(void);
/*
 * The highest page-aligned place for @bytes in free RAM clear of
 * [@avoid_s, @avoid_e); in RAM clear of every reservation of @bi, its
 * carried ranges too (its list in at most BM_RUNS_MAX sorted runs, else
 * false). Return: whether there is one (in *@out).
 */
bool bm_fit_clear_of(uint64_t bytes, uint64_t avoid_s, uint64_t avoid_e,
		     uint64_t *out);
struct bootinfo;
bool bm_fit_outside_list(const struct bootinfo *bi, uint64_t bytes,
			 uint64_t *out);
/*
 * The lattices (bootmem_lattice.c): @bi's copied (NULL: none); of their
 * runs starting below @top the highest start and the highest end; the
 * highest place for @bytes in [@s, @e) clear of them; the largest piece
 * of [@s, @e) clear of them; whether [@s, @e) may be reserved with its
 * neighbours (bm_lattice_only()).
 */
void bm_lattice_set(const struct bootinfo *bi);
bool bm_lattice_below(uint64_t top, uint64_t *s, uint64_t *e);
bool bm_lattice_top(uint64_t s, uint64_t e, uint64_t bytes, uint64_t *out);
uint64_t bm_lattice_largest(uint64_t s, uint64_t e);
bool bm_lattice_only(uint64_t s, uint64_t e, uint64_t room);
/* Bytes no free gap reaches for the lattices (~0: none). */
uint64_t bm_lattice_gap_bytes(void);
/* bootmem_init(): the allocation side's state forgotten. */
void bm_alloc_reset(void);
/*
 * A list of many ranges in few sorted runs sorted in O(n)
 * (bootmem_sort.c). Return: whether it was (else: the full sort).
 */
bool bm_sort_few_runs(struct range_table *t);
/*
 * A list in at most BM_RUNS_MAX sorted runs read in address order with no
 * sort (a k-way merge: a live update's new image lists the firmware's
 * bad pages, then the handover's, two long runs): O(k) a region, no copy
 * of the list (bootmem_sort.c).
 */
#define BM_RUNS_MAX 8
struct bm_runs {
	const struct region *r;
	unsigned int k, next; /* runs; the one being read */
	unsigned int at[BM_RUNS_MAX], end[BM_RUNS_MAX];
	uint64_t lim; /* @next is read on while below it (or at it: @lim_le) */
	bool lim_le, picked;
	/*
	 * In each run no range ends below the one before it (a list of
	 * disjoint ranges has it): the last range of a run that starts
	 * below an address reaches furthest of all before it, so one
	 * binary search a run finds what lies across a place.
	 */
	bool ends_sorted;
};
bool bm_runs_init(struct bm_runs *it, const struct range_table *t);
const struct region *bm_runs_next(struct bm_runs *it);

/*
 * The reservations bootmem loads: bootinfo's list and the handover's
 * carried bad ranges read in place (struct bootinfo's @carried) as if
 * listed at @carried_at, each given as a region (a carried one: its
 * record's, named once per source, valid until the next call). In the
 * list's order, or (@sorted) in address order (bootinfo's list in at
 * most BM_RUNS_MAX sorted runs, the records merged in: O(runs + records)
 * a region, no copy). Equal starts: the one given first.
 */
struct bm_list {
	const struct bootinfo *bi;
	bool sorted;
	struct bm_runs runs;
	const struct region *head; /* sorted: bootinfo's next, or NULL */
	unsigned int i;		   /* list order: bootinfo's next index */
	unsigned int carried_at;   /* the carried ranges' place in the list */
	unsigned int at[HANDOVER_BAD_RECS_MAX]; /* each record's next */
	struct handover_range ch; /* the next carried range, of record */
	int crec;		  /* @crec (-1: none left) */
	struct region named[HANDOVER_BAD_RECS_MAX];
};
bool bm_list_init(struct bm_list *l, const struct bootinfo *bi, bool sorted);
void bm_list_carried(struct bm_list *l, const struct bootinfo *bi);
const struct region *bm_list_next(struct bm_list *l);

/*
 * A live update's carried bad ranges not in bm_rsv yet, read in place
 * beside it (bootmem_carried.c): @bm_carried, the bootinfo whose records
 * they are, or NULL (none, or joined). Where a range and a region of
 * bm_rsv hold the same bytes, the region names them.
 */
extern const struct bootinfo *bm_carried;
void bm_carried_set(const struct bootinfo *bi);
/*
 * The range covering @pos or first above it: whether any (*@s, *@e).
 * @c: where the caller's walk is in each record, a hint checked before
 * use (a walk in address order steps, others search): one per walker,
 * so that two walks side by side (the handoff's free ranges and its
 * gaps) do not move each other's.
 */
struct bm_carried_cur {
	unsigned int at[HANDOVER_BAD_RECS_MAX];
};
bool bm_carried_after(struct bm_carried_cur *c, uint64_t pos, uint64_t *s,
		      uint64_t *e);
/* The range of the highest start below @top: whether any (*@s, *@e). */
bool bm_carried_below(uint64_t top, uint64_t *s, uint64_t *e);
/* The ranges starting in [@s, @e). */
uint64_t bm_carried_starts_in(uint64_t s, uint64_t e);
/*
 * The carried ranges merged into @t (sorted, disjoint; where a region of
 * it holds a carried page, it names it) in place. Return: false (@t
 * untouched) when its store has too few free slots.
 */
struct range_table;
bool bm_carried_join_into(struct range_table *t);

/*
 * bootmem_gap.c: the load's slow path, before [@s, @e) named @name fills
 * the table: when @name is a bad one, the parts of other reservations
 * there (but "preserved" and bad ones) cut out, so that it names them.
 */
void bm_bad_over_others(uint64_t s, uint64_t e, const char *name);

#endif
