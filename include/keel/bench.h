/* SPDX-License-Identifier: MIT */
/*
 * Owner: selftest.
 * The allocation self-benchmark (bench=on; DESIGN §6, §7 "bench", §9).
 *
 * For every node with memory, for orders 0, 9 and 18 (those <= MAX_ORDER
 * the node can satisfy), for clean pages and dirty pages, for cachemaint
 * eager and deferred, it allocates `count` blocks with
 * HEAP_EXACT_NODE on that node, frees them again and fills one
 * bench_rows[] entry (below):
 *
 *  count        blocks actually measured (64 / 16 / 2 by default, fewer
 *               when the node runs out)
 *  ns_avg/max   latency of one heap_alloc() call (arch_ticks around it).
 *               Deferred rows allocate with HEAP_NO_FLUSH, so this is the
 *               allocation alone; eager rows include the per-page
 *               maintenance done inside the call (under the lock).
 *  lock_ns_max  longest hold of the node's heap lock during the measured
 *               allocations (heap_reset_lock_stats() just before them).
 *  maint_ns     TOTAL cache maintenance time of the row's `count`
 *               allocations (not per allocation):
 *               deferred: time spent in cachemaint_flush_batch(), called
 *                 (outside the ns_avg window) after each allocation that
 *                 recorded a range -- 0 for clean_poc blocks, which need
 *                 nothing;
 *               eager: for each allocation, its latency minus that of the
 *                 same allocation made just before with no maintenance
 *                 at all (cachemaint none), clamped at 0, summed.
 *  mode         cachemaint_mode_name() of the mode measured: "eager", and
 *               "deferred" -- or "clflush" on a coherent platform (x86),
 *               where deferred means no maintenance at all, so the
 *               by-range flush is measured instead.
 *  dirty        false: the blocks were PGF_CLEAN_POC (boot scrub) and
 *               deferred mode did no maintenance for them. true: the
 *               blocks had been allocated, written (one cache line per
 *               page, then zeroed again) and freed with need_scrub=false
 *               first, so they are clean (zero) but not clean to PoC.
 *
 * Afterwards the heap is what it was: same free chunks, same counters, and
 * PGF_CLEAN_POC put back on the chunks that had it (their memory is zero
 * and was cleaned to PoC again). The heap's cachemaint policy and counters
 * are never used: each row allocates under policies of its own
 * (heap_alloc()'s @cm). Only the nodes' lock_max_ticks are left at the
 * bench's values.
 * Must run with no other heap user (at boot, after the boot scrub; it waits
 * for a bootscrub=idle background scrub to finish first).
 */
#ifndef KEEL_BENCH_H
#define KEEL_BENCH_H

#include <keel/cachemaint.h>
#include <keel/types.h>

#define BENCH_MAX_COUNT 64 /* blocks per row at most */

struct jw;

/* One row of the report's "bench" table (durations in ns). */
struct bench_row {
	unsigned int order, node;
	uint64_t count;
	uint64_t ns_avg, ns_max, lock_ns_max, maint_ns;
	const char *mode; /* "eager" / "deferred" */
	bool dirty;
};
#define BENCH_MAX_ROWS 64
extern struct bench_row bench_rows[BENCH_MAX_ROWS];
extern unsigned int bench_row_count;

/* What one measurement did besides the row (for tests and the log). */
struct bench_detail {
	uint64_t maint_ops, maint_bytes; /* the row sink's deltas */
	uint64_t clean_poc_blocks; /* measured blocks that were clean_poc */
};

/* Run the whole self-benchmark and fill bench_rows[] / bench_row_count. */
void bench_run(void);

/*
 * bench_one(): one row: @count (<= BENCH_MAX_COUNT) blocks of @order on
 * @node in cachemaint @mode (CACHEMAINT_DEFERRED or CACHEMAINT_EAGER),
 * @dirty as above. Leaves the heap as bench_run() does.
 * Return: 0 with *@row (and *@detail when not NULL) filled, or -ENOMEM
 * when not a single block could be allocated, -EINVAL for bad arguments.
 */
int bench_one(uint32_t node, unsigned int order, enum cachemaint_mode mode,
	      bool dirty, uint64_t count, struct bench_row *row,
	      struct bench_detail *detail);

/*
 * bench_owned() (common/selftest/bench_owned.c): heap_alloc_owned() of one
 * 2^MAX_ORDER extent, of @count (<= 1024) in a row, and one anonymous
 * heap_alloc() of that order on @node, clean memory, no maintenance; the
 * heap left with the same free pages and chunks. bench_run() prints it
 * for node 0 (one "bench: owned" line). Return: 0, -ENOMEM, -EINVAL.
 */
struct bench_owned {
	unsigned int order, node;
	uint64_t one_ns;  /* one extent */
	uint64_t many_ns; /* @many extents in a row, total */
	unsigned int many;
	uint64_t anon_ns; /* one anonymous block of the same order */
};
int bench_owned(uint32_t node, unsigned int count, struct bench_owned *out);
void bench_owned_print(void);
/*
 * bench_runtime_print() (common/selftest/bench_runtime.c): the heap at
 * runtime (issue 37), one "bench: runtime" line per workload (order 0,
 * order 9, churn 0..10): ticks and ns per heap_alloc()/heap_free(), p50,
 * p99 and mean, node locks per 1000 operations. Boot CPU, no other user.
 */
void bench_runtime_print(void);

struct domain_set;
/*
 * domains_bench(): bench=on, before domains_build(): the largest domain
 * of @s built on this CPU with the cache maintenance mode in force and
 * with cachemaint=eager, in the same boot (@s->stats.bench).
 * Boot CPU (common/selftest/domain_bench.c).
 */
void domains_bench(struct domain_set *s);

#endif
