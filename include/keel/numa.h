/* SPDX-License-Identifier: MIT */
/*
 * Owner: mm.
 * The node set and distances, copied from bootinfo at boot.
 */
#ifndef KEEL_NUMA_H
#define KEEL_NUMA_H

#include <keel/types.h>
#ifndef KEEL_CONFIG_GIVEN /* keel's own build; a host's (make lib) takes less */
#include <keel/bootinfo.h>
#endif
#include <keel/node_limits.h>

#ifdef __cplusplus
extern "C" {
#endif

struct bootinfo;
struct jw;

void numa_init(const struct bootinfo *bi);
/*
 * numa_init() from @count nodes and their distances (@distance NULL: none,
 * 10 and 20 then); libkeel-heap (make lib) exports it as keel_numa_init().
 */
void numa_init_matrix(unsigned int count,
		      const uint8_t (*distance)[MAX_NUMNODES]);
void keel_numa_init(unsigned int count,
		    const uint8_t (*distance)[MAX_NUMNODES]);
unsigned int numa_node_count(void);
unsigned int node_distance(uint32_t a, uint32_t b);
/*
 * Distances may be asymmetric (include/keel/bootinfo.h, "Node distances"),
 * so every query says its direction. 255 (unreachable) ranks last: such a
 * node is only chosen when no reachable candidate exists.
 *
 * numa_nearest(): the candidate c (bit c of @candidates) with the smallest
 * distance[@from][c], seen from @from: where @from's CPUs should go.
 * numa_nearest_to(): the candidate c with the smallest distance[c][@to],
 * seen from the candidate: whose CPUs are nearest to @to's memory (the
 * scrub helper of a memory-only node).
 * Both: @from / @to itself first if it is a candidate, ties to the lowest
 * id. Return: the node, or NUMA_NO_NODE when @candidates is empty.
 */
uint32_t numa_nearest(uint32_t from, uint64_t candidates);
uint32_t numa_nearest_to(uint32_t to, uint64_t candidates);
/*
 * Nodes ordered by distance[@from][other] (itself first, ties by id): the
 * order in which an allocation for @from falls back. Return: count.
 */
unsigned int numa_fallback_order(uint32_t from, uint32_t *order);

#ifdef __cplusplus
}
#endif

#endif
