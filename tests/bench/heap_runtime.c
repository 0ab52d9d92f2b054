// SPDX-License-Identifier: MIT
/*
 * The heap at runtime (issue 37; the `runtime` part of make bench, run by
 * scripts/bench-runtime.py): a Linux host that links libkeel-heap.a as a
 * hypervisor would (its hooks: tests/embed/host.c, the embed test's own,
 * a pthread mutex as the heap's lock, or with HOST_LOCK=ticket a ticket
 * lock as keel's arches give), measured beside an in-tree reference allocator (one free
 * list per order behind one global lock: runtime_ref.c) in the same run.
 *
 *   heap_runtime run [ROUNDS [OPS [WORKLOAD]]]
 *                                     the runtime table, JSON lines (one
 *                                     workload: 0, 9 or churn)
 *   heap_runtime open MIB [--touched FILE | --prefault FILE]
 *                                     open a heap of MIB in this (fresh)
 *                                     process, one JSON line
 *   heap_runtime starve [ROUNDS [OPS]]
 *                                     the churn beside a node that is
 *                                     full, one JSON line per round
 *
 * run: workloads order 0 (bursts of 16 allocations then 16 frees), order
 * 9 (bursts of 2: a hypervisor's 2 MiB blocks come a few at a time) and a
 * churn of random orders 0..10 (up to 64 blocks held, allocation or free
 * at random); 1 thread, 2 threads on one node, 2 threads on two nodes
 * (each thread its own CPU id, so its own per-CPU cache; the reference
 * has one pool and one lock whatever the nodes). An operation is one
 * allocation or one free, HEAP_NO_SCRUB and clean frees (the allocator is
 * measured, not zeroing), OPS per thread (default 400000). Two nodes of
 * 256 MiB, prefaulted (MAP_POPULATE): no host page fault is timed. Each
 * round runs keel then the reference (alternating), each twice: once
 * untimed per operation, for thread CPU time per operation
 * (CLOCK_THREAD_CPUTIME_ID over the whole loop: the host is shared) and
 * node-lock acquisitions per operation (the host's lock hook counts
 * them); once with each operation timed by the cycle counter (the timer's
 * own cost, measured at the start, taken off), for p50 and p99. After
 * each run every block is back: heap_check() and the free count (keel),
 * the free count and every list as it was at the start (reference).
 *
 * open: the time from keel_numa_init() to heap_handoff() returned (and
 * the CPU caches on) for one node of MIB in a region never touched
 * before (MAP_NORESERVE), wall and thread CPU time and the host's page
 * faults in it: what a host pays to open the heap. --touched FILE: the
 * region's pages the open touched, written to FILE after it;
 * --prefault FILE: those pages touched before the open (keel's own cost,
 * without host page faults).
 *
 * starve: a node under sustained exhaustion must not cost the others.
 * Node 1 is filled (every page allocated); then, each round, the churn
 * runs on CPU 1 (node 0) alone, and again beside CPU 3, which asks node 1
 * for a page (HEAP_EXACT_NODE) in a loop, every ask refused, until the
 * churn is done: thread CPU ns and node locks per churn operation, both
 * ways, and the refusals.
 *
 * Build (make bench-build-runtime does it):
 *   make ARCH=sandbox SANITIZE=0 O=build/sandbox lib-here
 *   gcc -std=gnu11 -O2 -Wall -Wextra -Werror -pthread -Iinclude \
 *       -include build/sandbox/libkeel-heap-config.h \
 *       -o build/bench/heap_runtime tests/bench/heap_runtime.c \
 *       tests/embed/host.c tests/bench/runtime_ref.c \
 *       build/sandbox/libkeel-heap.a
 */
#include <keel/bootmem.h>
#include <keel/cachemaint.h>
#include <keel/frametable.h>
#include <keel/heap.h>
#include <keel/heap_boot.h>
#include <keel/heap_check.h>
#include <keel/numa.h>

#include <inttypes.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>

#include "bench_clock.h"
#include "bench_heap.h"
#include "runtime.h"

#define NODES	   2
#define NODE_BYTES (256ull << 20)
#define HELD_MAX   64
#define MAX_ROUNDS 15
#define MAX_OPS	   2000000u

/* ---- adapter: every call of keel's API the benchmark makes ---------- */
/* (The heap's API is changing: rename here, nowhere else.) */

/* bench_heap.h's heap, the CPU caches on. */
static void keel_open(unsigned int nodes, uint64_t node_bytes)
{
	bench_heap_open(nodes, node_bytes, "heap_runtime");
	heap_set_cpu_caches(true);
}

static uintptr_t keel_get(unsigned int order)
{
	return (uintptr_t)heap_alloc(order, HEAP_ANY_NODE, 0, HEAP_NO_SCRUB,
				     NULL);
}

static void keel_put(uintptr_t h, unsigned int order)
{
	heap_free((struct page_info *)h, order, HEAP_FREE_ZEROED);
}

/* After a run: exact (caches drained by heap_check()), nothing lost. */
static bool keel_whole(uint64_t free_at_open)
{
	return !heap_check() && heap_stats_all(0).free_pages == free_at_open;
}

static uint64_t keel_free(void)
{
	return heap_stats_all(0).free_pages;
}

/* ---- the reference (runtime_ref.c): handles are pfn + 1 ------------- */

static uintptr_t ref_get(unsigned int order)
{
	uint64_t p = ref_alloc(order);

	return p == REF_NONE ? 0 : (uintptr_t)(p + 1);
}

static void ref_put(uintptr_t h, unsigned int order)
{
	ref_free(h - 1, order);
}

static bool ref_back(uint64_t free_at_open)
{
	return ref_free_pages() == free_at_open && ref_whole();
}

struct alloc {
	const char *name;
	uintptr_t (*get)(unsigned int order);
	void (*put)(uintptr_t h, unsigned int order);
	bool (*whole)(uint64_t free_at_open);
	uint64_t free_at_open;
};

static struct alloc allocs[] = {
	{"keel", keel_get, keel_put, keel_whole, 0},
	{"reference", ref_get, ref_put, ref_back, 0},
};

/* ---- time ------------------------------------------------------------ */

static double ns_per_cycle = 1.0;
static uint64_t timer_cost; /* cycles of an empty timed pair (median) */

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* ns_per_cycle against the monotonic clock (50 ms), then timer_cost. */
static void calibrate(void)
{
	uint32_t empty[10001];

	ns_per_cycle = ns_per_cycle_measured();
	for (unsigned int i = 0; i < 10001; i++) {
		uint64_t a = cycles();

		empty[i] = (uint32_t)(cycles() - a);
	}
	qsort(empty, 10001, sizeof(empty[0]), cmp_u32);
	timer_cost = empty[5000];
}

/* ---- the workloads --------------------------------------------------- */

enum workload { ORDER0, ORDER9, CHURN, WORKLOADS };
static const char *const wl_names[] = {"order 0", "order 9", "churn 0..10"};

struct worker {
	const struct alloc *a;
	enum workload w;
	unsigned int cpu, ops_target;
	uint32_t *samples; /* NULL: untimed pass */
	uint64_t ops, nsamples, cpu_ns, failed;
	uint64_t locks[HOST_LOCK_KINDS];
	/* The churn's order-0 operations, and the node locks they took. */
	uint64_t order0_ops, order0_locks;
};

static inline uintptr_t do_get(struct worker *wk, unsigned int order)
{
	uint64_t t0 = wk->samples ? cycles() : 0;
	uintptr_t h = wk->a->get(order);

	if (wk->samples)
		wk->samples[wk->nsamples++] = (uint32_t)(cycles() - t0);
	if (!h)
		wk->failed++;
	return h;
}

static inline void do_put(struct worker *wk, uintptr_t h, unsigned int order)
{
	uint64_t t0 = wk->samples ? cycles() : 0;

	wk->a->put(h, order);
	if (wk->samples)
		wk->samples[wk->nsamples++] = (uint32_t)(cycles() - t0);
}

/* Allocate @n blocks of @order, then free them: 2n operations. */
static void burst(struct worker *wk, unsigned int order, unsigned int n)
{
	uintptr_t h[HELD_MAX];
	unsigned int got = 0;

	for (unsigned int i = 0; i < n; i++) {
		h[got] = do_get(wk, order);
		got += h[got] != 0;
	}
	while (got) {
		got--;
		do_put(wk, h[got], order);
	}
	wk->ops += 2 * n;
}

/* Random orders 0..10, up to HELD_MAX held, alloc or free at random. */
static void churn(struct worker *wk, unsigned int ops)
{
	uintptr_t h[HELD_MAX];
	unsigned int ord[HELD_MAX], n = 0;
	uint64_t x = 0x9e3779b97f4a7c15ull * (wk->cpu + 1);

	for (unsigned int op = 0; op < ops; op++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		uint64_t locks0 = host_lock_count[HOST_LOCK_NODE];
		unsigned int order;

		if (n < HELD_MAX && (n == 0 || (x & 1))) {
			order = ord[n] = (unsigned int)((x >> 8) % 11);
			h[n] = do_get(wk, ord[n]);
			n += h[n] != 0;
		} else {
			unsigned int i = (unsigned int)((x >> 16) % n);

			order = ord[i];
			do_put(wk, h[i], ord[i]);
			n--;
			h[i] = h[n];
			ord[i] = ord[n];
		}
		if (!order) { /* the target: per order-0 operation */
			wk->order0_ops++;
			wk->order0_locks +=
				host_lock_count[HOST_LOCK_NODE] - locks0;
		}
	}
	wk->ops += ops;
	while (n--) /* not counted: the end of the run */
		wk->a->put(h[n], ord[n]);
}

static void *worker_run(void *arg)
{
	struct worker *wk = arg;
	uint64_t t0;

	host_cpu = wk->cpu;
	memset(host_lock_count, 0, sizeof(host_lock_count));
	t0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	if (wk->w == CHURN)
		churn(wk, wk->ops_target);
	else
		while (wk->ops < wk->ops_target)
			if (wk->w == ORDER0)
				burst(wk, 0, 16);
			else
				burst(wk, 9, 2);
	wk->cpu_ns = clock_ns(CLOCK_THREAD_CPUTIME_ID) - t0;
	memcpy(wk->locks, host_lock_count, sizeof(wk->locks));
	return NULL;
}

/* ---- one run, one cell ----------------------------------------------- */

/* Thread placements: the CPUs of each thread (runtime.h: 1, 2 on node 0). */
struct placement {
	const char *name;
	unsigned int threads, cpu[2];
};

static const struct placement placements[] = {
	{"1 thread", 1, {1, 0}},
	{"2 threads, one node", 2, {1, 2}},
	{"2 threads, two nodes", 2, {1, 3}},
};

struct result {
	double cpu_ns, node_locks, ref_locks, p50_ns, p99_ns;
	double order0_ops, order0_locks; /* summed, then locks per op */
	uint64_t failed;
};

static uint32_t *sample_buf[2];

static double percentile(uint32_t *s, uint64_t n, unsigned int pct)
{
	double c;

	if (!n)
		return 0;
	c = (double)s[n * pct / 100] - (double)timer_cost;
	return c > 0 ? c * ns_per_cycle : 0;
}

/* Run @w on @pl with @a; @timed: per-operation samples into @res. */
static void one_run(const struct alloc *a, enum workload w,
		    const struct placement *pl, unsigned int ops, bool timed,
		    struct result *res)
{
	struct worker wk[2];
	pthread_t th[2];
	uint64_t total = 0, all_ops = 0;

	for (unsigned int i = 0; i < pl->threads; i++) {
		wk[i] = (struct worker){.a = a,
					.w = w,
					.cpu = pl->cpu[i],
					.ops_target = ops,
					.samples =
						timed ? sample_buf[i] : NULL};
		pthread_create(&th[i], NULL, worker_run, &wk[i]);
	}
	for (unsigned int i = 0; i < pl->threads; i++) {
		pthread_join(th[i], NULL);
		res->failed += wk[i].failed;
		all_ops += wk[i].ops;
		if (timed) {
			/* pooled: thread 1's samples after thread 0's */
			memmove(sample_buf[0] + total, sample_buf[i],
				wk[i].nsamples * sizeof(uint32_t));
			total += wk[i].nsamples;
			continue;
		}
		res->cpu_ns +=
			(double)wk[i].cpu_ns / (double)wk[i].ops / pl->threads;
		res->node_locks += (double)wk[i].locks[HOST_LOCK_NODE];
		res->ref_locks += (double)wk[i].locks[HOST_LOCK_REF];
		res->order0_ops += (double)wk[i].order0_ops;
		res->order0_locks += (double)wk[i].order0_locks;
	}
	if (timed) {
		qsort(sample_buf[0], total, sizeof(uint32_t), cmp_u32);
		res->p50_ns = percentile(sample_buf[0], total, 50);
		res->p99_ns = percentile(sample_buf[0], total, 99);
	} else {
		res->node_locks /= (double)all_ops;
		res->ref_locks /= (double)all_ops;
		if (res->order0_ops)
			res->order0_locks /= res->order0_ops;
	}
	if (!a->whole(a->free_at_open)) {
		fprintf(stderr, "heap_runtime: %s lost memory (%s, %s)\n",
			a->name, wl_names[w], pl->name);
		exit(1);
	}
}

static void print_list(const char *key, const struct result *r,
		       unsigned int rounds, size_t off)
{
	printf(", \"%s\": [", key);
	for (unsigned int i = 0; i < rounds; i++)
		printf("%s%.2f", i ? ", " : "",
		       *(const double *)((const char *)&r[i] + off));
	printf("]");
}

/* One JSON line: every round of one allocator in one cell. */
static void print_cell(const struct alloc *a, enum workload w,
		       const struct placement *pl, const struct result *r,
		       unsigned int rounds)
{
	uint64_t failed = 0;

	for (unsigned int i = 0; i < rounds; i++)
		failed += r[i].failed;
	printf("{\"alloc\": \"%s\", \"workload\": \"%s\", \"placement\": "
	       "\"%s\", \"threads\": %u, \"failed\": %llu",
	       a->name, wl_names[w], pl->name, pl->threads,
	       (unsigned long long)failed);
	print_list("cpu_ns", r, rounds, offsetof(struct result, cpu_ns));
	print_list("p50_ns", r, rounds, offsetof(struct result, p50_ns));
	print_list("p99_ns", r, rounds, offsetof(struct result, p99_ns));
	printf(", \"node_locks_per_op\": [");
	for (unsigned int i = 0; i < rounds; i++)
		printf("%s%.4f", i ? ", " : "", r[i].node_locks);
	printf("], \"ref_locks_per_op\": [");
	for (unsigned int i = 0; i < rounds; i++)
		printf("%s%.4f", i ? ", " : "", r[i].ref_locks);
	printf("], \"order0_locks_per_op\": [");
	for (unsigned int i = 0; i < rounds; i++)
		printf("%s%.4f", i ? ", " : "", r[i].order0_locks);
	printf("]}\n");
}

/* Every cell: ROUNDS rounds of keel then the reference, alternating. */
static void run_all(unsigned int rounds, unsigned int ops, int only)
{
	static struct result res[2][MAX_ROUNDS];

	for (unsigned int w = 0; w < WORKLOADS; w++)
		for (size_t p = 0; p < sizeof(placements) / sizeof(*placements);
		     p++) {
			if (only >= 0 && (unsigned int)only != w)
				break;
			memset(res, 0, sizeof(res));
			for (unsigned int r = 0; r < rounds; r++)
				for (unsigned int a = 0; a < 2; a++) {
					one_run(&allocs[a], w, &placements[p],
						ops, false, &res[a][r]);
					one_run(&allocs[a], w, &placements[p],
						ops, true, &res[a][r]);
				}
			for (unsigned int a = 0; a < 2; a++)
				print_cell(&allocs[a], w, &placements[p],
					   res[a], rounds);
		}
}

/* ---- main ------------------------------------------------------------ */

static void map_region(uint64_t bytes, int flags)
{
	host.bytes = bytes;
	host.base = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | flags, -1, 0);
	if (host.base == MAP_FAILED) {
		fprintf(stderr, "heap_runtime: mmap of %llu bytes failed\n",
			(unsigned long long)bytes);
		exit(2);
	}
}

static int cmd_run(unsigned int rounds, unsigned int ops, int only)
{
	map_region(NODES * NODE_BYTES, MAP_POPULATE);
	for (unsigned int i = 0; i < 2; i++)
		sample_buf[i] =
			malloc(2 * ((size_t)ops + 64) * sizeof(uint32_t));
	if (!sample_buf[0] || !sample_buf[1] ||
	    ref_open(NODES * NODE_BYTES >> 12)) {
		fprintf(stderr, "heap_runtime: out of memory\n");
		return 2;
	}
	keel_open(NODES, NODE_BYTES);
	allocs[0].free_at_open = keel_free();
	allocs[1].free_at_open = ref_free_pages();
	calibrate();
	printf("{\"ns_per_cycle\": %.4f, \"timer_cost_cycles\": %llu, "
	       "\"rounds\": %u, \"ops\": %u, \"node_bytes\": %llu, "
	       "\"nodes\": %u, \"node_lock_inits\": %llu, \"lock\": \"%s\"}\n",
	       ns_per_cycle, (unsigned long long)timer_cost, rounds, ops,
	       (unsigned long long)NODE_BYTES, NODES,
	       (unsigned long long)host.lock_inits[HOST_LOCK_NODE],
	       host_lock_name());
	run_all(rounds, ops, only);
	return 0;
}

/*
 * Open a heap of @mib on one node in this (fresh) process. @touched
 * (may be NULL): the region is never touched before; the pages the open
 * touched (resident after it: mincore()) are written there, one number
 * a line. @prefault (may be NULL): the pages it names are touched first,
 * so the open takes no host page fault in the region (what hardware
 * pays: a first touch of a page here is a host page fault, 1.3 us, that
 * hardware does not have). The open is deterministic: the same pages.
 */
static int cmd_open(uint64_t mib, const char *touched, const char *prefault)
{
	size_t np = (size_t)(mib << 20) >> 12;
	struct rusage r0, r1;
	uint64_t w0, c0, w1, c1, pg, n = 0;
	unsigned char *v;
	FILE *f;

	map_region(mib << 20, MAP_NORESERVE);
	if (prefault) {
		f = fopen(prefault, "r");
		if (!f)
			return 2;
		while (fscanf(f, "%" SCNu64, &pg) == 1 && pg < np) {
			((volatile char *)host.base)[pg << 12] = 0;
			n++;
		}
		fclose(f);
	}
	getrusage(RUSAGE_SELF, &r0);
	w0 = clock_ns(CLOCK_MONOTONIC);
	c0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	keel_open(1, mib << 20);
	c1 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	w1 = clock_ns(CLOCK_MONOTONIC);
	getrusage(RUSAGE_SELF, &r1);
	printf("{\"mib\": %llu, \"wall_ns\": %llu, \"cpu_ns\": %llu, "
	       "\"faults\": %ld, \"free_pages\": %llu, \"prefaulted\": %llu}\n",
	       (unsigned long long)mib, (unsigned long long)(w1 - w0),
	       (unsigned long long)(c1 - c0), r1.ru_minflt - r0.ru_minflt,
	       (unsigned long long)keel_free(), (unsigned long long)n);
	if (touched) {
		v = malloc(np);
		f = fopen(touched, "w");
		if (!v || !f || mincore(host.base, mib << 20, v))
			return 2;
		for (pg = 0; pg < np; pg++)
			if (v[pg] & 1)
				fprintf(f, "%" PRIu64 "\n", pg);
		if (fclose(f))
			return 2;
		free(v);
	}
	return keel_free() ? 0 : 1;
}

/* ---- starve: the churn beside a full node ---------------------------- */

static volatile int starve_stop;

/* CPU 3: ask full node 1 for a page until told to stop. */
struct starver {
	uint64_t refused, cpu_ns;
};

static void *starve_neighbour(void *arg)
{
	struct starver *sv = arg;
	uint64_t t0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	struct page_info *pg;

	host_cpu = 3;
	while (!starve_stop) {
		pg = heap_alloc(0, 1, 0, HEAP_EXACT_NODE | HEAP_NO_SCRUB, NULL);
		if (pg)
			heap_free(pg, 0, HEAP_FREE_ZEROED);
		else
			sv->refused++;
	}
	sv->cpu_ns = clock_ns(CLOCK_THREAD_CPUTIME_ID) - t0;
	return NULL;
}

/* The churn on CPU 1, alone or beside the neighbour: one JSON half. */
static void starve_half(unsigned int ops, bool beside, const char *key)
{
	struct worker wk = {
		.a = &allocs[0], .w = CHURN, .cpu = 1, .ops_target = ops};
	struct starver sv = {0};
	pthread_t nb, th;

	starve_stop = 0;
	if (beside)
		pthread_create(&nb, NULL, starve_neighbour, &sv);
	pthread_create(&th, NULL, worker_run, &wk);
	pthread_join(th, NULL);
	starve_stop = 1;
	if (beside)
		pthread_join(nb, NULL);
	printf("%s\"%s\": {\"cpu_ns\": %.2f, \"node_locks_per_op\": %.4f, "
	       "\"failed\": %llu, \"refused\": %llu, "
	       "\"ns_per_refusal\": %.2f}",
	       beside ? ", " : "", key, (double)wk.cpu_ns / (double)wk.ops,
	       (double)wk.locks[HOST_LOCK_NODE] / (double)wk.ops,
	       (unsigned long long)wk.failed, (unsigned long long)sv.refused,
	       sv.refused ? (double)sv.cpu_ns / (double)sv.refused : 0.0);
}

static int cmd_starve(unsigned int rounds, unsigned int ops)
{
	size_t cap = NODE_BYTES >> 12, n = 0;
	struct page_info **held = malloc(cap * sizeof(*held));
	struct page_info *pg;

	map_region(NODES * NODE_BYTES, MAP_POPULATE);
	if (!held)
		return 2;
	keel_open(NODES, NODE_BYTES);
	allocs[0].free_at_open = keel_free();
	host_cpu = 3; /* node 1's CPU fills it, then gives its cache back */
	for (unsigned int order = 9;; order = 0) {
		while (n < cap &&
		       (pg = heap_alloc(order, 1, 0,
					HEAP_EXACT_NODE | HEAP_NO_SCRUB, NULL)))
			held[n++] = pg;
		if (!order)
			break;
	}
	heap_drain_caches();
	for (unsigned int r = 0; r < rounds; r++) {
		printf("{\"round\": %u, ", r);
		starve_half(ops, false, "alone");
		starve_half(ops, true, "beside_full_node");
		printf("}\n");
	}
	while (n--)
		heap_free(held[n], held[n]->order, HEAP_FREE_ZEROED);
	free(held);
	return keel_whole(allocs[0].free_at_open) ? 0 : 1;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0); /* each line as it is measured */
	host.name = "heap_runtime";
	host.verbose = true;  /* keel's warnings on stderr */
	host.coherent = true; /* no maintenance: the allocator is measured */
	if (argc >= 2 && !strcmp(argv[1], "run")) {
		unsigned int rounds = argc > 2 ? (unsigned)atoi(argv[2]) : 5;
		unsigned int ops = argc > 3 ? (unsigned)atoi(argv[3]) : 400000;
		const char *w = argc > 4 ? argv[4] : "all";
		int only = !strcmp(w, "0")	 ? ORDER0
			   : !strcmp(w, "9")	 ? ORDER9
			   : !strcmp(w, "churn") ? CHURN
						 : -1;

		if (rounds < 1 || rounds > MAX_ROUNDS || ops < 64 ||
		    ops > MAX_OPS || (only < 0 && strcmp(w, "all"))) {
			fprintf(stderr,
				"heap_runtime: rounds 1..%u, ops "
				"64..%u, workload 0, 9, churn or all\n",
				MAX_ROUNDS, MAX_OPS);
			return 2;
		}
		return cmd_run(rounds, ops, only);
	}
	if (argc >= 2 && argc <= 4 && !strcmp(argv[1], "starve")) {
		int rounds = argc > 2 ? atoi(argv[2]) : 5;
		int ops = argc > 3 ? atoi(argv[3]) : 400000;

		if (rounds >= 1 && rounds <= MAX_ROUNDS && ops >= 64 &&
		    ops <= (int)MAX_OPS)
			return cmd_starve((unsigned int)rounds,
					  (unsigned int)ops);
	}
	if ((argc == 3 || argc == 5) && !strcmp(argv[1], "open") &&
	    atoll(argv[2]) >= 64 &&
	    (argc == 3 || !strcmp(argv[3], "--touched") ||
	     !strcmp(argv[3], "--prefault")))
		return cmd_open((uint64_t)atoll(argv[2]),
				argc == 5 && argv[3][2] == 't' ? argv[4] : NULL,
				argc == 5 && argv[3][2] == 'p' ? argv[4]
							       : NULL);
	fprintf(stderr, "usage: heap_runtime run [ROUNDS [OPS [WORKLOAD]]] | "
			"open MIB (>= 64) [--touched FILE | --prefault FILE] | "
			"starve [ROUNDS [OPS]]\n");
	return 2;
}
