/* SPDX-License-Identifier: MIT */
/*
 * Domains with bench=on: the same domain built twice on the boot CPU, in
 * the same boot, before the real build: once with cachemaint=eager (per
 * page, inside the heap lock, as Xen arm64's alloc_heap_pages() did), then
 * with the cache maintenance mode in force (deferred: none for clean_poc
 * memory), each destroyed and its memory scrubbed back (clean and
 * clean_poc again, as a boot-scrubbed heap is) before the next. The domain is the largest asked, on its node (node 0 when not
 * pinned). Both are domain_build_local(): one CPU, the same extents, so
 * the ratio is the maintenance's alone (DESIGN §9: <= 2%).
 *
 * The cachemaint counters of the eager run are not the boot's: they are
 * saved and put back. Boot CPU, before domains_build(); no lock.
 */
#include <keel/cachemaint.h>
#include <keel/options.h>
#include <keel/printk.h>
#include <keel/trace.h>

#include "domain_priv.h"

struct domain_bench domains_bench_result;

/*
 * The largest domain asked that the heap builds (not a static one): its
 * size and node. Return: false if none.
 */
static bool bench_pick(uint64_t *bytes, uint32_t *node)
{
	const struct domain_spec *best = NULL;

	for (unsigned int i = 0; i < domains_count; i++)
		if (domains[i].origin == DOMAIN_ORIGIN_BOOT &&
		    (!best || domains[i].spec.bytes > best->bytes))
			best = &domains[i].spec;
	if (!best)
		return false;
	*bytes = best->bytes;
	*node = best->node >= 0 ? (uint32_t)best->node : 0;
	return true;
}

/**
 * domains_bench() - the two builds described above, into
 * domains_bench_result (the report's domains_info.bench).
 */
void domains_bench(void)
{
	struct domain_bench *b = &domains_bench_result;
	enum cachemaint_mode mode = cachemaint_mode();
	struct cachemaint_stats saved;

	b->done = false;
	if (!bench_pick(&b->bytes, &b->node))
		return;
	trace_begin("domains_bench");
	/*
	 * The eager baseline first: it cleans every page in the lock whatever
	 * the memory's state. Its extents come back dirty and are scrubbed
	 * back clean to PoC, so the deferred build then finds memory as a
	 * boot-scrubbed heap gives it (bench=on's allocation benchmark, run
	 * before, leaves chunks clean but no longer known clean to PoC).
	 */
	domain_scrub_back();
	saved = cachemaint_stats;
	cachemaint_init(CACHEMAINT_EAGER);
	b->eager_err = domain_build_local_ticks(b->bytes, (int)b->node, 18,
						&b->eager_ticks);
	cachemaint_init(mode);
	cachemaint_stats = saved;
	domain_scrub_back();
	b->deferred_err = domain_build_local_ticks(b->bytes, (int)b->node, 18,
						   &b->deferred_ticks);
	domain_scrub_back();
	trace_end("domains_bench");
	b->done = true;
	pr_info("domains: bench: %llu MiB on node %u built in %llu us (%s), "
		"%llu us with cachemaint=eager\n",
		(unsigned long long)(b->bytes >> 20), b->node,
		(unsigned long long)(ticks_to_ns(b->deferred_ticks) / 1000),
		cachemaint_mode_name(mode),
		(unsigned long long)(ticks_to_ns(b->eager_ticks) / 1000));
}
