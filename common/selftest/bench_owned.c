/* SPDX-License-Identifier: MIT */
/*
 * The owned-extent row of bench=on (issue 22 §3, "O(extents), not
 * O(pages)"): on one node, the time of ONE heap_alloc_owned() of a
 * 2^MAX_ORDER extent (1 GiB), of up to 1024 of them in a row (1 TiB worth
 * on a machine that has it), and, for scale, of one anonymous heap_alloc()
 * of the same order (every page_info of the block written). The extents
 * are taken with HEAP_NO_SCRUB | HEAP_NO_FLUSH: the memory is clean when
 * the bench runs (bench_run() skips nodes with dirty pages) and a domain
 * builder does its maintenance by range; the row measures the heap's own
 * cost. The domain build itself is benchmarked by the domains code.
 *
 * Afterwards the heap holds the same free pages in the same chunks: the
 * freed extents come back marked dirty, are detached and put back clean
 * (never written, so still zero), without PGF_CLEAN_POC (the safe side:
 * at worst a later allocation cleans them once more).
 *
 * Runs on one CPU with no other heap user, like the rest of the bench.
 */
#include <arch/cpu.h>
#include <keel/bench.h>
#include <keel/compiler.h>
#include <keel/errno.h>
#include <keel/heap.h>
#include <keel/heap_boot.h>
#include <keel/heap_scrub.h>
#include <keel/printk.h>
#include <keel/trace.h>

#define BENCH_OWNER	HEAP_MAX_OWNER
#define BENCH_OWNED_MAX 1024 /* 1 TiB of 1 GiB extents */

static struct page_info *owned[BENCH_OWNED_MAX];

/* Free @n extents, then give their (untouched) memory back as clean. */
static void owned_undo(uint32_t node, unsigned int n, unsigned int order)
{
	struct page_info *pg;
	unsigned int k;

	while (n--)
		heap_free_owned(owned[n], order, BENCH_OWNER);
	while ((pg = heap_take_dirty(node, &k)))
		heap_put_clean(pg, k, false);
}

/**
 * bench_owned() - measure the owned-extent row on @node (see above).
 * @count: extents of the long run (at most 1024, fewer when the node has
 * less free memory).
 *
 * Return: 0 with *@out filled, -ENOMEM when not one extent fits, -EINVAL
 * for a bad node.
 */
int bench_owned(uint32_t node, unsigned int count, struct bench_owned *out)
{
	const uint32_t flags = HEAP_EXACT_NODE | HEAP_NO_SCRUB | HEAP_NO_FLUSH;
	const unsigned int order = MAX_ORDER;
	struct page_info *pg;
	uint64_t t0;
	unsigned int n;

	if (node >= heap_node_count())
		return -EINVAL;
	*out = (struct bench_owned){.order = order, .node = node};
	count = MIN(count, (unsigned int)BENCH_OWNED_MAX);

	t0 = arch_ticks();
	pg = heap_alloc_owned(order, (int)node, flags, BENCH_OWNER, NULL, NULL);
	out->one_ns = ticks_to_ns(arch_ticks() - t0);
	if (!pg)
		return -ENOMEM;
	owned[0] = pg;
	owned_undo(node, 1, order);

	t0 = arch_ticks();
	for (n = 0; n < count; n++) {
		owned[n] = heap_alloc_owned(order, (int)node, flags,
					    BENCH_OWNER, NULL, NULL);
		if (!owned[n])
			break;
	}
	out->many_ns = ticks_to_ns(arch_ticks() - t0);
	out->many = n;
	owned_undo(node, n, order);

	t0 = arch_ticks();
	pg = heap_alloc(order, (int)node, 0, flags, NULL);
	out->anon_ns = ticks_to_ns(arch_ticks() - t0);
	if (pg)
		heap_free(pg, order, HEAP_FREE_ZEROED);
	return 0;
}

/**
 * bench_owned_print() - the owned-extent line of bench=on: node 0, up to
 * 1 TiB of 1 GiB extents (nothing when node 0 has dirty pages).
 */
void bench_owned_print(void)
{
	struct heap_stats st;
	struct bench_owned b;

	if (heap_stats(0, 0, &st) || st.dirty_pages || bench_owned(0, 1024, &b))
		return;
	pr_info("bench: owned: node 0: one order-%u extent %llu ns, %u in a "
		"row %llu ns (%llu ns each); anonymous heap_alloc %llu ns\n",
		b.order, (unsigned long long)b.one_ns, b.many,
		(unsigned long long)b.many_ns,
		(unsigned long long)(b.many ? b.many_ns / b.many : 0),
		(unsigned long long)b.anon_ns);
}
