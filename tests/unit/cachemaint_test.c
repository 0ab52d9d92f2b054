/* SPDX-License-Identifier: MIT */
/*
 * common/mm/cachemaint.c with the heap: clean_poc blocks cost 0 operations,
 * eager is one operation per page, deferred one per allocation, no_flush
 * batches are flushed exactly once each, and PGF_CLEAN_POC survives a split
 * but not a free or a merge with an unclean buddy; a random model checks
 * that every block is handed out cleaned exactly once since its pages were
 * last written; a policy passed per call counts in its own sink only. The
 * sandbox counts the maintenance the arch would do.
 */
#include "common.h"

#define BASE (4096ULL + 256) /* pfn: 17 MiB, aligned to 1 MiB */

static const struct test_ram one_node[] = {
	{0, 64 * MiB, 0},
};

static void machine(enum cachemaint_mode mode)
{
	struct test_machine_cfg c = {
		.ram = one_node,
		.ram_count = 1,
		.no_handoff = true,
		.cachemaint = mode,
	};

	test_machine_boot(&c);
	heap_strict = true;
	sandbox_cache_counters_reset();
}

static struct sandbox_cache_counters counters(void)
{
	struct sandbox_cache_counters c;

	sandbox_cache_counters(&c);
	return c;
}

/* Make every free chunk clean to PoC, as the boot scrubber would. */
static void mark_all_poc(void)
{
	struct test_snap s = test_heap_snapshot();

	for (size_t i = 0; i < s.n; i++)
		heap_mark_clean(pfn_to_page(pfn(s.c[i].pfn)), true);
	free(s.c);
}

static void test_clean_poc_costs_nothing(void **state)
{
	struct sandbox_cache_counters c;
	struct page_info *pg;
	struct test_snap s;

	machine(CACHEMAINT_DEFERRED);
	assert_int_equal(heap_cachemaint()->mode, CACHEMAINT_DEFERRED);
	assert_true(heap_add_range(0, pfn(BASE), pfn(BASE + 256), false));
	mark_all_poc();
	pg = heap_alloc(4, HEAP_ANY_NODE, 0, 0, NULL);
	assert_non_null(pg);
	assert_true(pg->flags & PGF_CLEAN_POC);
	c = counters();
	assert_int_equal(c.clean_inval_ops + c.clean_ops, 0);
	assert_int_equal(heap_cachemaint()->stats->ops, 0);
	/* Split halves put back kept the bit. */
	s = test_heap_snapshot();
	for (size_t i = 0; i < s.n; i++)
		assert_true(s.c[i].flags & PGF_CLEAN_POC);
	free(s.c);
	test_heap_check_clean();

	/* Freed: written memory, no longer clean; the merge drops it. */
	assert_int_equal(heap_free(pg, 4, HEAP_FREE_ZEROED), 0);
	s = test_heap_snapshot();
	assert_int_equal(s.n, 1);
	assert_false(s.c[0].flags & PGF_CLEAN_POC);
	free(s.c);
	pg = heap_alloc(4, HEAP_ANY_NODE, 0, 0, NULL);
	assert_false(pg->flags & PGF_CLEAN_POC);
	c = counters();
	assert_int_equal(c.clean_inval_ops, 1);
}

static void test_deferred_one_op(void **state)
{
	struct sandbox_cache_counters c;
	struct page_info *pg;

	machine(CACHEMAINT_DEFERRED);
	assert_true(heap_add_range(0, pfn(BASE), pfn(BASE + 256), false));
	pg = heap_alloc(6, HEAP_ANY_NODE, 0, 0, NULL);
	assert_non_null(pg);
	c = counters();
	assert_int_equal(c.clean_inval_ops, 1);
	assert_int_equal(c.clean_inval_bytes, 64 * 4096);
	assert_int_equal(c.icache_invals, 0);
	assert_int_equal(heap_cachemaint()->stats->ops, 1);
	assert_int_equal(heap_cachemaint()->stats->bytes, 64 * 4096);
	pg = heap_alloc(5, HEAP_ANY_NODE, 0, HEAP_ICACHE, NULL);
	assert_non_null(pg);
	c = counters();
	assert_int_equal(c.clean_inval_ops, 2);
	assert_int_equal(c.icache_invals, 1);
}

static void test_eager_per_page(void **state)
{
	struct sandbox_cache_counters c;

	machine(CACHEMAINT_EAGER);
	assert_int_equal(heap_cachemaint()->mode, CACHEMAINT_EAGER);
	assert_true(heap_add_range(0, pfn(BASE), pfn(BASE + 256), false));
	assert_non_null(heap_alloc(6, HEAP_ANY_NODE, 0, 0, NULL));
	c = counters();
	assert_int_equal(c.clean_inval_ops, 64);
	assert_int_equal(c.clean_inval_bytes, 64 * 4096);
}

static void test_none_mode(void **state)
{
	struct sandbox_cache_counters c;

	machine(CACHEMAINT_NONE);
	assert_true(heap_add_range(0, pfn(BASE), pfn(BASE + 256), false));
	assert_non_null(heap_alloc(6, HEAP_ANY_NODE, 0, HEAP_ICACHE, NULL));
	c = counters();
	assert_int_equal(c.clean_inval_ops + c.icache_invals, 0);
}

/* ---- no_flush batches --------------------------------------------------- */

#define OBS_MAX 256
static struct {
	uint64_t start, len;
} seen[OBS_MAX];
static unsigned int seen_count;

static void observer(paddr_t start, uint64_t len, bool invalidate)
{
	assert_true(invalidate);
	assert_true(seen_count < OBS_MAX);
	seen[seen_count].start = pa_val(start);
	seen[seen_count].len = len;
	seen_count++;
}

static void test_no_flush_batch(void **state)
{
	struct page_info *pg[70];
	unsigned int i, j, hits;

	machine(CACHEMAINT_DEFERRED);
	assert_true(heap_add_range(0, pfn(BASE), pfn(BASE + 1024), false));
	seen_count = 0;
	sandbox_set_cache_observer(observer);
	for (i = 0; i < 5; i++) {
		pg[i] = heap_alloc(i % 3, HEAP_ANY_NODE, 0, HEAP_NO_FLUSH,
				   NULL);
		assert_non_null(pg[i]);
		assert_true(pg[i]->flags & PGF_NEED_FLUSH);
	}
	assert_int_equal(seen_count, 0);
	assert_int_equal(heap_cachemaint()->stats->pending_ranges, 5);
	assert_int_equal(cachemaint_flush_batch(heap_cachemaint()), 5);
	assert_int_equal(seen_count, 5);
	for (i = 0; i < 5; i++) {
		hits = 0;
		for (j = 0; j < seen_count; j++)
			if (seen[j].start ==
				    pa_val(pfn_to_paddr(pfn(pg[i]->pfn))) &&
			    seen[j].len == (4096ULL << (i % 3)))
				hits++;
		assert_int_equal(hits, 1);
		assert_false(pg[i]->flags & PGF_NEED_FLUSH);
	}
	assert_int_equal(cachemaint_flush_batch(heap_cachemaint()), 0);
	assert_int_equal(seen_count, 5);

	/* More than the batch holds: flushed on the way, each once. */
	seen_count = 0;
	for (i = 0; i < 70; i++) {
		pg[i] = heap_alloc(0, HEAP_ANY_NODE, 0, HEAP_NO_FLUSH, NULL);
		assert_non_null(pg[i]);
	}
	cachemaint_flush_batch(heap_cachemaint());
	assert_int_equal(seen_count, 70);
	for (i = 0; i < 70; i++) {
		hits = 0;
		for (j = 0; j < seen_count; j++)
			hits += seen[j].start ==
				pa_val(pfn_to_paddr(pfn(pg[i]->pfn)));
		assert_int_equal(hits, 1);
		assert_false(pg[i]->flags & PGF_NEED_FLUSH);
	}
	sandbox_set_cache_observer(NULL);
}

/* ---- clean_poc through merges --------------------------------------------- */

static void test_poc_merge_rules(void **state)
{
	struct page_info *a, *b, *t;
	unsigned int order;
	struct test_snap s;

	/* A clean_poc chunk merged with a plain clean buddy: bit dropped. */
	machine(CACHEMAINT_DEFERRED);
	assert_true(heap_add_range(0, pfn(BASE), pfn(BASE + 8), false));
	mark_all_poc();
	assert_true(heap_add_range(0, pfn(BASE + 8), pfn(BASE + 16), false));
	s = test_heap_snapshot();
	assert_int_equal(s.n, 1);
	assert_int_equal(s.c[0].order, 4);
	assert_false(s.c[0].flags & PGF_CLEAN_POC);
	free(s.c);

	/* Both halves clean_poc (returned by the scrubber): bit kept. */
	machine(CACHEMAINT_DEFERRED);
	assert_true(heap_add_range(0, pfn(BASE), pfn(BASE + 16), true));
	a = heap_alloc(3, HEAP_ANY_NODE, 0, HEAP_NO_SCRUB, NULL);
	b = heap_alloc(3, HEAP_ANY_NODE, 0, HEAP_NO_SCRUB, NULL);
	assert_non_null(a);
	assert_non_null(b);
	assert_int_equal(heap_free(a, 3, HEAP_FREE_DIRTY), 0);
	t = heap_take_dirty(0, &order);
	assert_ptr_equal(t, a);
	assert_int_equal(order, 3);
	assert_int_equal(heap_free(b, 3, HEAP_FREE_DIRTY), 0);
	/* b's buddy a is detached: no merge. */
	t = heap_take_dirty(0, &order);
	assert_ptr_equal(t, b);
	assert_null(heap_take_dirty(0, &order));
	assert_int_equal(heap_stats_all(0).free_pages, 0);
	heap_put_clean(a, 3, true);
	heap_put_clean(b, 3, true);
	s = test_heap_snapshot();
	assert_int_equal(s.n, 1);
	assert_int_equal(s.c[0].order, 4);
	assert_true(s.c[0].flags & PGF_CLEAN_POC);
	assert_int_equal(s.c[0].first_dirty, FIRST_DIRTY_NONE);
	free(s.c);
	assert_int_equal(test_node_stats(0)->dirty_pages, 0);
	test_heap_check_clean();

	/* A half freed clean but written (no clean_poc): the merge drops it. */
	a = heap_alloc(3, HEAP_ANY_NODE, 0, 0, NULL);
	b = heap_alloc(3, HEAP_ANY_NODE, 0, 0, NULL);
	assert_int_equal(heap_free(a, 3, HEAP_FREE_ZEROED), 0);
	t = heap_take_dirty(0, &order);
	assert_null(t); /* clean chunks are never taken */
	assert_int_equal(heap_free(b, 3, HEAP_FREE_DIRTY), 0);
	s = test_heap_snapshot();
	assert_int_equal(s.n, 1);
	assert_false(s.c[0].flags & PGF_CLEAN_POC);
	free(s.c);
	test_heap_check_clean();
}

/* ---- a model of "clean since last written" ------------------------------- */

/*
 * Every page's number of cleans to PoC since it was last written, kept from
 * the sandbox observers: the scrub primitive writes (and, for the boot
 * scrubber's variant, cleans), maintenance cleans, the test writes what it
 * holds before freeing it. Handing out a block whose pages are not clean
 * exactly once since their last write is the bug this model looks for:
 * zero cleans leaves the caller's view stale, two is wasted maintenance.
 */
#define M_PAGES 1024
#define M_HELD	24

static uint8_t m_cleans[M_PAGES];

static void m_range(paddr_t start, uint64_t len, int set, bool add)
{
	uint64_t p = pa_val(start) >> PAGE_SHIFT, n = len >> PAGE_SHIFT;

	assert_true(p >= BASE && p + n <= BASE + M_PAGES);
	for (uint64_t i = p - BASE; i < p - BASE + n; i++)
		m_cleans[i] = add ? (uint8_t)(m_cleans[i] + 1) : (uint8_t)set;
}

static void m_cache_obs(paddr_t start, uint64_t len, bool invalidate)
{
	m_range(start, len, 0, true);
}

static void m_scrub_obs(paddr_t start, uint64_t len, bool clean)
{
	m_range(start, len, clean ? 1 : 0, false);
}

static void m_expect_once(const struct page_info *pg, unsigned int order)
{
	for (uint64_t i = 0; i < (1ULL << order); i++)
		if (m_cleans[pg->pfn - BASE + i] != 1)
			fail_msg("pfn %#llx of a block of order %u handed out "
				 "cleaned %u times since written",
				 (unsigned long long)(pg->pfn + i), order,
				 m_cleans[pg->pfn - BASE + i]);
}

static void m_write(const struct page_info *pg, unsigned int order)
{
	uint64_t n = 1ULL << order;

	memset(phys_to_virt(pfn_to_paddr(pfn(pg->pfn))), 0x5a, n << PAGE_SHIFT);
	memset(&m_cleans[pg->pfn - BASE], 0, n);
}

/* A block the model holds; pending: allocated HEAP_NO_FLUSH, not flushed. */
struct m_held {
	struct page_info *pg;
	unsigned int order;
	bool pending;
};

/* Allocate a random block into @h (deferred sometimes). Return: taken. */
static bool m_take(struct m_held *h, enum cachemaint_mode mode)
{
	unsigned int order = (unsigned int)rand() % 5;
	bool defer = mode == CACHEMAINT_DEFERRED && !(rand() % 4);
	struct page_info *pg = heap_alloc(order, HEAP_ANY_NODE, 0,
					  defer ? HEAP_NO_FLUSH : 0, NULL);

	if (!pg)
		return false;
	if (!defer)
		m_expect_once(pg, order);
	h->pg = pg;
	h->order = order;
	h->pending = defer;
	return true;
}

/* A hypervisor flushes a built guest in one pass. */
static void m_flush_held(struct m_held *held, unsigned int count)
{
	cachemaint_flush_batch(heap_cachemaint());
	for (unsigned int j = 0; j < count; j++) {
		if (!held[j].pending)
			continue;
		m_expect_once(held[j].pg, held[j].order);
		held[j].pending = false;
	}
}

static void clean_once_model(enum cachemaint_mode mode, unsigned int seed)
{
	struct m_held held[M_HELD];
	unsigned int count = 0, handed = 0;

	machine(mode);
	/* Handed over dirty and never cleaned: zero cleans everywhere. */
	assert_true(heap_add_range(0, pfn(BASE), pfn(BASE + M_PAGES), true));
	memset(m_cleans, 0, sizeof(m_cleans));
	sandbox_set_cache_observer(m_cache_obs);
	sandbox_set_scrub_observer(m_scrub_obs);
	srand(seed);
	for (unsigned int op = 0; op < 4000; op++) {
		unsigned int i = count ? (unsigned int)rand() % count : 0;

		if (count < M_HELD && (count == 0 || rand() % 2)) {
			if (!m_take(&held[count], mode))
				continue;
			count++;
			handed++;
		} else if (rand() % 8 == 0) {
			m_flush_held(held, count);
		} else if (!held[i].pending) {
			m_write(held[i].pg, held[i].order);
			assert_int_equal(heap_free(held[i].pg, held[i].order,
						   rand() % 2),
					 0);
			held[i] = held[--count];
		}
	}
	assert_true(handed > 500);
	cachemaint_flush_batch(heap_cachemaint());
	while (count) {
		count--;
		m_write(held[count].pg, held[count].order);
		assert_int_equal(heap_free(held[count].pg, held[count].order,
					   HEAP_FREE_DIRTY),
				 0);
	}
	sandbox_set_cache_observer(NULL);
	sandbox_set_scrub_observer(NULL);
	assert_int_equal(heap_check(), 0);
}

static void test_clean_once_deferred(void **state)
{
	clean_once_model(CACHEMAINT_DEFERRED, 1);
	clean_once_model(CACHEMAINT_DEFERRED, 2);
}

static void test_clean_once_eager(void **state)
{
	clean_once_model(CACHEMAINT_EAGER, 3);
}

/*
 * A policy passed per call counts in its own sink only: the heap's mode
 * and counters are untouched, a no_flush range is flushed into the sink
 * it was recorded with (the batch counted in the flusher's).
 */
static void test_policy_per_call(void **state)
{
	struct cachemaint_stats mine = {0};
	const struct cachemaint eager =
		cachemaint_policy(CACHEMAINT_EAGER, &mine);
	const struct cachemaint *heap;
	struct page_info *pg;

	machine(CACHEMAINT_DEFERRED);
	heap = heap_cachemaint();
	assert_true(heap_add_range(0, pfn(BASE), pfn(BASE + 256), false));
	pg = heap_alloc(3, HEAP_ANY_NODE, 0, 0, &eager);
	assert_non_null(pg);
	assert_int_equal(mine.ops, 8); /* eager: per page */
	assert_int_equal(heap->stats->ops, 0);
	assert_int_equal(heap->mode, CACHEMAINT_DEFERRED);
	assert_non_null(heap_alloc(3, HEAP_ANY_NODE, 0, 0, NULL));
	assert_int_equal(heap->stats->ops, 1); /* deferred: one range */
	assert_int_equal(mine.ops, 8);

	mine = (struct cachemaint_stats){0};
	{
		const struct cachemaint deferred =
			cachemaint_policy(CACHEMAINT_DEFERRED, &mine);

		assert_non_null(heap_alloc(2, HEAP_ANY_NODE, 0, HEAP_NO_FLUSH,
					   &deferred));
		assert_int_equal(mine.pending_ranges, 1);
		assert_int_equal(heap->stats->pending_ranges, 0);
		assert_int_equal(cachemaint_flush_batch(heap), 1);
		assert_int_equal(mine.ops, 1);
		assert_int_equal(mine.pending_ranges, 0);
		assert_int_equal(heap->stats->ops, 1);
		assert_int_equal(heap->stats->batches, 1);
		assert_int_equal(mine.batches, 0);
	}
	assert_int_equal(heap_free(pg, 3, HEAP_FREE_ZEROED), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_clean_poc_costs_nothing,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_deferred_one_op,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_eager_per_page, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_none_mode, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_no_flush_batch, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_poc_merge_rules,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_clean_once_deferred,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_clean_once_eager,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_policy_per_call,
						test_setup, test_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
