/* SPDX-License-Identifier: MIT */
/*
 * Guests, the walk's skip list (issue 38 §4, <keel/guest_abi.h>): a page
 * the heap took out of service inside a domain's extent stays mapped in
 * its table (the leaf is the hypervisor's decision, and keel keeps it:
 * the domain's table is the one its checks, destroy and a live update's
 * restore walk, and the restore accepts only leaves that map exactly the
 * domain's bytes), so the guest is told instead: the IPAs of those pages,
 * ascending, in one page of its image, and its walk never touches them
 * (a read may raise another machine check). The guest is keel's own
 * program, which cooperates; a guest that did not would read the page,
 * as it could on any hypervisor that leaves the leaf in place.
 *
 * Cost: the node's held list (heap_for_each_bad(), its lock), then one
 * walk of the domain's extents when it holds a bad page: O(held pages +
 * extents x bad pages of the domain), at most GUEST_SKIP_MAX of those.
 *
 * Boot CPU, before the vCPU runs; no lock of its own.
 */
#include <arch/guest.h>
#include <arch/mm.h>
#include <keel/compiler.h>
#include <keel/domain.h>
#include <keel/errno.h>
#include <keel/guest.h>
#include <keel/guest_abi.h>
#include <keel/heap_boot.h>
#include <keel/heap_check.h>
#include <keel/string.h>

#include "guest_priv.h"

struct skip_gather {
	int id;		/* the domain's owner id */
	uint64_t *list; /* host pfns, then IPAs */
	unsigned int n;
	bool over; /* more than GUEST_SKIP_MAX */
	uint64_t done[(GUEST_SKIP_MAX + 63) / 64]; /* list[i] is an IPA */
};

static void gather_one(pfn_t p, unsigned int reason, int holder, void *arg)
{
	struct skip_gather *g = arg;

	(void)reason;
	if (holder != g->id)
		return;
	if (g->n < GUEST_SKIP_MAX)
		g->list[g->n++] = pfn_val(p);
	else
		g->over = true;
}

/* Each host pfn of the list inside this extent becomes its IPA. */
static void translate(uint64_t gpa, paddr_t pa, uint64_t pages, void *arg)
{
	struct skip_gather *g = arg;
	uint64_t first = pfn_val(paddr_to_pfn(pa));

	for (unsigned int i = 0; i < g->n; i++) {
		if (g->done[i / 64] & (1ULL << (i % 64)) ||
		    g->list[i] < first || g->list[i] - first >= pages)
			continue;
		g->list[i] = gpa + ((g->list[i] - first) << PAGE_SHIFT);
		g->done[i / 64] |= 1ULL << (i % 64);
	}
}

/**
 * guest_skip_list() - the skip list of domain @dv: the IPAs of the pages
 * of its extents the heap holds offline, ascending, then GUEST_SKIP_END.
 * @dv: a built domain
 * @list: the image's skip page (keel's view, a page of words)
 *
 * Return: how many IPAs, -E2BIG (more than GUEST_SKIP_MAX), or -EIO (its
 * table has a descriptor the format reserves, or a held page no leaf
 * maps: the domain's table and the heap disagree).
 */
int guest_skip_list(const struct domain_view *dv, uint64_t *list)
{
	struct skip_gather g = {.id = dv->id, .list = list};

	for (unsigned int n = 0; n < heap_node_count(); n++)
		heap_for_each_bad(n, gather_one, &g);
	if (g.over) {
		list[0] = (uint64_t)GUEST_SKIP_END;
		return -E2BIG;
	}
	if (g.n && domain_view_extents(dv, translate, &g))
		g.n = 0, g.over = true;
	for (unsigned int i = 0; i < g.n && !g.over; i++)
		g.over = !(g.done[i / 64] & (1ULL << (i % 64)));
	if (g.over) {
		list[0] = (uint64_t)GUEST_SKIP_END;
		return -EIO;
	}
	sort(list, g.n, sizeof(*list), cmp_u64);
	list[g.n] = (uint64_t)GUEST_SKIP_END;
	return (int)g.n;
}
