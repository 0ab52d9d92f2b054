/* SPDX-License-Identifier: MIT */
/*
 * common/mm/bad_queue.c: pages come out in the order pushed, with their
 * source; a full queue refuses and counts, and takes pushes again once
 * drained; a slot claimed but not yet published ends the drain there and
 * comes out at the next one; a push from inside the drain's callback (a
 * machine check taken while the heap offlines) is kept; four threads
 * pushing while a fifth drains lose nothing and repeat nothing.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <pthread.h>
#include <cmocka.h>

#include <keel/atomic.h>
#include <keel/bad_queue.h>

#define MAX_SEEN 100000
static uint64_t seen[MAX_SEEN];
static enum bad_queue_source seen_src[MAX_SEEN];
static uint64_t seen_info[MAX_SEEN];
static unsigned int nseen;

static void record(uint64_t pfn, enum bad_queue_source src, uint64_t info,
		   void *arg)
{
	(void)arg;
	assert_true(nseen < MAX_SEEN);
	seen_info[nseen] = info;
	seen_src[nseen] = src;
	seen[nseen++] = pfn;
}

static void drain_all(void)
{
	while (bad_queue_drain(record, NULL))
		;
}

static void test_order_and_source(void **state)
{
	(void)state;
	drain_all();
	nseen = 0;
	assert_true(bad_queue_push(0x1000, BAD_QUEUE_MCE, 0xbd00000000000090));
	assert_true(bad_queue_push(0x5fff, BAD_QUEUE_INJECTION, 0));
	assert_true(bad_queue_push(0x123456789000ULL, BAD_QUEUE_MCE, 0));
	assert_true(bad_queue_push(BAD_QUEUE_NO_ADDR, BAD_QUEUE_MCE, 7));
	assert_int_equal(bad_queue_drain(record, NULL), 4);
	assert_int_equal(nseen, 4);
	assert_int_equal(seen_info[0], 0xbd00000000000090);
	assert_int_equal(seen[3], BAD_QUEUE_NO_PFN);
	assert_int_equal(seen_info[3], 7);
	assert_int_equal(seen[0], 1);
	assert_int_equal(seen[1], 5); /* the page holding the address */
	assert_int_equal(seen[2], 0x123456789ULL);
	assert_int_equal(seen_src[0], BAD_QUEUE_MCE);
	assert_int_equal(seen_src[1], BAD_QUEUE_INJECTION);
	assert_int_equal(bad_queue_drain(record, NULL), 0);
}

/*
 * Errors that name no page fill half the queue at most: a page pushed
 * after a broadcast machine check's flood of them still finds room.
 */
static void test_no_page_half(void **state)
{
	uint64_t before = bad_queue_overflows();
	unsigned int pages = BAD_QUEUE_SLOTS - BAD_QUEUE_SLOTS / 2;

	(void)state;
	drain_all();
	nseen = 0;
	for (unsigned int i = 0; i < BAD_QUEUE_SLOTS / 2; i++)
		assert_true(
			bad_queue_push(BAD_QUEUE_NO_ADDR, BAD_QUEUE_MCE, i));
	assert_false(bad_queue_push(BAD_QUEUE_NO_ADDR, BAD_QUEUE_MCE, 99));
	assert_int_equal(bad_queue_overflows(), before + 1);
	for (unsigned int i = 0; i < pages; i++)
		assert_true(bad_queue_push(0x7000 + ((uint64_t)i << 12),
					   BAD_QUEUE_MCE, 0));
	assert_false(bad_queue_push(0xdead000, BAD_QUEUE_MCE, 0));
	assert_int_equal(bad_queue_overflows(), before + 2);
	drain_all();
	assert_int_equal(nseen, BAD_QUEUE_SLOTS);
	assert_int_equal(seen[BAD_QUEUE_SLOTS / 2], 7);
	assert_int_equal(seen[BAD_QUEUE_SLOTS / 2 - 1], BAD_QUEUE_NO_PFN);
}

static void test_full(void **state)
{
	uint64_t before = bad_queue_overflows();

	(void)state;
	drain_all();
	nseen = 0;
	for (unsigned int i = 0; i < BAD_QUEUE_SLOTS; i++)
		assert_true(
			bad_queue_push((uint64_t)i << 12, BAD_QUEUE_MCE, 0));
	assert_false(bad_queue_push(0xdead000, BAD_QUEUE_MCE, 0));
	assert_int_equal(bad_queue_overflows(), before + 1);
	assert_int_equal(bad_queue_drain(record, NULL), BAD_QUEUE_SLOTS);
	for (unsigned int i = 0; i < BAD_QUEUE_SLOTS; i++)
		assert_int_equal(seen[i], i);
	/* Room again, and the ring wraps in order. */
	assert_true(bad_queue_push(0x77000, BAD_QUEUE_MCE, 0));
	assert_int_equal(bad_queue_drain(record, NULL), 1);
	assert_int_equal(seen[BAD_QUEUE_SLOTS], 0x77);
}

static void push_inside(uint64_t pfn, enum bad_queue_source src, uint64_t info,
			void *arg)
{
	record(pfn, src, info, arg);
	if (pfn == 1)
		assert_true(bad_queue_push(0x9000, BAD_QUEUE_MCE, 0));
}

static void test_push_while_draining(void **state)
{
	(void)state;
	drain_all();
	nseen = 0;
	assert_true(bad_queue_push(0x1000, BAD_QUEUE_MCE, 0));
	/* The push from the callback comes out in the same drain. */
	assert_int_equal(bad_queue_drain(push_inside, NULL), 2);
	assert_int_equal(seen[1], 9);
}

#define THREADS	   4
#define PER_THREAD 20000

static void *pusher(void *arg)
{
	uint64_t base = (uint64_t)(uintptr_t)arg * PER_THREAD;

	for (unsigned int i = 0; i < PER_THREAD; i++)
		while (!bad_queue_push((base + i) << 12, BAD_QUEUE_MCE, 0))
			;
	return NULL;
}

static void test_threads(void **state)
{
	static unsigned char got[THREADS * PER_THREAD];
	static uint64_t last[THREADS];
	pthread_t t[THREADS];

	(void)state;
	drain_all();
	nseen = 0;
	for (uintptr_t i = 0; i < THREADS; i++)
		assert_int_equal(pthread_create(&t[i], NULL, pusher, (void *)i),
				 0);
	while (nseen < THREADS * PER_THREAD)
		bad_queue_drain(record, NULL);
	for (unsigned int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	assert_int_equal(bad_queue_drain(record, NULL), 0);
	for (unsigned int i = 0; i < THREADS; i++)
		last[i] = (uint64_t)i * PER_THREAD;
	for (unsigned int i = 0; i < nseen; i++) {
		unsigned int who = (unsigned int)(seen[i] / PER_THREAD);

		assert_true(seen[i] < THREADS * PER_THREAD);
		assert_false(got[seen[i]]); /* never twice */
		got[seen[i]] = 1;
		/* Each thread's pages in the order it pushed them. */
		assert_true(seen[i] >= last[who]);
		last[who] = seen[i];
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_order_and_source),
		cmocka_unit_test(test_full),
		cmocka_unit_test(test_no_page_half),
		cmocka_unit_test(test_push_while_draining),
		cmocka_unit_test(test_threads),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
