/* SPDX-License-Identifier: MIT */
/*
 * The heap under concurrency (split from heap_model_test.c): allocating
 * threads (anonymous blocks and owned extents, half each) and an idle
 * scrubber on three nodes, every page owned by at most one thread at a
 * time, no misuse reported, no owned page left, and the initial chunk set
 * back at the end. For the lazy and chunked handoffs, and with the per-CPU
 * caches on (threads on two CPU ids of two nodes, two threads per id:
 * blocks freed into another CPU's cache, caches shared by threads).
 */
#include <pthread.h>
#include <unistd.h>

#include "common.h"
#include "heap_model_machine.h"

struct live {
	struct page_info *pg;
	unsigned int order;
	uint16_t owner; /* 0: anonymous, else an owned extent's owner */
};

#define THREADS	   4
#define THREAD_OPS 3000

static uint8_t owner[TOP_PFN]; /* 0 = not owned by a thread */
static volatile bool scrubber_stop;
static volatile unsigned int conc_errors;

static void conc_fail(void)
{
	__atomic_fetch_add(&conc_errors, 1, __ATOMIC_RELAXED);
}

struct worker {
	unsigned int id;
	uint64_t seed;
	bool cpu_ids; /* take CPU id (id - 1) % 2, as the caches' test */
};

/* arch/sandbox/cpu.c: what arch_cpu_id() returns on this thread. */
void sandbox_set_cpu_id(unsigned int cpu, uint64_t hwid);

/* Free @b the way it was allocated. Return: 0 or the heap's error. */
static int give_back(const struct live *b, bool dirty)
{
	if (b->owner)
		return heap_free_owned(b->pg, b->order, b->owner);
	return heap_free(b->pg, b->order, dirty);
}

/* Thread @me takes the pages of @pg (order @k): none may be taken. */
static void claim(const struct page_info *pg, unsigned int k, unsigned int me)
{
	for (uint64_t q = pg->pfn; q < pg->pfn + (1ULL << k); q++) {
		uint8_t zero = 0;

		if (q >= TOP_PFN ||
		    !__atomic_compare_exchange_n(&owner[q], &zero, (uint8_t)me,
						 false, __ATOMIC_ACQ_REL,
						 __ATOMIC_ACQUIRE))
			conc_fail();
	}
}

/* Give the pages of @b up; @me: 0, or the thread that must hold them. */
static void unclaim(const struct live *b, unsigned int me)
{
	for (uint64_t q = b->pg->pfn; q < b->pg->pfn + (1ULL << b->order);
	     q++) {
		if (me && owner[q] != me)
			conc_fail();
		__atomic_store_n(&owner[q], 0, __ATOMIC_RELEASE);
	}
}

static void *alloc_worker(void *arg)
{
	struct worker *w = arg;
	static __thread struct live mine[512];
	unsigned int n = 0, op;
	uint64_t x = w->seed;

	if (w->cpu_ids)
		sandbox_set_cpu_id((w->id - 1) % 2, (w->id - 1) % 2);
	for (op = 0; op < THREAD_OPS; op++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		if (n < ARRAY_SIZE(mine) && (n == 0 || x % 100 < 55)) {
			unsigned int k = (unsigned int)((x >> 8) % 6);

			if (k == 5 && (x & (1 << 12)))
				k = 9; /* the 2 MiB order, cached too */
			int node = HEAP_ANY_NODE;
			/* one in two: an extent owned by this thread */
			uint16_t id = x & (1 << 24) ? (uint16_t)w->id : 0;
			struct page_info *pg;

			if (x & (1 << 20))
				node = (int)((x >> 21) % 3);
			pg = id ? heap_alloc_owned(k, node, HEAP_NO_SCRUB, id,
						   NULL, NULL)
				: heap_alloc(k, node, 0, HEAP_NO_SCRUB, NULL);
			if (!pg)
				continue;
			claim(pg, k, w->id);
			mine[n].pg = pg;
			mine[n].order = k;
			mine[n].owner = id;
			n++;
		} else if (n) {
			unsigned int i = (unsigned int)((x >> 8) % n);

			unclaim(&mine[i], w->id);
			if (give_back(&mine[i], x & 1))
				conc_fail();
			mine[i] = mine[--n];
		}
	}
	while (n) {
		n--;
		unclaim(&mine[n], 0);
		if (give_back(&mine[n], false))
			conc_fail();
	}
	return NULL;
}

/* The idle scrubber's loop: detach a dirty chunk, zero it, put it back. */
static void *scrub_worker(void *arg)
{
	unsigned int rounds = 0;

	(void)arg;
	while (!__atomic_load_n(&scrubber_stop, __ATOMIC_ACQUIRE) ||
	       rounds == 0) {
		for (uint32_t node = 0; node < 3; node++) {
			unsigned int order;
			struct page_info *pg = heap_take_dirty(node, &order);

			if (!pg)
				continue;
			if (pg->state != PGS_ALLOCATED || pg->order != order)
				conc_fail();
			/* contents are not under test: touch one page */
			memset(phys_to_virt(pfn_to_paddr(pfn(pg->pfn))), 0,
			       4096);
			heap_put_clean(pg, order, (rounds & 1) != 0);
			rounds++;
		}
		/* 3 threads on few host cores: let lock holders run */
		usleep(20);
	}
	return NULL;
}

static void run_concurrent(enum heap_init_mode mode, bool caches)
{
	struct test_machine_cfg c = {
		.ram = ram,
		.ram_count = ARRAY_SIZE(ram),
		.rsv = rsv,
		.rsv_count = ARRAY_SIZE(rsv),
		.mode = mode,
		.dirty = true,
	};
	pthread_t th[THREADS], scrubber;
	struct worker w[THREADS];
	struct test_snap before, after;
	unsigned int i;

	test_machine_boot(&c);
	heap_strict = false; /* a misuse must show up as an error here */
	memset(owner, 0, sizeof(owner));
	conc_errors = 0;
	scrubber_stop = false;
	before = test_heap_snapshot();
	heap_set_cpu_node(0, 0);
	heap_set_cpu_node(1, 1);
	heap_set_cpu_caches(caches);
	assert_int_equal(pthread_create(&scrubber, NULL, scrub_worker, NULL),
			 0);
	for (i = 0; i < THREADS; i++) {
		w[i].id = i + 1;
		w[i].seed = 0x5151 * (i + 1) + mode;
		w[i].cpu_ids = caches;
		assert_int_equal(
			pthread_create(&th[i], NULL, alloc_worker, &w[i]), 0);
	}
	for (i = 0; i < THREADS; i++)
		pthread_join(th[i], NULL);
	__atomic_store_n(&scrubber_stop, true, __ATOMIC_RELEASE);
	pthread_join(scrubber, NULL);
	heap_strict = true;

	assert_int_equal(conc_errors, 0);
	if (caches)
		assert_true(heap_cached_pages(-1, false) > 0);
	assert_int_equal(heap_stats_all(0).owned_pages, 0);
	assert_int_equal(heap_stats_all(0).free_pages,
			 heap_stats_all(0).total_pages);
	test_heap_check_clean(); /* drains the caches */
	heap_set_cpu_caches(false);
	after = test_heap_snapshot();
	assert_int_equal(before.n, after.n);
	for (size_t j = 0; j < before.n; j++) {
		assert_int_equal(before.c[j].pfn, after.c[j].pfn);
		assert_int_equal(before.c[j].order, after.c[j].order);
	}
	free(before.c);
	free(after.c);
}

static void test_concurrent_lazy(void **state)
{
	run_concurrent(HEAP_INIT_LAZY, false);
}

static void test_concurrent_cached(void **state)
{
	run_concurrent(HEAP_INIT_LAZY, true);
}

static void test_concurrent_chunked(void **state)
{
	run_concurrent(HEAP_INIT_CHUNKED, false);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_concurrent_lazy,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_concurrent_chunked,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_concurrent_cached,
						test_setup, test_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
