/* SPDX-License-Identifier: MIT */
/*
 * Owner: lib.
 * The node numbering every room shares: at most MAX_NUMNODES nodes (the
 * configuration), and the id of no node. Alone here so that a host's
 * headers (keel/bootmem.h, keel/numa.h, keel/heap_boot.h) have them
 * without keel/bootinfo.h.
 */
#ifndef KEEL_NODE_LIMITS_H
#define KEEL_NODE_LIMITS_H

#include <keel/config.h>

#define MAX_NUMNODES CONFIG_MAX_NUMNODES
#define NUMA_NO_NODE 0xffffu

#endif
