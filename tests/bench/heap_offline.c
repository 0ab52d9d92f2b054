// SPDX-License-Identifier: MIT
/*
 * Memory that fails (issue 38 §2, the `ras` benchmark): host time of one
 * heap_offline() of a page in a free chunk of order 0, 9 and 18 (1 GiB),
 * and the page entries it writes (heap_stats()'s offline_writes). The
 * page is brought back by heap_online() after each offline (untimed),
 * which merges the chunk whole again, so every offline starts from the
 * same single free chunk; the same page every time, after a warm-up, so
 * that no host page fault of the frame table is timed. Each offline is
 * timed alone (CLOCK_MONOTONIC, the clock's own cost subtracted); the
 * line gives the median of REPS offlines and its ratio to order 0.
 * For scale, the last column is what a rescan of the chunk's page
 * entries costs (Xen's offline_page() reads all 2^order of them): one
 * read of each, timed the same way.
 *
 * Target (DESIGN §9): order 18 <= 20x order 0.
 *
 * Built against the optimised sandbox library by `make bench-build-ras`
 * (tests/bench.mk; scripts/bench-ras.py runs it for `make bench`'s part
 * ras), or by hand, from the top of the tree:
 *
 *   make ARCH=sandbox
 *   cc -std=gnu11 -O2 -Iinclude -Iarch/sandbox/include \
 *      -Ibuild/sandbox/include -o build/bench/heap_offline \
 *      tests/bench/heap_offline.c build/sandbox/libkeel.a -lfdt
 *   build/bench/heap_offline [REPS]
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

#define GIB	 (1ull << 30)
#define TOP	 (4 * GIB) /* bootmem's frame table at the top */
#define MAX_REPS 200000u

/* The free chunks measured: [pfn, pfn + 2^order), one each. */
static const struct {
	unsigned int order;
	uint64_t pfn;
} chunk[] = {
	{0, (32ull << 20) >> 12},
	{9, (16ull << 20) >> 12},
	{18, GIB >> 12},
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int cmp_u64_host(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static uint64_t median(uint64_t *v, unsigned int n)
{
	qsort(v, n, sizeof(v[0]), cmp_u64_host);
	return v[n / 2];
}

static void open_heap(void)
{
	struct bootinfo bi = {.node_count = 1};

	if (sandbox_ram_init(TOP)) {
		printf("heap_offline: no arena\n");
		exit(1);
	}
	numa_init(&bi);
	bootmem_init();
	bootmem_add(pa(16ull << 20), TOP - (16ull << 20), 0);
	frametable_init(1);
	heap_init(HEAP_INIT_LAZY, 1, NULL);
	/* Only the chunks measured are the heap's. */
	for (unsigned int i = 0; i < sizeof(chunk) / sizeof(chunk[0]); i++)
		heap_add_range(0, pfn(chunk[i].pfn),
			       pfn(chunk[i].pfn + (1ull << chunk[i].order)),
			       false);
}

static uint64_t writes(void)
{
	struct heap_stats st;

	heap_stats(0, 0, &st);
	return st.offline_writes;
}

static uint64_t v[MAX_REPS];

/* The clock's own cost: the median of an empty timed region. */
static uint64_t clock_cost(unsigned int reps)
{
	for (unsigned int r = 0; r < reps; r++) {
		uint64_t t0 = now_ns();

		v[r] = now_ns() - t0;
	}
	return median(v, reps);
}

/* Median ns of one offline of @p (and the page entries it wrote). */
static uint64_t offline_ns(uint64_t p, unsigned int reps, uint64_t *w)
{
	for (unsigned int r = 0; r < reps + reps / 10; r++) {
		uint64_t w0 = writes(), t0 = now_ns(), t1;

		if (heap_offline(pfn(p), HEAP_BAD_SOFT)) {
			printf("heap_offline: pfn %#llx refused\n",
			       (unsigned long long)p);
			exit(1);
		}
		t1 = now_ns();
		*w = writes() - w0;
		if (r >= reps / 10) /* the first tenth warms up */
			v[r - reps / 10] = t1 - t0;
		if (heap_online(pfn(p))) {
			printf("heap_online: pfn %#llx refused\n",
			       (unsigned long long)p);
			exit(1);
		}
	}
	return median(v, reps);
}

/* Median ns of reading every page entry of [@h, @h + 2^@k) once. */
static uint64_t rescan_ns(uint64_t h, unsigned int k, unsigned int reps)
{
	volatile uint8_t sink = 0;

	for (unsigned int r = 0; r < reps; r++) {
		uint64_t t0 = now_ns();
		struct page_info *pg = pfn_to_page(pfn(h));

		for (uint64_t q = h; q < h + (1ull << k); q++) {
			pg = pfn_to_page_next(pg, q);
			sink = (uint8_t)(sink + pg->state);
		}
		v[r] = now_ns() - t0;
	}
	(void)sink;
	return median(v, reps);
}

int main(int argc, char **argv)
{
	unsigned int reps = argc > 1 ? (unsigned int)atoi(argv[1]) : 20000;
	uint64_t base = 0, clk;

	if (reps < 10 || reps > MAX_REPS / 2)
		reps = 20000;
	setvbuf(stdout, NULL, _IOLBF, 0);
	open_heap();
	clk = clock_cost(reps);
	printf("| free chunk order | page entries written | ns/offline "
	       "(median of %u) | x order 0 | rescan of its entries, ns |\n"
	       "|---|---|---|---|---|\n",
	       reps);
	for (unsigned int i = 0; i < sizeof(chunk) / sizeof(chunk[0]); i++) {
		unsigned int k = chunk[i].order;
		/* A middle page: every level of the halving is done. */
		uint64_t p = chunk[i].pfn + (k ? (1ull << (k - 1)) + 1 : 0);
		uint64_t w = 0, ns = offline_ns(p, reps, &w);
		uint64_t scan = rescan_ns(chunk[i].pfn, k, k > 9 ? 20 : reps);

		ns = ns > clk ? ns - clk : 0;
		scan = scan > clk ? scan - clk : 0;
		if (!k)
			base = ns ? ns : 1;
		printf("| %u | %llu | %llu | %.1f | %llu |\n", k,
		       (unsigned long long)w, (unsigned long long)ns,
		       (double)ns / (double)base, (unsigned long long)scan);
	}
	if (heap_check()) {
		printf("heap_offline: heap_check() found problems\n");
		return 1;
	}
	return 0;
}
