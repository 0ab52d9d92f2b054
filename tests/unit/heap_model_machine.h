/* SPDX-License-Identifier: MIT */
/*
 * The three-node machine of the heap model tests (heap_model_fixture.h)
 * and of the concurrency test (heap_concurrent_test.c): nodes with a hole
 * and reserved ranges, one across two nodes.
 */
#ifndef HEAP_MODEL_MACHINE_H
#define HEAP_MODEL_MACHINE_H

#include "common.h"

static const struct test_ram ram[] = {
	{16 * MiB, 48 * MiB, 0},
	{48 * MiB, 80 * MiB, 1},
	/* hole [80M, 84M) */
	{84 * MiB, 100 * MiB, 1},
	{100 * MiB, 116 * MiB, 2},
};

static const struct test_rsv rsv[] = {
	{20 * MiB, 20 * MiB + 12288, "kernel"},
	{47 * MiB + 4096, 49 * MiB, "across-nodes"},
	{90 * MiB, 90 * MiB + 4096, "one-page"},
	{100 * MiB, 101 * MiB, "node2-start"},
};

#define TOP_PFN ((116 * MiB) >> 12)

#endif
