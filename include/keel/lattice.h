/* SPDX-License-Identifier: MIT */
/*
 * Owner: lib.
 * Lattices of pages: the pages p with (p & @mask) == @value, the shape
 * of a Memtest86+ BadRAM pattern (GRUB's badram=ADDR,MASK in page
 * numbers: a page matches when any of its addresses does). With k the
 * lowest set bit of @mask, the pages come in runs of 2^k, each aligned to
 * its size, never two touching (the next run differs in bit k, which the
 * mask fixes). Every question is O(1) (a few bit operations), so a
 * pattern that names a page in every 128 KiB of 6 TiB is 16 bytes, not
 * 50 million reservations. No state, no lock.
 */
#ifndef KEEL_LATTICE_H
#define KEEL_LATTICE_H

#include <keel/types.h>

/* Page numbers of 64-bit addresses: [0, 2^52). */
#define LATTICE_PAGES (1ULL << (64 - PAGE_SHIFT))

struct lattice {
	uint64_t mask, value; /* page numbers; @value inside @mask */
};

/* The lattice of badram= ADDR, MASK (byte addresses). */
static inline struct lattice lattice_of_badram(uint64_t addr, uint64_t mask)
{
	return (struct lattice){mask >> PAGE_SHIFT,
				(addr & mask) >> PAGE_SHIFT};
}

/*
 * The smallest y >= @x with (y & @m) == @v (@v inside @m), in *@out.
 * Return: false when there is none below 2^64.
 */
bool lattice_next_match(uint64_t x, uint64_t m, uint64_t v, uint64_t *out);
/* The largest y <= @x with (y & @m) == @v. Return: false when none. */
bool lattice_prev_match(uint64_t x, uint64_t m, uint64_t v, uint64_t *out);
/*
 * A bound on the pages between two runs of @l: the pattern repeats every
 * 2^(b+1) pages (b the top bit of @mask), each such block holding a whole
 * run of 2^k pages (k the lowest bit of @mask) at the same offsets, so no
 * gap is longer than 2^(b+1) - 2^k. 0: every page matches;
 * LATTICE_PAGES: no bound below 2^52 pages.
 */
uint64_t lattice_gap_most(const struct lattice *l);
/*
 * The run of @l holding page @p, or the first above it: [*@s, *@e) in
 * pages. Return: false when there is none.
 */
bool lattice_run_after(const struct lattice *l, uint64_t p, uint64_t *s,
		       uint64_t *e);
/*
 * The run of @l with the highest start at or below page @p: [*@s, *@e).
 * Return: false when there is none.
 */
bool lattice_run_below(const struct lattice *l, uint64_t p, uint64_t *s,
		       uint64_t *e);

#endif
