// SPDX-License-Identifier: MIT
/*
 * The heap after years of churn (issue 37; a subsection of the `runtime`
 * part of make bench, run by scripts/bench-aging.py): a Linux host that
 * links libkeel-heap.a as tests/bench/heap_runtime.c does (its hooks:
 * tests/embed/host.c, a pthread mutex as the heap's lock) and runs a
 * hypervisor-like mix on 2 threads for a long time, printing one JSON
 * line per epoch, so that a drift (slower, more fragmented) shows.
 *
 *   heap_aging run NODES EPOCHS OPS [SEED]
 *       NODES 1 (one node of 512 MiB) or 2 (two of 256 MiB); 2 threads
 *       (CPU 1 on node 0; CPU 2 on node 0, or CPU 3 on node 1), each
 *       EPOCHS x OPS operations; SEED: the random streams' (default 1).
 *       AGING_NO_CACHES=1 in the environment: the per-CPU caches off
 *       (heap_set_cpu_caches(false)), for comparison.
 *
 * The mix, per thread (an operation: one allocation or one free call):
 *  - domains, one operation in DOM_EVERY: created (an owned extent
 *    of 4 KiB to 32 MiB, not a power of two in general, cut as keel's
 *    domain build cuts it: the largest naturally aligned blocks from
 *    guest address 0, none above 2 MiB, smaller ones when the heap has
 *    none that big; heap_alloc_owned(), HEAP_NO_SCRUB | HEAP_NO_FLUSH:
 *    guest memory is zeroed by its builder, on several CPUs; plus its
 *    page-table pages, order 0, one per 512 pages and one more) or
 *    destroyed (every extent back, dirty: heap_free_owned(); its tables
 *    back); which one steers the thread's occupancy to its share of
 *    OCC_LO..OCC_HI of the heap's pages;
 *  - anonymous blocks of random orders 0..10 (order 0 half of the
 *    time, the 2 MiB order one time in 16, else 1..10), short-lived:
 *    up to SHORT_MAX held, allocated or freed at random;
 *  - long-lived anonymous blocks, as page tables are: TABLE_MAX of
 *    them (order 0, one in 32 of order 9), one replaced (freed, another
 *    allocated) one operation in TABLE_EVERY (mean life: about 2.6e5
 *    operations), and PERSIST_MAX more replaced one in PERSIST_EVERY
 *    (about 1.7e7 operations: they outlive epochs); all of them taken
 *    before the first epoch, as a boot takes its tables (not counted),
 *    so that their number is steady and only their places age.
 * Anonymous blocks: HEAP_NO_SCRUB, freed HEAP_FREE_ZEROED (the
 * allocator is measured, not zeroing: no page is written); domains leave
 * their memory dirty, which nobody scrubs (the library has no idle
 * scrub): the dirty pages are counted per epoch.
 *
 * Per epoch one JSON line: the operations so far (per thread), thread
 * CPU ns per operation (both threads, over the epoch), p50/p99 per
 * operation (one operation in SAMPLE_EVERY timed by the cycle counter,
 * a log-linear histogram of 1/16 buckets), node-lock acquisitions per
 * operation (the host's lock hook), failed allocations, then the heap's
 * state, SAMPLES times an epoch with both threads stopped, averaged: the
 * pages in the per-CPU caches, the free and dirty pages, the occupancy,
 * and the walk of every free chunk (which gives the caches back first,
 * as every walk does): free_2m_share (free pages in chunks of 2 MiB and
 * larger over free pages), the largest free order (and its lowest) and
 * the free chunk count. At the end every block is freed and one more line
 * says whether heap_check() found nothing, the free count is what it was
 * at the start and the largest free order came back.
 *
 * Build (make bench-build-runtime does it):
 *   make ARCH=sandbox SANITIZE=0 O=build/sandbox lib-here
 *   gcc -std=gnu11 -O2 -Wall -Wextra -Werror -pthread -Iinclude \
 *       -include build/sandbox/libkeel-heap-config.h \
 *       -o build/bench/heap_aging tests/bench/heap_aging.c \
 *       tests/embed/host.c build/sandbox/libkeel-heap.a
 */
#include <keel/bootmem.h>
#include <keel/cachemaint.h>
#include <keel/frametable.h>
#include <keel/heap.h>
#include <keel/heap_boot.h>
#include <keel/heap_check.h>
#include <keel/numa.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "../embed/embed.h"
#include "bench_clock.h"
#include "bench_heap.h"
#include "heap_frag.h"

#define HEAP_BYTES    (512ull << 20)
#define THREADS	      2
#define DOM_EVERY     16
#define DOM_MAX	      256 /* live domains per thread */
#define DOM_EXTENTS   32  /* 32 MiB in 2 MiB extents: 16, + the tail */
#define DOM_MAX_SHIFT 12  /* sizes 2^s + random below: up to 32 MiB */
#define DOM_CAP_ORDER 9
#define SHORT_MAX     64
#define TABLE_MAX     256
#define TABLE_EVERY   256
#define PERSIST_MAX   256
#define PERSIST_EVERY 65536
#define OCC_LO	      0.70 /* of the heap's pages, all threads */
#define OCC_HI	      0.80
#define SAMPLE_EVERY  64
#define SAMPLES	      8 /* of the heap's state per epoch, averaged */
#define HIST_SUB_BITS 4
#define HIST_SLOTS    (64 << HIST_SUB_BITS)
#define ORDER_2M      FRAG_ORDER_2M

struct block {
	struct page_info *pg;
	unsigned int order;
};

struct domain {
	uint16_t owner;
	unsigned int extent_count, table_count;
	struct block extent[DOM_EXTENTS];
	struct page_info *table[DOM_EXTENTS];
	uint64_t pages;
};

struct thread {
	unsigned int cpu, node;
	uint64_t rng;
	uint64_t held, target_lo, target_hi; /* pages */
	unsigned int short_count, dom_count;
	struct block shorts[SHORT_MAX], tables[TABLE_MAX], persist[PERSIST_MAX];
	struct domain *dom;	      /* DOM_MAX */
	uint16_t free_owner[DOM_MAX]; /* a stack of the ids not in use */
	unsigned int free_top;
	/* this epoch's */
	uint64_t ops, failed, cpu_ns, locks;
	uint32_t hist[HIST_SLOTS];
	pthread_t th;
};

static struct thread threads[THREADS];
static pthread_barrier_t barrier;
static unsigned int nodes, epochs;
static uint64_t epoch_ops;
static double ns_per_cycle = 1.0;

/* ---- time ------------------------------------------------------------ */

/* Log-linear: values below 16 exact, then 16 slots per power of two. */
static unsigned int hist_slot(uint64_t v)
{
	unsigned int b;

	if (v < (1u << HIST_SUB_BITS))
		return (unsigned int)v;
	b = 63u - (unsigned int)__builtin_clzll(v);
	return (b - HIST_SUB_BITS + 1) * (1u << HIST_SUB_BITS) +
	       (unsigned int)((v >> (b - HIST_SUB_BITS)) &
			      ((1u << HIST_SUB_BITS) - 1));
}

static double hist_value(unsigned int i)
{
	unsigned int sub = 1u << HIST_SUB_BITS, b;
	double width;

	if (i < sub)
		return i;
	b = i / sub + HIST_SUB_BITS - 1;
	width = (double)(1ull << (b - HIST_SUB_BITS));
	return (double)(sub + i % sub) * width + width / 2;
}

static double percentile_ns(const uint32_t *h, unsigned int pct)
{
	uint64_t total = 0, seen = 0, want;

	for (unsigned int i = 0; i < HIST_SLOTS; i++)
		total += h[i];
	if (!total)
		return 0;
	want = (total * pct + 99) / 100;
	for (unsigned int i = 0; i < HIST_SLOTS; i++) {
		seen += h[i];
		if (seen >= want)
			return hist_value(i) * ns_per_cycle;
	}
	return 0;
}

/* ---- the heap ---------------------------------------------------------- */

/* bench_heap.h's heap (as heap_runtime's), its caches on unless asked. */
static void open_heap(unsigned int n)
{
	bench_heap_open(n, HEAP_BYTES / n, "heap_aging");
	heap_set_cpu_caches(!getenv("AGING_NO_CACHES"));
}

/* ---- the mix ---------------------------------------------------------- */

static uint64_t rnd(struct thread *t)
{
	uint64_t x = t->rng;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return t->rng = x;
}

/* One operation: one in SAMPLE_EVERY is timed by the cycle counter. */
struct op_clock {
	bool timed;
	uint64_t c0;
};

static struct op_clock op_begin(const struct thread *t)
{
	bool timed = (t->ops % SAMPLE_EVERY) == 0;

	return (struct op_clock){timed, timed ? cycles() : 0};
}

/* The operation done: timed into the histogram, @pages more held. */
static void op_end(struct thread *t, struct op_clock c, int64_t pages)
{
	if (c.timed)
		t->hist[hist_slot(cycles() - c.c0)]++;
	t->ops++;
	t->held += (uint64_t)pages;
}

/* An allocation's end: refused, or 2^@order pages more held. */
static struct page_info *got(struct thread *t, struct op_clock c,
			     struct page_info *pg, unsigned int order)
{
	op_end(t, c, pg ? (int64_t)1 << order : 0);
	if (!pg)
		t->failed++;
	return pg;
}

static struct page_info *get(struct thread *t, unsigned int order)
{
	struct op_clock c = op_begin(t);

	return got(t, c,
		   heap_alloc(order, HEAP_ANY_NODE, 0, HEAP_NO_SCRUB, NULL),
		   order);
}

static void put(struct thread *t, struct page_info *pg, unsigned int order)
{
	struct op_clock c = op_begin(t);

	if (heap_free(pg, order, HEAP_FREE_ZEROED)) {
		fprintf(stderr, "heap_aging: heap_free refused\n");
		exit(1);
	}
	op_end(t, c, -((int64_t)1 << order));
}

static struct page_info *get_owned(struct thread *t, unsigned int order,
				   uint16_t owner)
{
	struct op_clock c = op_begin(t);

	return got(t, c,
		   heap_alloc_owned(order, (int)t->node,
				    HEAP_NO_SCRUB | HEAP_NO_FLUSH, owner, NULL,
				    NULL),
		   order);
}

static void put_owned(struct thread *t, struct block *b, uint16_t owner)
{
	struct op_clock c = op_begin(t);

	if (heap_free_owned(b->pg, b->order, owner)) {
		fprintf(stderr, "heap_aging: heap_free_owned refused\n");
		exit(1);
	}
	op_end(t, c, -((int64_t)1 << b->order));
}

static unsigned int short_order(struct thread *t)
{
	uint64_t r = rnd(t);

	if (r & 1)
		return 0;
	if ((r & 0x1e) == 0)
		return ORDER_2M;
	return 1 + (unsigned int)((r >> 8) % 10);
}

/* The largest aligned block at guest page @gp within @len pages, <= @cap. */
static unsigned int block_order(uint64_t gp, uint64_t len, unsigned int cap)
{
	unsigned int order = cap;

	while (order && ((1ull << order) > len || (gp & ((1ull << order) - 1))))
		order--;
	return order;
}

static void domain_destroy(struct thread *t, unsigned int i)
{
	struct domain *d = &t->dom[i];

	for (unsigned int e = 0; e < d->extent_count; e++)
		put_owned(t, &d->extent[e], d->owner);
	for (unsigned int e = 0; e < d->table_count; e++)
		put(t, d->table[e], 0);
	t->free_owner[t->free_top++] = d->owner;
	t->dom[i] = t->dom[--t->dom_count];
}

/* A domain of a random size: extents as keel's build cuts them. */
static void domain_create(struct thread *t)
{
	uint64_t r = rnd(t);
	unsigned int s = (unsigned int)(r % (DOM_MAX_SHIFT + 1));
	uint64_t pages = (1ull << s) + ((r >> 8) & ((1ull << s) - 1));
	struct domain *d = &t->dom[t->dom_count];
	unsigned int cap = DOM_CAP_ORDER,
		     tables = 1 + (unsigned int)(pages >> 9);
	uint64_t gp = 0;

	d->owner = t->free_owner[--t->free_top];
	d->extent_count = d->table_count = 0;
	t->dom_count++;
	while (gp < pages && d->extent_count < DOM_EXTENTS) {
		unsigned int order = block_order(gp, pages - gp, cap);
		struct page_info *pg = get_owned(t, order, d->owner);

		if (!pg && order) {
			cap = order - 1; /* none that large: smaller */
			continue;
		}
		if (!pg)
			break;
		d->extent[d->extent_count++] = (struct block){pg, order};
		gp += 1ull << order;
	}
	while (d->table_count < tables) {
		struct page_info *pg = get(t, 0);

		if (!pg)
			break;
		d->table[d->table_count++] = pg;
	}
	d->pages = gp;
}

/* Replace block @b (empty: NULL) by a new one, of order 0 or 9. */
static void replace_at(struct thread *t, struct block *b)
{
	unsigned int order = (rnd(t) & 31) ? 0 : ORDER_2M;

	if (b->pg)
		put(t, b->pg, b->order);
	b->pg = get(t, order);
	b->order = order;
}

/* Replace a random block of @pool (@n entries). */
static void replace(struct thread *t, struct block *pool, unsigned int n)
{
	replace_at(t, &pool[rnd(t) % n]);
}

static void short_op(struct thread *t, uint64_t r)
{
	if (t->short_count < SHORT_MAX && (!t->short_count || (r & 0x100))) {
		unsigned int order = short_order(t);
		struct page_info *pg = get(t, order);

		if (pg)
			t->shorts[t->short_count++] = (struct block){pg, order};
	} else {
		unsigned int i = (unsigned int)((r >> 16) % t->short_count);

		put(t, t->shorts[i].pg, t->shorts[i].order);
		t->shorts[i] = t->shorts[--t->short_count];
	}
}

/* One step of the mix (one to a few dozen operations). */
static void step(struct thread *t)
{
	uint64_t r = rnd(t);

	if (r % PERSIST_EVERY == 1) {
		replace(t, t->persist, PERSIST_MAX);
	} else if (r % TABLE_EVERY == 2) {
		replace(t, t->tables, TABLE_MAX);
	} else if (r % DOM_EVERY == 3) {
		bool grow = t->held < t->target_lo ||
			    (t->held < t->target_hi && (r & 0x10000));

		if (t->dom_count && (!grow || t->dom_count == DOM_MAX))
			domain_destroy(
				t, (unsigned int)((r >> 20) % t->dom_count));
		else if (grow)
			domain_create(t);
	} else {
		short_op(t, r);
	}
}

/* Everything the thread holds, back. */
static void release_all(struct thread *t)
{
	while (t->dom_count)
		domain_destroy(t, t->dom_count - 1);
	while (t->short_count) {
		t->short_count--;
		put(t, t->shorts[t->short_count].pg,
		    t->shorts[t->short_count].order);
	}
	for (unsigned int i = 0; i < TABLE_MAX; i++)
		if (t->tables[i].pg)
			put(t, t->tables[i].pg, t->tables[i].order);
	for (unsigned int i = 0; i < PERSIST_MAX; i++)
		if (t->persist[i].pg)
			put(t, t->persist[i].pg, t->persist[i].order);
}

/*
 * The long-lived blocks all taken at the start, as a hypervisor's boot
 * takes its tables (not measured): from then on their number is steady
 * and only their places age, as replacements scatter them.
 */
static void prefill(struct thread *t)
{
	for (unsigned int i = 0; i < TABLE_MAX; i++)
		replace_at(t, &t->tables[i]);
	for (unsigned int i = 0; i < PERSIST_MAX; i++)
		replace_at(t, &t->persist[i]);
	t->ops = t->failed = 0;
	memset(t->hist, 0, sizeof(t->hist));
}

static void *thread_main(void *arg)
{
	struct thread *t = arg;

	host_cpu = t->cpu;
	prefill(t);
	for (unsigned int e = 0; e < epochs * SAMPLES; e++) {
		uint64_t c0, l0 = host_lock_count[HOST_LOCK_NODE];
		uint64_t until = epoch_ops * (e % SAMPLES + 1) / SAMPLES;

		pthread_barrier_wait(&barrier); /* the sample starts */
		c0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
		while (t->ops < until)
			step(t);
		t->cpu_ns += clock_ns(CLOCK_THREAD_CPUTIME_ID) - c0;
		t->locks += host_lock_count[HOST_LOCK_NODE] - l0;
		pthread_barrier_wait(&barrier); /* main measures */
		pthread_barrier_wait(&barrier); /* main has read it all */
	}
	release_all(t);
	return NULL;
}

/* ---- main ------------------------------------------------------------ */

static void thread_setup(struct thread *t, unsigned int i, uint64_t total,
			 uint64_t seed)
{
	memset(t, 0, sizeof(*t));
	t->cpu = i == 0 ? 1 : nodes > 1 ? 3 : 2;
	t->node = i == 0 ? 0 : nodes - 1;
	t->rng = 0x9e3779b97f4a7c15ull * (seed * THREADS + i + 1);
	t->target_lo = (uint64_t)((double)total * OCC_LO / THREADS);
	t->target_hi = (uint64_t)((double)total * OCC_HI / THREADS);
	t->dom = calloc(DOM_MAX, sizeof(*t->dom));
	if (!t->dom) {
		fprintf(stderr, "heap_aging: out of memory\n");
		exit(2);
	}
	for (unsigned int k = 0; k < DOM_MAX; k++)
		t->free_owner[k] = (uint16_t)(1 + i * DOM_MAX + k);
	t->free_top = DOM_MAX;
}

/* The state sums of an epoch's samples (both threads stopped). */
struct sample_sum {
	double cached, free_pages, dirty, share, largest, chunks;
	unsigned int largest_min, problems, n;
};

static struct sample_sum sum;

static void sample(void)
{
	struct heap_stats st;
	struct frag f;

	sum.cached += (double)heap_cached_pages(-1, false);
	heap_stats(HEAP_ALL_NODES, 0, &st);
	sum.free_pages += (double)st.free_pages;
	sum.dirty += (double)st.dirty_pages;
	sum.problems += frag_walk(&f);
	sum.share += f.free_pages
			     ? (double)f.free_2m_pages / (double)f.free_pages
			     : 0;
	sum.largest += f.largest_order;
	if (!sum.n || f.largest_order < sum.largest_min)
		sum.largest_min = f.largest_order;
	sum.chunks += (double)f.chunks;
	sum.n++;
}

/* One epoch's line, both threads stopped; their counts reset. */
static void epoch_line(unsigned int e, uint64_t total)
{
	uint64_t ops = 0, cpu = 0, locks = 0, failed = 0;
	static uint32_t hist[HIST_SLOTS];
	double n = sum.n;

	memset(hist, 0, sizeof(hist));
	for (unsigned int i = 0; i < THREADS; i++) {
		struct thread *t = &threads[i];

		ops += t->ops;
		cpu += t->cpu_ns;
		locks += t->locks;
		failed += t->failed;
		for (unsigned int s = 0; s < HIST_SLOTS; s++)
			hist[s] += t->hist[s];
		memset(t->hist, 0, sizeof(t->hist));
		t->ops = t->failed = t->cpu_ns = t->locks = 0;
	}
	printf("{\"epoch\": %u, \"ops_per_thread\": %llu, \"ns_per_op\": %.1f, "
	       "\"p50_ns\": %.0f, \"p99_ns\": %.0f, \"node_locks_per_op\": "
	       "%.4f, \"failed\": %llu, \"cached_pages\": %.0f, "
	       "\"free_pages\": %.0f, \"dirty_pages\": %.0f, \"occupancy\": "
	       "%.3f, \"free_2m_share\": %.4f, \"largest_free_order\": %.2f, "
	       "\"largest_free_order_min\": %u, \"free_chunks\": %.0f, "
	       "\"samples\": %u, \"walk_problems\": %u}\n",
	       e + 1, (unsigned long long)((e + 1) * epoch_ops),
	       (double)cpu / (double)ops, percentile_ns(hist, 50),
	       percentile_ns(hist, 99), (double)locks / (double)ops,
	       (unsigned long long)failed, sum.cached / n, sum.free_pages / n,
	       sum.dirty / n, 1.0 - sum.free_pages / n / (double)total,
	       sum.share / n, sum.largest / n, sum.largest_min, sum.chunks / n,
	       sum.n, sum.problems);
	memset(&sum, 0, sizeof(sum));
}

static int run(uint64_t seed)
{
	struct frag f0, f1;
	uint64_t total;
	unsigned int bad;

	host.bytes = HEAP_BYTES;
	host.base = mmap(NULL, HEAP_BYTES, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (host.base == MAP_FAILED) {
		fprintf(stderr, "heap_aging: mmap failed\n");
		return 2;
	}
	open_heap(nodes);
	ns_per_cycle = ns_per_cycle_measured();
	total = heap_stats_all(0).free_pages;
	bad = frag_walk(&f0);
	printf("{\"nodes\": %u, \"threads\": %u, \"epochs\": %u, "
	       "\"ops_per_epoch\": %llu, \"seed\": %llu, \"total_pages\": "
	       "%llu, \"largest_free_order\": %u, \"free_2m_share\": %.4f, "
	       "\"lock\": \"%s\", \"ns_per_cycle\": %.4f}\n",
	       nodes, THREADS, epochs, (unsigned long long)epoch_ops,
	       (unsigned long long)seed, (unsigned long long)total,
	       f0.largest_order,
	       (double)f0.free_2m_pages / (double)f0.free_pages,
	       host_lock_name(), ns_per_cycle);
	pthread_barrier_init(&barrier, NULL, THREADS + 1);
	for (unsigned int i = 0; i < THREADS; i++) {
		thread_setup(&threads[i], i, total, seed);
		pthread_create(&threads[i].th, NULL, thread_main, &threads[i]);
	}
	for (unsigned int e = 0; e < epochs * SAMPLES; e++) {
		pthread_barrier_wait(&barrier); /* go */
		pthread_barrier_wait(&barrier); /* stopped */
		sample();
		if (e % SAMPLES == SAMPLES - 1)
			epoch_line(e / SAMPLES, total);
		pthread_barrier_wait(&barrier); /* on */
	}
	for (unsigned int i = 0; i < THREADS; i++)
		pthread_join(threads[i].th, NULL);
	bad += heap_check() + frag_walk(&f1);
	printf("{\"end\": true, \"audit_problems\": %u, \"free_pages\": %llu, "
	       "\"free_pages_start\": %llu, \"largest_free_order\": %u, "
	       "\"largest_free_order_start\": %u, \"free_2m_share\": %.4f}\n",
	       bad, (unsigned long long)f1.free_pages,
	       (unsigned long long)total, f1.largest_order, f0.largest_order,
	       f1.free_pages ? (double)f1.free_2m_pages / (double)f1.free_pages
			     : 0);
	return bad || f1.free_pages != total ||
	       f1.largest_order != f0.largest_order;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0); /* each epoch as it ends */
	host.name = "heap_aging";
	host.verbose = true;
	host.coherent = true;
	if (argc >= 5 && argc <= 6 && !strcmp(argv[1], "run")) {
		nodes = (unsigned int)atoi(argv[2]);
		epochs = (unsigned int)atoi(argv[3]);
		epoch_ops = (uint64_t)atoll(argv[4]);
		if ((nodes == 1 || nodes == 2) && epochs >= 1 &&
		    epochs <= 100000 && epoch_ops >= 1000)
			return run(argc > 5 ? (uint64_t)atoll(argv[5]) : 1);
	}
	fprintf(stderr, "usage: heap_aging run NODES(1|2) EPOCHS OPS [SEED]\n");
	return 2;
}
