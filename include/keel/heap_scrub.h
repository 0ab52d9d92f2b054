/* SPDX-License-Identifier: MIT */
/*
 * Owner: mm.
 * The heap's side of the scrub (common/scrub*.c, and a host's idle scrub:
 * docs/embedding.md): detach a dirty free chunk and give it back clean,
 * mark chunks scrubbed in place at boot, walk the free lists. An
 * allocator's runtime caller needs only keel/heap.h.
 */
#ifndef KEEL_HEAP_SCRUB_H
#define KEEL_HEAP_SCRUB_H

#include <keel/heap.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * heap_take_dirty(): detach one dirty free chunk of @node (from a list
 * tail), of order MAX_ORDER at most, NULL when the node has none. The
 * caller zeroes it with no lock held (its pages from head->first_dirty on;
 * those before are zero already) and returns it with heap_put_clean()
 * (@clean_poc: also cleaned to the point of coherency). Until then its
 * pages are not in heap_stats()' free count. Lock: the node's, for each
 * of the two calls.
 */
struct page_info *heap_take_dirty(uint32_t node, unsigned int *order);
void heap_put_clean(struct page_info *pg, unsigned int order, bool clean_poc);

/*
 * Walk every free chunk of a node under its lock (audit, boot scrub
 * planning). The callback must not call heap functions.
 */
void heap_for_each_free(uint32_t node,
			void (*fn)(struct page_info *head, unsigned int order,
				   unsigned int zone, void *arg),
			void *arg);

/*
 * heap_mark_clean(): after the boot scrub (heap not open yet, no other
 * user): a chunk head is now all zero; set first_dirty = NONE and
 * PGF_CLEAN_POC if @clean_poc, and move it to the clean end of its list.
 * Takes the node lock (workers of one node may finish chunks together).
 */
void heap_mark_clean(struct page_info *head, bool clean_poc);

#ifdef __cplusplus
}
#endif

#endif
