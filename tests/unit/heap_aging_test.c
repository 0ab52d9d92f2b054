// SPDX-License-Identifier: MIT
/*
 * The heap after a long churn (issue 37; the short guard of the aging
 * benchmark, tests/bench/heap_aging.c): 10^6 operations of a
 * hypervisor-like mix -- domains of random sizes built from owned
 * extents of at most 2 MiB and freed dirty, short-lived anonymous blocks
 * of orders 0..10, long-lived order-0 and order-9 blocks as page tables
 * are -- with the heap held 70-80% full, on two CPUs (two per-CPU caches,
 * one on each node). Then everything is freed: heap_check() finds
 * nothing, the free count is exact and every free chunk merged back, so
 * that the largest free order and the share of free memory in chunks of
 * 2 MiB and up are what they were before.
 *
 * And the allocation rule that keeps big chunks whole there: a caller
 * that needs no zeroed pages (HEAP_NO_SCRUB) takes the smallest fitting
 * free chunk even when it is dirty, from the lists, for an owned extent
 * and through a per-CPU cache's refill, instead of splitting a bigger
 * clean chunk (the aging benchmark: three times fewer refused
 * allocations at 70-80% full); one that needs zeroed pages still gets a
 * clean chunk first. And in a node more than half full, a per-CPU cache
 * does not keep a big block whose buddy is free: it merges.
 */
#include "common.h"
#include "../bench/heap_frag.h"

/* arch/sandbox/cpu.c: what arch_cpu_id() returns on this thread. */
void sandbox_set_cpu_id(unsigned int cpu, uint64_t hwid);

#define AGING_OPS   1000000u
#define SHORT_MAX   64
#define LONG_MAX    128
#define DOM_MAX	    64
#define DOM_EXT	    24
#define CPU_SWITCH  997 /* operations between the two CPUs' turns */
#define ORDER_2M    FRAG_ORDER_2M
#define OWNER_FIRST 100
#define LONE_TRIES  64

struct blk {
	struct page_info *pg;
	unsigned int order;
};

struct dom {
	unsigned int count;
	struct blk ext[DOM_EXT];
};

struct aging {
	uint64_t x, ops, held, failed, total;
	unsigned int shorts, doms;
	struct blk s[SHORT_MAX], l[LONG_MAX];
	struct dom d[DOM_MAX]; /* owner OWNER_FIRST + index */
};

static uint64_t rnd(struct aging *a)
{
	a->x ^= a->x << 13;
	a->x ^= a->x >> 7;
	a->x ^= a->x << 17;
	return a->x;
}

/* Every node's fragmentation; the walks must find nothing wrong. */
static struct frag frag(void)
{
	struct frag f;

	assert_int_equal(frag_walk(&f), 0);
	return f;
}

static struct page_info *get(struct aging *a, unsigned int order)
{
	struct page_info *pg =
		heap_alloc(order, HEAP_ANY_NODE, 0, HEAP_NO_SCRUB, NULL);

	a->ops++;
	if (!pg)
		a->failed++;
	else
		a->held += 1ull << order;
	return pg;
}

static void put(struct aging *a, struct blk *b)
{
	assert_int_equal(heap_free(b->pg, b->order, HEAP_FREE_ZEROED), 0);
	a->ops++;
	a->held -= 1ull << b->order;
	b->pg = NULL;
}

static void dom_destroy(struct aging *a, unsigned int i)
{
	struct dom *d = &a->d[i];

	for (unsigned int e = 0; e < d->count; e++) {
		struct blk *b = &d->ext[e];

		assert_int_equal(heap_free_owned(b->pg, b->order,
						 (uint16_t)(OWNER_FIRST + i)),
				 0);
		a->ops++;
		a->held -= 1ull << b->order;
	}
	d->count = 0;
}

/* Domain slot @i: up to 8 MiB, the largest aligned extents, <= 2 MiB. */
static void dom_create(struct aging *a, unsigned int i)
{
	uint64_t r = rnd(a), gp = 0;
	unsigned int s = (unsigned int)(r % 12), cap = ORDER_2M;
	uint64_t pages = (1ull << s) + ((r >> 8) & ((1ull << s) - 1));
	struct dom *d = &a->d[i];

	while (gp < pages && d->count < DOM_EXT) {
		unsigned int k = cap;
		struct page_info *pg;

		while (k &&
		       ((1ull << k) > pages - gp || (gp & ((1ull << k) - 1))))
			k--;
		pg = heap_alloc_owned(k, HEAP_ANY_NODE, HEAP_NO_SCRUB,
				      (uint16_t)(OWNER_FIRST + i), NULL, NULL);
		a->ops++;
		if (!pg) {
			a->failed++;
			if (!k)
				break;
			cap = k - 1;
			continue;
		}
		a->held += 1ull << k;
		d->ext[d->count++] = (struct blk){pg, k};
		gp += 1ull << k;
	}
}

/* One step: a domain (1 in 16), a long-lived block (1 in 64), or short. */
static void step(struct aging *a)
{
	uint64_t r = rnd(a);

	if (r % 16 == 1) {
		unsigned int i = (unsigned int)((r >> 8) % DOM_MAX);

		if (a->d[i].count)
			dom_destroy(a, i);
		else if (a->held * 10 < a->total * 8) /* below 80% */
			dom_create(a, i);
	} else if (r % 64 == 2) {
		struct blk *b = &a->l[(r >> 8) % LONG_MAX];
		unsigned int k = (r >> 20) % 16 ? 0 : ORDER_2M;

		if (b->pg)
			put(a, b);
		b->pg = get(a, k);
		b->order = k;
	} else if (a->shorts < SHORT_MAX && (!a->shorts || (r & 0x100))) {
		unsigned int k =
			(r & 0x200) ? 0 : (unsigned int)((r >> 24) % 11);

		a->s[a->shorts].pg = get(a, k);
		a->s[a->shorts].order = k;
		a->shorts += a->s[a->shorts].pg != NULL;
	} else {
		unsigned int i = (unsigned int)((r >> 16) % a->shorts);

		put(a, &a->s[i]);
		a->s[i] = a->s[--a->shorts];
	}
}

static void release_all(struct aging *a)
{
	for (unsigned int i = 0; i < DOM_MAX; i++)
		dom_destroy(a, i);
	while (a->shorts)
		put(a, &a->s[--a->shorts]);
	for (unsigned int i = 0; i < LONG_MAX; i++)
		if (a->l[i].pg)
			put(a, &a->l[i]);
}

static void test_aging_comes_back(void **state)
{
	static struct aging a;
	unsigned int self = arch_cpu_id(), cpu = 0;
	uint64_t max_held = 0;
	struct frag f0, f1;

	(void)state;
	test_two_node_heap();
	heap_set_cpu_node(1, 1); /* CPU 1's cache: node 1's blocks */
	heap_set_cpu_caches(true);
	f0 = frag();
	memset(&a, 0, sizeof(a));
	a.x = 0x9e3779b97f4a7c15ull;
	a.total = heap_stats_all(0).free_pages;
	while (a.ops < AGING_OPS) {
		if (a.ops / CPU_SWITCH % 2 != cpu) {
			cpu = (unsigned int)(a.ops / CPU_SWITCH % 2);
			sandbox_set_cpu_id(cpu, cpu);
		}
		step(&a);
		max_held = MAX(max_held, a.held);
	}
	/* The mix did fill the heap: at least 70% held at some point. */
	assert_true(max_held * 10 >= a.total * 7);
	release_all(&a);
	sandbox_set_cpu_id(self, self);
	print_message("aging: %llu ops, %llu failed, held up to %.2f\n",
		      (unsigned long long)a.ops, (unsigned long long)a.failed,
		      (double)max_held / (double)a.total);
	test_heap_check_clean();
	assert_int_equal(heap_cached_pages(-1, false), 0);
	f1 = frag();
	assert_int_equal(f1.free_pages, a.total);
	assert_int_equal(f1.largest_order, f0.largest_order);
	assert_int_equal(f1.free_2m_pages, f0.free_2m_pages);
	heap_set_cpu_caches(false);
}

/* The blocks lone_dirty_chunk() took on the way, held until lone_end(). */
static struct page_info *lone_held[LONE_TRIES];
static unsigned int lone_count, lone_order;

/*
 * A free dirty chunk of 2^@order pages on node 0 whose buddy is held (so
 * it stays that small): blocks are taken until two are buddies (the top
 * of a split and the lower half left beside it), and held, so that no
 * clean chunk of that order is left in the highest zone with one.
 * Return: the dirty chunk's head pfn.
 */
static uint64_t lone_dirty_chunk(unsigned int order)
{
	unsigned int a = LONE_TRIES;
	uint64_t pa;

	lone_order = order;
	for (lone_count = 0; lone_count < LONE_TRIES && a == LONE_TRIES;
	     lone_count++) {
		struct page_info *pg = heap_alloc(order, 0, 0, 0, NULL);

		assert_non_null(pg);
		lone_held[lone_count] = pg;
		for (unsigned int i = 0; i < lone_count; i++)
			if (pfn_val(page_to_pfn(lone_held[i])) ==
			    (pfn_val(page_to_pfn(pg)) ^ (1ull << order)))
				a = i;
	}
	assert_true(a < LONE_TRIES);
	pa = pfn_val(page_to_pfn(lone_held[a]));
	assert_int_equal(heap_free(lone_held[a], order, HEAP_FREE_DIRTY), 0);
	lone_held[a] = lone_held[--lone_count];
	assert_int_equal(heap_owner_of(pfn(pa), NULL, NULL), HEAP_OWNER_FREE);
	return pa;
}

static void lone_end(void)
{
	while (lone_count)
		assert_int_equal(heap_free(lone_held[--lone_count], lone_order,
					   HEAP_FREE_ZEROED),
				 0);
}

static void test_no_scrub_takes_smallest_dirty(void **state)
{
	struct page_info *pg;
	uint64_t p;

	(void)state;
	test_two_node_heap();
	heap_set_cpu_caches(false);
	/* The lists: anonymous, needing zeroes or not. */
	p = lone_dirty_chunk(0);
	pg = heap_alloc(0, 0, 0, 0, NULL);
	assert_true(pfn_val(page_to_pfn(pg)) != p); /* a clean one first */
	assert_int_equal(heap_free(pg, 0, HEAP_FREE_ZEROED), 0);
	pg = heap_alloc(0, 0, 0, HEAP_NO_SCRUB, NULL);
	assert_int_equal(pfn_val(page_to_pfn(pg)), p); /* was: split a clean */
	assert_int_equal(heap_free(pg, 0, HEAP_FREE_DIRTY), 0);
	/* An owned extent. */
	pg = heap_alloc_owned(0, 0, HEAP_NO_SCRUB | HEAP_EXACT_NODE, 7, NULL,
			      NULL);
	assert_int_equal(pfn_val(page_to_pfn(pg)), p);
	assert_int_equal(heap_free_owned(pg, 0, 7), 0);
	lone_end();
	test_heap_check_clean();
}

/*
 * The same through a per-CPU cache's refill: order 9 comes in a batch of
 * two, one order-10 block cut in two, which the dirty order-10 chunk
 * gives instead of a clean order-11 chunk split (the zone's smallest:
 * the free lists are searched zone by zone, the highest first, and the
 * dirty chunk is the top of the highest).
 */
static void test_no_scrub_refill_takes_smallest_dirty(void **state)
{
	struct page_info *pg;
	uint64_t p;

	(void)state;
	test_two_node_heap();
	heap_set_cpu_caches(false);
	p = lone_dirty_chunk(10);
	heap_set_cpu_caches(true);
	pg = heap_alloc(9, 0, 0, HEAP_NO_SCRUB, NULL);
	assert_true(pfn_val(page_to_pfn(pg)) - p < 1024);
	assert_int_equal(heap_free(pg, 9, HEAP_FREE_DIRTY), 0);
	heap_set_cpu_caches(false);
	lone_end();
	test_heap_check_clean();
}

/* Node 0 more than half full: 10 of its 16 MiB held in tight_fill[]. */
static struct page_info *tight_fill[10];

static void tight_begin(void)
{
	test_two_node_heap();
	heap_set_cpu_caches(false);
	for (unsigned int i = 0; i < 10; i++) {
		tight_fill[i] = heap_alloc(10, 0, 0, HEAP_EXACT_NODE, NULL);
		assert_non_null(tight_fill[i]);
	}
	assert_true(test_node_stats(0)->free_pages * 2 <
		    test_node_stats(0)->total_pages);
}

static void tight_end(void)
{
	heap_set_cpu_caches(false);
	lone_end();
	for (unsigned int i = 0; i < 10; i++)
		assert_int_equal(heap_free(tight_fill[i], 10, HEAP_FREE_ZEROED),
				 0);
	test_heap_check_clean();
}

/*
 * A free dirty chunk of 2^@order pages of the tight node (its pfn in
 * *@p) and its buddy, held: taken out of lone_held[].
 */
static struct page_info *lone_pair(unsigned int order, uint64_t *p)
{
	struct page_info *pg = NULL;

	*p = lone_dirty_chunk(order);
	for (unsigned int i = 0; i < lone_count; i++)
		if (pfn_val(page_to_pfn(lone_held[i])) ==
		    (*p ^ (1ull << order))) {
			pg = lone_held[i];
			lone_held[i] = lone_held[--lone_count];
		}
	assert_non_null(pg);
	return pg;
}

/* Once the buddy of @p's chunk is freed: one free chunk above @order. */
static void assert_merged(uint64_t p, unsigned int order)
{
	unsigned int head_order;
	pfn_t head;

	assert_int_equal(heap_owner_of(pfn(p), &head, &head_order),
			 HEAP_OWNER_FREE);
	assert_true(head_order > order);
}

/*
 * In a node more than half full, a big block freed while its buddy is
 * free merges instead of staying in the CPU's cache (where it could not
 * merge), and a big allocation does not refill the cache (a refill cuts
 * a chunk twice the size, half of it kept): the aging benchmark's
 * missing 2 MiB chunks.
 */
static void test_big_free_merges_when_tight(void **state)
{
	struct page_info *pg, *other;
	uint64_t p;

	(void)state;
	tight_begin();
	pg = lone_pair(9, &p);
	heap_set_cpu_caches(true);
	other = heap_alloc(8, 0, 0, HEAP_EXACT_NODE, NULL);
	assert_non_null(other);
	assert_int_equal(heap_cached_pages(-1, false), 0); /* was: 256 */
	assert_int_equal(heap_free(other, 8, HEAP_FREE_ZEROED), 0);
	assert_int_equal(heap_free(pg, 9, HEAP_FREE_ZEROED), 0);
	assert_int_equal(heap_cached_pages(-1, false), 0); /* was: 512 */
	assert_merged(p, 9);
	tight_end();
}

/*
 * The same for a 4 KiB block: in a node less than half free, one freed
 * whose buddy is free merges instead of staying in the CPU's cache
 * (cached small blocks kept their buddies from merging: the aging
 * benchmark's one node still lost its 2 MiB chunks, slowly).
 */
static void test_small_free_merges_when_tight(void **state)
{
	struct page_info *pg;
	uint64_t p;

	(void)state;
	tight_begin();
	pg = lone_pair(0, &p);
	heap_set_cpu_caches(true);
	assert_int_equal(heap_free(pg, 0, HEAP_FREE_ZEROED), 0);
	assert_int_equal(heap_cached_pages(-1, false), 0); /* was: 1 */
	assert_merged(p, 0);
	tight_end();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_aging_comes_back,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(
			test_no_scrub_takes_smallest_dirty, test_setup,
			test_teardown),
		cmocka_unit_test_setup_teardown(
			test_no_scrub_refill_takes_smallest_dirty, test_setup,
			test_teardown),
		cmocka_unit_test_setup_teardown(test_big_free_merges_when_tight,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(
			test_small_free_merges_when_tight, test_setup,
			test_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
