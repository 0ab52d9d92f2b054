/* SPDX-License-Identifier: MIT */
/*
 * common/mm/heap_defer.c, common/mm/heap_span.c: the lazy handoff of free
 * RAM cut by bad pages in deferred chunks (issue 38). Bad pages at every
 * alignment of a 1 GiB chunk (its first, last and middle pages) and on
 * both sides of a node boundary; the heap then hands out every heap page
 * exactly once and never a bad one, heap_check() is clean with deferred
 * chunks in place and after, and freeing everything leaves the largest
 * chunks an eager (heap_init=chunked) handoff gives. The handoff costs
 * O(chunks + bad pages): fewer chunks than bad pages, where the handoff
 * range by range wrote ~17 per bad page.
 */
#include "common.h"
#include "../../common/mm/heap_defer_priv.h"
#include "../../common/mm/heap_priv.h"

#define PG 4096ULL

/* Node 0: [1 GiB, 3 GiB), node 1: [3 GiB, 4 GiB). */
static const struct test_ram ram[] = {
	{1 * GiB, 3 * GiB, 0},
	{3 * GiB, 4 * GiB, 1},
};

#define SCATTER 200
/* The named alignments, then SCATTER pages 5 MiB + 12 KiB apart. */
static const uint64_t named[] = {
	1 * GiB,		/* first page of a 1 GiB chunk */
	2 * GiB - PG,		/* its last page */
	1 * GiB + 512 * MiB,	/* its middle */
	1 * GiB + 3 * PG,	/* next to the first */
	3 * GiB - PG,		/* the last page of node 0 */
	3 * GiB,		/* the first page of node 1 */
	3 * GiB + 2 * MiB - PG, /* a 2 MiB chunk's last page */
};
#define NBAD (ARRAY_SIZE(named) + SCATTER)
static struct test_rsv bad[NBAD];
static uint8_t *is_bad, *handed; /* one byte a pfn of [0, 4 GiB) */
static uint8_t fill;		 /* the next boot()'s test_machine_cfg.fill */
static bool no_handoff;		 /* the next boot() stops before the handoff */
#define NPFN ((4 * GiB) / PG)

static int rsv_cmp(const void *a, const void *b)
{
	const struct test_rsv *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static void boot(enum heap_init_mode mode)
{
	struct test_machine_cfg c = {
		.ram = ram,
		.ram_count = ARRAY_SIZE(ram),
		.rsv = bad,
		.rsv_count = NBAD,
		.mode = mode,
		.fill = fill,
		.no_handoff = no_handoff,
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(named); i++)
		bad[i] = (struct test_rsv){named[i], named[i] + PG,
					   "bad firmware"};
	for (unsigned int j = 0; j < SCATTER; j++, i++) {
		uint64_t a = 2 * GiB + 64 * MiB + j * (5 * MiB + 3 * PG);

		bad[i] = (struct test_rsv){a, a + PG, "bad option"};
	}
	qsort(bad, NBAD, sizeof(bad[0]), rsv_cmp);
	if (!is_bad) {
		is_bad = calloc(NPFN, 1);
		handed = calloc(NPFN, 1);
		assert_non_null(is_bad);
		assert_non_null(handed);
	}
	memset(is_bad, 0, NPFN);
	memset(handed, 0, NPFN);
	for (i = 0; i < NBAD; i++)
		is_bad[bad[i].start / PG] = 1;
	test_machine_boot(&c);
	heap_strict = true;
}

static struct heap_stats node_stats(int n)
{
	struct heap_stats st;

	assert_int_equal(heap_stats(n, 0, &st), 0);
	return st;
}

/* A block handed out: heap pages only, none twice, none bad. */
static void take(struct page_info *pg, unsigned int order)
{
	uint64_t p = pfn_val(page_to_pfn(pg));

	for (uint64_t q = p; q < p + (1ULL << order); q++) {
		assert_true(q < NPFN);
		if (is_bad[q])
			fail_msg("bad pfn %#llx handed out (block %#llx order "
				 "%u)",
				 (unsigned long long)q, (unsigned long long)p,
				 order);
		if (handed[q]++)
			fail_msg("pfn %#llx handed out twice",
				 (unsigned long long)q);
	}
}

struct blk {
	struct page_info *pg;
	unsigned int order;
};

/* Everything allocated at order 18, then 9, then 0; then all freed. */
static void drain_all(void)
{
	static const unsigned int orders[] = {18, 9, 0};
	size_t n = 0, cap = 1 << 20;
	struct blk *b = malloc(cap * sizeof(*b));
	uint64_t pages = 0, total = 0;
	struct page_info *pg;

	assert_non_null(b);
	for (int node = 0; node < 2; node++)
		total += node_stats(node).total_pages;
	for (unsigned int i = 0; i < ARRAY_SIZE(orders); i++) {
		while ((pg = heap_alloc(orders[i], HEAP_ANY_NODE, 0,
					HEAP_NO_SCRUB, NULL))) {
			assert_true(n < cap);
			take(pg, orders[i]);
			b[n++] = (struct blk){pg, orders[i]};
			pages += 1ULL << orders[i];
		}
		if (orders[i] == 9) /* half-way: the records still tile */
			test_heap_check_clean();
	}
	assert_int_equal(pages, total);
	for (int node = 0; node < 2; node++) {
		assert_int_equal(node_stats(node).free_pages, 0);
		assert_int_equal(node_stats(node).deferred_chunks, 0);
	}
	for (uint64_t q = 0; q < NPFN; q++)
		assert_false(is_bad[q] && handed[q]);
	test_heap_check_clean();
	for (size_t i = 0; i < n; i++)
		assert_int_equal(
			heap_free(b[i].pg, b[i].order, HEAP_FREE_ZEROED), 0);
	free(b);
}

/* The lazy handoff defers, and costs fewer chunks than bad pages. */
static void test_handoff_defers(void **state)
{
	(void)state;
	boot(HEAP_INIT_LAZY);
	assert_true(node_stats(0).deferred_chunks > 0);
	assert_true(node_stats(1).deferred_chunks > 0);
	/* Range by range it was ~17 chunks per bad page (3,500 here). */
	assert_true(heap_chunk_count() < NBAD);
	test_heap_check_clean(); /* with the records in place */
}

/*
 * What an eager handoff gives for the heap's ranges (each range cut into
 * maximal aligned chunks, ranges never touch), computed here.
 */
static struct test_snap eager_chunks(void)
{
	struct test_snap s = {0};

	for (uint32_t node = 0; node < heap_node_count(); node++) {
		struct heap_range_pos pos = {0};
		const struct region *r;

		while ((r = heap_node_range_next(node, &pos))) {
			uint64_t p = pa_val(r->start) / PG;
			uint64_t e = pa_val(r->end) / PG;

			while (p < e) {
				unsigned int k = 0;

				while (p && k < 31 && !(p & (1ULL << k)) &&
				       p + (2ULL << k) <= e)
					k++;
				if (s.n == s.cap) {
					s.cap = s.cap ? 2 * s.cap : 256;
					s.c = realloc(s.c,
						      s.cap * sizeof(*s.c));
					assert_non_null(s.c);
				}
				s.c[s.n++] = (struct test_chunk){
					.pfn = p,
					.first_dirty = FIRST_DIRTY_NONE,
					.order = (uint8_t)k,
					.node = (uint8_t)node};
				p += 1ULL << k;
			}
		}
	}
	return s;
}

/* Settled, the lazy heap holds the eager handoff's chunks. */
static void test_settled_as_eager(void **state)
{
	struct test_snap eager, lazy;

	(void)state;
	boot(HEAP_INIT_LAZY);
	eager = eager_chunks();
	lazy = test_heap_snapshot(); /* heap_for_each_free() settles */
	test_snap_equal(&eager, &lazy);
	assert_int_equal(node_stats(0).deferred_chunks, 0);
	test_heap_check_clean();
	free(eager.c);
	free(lazy.c);
}

/* Everything handed out once, no bad page; freed: the eager chunks. */
static void test_alloc_everything(void **state)
{
	struct test_snap eager, after;

	(void)state;
	boot(HEAP_INIT_LAZY);
	eager = eager_chunks();
	drain_all();
	after = test_heap_snapshot();
	test_snap_equal(&eager, &after);
	test_heap_check_clean();
	free(eager.c);
	free(after.c);
}

/* heap_owner_of()/heap_offline()/heap_online() inside a deferred chunk. */
static void test_offline_in_deferred(void **state)
{
	uint64_t p = 1 * GiB / PG + 5, q = 2 * GiB / PG + 1000;
	uint64_t before, st_free;
	unsigned int order;
	pfn_t head;

	(void)state;
	boot(HEAP_INIT_LAZY);
	before = node_stats(0).deferred_chunks;
	st_free = node_stats(0).free_pages;
	assert_true(before > 0);
	/* A bad page is no heap memory; a page beside it is free. */
	assert_int_equal(heap_owner_of(pfn(1 * GiB / PG), NULL, NULL),
			 HEAP_OWNER_NONE);
	assert_int_equal(heap_owner_of(pfn(p), &head, &order), HEAP_OWNER_FREE);
	assert_true(pfn_val(head) <= p && p < pfn_val(head) + (1ULL << order));
	for (uint64_t x = pfn_val(head); x < pfn_val(head) + (1ULL << order);
	     x++)
		assert_false(is_bad[x]);
	/* Only the path was split: other records stay deferred. */
	assert_true(node_stats(0).deferred_chunks > 0);
	assert_int_equal(node_stats(0).free_pages, st_free);
	test_heap_check_clean();
	assert_int_equal(heap_offline(pfn(q), HEAP_BAD_SOFT), 0);
	assert_int_equal(heap_owner_of(pfn(q), NULL, NULL), HEAP_OWNER_BAD);
	assert_int_equal(node_stats(0).free_pages, st_free - 1);
	assert_true(node_stats(0).deferred_chunks > 0);
	test_heap_check_clean();
	assert_int_equal(heap_online(pfn(q)), 0);
	assert_int_equal(node_stats(0).free_pages, st_free);
	test_heap_check_clean();
	/* A bad (gap) page: refused, nothing changed. */
	test_quiet_begin();
	assert_int_not_equal(heap_offline(pfn(3 * GiB / PG), HEAP_BAD_SOFT), 0);
	test_quiet_end();
	drain_all();
}

/*
 * An adopted range (a restored domain's memory) followed at once by a
 * deferred chunk: heap_release_owned() checks the page past the range
 * under the node lock (adopted_check()). It took heap_owner_of(), which
 * split the deferred chunk there, taking the same lock again: the release
 * hung. The page past the range must stay free and deferred.
 */
static void test_release_beside_deferred(void **state)
{
	static const struct test_ram one[] = {{1 * GiB, 2 * GiB, 0}};
	static const struct test_rsv rsv[] = {
		{1 * GiB, 1 * GiB + 2 * MiB, "preserved"},
		{1 * GiB + 2 * MiB + PG, 1 * GiB + 2 * MiB + 2 * PG,
		 "bad firmware"},
	};
	struct test_machine_cfg c = {
		.ram = one,
		.ram_count = 1,
		.rsv = rsv,
		.rsv_count = ARRAY_SIZE(rsv),
		.mode = HEAP_INIT_LAZY,
	};
	uint64_t s = 1 * GiB / PG, e = (1 * GiB + 2 * MiB) / PG;

	(void)state;
	test_machine_boot(&c);
	heap_strict = true;
	assert_true(node_stats(0).deferred_chunks > 0);
	assert_true(heap_adopt_owned(0, pfn(s), pfn(e), 7) > 0);
	assert_int_equal(heap_release_owned(0, pfn(s), pfn(e), 7), 0);
	assert_true(node_stats(0).deferred_chunks > 0);
	assert_int_equal(heap_owner_of(pfn(e), NULL, NULL), HEAP_OWNER_FREE);
	test_heap_check_clean();
}

/*
 * The handoff writes neither the hash nor the heads of empty lists (host
 * pages a sandbox boot would fault in: issue 38's 1 TiB row): the hash
 * reads as the arena's zeros after it. Then both are filled with stale
 * values (a stale slot naming each live record, heads behind clear bits):
 * lookups, the check, the first split (which builds the hash) and
 * handing out everything stay exact.
 */
static void test_handoff_leaves_hash(void **state)
{
	const struct defer_rec *r;
	uint64_t p;

	(void)state;
	boot(HEAP_INIT_LAZY);
	/* A heap page inside a record of node 0 (its middle one). */
	r = &heap_nodes[0]->defer->rec[heap_nodes[0]->defer->used / 2];
	for (p = r->pfn; is_bad[p]; p++)
		;
	for (uint32_t n = 0; n < 2; n++) {
		struct heap_defer *d = heap_nodes[n]->defer;

		assert_non_null(d);
		assert_true(d->used > 0);
		assert_false(d->hashed);
		for (uint64_t h = 0; h <= d->hmask; h++) {
			if (d->hash[h])
				fail_msg("node %u: hash slot %llu written by "
					 "the handoff",
					 n, (unsigned long long)h);
			d->hash[h] = (uint32_t)(h % d->used) + 1;
		}
		for (unsigned int z = 0; z < NR_ZONES; z++)
			for (int L = 0; L < 2; L++)
				for (unsigned int k = 0; k <= MAX_FREE_ORDER;
				     k++)
					if (!(d->nonempty[L][z] & (1u << k)))
						d->head[z][L][k] = 0x5a5a5a5a;
	}
	test_heap_check_clean(); /* records found without the hash */
	assert_int_equal(heap_owner_of(pfn(p), NULL, NULL), HEAP_OWNER_FREE);
	assert_true(heap_nodes[0]->defer->hashed);
	assert_false(heap_nodes[1]->defer->hashed);
	test_heap_check_clean();
	drain_all();
	assert_true(heap_nodes[1]->defer->hashed);
}

/*
 * The list heads of the area are not zeroed (heap_defer_priv.h): over
 * memory full of stale bytes the handoff's lists still hold exactly the
 * records, and everything is handed out once.
 */
static void test_handoff_over_stale_bytes(void **state)
{
	(void)state;
	fill = 0x5a;
	boot(HEAP_INIT_LAZY);
	fill = 0;
	assert_true(node_stats(0).deferred_chunks > 0);
	test_heap_check_clean();
	drain_all();
}

/*
 * A gap of more pages than a packed gap holds (DEFER_GAP_MAX, 64 GiB) is
 * not spanned: the ranges on its two sides join apart, each side's small
 * gaps still deferred; settled, the eager handoff's chunks.
 */
static void test_gap_too_long(void **state)
{
	static const struct test_ram big[] = {{1 * GiB, 72 * GiB, 0}};
	static const struct test_rsv rsv[] = {
		{1 * GiB + 2 * PG, 1 * GiB + 3 * PG, "bad firmware"},
		{2 * GiB, 2 * GiB + (DEFER_GAP_MAX + 1) * PG, "bad firmware"},
		{70 * GiB + 5 * PG, 70 * GiB + 6 * PG, "bad firmware"},
	};
	struct test_machine_cfg c = {
		.ram = big,
		.ram_count = 1,
		.rsv = rsv,
		.rsv_count = ARRAY_SIZE(rsv),
		.mode = HEAP_INIT_LAZY,
	};
	struct test_snap eager, lazy;

	(void)state;
	test_machine_boot(&c);
	heap_strict = true;
	assert_int_equal(heap_nodes[0]->defer->gaps, 2);
	assert_true(node_stats(0).deferred_chunks >= 2);
	assert_int_equal(heap_owner_of(pfn(2 * GiB / PG + 7), NULL, NULL),
			 HEAP_OWNER_NONE);
	test_heap_check_clean();
	eager = eager_chunks();
	lazy = test_heap_snapshot();
	test_snap_equal(&eager, &lazy);
	test_heap_check_clean();
	free(eager.c);
	free(lazy.c);
}

/*
 * A live update's handoff in two steps: a split between them builds
 * node 0's hash and prefix sums, so the second step's spans add their
 * records to the hash and their gaps' sums as they come (node 1 still
 * builds its own at its first split). Then every record is found by its
 * pfn, settling gives the eager chunks and everything is handed out once.
 */
static void test_two_steps_hash_between(void **state)
{
	struct test_snap eager, lazy;
	const struct defer_rec *r;
	uint64_t p;

	(void)state;
	no_handoff = true;
	boot(HEAP_INIT_LAZY);
	no_handoff = false;
	heap_handoff_first(false, 256 * MiB);
	r = &heap_nodes[0]->defer->rec[heap_nodes[0]->defer->used / 2];
	for (p = r->pfn; is_bad[p]; p++)
		;
	assert_int_equal(heap_owner_of(pfn(p), NULL, NULL), HEAP_OWNER_FREE);
	assert_true(heap_nodes[0]->defer->hashed);
	assert_false(heap_nodes[1]->defer->hashed);
	test_heap_check_clean();
	assert_true(heap_handoff_rest() > 0);
	assert_true(heap_nodes[0]->defer->hashed);
	test_heap_check_clean(); /* the second step's records by their pfn */
	eager = eager_chunks();
	lazy = test_heap_snapshot();
	test_snap_equal(&eager, &lazy);
	free(eager.c);
	free(lazy.c);
	drain_all();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_handoff_defers, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_settled_as_eager,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_alloc_everything,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_offline_in_deferred,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_release_beside_deferred,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_handoff_leaves_hash,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_handoff_over_stale_bytes,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_gap_too_long, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_two_steps_hash_between,
						test_setup, test_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
