/* SPDX-License-Identifier: MIT */
/*
 * Domains, step 3: the checks after the build (issue 22 §6). For every
 * built domain, p2m_walk() its table and prove:
 *
 *  - the leaves cover guest-physical [0, bytes) in order, without a gap
 *    or an overlap, each a 4 KiB, 2 MiB or 1 GiB block, as many of each as
 *    the build counted;
 *  - each leaf lies in one extent of this domain: heap_owner_of() of its
 *    first frame says this owner, and the leaf sits in the block at the
 *    offset its guest address has in the naturally aligned guest block of
 *    the same size (an extent is mapped by its leaves in order); or, in
 *    the prefix of big extents (common/domain/domain_big.c), a 1 GiB
 *    piece of one of the domain's big extents, at the offset its guest
 *    address says;
 *    A static domain's leaf lies inside one of its adopted extents, at the
 *    host address its ranges give the guest address (domain_static.c);
 *  - the heap's count of pages owned by the domain equals its size.
 *
 * Together these mean no frame is in two domains: a frame has one owner
 * in the heap, every leaf of a domain maps frames it owns, and a domain
 * whose leaves covered a frame twice would map more pages than it owns.
 *
 * With audit=full, sampled leaves (at most CHECK_SAMPLES per domain) are
 * read for zero at their start, middle and end: a guest never sees
 * another's data, bootscrub=off included; not a static domain's, which
 * holds the user's data as the loader left it, nor a restored one's
 * (DOMAIN_ORIGIN_HANDOVER: its guest's data, adopted in blocks that may
 * hold several leaves; domain_restore.c). Where the MMU can walk the
 * table (arm64 at EL2: p2m_hw_translate()), the middle of the same sampled
 * leaves is translated by the hardware and must match the walk.
 *
 * Boot CPU, after domains_build(); the heap is quiescent; no lock.
 */
#include <arch/mm.h>
#include <keel/errno.h>
#include <keel/heap.h>
#include <keel/heap_check.h>
#include <keel/p2m.h>
#include <keel/printk.h>

#include "domain_priv.h"

#define CHECK_SAMPLES	      64
#define CHECK_WARN_PER_DOMAIN 4
#define ZERO_PROBE_BYTES      64

struct check_ctx {
	struct domain *d;
	struct domain_set_stats *st; /* the sampling counters */
	uint64_t next_gpa, leaves, every;
	uint64_t extents[DOMAIN_EXTENT_KINDS];
	unsigned int problems;
	bool zero, hw;
};

static void check_problem(struct check_ctx *c, const char *what, uint64_t gpa,
			  paddr_t pa)
{
	if (c->problems++ < CHECK_WARN_PER_DOMAIN)
		pr_warn("domains: %s: %s (guest %#llx -> %#llx)\n", c->d->shown,
			what, (unsigned long long)gpa,
			(unsigned long long)pa_val(pa));
}

static int kind_of(unsigned int order)
{
	for (unsigned int k = 0; k < DOMAIN_EXTENT_KINDS; k++)
		if (domain_extent_order[k] == order)
			return (int)k;
	return -1;
}

static bool bytes_zero(paddr_t pa)
{
	const uint64_t *p = phys_to_virt(pa);

	for (unsigned int i = 0; i < ZERO_PROBE_BYTES / 8; i++)
		if (p[i])
			return false;
	return true;
}

/* Zero at the start, middle and end of a sampled leaf; the MMU's view. */
static void check_sample(struct check_ctx *c, uint64_t gpa, paddr_t pa,
			 uint64_t size)
{
	uint64_t mid = (size / 2) & ~(uint64_t)(PAGE_SIZE - 1);
	paddr_t hw;
	int err;

	if (c->zero && c->d->origin == DOMAIN_ORIGIN_BOOT) {
		c->st->zero_sampled++;
		if (!bytes_zero(pa) || !bytes_zero(pa_add(pa, mid)) ||
		    !bytes_zero(pa_add(pa, size - ZERO_PROBE_BYTES)))
			check_problem(c, "guest memory not zero", gpa, pa);
	}
	if (!c->hw)
		return;
	err = p2m_hw_translate(c->d->p2m, gpa + mid, &hw);
	if (err && err != -ENOENT) { /* -EOPNOTSUPP: not this arch / EL */
		c->hw = false;
		return;
	}
	c->st->hw_checked++;
	if (err || pa_val(hw) != pa_val(pa) + mid)
		check_problem(c, "the MMU's translation differs from the walk",
			      gpa + mid, pa_add(pa, mid));
}

/*
 * The leaf lies inside its extent at the offset its guest address has:
 * in the prefix (common/domain/domain_big.c), from the extent's recorded
 * guest address; in the unit path, in the naturally aligned guest block
 * of the extent's size.
 */
static bool leaf_in_extent(const struct check_ctx *c, uint64_t gpa, paddr_t pa,
			   unsigned int order, pfn_t head, unsigned int horder)
{
	uint64_t p = pfn_val(paddr_to_pfn(pa)), h = pfn_val(head);
	uint64_t off = (p - h) << PAGE_SHIFT;

	if (horder < order || p < h ||
	    p + (1ull << order) > h + (1ull << horder))
		return false;
	/* At its offset in a naturally aligned block of the unit path. */
	if (gpa >= c->d->big_bytes)
		return off == (gpa & ((PAGE_SIZE << horder) - 1));
	for (unsigned int i = 0; i < c->d->nbig; i++)
		if (pfn_val(paddr_to_pfn(c->d->big[i].pa)) == h)
			return gpa - off == c->d->big[i].gpa;
	return false;
}

/* The leaf in an extent of its domain, as the domain's origin says. */
static bool leaf_ok(const struct check_ctx *c, uint64_t gpa, paddr_t pa,
		    unsigned int order, pfn_t head, unsigned int horder)
{
	uint64_t p = pfn_val(paddr_to_pfn(pa)), h = pfn_val(head);

	switch (c->d->origin) {
	case DOMAIN_ORIGIN_STATIC:
		return domain_static_leaf_ok(c->d, gpa, pa, order, head,
					     horder);
	case DOMAIN_ORIGIN_HANDOVER: /* adopted: any block holding it */
		return p >= h && p + (1ull << order) <= h + (1ull << horder);
	default:
		return leaf_in_extent(c, gpa, pa, order, head, horder);
	}
}

static int check_leaf(uint64_t gpa, paddr_t pa, unsigned int order, void *arg)
{
	struct check_ctx *c = arg;
	int kind = kind_of(order), owner;
	pfn_t head;
	unsigned int horder;

	if (kind < 0) {
		check_problem(c, "block of an order no extent has", gpa, pa);
		return 0;
	}
	if (gpa != c->next_gpa)
		check_problem(c, "leaves not contiguous from 0", gpa, pa);
	owner = heap_owner_of(paddr_to_pfn(pa), &head, &horder);
	if (owner != c->d->id || !leaf_ok(c, gpa, pa, order, head, horder))
		check_problem(c, "frame not an extent of this domain", gpa, pa);
	c->next_gpa = gpa + (PAGE_SIZE << order);
	c->extents[kind]++;
	if (c->leaves++ % c->every == 0)
		check_sample(c, gpa, pa, PAGE_SIZE << order);
	return 0;
}

static unsigned int check_domain(struct domain_set *s, struct domain *d,
				 bool zero)
{
	struct check_ctx c = {
		.d = d, .st = &s->stats, .zero = zero, .hw = true};
	uint64_t total = 0;

	for (unsigned int k = 0; k < DOMAIN_EXTENT_KINDS; k++)
		total += d->extents[k];
	c.every = total / CHECK_SAMPLES + 1;
	p2m_walk(d->p2m, check_leaf, &c);
	if (c.next_gpa != d->spec.bytes)
		check_problem(&c, "the table does not cover the domain",
			      c.next_gpa, pa(0));
	for (unsigned int k = 0; k < DOMAIN_EXTENT_KINDS; k++)
		if (c.extents[k] != d->extents[k])
			check_problem(&c, "extent count differs from the build",
				      k, pa(c.extents[k]));
	if (heap_stats_all(d->id).owned_pages != d->spec.bytes >> PAGE_SHIFT)
		check_problem(&c, "the heap's owned pages differ from its size",
			      heap_stats_all(d->id).owned_pages, pa(0));
	return c.problems;
}

/**
 * domains_check() - the checks above on every built domain of @s.
 * Return: problems found (also added to @s->stats.problems).
 */
unsigned int domains_check(struct domain_set *s, bool zero_sample)
{
	unsigned int problems = 0;

	for (unsigned int i = 0; i < s->stats.count; i++)
		if (s->d[i].built && s->d[i].p2m)
			problems += check_domain(s, &s->d[i], zero_sample);
	s->stats.problems += problems;
	if (s->stats.count)
		pr_info("domains: checked, %u problems, %llu leaves read for "
			"zero, %llu translated by the MMU\n",
			problems, (unsigned long long)s->stats.zero_sampled,
			(unsigned long long)s->stats.hw_checked);
	return problems;
}
