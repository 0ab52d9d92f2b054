/* SPDX-License-Identifier: MIT */
/*
 * The allocation self-benchmark (common/selftest/bench.c): the rows it
  * produces, the maintenance each row really performed (sandbox cache counters,
   * not the kernel's own statistics), and that the heap is left exactly as it
    * was: same free chunks with the same first_dirty and PGF_CLEAN_POC, same
 * counters, zeroed memory, same cachemaint mode and statistics.
 */
#include <stdlib.h>

#include "common.h"

#include <keel/bench.h>
#include <keel/cachemaint.h>
#include <keel/heap_boot.h>
#include <keel/heap_check.h>
#include <keel/report.h>
#include <keel/scrub.h>

#define MIB	 (1ULL << 20)
#define NODE_RAM (64 * MIB)

/* ---- heap snapshots ----------------------------------------------------- */

struct snap {
	/* PGF_NEED_FLUSH is meaningless on a free chunk: not compared. */
	struct test_snap chunks;
	uint64_t free_pages[MAX_NUMNODES], free_chunks[MAX_NUMNODES];
	uint64_t dirty_pages[MAX_NUMNODES];
};

static struct snap *snap_take(void)
{
	struct snap *s = calloc(1, sizeof(*s));

	assert_non_null(s);
	s->chunks = test_heap_snapshot_flags(PGF_CLEAN_POC);
	for (unsigned int n = 0; n < heap_node_count(); n++) {
		const struct heap_stats *st = test_node_stats(n);

		s->free_pages[n] = st->free_pages;
		s->free_chunks[n] = st->free_chunks;
		s->dirty_pages[n] = st->dirty_pages;
	}
	return s;
}

static void snap_free(struct snap *s)
{
	free(s->chunks.c);
	free(s);
}

static void snap_equal(const struct snap *a, const struct snap *b)
{
	test_snap_equal(&a->chunks, &b->chunks);
	for (unsigned int n = 0; n < MAX_NUMNODES; n++) {
		assert_int_equal(a->free_pages[n], b->free_pages[n]);
		assert_int_equal(a->free_chunks[n], b->free_chunks[n]);
		assert_int_equal(a->dirty_pages[n], b->dirty_pages[n]);
	}
}

/* Every free page reads as zero (the bench's writes were undone). */
static void assert_free_memory_zero(const struct snap *s)
{
	for (size_t i = 0; i < s->chunks.n; i++) {
		const struct test_chunk *c = &s->chunks.c[i];
		const uint8_t *va = phys_to_virt(pfn_to_paddr(pfn(c->pfn)));
		uint64_t len = PAGE_SIZE << c->order;

		if (c->first_dirty != FIRST_DIRTY_NONE)
			continue;
		for (uint64_t off = 0; off < len; off += 8)
			if (*(const uint64_t *)(va + off))
				fail_msg("pfn %#llx + %#llx is not zero",
					 (unsigned long long)c->pfn,
					 (unsigned long long)off);
	}
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
	test_set_cachemaint(CACHEMAINT_DEFERRED);
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
	for (size_t i = 0; i < before->chunks.n; i++)
		assert_int_equal(before->chunks.c[i].flags, PGF_CLEAN_POC);
	cs_before = *heap_cachemaint()->stats;

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
	assert_int_equal(heap_stats_all(0).free_pages,
			 heap_stats_all(0).total_pages);
	test_heap_check_clean();
	assert_free_memory_zero(after);
	assert_int_equal(heap_cachemaint()->mode, CACHEMAINT_DEFERRED);
	assert_int_equal(heap_cachemaint()->stats->ops, cs_before.ops);
	assert_int_equal(heap_cachemaint()->stats->bytes, cs_before.bytes);
	snap_free(before);
	snap_free(after);
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
	test_heap_check_clean();
	snap_free(before);
	snap_free(after);
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
	snap_free(before);
	snap_free(after);
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
	test_heap_check_clean();
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
	test_heap_check_clean();
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
	test_heap_check_clean();
	{
		struct snap *s = snap_take();

		assert_free_memory_zero(s);
		snap_free(s);
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
	snap_free(before);
	snap_free(after);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(
			test_run_rows_and_heap_unchanged, test_setup,
			test_teardown),
		cmocka_unit_test_setup_teardown(test_run_without_boot_scrub,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(
			test_clean_deferred_does_no_maintenance, test_setup,
			test_teardown),
		cmocka_unit_test_setup_teardown(
			test_clean_eager_flushes_every_page, test_setup,
			test_teardown),
		cmocka_unit_test_setup_teardown(
			test_dirty_rows_need_maintenance, test_setup,
			test_teardown),
		cmocka_unit_test_setup_teardown(test_bad_arguments, test_setup,
						test_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
