// SPDX-License-Identifier: MIT
/*
 * The cost the deferred chunks move after the handoff (issue 38,
 * common/mm/heap_defer.c): host time of each heap_alloc() right after a
 * lazy handoff of one node of GIB GiB with BAD scattered bad pages
 * (reserved "bad firmware", srand(38)), COUNT allocations of ORDER, none
 * scrubbed; prints the handoff's time and chunks, then the first, the
 * worst and the mean allocation, the longest node-lock hold
 * (heap_set_lock_stats()) and the splits made. The arena is prefaulted
 * (sandbox_ram_prefault(), GIB GiB resident: keep it small) so that no
 * host page fault is timed; the worst of a run is still the host's noise
 * when it is far above the lock hold.
 *
 * Not part of make bench; by hand, from the top of the tree:
 *
 *   make ARCH=sandbox
 *   cc -std=gnu11 -O2 -Iinclude -Iarch/sandbox/include \
 *      -Ibuild/sandbox/include -o build/bench/heap_defer_alloc \
 *      tests/bench/heap_defer_alloc.c build/sandbox/libkeel.a -lfdt
 *   build/bench/heap_defer_alloc BAD ORDER COUNT GIB   (125 9 1000 1)
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <arch/mm.h>
#include <asm/sandbox.h>
#include <keel/bootmem.h>
#include <keel/frametable.h>
#include <keel/heap.h>
#include <keel/heap_boot.h>
#include <keel/heap_check.h>
#include <keel/numa.h>

/* arch/sandbox/mm.c (its declaration is the sandbox's own header's). */
int sandbox_ram_prefault(uint64_t start, uint64_t end);

#define GIB (1ull << 30)
#define LOW (16ull << 20) /* RAM starts here, as the sandbox's */

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

/* One node of @top bytes, @nbad bad pages, handed over lazily. */
static void open_heap(uint64_t top, unsigned int nbad)
{
	struct bootinfo bi = {.node_count = 1};
	uint64_t *pf = calloc(nbad + 1, sizeof(*pf)), t0;
	uint64_t lo = LOW >> 12, n = (top >> 12) - lo;
	struct heap_stats st;

	if (!pf || sandbox_ram_init(top) || sandbox_ram_prefault(LOW, top)) {
		printf("heap_defer_alloc: no arena of %llu bytes\n",
		       (unsigned long long)top);
		exit(1);
	}
	numa_init(&bi);
	bootmem_init();
	bootmem_add(pa(LOW), top - LOW, 0);
	srand(38);
	for (unsigned int i = 0; i < nbad; i++)
		pf[i] = lo +
			((((uint64_t)rand() << 31) ^ (uint64_t)rand()) % n);
	qsort(pf, nbad, sizeof(*pf), cmp_u64); /* keel/string.h */
	for (unsigned int i = 0; i < nbad; i++)
		if (!i || pf[i] != pf[i - 1])
			bootmem_reserve(pa(pf[i] << 12), 4096, "bad firmware");
	free(pf);
	frametable_init(1);
	heap_init(HEAP_INIT_LAZY, 1, NULL);
	t0 = now_ns();
	heap_handoff(false);
	t0 = now_ns() - t0;
	heap_stats(0, 0, &st);
	printf("bad %u: handoff %llu ns, %llu chunks, %llu deferred\n", nbad,
	       (unsigned long long)t0, (unsigned long long)st.chunks,
	       (unsigned long long)st.deferred_chunks);
}

int main(int argc, char **argv)
{
	unsigned int nbad = argc > 1 ? (unsigned int)atoi(argv[1]) : 125;
	unsigned int order = argc > 2 ? (unsigned int)atoi(argv[2]) : 9;
	unsigned int count = argc > 3 ? (unsigned int)atoi(argv[3]) : 1000;
	uint64_t top = (argc > 4 ? strtoull(argv[4], NULL, 0) : 1) * GIB;
	uint64_t worst = 0, first = 0, sum = 0;
	unsigned int worst_i = 0, n = 0;
	struct heap_stats st;

	open_heap(top, nbad);
	heap_set_lock_stats(true);
	for (unsigned int i = 0; i < count; i++) {
		uint64_t t0 = now_ns(), dt;
		struct page_info *pg =
			heap_alloc(order, 0, 0, HEAP_NO_SCRUB, NULL);

		dt = now_ns() - t0;
		if (!pg)
			break;
		n++;
		sum += dt;
		first = i ? first : dt;
		if (dt > worst) {
			worst = dt;
			worst_i = i;
		}
	}
	heap_stats(0, 0, &st);
	printf("order %u: %u allocations, first %llu ns, worst %llu ns (#%u), "
	       "mean %llu ns, longest lock hold %llu ticks, %llu splits, "
	       "%llu deferred left\n",
	       order, n, (unsigned long long)first, (unsigned long long)worst,
	       worst_i, (unsigned long long)(n ? sum / n : 0),
	       (unsigned long long)st.lock_max_ticks,
	       (unsigned long long)st.deferred_splits,
	       (unsigned long long)st.deferred_chunks);
	return 0;
}
