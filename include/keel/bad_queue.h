/* SPDX-License-Identifier: MIT */
/*
 * Owner: mm.
 * Pages reported failed where no lock may be taken (a machine check, a
 * synchronous external abort), queued for the heap to take out of service
 * at the next safe point (common/mm/bad_queue.c). Lock-free, bounded: a
 * push never waits and never allocates; a push into a full queue is counted
 * (bad_queue_overflows()) and said at the next drain.
 */
#ifndef KEEL_BAD_QUEUE_H
#define KEEL_BAD_QUEUE_H

#include <keel/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Pages queued between two drains; a machine check storm beyond is counted. */
#define BAD_QUEUE_SLOTS 64

/* @pa of an error that names no page: logged at the drain, nothing offlined. */
#define BAD_QUEUE_NO_ADDR (~0ULL)
#define BAD_QUEUE_NO_PFN  (BAD_QUEUE_NO_ADDR >> PAGE_SHIFT)

/* Who reported the page (the report's bad_memory.by_source). */
enum bad_queue_source {
	BAD_QUEUE_MCE,	     /* an x86 machine check or an arm64 SEA/SError */
	BAD_QUEUE_INJECTION, /* inject=poison: a test */
	/*
	 * A corrected error (x86 MCi_STATUS.UC clear): counted per page
	 * (keel/ce_count.h), taken out as soft only at ce_offline= of them.
	 */
	BAD_QUEUE_MCE_CORRECTED,
};

/*
 * bad_queue_push() - queue the page holding physical address @pa as
 * broken, or as having had a corrected error (@source
 * BAD_QUEUE_MCE_CORRECTED); BAD_QUEUE_NO_ADDR: an error naming no page.
 * @info for the log (an MCi_STATUS, an ESR). From any context (an
 * exception handler included: nothing is printed here, the drain logs).
 * Return: true when queued, false when the queue was full (counted); for
 * an error naming no page it is full at half its slots, the rest kept
 * for pages (a broadcast machine check queues one such error a CPU).
 */
bool bad_queue_push(uint64_t pa, enum bad_queue_source source, uint64_t info);

/*
 * bad_queue_drain() - call @fn(pfn, source, info, arg) for each page
 * queued, in order (pfn BAD_QUEUE_NO_PFN: an error naming no page), and
 * forget it. Safe points only (locks may be taken by @fn); a
 * second CPU draining at the same time returns at once.
 * Return: the pages drained.
 */
typedef void bad_queue_fn(uint64_t pfn, enum bad_queue_source source,
			  uint64_t info, void *arg);
unsigned int bad_queue_drain(bad_queue_fn *fn, void *arg);

/* bad_queue_overflows() - Return: pushes refused because the queue was full. */
uint64_t bad_queue_overflows(void);

/*
 * bad_queue_take() - every queued page dealt with (common/mm/bad_take.c):
 * a failed one heap_offline()d as broken, a corrected error counted
 * (@ce_offline: ce_offline=, keel/ce_count.h), one line each; pushes the
 * queue refused since the last call said. Where locks may be taken.
 * Return: the entries taken.
 */
unsigned int bad_queue_take(uint32_t ce_offline);

/*
 * bad_queue_kept() - @fn(pfn, reason, arg) for each page a take found
 * broken but could not take out: not the heap's (keel's image, its
 * tables, reserved RAM: still in use), then those waiting for the next
 * take (in a chunk being scrubbed); @reason the enum heap_bad_reason it
 * was offlined with (HEAP_BAD_BROKEN and its source). A live update
 * names them bad to its next image. @fn may be NULL. Same caller as
 * bad_queue_take(). bad_queue_kept_version(): moved by each change to
 * what bad_queue_kept() names.
 * Return: how many (not the heap's, then waiting).
 */
typedef void bad_kept_fn(pfn_t p, unsigned int reason, void *arg);
unsigned int bad_queue_kept(bad_kept_fn *fn, void *arg);
uint64_t bad_queue_kept_version(void);
/* bad_queue_kept_reset() - forget both lists (unit tests). */
void bad_queue_kept_reset(void);

#ifdef __cplusplus
}
#endif
#endif
