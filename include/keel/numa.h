/* SPDX-License-Identifier: MIT */
/* The node set and distances, copied from bootinfo at boot. */
#ifndef KEEL_NUMA_H
#define KEEL_NUMA_H

#include <keel/bootinfo.h>

void numa_init(const struct bootinfo *bi);
unsigned int numa_node_count(void);
unsigned int node_distance(uint32_t a, uint32_t b);
/*
 * Nearest node to @from among those with bit set in @candidates (bit n =
 * node n), @from itself first if it is a candidate; ties go to the lowest
 * id. Return: the node, or NUMA_NO_NODE when @candidates is empty.
 */
uint32_t numa_nearest(uint32_t from, uint64_t candidates);
/* Nodes ordered by distance from @from (itself first). Return: count. */
unsigned int numa_fallback_order(uint32_t from, uint32_t *order);

#endif
