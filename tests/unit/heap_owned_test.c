/* SPDX-License-Identifier: MIT */
/*
 * common/mm/heap_owned.c: an owned extent costs one page_info write (tails
 * poisoned before the handoff stay untouched), heap_owner_of() agrees with
 * a reference on every page of a small heap (stale tails of freed
 * anonymous blocks included), dirty extents are zeroed in pieces of at
 * most 2 MiB after the unlock, cache maintenance per mode (eager per page,
 * clean_poc nothing, HEAP_NO_FLUSH nothing, otherwise one range), misuse
 * refused or panicking, and audit=full / heap_check() catching a broken
 * owned head. Owned extents above MAX_ORDER (up to MAX_FREE_ORDER): one
 * head, found from any of their pages, checked, freed and merged back.
 */
#include "common.h"

#include <keel/audit.h>
#include <keel/cachemaint.h>
#include <keel/heap_check.h>

#define BASE 4096ULL /* pfn of 16 MiB: aligned to 2^12 */

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

static void add(uint64_t s, uint64_t e, bool dirty)
{
	assert_true(heap_add_range(0, pfn(s), pfn(e), dirty) > 0);
}

static struct page_info poison;

static void poison_range(uint64_t s, uint64_t e)
{
	memset(&poison, 0xa7, sizeof(poison));
	for (uint64_t p = s; p < e; p++)
		memcpy(pfn_to_page(pfn(p)), &poison, sizeof(poison));
}

static bool poisoned(uint64_t p)
{
	return !memcmp(pfn_to_page(pfn(p)), &poison, sizeof(poison));
}

static void test_one_head_write(void **state)
{
	struct heap_alloc_info info;
	struct page_info *pg;
	uint64_t p, written = 0;

	machine(CACHEMAINT_NONE);
	poison_range(BASE, BASE + 4096);
	add(BASE, BASE + 4096, false); /* one order-12 chunk: one head */
	pg = heap_alloc_owned(12, 0, 0, 7, &info, NULL);
	assert_non_null(pg);
	assert_int_equal(pg->pfn, BASE);
	assert_int_equal(pg->state, PGS_OWNED);
	assert_int_equal(pg->owner, 7);
	assert_int_equal(pg->order, 12);
	for (p = BASE; p < BASE + 4096; p++)
		written += !poisoned(p);
	assert_int_equal(written, 1);
	assert_int_equal(info.node, 0);
	assert_false(info.was_dirty);
	assert_int_equal(info.zeroed_bytes, 0);
	assert_int_equal(heap_stats_all(7).owned_pages, 4096);
	assert_int_equal(heap_stats_all(0).owned_pages, 4096);
	assert_int_equal(heap_stats_all(0).free_pages, 0);
	/* Its head's order for its owner only; a poisoned tail heads none. */
	assert_int_equal(heap_owned_order(pg, 7), 12);
	assert_int_equal(heap_owned_order(pg, 8), -EINVAL);
	assert_int_equal(heap_owned_order(pg + 1, 7), -EINVAL);
	test_heap_check_clean();

	/* A split writes the heads it puts back, and the extent's head. */
	assert_int_equal(heap_free_owned(pg, 12, 7), 0);
	assert_int_equal(heap_stats_all(7).owned_pages, 0);
	pg = heap_alloc_owned(9, 0, HEAP_NO_SCRUB, 8, NULL, NULL);
	assert_non_null(pg);
	for (p = pg->pfn + 1; p < pg->pfn + 512; p++)
		assert_true(poisoned(p));
	test_heap_check_clean();
	assert_int_equal(heap_free_owned(pg, 9, 8), 0);
	assert_int_equal(heap_stats_all(0).free_pages, 4096);
	test_heap_check_clean();
}

/* Reference of who holds each pfn of [BASE, BASE + N). */
#define N 1024
static int ref_owner[N];
static uint64_t ref_head[N];
static unsigned int ref_order[N];

static void ref_set(uint64_t p, unsigned int k, int owner)
{
	for (uint64_t q = p; q < p + (1ULL << k); q++) {
		ref_owner[q - BASE] = owner;
		ref_head[q - BASE] = p;
		ref_order[q - BASE] = k;
	}
}

/* Every pfn of the heap: owner, and for allocated blocks head and order. */
static void check_every_page(void)
{
	for (uint64_t p = BASE - 4; p < BASE + N + 4; p++) {
		pfn_t head = pfn(0);
		unsigned int k = 99;
		int who = heap_owner_of(pfn(p), &head, &k);

		if (p < BASE || p >= BASE + N) {
			assert_int_equal(who, HEAP_OWNER_NONE);
			continue;
		}
		assert_int_equal(who, ref_owner[p - BASE]);
		assert_true(pfn_val(head) <= p);
		assert_true(p < pfn_val(head) + (1ULL << k));
		if (who != HEAP_OWNER_FREE) {
			assert_int_equal(pfn_val(head), ref_head[p - BASE]);
			assert_int_equal(k, ref_order[p - BASE]);
		}
	}
}

static void test_owner_of_every_page(void **state)
{
	struct {
		struct page_info *pg;
		unsigned int k;
		int owner;
	} held[64];
	unsigned int n = 0;
	uint64_t x = 0x9e3779b97f4a7c15ull;

	machine(CACHEMAINT_NONE);
	add(BASE, BASE + N, false);
	for (unsigned int i = 0; i < N; i++)
		ref_owner[i] = HEAP_OWNER_FREE;
	check_every_page();
	for (unsigned int op = 0; op < 400; op++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		if (n < 64 && (n == 0 || x % 100 < 60)) {
			unsigned int k = (unsigned int)((x >> 8) % 7);
			/* one in three anonymous: every entry written */
			int owner = (x >> 16) % 3 ? (int)(1 + (x >> 20) % 5)
						  : HEAP_OWNER_KEEL;
			struct page_info *pg =
				owner == HEAP_OWNER_KEEL
					? heap_alloc(k, 0, 0, HEAP_NO_SCRUB,
						     NULL)
					: heap_alloc_owned(k, 0, HEAP_NO_SCRUB,
							   (uint16_t)owner,
							   NULL, NULL);

			if (!pg)
				continue;
			ref_set(pg->pfn, k, owner);
			held[n].pg = pg;
			held[n].k = k;
			held[n++].owner = owner;
		} else if (n) {
			unsigned int i = (unsigned int)((x >> 24) % n);

			ref_set(held[i].pg->pfn, held[i].k, HEAP_OWNER_FREE);
			if (held[i].owner == HEAP_OWNER_KEEL)
				assert_int_equal(heap_free(held[i].pg,
							   held[i].k,
							   HEAP_FREE_DIRTY),
						 0);
			else
				assert_int_equal(
					heap_free_owned(
						held[i].pg, held[i].k,
						(uint16_t)held[i].owner),
					0);
			held[i] = held[--n];
		}
		if (op % 20 == 0)
			check_every_page();
	}
	check_every_page();
	test_heap_check_clean();
}

static uint64_t piece_max;
static uint64_t piece_bytes;

static void observe(paddr_t start, uint64_t len, bool clean)
{
	(void)start;
	(void)clean;
	piece_max = MAX(piece_max, len);
	piece_bytes += len;
}

static void test_dirty_zeroed_in_pieces(void **state)
{
	struct heap_alloc_info info;
	struct page_info *pg;
	uint8_t *va;

	machine(CACHEMAINT_NONE);
	add(BASE, BASE + 4096, true);
	memset(phys_to_virt(pfn_to_paddr(pfn(BASE))), 0x5c, 4096 * 4096ULL);
	piece_max = 0;
	piece_bytes = 0;
	sandbox_set_scrub_observer(observe);
	pg = heap_alloc_owned(10, 0, 0, 3, &info, NULL); /* 4 MiB */
	sandbox_set_scrub_observer(NULL);
	assert_non_null(pg);
	assert_true(info.was_dirty);
	assert_false(info.clean_poc);
	assert_int_equal(info.zeroed_bytes, 4 * MiB);
	assert_int_equal(piece_bytes, 4 * MiB);
	assert_true(piece_max <= 2 * MiB);
	assert_true(info.lock_ticks > 0 || info.zero_ticks > 0);
	va = phys_to_virt(pfn_to_paddr(pfn(pg->pfn)));
	for (uint64_t i = 0; i < 4 * MiB; i += 512)
		assert_int_equal(va[i], 0);
	/* HEAP_NO_SCRUB: contents left alone, nothing zeroed. */
	pg = heap_alloc_owned(0, 0, HEAP_NO_SCRUB, 3, &info, NULL);
	assert_non_null(pg);
	assert_true(info.was_dirty);
	assert_int_equal(info.zeroed_bytes, 0);
	va = phys_to_virt(pfn_to_paddr(pfn(pg->pfn)));
	assert_int_equal(va[100], 0x5c);
	test_heap_check_clean();
}

static void test_cache_maintenance(void **state)
{
	struct sandbox_cache_counters c;
	struct heap_alloc_info info;
	struct test_snap s;

	/* eager: per page, inside the lock, as for heap_alloc. */
	machine(CACHEMAINT_EAGER);
	add(BASE, BASE + 256, false);
	assert_non_null(heap_alloc_owned(6, 0, 0, 1, &info, NULL));
	sandbox_cache_counters(&c);
	assert_int_equal(c.clean_inval_ops, 64);
	assert_int_equal(info.maint_bytes, 64 * 4096);

	/* deferred: one range after the unlock. */
	machine(CACHEMAINT_DEFERRED);
	add(BASE, BASE + 256, false);
	assert_non_null(heap_alloc_owned(6, 0, 0, 1, &info, NULL));
	sandbox_cache_counters(&c);
	assert_int_equal(c.clean_inval_ops, 1);
	assert_int_equal(c.clean_inval_bytes, 64 * 4096);
	assert_int_equal(info.maint_bytes, 64 * 4096);
	/* HEAP_NO_FLUSH: left to the caller, nothing recorded on the head. */
	assert_non_null(heap_alloc_owned(6, 0, HEAP_NO_FLUSH, 1, &info, NULL));
	sandbox_cache_counters(&c);
	assert_int_equal(c.clean_inval_ops, 1);
	assert_int_equal(heap_cachemaint()->stats->pending_ranges, 0);
	assert_int_equal(info.maint_bytes, 0);
	assert_false(info.clean_poc);

	/* clean_poc: nothing to do, and the caller is told. */
	machine(CACHEMAINT_DEFERRED);
	add(BASE, BASE + 256, false);
	s = test_heap_snapshot();
	for (size_t i = 0; i < s.n; i++)
		heap_mark_clean(pfn_to_page(pfn(s.c[i].pfn)), true);
	free(s.c);
	assert_non_null(heap_alloc_owned(6, 0, 0, 1, &info, NULL));
	sandbox_cache_counters(&c);
	assert_int_equal(c.clean_inval_ops, 0);
	assert_true(info.clean_poc);
	assert_int_equal(info.maint_bytes, 0);
}

static void misuse(bool strict)
{
	struct page_info *a, *k;

	machine(CACHEMAINT_NONE);
	heap_strict = strict;
	add(BASE, BASE + 1024, false);
	a = heap_alloc_owned(4, 0, 0, 5, NULL, NULL);
	k = heap_alloc(2, 0, 0, 0, NULL);
	assert_non_null(a);
	assert_non_null(k);
	assert_null(heap_alloc_owned(4, 0, 0, 0, NULL, NULL)); /* owner 0 */
	assert_null(heap_alloc_owned(MAX_ORDER + 1, 0, 0, 5, NULL,
				     NULL)); /* none */
	assert_null(heap_alloc_owned(MAX_FREE_ORDER + 1, 0, 0, 5, NULL, NULL));
	if (strict) {
		TEST_EXPECT_PANIC(heap_free_owned(a, 4, 6),
				  "owned by another domain");
		assert_non_null(
			strstr(sandbox_last_panic(), "heap_free_owned: pfn"));
		TEST_EXPECT_PANIC(heap_free_owned(a, 3, 5), "order does not");
		TEST_EXPECT_PANIC(heap_free_owned(a + 1, 4, 5),
				  "heap_free_owned: pfn");
		TEST_EXPECT_PANIC(heap_free_owned(k, 2, 5),
				  "not an owned extent");
		TEST_EXPECT_PANIC(heap_free(a, 4, HEAP_FREE_DIRTY),
				  "owned extent");
		TEST_EXPECT_PANIC(heap_free_owned(NULL, 4, 5), "NULL");
	} else {
		test_quiet_begin();
		assert_int_equal(heap_free_owned(a, 4, 6), -EINVAL);
		assert_int_equal(heap_free_owned(a, 3, 5), -EINVAL);
		assert_int_equal(heap_free_owned(k, 2, 5), -EINVAL);
		assert_int_equal(heap_free(a, 4, HEAP_FREE_DIRTY), -EINVAL);
		test_quiet_end();
		assert_int_equal(test_console_warnings(), 4);
	}
	assert_int_equal(heap_stats_all(5).owned_pages, 16);
	test_heap_check_clean();
	assert_int_equal(heap_free_owned(a, 4, 5), 0);
	/* Double free. */
	if (strict) {
		TEST_EXPECT_PANIC(heap_free_owned(a, 4, 5),
				  "not an owned extent");
	} else {
		test_quiet_begin();
		assert_int_equal(heap_free_owned(a, 4, 5), -EINVAL);
		test_quiet_end();
	}
	assert_int_equal(heap_free(k, 2, HEAP_FREE_ZEROED), 0);
	assert_int_equal(heap_stats_all(0).free_pages, 1024);
	assert_int_equal(heap_stats_all(0).owned_pages, 0);
	test_heap_check_clean();
	heap_strict = true;
}

static void test_misuse_strict(void **state)
{
	misuse(true);
}

static void test_misuse_refused(void **state)
{
	misuse(false);
}

/* The reason heap_misuse() printed last: "...: pfn P: REASON (order..". */
static const char *last_reason(char *buf, size_t size)
{
	const char *p = strstr(sandbox_console_buffer(), ": pfn ");
	const char *r = p ? strstr(p + 6, ": ") : NULL;
	const char *e = r ? strstr(r, " (order") : NULL;

	assert_non_null(e);
	snprintf(buf, size, "%.*s", (int)(e - r - 2), r + 2);
	return buf;
}

/*
 * heap_free() and heap_free_owned() share one path of checks
 * (heap_free_block()): a misuse both can make is refused by both with the
 * same words, and the state check says which free a block needs.
 */
static void test_misuse_one_path(void **state)
{
	struct page_info *anon, *ext, fake = {.pfn = 12345};
	char a[96], o[96];

	(void)state;
	machine(CACHEMAINT_NONE);
	heap_strict = false;
	add(BASE, BASE + 1024, false);
	anon = heap_alloc(4, 0, 0, 0, NULL);
	ext = heap_alloc_owned(4, 0, 0, 5, NULL, NULL);
	test_quiet_begin(); /* the machine's boot ended the capture */
#define BOTH(call_a, call_o, says)                                 \
	do {                                                       \
		sandbox_console_clear();                           \
		assert_int_equal(call_a, -EINVAL);                 \
		last_reason(a, sizeof(a));                         \
		sandbox_console_clear();                           \
		assert_int_equal(call_o, -EINVAL);                 \
		assert_string_equal(last_reason(o, sizeof(o)), a); \
		assert_string_equal(a, says);                      \
	} while (0)
	BOTH(heap_free(NULL, 4, HEAP_FREE_DIRTY), heap_free_owned(NULL, 4, 5),
	     "NULL page");
	BOTH(heap_free(&fake, 4, HEAP_FREE_DIRTY), heap_free_owned(&fake, 4, 5),
	     "not a frame table entry of a heap page");
	BOTH(heap_free(anon, 3, HEAP_FREE_DIRTY), heap_free_owned(ext, 3, 5),
	     "order does not match the allocation");
#undef BOTH
	sandbox_console_clear();
	assert_int_equal(heap_free(ext, 4, HEAP_FREE_DIRTY), -EINVAL);
	assert_string_equal(last_reason(a, sizeof(a)),
			    "an owned extent (heap_free_owned)");
	sandbox_console_clear();
	assert_int_equal(heap_free_owned(anon, 4, 5), -EINVAL);
	assert_string_equal(last_reason(a, sizeof(a)),
			    "not an owned extent (double free?)");
	sandbox_console_clear();
	/* A tail is never written, an anonymous block's like an extent's. */
	assert_int_equal(heap_free(anon + 1, 4, HEAP_FREE_DIRTY), -EINVAL);
	assert_string_equal(last_reason(a, sizeof(a)),
			    "not a frame table entry of a heap page");
	assert_int_equal(heap_free(anon, 4, HEAP_FREE_DIRTY), 0);
	assert_int_equal(heap_free_owned(ext, 4, 5), 0);
	assert_int_equal(heap_stats_all(0).free_pages, 1024);
	heap_strict = true;
}

static void test_audit_and_check(void **state)
{
	struct test_machine_cfg c = {.ram = one_node, .ram_count = 1};
	struct audit_result a;
	struct page_info *x, *y;
	unsigned int bad;

	test_machine_boot(&c);
	heap_strict = true;
	x = heap_alloc_owned(9, 0, HEAP_NO_SCRUB, 2, NULL, NULL);
	y = heap_alloc_owned(3, 0, HEAP_NO_SCRUB, 3, NULL, NULL);
	assert_non_null(x);
	assert_non_null(y);
	assert_non_null(heap_alloc(0, 0, 0, 0, NULL));
	test_quiet_begin();
	audit_run(&a, true);
	test_quiet_end();
	assert_true(a.ok);
	assert_int_equal(a.owned_pages, 520);
	assert_int_equal(a.lost_pages, 0);

	/* A head that claims more than its extent: overlap, caught. */
	x->order = 10;
	test_quiet_begin();
	bad = heap_check();
	audit_run(&a, true);
	test_quiet_end();
	assert_true(bad > 0);
	assert_false(a.ok);
	x->order = 9;
	/* A head that is no head any more. */
	y->state = PGS_FREE_TAIL;
	test_quiet_begin();
	bad = heap_check();
	test_quiet_end();
	assert_true(bad > 0);
	assert_true(test_console_contains("is not the head of a block"));
	y->state = PGS_OWNED;
	test_heap_check_clean();
}

/*
 * A dirty chunk above MAX_ORDER (a destroyed domain's extents merge into
 * one) is scrubbed piece by piece: each piece put back clean moves the
 * chunk's first dirty page on, so the idle scrub ends.
 */
static void test_idle_scrub_of_big_dirty_chunk(void **state)
{
	static const struct test_ram big[] = {
		{2 * GiB, 6 * GiB, 0},
	};
	struct test_machine_cfg c = {.ram = big, .ram_count = 1};
	struct page_info *x[3], *pg;
	unsigned int order, rounds = 0;

	test_machine_boot(&c);
	heap_strict = true;
	for (unsigned int i = 0; i < 3; i++) {
		x[i] = heap_alloc_owned(MAX_ORDER, 0, HEAP_NO_SCRUB, 9, NULL,
					NULL);
		assert_non_null(x[i]);
	}
	for (unsigned int i = 0; i < 3; i++)
		assert_int_equal(heap_free_owned(x[i], MAX_ORDER, 9), 0);
	assert_true(heap_stats_all(0).dirty_pages >= 3ULL << MAX_ORDER);
	while ((pg = heap_take_dirty(0, &order))) {
		assert_true(order <= MAX_ORDER);
		assert_true(++rounds <= 16); /* 3 pieces of 2^MAX_ORDER */
		heap_put_clean(pg, order, false);
	}
	assert_int_equal(heap_stats_all(0).dirty_pages, 0);
	test_heap_check_clean();
}

/*
 * An owned extent of 4 GiB (MAX_ORDER + 2): one head write, heap_owner_of()
 * from its last page, heap_check() and audit=full clean, a wrong-order free
 * refused, the right one merging back to the chunks there were; anonymous
 * blocks still stop at MAX_ORDER.
 */
static void test_owned_above_max_order(void **state)
{
	static const struct test_ram big[] = {
		{2 * GiB, 10 * GiB, 0},
	};
	struct test_machine_cfg c = {.ram = big, .ram_count = 1};
	const unsigned int k = MAX_ORDER + 2;
	struct heap_alloc_info info;
	struct audit_result a;
	struct test_snap before, after;
	struct page_info *x;
	unsigned int order;
	uint64_t free0;
	pfn_t head;

	test_machine_boot(&c);
	heap_strict = true;
	free0 = heap_stats_all(0).free_pages;
	before = test_heap_snapshot();
	assert_null(heap_alloc(MAX_ORDER + 1, 0, 0, HEAP_NO_SCRUB, NULL));
	x = heap_alloc_owned(k, 0, HEAP_NO_SCRUB, 7, &info, NULL);
	assert_non_null(x);
	assert_int_equal(x->order, k);
	assert_int_equal(x->state, PGS_OWNED);
	assert_int_equal(x->pfn & ((1ULL << k) - 1), 0);
	assert_int_equal(heap_stats_all(7).owned_pages, 1ULL << k);
	assert_int_equal(heap_stats_all(0).free_pages, free0 - (1ULL << k));
	assert_int_equal(
		heap_owner_of(pfn(x->pfn + (1ULL << k) - 1), &head, &order), 7);
	assert_int_equal(pfn_val(head), x->pfn);
	assert_int_equal(order, k);
	test_heap_check_clean();
	test_quiet_begin();
	audit_run(&a, true);
	test_quiet_end();
	assert_true(a.ok);
	assert_int_equal(a.owned_pages, 1ULL << k);
	heap_strict = false;
	test_quiet_begin();
	assert_int_equal(heap_free_owned(x, MAX_ORDER, 7), -EINVAL);
	test_quiet_end();
	heap_strict = true;
	assert_int_equal(heap_free_owned(x, k, 7), 0);
	assert_int_equal(heap_stats_all(7).owned_pages, 0);
	assert_int_equal(heap_stats_all(0).free_pages, free0);
	after = test_heap_snapshot();
	assert_int_equal(after.n, before.n);
	test_heap_check_clean();
	free(before.c);
	free(after.c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_one_head_write, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_owner_of_every_page,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_dirty_zeroed_in_pieces,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_cache_maintenance,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_misuse_strict, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_misuse_refused, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_misuse_one_path,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_audit_and_check,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(
			test_idle_scrub_of_big_dirty_chunk, test_setup,
			test_teardown),
		cmocka_unit_test_setup_teardown(test_owned_above_max_order,
						test_setup, test_teardown),
	};

	return cmocka_run_group_tests(tests, test_setup, test_teardown);
}
