/* SPDX-License-Identifier: MIT */
/*
 * common/mm/heap_offline.c under concurrency: offlines racing two
 * threads that allocate and free anonymous blocks and owned extents,
 * with the per-CPU caches off and on (every offlined page stays out,
 * nothing is handed out twice, the walk and the counters agree), and the
 * outcome of a free into a per-CPU cache racing a mark, made by hand:
 * heap_bad_recheck() withholds the page or flags its new block.
 */
#include <pthread.h>
#include <sched.h>

#include "heap_offline_fixture.h"

/*
 * Offlines racing allocations and frees on two other threads (caches
 * off): every page offlined stays out, nothing is handed out twice, the
 * counters and the block walk agree at the end.
 */
#define RACE_OFFLINES 300
static volatile bool race_stop;
static unsigned int race_ops; /* the workers' operations so far */

/* arch/sandbox/cpu.c: what arch_cpu_id() returns on this thread. */
void sandbox_set_cpu_id(unsigned int cpu, uint64_t hwid);

static void *race_worker(void *arg)
{
	struct {
		struct page_info *pg;
		unsigned int k;
		uint16_t owner;
	} held[16] = {{0}};
	uint64_t x = (uintptr_t)arg * 0x9e3779b97f4a7c15ULL + 1;

	if ((uintptr_t)arg >= 2) /* caches on: CPU ids 1 and 2 */
		sandbox_set_cpu_id((unsigned int)(uintptr_t)arg - 1,
				   (uintptr_t)arg - 1);

	while (!__atomic_load_n(&race_stop, __ATOMIC_ACQUIRE)) {
		unsigned int i;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		i = (unsigned int)(x % 16);
		__atomic_fetch_add(&race_ops, 1, __ATOMIC_RELAXED);
		if (held[i].pg) {
			if (held[i].owner)
				assert_int_equal(heap_free_owned(held[i].pg,
								 held[i].k,
								 held[i].owner),
						 0);
			else
				assert_int_equal(heap_free(held[i].pg,
							   held[i].k,
							   HEAP_FREE_DIRTY),
						 0);
			held[i].pg = NULL;
			continue;
		}
		held[i].k = (unsigned int)((x >> 8) % 7);
		held[i].owner = (x >> 16) & 1 ? 5 : 0;
		held[i].pg = held[i].owner ? heap_alloc_owned(held[i].k, 0,
							      HEAP_NO_SCRUB, 5,
							      NULL, NULL)
					   : heap_alloc(held[i].k, 0, 0,
							HEAP_NO_SCRUB, NULL);
	}
	for (unsigned int i = 0; i < 16; i++)
		if (held[i].pg && held[i].owner)
			heap_free_owned(held[i].pg, held[i].k, 5);
		else if (held[i].pg)
			heap_free(held[i].pg, held[i].k, HEAP_FREE_DIRTY);
	return NULL;
}

/* @caches: the per-CPU caches on, each worker on a CPU id of its own. */
static void offline_race(bool caches)
{
	static uint64_t bad[RACE_OFFLINES];
	pthread_t th[2];
	unsigned int n = 0, held_seen = 0;
	uint64_t x = 12345;

	machine();
	race_ops = 0;
	if (caches) {
		heap_set_cpu_node(1, 0);
		heap_set_cpu_node(2, 0);
		heap_set_cpu_caches(true);
	}
	for (uintptr_t t = caches ? 2 : 0; t < (caches ? 4u : 2u); t++)
		assert_int_equal(pthread_create(&th[t & 1], NULL, race_worker,
						(void *)t),
				 0);
	/* The workers are running (no bound: they start at once). */
	while (__atomic_load_n(&race_ops, __ATOMIC_RELAXED) < 2000)
		sched_yield();
	test_quiet_begin();
	for (unsigned int i = 0; i < RACE_OFFLINES; i++) {
		uint64_t p;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		/* The top 16 MiB, where the workers' blocks come from. */
		p = BASE + PAGES - 1 - x % 4096;
		if (heap_offline(pfn(p), HEAP_BAD_SOFT) == 0)
			bad[n++] = p;
		if (stats().bad_held_pages)
			held_seen++;
	}
	test_quiet_end();
	__atomic_store_n(&race_stop, true, __ATOMIC_RELEASE);
	for (unsigned int t = 0; t < 2; t++)
		pthread_join(th[t], NULL);
	race_stop = false;
	heap_set_cpu_caches(false);
	print_message("offline race: %u offlined, %u times some were held "
		      "in live blocks, %u worker operations\n",
		      n, held_seen, race_ops);
	assert_true(n > 0);
	assert_int_equal(stats().bad_pages, n);
	assert_int_equal(stats().bad_held_pages, 0);
	assert_int_equal(heap_stats_all(5).owned_pages, 0);
	test_heap_check_clean();
	take_all(bad, n, PAGES - n - list_pages());
	test_heap_check_clean();
}

static void test_offline_races_alloc(void **state)
{
	(void)state;
	offline_race(false);
}

/* The same with the caches on: offlines drain them, frees race marks. */
static void test_offline_races_caches(void **state)
{
	(void)state;
	offline_race(true);
}

/* common/mm/heap_offline.c, for the race's outcome below. */
void heap_bad_recheck(uint32_t node);

/*
 * A free racing a mark: the block went into a per-CPU cache, which
 * rewrote its head's flags (made here by hand: the mark, then the flag
 * lost, then the free). The recheck drains the caches and withholds the
 * page, which is never handed out; a page whose block was handed out
 * again gets its new block flagged.
 */
static void test_race_with_cache_rehomed(void **state)
{
	struct page_info *pg, *got[200];
	uint64_t p;

	(void)state;
	machine();
	heap_set_cpu_node(0, 0);
	heap_set_cpu_caches(true);
	pg = heap_alloc(0, 0, 0, HEAP_NO_SCRUB, NULL);
	assert_non_null(pg);
	p = pg->pfn;
	assert_int_equal(heap_offline(pfn(p), HEAP_BAD_SOFT), 0);
	pg->flags &= (uint8_t)~PGF_HAS_BAD; /* what the cache's write does */
	assert_int_equal(heap_free(pg, 0, HEAP_FREE_ZEROED), 0);
	assert_true(pg->flags & PGF_CACHED); /* the page is in the cache */
	heap_bad_recheck(0);
	assert_int_equal(heap_owner_of(pfn(p), NULL, NULL), HEAP_OWNER_BAD);
	assert_int_equal(stats().bad_held_pages, 0);
	assert_int_equal(stats().bad_pages, 1);
	for (unsigned int i = 0; i < ARRAY_SIZE(got); i++) {
		got[i] = heap_alloc(0, 0, 0, HEAP_NO_SCRUB, NULL);
		assert_non_null(got[i]);
		assert_int_not_equal(got[i]->pfn, p);
	}
	/* Handed out again before the recheck: its new block flagged. */
	p = got[0]->pfn;
	assert_int_equal(heap_offline(pfn(p), HEAP_BAD_SOFT), 0);
	got[0]->flags &= (uint8_t)~PGF_HAS_BAD;
	heap_bad_recheck(0);
	assert_true(got[0]->flags & PGF_HAS_BAD);
	for (unsigned int i = 0; i < ARRAY_SIZE(got); i++)
		assert_int_equal(heap_free(got[i], 0, HEAP_FREE_ZEROED), 0);
	assert_int_equal(heap_owner_of(pfn(p), NULL, NULL), HEAP_OWNER_BAD);
	heap_set_cpu_caches(false);
	assert_int_equal(heap_stats_all(0).free_pages,
			 PAGES - 2 - list_pages());
	test_heap_check_clean();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_offline_races_alloc,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_offline_races_caches,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_race_with_cache_rehomed,
						test_setup, test_teardown),
	};

	return cmocka_run_group_tests(tests, test_setup, test_teardown);
}
