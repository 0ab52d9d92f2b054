/* SPDX-License-Identifier: MIT */
/*
 * Cache maintenance out of the allocation path (DESIGN §6).
 *
 * Owns the mode, the counters and the no_flush batch.
 *  deferred: heap_alloc calls cachemaint_after_alloc() after dropping the
 *            node lock; a PGF_CLEAN_POC block needs nothing, any other block
 *            gets ONE clean+invalidate over its whole range (one barrier),
 *            and HEAP_ICACHE adds one I-cache invalidate per allocation.
 *  clflush:  the same, chosen explicitly on a coherent platform (x86).
 *  eager:    the classic baseline: per page, inside the heap lock.
 *  none:     nothing; what cachemaint_init() picks for "deferred" on a
 *            coherent platform, where there is nothing to defer.
 * HEAP_NO_FLUSH allocations are only recorded (and marked PGF_NEED_FLUSH);
 * cachemaint_flush_batch() does them later, each range once.
 *
 * Lock: batch_lock protects the batch table. It is never held together
 * with a heap node lock (after_alloc runs after the unlock).
 */
#include <arch/cache.h>
#include <arch/mm.h>
#include <keel/cachemaint.h>
#include <keel/compiler.h>
#include <keel/heap.h>
#include <keel/json.h>
#include <keel/spinlock.h>

#define BATCH_MAX 64

struct batch_entry {
	struct page_info *pg;
	uint64_t pfn;
	uint64_t pages;
};

struct cachemaint_stats cachemaint_stats;
static enum cachemaint_mode cm_mode = CACHEMAINT_DEFERRED;
static spinlock_t batch_lock = SPINLOCK_INIT;
static struct batch_entry batch[BATCH_MAX];
static unsigned int batch_count;

/**
 * cachemaint_init() - select @mode (counters and batch reset). Deferred
 * maintenance on a coherent platform is no maintenance at all.
 */
void cachemaint_init(enum cachemaint_mode mode)
{
	if (mode == CACHEMAINT_DEFERRED && arch_dcache_coherent())
		mode = CACHEMAINT_NONE;
	cm_mode = mode;
	cachemaint_stats = (struct cachemaint_stats){0};
	batch_count = 0;
}

/** cachemaint_mode() - Return: the mode in force. */
enum cachemaint_mode cachemaint_mode(void)
{
	return cm_mode;
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

static void flush_range(uint64_t p, uint64_t pages)
{
	uint64_t bytes = pages << PAGE_SHIFT;

	arch_clean_inval_dcache_range(phys_to_virt(pfn_to_paddr(pfn(p))),
				      (size_t)bytes);
	__atomic_fetch_add(&cachemaint_stats.ops, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&cachemaint_stats.bytes, bytes, __ATOMIC_RELAXED);
}

/* Flush and empty the batch. Called with batch_lock held. */
static unsigned int flush_batch_locked(void)
{
	unsigned int i, n = batch_count;

	for (i = 0; i < n; i++) {
		struct page_info *pg = batch[i].pg;

		flush_range(batch[i].pfn, batch[i].pages);
		/* Only if the block is still the one recorded. */
		if (pg->state == PGS_ALLOCATED && pg->pfn == batch[i].pfn)
			pg->flags &= (uint8_t)~PGF_NEED_FLUSH;
	}
	batch_count = 0;
	cachemaint_stats.pending_ranges = 0;
	if (n)
		cachemaint_stats.batches++;
	return n;
}

/**
 * cachemaint_after_alloc() - maintenance for a block just allocated, with
 * no heap lock held.
 */
void cachemaint_after_alloc(struct page_info *pg, unsigned int order,
			    uint32_t flags)
{
	uint64_t p = pg->pfn, pages = 1ULL << order;

	if (cm_mode != CACHEMAINT_DEFERRED && cm_mode != CACHEMAINT_CLFLUSH)
		return;
	if (!(pg->flags & PGF_CLEAN_POC)) {
		if (flags & HEAP_NO_FLUSH) {
			spin_lock(&batch_lock);
			if (batch_count == BATCH_MAX)
				flush_batch_locked();
			batch[batch_count].pg = pg;
			batch[batch_count].pfn = p;
			batch[batch_count].pages = pages;
			batch_count++;
			cachemaint_stats.pending_ranges = batch_count;
			pg->flags |= PGF_NEED_FLUSH;
			spin_unlock(&batch_lock);
		} else {
			flush_range(p, pages);
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
void cachemaint_in_lock(struct page_info *pg, unsigned int order)
{
	uint64_t p = pg->pfn, i, pages = 1ULL << order;

	for (i = 0; i < pages; i++)
		flush_range(p + i, 1);
}

/**
 * cachemaint_flush_batch() - do the maintenance of every HEAP_NO_FLUSH
 * allocation recorded so far.
 *
 * Return: ranges flushed.
 */
unsigned int cachemaint_flush_batch(void)
{
	unsigned int n;

	spin_lock(&batch_lock);
	n = flush_batch_locked();
	spin_unlock(&batch_lock);
	return n;
}
