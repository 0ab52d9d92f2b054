/* SPDX-License-Identifier: MIT */
/*
 * Domains, read-only: what the rooms above the domain room (the report,
 * the self-tests, the guests) read of a struct domain_set -- its counters
 * (domain_set_stats()) and one domain at a time as a struct domain_view,
 * a copy that says what was asked, where it went and what its build did.
 * The report does its joins and sums from these alone; it never sees a
 * domain's work state (units, big extents, the table).
 *
 * Boot CPU, once the builds are over (or before they start); no lock.
 */
#include <arch/mm.h>
#include <keel/compiler.h>
#include <keel/domain.h>
#include <keel/errno.h>
#include <keel/p2m.h>
#include <keel/p2m_format.h>
#include <keel/string.h>

/**
 * domain_set_stats() - Return: @s's counters (keel/domain.h); all 0 for
 * a NULL @s, a boot's set never claimed (common/boot.c).
 */
const struct domain_set_stats *domain_set_stats(const struct domain_set *s)
{
	static const struct domain_set_stats none;

	return s ? &s->stats : &none;
}

static unsigned int domain_cpus(const struct domain *d)
{
	unsigned int n = 0;

	for (unsigned int w = 0; w < ARRAY_SIZE(d->cpu_bits); w++)
		n += (unsigned int)__builtin_popcountll(d->cpu_bits[w]);
	return n;
}

/**
 * domain_view() - domain @i of @s as the rooms above see it (keel/domain.h).
 * Return: false when @s has no domain @i.
 */
bool domain_view(const struct domain_set *s, unsigned int i,
		 struct domain_view *v)
{
	const struct domain *d;

	if (i >= domain_set_stats(s)->count)
		return false;
	d = &s->d[i];
	*v = (struct domain_view){
		.id = d->id,
		.name = d->name,
		.shown = d->shown,
		.kernel = d->kernel[0] ? d->kernel : NULL,
		.fail_reason = d->failed ? d->fail_reason : NULL,
		.origin = d->origin,
		.asked_node = d->spec.node,
		.node = d->node,
		.vcpus = d->vcpus,
		.built = d->built,
		.failed = d->failed,
		.bytes = d->spec.bytes,
		.remote_bytes = d->remote_bytes,
		.heap_extents = d->heap_extents,
		.build_ticks = d->built && d->end_ticks >= d->start_ticks
				       ? d->end_ticks - d->start_ticks
				       : 0,
		.alloc_ticks = d->alloc_ticks,
		.zero_ticks = d->zero_ticks,
		.map_ticks = d->map_ticks,
		.maint_ticks = d->maint_ticks,
		.lock_max_ticks = d->lock_max_ticks,
		.table_pages = d->table_pages,
		.cpus = domain_cpus(d),
		.build_node = d->build_node,
		.p2m = d->built && !d->failed && !d->destroyed ? d->p2m : NULL,
		.user_data = d->origin != DOMAIN_ORIGIN_BOOT,
	};
	memcpy(v->extents, d->extents, sizeof(v->extents));
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
 * @v: a domain_view() view whose p2m is set
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
	struct region open; /* the open range; empty: none */
	void (*fn)(paddr_t start, paddr_t end, void *arg);
	void *arg;
};

static void table_add(struct table_acc *a, uint64_t s, uint64_t e)
{
	if (region_bytes(&a->open) && pa_val(a->open.end) == s) {
		a->open.end = pa(e);
		return;
	}
	if (region_bytes(&a->open))
		a->fn(a->open.start, a->open.end, a->arg);
	a->open = region_of(pa(s), pa(e));
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
 * @v: a domain_view() view whose p2m is set
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
