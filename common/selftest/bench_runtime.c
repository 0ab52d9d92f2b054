/* SPDX-License-Identifier: MIT */
/*
 * The runtime rows of bench=on (issue 37): the heap as a hypervisor uses
 * it after boot, on the boot CPU, in ticks (arch_ticks(): the TSC,
 * CNTVCT_EL0) per operation, for the QEMU column of `make bench`'s
 * `runtime` part (scripts/bench-runtime.py; the sandbox/host column is
 * tests/bench/heap_runtime). Three workloads of RT_OPS operations each,
 * an operation being one heap_alloc() or one heap_free() of an anonymous
 * block (HEAP_NO_SCRUB, a cache maintenance policy of none: the allocator,
 * not zeroing or maintenance): order 0 in bursts of 16 allocations then
 * 16 frees, order 9 in bursts of 2, and a churn of random orders 0..10
 * with up to 64 blocks held. Each operation is timed alone; one log line
 * per workload: p50, p99 and mean in ticks and ns, and node-lock
 * acquisitions per 1000 operations (heap_stats()). The per-CPU
 * caches are in whatever state the boot left them.
 *
 * Afterwards the heap holds the same free pages; the blocks come back
 * clean (never written) but without PGF_CLEAN_POC, as bench_owned()'s do
 * (the safe side: at worst one more clean later). Runs on one CPU with no
 * other heap user, like the rest of the bench.
 */
#include <arch/cache.h>
#include <arch/cpu.h>
#include <arch/mm.h>
#include <keel/bench.h>
#include <keel/cachemaint.h>
#include <keel/heap.h>
#include <keel/heap_boot.h>
#include <keel/printk.h>
#include <keel/string.h>
#include <keel/ticks.h>

#define RT_OPS		16384
#define RT_HELD		64
#define RT_SAMPLE_ORD	5 /* 2^5 pages: RT_OPS 8-byte samples */
#define RT_CHURN_ORDERS 11

struct rt_run {
	const struct cachemaint *cm;
	uint64_t *s; /* one tick delta per operation */
	uint64_t n, failed;
};

/* ---- adapter: the heap calls measured (rename here at merge) -------- */
static struct page_info *rt_alloc(const struct cachemaint *cm,
				  unsigned int order)
{
	return heap_alloc(order, HEAP_ANY_NODE, 0, HEAP_NO_SCRUB, cm);
}

/*
 * The blocks are never written: each goes back as it came, zero (the
 * run needs a heap with no dirty page) and clean to PoC when it was.
 */
static void rt_free(struct page_info *pg, unsigned int order)
{
	heap_free(pg, order,
		  pg->flags & PGF_CLEAN_POC ? HEAP_FREE_CLEAN_POC
					    : HEAP_FREE_ZEROED);
}

static uint64_t rt_node_locks(void)
{
	struct heap_stats st;
	uint64_t sum = 0;

	for (uint32_t n = 0; n < heap_node_count(); n++)
		if (!heap_stats(n, 0, &st))
			sum += st.locks;
	return sum;
}
/* ---------------------------------------------------------------------- */

static struct page_info *rt_get(struct rt_run *r, unsigned int order)
{
	uint64_t t0 = arch_ticks();
	struct page_info *pg = rt_alloc(r->cm, order);
	uint64_t t1 = arch_ticks();

	if (r->n < RT_OPS)
		r->s[r->n++] = t1 - t0;
	r->failed += !pg;
	return pg;
}

static void rt_put(struct rt_run *r, struct page_info *pg, unsigned int order)
{
	uint64_t t0 = arch_ticks();

	rt_free(pg, order);
	if (r->n < RT_OPS)
		r->s[r->n++] = arch_ticks() - t0;
}

/* Bursts of @burst allocations of @order then their frees. */
static void rt_bursts(struct rt_run *r, unsigned int order, unsigned int burst)
{
	struct page_info *pg[RT_HELD];

	while (r->n + 2 * burst <= RT_OPS) {
		unsigned int got = 0;

		for (unsigned int i = 0; i < burst; i++) {
			pg[got] = rt_get(r, order);
			got += pg[got] != NULL;
		}
		while (got--)
			rt_put(r, pg[got], order);
	}
}

static void rt_churn(struct rt_run *r)
{
	struct page_info *pg[RT_HELD];
	unsigned int ord[RT_HELD], n = 0;
	uint64_t x = 0x9e3779b97f4a7c15ULL;

	while (r->n < RT_OPS) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		if (n < RT_HELD && (n == 0 || (x & 1))) {
			ord[n] = (unsigned int)((x >> 8) % RT_CHURN_ORDERS);
			pg[n] = rt_get(r, ord[n]);
			n += pg[n] != NULL;
		} else {
			unsigned int i = (unsigned int)((x >> 16) % n);

			rt_put(r, pg[i], ord[i]);
			n--;
			pg[i] = pg[n];
			ord[i] = ord[n];
		}
	}
	while (n--)
		rt_free(pg[n], ord[n]);
}

static const char *const rt_names[] = {"order 0", "order 9", "churn 0..10"};

static void rt_one(struct rt_run *r, unsigned int w)
{
	uint64_t l0 = rt_node_locks(), locks, sum = 0, p50, p99;

	r->n = r->failed = 0;
	if (w == 0)
		rt_bursts(r, 0, 16);
	else if (w == 1)
		rt_bursts(r, 9, 2);
	else
		rt_churn(r);
	locks = rt_node_locks() - l0;
	if (!r->n)
		return;
	for (uint64_t i = 0; i < r->n; i++)
		sum += r->s[i];
	sort(r->s, r->n, sizeof(r->s[0]), cmp_u64);
	p50 = r->s[r->n / 2];
	p99 = r->s[r->n * 99 / 100];
	pr_info("bench: runtime: %s: %llu ops, ticks p50 %llu p99 %llu mean "
		"%llu, ns p50 %llu p99 %llu mean %llu, node locks per 1000 "
		"ops %llu, failed %llu\n",
		rt_names[w], (unsigned long long)r->n, (unsigned long long)p50,
		(unsigned long long)p99, (unsigned long long)(sum / r->n),
		(unsigned long long)ticks_to_ns(p50),
		(unsigned long long)ticks_to_ns(p99),
		(unsigned long long)ticks_to_ns(sum / r->n),
		(unsigned long long)(locks * 1000 / r->n),
		(unsigned long long)r->failed);
}

/**
 * bench_runtime_print() - the runtime lines of bench=on (see above);
 * nothing when the heap has no 128 KiB block for the samples.
 */
void bench_runtime_print(void)
{
	static struct cachemaint_stats stats;
	struct cachemaint cm = cachemaint_policy(CACHEMAINT_NONE, &stats);
	struct page_info *buf = heap_alloc(RT_SAMPLE_ORD, HEAP_ANY_NODE, 0,
					   HEAP_NO_SCRUB, NULL);
	struct rt_run r = {.cm = &cm};
	struct heap_stats st;

	if (!buf)
		return;
	/* A dirty block freed as zero would be handed out as zero later. */
	if (heap_stats(HEAP_ALL_NODES, 0, &st) || st.dirty_pages) {
		pr_info("bench: runtime skipped: %llu dirty pages in the heap "
			"(the boot scrub is off)\n",
			(unsigned long long)st.dirty_pages);
		heap_free(buf, RT_SAMPLE_ORD, HEAP_FREE_DIRTY);
		return;
	}
	r.s = phys_to_virt(pfn_to_paddr(page_to_pfn(buf)));
	for (unsigned int w = 0; w < 3; w++)
		rt_one(&r, w);
	/* Zero again and cleaned to PoC: the block goes back as it came. */
	memset(r.s, 0, PAGE_SIZE << RT_SAMPLE_ORD);
	arch_clean_dcache_range(r.s, PAGE_SIZE << RT_SAMPLE_ORD);
	heap_free(buf, RT_SAMPLE_ORD, HEAP_FREE_CLEAN_POC);
}
