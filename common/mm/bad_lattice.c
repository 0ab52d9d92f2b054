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
 * them, and they are taken out here, as a machine check's page is
 * (heap_offline(): the free chunk split by aligned halving around each,
 * O(order) page entries, the page withheld on its node's bad list)
 * before anything allocates. The heap's frame table is the one per-page
 * store that already covers all RAM: the audit, the report (by source:
 * option), the scrub, the checks and a live update see them as every
 * offlined page. A live update's writer leaves them out of the handover:
 * the next image reads its command line's badram= itself, as it does for
 * the patterns kept as reservations.
 *
 * Lock: heap_offline()'s (the page's node); the boot CPU, the heap
 * quiescent (heap_owner_of()).
 */
#include <keel/bad_lattice.h>
#include <keel/bootmem.h>
#include <keel/compiler.h>
#include <keel/heap.h>
#include <keel/heap_boot.h>
#include <keel/heap_check.h>
#include <keel/printk.h>

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

/* The lattices' pages in the heap range [@s, @e) (bytes). */
static uint64_t take_range(uint64_t s, uint64_t e, bool again)
{
	uint64_t taken = 0, rs, re;

	while (s < e && bootmem_lattice_after(s, &rs, &re) && rs < e) {
		for (uint64_t a = MAX(rs, s); a < MIN(re, e); a += PAGE_SIZE)
			taken += take_page(a >> PAGE_SHIFT, again);
		s = re;
	}
	return taken;
}

/** bad_lattice_take() - see bad_lattice.h. Return: pages taken out. */
uint64_t bad_lattice_take(bool again)
{
	uint64_t taken = 0;

	for (unsigned int n = 0; n < heap_node_count(); n++) {
		unsigned int count = 0;
		const struct region *r = heap_node_ranges(n, &count);

		for (unsigned int i = 0; r && i < count; i++)
			taken += take_range(pa_val(r[i].start),
					    pa_val(r[i].end), again);
	}
	if (taken)
		pr_info("heap: %llu pages of badram= patterns taken out of "
			"service\n",
			(unsigned long long)taken);
	return taken;
}
