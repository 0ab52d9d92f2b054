/* SPDX-License-Identifier: MIT */
/*
 * Cache maintenance out of the allocation path (DESIGN §6): by range,
 * outside the heap lock, skipped for PGF_CLEAN_POC blocks; HEAP_NO_FLUSH
 * allocations are recorded and flushed later in one batch.
 */
#ifndef KEEL_CACHEMAINT_H
#define KEEL_CACHEMAINT_H

#include <keel/enum_names.h>
#include <keel/frametable.h>
#include <keel/types.h>

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

extern struct cachemaint_stats cachemaint_stats;

void cachemaint_init(enum cachemaint_mode mode);
enum cachemaint_mode cachemaint_mode(void);
extern const struct enum_name cachemaint_mode_names[];
const char *cachemaint_mode_name(enum cachemaint_mode m);

/* Called by heap_alloc after the lock is dropped (deferred modes). */
void cachemaint_after_alloc(struct page_info *pg, unsigned int order,
			    uint32_t flags);
/* Called by heap_alloc under the node lock (eager mode only). */
void cachemaint_in_lock(struct page_info *pg, unsigned int order);

/* Flush every range recorded by HEAP_NO_FLUSH allocations. Return: ranges flushed. */
unsigned int cachemaint_flush_batch(void);

#endif
