/* SPDX-License-Identifier: MIT */
/*
 * The allocation self-benchmark (common/bench.c): the rows it produces, the
 * maintenance each row really performed (sandbox cache counters, not the
 * kernel's own statistics), and that the heap is left exactly as it was:
 * same free chunks with the same first_dirty and PGF_CLEAN_POC, same
 * counters, zeroed memory, same cachemaint mode and statistics.
 */
#include <stdlib.h>

#include "common.h"

#include <keel/bench.h>
#include <keel/report.h>
#include <keel/scrub.h>

#define MIB	 (1ULL << 20)
#define NODE_RAM (64 * MIB)

/* ---- heap snapshots ----------------------------------------------------- */

struct chunk {
	uint64_t pfn;
	uint32_t first_dirty;
	uint8_t order, node, flags;
};

struct snap {
	struct chunk c[4096];
	size_t n;
	uint64_t free_pages[MAX_NUMNODES], free_chunks[MAX_NUMNODES];
	uint64_t dirty_pages[MAX_NUMNODES];
};

static void snap_cb(struct page_info *head, unsigned int order,
		    unsigned int zone, void *arg)
{
	struct snap *s = arg;

	(void)zone;
	assert_true(s->n < sizeof(s->c) / sizeof(s->c[0]));
	s->c[s->n].pfn = head->pfn;
	s->c[s->n].first_dirty = head->first_dirty;
	s->c[s->n].order = (uint8_t)order;
	s->c[s->n].node = head->node;
	/* PGF_NEED_FLUSH is meaningless on a free chunk. */
	s->c[s->n].flags = head->flags & PGF_CLEAN_POC;
	s->n++;
}

static int chunk_cmp(const void *a, const void *b)
{
	const struct chunk *x = a, *y = b;

	return x->pfn < y->pfn ? -1 : x->pfn > y->pfn;
}

static struct snap *snap_take(void)
{
	struct snap *s = calloc(1, sizeof(*s));

	assert_non_null(s);
	for (unsigned int n = 0; n < heap_node_count(); n++) {
		const struct heap_node_stats *st = heap_node_stats(n);

		heap_for_each_free(n, snap_cb, s);
		s->free_pages[n] = st->free_pages;
		s->free_chunks[n] = st->free_chunks;
		s->dirty_pages[n] = st->dirty_pages;
	}
	qsort(s->c, s->n, sizeof(s->c[0]), chunk_cmp);
	return s;
}

static void snap_equal(const struct snap *a, const struct snap *b)
{
	assert_int_equal(a->n, b->n);
	for (size_t i = 0; i < a->n; i++) {
		const struct chunk *x = &a->c[i], *y = &b->c[i];

		if (x->pfn != y->pfn || x->order != y->order ||
		    x->node != y->node || x->first_dirty != y->first_dirty ||
		    x->flags != y->flags)
			fail_msg("chunk %zu: pfn %#llx o%u n%u fd%u f%#x, now "
				 "pfn %#llx o%u n%u fd%u f%#x",
				 i, (unsigned long long)x->pfn, x->order,
				 x->node, x->first_dirty, x->flags,
				 (unsigned long long)y->pfn, y->order, y->node,
				 y->first_dirty, y->flags);
	}
	for (unsigned int n = 0; n < MAX_NUMNODES; n++) {
		assert_int_equal(a->free_pages[n], b->free_pages[n]);
		assert_int_equal(a->free_chunks[n], b->free_chunks[n]);
		assert_int_equal(a->dirty_pages[n], b->dirty_pages[n]);
	}
}

/* Every free page reads as zero (the bench's writes were undone). */
static void assert_free_memory_zero(const struct snap *s)
{
	for (size_t i = 0; i < s->n; i++) {
		const uint8_t *va =
			phys_to_virt(pfn_to_paddr(pfn(s->c[i].pfn)));
		uint64_t len = PAGE_SIZE << s->c[i].order;

		if (s->c[i].first_dirty != FIRST_DIRTY_NONE)
			continue;
		for (uint64_t off = 0; off < len; off += 8)
			if (*(const uint64_t *)(va + off))
				fail_msg("pfn %#llx + %#llx is not zero",
					 (unsigned long long)s->c[i].pfn,
					 (unsigned long long)off);
	}
}

static void heap_check_none(void)
{
	unsigned int bad;

	test_quiet_begin();
	bad = heap_check();
	test_quiet_end();
	assert_int_equal(bad, 0);
}

/* ---- machines ------------------------------------------------------------ */

/* Two nodes of 64 MiB, one CPU each, filled then boot-scrubbed. */
static void boot2(bool scrub)
{
	struct test_machine_cfg cfg = {
		.nodes = 2,
		.node = {{NODE_RAM, 1}, {NODE_RAM, 1}},
		.fill = scrub ? 0xAA : 0,
		.dirty = scrub,
	};

	test_machine_boot(&cfg);
	test_quiet_begin();
	scrub_boot(scrub ? SCRUB_ON : SCRUB_OFF, 4 * MIB, false);
	test_quiet_end();
	cachemaint_init(CACHEMAINT_DEFERRED);
}

static const struct bench_row *find_row(uint32_t node, unsigned int order,
					const char *mode, bool dirty)
{
	const struct bench_row *found = NULL;

	for (unsigned int i = 0; i < bench_row_count; i++) {
		const struct bench_row *r = &bench_rows[i];

		if (r->node == node && r->order == order &&
		    !strcmp(r->mode, mode) && r->dirty == dirty) {
			if (found)
				fail_msg("two rows node %u order %u %s %s",
					 node, order, mode,
					 dirty ? "dirty" : "clean");
			found = r;
		}
	}
	return found;
}

/* ---- bench_run ----------------------------------------------------------- */

static void test_run_rows_and_heap_unchanged(void **state)
{
	static const unsigned int orders[] = {0, 9};
	static const uint64_t counts[] = {64, 16};
	static const char *const modes[] = {"deferred", "eager"};
	struct cachemaint_stats cs_before;
	struct snap *before, *after;

	(void)state;
	boot2(true);
	before = snap_take();
	/* The boot scrub left every chunk clean to PoC. */
	for (size_t i = 0; i < before->n; i++)
		assert_int_equal(before->c[i].flags, PGF_CLEAN_POC);
	cs_before = cachemaint_stats;

	test_quiet_begin();
	bench_run();
	test_quiet_end();

	/* 2 nodes x orders {0, 9} x {clean, dirty} x {deferred, eager}. */
	assert_int_equal(bench_row_count, 16);
	for (unsigned int n = 0; n < 2; n++)
		for (unsigned int o = 0; o < 2; o++)
			for (unsigned int m = 0; m < 2; m++)
				for (unsigned int d = 0; d < 2; d++) {
					const struct bench_row *r = find_row(
						n, orders[o], modes[m], d);

					if (!r)
						fail_msg("no row node %u order "
							 "%u %s %s",
							 n, orders[o], modes[m],
							 d ? "dirty" : "clean");
					assert_int_equal(r->count, counts[o]);
					assert_true(r->ns_max >= r->ns_avg);
				}
	/* Order 18 needs a 1 GiB chunk: a 64 MiB node cannot. */
	for (unsigned int i = 0; i < bench_row_count; i++)
		assert_true(bench_rows[i].order <= 9);

	after = snap_take();
	snap_equal(before, after);
	assert_int_equal(heap_free_pages(), heap_total_pages());
	heap_check_none();
	assert_free_memory_zero(after);
	assert_int_equal(cachemaint_mode(), CACHEMAINT_DEFERRED);
	assert_int_equal(cachemaint_stats.ops, cs_before.ops);
	assert_int_equal(cachemaint_stats.bytes, cs_before.bytes);
	free(before);
	free(after);
}

/* bootscrub=off: nothing is clean_poc, so only dirty rows can exist. */
static void test_run_without_boot_scrub(void **state)
{
	struct snap *before, *after;

	(void)state;
	boot2(false);
	before = snap_take();
	test_quiet_begin();
	bench_run();
	assert_true(test_console_contains("clean rows skipped"));
	test_quiet_end();

	assert_int_equal(bench_row_count, 8);
	for (unsigned int i = 0; i < bench_row_count; i++)
		assert_true(bench_rows[i].dirty);
	after = snap_take();
	snap_equal(before, after);
	heap_check_none();
	free(before);
	free(after);
}

/* ---- single rows: what maintenance really happened ---------------------- */

struct one {
	struct bench_row row;
	struct bench_detail det;
	struct sandbox_cache_counters cc;
};

static struct one run_one(uint32_t node, unsigned int order,
			  enum cachemaint_mode mode, bool dirty, uint64_t count)
{
	struct one o;
	struct snap *before = snap_take(), *after;

	memset(&o, 0, sizeof(o));
	sandbox_cache_counters_reset();
	test_quiet_begin();
	assert_int_equal(
		bench_one(node, order, mode, dirty, count, &o.row, &o.det), 0);
	test_quiet_end();
	sandbox_cache_counters(&o.cc);
	after = snap_take();
	snap_equal(before, after);
	free(before);
	free(after);
	assert_int_equal(o.row.node, node);
	assert_int_equal(o.row.order, order);
	assert_int_equal(o.row.count, count);
	return o;
}

static void test_clean_deferred_does_no_maintenance(void **state)
{
	struct one o;

	(void)state;
	boot2(true);
	o = run_one(1, 9, CACHEMAINT_DEFERRED, false, 16);
	assert_string_equal(o.row.mode, "deferred");
	assert_false(o.row.dirty);
	assert_int_equal(o.det.clean_poc_blocks, 16);
	assert_int_equal(o.det.maint_ops, 0);
	assert_int_equal(o.cc.clean_ops, 0);
	assert_int_equal(o.cc.clean_inval_ops, 0);
	assert_int_equal(o.cc.clean_inval_bytes, 0);
	assert_int_equal(o.cc.icache_invals, 0);

	o = run_one(0, 0, CACHEMAINT_DEFERRED, false, 64);
	assert_int_equal(o.det.clean_poc_blocks, 64);
	assert_int_equal(o.cc.clean_inval_ops + o.cc.clean_ops, 0);
	heap_check_none();
}

static void test_clean_eager_flushes_every_page(void **state)
{
	struct one o;

	(void)state;
	boot2(true);
	o = run_one(0, 9, CACHEMAINT_EAGER, false, 16);
	assert_string_equal(o.row.mode, "eager");
	assert_false(o.row.dirty);
	/* Eager ignores clean_poc: one operation per page, in the lock. */
	assert_int_equal(o.det.clean_poc_blocks, 16);
	assert_int_equal(o.cc.clean_inval_ops, 16 * 512);
	assert_int_equal(o.cc.clean_inval_bytes, 16 * 512 * PAGE_SIZE);
	assert_int_equal(o.det.maint_ops, 16 * 512);
	heap_check_none();
}

static void test_dirty_rows_need_maintenance(void **state)
{
	struct one o;

	(void)state;
	boot2(true);
	/* Deferred: one clean+invalidate per block, by range. */
	o = run_one(0, 9, CACHEMAINT_DEFERRED, true, 16);
	assert_true(o.row.dirty);
	assert_int_equal(o.det.clean_poc_blocks, 0);
	assert_int_equal(o.cc.clean_inval_ops, 16);
	assert_int_equal(o.cc.clean_inval_bytes, 16 * 512 * PAGE_SIZE);

	/* Eager: one per page. */
	o = run_one(1, 0, CACHEMAINT_EAGER, true, 64);
	assert_true(o.row.dirty);
	assert_int_equal(o.cc.clean_inval_ops, 64);
	assert_int_equal(o.cc.clean_inval_bytes, 64 * PAGE_SIZE);

	/* The dirtied chunks are clean_poc again: a clean row stays clean. */
	o = run_one(0, 9, CACHEMAINT_DEFERRED, false, 16);
	assert_false(o.row.dirty);
	assert_int_equal(o.cc.clean_inval_ops, 0);
	heap_check_none();
	{
		struct snap *s = snap_take();

		assert_free_memory_zero(s);
		free(s);
	}
}

static void test_bad_arguments(void **state)
{
	struct bench_row row;
	struct snap *before, *after;

	(void)state;
	boot2(true);
	before = snap_take();
	assert_int_equal(bench_one(0, MAX_ORDER + 1, CACHEMAINT_DEFERRED, false,
				   1, &row, NULL),
			 -EINVAL);
	assert_int_equal(
		bench_one(7, 0, CACHEMAINT_DEFERRED, false, 1, &row, NULL),
		-EINVAL);
	assert_int_equal(bench_one(0, 0, CACHEMAINT_NONE, false, 1, &row, NULL),
			 -EINVAL);
	assert_int_equal(
		bench_one(0, 0, CACHEMAINT_EAGER, false, 0, &row, NULL),
		-EINVAL);
	/* 64 MiB cannot hold a 1 GiB block. */
	assert_int_equal(
		bench_one(0, 18, CACHEMAINT_EAGER, true, 2, &row, NULL),
		-ENOMEM);
	after = snap_take();
	snap_equal(before, after);
	free(before);
	free(after);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_run_rows_and_heap_unchanged),
		cmocka_unit_test(test_run_without_boot_scrub),
		cmocka_unit_test(test_clean_deferred_does_no_maintenance),
		cmocka_unit_test(test_clean_eager_flushes_every_page),
		cmocka_unit_test(test_dirty_rows_need_maintenance),
		cmocka_unit_test(test_bad_arguments),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
