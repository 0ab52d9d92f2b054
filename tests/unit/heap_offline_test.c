/* SPDX-License-Identifier: MIT */
/*
 * common/mm/heap_offline.c: heap_offline() and heap_online() in every
 * state a page can be in (a free chunk, an anonymous block, a domain's
 * extent, a per-CPU cache, memory the heap does not own, no RAM, twice),
 * with heap_check() after each. A bad page at the first, last and middle
 * page of a free 1 GiB (order 18) chunk: the free chunks left are exactly
 * the 18 largest aligned halves around it, 19 page entries written, and
 * allocating everything never hands the bad page out nor any page twice.
 * Xen's 2026 bugs as cases: misaligned halves (every chunk checked
 * aligned and equal to the expected halves), a tail that no longer merges
 * after the page comes back (online: one order-18 chunk again), a page
 * handed out twice (every block allocated, sorted, no overlap); and the
 * same on a chunk aligned to its own order only, two neighbouring pages.
 * Concurrency: tests/unit/heap_offline_race_test.c.
 */
#include "heap_offline_fixture.h"

#include <keel/heap_boot.h>
#include <keel/heap_check.h>
#include <keel/heap_scrub.h>

/*
 * The free chunks must be exactly the halves of [@s, @s + 2^@k) around
 * the one bad page @bad: for each level, the half without it.
 */
static void expect_halves(uint64_t s, unsigned int k, uint64_t bad)
{
	struct test_snap snap = test_heap_snapshot();
	uint64_t want[64];
	unsigned int n = 0;

	while (k--) {
		uint64_t mid = s + (1ULL << k);

		want[n++] = (bad < mid ? mid : s) << 6 | k;
		if (bad >= mid)
			s = mid;
	}
	sort(want, n, sizeof(want[0]), cmp_u64);
	assert_int_equal(snap.n, n);
	for (unsigned int i = 0; i < n; i++) {
		uint64_t p = snap.c[i].pfn;

		assert_int_equal(p << 6 | snap.c[i].order, want[i]);
		/* Misaligned halves (Xen 2026): each aligned to its size. */
		assert_int_equal(p & ((1ULL << snap.c[i].order) - 1), 0);
	}
	free(snap.c);
}

/* A bad page at @off of the free 1 GiB chunk, then back online. */
static void one_in_free_chunk(uint64_t off)
{
	uint64_t p = BASE + off;
	struct heap_stats st;
	struct test_snap snap;
	pfn_t head;
	unsigned int k;

	machine();
	assert_int_equal(heap_offline(pfn(p), HEAP_BAD_SOFT), 0);
	st = stats();
	assert_int_equal(st.bad_pages, 1);
	assert_int_equal(st.bad_held_pages, 0);
	assert_int_equal(st.free_pages, PAGES - 1);
	assert_int_equal(st.free_chunks, ORDER);
	assert_int_equal(st.total_pages, PAGES);
	/* O(order): the 18 halves' heads and the bad page. */
	assert_int_equal(st.offline_writes, ORDER + 1);
	expect_halves(BASE, ORDER, p);
	assert_int_equal(heap_owner_of(pfn(p), &head, &k), HEAP_OWNER_BAD);
	assert_int_equal(pfn_val(head), p);
	assert_int_equal(k, 0);
	test_heap_check_clean();

	/* Nothing handed out twice, the bad page never. */
	assert_int_equal(take_all(&p, 1, PAGES - 1), ORDER);
	expect_halves(BASE, ORDER, p);
	test_heap_check_clean();

	/* A tail that no longer merges (Xen 2026): online, one chunk. */
	assert_int_equal(heap_online(pfn(p)), 0);
	snap = test_heap_snapshot();
	assert_int_equal(snap.n, 1);
	assert_int_equal(snap.c[0].pfn, BASE);
	assert_int_equal(snap.c[0].order, ORDER);
	assert_int_equal(snap.c[0].first_dirty, off); /* that page: dirty */
	free(snap.c);
	assert_int_equal(stats().bad_pages, 0);
	assert_int_equal(heap_stats_all(0).free_pages, PAGES);
	test_heap_check_clean();
}

static void test_free_chunk_first(void **state)
{
	(void)state;
	one_in_free_chunk(0);
}

static void test_free_chunk_last(void **state)
{
	(void)state;
	one_in_free_chunk(PAGES - 1);
}

static void test_free_chunk_middle(void **state)
{
	(void)state;
	one_in_free_chunk(PAGES / 2);
	one_in_free_chunk(PAGES / 2 - 1);
	one_in_free_chunk(0x2a5a7);
}

/* The halves keep the chunk's scrub state: clean before fd, dirty after. */
static void test_free_chunk_dirty_state(void **state)
{
	struct test_snap snap;
	uint64_t p = BASE + 100;

	(void)state;
	machine();
	heap_offline(pfn(p), HEAP_BAD_BROKEN);
	/* Clean chunk: every half clean, none dirty. */
	assert_int_equal(stats().dirty_pages, 0);
	test_machine_boot(&(struct test_machine_cfg){
		.ram = ram4g, .ram_count = 1, .no_handoff = true});
	assert_true(heap_add_range(0, pfn(BASE), pfn(BASE + PAGES), true) > 0);
	assert_int_equal(heap_offline(pfn(p), HEAP_BAD_BROKEN), 0);
	assert_int_equal(stats().dirty_pages, PAGES - 1);
	snap = test_heap_snapshot();
	for (size_t i = 0; i < snap.n; i++)
		assert_int_equal(snap.c[i].first_dirty, 0);
	free(snap.c);
	test_heap_check_clean();
}

/* Twice, no RAM, not heap memory, a bad reason: refused, nothing changed. */
static void test_refusals(void **state)
{
	struct heap_stats before, after;
	struct test_snap a, b;
	uint64_t p = BASE + 77;

	(void)state;
	machine();
	assert_int_equal(heap_offline(pfn(p), HEAP_BAD_SOFT), 0);
	before = stats();
	a = test_heap_snapshot();
	test_quiet_begin();
	assert_int_equal(heap_offline(pfn(p), HEAP_BAD_SOFT), -EEXIST);
	assert_true(test_console_contains("already offline"));
	assert_int_equal(heap_offline(pfn(p), HEAP_BAD_BROKEN), -EEXIST);
	/* No RAM: beyond the 4 GiB. */
	assert_int_equal(heap_offline(pfn(32 * BASE + 5), HEAP_BAD_SOFT),
			 -EINVAL);
	assert_true(test_console_contains("not RAM"));
	/* RAM the heap was never given (keel's, reserved): its own. */
	assert_int_equal(heap_offline(pfn(300), HEAP_BAD_BROKEN), -EPERM);
	assert_true(test_console_contains("not heap memory"));
	assert_int_equal(heap_offline(pfn(p + 1), (enum heap_bad_reason)7),
			 -EINVAL);
	assert_true(test_console_contains("reason 0x7"));
	assert_int_equal(heap_online(pfn(p + 1)), -EINVAL);
	assert_int_equal(heap_online(pfn(300)), -EINVAL);
	assert_int_equal(test_console_warnings(), 7);
	test_quiet_end();
	after = stats();
	b = test_heap_snapshot();
	test_snap_equal(&a, &b);
	assert_int_equal(after.bad_pages, before.bad_pages);
	assert_int_equal(after.free_pages, before.free_pages);
	assert_int_equal(after.offline_writes, before.offline_writes);
	free(a.c);
	free(b.c);
	test_heap_check_clean();
}

/* BROKEN never comes back; SOFT does; counts by source. */
static void test_online_soft_only(void **state)
{
	uint64_t p = BASE + 4096, q = BASE + 9999;

	(void)state;
	machine();
	assert_int_equal(
		heap_offline(pfn(p), HEAP_BAD_BROKEN | HEAP_BAD_FROM_MCE), 0);
	assert_int_equal(heap_offline(pfn(q), (enum heap_bad_reason)(
						      HEAP_BAD_SOFT |
						      HEAP_BAD_FROM_INJECTION)),
			 0);
	assert_int_equal(stats().bad_by_source[HEAP_BAD_FROM_MCE >> 4], 1);
	assert_int_equal(stats().bad_by_source[HEAP_BAD_FROM_INJECTION >> 4],
			 1);
	test_quiet_begin();
	assert_int_equal(heap_online(pfn(p)), -EPERM);
	assert_true(test_console_contains("offlined as broken"));
	test_quiet_end();
	assert_int_equal(heap_owner_of(pfn(p), NULL, NULL), HEAP_OWNER_BAD);
	assert_int_equal(heap_online(pfn(q)), 0);
	assert_int_equal(stats().bad_pages, 1);
	assert_int_equal(stats().bad_by_source[HEAP_BAD_FROM_INJECTION >> 4],
			 0);
	assert_int_equal(heap_stats_all(0).free_pages, PAGES - 1);
	test_heap_check_clean();
	assert_int_equal(take_all(&p, 1, PAGES - 1), ORDER);
}

/*
 * An anonymous block: marked (still keel's), withheld at its free, the
 * rest back as the largest aligned chunks; the head page itself too.
 */
static void test_anonymous_block(void **state)
{
	struct page_info *pg;
	uint64_t h, bad[2];
	pfn_t head;
	unsigned int k;

	(void)state;
	machine();
	pg = heap_alloc(9, 0, 0, HEAP_NO_SCRUB, NULL);
	assert_non_null(pg);
	h = pg->pfn;
	bad[0] = h;	  /* the head itself */
	bad[1] = h + 300; /* a tail */
	assert_int_equal(heap_offline(pfn(bad[1]), HEAP_BAD_SOFT), 0);
	assert_int_equal(heap_offline(pfn(bad[0]), HEAP_BAD_BROKEN), 0);
	test_quiet_begin();
	assert_int_equal(heap_offline(pfn(bad[1]), HEAP_BAD_SOFT), -EEXIST);
	test_quiet_end();
	/* Still keel's block until it is freed. */
	assert_int_equal(heap_owner_of(pfn(bad[1]), &head, &k),
			 HEAP_OWNER_KEEL);
	assert_int_equal(pfn_val(head), h);
	assert_int_equal(k, 9);
	assert_int_equal(stats().bad_held_pages, 2);
	assert_int_equal(heap_held_bad_pages(0), 2);
	assert_int_equal(list_pages(), 1);
	assert_int_equal(heap_stats_all(0).free_pages, PAGES - 512 - 1);
	test_heap_check_clean();

	assert_int_equal(heap_free(pg, 9, HEAP_FREE_DIRTY), 0);
	assert_int_equal(stats().bad_held_pages, 0);
	assert_int_equal(stats().bad_pages, 2);
	assert_int_equal(heap_stats_all(0).free_pages, PAGES - 2 - 1);
	assert_int_equal(heap_owner_of(pfn(bad[0]), NULL, NULL),
			 HEAP_OWNER_BAD);
	assert_int_equal(heap_owner_of(pfn(bad[1]), NULL, NULL),
			 HEAP_OWNER_BAD);
	test_heap_check_clean();
	take_all(bad, 2, PAGES - 2 - 1);
	test_heap_check_clean();
	/* The soft one back: it merges; the broken head stays out. */
	assert_int_equal(heap_online(pfn(bad[1])), 0);
	assert_int_equal(heap_stats_all(0).free_pages, PAGES - 1 - 1);
	test_heap_check_clean();
	take_all(bad, 1, PAGES - 1 - 1);
}

/* A held soft page brought back before its block is freed: no trace. */
static void test_online_held(void **state)
{
	struct page_info *pg;

	(void)state;
	machine();
	pg = heap_alloc(4, 0, 0, HEAP_NO_SCRUB, NULL);
	assert_non_null(pg);
	assert_int_equal(heap_offline(pfn(pg->pfn + 3), HEAP_BAD_SOFT), 0);
	assert_true(pg->flags & PGF_HAS_BAD);
	assert_int_equal(heap_online(pfn(pg->pfn + 3)), 0);
	assert_false(pg->flags & PGF_HAS_BAD);
	assert_int_equal(stats().bad_pages, 0);
	assert_int_equal(heap_free(pg, 4, HEAP_FREE_ZEROED), 0);
	/* Merged as if never marked: only the list's page is out. */
	assert_int_equal(list_pages(), 1);
	assert_int_equal(heap_stats_all(0).free_pages, PAGES - 1);
	test_heap_check_clean();
	take_all(NULL, 0, PAGES - 1);
}

/*
 * A domain's extent: marked, counted for the domain's report, withheld
 * by heap_free_owned(); the domain's page count goes.
 */
static void test_owned_extent(void **state)
{
	struct page_info *pg;
	uint64_t bad[3];

	(void)state;
	machine();
	pg = heap_alloc_owned(12, 0, HEAP_NO_SCRUB, 7, NULL, NULL);
	assert_non_null(pg);
	bad[0] = pg->pfn + 4095;
	bad[1] = pg->pfn + 2048;
	bad[2] = pg->pfn + 2049;
	for (unsigned int i = 0; i < 3; i++)
		assert_int_equal(
			heap_offline(pfn(bad[i]),
				     HEAP_BAD_BROKEN | HEAP_BAD_FROM_MCE),
			0);
	assert_int_equal(heap_owner_of(pfn(bad[1]), NULL, NULL), 7);
	assert_int_equal(heap_held_bad_pages(7), 3);
	assert_int_equal(heap_held_bad_pages(8), 0);
	assert_int_equal(heap_held_bad_pages(0), 0);
	assert_int_equal(heap_stats_all(7).owned_pages, 4096);
	test_heap_check_clean();
	assert_int_equal(heap_free_owned(pg, 12, 7), 0);
	assert_int_equal(heap_stats_all(7).owned_pages, 0);
	assert_int_equal(heap_held_bad_pages(7), 0);
	assert_int_equal(stats().bad_pages, 3);
	assert_int_equal(stats().owned_pages, 0);
	assert_int_equal(heap_stats_all(0).free_pages,
			 PAGES - 3 - list_pages());
	test_heap_check_clean();
	take_all(bad, 3, PAGES - 3 - list_pages());
	test_heap_check_clean();
}

/* A page in a per-CPU cache: taken out of the cache first. */
static void test_cached_page(void **state)
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
	assert_int_equal(heap_free(pg, 0, HEAP_FREE_ZEROED), 0);
	assert_true(heap_cached_pages(-1, false) > 0);
	assert_int_equal(heap_offline(pfn(p), HEAP_BAD_BROKEN), 0);
	assert_int_equal(heap_owner_of(pfn(p), NULL, NULL), HEAP_OWNER_BAD);
	for (unsigned int i = 0; i < ARRAY_SIZE(got); i++) {
		got[i] = heap_alloc(0, 0, 0, HEAP_NO_SCRUB, NULL);
		assert_non_null(got[i]);
		assert_int_not_equal(got[i]->pfn, p);
	}
	for (unsigned int i = 0; i < ARRAY_SIZE(got); i++)
		assert_int_equal(heap_free(got[i], 0, HEAP_FREE_ZEROED), 0);
	heap_set_cpu_caches(false);
	assert_int_equal(heap_stats_all(0).free_pages, PAGES - 1);
	test_heap_check_clean();
}

/*
 * A free that raced a mark (heap_offline.c's file comment): the page is
 * held in the block, but the free read the head's flags before the mark
 * set PGF_HAS_BAD, so the block went into the CPU's cache (whose flags it
 * rewrites). Simulated in order: the mark, the flag taken off again, the
 * free. The page must stay out when the cache is drained (@scrub false)
 * or when the scrubber takes the dirty block from the cache (@scrub
 * true: it must not get the block, whose page it would write; the block
 * goes back with the page withheld). Before, the drain and the scrub's
 * put_clean merged the bad page into the free lists.
 */
static void cached_race(bool scrub)
{
	struct page_info *pg, *got;
	unsigned int k = 0;
	uint64_t p, cached;

	machine();
	heap_set_cpu_node(0, 0);
	heap_set_cpu_caches(true);
	pg = heap_alloc(0, 0, 0, HEAP_NO_SCRUB, NULL);
	assert_non_null(pg);
	p = pg->pfn;
	assert_int_equal(heap_offline(pfn(p), HEAP_BAD_BROKEN), 0);
	assert_true(pg->flags & PGF_HAS_BAD);
	pg->flags &= (uint8_t)~PGF_HAS_BAD; /* the racing free's stale read */
	cached = heap_cached_pages(-1, false); /* the refill's clean blocks */
	assert_int_equal(heap_free(pg, 0, HEAP_FREE_DIRTY), 0);
	assert_int_equal(heap_cached_pages(-1, false), cached + 1);
	if (scrub) {
		got = heap_take_dirty(0, &k);
		assert_null(got); /* the rest is clean, the dirty block bad */
		assert_int_equal(heap_cached_pages(-1, false), cached);
	} else {
		heap_drain_caches();
		assert_int_equal(heap_cached_pages(-1, false), 0);
	}
	assert_int_equal(heap_owner_of(pfn(p), NULL, NULL), HEAP_OWNER_BAD);
	assert_int_equal(stats().bad_pages, 1);
	assert_int_equal(stats().bad_held_pages, 0);
	heap_set_cpu_caches(false);
	/* Less the bad page and the held array's page (list_pages()). */
	assert_int_equal(heap_stats_all(0).free_pages,
			 PAGES - 1 - list_pages());
	test_heap_check_clean();
	take_all(&p, 1, PAGES - 1 - list_pages());
}

static void test_cached_race_drain(void **state)
{
	(void)state;
	cached_race(false);
}

static void test_cached_race_scrub(void **state)
{
	(void)state;
	cached_race(true);
}

/* Many pages held in one node: the held array grows (no fixed table). */
static void test_many_held(void **state)
{
	enum { N = 1000 };
	struct page_info *pg;
	static uint64_t bad[N];

	(void)state;
	machine();
	pg = heap_alloc(14, 0, 0, HEAP_NO_SCRUB, NULL);
	assert_non_null(pg);
	for (unsigned int i = 0; i < N; i++) {
		bad[i] = pg->pfn + 16 * i + (i % 16);
		assert_int_equal(heap_offline(pfn(bad[i]), HEAP_BAD_SOFT), 0);
	}
	assert_int_equal(stats().bad_held_pages, N);
	assert_int_equal(heap_held_bad_pages(0), N);
	test_heap_check_clean();
	assert_int_equal(heap_free(pg, 14, HEAP_FREE_DIRTY), 0);
	assert_int_equal(stats().bad_pages, N);
	assert_int_equal(stats().bad_held_pages, 0);
	/* 1000 entries of 16 bytes: grown 1, 2, 4 pages (no fixed table). */
	assert_int_equal(list_pages(), 4);
	assert_int_equal(heap_stats_all(0).free_pages, PAGES - N - 4);
	test_heap_check_clean();
	take_all(bad, N, PAGES - N - 4);
	for (unsigned int i = 0; i < N; i++)
		assert_int_equal(heap_online(pfn(bad[i])), 0);
	assert_int_equal(heap_stats_all(0).free_pages, PAGES - 4);
	test_heap_check_clean();
}

/* A chunk the idle scrubber detached: -EBUSY, then fine once it is back. */
static void test_detached_chunk_busy(void **state)
{
	struct page_info *pg;
	unsigned int k;
	uint64_t p;

	(void)state;
	test_machine_boot(&(struct test_machine_cfg){
		.ram = ram4g, .ram_count = 1, .no_handoff = true});
	heap_strict = true;
	assert_true(heap_add_range(0, pfn(BASE), pfn(BASE + PAGES), true) > 0);
	pg = heap_take_dirty(0, &k);
	assert_non_null(pg);
	p = pg->pfn + (1ULL << k) - 2;
	test_quiet_begin();
	assert_int_equal(heap_offline(pfn(p), HEAP_BAD_SOFT), -EBUSY);
	assert_true(test_console_contains("being scrubbed"));
	test_quiet_end();
	assert_int_equal(stats().bad_pages, 0);
	heap_put_clean(pg, k, false);
	assert_int_equal(heap_offline(pfn(p), HEAP_BAD_SOFT), 0);
	test_heap_check_clean();
}

struct seen {
	uint64_t pfn[4];
	unsigned int reason[4];
	int holder[4];
	unsigned int n;
};

static void note_bad(pfn_t p, unsigned int reason, int holder, void *arg)
{
	struct seen *s = arg;

	assert_true(s->n < 4);
	s->pfn[s->n] = pfn_val(p);
	s->reason[s->n] = reason;
	s->holder[s->n++] = holder;
}

/* heap_for_each_bad(): every offlined page, withheld or held, and by whom. */
static void test_for_each_bad(void **state)
{
	struct page_info *pg;
	struct seen s = {0};

	(void)state;
	machine();
	pg = heap_alloc_owned(3, 0, HEAP_NO_SCRUB, 9, NULL, NULL);
	assert_non_null(pg);
	assert_int_equal(heap_offline(pfn(BASE + 5),
				      HEAP_BAD_SOFT | HEAP_BAD_FROM_OPTION),
			 0);
	assert_int_equal(heap_offline(pfn(pg->pfn + 1), HEAP_BAD_BROKEN), 0);
	assert_int_equal(heap_for_each_bad(0, note_bad, &s), 2);
	assert_int_equal(s.n, 2);
	assert_int_equal(s.pfn[0], BASE + 5);
	assert_int_equal(s.holder[0], HEAP_OWNER_BAD);
	assert_int_equal(s.reason[0], HEAP_BAD_SOFT | HEAP_BAD_FROM_OPTION);
	assert_int_equal(s.pfn[1], pg->pfn + 1);
	assert_int_equal(s.holder[1], 9);
	assert_int_equal(s.reason[1], HEAP_BAD_BROKEN);
	assert_int_equal(heap_for_each_bad(1, note_bad, &s), 0);
}

/*
 * A domain's adopted static memory: marked as any extent; its release
 * back to reserved keeps the mark (still counted, withheld from nothing:
 * the page is reserved again).
 */
static void test_adopted_marked(void **state)
{
	uint64_t s = ADOPTED_PFN, e = ADOPTED_END;

	(void)state;
	adopted_machine("static-mem");
	assert_int_equal(heap_offline(pfn(s + 3), HEAP_BAD_BROKEN), 0);
	assert_int_equal(stats().bad_held_pages, 1);
	assert_int_equal(heap_held_bad_pages(7), 1);
	test_heap_check_clean();
	assert_int_equal(heap_release_owned(0, pfn(s), pfn(e), 7), 0);
	assert_int_equal(stats().bad_pages, 1);
	assert_int_equal(stats().bad_held_pages, 1);
	test_heap_check_clean();
}

/*
 * Xen's 2026 bugs on a chunk aligned to its own order only (order 12 at
 * an odd multiple of 2^12), two neighbouring pages offlined one after
 * the other: every chunk left aligned to its order and inside the chunk
 * (misaligned buddies rebuilt), nothing handed out twice, and once both
 * are back the chunk is whole again (a tail merge broken).
 */
static void test_xen_2026_cases(void **state)
{
	const uint64_t s = BASE + 0x3000, e = s + 0x1000;
	uint64_t bad[2] = {s + 0x7ff, s + 0x800};
	struct test_snap snap;
	uint64_t pages = 0;

	(void)state;
	test_machine_boot(&(struct test_machine_cfg){
		.ram = ram4g, .ram_count = 1, .no_handoff = true});
	heap_strict = true;
	assert_true(heap_add_range(0, pfn(s), pfn(e), false) > 0);
	assert_int_equal(test_heap_snapshot().n, 1);
	for (unsigned int i = 0; i < 2; i++)
		assert_int_equal(heap_offline(pfn(bad[i]), HEAP_BAD_SOFT), 0);
	snap = test_heap_snapshot();
	assert_int_equal(snap.n, 22); /* 11 halves on each side */
	for (size_t i = 0; i < snap.n; i++) {
		uint64_t p = snap.c[i].pfn, n = 1ULL << snap.c[i].order;

		assert_int_equal(p & (n - 1), 0);
		assert_true(p >= s && p + n <= e);
		assert_false(bad[0] >= p && bad[0] < p + n);
		assert_false(bad[1] >= p && bad[1] < p + n);
		pages += n;
	}
	free(snap.c);
	assert_int_equal(pages, 0x1000 - 2);
	test_heap_check_clean();
	take_all(bad, 2, 0x1000 - 2);
	assert_int_equal(heap_online(pfn(bad[1])), 0);
	assert_int_equal(heap_online(pfn(bad[0])), 0);
	snap = test_heap_snapshot();
	assert_int_equal(snap.n, 1);
	assert_int_equal(snap.c[0].pfn, s);
	assert_int_equal(snap.c[0].order, 12);
	free(snap.c);
	test_heap_check_clean();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_free_chunk_first,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_free_chunk_last,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_free_chunk_middle,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_free_chunk_dirty_state,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_xen_2026_cases, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_refusals, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_online_soft_only,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_anonymous_block,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_online_held, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_owned_extent, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_cached_page, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_cached_race_drain,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_cached_race_scrub,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_many_held, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_detached_chunk_busy,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_for_each_bad, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_adopted_marked, test_setup,
						test_teardown),
	};

	return cmocka_run_group_tests(tests, test_setup, test_teardown);
}
