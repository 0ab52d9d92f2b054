/* SPDX-License-Identifier: MIT */
/*
 * Domains with bench=on: the same domain built twice on the boot CPU, in
 * the same boot, before the real build: once with cachemaint=eager (per
 * page, inside the heap lock, as Xen arm64's alloc_heap_pages() did), then
 * with the cache maintenance mode in force (deferred: none for clean_poc
 * memory). The domain is the largest asked, on its node (node 0 when not
 * pinned). Both are domain_build_local(): one CPU, the same extents.
 *
 * Like with like: both builds must find the same memory, or the ratio
 * measures the memory and not the maintenance. A build gives its extents
 * back dirty, so before each timed build every dirty chunk is scrubbed
 * back (zeroed, clean to PoC), whatever bootscrub= said: the bench dirtied
 * them. An untimed warm-up build with the mode in force comes first, so
 * that the eager build does not get the boot's memory (after
 * bootscrub=off: clean by promise, not zeroed, maybe never touched by the
 * host) while the deferred one gets the scrubbed-back memory: both timed
 * builds take the extents the warm-up took, scrubbed back the same way,
 * already touched. Each says what it did (bytes zeroed, bytes cleaned to
 * PoC): the same zeroing in both; the maintenance differs only where the
 * mode skips clean_poc memory, which is what is measured (DESIGN §9:
 * deferred <= 2% of eager).
 *
 * The domain comes from the set through domain_view() (the domain room's
 * public view) and the result goes to the set's stats.bench, which the
 * report shows. The bench's builds run under policies of their own
 * (struct domain_ctx's maint), counted in a sink of their own: the boot's
 * mode and counters are never touched. Boot CPU, before domains_build();
 * no lock.
 */
#include <keel/bench.h>
#include <keel/cachemaint.h>
#include <keel/domain.h>
#include <keel/heap.h>
#include <keel/printk.h>
#include <keel/string.h>
#include <keel/trace.h>

/*
 * The largest domain of @s asked that the heap builds (not a static one):
 * its size and node. Return: false if none.
 */
static bool bench_pick(const struct domain_set *s, uint64_t *bytes,
		       uint32_t *node)
{
	struct domain_view v, best = {.bytes = 0};
	bool found = false;

	for (unsigned int i = 0; domain_view(s, i, &v); i++)
		if (v.origin == DOMAIN_ORIGIN_BOOT &&
		    (!found || v.bytes > best.bytes)) {
			best = v;
			found = true;
		}
	if (!found)
		return false;
	*bytes = best.bytes;
	*node = best.asked_node >= 0 ? (uint32_t)best.asked_node : 0;
	return true;
}

/* One timed build of the bench in cache maintenance @mode, scrubbed back. */
static int bench_build(struct domain_set *s, const struct domain_bench *b,
		       enum cachemaint_mode mode,
		       struct domain_build_cost *cost)
{
	struct cachemaint_stats sink = {0};
	struct cachemaint maint = cachemaint_policy(mode, &sink);
	struct domain_ctx ctx = s->ctx;
	int err;

	ctx.maint = &maint;
	err = domain_build_local_cost(b->bytes, (int)b->node, 18, &ctx, cost);
	domain_scrub_dirty();
	return err;
}

static void bench_print(const struct domain_bench *b)
{
	char sz[FORMAT_BYTES_LEN], dz[FORMAT_BYTES_LEN], dm[FORMAT_BYTES_LEN];
	char ez[FORMAT_BYTES_LEN], em[FORMAT_BYTES_LEN];

	format_bytes(sz, sizeof(sz), b->bytes, FORMAT_DOWN);
	format_bytes(dz, sizeof(dz), b->deferred.zeroed_bytes, FORMAT_DOWN);
	format_bytes(dm, sizeof(dm), b->deferred.maint_bytes, FORMAT_DOWN);
	format_bytes(ez, sizeof(ez), b->eager.zeroed_bytes, FORMAT_DOWN);
	format_bytes(em, sizeof(em), b->eager.maint_bytes, FORMAT_DOWN);
	pr_info("domains: bench: %s on node %u built in %llu us (%s: %s "
		"zeroed, %s cleaned), %llu us with cachemaint=eager (%s "
		"zeroed, %s cleaned)\n",
		sz, b->node,
		(unsigned long long)(ticks_to_ns(b->deferred.ticks) / 1000),
		cachemaint_mode_name(heap_cachemaint()->mode), dz, dm,
		(unsigned long long)(ticks_to_ns(b->eager.ticks) / 1000), ez,
		em);
}

/**
 * domains_bench() - the builds described above, into @s->stats.bench
 * (the report's domains_info.bench).
 */
void domains_bench(struct domain_set *s)
{
	struct domain_bench *b = &s->stats.bench;
	enum cachemaint_mode mode = heap_cachemaint()->mode;

	b->done = false;
	if (!bench_pick(s, &b->bytes, &b->node))
		return;
	trace_begin("domains_bench");
	domain_scrub_dirty();
	bench_build(s, b, mode, NULL); /* the warm-up: untimed */
	b->eager_err = bench_build(s, b, CACHEMAINT_EAGER, &b->eager);
	b->deferred_err = bench_build(s, b, mode, &b->deferred);
	trace_end("domains_bench");
	b->done = true;
	bench_print(b);
}
