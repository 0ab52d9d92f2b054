/* SPDX-License-Identifier: MIT */
/*
 * The built domains as a live update hands them over (include/keel/
 * domain.h, struct domain_view): id, name, node, origin and the p2m, and
 * two walks of the p2m: its leaves merged into extents (guest and machine
 * addresses running on together), its table pages merged into ranges.
 * Read-only: the domains are built and no CPU changes them (the caller
 * has frozen the others). O(leaves + table pages), no allocation.
 */
#include <arch/mm.h>
#include <keel/compiler.h>
#include <keel/domain.h>
#include <keel/errno.h>
#include <keel/p2m.h>
#include <keel/p2m_format.h>

#include "domain_priv.h"

/**
 * domain_view_get() - domain @i as a live update sees it.
 * @i: index, below domain_count()
 * @v: out
 *
 * Return: true when domain @i is built (not failed, not destroyed) and
 * has its p2m; false otherwise (@v untouched).
 */
bool domain_view_get(unsigned int i, struct domain_view *v)
{
	const struct domain *d = &domains[i];

	if (i >= domains_count || !d->built || d->failed || d->destroyed ||
	    !d->p2m)
		return false;
	v->id = d->id;
	v->origin = d->origin;
	v->node = d->node;
	v->name = d->name;
	v->bytes = d->bytes_built;
	v->p2m = d->p2m;
	return true;
}

/* Extents: consecutive leaves that run on in gpa and pa are one. */
struct extent_acc {
	uint64_t gpa, pa, bytes; /* the open extent; bytes 0: none */
	void (*fn)(uint64_t gpa, paddr_t pa, uint64_t pages, void *arg);
	void *arg;
};

static void extent_flush(struct extent_acc *a)
{
	if (a->bytes)
		a->fn(a->gpa, pa(a->pa), a->bytes >> PAGE_SHIFT, a->arg);
	a->bytes = 0;
}

static int extent_leaf(uint64_t gpa, paddr_t p, unsigned int order, void *arg)
{
	struct extent_acc *a = arg;
	uint64_t bytes = PAGE_SIZE << order;

	if (a->bytes && a->gpa + a->bytes == gpa &&
	    a->pa + a->bytes == pa_val(p)) {
		a->bytes += bytes;
		return 0;
	}
	extent_flush(a);
	a->gpa = gpa;
	a->pa = pa_val(p);
	a->bytes = bytes;
	return 0;
}

/**
 * domain_view_extents() - @fn for every extent of @v's p2m, in gpa order:
 * the leaves merged while guest and machine addresses both run on.
 * @v: a domain_view_get() view
 * @fn: called with the extent's gpa, machine address and pages
 * @arg: passed to @fn
 *
 * Return: 0, or -EIO when the walk met a descriptor the format reserves.
 */
int domain_view_extents(const struct domain_view *v,
			void (*fn)(uint64_t gpa, paddr_t pa, uint64_t pages,
				   void *arg),
			void *arg)
{
	struct extent_acc a = {.fn = fn, .arg = arg};
	int err = p2m_walk(v->p2m, extent_leaf, &a);

	extent_flush(&a);
	return err;
}

/* Table pages: consecutive pages are one range. */
struct table_acc {
	const struct p2m *p;
	uint64_t start, end; /* the open range; start == end: none */
	void (*fn)(paddr_t start, paddr_t end, void *arg);
	void *arg;
};

static void table_add(struct table_acc *a, uint64_t s, uint64_t e)
{
	if (a->start != a->end && a->end == s) {
		a->end = e;
		return;
	}
	if (a->start != a->end)
		a->fn(pa(a->start), pa(a->end), a->arg);
	a->start = s;
	a->end = e;
}

/* The table pages below the table @t at @level, @count entries of it. */
static int table_walk(struct table_acc *a, paddr_t t, unsigned int level,
		      uint64_t count)
{
	const uint64_t *tab = phys_to_virt(t);
	paddr_t out;

	for (uint64_t i = 0; i < count; i++) {
		enum p2m_pte_kind k = a->p->fmt->decode(tab[i], level, &out);
		int err;

		if (k == P2M_PTE_BAD)
			return -EIO;
		if (k != P2M_PTE_TABLE)
			continue;
		if (level >= P2M_LEAF_LEVEL)
			return -EIO;
		table_add(a, pa_val(out), pa_val(out) + PAGE_SIZE);
		err = table_walk(a, out, level + 1, P2M_TABLE_ENTRIES);
		if (err)
			return err;
	}
	return 0;
}

/**
 * domain_view_tables() - @fn for every range of @v's p2m table pages (the
 * root first, then in walk order), consecutive pages merged.
 * @v: a domain_view_get() view
 * @fn: called with [start, end) of each range
 * @arg: passed to @fn
 *
 * Return: 0, or -EIO when the walk met a descriptor the format reserves.
 */
int domain_view_tables(const struct domain_view *v,
		       void (*fn)(paddr_t start, paddr_t end, void *arg),
		       void *arg)
{
	const struct p2m *p = v->p2m;
	struct table_acc a = {.p = p, .fn = fn, .arg = arg};
	uint64_t root = pa_val(p->root);
	uint64_t entries = (uint64_t)P2M_TABLE_ENTRIES << p->root_order;
	int err;

	if (!p->fmt || root == pa_val(INVALID_PADDR))
		return 0;
	table_add(&a, root, root + (PAGE_SIZE << p->root_order));
	err = table_walk(&a, p->root, p->start_level, entries);
	table_add(&a, 0, 0);
	return err;
}
