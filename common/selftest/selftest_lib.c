/* SPDX-License-Identifier: MIT */
/*
 * What the selftest room's runs share (selftest_priv.h): the heap's free
 * pages read under the node locks, before and after a run.
 */
#include <keel/heap.h>
#include <keel/heap_boot.h>
#include <keel/heap_check.h>

#include "selftest_priv.h"

/**
 * selftest_free_pages_locked() - the heap's free pages, each node's
 * counter read under its lock: heap_stats() reads them without, a
 * data race while an idle scrub detaches chunks. Per-CPU cached blocks
 * count as free (each node's, read atomically): exact while the CPUs are
 * quiet, before and after a run.
 *
 * Return: free pages of every node.
 */
uint64_t selftest_free_pages_locked(void)
{
	uint64_t sum = 0;

	for (unsigned int n = 0; n < heap_node_count(); n++) {
		struct heap_node_locked l = heap_lock_node(n);

		sum += heap_node_stats_locked(l)->free_pages;
		heap_unlock_node(l);
		/* A block in a CPU's cache is free memory too. */
		sum += heap_cached_pages((int)n, false);
	}
	return sum;
}
