/* SPDX-License-Identifier: MIT */
/*
 * Opening the heap in the heap's host benchmarks (tests/bench/heap_runtime.c,
 * heap_aging.c), the way docs/embedding.md's host does: @nodes nodes of
 * @node_bytes from EMBED_PHYS_BASE (the host's region, tests/embed/host.c),
 * distances 10 local / 20 remote, CPUs 1 and 2 on node 0 and CPU 3 on the
 * last node (set before heap_init(): the CPU caches are sized by them),
 * the node locks counted as such by the host's lock hook, the deferred
 * maintenance policy (none on this coherent host), every range handed
 * over clean. @who names the program in its one error line; a heap_init()
 * that made more node locks than nodes is said (node locks per operation
 * would count them all). The CPU caches stay as heap_init() leaves them
 * (off): the caller turns them on.
 */
#ifndef BENCH_HEAP_H
#define BENCH_HEAP_H

#include <keel/bootmem.h>
#include <keel/cachemaint.h>
#include <keel/frametable.h>
#include <keel/heap.h>
#include <keel/heap_boot.h>
#include <keel/numa.h>

#include <stdio.h>
#include <stdlib.h>

#include "../embed/embed.h"

static uint8_t bench_distance[MAX_NUMNODES][MAX_NUMNODES];
static struct cachemaint_stats bench_maint_stats;
static struct cachemaint bench_maint;

static inline void bench_heap_open(unsigned int nodes, uint64_t node_bytes,
				   const char *who)
{
	for (unsigned int a = 0; a < nodes; a++)
		for (unsigned int b = 0; b < nodes; b++)
			bench_distance[a][b] = a == b ? 10 : 20;
	keel_numa_init(nodes, (const uint8_t(*)[MAX_NUMNODES])bench_distance);
	bootmem_init();
	for (unsigned int n = 0; n < nodes; n++)
		if (bootmem_add(pa(EMBED_PHYS_BASE + n * node_bytes),
				node_bytes, n)) {
			fprintf(stderr, "%s: bootmem_add failed\n", who);
			exit(2);
		}
	frametable_init(nodes);
	heap_set_cpu_node(1, 0);
	heap_set_cpu_node(2, 0);
	heap_set_cpu_node(3, nodes - 1);
	host.lock_kind = HOST_LOCK_NODE; /* the node locks are made here */
	heap_init(HEAP_INIT_LAZY, nodes,
		  (const uint8_t(*)[MAX_NUMNODES])bench_distance);
	host.lock_kind = HOST_LOCK_OTHER;
	if (host.lock_inits[HOST_LOCK_NODE] != nodes)
		fprintf(stderr,
			"%s: heap_init() made %llu locks for %u nodes: node "
			"locks per op count them all\n",
			who,
			(unsigned long long)host.lock_inits[HOST_LOCK_NODE],
			nodes);
	bench_maint =
		cachemaint_policy(CACHEMAINT_DEFERRED, &bench_maint_stats);
	heap_set_cachemaint(&bench_maint);
	heap_handoff(false);
}

#endif
