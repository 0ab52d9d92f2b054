/* SPDX-License-Identifier: MIT */
/*
 * The allocation self-benchmark (bench=on). What each row means is
 * documented in include/keel/bench.h; this comment says how it is done.
 *
 * Owns: bench_rows[] / bench_row_count (declared in bench.h, defined in
 * here) and the static scratch below. Runs on one CPU with no other
 * heap user, so it takes no lock of its own.
 *
 * One row (bench_one), every allocation under a policy of the row's own
 * (heap_alloc()), counted in the row's own sink (row_stats): the
 * heap's (the boot's) mode and counters are never touched.
 *  1. Snapshot the node's clean_poc free chunks (pfn, order).
 *  2. dirty only: with cachemaint none, allocate the blocks, write one cache
 *     line per page (a pattern, then zero again: the heap's clean chunks
 *     must read as zero), free them with need_scrub=false. heap_free clears
 *     PGF_CLEAN_POC, and merging ANDs it, so the chunks they return to are
 *     no longer clean_poc.
 *  3. The same allocations with cachemaint none, timed, then freed: the
 *     no-maintenance reference of eager maint_ns, and a warm-up for every
 *     mode (the first touch of 2^order page_info entries is not billed to
 *     whichever mode comes first). clean: clean_poc restored (step 5).
 *  4. The measured allocations in the row's mode (lock statistics reset
 *     first), then free.
 *  5. Restore: the free chunk structure is back to what it was (the buddy
 *     heap merges eagerly, so the free chunks are a function of the free
 *     pages); put PGF_CLEAN_POC back (heap_mark_clean) on every free chunk
 *     whose (pfn, order) was clean_poc in the snapshot. That is true: the
 *     bench wrote only the lines of step 2, which are zero again, and were
 *     cleaned to PoC by the measured allocations' maintenance (or here, for
 *     a prepared block the measured ones did not cover).
 * The heap picks blocks deterministically (same free lists, same choice),
 * so steps 2-4 get the same blocks; bench_detail.clean_poc_blocks tells
 * what the measured blocks really were.
 */
#include <arch/cache.h>
#include <arch/cpu.h>
#include <arch/mm.h>
#include <keel/bench.h>
#include <keel/compiler.h>
#include <keel/errno.h>
#include <keel/frametable.h>
#include <keel/heap.h>
#include <keel/heap_boot.h>
#include <keel/heap_check.h>
#include <keel/heap_scrub.h>
#include <keel/printk.h>
#include <keel/scrub.h>
#include <keel/string.h>
#include <keel/trace.h>

struct bench_row bench_rows[BENCH_MAX_ROWS];
unsigned int bench_row_count;

/*
 * Clean_poc chunks a row's snapshot keeps (beyond: they lose clean_poc,
 * one warning). A boot's free chunks are tens to a few hundred; 2048
 * keeps the scratch (48 KiB) small: arm64's image_size must stay within
 * 2 MiB (Xen's ImageBuilder, arch/arm64/keel.lds), and these were 96 KiB
 * of .bss that only bench=on uses.
 */
#define BENCH_SNAP_MAX 2048

struct snap_chunk {
	uint64_t pfn;
	unsigned int order;
};

static const unsigned int bench_orders[] = {0, 9, 18};
static const uint64_t bench_counts[] = {64, 16, 2};

/* Scratch of one row (single user: see the file comment). */
static struct snap_chunk snap[BENCH_SNAP_MAX];
static unsigned int snap_count;
static bool snap_overflow;
static struct page_info *restore[BENCH_SNAP_MAX];
static unsigned int restore_count;
static bool restore_overflow;
static struct page_info *blocks[BENCH_MAX_COUNT];
static uint64_t prep_pfn[BENCH_MAX_COUNT];
static uint64_t lat_ticks[BENCH_MAX_COUNT], ref_ticks[BENCH_MAX_COUNT];
/* The counters of the row's policies (bench_one() zeroes them). */
static struct cachemaint_stats row_stats;

/* ---- clean_poc snapshot and restore ------------------------------------ */

static void snap_cb(struct page_info *head, unsigned int order,
		    unsigned int zone, void *arg)
{
	if (head->first_dirty != FIRST_DIRTY_NONE ||
	    !(head->flags & PGF_CLEAN_POC))
		return;
	if (snap_count == BENCH_SNAP_MAX) {
		snap_overflow = true;
		return;
	}
	snap[snap_count].pfn = head->pfn;
	snap[snap_count].order = order;
	snap_count++;
}

static int snap_cmp(const void *a, const void *b)
{
	const struct snap_chunk *x = a, *y = b;

	return x->pfn < y->pfn ? -1 : x->pfn > y->pfn;
}

static void snap_take(uint32_t node)
{
	snap_count = 0;
	snap_overflow = false;
	heap_for_each_free(node, snap_cb, NULL);
	sort(snap, snap_count, sizeof(snap[0]), snap_cmp);
}

static bool snap_has(uint64_t p, unsigned int order)
{
	unsigned int lo = 0, hi = snap_count;

	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;

		if (snap[mid].pfn == p)
			return snap[mid].order == order;
		if (snap[mid].pfn < p)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

/* Free chunks that are clean (zero) but have lost clean_poc. */
static void restore_cb(struct page_info *head, unsigned int order,
		       unsigned int zone, void *arg)
{
	if (head->first_dirty != FIRST_DIRTY_NONE ||
	    (head->flags & PGF_CLEAN_POC) || !snap_has(head->pfn, order))
		return;
	if (restore_count == BENCH_SNAP_MAX) {
		restore_overflow = true;
		return;
	}
	restore[restore_count++] = head;
}

/* Return: chunks that could not be given their clean_poc back. */
static unsigned int snap_restore(uint32_t node)
{
	unsigned int i, missed = 0;

	do {
		restore_count = 0;
		restore_overflow = false;
		heap_for_each_free(node, restore_cb, NULL);
		/* heap_mark_clean takes the node lock: outside the walk. */
		for (i = 0; i < restore_count; i++)
			heap_mark_clean(restore[i], true);
	} while (restore_overflow);
	if (snap_overflow)
		missed++; /* chunks beyond the snapshot stay non-poc */
	return missed;
}

/* ---- the measurements -------------------------------------------------- */

static uint64_t block_pages(unsigned int order)
{
	return 1ULL << order;
}

/*
 * Make a block "used": one cache line per page written with a pattern and
 * zeroed again. The lines are now dirty in the cache, the memory reads as
 * zero (a clean free chunk must), and the block is no longer clean to PoC
 * once heap_free has cleared the flag. One line per page keeps the cost
 * under QEMU TCG bounded (a whole GiB would take seconds).
 */
static void dirty_block(uint64_t p, unsigned int order, unsigned int line)
{
	uint64_t i;

	for (i = 0; i < block_pages(order); i++) {
		uint8_t *va = phys_to_virt(pfn_to_paddr(pfn(p + i)));

		WRITE_ONCE(*(uint64_t *)va, 0x6b656c2062656e63ULL);
		memset(va, 0, line);
	}
}

/* Clean the lines dirty_block() wrote (for blocks nobody flushed). */
static void clean_block(uint64_t p, unsigned int order, unsigned int line)
{
	uint64_t i;

	for (i = 0; i < block_pages(order); i++)
		arch_clean_inval_dcache_range(
			phys_to_virt(pfn_to_paddr(pfn(p + i))), line);
}

static void free_blocks(unsigned int n, unsigned int order)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		heap_free(blocks[i], order, HEAP_FREE_ZEROED);
}

/*
 * Allocate up to @count blocks under policy @cm, latency of each
 * heap_alloc() call in @call_ticks[].
 * @flush: call cachemaint_flush_batch() after each allocation that
 * recorded a range, outside the timed window, adding its time to
 * *@maint_ticks. @poc (may be NULL):
 * counts the blocks that were PGF_CLEAN_POC.
 * Return: blocks obtained (in blocks[]).
 */
static unsigned int alloc_blocks(const struct cachemaint *cm,
				 unsigned int count, unsigned int order,
				 uint32_t node, uint32_t flags,
				 uint64_t *call_ticks, bool flush,
				 uint64_t *maint_ticks, uint64_t *poc)
{
	unsigned int n;

	for (n = 0; n < count; n++) {
		uint64_t t0, t1;
		struct page_info *pg;

		t0 = arch_ticks();
		pg = heap_alloc(order, (int)node, 0, flags, cm);
		t1 = arch_ticks();
		if (!pg)
			break;
		blocks[n] = pg;
		call_ticks[n] = t1 - t0;
		if (poc && (pg->flags & PGF_CLEAN_POC))
			(*poc)++;
		/* Nothing recorded (clean_poc): no maintenance to time. */
		if (flush && READ_ONCE(cm->stats->pending_ranges)) {
			t0 = arch_ticks();
			cachemaint_flush_batch(cm);
			*maint_ticks += arch_ticks() - t0;
		}
	}
	return n;
}

/* Was the block at pfn @p among the measured blocks[0..n)? */
static bool measured(uint64_t p, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (blocks[i]->pfn == p)
			return true;
	return false;
}

/*
 * Step 2, dirty rows: with cachemaint none, allocate up to @count blocks,
 * dirty one line per page of each (pfns kept in prep_pfn[]), free them.
 * Return: blocks prepared.
 */
static unsigned int prepare_dirty(unsigned int count, unsigned int order,
				  uint32_t node, uint32_t flags,
				  unsigned int line)
{
	const struct cachemaint none =
		cachemaint_policy(CACHEMAINT_NONE, &row_stats);
	uint64_t maint = 0; /* no flush: stays 0 */
	unsigned int prepared, i;

	prepared = alloc_blocks(&none, count, order, node, flags, ref_ticks,
				false, &maint, NULL);
	for (i = 0; i < prepared; i++) {
		prep_pfn[i] = blocks[i]->pfn;
		dirty_block(prep_pfn[i], order, line);
	}
	free_blocks(prepared, order);
	return prepared;
}

/*
 * Step 3: the same allocations without maintenance, timed in ref_ticks[],
 * then freed. Return: blocks obtained.
 */
static unsigned int time_reference(unsigned int count, unsigned int order,
				   uint32_t node, uint32_t flags)
{
	const struct cachemaint none =
		cachemaint_policy(CACHEMAINT_NONE, &row_stats);
	uint64_t maint = 0; /* no flush: stays 0 */
	unsigned int n;

	n = alloc_blocks(&none, count, order, node, flags, ref_ticks, false,
			 &maint, NULL);
	free_blocks(n, order);
	return n;
}

/*
 * Step 4: the measured allocations in @mode, timed in lat_ticks[] and
 * still held in blocks[]; deferred mode's flush time in *@maint, the
 * clean_poc blocks in *@poc. Fills @row's lock_ns_max and mode, and
 * @detail. Return: blocks obtained.
 */
static unsigned int time_measured(uint32_t node, enum cachemaint_mode mode,
				  unsigned int count, unsigned int order,
				  uint32_t flags, struct bench_row *row,
				  struct bench_detail *detail, uint64_t *maint,
				  uint64_t *poc)
{
	bool eager = mode == CACHEMAINT_EAGER;
	struct cachemaint cm = cachemaint_policy(mode, &row_stats);
	struct heap_stats st;
	uint64_t ops0, bytes0;
	unsigned int n;

	/* Coherent platform: deferred is "none"; measure the by-range flush. */
	if (!eager && cm.mode == CACHEMAINT_NONE)
		cm = cachemaint_policy(CACHEMAINT_CLFLUSH, &row_stats);
	ops0 = row_stats.ops;
	bytes0 = row_stats.bytes;
	*maint = 0;
	heap_reset_lock_stats();
	n = alloc_blocks(&cm, count, order, node,
			 eager ? flags : flags | HEAP_NO_FLUSH, lat_ticks,
			 !eager, maint, poc);
	heap_stats(node, 0, &st);
	row->lock_ns_max = ticks_to_ns(st.lock_max_ticks);
	if (detail) {
		detail->maint_ops = row_stats.ops - ops0;
		detail->maint_bytes = row_stats.bytes - bytes0;
		detail->clean_poc_blocks = *poc;
	}
	row->mode = cachemaint_mode_name(cm.mode);
	return n;
}

/*
 * The rest of @row from the @n measured latencies; eager mode's
 * maintenance is added to @maint from the reference allocations.
 */
static void fill_row(struct bench_row *row, uint32_t node, unsigned int order,
		     unsigned int n, bool eager, uint64_t maint, uint64_t poc)
{
	uint64_t sum = 0, max = 0;

	for (unsigned int i = 0; i < n; i++) {
		sum += lat_ticks[i];
		max = MAX(max, lat_ticks[i]);
		/*
		 * Eager: the same block allocated without maintenance just
		 * before; the difference is the maintenance. Pairwise and
		 * clamped, so that one preempted reference allocation does
		 * not cancel the maintenance of the others.
		 */
		if (eager && lat_ticks[i] > ref_ticks[i])
			maint += lat_ticks[i] - ref_ticks[i];
	}
	row->order = order;
	row->node = node;
	row->count = n;
	row->ns_avg = ticks_to_ns(sum) / n;
	row->ns_max = ticks_to_ns(max);
	row->maint_ns = ticks_to_ns(maint);
	row->dirty = poc < n;
}

/*
 * Steps 2 to 4 and the row, with the snapshot taken: @count blocks at
 * most (known to be free). Return: 0, or -ENOMEM when no block came.
 */
static int measure_row(uint32_t node, unsigned int order,
		       enum cachemaint_mode mode, bool dirty,
		       unsigned int count, unsigned int line,
		       struct bench_row *row, struct bench_detail *detail)
{
	const uint32_t flags = HEAP_EXACT_NODE;
	unsigned int n, prepared = 0;
	uint64_t maint = 0, poc = 0;

	if (dirty) {
		prepared = prepare_dirty(count, order, node, flags, line);
		if (!prepared)
			return -ENOMEM;
		count = prepared;
	}

	/*
	 * The same allocations without maintenance: the reference eager
	 * maint_ns is measured against, and for every mode a warm-up (the
	 * first touch of 2^order page_info entries must not be billed to
	 * whichever mode happens to come first).
	 */
	n = time_reference(count, order, node, flags);
	if (!n)
		return -ENOMEM;
	count = n;
	/*
	 * Untouched blocks are still zero and clean to PoC: give the clean
	 * variant its clean_poc back (not the dirty one, whose written lines
	 * are not cleaned yet).
	 */
	if (!dirty)
		snap_restore(node);

	n = time_measured(node, mode, count, order, flags, row, detail, &maint,
			  &poc);
	/* Prepared lines the measured maintenance did not reach. */
	for (unsigned int i = 0; i < prepared; i++)
		if (!measured(prep_pfn[i], n))
			clean_block(prep_pfn[i], order, line);
	free_blocks(n, order);
	if (!n)
		return -ENOMEM;
	fill_row(row, node, order, n, mode == CACHEMAINT_EAGER, maint, poc);
	return 0;
}

/**
 * bench_one() - measure one row (see include/keel/bench.h).
 *
 * Return: 0, -ENOMEM when no block could be allocated, -EINVAL for a bad
 * node, order or mode.
 */
int bench_one(uint32_t node, unsigned int order, enum cachemaint_mode mode,
	      bool dirty, uint64_t count, struct bench_row *row,
	      struct bench_detail *detail)
{
	const struct cachemaint sink = {CACHEMAINT_NONE, &row_stats};
	unsigned int line = arch_dcache_line_size();
	struct heap_stats st;
	int ret;

	if (heap_stats(node, 0, &st) || order > MAX_ORDER || !count ||
	    (mode != CACHEMAINT_EAGER && mode != CACHEMAINT_DEFERRED))
		return -EINVAL;
	count = MIN(count, (uint64_t)BENCH_MAX_COUNT);
	count = MIN(count, st.free_pages >> order);
	if (!count)
		return -ENOMEM;
	if (line > PAGE_SIZE || !line)
		line = 64;

	row_stats = (struct cachemaint_stats){0};
	snap_take(node);
	ret = measure_row(node, order, mode, dirty, (unsigned int)count, line,
			  row, detail);
	if (snap_restore(node))
		pr_warn("bench: node %u: more than %u clean_poc chunks, some "
			"lose clean_poc\n",
			node, BENCH_SNAP_MAX);
	/* Nothing of the row's stays in the batch (each one is flushed). */
	if (row_stats.pending_ranges)
		cachemaint_flush_batch(&sink);
	return ret;
}

/* Append a row; false when the table is full. */
static bool add_row(const struct bench_row *row)
{
	if (bench_row_count >= BENCH_MAX_ROWS)
		return false;
	bench_rows[bench_row_count++] = *row;
	return true;
}

/* All rows of one node. Return: false when the row table is full. */
static bool bench_node(uint32_t node)
{
	static const enum cachemaint_mode modes[] = {CACHEMAINT_DEFERRED,
						     CACHEMAINT_EAGER};
	unsigned int d, o, m;
	bool no_poc_said = false;

	for (d = 0; d < 2; d++) {
		for (o = 0; o < ARRAY_SIZE(bench_orders); o++) {
			unsigned int order = bench_orders[o];

			if (order > MAX_ORDER)
				continue;
			for (m = 0; m < ARRAY_SIZE(modes); m++) {
				struct bench_detail det;
				struct bench_row row;

				if (bench_one(node, order, modes[m], d,
					      bench_counts[o], &row, &det))
					break; /* the node cannot: skip order */
				/* A clean row needs boot-scrubbed memory. */
				if (!d && row.dirty) {
					if (!no_poc_said)
						pr_info("bench: node %u: no "
							"clean_poc memory, "
							"clean rows skipped\n",
							node);
					no_poc_said = true;
					continue;
				}
				pr_info("bench: node %u order %2u %-8s %-5s: "
					"%llu allocs, avg %llu ns, max %llu "
					"ns, lock max %llu ns, maint %llu ns "
					"(%llu ops)\n",
					node, order, row.mode,
					row.dirty ? "dirty" : "clean",
					(unsigned long long)row.count,
					(unsigned long long)row.ns_avg,
					(unsigned long long)row.ns_max,
					(unsigned long long)row.lock_ns_max,
					(unsigned long long)row.maint_ns,
					(unsigned long long)det.maint_ops);
				if (!add_row(&row))
					return false;
			}
		}
	}
	return true;
}

/**
 * bench_run() - the self-benchmark of every node with memory; rows in
 * bench_rows[] for the report. The heap is left as it was found.
 */
void bench_run(void)
{
	unsigned int node, count = heap_node_count();
	bool full, caches = heap_cpu_caches_on();

	bench_row_count = 0;
	/* bootscrub=idle: no background scrubber may change the heap. */
	scrub_wait_all_clean();
	/*
	 * The bench measures the node's free lists and restores their exact
	 * layout (step 5): the per-CPU caches, whose blocks are off the
	 * lists, are given back and stay off until it is done.
	 */
	heap_set_cpu_caches(false);
	for (node = 0; node < count; node++) {
		struct heap_stats st, after;

		heap_stats(node, 0, &st);
		if (!st.total_pages)
			continue;
		if (st.dirty_pages) {
			/* Freeing what heap_alloc scrubbed would change them. */
			pr_warn("bench: node %u: %llu dirty pages, skipped\n",
				node, (unsigned long long)st.dirty_pages);
			continue;
		}
		full = !bench_node(node);
		heap_stats(node, 0, &after);
		if (after.free_pages != st.free_pages ||
		    after.free_chunks != st.free_chunks)
			pr_warn("bench: node %u: free pages %llu -> %llu, free "
				"chunks %llu -> %llu\n",
				node, (unsigned long long)st.free_pages,
				(unsigned long long)after.free_pages,
				(unsigned long long)st.free_chunks,
				(unsigned long long)after.free_chunks);
		if (full) {
			pr_warn("bench: more than %u rows, node %u and later "
				"incomplete\n",
				BENCH_MAX_ROWS, node);
			break;
		}
	}
	heap_set_cpu_caches(caches);
	bench_owned_print();
	bench_runtime_print();
}
