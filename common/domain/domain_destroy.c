/* SPDX-License-Identifier: MIT */
/*
 * Domains, step 4: destroy. A domain's p2m is the list of its extents:
 * p2m_walk() hands every heap extent back with heap_free_owned() at its
 * first leaf (contents dirty; heap_owner_of() gives its order),
 * except the 1 GiB leaves of its big extents (guest [0, big_bytes)), which
 * domain_big_free() gives back from the domain's list (mapped or not);
 * then p2m_destroy() frees the table pages. O(extents), nothing per page.
 * A static domain's ranges go back to reserved instead (domain_static.c:
 * the user's memory is never the heap's free memory).
 *
 * domains_destroy=on destroys every domain after the build and its
 * checks, then lets every CPU scrub what came back (scrub_idle_step(), as
 * the idle scrub does), unless bootscrub=off. The heap must then hold as
 * much free memory as before the build, in at most as many free chunks:
 * the set's before / after snapshots are what the report shows, and a
 * difference in pages is a problem the verdict sees.
 *
 * Boot CPU only (the scrub on every CPU through smp_run_on()); no lock.
 */
#include <keel/atomic.h>
#include <keel/errno.h>
#include <keel/heap.h>
#include <keel/heap_boot.h>
#include <keel/heap_check.h>
#include <keel/p2m.h>
#include <keel/printk.h>
#include <keel/scrub.h>
#include <keel/smp.h>
#include <keel/string.h>

#include "domain_priv.h"

/**
 * domain_snapshot() - free pages and free chunks of the heap now, the
 * CPUs' caches given back first: the chunks before the build and after
 * the destroy compare only when no block sits in a cache.
 */
void domain_snapshot(struct domain_heap_snap *s)
{
	struct heap_stats st;

	heap_drain_caches();
	s->free_pages = heap_stats_all(0).free_pages;
	s->free_chunks = 0;
	for (unsigned int n = 0; n < heap_node_count(); n++)
		if (!heap_stats(n, 0, &st))
			s->free_chunks += st.free_chunks;
	s->taken = true;
}

struct free_ctx {
	struct domain *d;
	unsigned int refused;
	uint64_t freed_start, freed_end; /* pfns of the extent freed last */
};

static void free_refused(struct free_ctx *c, uint64_t gpa, paddr_t pa,
			 unsigned int order)
{
	if (!c->refused++)
		pr_warn("domains: %s: extent at guest %#llx (%#llx, order %u) "
			"refused by the heap\n",
			c->d->shown, (unsigned long long)gpa,
			(unsigned long long)pa_val(pa), order);
}

/*
 * A leaf is the first of its heap extent (its frame is the extent's
 * head: the extent goes back whole) or one of the leaves after it in the
 * same extent (already given back with the first: leaves come in gpa
 * order, and an extent's leaves are consecutive). Only the head's entry
 * is read (heap_owned_order()): other CPUs may be allocating beside it.
 */
static int free_leaf(uint64_t gpa, paddr_t pa, unsigned int order, void *arg)
{
	struct free_ctx *c = arg;
	uint64_t p = pfn_val(paddr_to_pfn(pa));
	struct page_info *pg;
	int horder;

	if (gpa < c->d->big_bytes) /* part of a big extent: domain_big_free() */
		return 0;
	if (p >= c->freed_start && p + (1ull << order) <= c->freed_end)
		return 0;
	/* Not in the extent freed last: the first leaf of the next one. */
	pg = pfn_to_page_or_null(paddr_to_pfn(pa));
	horder = pg ? heap_owned_order(pg, c->d->id) : -EINVAL;
	if (horder < (int)order || heap_free_owned(pg, horder, c->d->id)) {
		free_refused(c, gpa, pa, order);
		return 0;
	}
	c->freed_start = p;
	c->freed_end = p + (1ull << horder);
	return 0;
}

/**
 * domain_free() - every extent of @d back to the heap, its table freed.
 * Safe on a partly built domain (what was mapped is what is freed).
 */
void domain_free(struct domain *d)
{
	struct free_ctx c = {.d = d, .refused = 0};

	if (!d->p2m)
		return;
	if (d->origin == DOMAIN_ORIGIN_HANDOVER) {
		/* Back to reserved; its table pages were never the heap's. */
		domain_restore_free(d);
		d->p2m = NULL;
		d->destroyed = true;
		return;
	}
	if (d->origin == DOMAIN_ORIGIN_STATIC) {
		domain_static_free(d); /* back to reserved, untouched */
	} else {
		p2m_walk(d->p2m, free_leaf, &c);
		domain_big_free(d);
	}
	p2m_destroy(d->p2m);
	d->p2m = NULL;
	d->destroyed = true;
	if (c.refused) /* domain_build_private() frees on several CPUs */
		domain_problem(d, c.refused);
}

static void scrub_worker(void *arg)
{
	(void)arg;
	while (scrub_idle_step())
		;
}

/**
 * domain_scrub_dirty() - every CPU scrubs every dirty free chunk, whatever
 * bootscrub= said (the bench's own builds, domain_bench.c).
 */
void domain_scrub_dirty(void)
{
	cpumask_t online;

	/* A dirty block in a CPU's cache is not on the lists it scrubs. */
	heap_drain_caches();
	smp_online_mask(&online);
	smp_run_on(&online, scrub_worker, NULL);
}

/**
 * domain_scrub_back() - every CPU scrubs what destroyed domains gave back
 * (nothing with bootscrub=off in @ctx: the boot promised no scrub).
 */
void domain_scrub_back(const struct domain_ctx *ctx)
{
	if (!ctx->scrub_off)
		domain_scrub_dirty();
}

/**
 * domains_destroy_all() - destroy every built domain of @s, then scrub
 * what came back (unless bootscrub=off) and take the "after" snapshot.
 */
void domains_destroy_all(struct domain_set *s)
{
	const struct domain_heap_snap *before = &s->stats.before;
	struct domain_heap_snap *after = &s->stats.after;
	char a[FORMAT_BYTES_LEN], b[FORMAT_BYTES_LEN];
	unsigned int freed = 0;

	for (unsigned int i = 0; i < s->stats.count; i++) {
		if (s->d[i].built && s->d[i].p2m) {
			domain_free(&s->d[i]);
			freed++;
		}
	}
	domain_scrub_back(&s->ctx);
	domain_snapshot(after);
	if (before->taken && after->free_pages != before->free_pages) {
		pr_warn("domains: after destroy %llu free pages, %llu before "
			"the build\n",
			(unsigned long long)after->free_pages,
			(unsigned long long)before->free_pages);
		s->stats.problems++;
	}
	format_bytes(a, sizeof(a), after->free_pages << PAGE_SHIFT,
		     FORMAT_DOWN);
	format_bytes(b, sizeof(b), before->free_pages << PAGE_SHIFT,
		     FORMAT_DOWN);
	pr_info("domains: %u destroyed; free %s in %llu chunks (before the "
		"build: %s in %llu chunks)\n",
		freed, a, (unsigned long long)after->free_chunks, b,
		(unsigned long long)before->free_chunks);
}
