/* SPDX-License-Identifier: MIT */
/*
 * common/mm/bad_take.c: what a take does with a broken page the heap
 * cannot take out, against the real heap (tests/unit/heap_offline_
 * fixture.h's machine: RAM [0, 4 GiB), the heap [1 GiB, 2 GiB)). Not the
 * heap's (RAM below it): one line, kept once for a live update's next
 * image with its source, named again without a second entry; not RAM: said,
 * not kept; the 65th not kept, said. In a chunk the scrubber holds: said
 * once, tried again at each take, silently while it is still held, and
 * taken out once the chunk is back, out of the list. The expected lines
 * are written out here.
 */
#include "heap_offline_fixture.h"

#include <asm/sandbox.h>
#include <keel/bad_queue.h>
#include <keel/ce_count.h>
#include <keel/heap_scrub.h>

#define STATUS 0xbd80000000100134ULL

static void fresh(void)
{
	machine();
	ce_count_reset();
	bad_queue_kept_reset();
	test_quiet_begin();
	sandbox_console_clear();
}

/* Page frame @n queued as a machine check queues it, then a take. */
static void mce(uint64_t n)
{
	assert_true(bad_queue_push(n << PAGE_SHIFT, BAD_QUEUE_MCE, STATUS));
	bad_queue_take(16);
}

struct seen {
	uint64_t pfn[80];
	unsigned int reason[80];
	unsigned int n;
};

static void seen_cb(pfn_t p, unsigned int reason, void *arg)
{
	struct seen *s = arg;

	s->pfn[s->n] = pfn_val(p);
	s->reason[s->n++] = reason;
}

static struct seen kept(void)
{
	struct seen s = {.n = 0};
	unsigned int n = bad_queue_kept(seen_cb, &s);

	assert_int_equal(n, s.n);
	return s;
}

static void test_not_heap(void **state)
{
	uint64_t v;
	struct seen s;

	(void)state;
	fresh();
	v = bad_queue_kept_version();
	mce(BASE - 1);
	assert_int_equal(test_console_count(
				 "mce: memory error in page 0x3ffff (status "
				 "0xbd80000000100134): not the heap's (keel's "
				 "own or reserved): kept in use, and named "
				 "bad to a live update's next image (-1)\n"),
			 1);
	s = kept();
	assert_int_equal(s.n, 1);
	assert_int_equal(s.pfn[0], BASE - 1);
	assert_int_equal(s.reason[0], HEAP_BAD_BROKEN | HEAP_BAD_FROM_MCE);
	assert_true(bad_queue_kept_version() != v);
	assert_int_equal(stats().bad_pages, 0);
	/* Again: said, not kept twice. */
	v = bad_queue_kept_version();
	mce(BASE - 1);
	assert_int_equal(
		test_console_count("page 0x3ffff (status 0xbd80000000100134): "
				   "not the heap's, named before (-1)\n"),
		1);
	assert_int_equal(kept().n, 1);
	assert_int_equal(bad_queue_kept_version(), v);
	/* An injection keeps its source. */
	assert_true(bad_queue_push((BASE - 2) << PAGE_SHIFT,
				   BAD_QUEUE_INJECTION, 0));
	bad_queue_take(16);
	s = kept();
	assert_int_equal(s.n, 2);
	assert_int_equal(s.reason[1],
			 HEAP_BAD_BROKEN | HEAP_BAD_FROM_INJECTION);
	/* Not RAM (the frame table's check refuses it first): not kept. */
	mce(5 * (GiB >> PAGE_SHIFT));
	assert_int_equal(
		test_console_count("page 0x140000 (status 0xbd80000000100134): "
				   "not RAM: nothing to take out (-22)\n"),
		1);
	assert_int_equal(kept().n, 2);
	test_heap_check_clean();
}

static void test_full(void **state)
{
	(void)state;
	fresh();
	for (uint64_t i = 0; i < 64; i++)
		mce(16 + i);
	assert_int_equal(kept().n, 64);
	mce(16 + 64);
	assert_int_equal(
		test_console_count("page 0x50 (status 0xbd80000000100134): not "
				   "the heap's (keel's own or reserved): kept "
				   "in use, and not named to a live update's "
				   "next image (64 named already) (-1)\n"),
		1);
	assert_int_equal(kept().n, 64);
}

static void test_waiting(void **state)
{
	struct page_info *chunk;
	unsigned int order;
	uint64_t v, p;
	char line[160];

	(void)state;
	test_machine_boot(&(struct test_machine_cfg){
		.ram = ram4g, .ram_count = 1, .no_handoff = true});
	heap_strict = true;
	assert_true(heap_add_range(0, pfn(BASE), pfn(BASE + PAGES), true) > 0);
	ce_count_reset();
	bad_queue_kept_reset();
	test_quiet_begin();
	sandbox_console_clear();
	chunk = heap_take_dirty(0, &order); /* as the idle scrubber does */
	assert_non_null(chunk);
	p = chunk->pfn + (1ULL << order) - 2;
	v = bad_queue_kept_version();
	mce(p);
	snprintf(line, sizeof(line),
		 "mce: memory error in page %#llx (status 0xbd80000000100134): "
		 "not yet: tried again at the next drain (-16)\n",
		 (unsigned long long)p);
	assert_int_equal(test_console_count(line), 1);
	/* Waiting: named to a live update all the same. */
	assert_int_equal(kept().n, 1);
	assert_int_equal(kept().pfn[0], p);
	assert_true(bad_queue_kept_version() != v);
	/* Still held: tried (the heap refuses again), the take says nothing. */
	v = bad_queue_kept_version();
	sandbox_console_clear();
	bad_queue_take(16);
	assert_int_equal(test_console_count("mce: "), 0);
	assert_true(test_console_contains("being scrubbed"));
	assert_int_equal(kept().n, 1);
	assert_int_equal(bad_queue_kept_version(), v);
	/* Back: taken out, the list empty. */
	heap_put_clean(chunk, order, false);
	bad_queue_take(16);
	snprintf(line, sizeof(line),
		 "mce: memory error in page %#llx (status 0xbd80000000100134): "
		 "taken out of service (0)\n",
		 (unsigned long long)p);
	assert_int_equal(test_console_count(line), 1);
	assert_int_equal(kept().n, 0);
	assert_true(bad_queue_kept_version() != v);
	assert_int_equal(stats().bad_pages, 1);
	assert_int_equal(heap_owner_of(pfn(p), NULL, NULL), HEAP_OWNER_BAD);
	test_heap_check_clean();
}

/*
 * A page of a domain's adopted memory marked (an injection), its range
 * then back to reserved: no heap memory, yet the heap names it. A machine
 * check on it says it is out of service already and keeps nothing: kept
 * under another source it would overlap the heap's record in a handover,
 * which the next image refuses whole.
 */
static void test_named_by_heap(void **state)
{
	uint64_t s = ADOPTED_PFN, e = ADOPTED_END;
	char line[160];

	(void)state;
	adopted_machine("static-mem");
	bad_queue_kept_reset();
	assert_int_equal(
		heap_offline(pfn(s + 3),
			     HEAP_BAD_BROKEN | HEAP_BAD_FROM_INJECTION),
		0);
	assert_int_equal(heap_release_owned(0, pfn(s), pfn(e), 7), 0);
	test_quiet_begin();
	sandbox_console_clear();
	mce(s + 3);
	snprintf(line, sizeof(line),
		 "mce: memory error in page %#llx (status 0xbd80000000100134): "
		 "already out of service (-1)\n",
		 (unsigned long long)(s + 3));
	assert_int_equal(test_console_count(line), 1);
	assert_int_equal(kept().n, 0);
	/* Its neighbour, not named: kept. */
	mce(s + 4);
	assert_int_equal(kept().n, 1);
	test_heap_check_clean();
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, test_setup, test_teardown)
	const struct CMUnitTest tests[] = {
		T(test_not_heap),
		T(test_full),
		T(test_waiting),
		T(test_named_by_heap),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
