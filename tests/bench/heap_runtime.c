// SPDX-License-Identifier: MIT
/*
 * The heap at runtime (issue 37): host CPU time per operation of
 * heap_alloc()/heap_free() in the sandbox, on a prefaulted arena (the
 * host's page faults are out), for order 0, order 9 and a churn of
 * random orders 0..10; 1 thread, then 2 threads on one node (each thread
 * its own CPU id, so its own per-CPU cache). Order 0: bursts of 16
 * allocations then 16 frees; order 9: bursts of 2 (a hypervisor's 2 MiB
 * blocks come a few at a time); churn: up to 64 blocks held, allocation
 * or free at random. Thread CPU time
 * (CLOCK_THREAD_CPUTIME_ID) per operation, an operation being one
 * allocation or one free; HEAP_NO_SCRUB and clean frees, so that the
 * allocator is measured, not zeroing. Node 0: 512 MiB, node 1: 64 MiB.
 *
 * Built against the optimised sandbox library (the sandbox arch's hooks:
 * keel's ticket lock), run from the top of the tree:
 *
 *   make ARCH=sandbox
 *   cc -std=gnu11 -O2 -pthread -Iinclude -Iarch/sandbox/include \
 *      -Ibuild/sandbox/include -DHEAP_RUNTIME_NEW \
 *      -o build/bench/heap_runtime tests/bench/heap_runtime.c \
 *      build/sandbox/libkeel.a -lfdt
 *   build/bench/heap_runtime [ROUNDS [MAX_THREADS]]
 *
 * Without -DHEAP_RUNTIME_NEW it builds against the code before issue 37
 * (no per-CPU caches, no heap_set_cpu_node()), for the comparison. With
 * -DHOST_MUTEX (and -DHEAP_RUNTIME_NEW) it is a host that gives the heap
 * its own lock, a pthread mutex, instead of the sandbox's ticket lock:
 * its arch_lock*() are linked before the archive's.
 * Output: one line per workload and thread count, the median of ROUNDS
 * (default 5) runs: ns per operation (mean over the threads), and the
 * node-lock acquisitions per operation where the heap counts them.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <arch/mm.h>
#include <asm/sandbox.h>
#include <keel/bootinfo.h>
#include <keel/bootmem.h>
#include <keel/cachemaint.h>
#include <keel/frametable.h>
#include <keel/heap.h>
#include <keel/heap_boot.h>
#include <keel/heap_check.h>
#include <keel/numa.h>

#ifndef HEAP_RUNTIME_NEW
/* The API before issue 37 §3: no policy parameter, a bool for the state. */
#define heap_alloc(order, node, bits, flags, cm) \
	heap_alloc(order, node, bits, flags)
#define HEAP_FREE_ZEROED false
#endif

/* arch/sandbox/cpu.c: what arch_cpu_id() returns on this thread. */
void sandbox_set_cpu_id(unsigned int cpu, uint64_t hwid);

#ifdef HOST_MUTEX
#include <arch/lock.h>

_Static_assert(sizeof(pthread_mutex_t) <= sizeof(arch_lock_t), "fits");

void arch_lock_init(arch_lock_t *l)
{
	pthread_mutex_init((pthread_mutex_t *)l->words, NULL);
}

void arch_lock(arch_lock_t *l)
{
	pthread_mutex_lock((pthread_mutex_t *)l->words);
}

void arch_unlock(arch_lock_t *l)
{
	pthread_mutex_unlock((pthread_mutex_t *)l->words);
}
#endif

#define BASE	   (16ull << 20)
#define NODE0	   (512ull << 20)
#define NODE1	   (64ull << 20)
#define OPS	   400000u
#define HELD_MAX   64
#define MAX_ROUNDS 15

enum workload { ORDER0, ORDER9, CHURN };
static const char *const names[] = {"order 0", "order 9", "churn 0..10"};

static struct bootinfo bi;

static void open_heap(void)
{
	uint64_t top = BASE + NODE0 + NODE1;

	if (sandbox_ram_init(top)) {
		printf("heap_runtime: no arena\n");
		exit(1);
	}
	/* Prefault every page: no host page fault is timed. */
	memset(phys_to_virt(pa(0)), 0, top);
	bi.node_count = 2;
	bi.have_distance = true;
	bi.distance[0][0] = bi.distance[1][1] = 10;
	bi.distance[0][1] = bi.distance[1][0] = 20;
	numa_init(&bi);
	bootmem_init();
	bootmem_add(pa(BASE), NODE0, 0);
	bootmem_add(pa(BASE + NODE0), NODE1, 1);
	frametable_init(2);
	heap_init(HEAP_INIT_LAZY, 2,
		  (const uint8_t(*)[MAX_NUMNODES])bi.distance);
	heap_handoff(false);
#ifdef HEAP_RUNTIME_NEW
	heap_set_cpu_node(1, 0);
	heap_set_cpu_node(2, 0);
	heap_set_cpu_caches(true);
#endif
}

struct worker {
	unsigned int cpu;
	enum workload w;
	uint64_t ops, cpu_ns, failed;
};

static uint64_t thread_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Allocate @n blocks of @order, then free them: 2n operations. */
static void burst(struct worker *wk, unsigned int order, unsigned int n)
{
	struct page_info *pg[HELD_MAX];
	unsigned int got = 0;

	for (unsigned int i = 0; i < n; i++) {
		pg[got] = heap_alloc(order, 0, 0, HEAP_NO_SCRUB, NULL);
		if (pg[got])
			got++;
		else
			wk->failed++;
	}
	while (got)
		heap_free(pg[--got], order, HEAP_FREE_ZEROED);
	wk->ops += 2 * n;
}

/* Random orders 0..10, up to HELD_MAX held, alloc and free at random. */
static void churn(struct worker *wk, unsigned int ops)
{
	struct page_info *pg[HELD_MAX];
	unsigned int ord[HELD_MAX], n = 0;
	uint64_t x = 0x9e3779b97f4a7c15ull * (wk->cpu + 1);

	for (unsigned int op = 0; op < ops; op++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		if (n < HELD_MAX && (n == 0 || (x & 1))) {
			unsigned int k = (unsigned int)((x >> 8) % 11);

			pg[n] = heap_alloc(k, 0, 0, HEAP_NO_SCRUB, NULL);
			if (!pg[n]) {
				wk->failed++;
				continue;
			}
			ord[n++] = k;
		} else {
			unsigned int i = (unsigned int)((x >> 16) % n);

			heap_free(pg[i], ord[i], HEAP_FREE_ZEROED);
			pg[i] = pg[--n];
			ord[i] = ord[n];
		}
	}
	while (n--)
		heap_free(pg[n], ord[n], HEAP_FREE_ZEROED);
	wk->ops += ops;
}

static void *run(void *arg)
{
	struct worker *wk = arg;
	uint64_t t0;

	sandbox_set_cpu_id(wk->cpu, wk->cpu);
	t0 = thread_ns();
	if (wk->w == CHURN)
		churn(wk, OPS);
	else
		for (unsigned int r = 0; r < OPS / 32; r++)
			if (wk->w == ORDER0)
				burst(wk, 0, 16);
			else
				for (unsigned int i = 0; i < 8; i++)
					burst(wk, 9, 2);
	wk->cpu_ns = thread_ns() - t0;
	return NULL;
}

static uint64_t locks(void)
{
	uint64_t sum = 0;
#ifdef HEAP_RUNTIME_NEW
	struct heap_stats st;

	for (uint32_t n = 0; n < 2; n++)
		if (!heap_stats(n, 0, &st))
			sum += st.locks;
#endif
	return sum;
}

/* One run: ns per operation (mean of the threads), lock acquisitions. */
static double one_run(enum workload w, unsigned int threads, double *lpo)
{
	struct worker wk[2];
	pthread_t th[2];
	uint64_t l0 = locks(), ops = 0;
	double ns = 0;

	for (unsigned int i = 0; i < threads; i++) {
		wk[i] = (struct worker){.cpu = i + 1, .w = w};
		pthread_create(&th[i], NULL, run, &wk[i]);
	}
	for (unsigned int i = 0; i < threads; i++) {
		pthread_join(th[i], NULL);
		ns += (double)wk[i].cpu_ns / (double)wk[i].ops / threads;
		ops += wk[i].ops;
		if (wk[i].failed)
			printf("heap_runtime: %llu allocations failed\n",
			       (unsigned long long)wk[i].failed);
	}
	*lpo = (double)(locks() - l0) / (double)ops;
	if (heap_check()) {
		printf("heap_runtime: heap_check() found problems\n");
		exit(1);
	}
	return ns;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	unsigned int rounds = argc > 1 ? (unsigned int)atoi(argv[1]) : 5;
	unsigned int max_threads = argc > 2 ? (unsigned int)atoi(argv[2]) : 2;

	if (rounds < 1 || rounds > MAX_ROUNDS)
		rounds = 5;
	setvbuf(stdout, NULL, _IOLBF, 0); /* each line as it is measured */
	open_heap();
	printf("| workload | threads on node 0 | ns/op (median of %u) | "
	       "node locks/op |\n|---|---|---|---|\n",
	       rounds);
	for (unsigned int w = ORDER0; w <= CHURN; w++)
		for (unsigned int t = 1; t <= 2 && t <= max_threads; t++) {
			double v[MAX_ROUNDS], lpo = 0;

			for (unsigned int r = 0; r < rounds; r++)
				v[r] = one_run(w, t, &lpo);
			qsort(v, rounds, sizeof(v[0]), cmp_double);
			printf("| %s | %u | %.1f | %.3f |\n", names[w], t,
			       v[rounds / 2], lpo);
		}
	return 0;
}
