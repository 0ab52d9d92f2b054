// SPDX-License-Identifier: MIT
/*
 * A badram= lattice's pages out of service (include/keel/bad_lattice.h).
 *
 * A failing column or bank names a page in every few KiB: millions of
 * them on a server, and a reservation each would need a reserved table
 * larger than any piece of good RAM the bad pages leave (bootmem's table
 * is one piece, 48 bytes a range). So bootmem keeps such a pattern as a
 * pattern (common/mm/bootmem_lattice.c): no boot allocation lands on its
 * pages, the handoff hands them to the heap with the free RAM around
 * them, and they are taken out here before anything allocates: each free
 * chunk holding some is cut once around all of them by aligned halving
 * (heap_offline_chunk(): a half with none goes back whole, a half with
 * some is halved again, each bad page withheld on its node's bad list, as
 * heap_offline() withholds a machine check's), so the levels above the
 * lattice's period are cut once for all its pages: 32,768 pages of a
 * page-in-128-KiB lattice on 4 GiB were 168 M instructions one
 * heap_offline() each, 74 M so (callgrind, the sandbox). A page in no free
 * chunk is taken alone (heap_offline()). The heap's frame table is the one per-page
 * store that already covers all RAM: the audit, the report (by source:
 * option), the scrub, the checks and a live update see them as every
 * offlined page. A live update's writer leaves them out of the handover:
 * the next image reads its command line's badram= itself, as it does for
 * the patterns kept as reservations.
 *
 * Lock: the page's node (heap_offline_chunk(), heap_offline()); the boot
 * CPU, the heap quiescent (heap_owner_of()).
 */
#include <keel/bad_lattice.h>
#include <keel/bootmem.h>
#include <keel/compiler.h>
#include <keel/heap.h>
#include <keel/heap_boot.h>
#include <keel/heap_check.h>
#include <keel/printk.h>

#include "heap_priv.h"

/*
 * Page @p out; @again: unless the heap has it out already (a step before
 * this one took it, or a restored domain's page marked since: a look
 * first, O(MAX_FREE_ORDER)). Return: taken.
 */
static bool take_page(uint64_t p, bool again)
{
	int who;

	if (again) {
		who = heap_owner_of(pfn(p), NULL, NULL);
		if (who == HEAP_OWNER_BAD || who == HEAP_OWNER_NONE ||
		    heap_page_held_bad(pfn(p)))
			return false;
	}
	return !heap_offline(
		pfn(p),
		(enum heap_bad_reason)(HEAP_BAD_BROKEN | HEAP_BAD_FROM_OPTION));
}

/* heap_next_bad_fn: the first lattice page at or above pfn @from. */
static bool next_lattice_page(uint64_t from, uint64_t *bad, void *arg)
{
	uint64_t rs, re;

	(void)arg;
	if (!bootmem_lattice_after(from << PAGE_SHIFT, &rs, &re))
		return false;
	*bad = MAX(rs >> PAGE_SHIFT, from);
	return true;
}

/*
 * The lattices' pages in the heap range [@s, @e) (bytes): each free chunk
 * holding one cut once around all of its (heap_offline_chunk()), a page
 * in no free chunk taken alone.
 */
static uint64_t take_range(uint64_t s, uint64_t e, bool again)
{
	uint64_t taken = 0, rs, re;

	while (s < e && bootmem_lattice_after(s, &rs, &re) && rs < e) {
		uint64_t a = MAX(rs, s) >> PAGE_SHIFT, n;
		pfn_t end = pfn(a + 1);

		n = heap_offline_chunk(pfn(a), next_lattice_page, NULL,
				       HEAP_BAD_BROKEN | HEAP_BAD_FROM_OPTION,
				       &end);
		taken += n ? n : take_page(a, again);
		s = n ? pfn_val(end) << PAGE_SHIFT : (a + 1) << PAGE_SHIFT;
	}
	return taken;
}

/** bad_lattice_take() - see bad_lattice.h. Return: pages taken out. */
uint64_t bad_lattice_take(bool again)
{
	uint64_t taken = 0;

	for (unsigned int n = 0; n < heap_node_count(); n++) {
		struct heap_range_pos pos = {0};
		const struct region *r;

		while ((r = heap_node_range_next(n, &pos)))
			taken += take_range(pa_val(r->start), pa_val(r->end),
					    again);
	}
	if (taken)
		pr_info("heap: %llu pages of badram= patterns taken out of "
			"service\n",
			(unsigned long long)taken);
	return taken;
}
