/* SPDX-License-Identifier: MIT */
/*
 * Owner: mm.
 * Cache maintenance out of the allocation path (DESIGN §6): by range,
 * outside the heap lock, skipped for PGF_CLEAN_POC blocks; HEAP_NO_FLUSH
 * allocations are recorded and flushed later in one batch.
 */
#ifndef KEEL_CACHEMAINT_H
#define KEEL_CACHEMAINT_H

#include <keel/enum_names.h>
#include <keel/frametable.h>
#include <keel/types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct jw;

enum cachemaint_mode {
	CACHEMAINT_DEFERRED = 0, /* by range, outside the lock (default) */
	CACHEMAINT_EAGER,	 /* per page, inside the lock (baseline) */
	CACHEMAINT_CLFLUSH,	 /* x86: do it even though coherent */
	CACHEMAINT_NONE,	 /* coherent platform: nothing */
};

struct cachemaint_stats {
	uint64_t ops; /* maintenance calls (ranges or pages) */
	uint64_t bytes;
	uint64_t batches;
	uint64_t pending_ranges;
};

/*
 * A maintenance policy and the counters it adds to, handed to each call
 * that allocates (heap_alloc()'s and heap_alloc_owned()'s @cm, a domain
 * build's struct domain_ctx), as HEAP_NO_FLUSH is handed in the flags.
 * The boot's own is made by the flow and given to the heap once
 * (heap_set_cachemaint()); the latency probe and the benchmarks make
 * their own for their runs, so nothing is switched and put back.
 */
struct cachemaint {
	enum cachemaint_mode mode;	/* as cachemaint_policy() resolved it */
	struct cachemaint_stats *stats; /* the sink: atomics, never NULL */
};

/*
 * cachemaint_policy(): @mode with its counters in @stats. Deferred
 * maintenance on a coherent platform is no maintenance at all (mode
 * none). Return: the policy, by value.
 */
struct cachemaint cachemaint_policy(enum cachemaint_mode mode,
				    struct cachemaint_stats *stats);
extern const struct enum_name cachemaint_mode_names[];
const char *cachemaint_mode_name(enum cachemaint_mode m);

/* Does @cm clean by range after the unlock (deferred, clflush)? */
static inline bool cachemaint_by_range(const struct cachemaint *cm)
{
	return cm->mode == CACHEMAINT_DEFERRED ||
	       cm->mode == CACHEMAINT_CLFLUSH;
}

/* Called by heap_alloc after the lock is dropped (deferred modes). */
void cachemaint_after_alloc(const struct cachemaint *cm, struct page_info *pg,
			    unsigned int order, uint32_t flags);
/* Called by heap_alloc under the node lock (eager mode only). */
void cachemaint_in_lock(const struct cachemaint *cm, struct page_info *pg,
			unsigned int order);
/* Clean+invalidate [@pa, @pa + @bytes) now: one operation in @cm's sink. */
void cachemaint_range(const struct cachemaint *cm, paddr_t pa, uint64_t bytes);

/*
 * Flush every range recorded by HEAP_NO_FLUSH allocations, each counted
 * in the sink it was recorded with; the batch in @cm's.
 * Return: ranges flushed.
 */
unsigned int cachemaint_flush_batch(const struct cachemaint *cm);

/*
 * heap_set_cachemaint(): the policy and sink of every allocation that
 * passes none (heap_alloc()'s and heap_alloc_owned()'s @cm NULL), given
 * once by whoever opens the heap (keel's flow: cachemaint= or the
 * platform's need); @cm must stay valid. Before any: deferred, with
 * counters of the heap's own. NULL: that default.
 * heap_cachemaint(): the one in force (the report reads its counters).
 */
void heap_set_cachemaint(const struct cachemaint *cm);
const struct cachemaint *heap_cachemaint(void);

#ifdef __cplusplus
}
#endif

#endif
