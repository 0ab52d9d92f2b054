/* SPDX-License-Identifier: MIT */
/*
 * Domains: the extents taken before the workers start, the fewest there
 * can be (issue 22: a clean 1 TiB domain in about the time of a 1 GiB
 * one; issue 30: a 256 MiB domain is one heap extent, not 128).
 *
 * An owned extent is one head write whatever its order, and the heap's
 * free chunks go up to 2^MAX_FREE_ORDER pages (8 TiB). So before the
 * workers start, domain_big_alloc() takes the domain's guest-physical
 * prefix in the largest power-of-two extents that fit what is left of it
 * (1 TiB = one extent when the node has such a chunk; 2.5 GiB = 2 GiB +
 * 512 MiB; else the largest the node has, down to 2 MiB), on the
 * domain's node only (HEAP_EXACT_NODE: going off-node is left to the
 * unit path), with HEAP_NO_SCRUB and HEAP_NO_FLUSH: nothing is zeroed or
 * cleaned inside heap_alloc_owned() by one CPU. At most DOMAIN_BIG_MAX
 * per domain; the rest of the domain [big_bytes, bytes), less than 2 MiB
 * when the node had the blocks, is built by the unit path
 * (domain_build.c).
 *
 * Each extent is mapped with the largest leaves it holds: 1 GiB, or
 * 2 MiB below that (the stage-2 / EPT formats of a 4 KiB granule have no
 * block above 1 GiB; extents_1g/_2m count leaves). Its work is cut into
 * units claimed from the domain's cursor like the others (units
 * [0, big_units)):
 *  - an extent the build must zero (dirty, or bootscrub=off) or clean to
 *    PoC: one unit per work unit of the domain (1 GiB, or less for a
 *    small domain on many CPUs: DOMAIN_UNIT_SHIFT), zeroed in 2 MiB
 *    pieces with no lock held, by whichever CPU of the node claims it;
 *  - an extent with no such work: one unit, its leaves written in a row
 *    (a 1 TiB extent: 1024 entries of two table pages).
 *
 * A failed domain: domain_free() walks the table for the extents of the
 * unit path only (gpa >= big_bytes) and gives these back from d->big[],
 * mapped or not.
 *
 * Locks: allocation on the boot CPU (or the local builder) before the
 * workers; units under the domain's map_lock per p2m_map(), as the build.
 */
#include <arch/cpu.h>
#include <arch/mm.h>
#include <keel/atomic.h>
#include <keel/cachemaint.h>
#include <keel/compiler.h>
#include <keel/errno.h>
#include <keel/heap.h>
#include <keel/p2m.h>
#include <keel/printk.h>

#include "domain_priv.h"

#define LEAF_ORDER 18 /* 1 GiB: the largest block of the p2m formats */
#define LEAF_BYTES (PAGE_SIZE << LEAF_ORDER)
#define BIG_MIN	   9 /* 2 MiB: the smallest extent of the prefix */
#define BIG_FLAGS  (HEAP_EXACT_NODE | HEAP_NO_SCRUB | HEAP_NO_FLUSH)

/* The largest extent there is of order @k down to BIG_MIN. */
static struct page_info *big_take(struct domain *d, unsigned int *k,
				  struct heap_alloc_info *info)
{
	for (; *k >= BIG_MIN; (*k)--) {
		struct page_info *pg =
			heap_alloc_owned(*k, (int)d->node, BIG_FLAGS, d->id,
					 info, domain_maint(d));

		if (pg)
			return pg;
	}
	return NULL;
}

/* Record extent @pg of order @k at the end of the big prefix. */
static void big_record(struct domain *d, struct page_info *pg, unsigned int k,
		       const struct heap_alloc_info *info)
{
	struct domain_big *b = &d->big[d->nbig++];
	uint64_t bytes = PAGE_SIZE << k;

	b->gpa = d->big_bytes;
	b->pa = pfn_to_paddr(page_to_pfn(pg));
	b->order = k;
	b->zero = info->was_dirty || domain_zero_untrusted(d);
	b->maint = (!info->clean_poc || domain_zero_untrusted(d)) &&
		   domain_maint_needed(d);
	b->first_unit = d->big_units;
	b->units = 1;
	if ((b->zero || b->maint) && bytes > (1ull << d->unit_shift))
		b->units = bytes >> d->unit_shift;
	d->big_units += b->units;
	d->big_bytes += bytes;
	d->heap_extents++;
	domain_atomic_max(&d->lock_max_ticks, info->lock_ticks);
	if (!b->gpa) /* where the domain is, for a test's machine check */
		pr_debug("domains: domain %u: IPA 0 at host %#llx, an extent "
			 "of 2^%u pages\n",
			 d->id, (unsigned long long)pa_val(b->pa), k);
}

/**
 * domain_big_alloc() - the big extents of @d (see above), orders at most
 * @max_order. Not with cachemaint=eager (its baseline works per page in
 * the lock: a big extent would hold it for minutes).
 */
void domain_big_alloc(struct domain *d, unsigned int max_order)
{
	uint64_t t0 = arch_ticks();

	d->nbig = 0;
	d->big_bytes = d->big_units = 0;
	if (domain_maint(d)->mode == CACHEMAINT_EAGER)
		return;
	if (max_order > MAX_FREE_ORDER)
		max_order = MAX_FREE_ORDER;
	while (d->nbig < DOMAIN_BIG_MAX) {
		uint64_t left = (d->spec.bytes - d->big_bytes) >> PAGE_SHIFT;
		struct heap_alloc_info info;
		struct page_info *pg;
		unsigned int k;

		if (left < (1ull << BIG_MIN))
			break;
		k = MIN((unsigned int)fls64(left) - 1, max_order);
		pg = big_take(d, &k, &info);
		if (!pg)
			break;
		big_record(d, pg, k, &info);
	}
	d->prefix_ticks = arch_ticks() - t0;
	d->alloc_ticks += d->prefix_ticks;
}

/*
 * Map [off, off + bytes) of extent @b with its largest leaves; their kind
 * in *@kind (0: 1 GiB, 1: 2 MiB).
 */
static int big_map(struct domain *d, const struct domain_big *b, uint64_t off,
		   uint64_t bytes, unsigned int *kind)
{
	unsigned int leaf = b->order >= LEAF_ORDER && !(bytes % LEAF_BYTES)
				    ? LEAF_ORDER
				    : BIG_MIN;
	int err;

	*kind = leaf == LEAF_ORDER ? 0 : 1;
	spin_lock(&d->map_lock);
	err = p2m_map_run(d->p2m, b->gpa + off, pa_add(b->pa, off), leaf,
			  bytes >> (PAGE_SHIFT + leaf));
	spin_unlock(&d->map_lock);
	return err;
}

/**
 * domain_big_unit() - run work unit @u (< d->big_units) of @d: zero,
 * map, clean what it covers; *@gpa: where it starts (for the fail reason).
 * Return: 0 or p2m_map()'s error.
 */
int domain_big_unit(struct domain *d, uint64_t u, uint64_t *gpa)
{
	const struct domain_big *b = d->big;
	struct maint_acc acc = {.bytes = 0};
	uint64_t off, bytes, t0;
	unsigned int kind;
	int err;

	while (u >= b->first_unit + b->units)
		b++;
	bytes = (PAGE_SIZE << b->order) / b->units;
	off = (u - b->first_unit) * bytes;
	*gpa = b->gpa + off;
	if (b->zero)
		domain_extent_zero(d, pa_add(b->pa, off), bytes);
	t0 = arch_ticks();
	err = big_map(d, b, off, bytes, &kind);
	atomic_fetch_add_relaxed(&d->map_ticks, arch_ticks() - t0);
	if (err)
		return err;
	if (b->maint) {
		domain_maint_add(d, &acc, pa_add(b->pa, off), bytes);
		domain_maint_flush(d, &acc);
	}
	atomic_fetch_add_relaxed(
		&d->extents[kind],
		bytes >> (PAGE_SHIFT + domain_extent_order[kind]));
	atomic_fetch_add_relaxed(&d->bytes_built, bytes);
	return 0;
}

/** domain_big_free() - give back every big extent of @d (contents dirty). */
void domain_big_free(struct domain *d)
{
	for (unsigned int i = 0; i < d->nbig; i++) {
		const struct domain_big *b = &d->big[i];
		struct page_info *pg = pfn_to_page_or_null(paddr_to_pfn(b->pa));

		if (!pg || heap_free_owned(pg, b->order, d->id)) {
			pr_warn("domains: %s: big extent %#llx (order %u) "
				"refused by the heap\n",
				d->shown, (unsigned long long)pa_val(b->pa),
				b->order);
			domain_problem(d, 1);
		}
	}
	d->nbig = 0;
	d->big_bytes = d->big_units = 0;
}
