// SPDX-License-Identifier: MIT
/*
 * Lattices of pages (include/keel/lattice.h): the next and the previous
 * match of a fixed-bits pattern, and the runs of pages they make. Pure
 * arithmetic on 64-bit words: no table, no state, no lock.
 */
#include <keel/lattice.h>

/**
 * lattice_next_match() - the smallest y >= @x with (y & @m) == @v.
 *
 * Return: whether there is one below 2^64 (in *@out).
 */
bool lattice_next_match(uint64_t x, uint64_t m, uint64_t v, uint64_t *out)
{
	uint64_t y = (x & ~m) | v, diff = x ^ y, below, up;
	unsigned int d;

	if (!diff) {
		*out = y;
		return true;
	}
	d = 63 - (unsigned int)__builtin_clzll(diff);
	below = d == 63 ? ~0ULL : (2ULL << d) - 1;
	if (y > x) {
		/* A fixed 1 above x's 0 at d: every free bit below is 0. */
		*out = (x & ~m & ~below) | v;
		return true;
	}
	/* A fixed 0 below x's 1 at d: carry into the lowest free 0 above. */
	up = ~m & ~below & ~x;
	if (!up)
		return false;
	up &= -up;
	*out = (x & ~m & ~((up << 1) - 1)) | up | v;
	return true;
}

/**
 * lattice_prev_match() - the largest y <= @x with (y & @m) == @v: the
 * next match of the complements (y <= x is ~y >= ~x, and ~y's fixed bits
 * are ~@v's).
 *
 * Return: whether there is one (in *@out).
 */
bool lattice_prev_match(uint64_t x, uint64_t m, uint64_t v, uint64_t *out)
{
	uint64_t z;

	if (!lattice_next_match(~x, m, ~v & m, &z))
		return false;
	*out = ~z;
	return true;
}

/* The run size's log (the mask's lowest set bit), 64 for "all pages". */
static unsigned int run_shift(const struct lattice *l)
{
	return l->mask ? (unsigned int)__builtin_ctzll(l->mask) : 64;
}

/*
 * Run @u (of 2^@k pages) as pages: page numbers are below 2^52
 * (LATTICE_PAGES), and so are @u's, so neither end overflows.
 */
static void run_of(uint64_t u, unsigned int k, uint64_t *s, uint64_t *e)
{
	*s = u << k;
	*e = (u + 1) << k;
}

/** lattice_gap_most() - see lattice.h. Return: the bound, in pages. */
uint64_t lattice_gap_most(const struct lattice *l)
{
	unsigned int b;

	if (!l->mask)
		return 0;
	b = 63 - (unsigned int)__builtin_clzll(l->mask);
	if (b + 1 >= 64 - PAGE_SHIFT)
		return LATTICE_PAGES;
	/* Each block holds a whole run of 2^k (k its lowest fixed bit). */
	return (1ULL << (b + 1)) - (1ULL << run_shift(l));
}

/** lattice_run_after() - see lattice.h. Return: whether there is one. */
bool lattice_run_after(const struct lattice *l, uint64_t p, uint64_t *s,
		       uint64_t *e)
{
	unsigned int k = run_shift(l);
	uint64_t u;

	if (k >= 64) {
		*s = 0;
		*e = LATTICE_PAGES;
		return p < *e;
	}
	if (!lattice_next_match(p >> k, l->mask >> k, l->value >> k, &u) ||
	    u >= LATTICE_PAGES >> k)
		return false;
	run_of(u, k, s, e);
	return *e > p;
}

/** lattice_run_below() - see lattice.h. Return: whether there is one. */
bool lattice_run_below(const struct lattice *l, uint64_t p, uint64_t *s,
		       uint64_t *e)
{
	unsigned int k = run_shift(l);
	uint64_t u;

	if (k >= 64) {
		*s = 0;
		*e = LATTICE_PAGES;
		return true;
	}
	if (!lattice_prev_match(p >> k, l->mask >> k, l->value >> k, &u))
		return false;
	run_of(u, k, s, e);
	return true;
}
