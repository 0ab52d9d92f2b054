// SPDX-License-Identifier: MIT
/*
 * bootmem's lattices (include/keel/bootmem.h): badram= patterns too dense
 * for the reserved table (struct bootinfo's @lattice), copied at
 * bootmem_init_from_bootinfo(). Their pages are free RAM to the iterator
 * (the heap's handoff takes them with the RAM around them, and the heap
 * takes them out of service before it hands anything out:
 * bad_lattice_take()), and never free to an allocation: the walks step
 * over a lattice's runs as over reservations (rsv_under() and
 * gap_end_above() in bootmem_alloc.c), and the few readers of the free
 * ranges that place or size an allocation cut them out here. Each
 * question is O(lattices); a walk across a lattice steps once per run it
 * crosses.
 *
 * Lock: none (the boot CPU, before the APs work).
 */
#include <keel/bootmem.h>
#include <keel/compiler.h>
#include <keel/lattice.h>

#include "bootmem_priv.h"

static struct lattice lattices[BOOTINFO_LATTICE_MAX];
static unsigned int lattice_count;

/* bootmem_init(): none; bootmem_init_from_bootinfo(): @bi's. */
void bm_lattice_set(const struct bootinfo *bi)
{
	lattice_count =
		bi ? MIN(bi->lattice_count, (unsigned int)BOOTINFO_LATTICE_MAX)
		   : 0;
	for (unsigned int i = 0; i < lattice_count; i++)
		lattices[i] = bi->lattice[i];
}

/* A page number as a byte address; past the last page: the top. */
static uint64_t to_bytes(uint64_t p)
{
	return p >= LATTICE_PAGES ? ~0ULL : p << PAGE_SHIFT;
}

/*
 * Bytes no free gap reaches, whatever else is reserved: the tightest of
 * the lattices' bounds (lattice_gap_most()); ~0: no lattice, no bound. A
 * request wider fails without a walk (the frame table's sections on a
 * failing column: every 124 KiB gap of the node walked, 1.8 ms of a 4 GiB
 * machine's update downtime).
 */
uint64_t bootmem_lattice_gap_bytes(void)
{
	return bm_lattice_gap_bytes();
}

uint64_t bm_lattice_gap_bytes(void)
{
	uint64_t most = ~0ULL;

	for (unsigned int i = 0; i < lattice_count; i++) {
		uint64_t g = lattice_gap_most(&lattices[i]);

		if (g < LATTICE_PAGES)
			most = MIN(most, g << PAGE_SHIFT);
	}
	return most;
}

/**
 * bootmem_lattice_after() - the run of a lattice's pages holding @x, or
 * the first above it (the lowest start among the lattices').
 *
 * Return: whether there is one ([*@s, *@e)).
 */
bool bootmem_lattice_after(uint64_t x, uint64_t *s, uint64_t *e)
{
	bool any = false;

	for (unsigned int i = 0; i < lattice_count; i++) {
		uint64_t rs, re;

		if (!lattice_run_after(&lattices[i], x >> PAGE_SHIFT, &rs, &re))
			continue;
		if (!any || to_bytes(rs) < *s) {
			*s = to_bytes(rs);
			*e = to_bytes(re);
		}
		any = true;
	}
	return any;
}

/*
 * The runs of the lattices' pages starting below @top: whether any, the
 * highest start among them in *@s and the highest end in *@e (each
 * lattice's last run; two lattices' runs may overlap, so the two need
 * not be one run's).
 */
bool bm_lattice_below(uint64_t top, uint64_t *s, uint64_t *e)
{
	bool any = false;

	for (unsigned int i = 0; top && i < lattice_count; i++) {
		uint64_t rs, re;

		if (!lattice_run_below(&lattices[i], (top - 1) >> PAGE_SHIFT,
				       &rs, &re))
			continue;
		*s = any ? MAX(*s, to_bytes(rs)) : to_bytes(rs);
		*e = any ? MAX(*e, to_bytes(re)) : to_bytes(re);
		any = true;
	}
	return any;
}

/**
 * bm_lattice_top() - the highest place for @bytes in [@s, @e) clear of
 * every lattice: from @e down, below each run in the way.
 *
 * Return: whether there is one (in *@out).
 */
bool bm_lattice_top(uint64_t s, uint64_t e, uint64_t bytes, uint64_t *out)
{
	while (e > s && e - s >= bytes) {
		uint64_t rs, re;

		if (!bm_lattice_below(e, &rs, &re) || re <= e - bytes) {
			*out = e - bytes;
			return true;
		}
		e = rs;
	}
	return false;
}

/* The largest piece of [@s, @e) clear of every lattice, in bytes. */
uint64_t bm_lattice_largest(uint64_t s, uint64_t e)
{
	uint64_t best = 0, rs, re;

	while (s < e) {
		if (!bootmem_lattice_after(s, &rs, &re) || rs >= e)
			return MAX(best, e - s);
		if (rs > s)
			best = MAX(best, rs - s);
		s = re;
	}
	return best;
}

/**
 * bm_lattice_only() - may [@s, @e) be reserved with the reservations of
 * one name on either side of it? When at least one lattice run and no
 * carried range lies in it, and fewer free bytes than @room (what the
 * allocations beside it take: none of their size fits there). Those few
 * bytes are reserved with them; the lattice's pages, counted bad by the
 * report wherever they are reserved, are never written.
 *
 * Return: whether it may.
 */
bool bm_lattice_only(uint64_t s, uint64_t e, uint64_t room)
{
	struct bm_carried_cur cur = {0};
	uint64_t free = 0, rs, re;
	bool run = false;

	if (bm_carried_after(&cur, s, &rs, &re) && rs < e)
		return false;
	while (s < e && free < room) {
		if (!bootmem_lattice_after(s, &rs, &re) || rs >= e)
			rs = re = e;
		else
			run = true;
		free += rs > s ? rs - s : 0; /* a run of another may hold s */
		s = re;
	}
	return run && s >= e && free < room;
}
