/* SPDX-License-Identifier: MIT */
/*
 * Cache maintenance out of the allocation path (DESIGN §6).
 *
 * Owns the no_flush batch; the mode and the counters are the caller's
 * (struct cachemaint, handed to every call: the boot's is the flow's).
 *  deferred: heap_alloc calls cachemaint_after_alloc() after dropping the
 *            node lock; a PGF_CLEAN_POC block needs nothing, any other block
 *            gets ONE clean+invalidate over its whole range (one barrier),
 *            and HEAP_ICACHE adds one I-cache invalidate per allocation.
 *  clflush:  the same, chosen explicitly on a coherent platform (x86).
 *  eager:    the classic baseline: per page, inside the heap lock.
 *  none:     nothing; what cachemaint_policy() picks for "deferred" on a
 *            coherent platform, where there is nothing to defer.
 * HEAP_NO_FLUSH allocations are only recorded (and marked PGF_NEED_FLUSH),
 * each with the sink of its policy; cachemaint_flush_batch() does them
 * later, each range once, counted in the sink it was recorded with.
 *
 * Lock: batch_lock protects the batch table. It is never held together
 * with a heap node lock (after_alloc runs after the unlock).
 */
#include <arch/cache.h>
#include <arch/mm.h>
#include <keel/cachemaint.h>
#include <keel/compiler.h>
#include <keel/heap.h>
#include <keel/spinlock.h>

#define BATCH_MAX 64

struct batch_entry {
	struct page_info *pg;
	uint64_t pfn;
	uint64_t pages;
	struct cachemaint_stats *stats; /* the recording call's sink */
};

static spinlock_t batch_lock = SPINLOCK_INIT;
static struct batch_entry batch[BATCH_MAX];
static unsigned int batch_count;

/**
 * cachemaint_policy() - @mode counted in @stats (see keel/cachemaint.h).
 * @mode: asked for; deferred becomes none on a coherent platform
 * @stats: the sink
 *
 * Return: the policy.
 */
struct cachemaint cachemaint_policy(enum cachemaint_mode mode,
				    struct cachemaint_stats *stats)
{
	if (mode == CACHEMAINT_DEFERRED && arch_dcache_coherent())
		mode = CACHEMAINT_NONE;
	return (struct cachemaint){.mode = mode, .stats = stats};
}

/* cachemaint= words and cachemaint.mode (one table: parse and print). */
const struct enum_name cachemaint_mode_names[] = {
	{CACHEMAINT_DEFERRED, "deferred"},
	{CACHEMAINT_EAGER, "eager"},
	{CACHEMAINT_CLFLUSH, "clflush"},
	{CACHEMAINT_NONE, "none"},
	ENUM_NAMES_END,
};

/** cachemaint_mode_name() - Return: the cmdline/report name of @m. */
const char *cachemaint_mode_name(enum cachemaint_mode m)
{
	return enum_name(cachemaint_mode_names, m);
}

/* One clean+invalidate of [@pa, @pa + @bytes), counted in @st. */
static void clean_range(struct cachemaint_stats *st, paddr_t pa, uint64_t bytes)
{
	arch_clean_inval_dcache_range(phys_to_virt(pa), (size_t)bytes);
	__atomic_fetch_add(&st->ops, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&st->bytes, bytes, __ATOMIC_RELAXED);
}

static void flush_range(struct cachemaint_stats *st, uint64_t p, uint64_t pages)
{
	clean_range(st, pfn_to_paddr(pfn(p)), pages << PAGE_SHIFT);
}

/* Flush and empty the batch, one more batch in @st. batch_lock held. */
static unsigned int flush_batch_locked(struct cachemaint_stats *st)
{
	unsigned int i, n = batch_count;

	for (i = 0; i < n; i++) {
		struct page_info *pg = batch[i].pg;

		flush_range(batch[i].stats, batch[i].pfn, batch[i].pages);
		batch[i].stats->pending_ranges = 0;
		/* Only if the block is still the one recorded. */
		if (pg->state == PGS_ALLOCATED && pg->pfn == batch[i].pfn)
			pg->flags &= (uint8_t)~PGF_NEED_FLUSH;
	}
	batch_count = 0;
	if (n)
		st->batches++;
	return n;
}

/**
 * cachemaint_after_alloc() - maintenance for a block just allocated, with
 * no heap lock held.
 */
void cachemaint_after_alloc(const struct cachemaint *cm, struct page_info *pg,
			    unsigned int order, uint32_t flags)
{
	uint64_t p = pg->pfn, pages = 1ULL << order;

	if (!cachemaint_by_range(cm))
		return;
	if (!(pg->flags & PGF_CLEAN_POC)) {
		if (flags & HEAP_NO_FLUSH) {
			spin_lock(&batch_lock);
			if (batch_count == BATCH_MAX)
				flush_batch_locked(cm->stats);
			batch[batch_count].pg = pg;
			batch[batch_count].pfn = p;
			batch[batch_count].pages = pages;
			batch[batch_count].stats = cm->stats;
			batch_count++;
			cm->stats->pending_ranges++;
			pg->flags |= PGF_NEED_FLUSH;
			spin_unlock(&batch_lock);
		} else {
			flush_range(cm->stats, p, pages);
		}
	}
	/* Clean to PoC says nothing about stale instructions: still once. */
	if (flags & HEAP_ICACHE)
		arch_inval_icache_all();
}

/**
 * cachemaint_in_lock() - the eager baseline: clean+invalidate page by page
 * (called by heap_alloc with the node lock held).
 */
void cachemaint_in_lock(const struct cachemaint *cm, struct page_info *pg,
			unsigned int order)
{
	uint64_t p = pg->pfn, i, pages = 1ULL << order;

	for (i = 0; i < pages; i++)
		flush_range(cm->stats, p + i, 1);
}

/**
 * cachemaint_range() - clean+invalidate [@pa, @pa + @bytes) to PoC now,
 * one operation counted in @cm's sink (a domain build's merged extents).
 */
void cachemaint_range(const struct cachemaint *cm, paddr_t pa, uint64_t bytes)
{
	clean_range(cm->stats, pa, bytes);
}

/**
 * cachemaint_flush_batch() - do the maintenance of every HEAP_NO_FLUSH
 * allocation recorded so far (each in its own sink; the batch in @cm's).
 *
 * Return: ranges flushed.
 */
unsigned int cachemaint_flush_batch(const struct cachemaint *cm)
{
	unsigned int n;

	spin_lock(&batch_lock);
	n = flush_batch_locked(cm->stats);
	spin_unlock(&batch_lock);
	return n;
}
