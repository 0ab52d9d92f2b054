// SPDX-License-Identifier: MIT
/*
 * The one-time cost of opening the heap (issue 37 §4) in a fresh process:
 * bootmem, frametable_init(), heap_init() and heap_handoff() over one
 * node of SIZE GiB of RAM at physical address BASE (default 16 MiB), in
 * the sandbox's arena, the host's page faults on first touch included
 * (what a host that opens the heap at boot pays). Wall time of each step
 * (CLOCK_MONOTONIC), and the frame table's bytes and pieces. One process
 * per measure: run it several times and take the median.
 *
 * Built against the optimised sandbox library, from the top of the tree:
 *
 *   make ARCH=sandbox
 *   cc -std=gnu11 -O2 -Iinclude -Iarch/sandbox/include \
 *      -Ibuild/sandbox/include -o build/bench/heap_open \
 *      tests/bench/heap_open.c build/sandbox/libkeel.a -lfdt
 *   build/bench/heap_open SIZE_GIB [BASE]
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <asm/sandbox.h>
#include <keel/bootinfo.h>
#include <keel/bootmem.h>
#include <keel/frametable.h>
#include <keel/heap.h>
#include <keel/heap_boot.h>
#include <keel/heap_check.h>
#include <keel/numa.h>

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	static struct bootinfo bi;
	uint64_t gib = argc > 1 ? strtoull(argv[1], NULL, 0) : 4;
	uint64_t base = argc > 2 ? strtoull(argv[2], NULL, 0) : 16ull << 20;
	uint64_t size = gib << 30, t0, t1, t2, t3, t4;

	if (!gib || sandbox_ram_init(base + size)) {
		printf("heap_open: no arena of %llu GiB at %#llx\n",
		       (unsigned long long)gib, (unsigned long long)base);
		return 1;
	}
	bi.node_count = 1;
	t0 = now_ns();
	numa_init(&bi);
	bootmem_init();
	bootmem_add(pa(base), size, 0);
	t1 = now_ns();
	frametable_init(1);
	t2 = now_ns();
	heap_init(HEAP_INIT_LAZY, 1,
		  (const uint8_t(*)[MAX_NUMNODES])bi.distance);
	t3 = now_ns();
	heap_handoff(false);
	t4 = now_ns();
	printf("heap_open: %llu GiB at %#llx: bootmem %.1f us, frametable "
	       "%.1f us, heap_init %.1f us, handoff %.1f us, open %.1f us; "
	       "frame table %llu KiB in %u pieces, %llu free pages\n",
	       (unsigned long long)gib, (unsigned long long)base,
	       (t1 - t0) / 1e3, (t2 - t1) / 1e3, (t3 - t2) / 1e3,
	       (t4 - t3) / 1e3, (t4 - t0) / 1e3,
	       (unsigned long long)frametable_bytes() >> 10,
	       frametable_pieces(),
	       (unsigned long long)heap_stats_all(0).free_pages);
	return 0;
}
