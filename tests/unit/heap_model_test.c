/* SPDX-License-Identifier: MIT */
/*
 * The heap against a reference model: thousands of random allocations and
 * frees on three nodes with holes and reserved ranges, every result checked
 * against a per-page bitmap (no overlap, inside RAM of the block's node,
 * outside reserved memory, HEAP_BITS and exact-node respected, NULL only
 * when no fitting block exists, counters exact), heap_check() clean, and
 * freeing everything restores the initial chunk set. For all three modes.
 * Owned extents mixed with anonymous blocks: heap_owner_of() on random
 * pfns against the reference, per-owner counts, domains destroyed whole,
 * and the destroy round trip (free memory and chunks back after scrub),
 * also with owned extents above MAX_ORDER on a machine of big chunks.
 */
#include "common.h"

enum { REF_NONE = 0, REF_FREE, REF_ALLOC };

static const struct test_ram ram[] = {
	{16 * MiB, 48 * MiB, 0},
	{48 * MiB, 80 * MiB, 1},
	/* hole [80M, 84M) */
	{84 * MiB, 100 * MiB, 1},
	{100 * MiB, 116 * MiB, 2},
};

static const struct test_rsv rsv[] = {
	{20 * MiB, 20 * MiB + 12288, "kernel"},
	{47 * MiB + 4096, 49 * MiB, "across-nodes"},
	{90 * MiB, 90 * MiB + 4096, "one-page"},
	{100 * MiB, 101 * MiB, "node2-start"},
};

#define TOP_PFN ((116 * MiB) >> 12)

/*
 * A machine whose free chunks are larger than a caller may allocate
 * (issue 13): node 0's 4 GiB at 2 GiB hand over with an order-19 chunk
 * (MAX_ORDER is 18), node 1 has a reserved page in its middle, node 2 is
 * small. Allocations split them, frees must merge them back past
 * MAX_ORDER, and the idle scrubber must only ever detach MAX_ORDER.
 */
static const struct test_ram big_ram[] = {
	{2 * GiB, 6 * GiB, 0},
	{6 * GiB, 7 * GiB, 1},
	{7 * GiB, 7 * GiB + 64 * MiB, 2},
};

static const struct test_rsv big_rsv[] = {
	{6 * GiB + 512 * MiB, 6 * GiB + 512 * MiB + 4096, "one-page"},
};

#define BIG_TOP_PFN ((7 * GiB + 64 * MiB) >> 12)

struct machine {
	const struct test_ram *ram;
	unsigned int ram_count;
	const struct test_rsv *rsv;
	unsigned int rsv_count;
	uint64_t top_pfn;
	unsigned int bits_lo; /* HEAP_BITS limits tried: bits_lo + 0..2 */
	bool big;	      /* orders up to MAX_ORDER, not 11 */
};

static const struct machine small_machine = {
	ram, ARRAY_SIZE(ram), rsv, ARRAY_SIZE(rsv), TOP_PFN, 25, false,
};
static const struct machine big_machine = {
	big_ram,     ARRAY_SIZE(big_ram),
	big_rsv,     ARRAY_SIZE(big_rsv),
	BIG_TOP_PFN, 32,
	true,
};

static const struct machine *mach = &small_machine;
static uint8_t *ref;
static uint8_t *ram_node; /* node + 1, 0 = not RAM */
static bool *reserved;

struct live {
	struct page_info *pg;
	unsigned int order;
};

static uint64_t rng;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void build_reference(void)
{
	unsigned int n, i, count;
	uint64_t p;

	free(ref);
	free(ram_node);
	free(reserved);
	ref = calloc(mach->top_pfn, 1);
	ram_node = calloc(mach->top_pfn, 1);
	reserved = calloc(mach->top_pfn, sizeof(*reserved));
	assert_true(ref && ram_node && reserved);
	for (i = 0; i < mach->ram_count; i++)
		for (p = mach->ram[i].start >> 12; p < mach->ram[i].end >> 12;
		     p++)
			ram_node[p] = (uint8_t)(mach->ram[i].node + 1);
	for (i = 0; i < mach->rsv_count; i++)
		for (p = mach->rsv[i].start >> 12;
		     p < (mach->rsv[i].end + 4095) >> 12; p++)
			reserved[p] = true;
	for (n = 0; n < heap_node_count(); n++) {
		const struct heap_range *r = heap_node_ranges(n, &count);

		for (i = 0; i < count; i++)
			for (p = pfn_val(r[i].start); p < pfn_val(r[i].end);
			     p++) {
				assert_int_equal(ram_node[p], n + 1);
				assert_false(reserved[p]);
				ref[p] = REF_FREE;
			}
	}
}

/* Is there a free aligned 2^k block inside one heap range of @node? */
static bool fit_exists(uint32_t node, unsigned int k, uint64_t limit_pfn)
{
	unsigned int count, i;
	const struct heap_range *r = heap_node_ranges(node, &count);
	uint64_t size = 1ULL << k, p, q;

	for (i = 0; i < count; i++) {
		uint64_t s = ALIGN_UP(pfn_val(r[i].start), size);

		for (p = s; p + size <= pfn_val(r[i].end); p += size) {
			if (p + size > limit_pfn || (p == 0 && k))
				continue;
			for (q = p; q < p + size && ref[q] == REF_FREE; q++)
				;
			if (q == p + size)
				return true;
		}
	}
	return false;
}

static uint64_t ref_free_on(uint32_t node)
{
	uint64_t p, n = 0;

	for (p = 0; p < mach->top_pfn; p++)
		n += ref[p] == REF_FREE && ram_node[p] == node + 1;
	return n;
}

static void check_counters(void)
{
	uint64_t total = 0;
	unsigned int n;

	for (n = 0; n < 3; n++) {
		uint64_t f = ref_free_on(n);

		assert_int_equal(test_node_stats(n)->free_pages, f);
		total += f;
	}
	assert_int_equal(heap_free_pages(), total);
	assert_int_equal(heap_allocated_pages(), heap_total_pages() - total);
}

static void run_model(enum heap_init_mode mode, bool dirty, uint64_t seed)
{
	struct test_machine_cfg c = {
		.ram = mach->ram,
		.ram_count = mach->ram_count,
		.rsv = mach->rsv,
		.rsv_count = mach->rsv_count,
		.mode = mode,
		.dirty = dirty,
	};
	static struct live live[8192];
	unsigned int nlive = 0, op, nulls = 0, allocs = 0;
	struct test_snap before, after;

	rng = seed;
	test_machine_boot(&c);
	heap_strict = true;
	assert_int_equal(heap_node_count(), 3);
	build_reference();
	before = test_heap_snapshot();
	check_counters();
	test_heap_check_clean();

	for (op = 0; op < 6000; op++) {
		bool do_alloc = nlive == 0 || (rnd() % 100) < 55;

		if (nlive == ARRAY_SIZE(live))
			do_alloc = false;
		if (do_alloc) {
			unsigned int k = rnd() % 8 == 0
						 ? (unsigned int)(rnd() % 12)
						 : (unsigned int)(rnd() % 4);

			if (mach->big && rnd() % 16 == 0)
				k = MAX_ORDER - (unsigned int)(rnd() % 3);
			uint32_t flags = HEAP_NO_SCRUB;
			int want = -1;
			bool exact = false;
			unsigned int bits = 0;
			uint64_t limit = ~0ULL, p, q;
			struct page_info *pg;

			if (rnd() % 2) {
				want = (int)(rnd() % 3);
				if (rnd() % 3 == 0) {
					flags |= HEAP_EXACT_NODE;
					exact = true;
				}
			}
			if (rnd() % 10 == 0) {
				bits = mach->bits_lo +
				       (unsigned int)(rnd() % 3);
				limit = 1ULL << (bits - 12);
			}
			if (dirty && rnd() % 4 == 0)
				flags &= ~HEAP_NO_SCRUB;
			pg = heap_alloc(k, want, bits, flags);
			if (!pg) {
				unsigned int n;

				nulls++;
				for (n = 0; n < 3; n++) {
					if (exact && (int)n != want)
						continue;
					assert_false(fit_exists(n, k, limit));
				}
				continue;
			}
			allocs++;
			p = pg->pfn;
			assert_int_equal(pg->order, k);
			assert_int_equal(p & ((1ULL << k) - 1), 0);
			assert_true(p + (1ULL << k) <= limit);
			if (exact)
				assert_int_equal(pg->node, want);
			for (q = p; q < p + (1ULL << k); q++) {
				assert_true(q < mach->top_pfn);
				assert_int_equal(ref[q], REF_FREE);
				assert_int_equal(ram_node[q], pg->node + 1);
				assert_false(reserved[q]);
				ref[q] = REF_ALLOC;
			}
			live[nlive].pg = pg;
			live[nlive].order = k;
			nlive++;
		} else {
			unsigned int i = (unsigned int)(rnd() % nlive);
			uint64_t p = live[i].pg->pfn, q;

			assert_int_equal(heap_free(live[i].pg, live[i].order,
						   dirty && rnd() % 2),
					 0);
			for (q = p; q < p + (1ULL << live[i].order); q++)
				ref[q] = REF_FREE;
			live[i] = live[--nlive];
		}
		if (op % 500 == 0) {
			check_counters();
			test_heap_check_clean();
		}
	}
	assert_true(allocs > 1000);
	check_counters();
	test_heap_check_clean();

	while (nlive) {
		nlive--;
		assert_int_equal(
			heap_free(live[nlive].pg, live[nlive].order, false), 0);
	}
	after = test_heap_snapshot();
	/* Same chunks; dirtiness may differ after frees, compare layout. */
	assert_int_equal(before.n, after.n);
	for (size_t i = 0; i < before.n; i++) {
		assert_int_equal(before.c[i].pfn, after.c[i].pfn);
		assert_int_equal(before.c[i].order, after.c[i].order);
		assert_int_equal(before.c[i].node, after.c[i].node);
	}
	if (!dirty)
		test_snap_equal(&before, &after);
	test_heap_check_clean();
	free(before.c);
	free(after.c);
}

static void test_model_lazy(void **state)
{
	run_model(HEAP_INIT_LAZY, false, 0x1234567);
	run_model(HEAP_INIT_LAZY, true, 0xabcdef1);
}

/*
 * Free chunks above MAX_ORDER: the handoff makes them, allocation splits
 * them, frees merge back up to them (the proof at the top of heap.c), and
 * an idle scrubber detaches at most MAX_ORDER of one.
 */
static void test_model_big_chunks(void **state)
{
	static struct live taken[1024];
	struct test_snap before, after;
	unsigned int order, n = 0, at_max = 0;
	size_t above = 0;
	struct page_info *pg;

	struct test_machine_cfg c = {
		.ram = big_ram,
		.ram_count = ARRAY_SIZE(big_ram),
		.rsv = big_rsv,
		.rsv_count = ARRAY_SIZE(big_rsv),
		.dirty = true,
	};

	mach = &big_machine;
	run_model(HEAP_INIT_LAZY, false, 0x5eed5eed);
	run_model(HEAP_INIT_LAZY, true, 0x0ddba11);

	/* A fresh dirty handoff: every chunk is dirty from its first page. */
	test_machine_boot(&c);
	before = test_heap_snapshot();
	for (size_t i = 0; i < before.n; i++)
		above += before.c[i].order > MAX_ORDER;
	/* At least node 0's [2G, 4G): one 2^19-page chunk. */
	assert_true(above >= 1);
	/* Detach every dirty piece: never more than MAX_ORDER at once. */
	for (uint32_t node = 0; node < 3; node++)
		while ((pg = heap_take_dirty(node, &order))) {
			assert_true(n < ARRAY_SIZE(taken));
			assert_true(order <= MAX_ORDER);
			assert_int_equal(pg->order, order);
			assert_int_equal(pg->state, PGS_ALLOCATED);
			at_max += order == MAX_ORDER;
			taken[n].pg = pg;
			taken[n++].order = order;
		}
	assert_true(at_max >= 2); /* a 2^19 chunk is two 2^18 pieces */
	assert_int_equal(test_node_stats(0)->dirty_pages, 0);
	test_heap_check_clean();
	while (n--)
		heap_put_clean(taken[n].pg, taken[n].order, false);
	test_heap_check_clean();
	/* Everything merged back to the chunks the handoff made. */
	after = test_heap_snapshot();
	assert_int_equal(before.n, after.n);
	for (size_t i = 0; i < before.n; i++) {
		assert_int_equal(before.c[i].pfn, after.c[i].pfn);
		assert_int_equal(before.c[i].order, after.c[i].order);
	}
	free(before.c);
	free(after.c);
	mach = &small_machine;
}

static void test_model_chunked(void **state)
{
	run_model(HEAP_INIT_CHUNKED, false, 0x7654321);
	run_model(HEAP_INIT_CHUNKED, true, 0x1fedcba);
}

static void test_model_pagewise(void **state)
{
	run_model(HEAP_INIT_PAGEWISE, false, 0x3141592);
	run_model(HEAP_INIT_PAGEWISE, true, 0x2718281);
}

/* ---- owned extents: destroy round trip -------------------------------- */

#define OWNERS 5

static uint16_t *ref_owner;	 /* allocated pfn: 0 keel, else owner */
static uint64_t *ref_head;	 /* allocated pfn: its block's head */
static unsigned int owned_above; /* extents taken above MAX_ORDER */

struct extent {
	struct page_info *pg;
	unsigned int order;
	uint16_t owner; /* 0: anonymous */
};

static uint64_t step_of(unsigned int k)
{
	return k > 10 ? 1ULL << (k - 10) : 1;
}

/* heap_owner_of() on @p against the reference. */
static void check_owner_of(uint64_t p)
{
	pfn_t head = pfn(~0ULL);
	unsigned int k = 99;
	int who = heap_owner_of(pfn(p), &head, &k);

	if (ref[p] == REF_NONE) {
		assert_int_equal(who, HEAP_OWNER_NONE);
		return;
	}
	if (ref[p] == REF_FREE) {
		assert_int_equal(who, HEAP_OWNER_FREE);
		assert_true(pfn_val(head) <= p &&
			    p < pfn_val(head) + (1ULL << k));
		/* Every page of a small chunk, 1024 + the last of a big one. */
		for (uint64_t q = pfn_val(head);
		     q < pfn_val(head) + (1ULL << k); q += step_of(k))
			assert_int_equal(ref[q], REF_FREE);
		assert_int_equal(ref[pfn_val(head) + (1ULL << k) - 1],
				 REF_FREE);
		return;
	}
	assert_int_equal(who, ref_owner[p] ? ref_owner[p] : HEAP_OWNER_KEEL);
	assert_int_equal(pfn_val(head), ref_head[p]);
	assert_int_equal(pfn_to_page(head)->order, k);
}

static void check_owned_counts(void)
{
	uint64_t want[OWNERS + 1] = {0};

	for (uint64_t p = 0; p < mach->top_pfn; p++)
		if (ref[p] == REF_ALLOC)
			want[ref_owner[p]]++;
	for (uint16_t o = 1; o <= OWNERS; o++)
		assert_int_equal(heap_owned_pages(o), want[o]);
}

/*
 * Order of the next extent: mostly small; on the big machine an owned one
 * is now and then MAX_ORDER - 1 .. MAX_ORDER + 1 (above what heap_alloc()
 * takes: owned extents go up to MAX_FREE_ORDER).
 */
static unsigned int owned_order(uint16_t owner)
{
	if (mach->big && owner && rnd() % 8 == 0)
		return MAX_ORDER - 1 + (unsigned int)(rnd() % 3);
	return rnd() % 6 == 0 ? (unsigned int)(rnd() % 12)
			      : (unsigned int)(rnd() % 4);
}

static bool owned_alloc(struct extent *x)
{
	uint16_t owner = (uint16_t)(rnd() % (OWNERS + 1));
	unsigned int k = owned_order(owner);
	int want = rnd() % 2 ? (int)(rnd() % 3) : HEAP_ANY_NODE;
	uint32_t flags = rnd() % 3 == 0 ? HEAP_EXACT_NODE : 0;
	struct page_info *pg;

	/* Big machine: no zeroing of gigabytes by the test's allocations. */
	if (rnd() % 2 || mach->big)
		flags |= HEAP_NO_SCRUB;
	pg = owner ? heap_alloc_owned(k, want, flags, owner, NULL)
		   : heap_alloc(k, want, 0, flags);
	if (!pg) {
		for (unsigned int n = 0; n < 3; n++)
			if (!(flags & HEAP_EXACT_NODE) || want < 0 ||
			    (int)n == want)
				assert_false(fit_exists(n, k, ~0ULL));
		return false;
	}
	if ((flags & HEAP_EXACT_NODE) && want >= 0)
		assert_int_equal(pg->node, want);
	owned_above += k > MAX_ORDER;
	for (uint64_t q = pg->pfn; q < pg->pfn + (1ULL << k); q++) {
		assert_int_equal(ref[q], REF_FREE);
		assert_int_equal(ram_node[q], pg->node + 1);
		ref[q] = REF_ALLOC;
		ref_owner[q] = owner;
		ref_head[q] = pg->pfn;
	}
	*x = (struct extent){pg, k, owner};
	return true;
}

static void owned_free(struct extent *x)
{
	for (uint64_t q = x->pg->pfn; q < x->pg->pfn + (1ULL << x->order); q++)
		ref[q] = REF_FREE;
	if (x->owner)
		assert_int_equal(heap_free_owned(x->pg, x->order, x->owner), 0);
	else
		assert_int_equal(heap_free(x->pg, x->order, true), 0);
}

/* The idle scrub, run to the end on the calling thread. */
static void scrub_everything(void)
{
	struct page_info *pg;
	unsigned int order;

	for (uint32_t n = 0; n < 3; n++)
		while ((pg = heap_take_dirty(n, &order)))
			heap_put_clean(pg, order, false);
	assert_int_equal(heap_dirty_pages(), 0);
}

/*
 * Random owned extents and anonymous blocks, whole domains destroyed now
 * and then, heap_owner_of() checked on random pfns against the reference;
 * at the end every domain is destroyed and the scrub runs: the heap holds
 * the free memory it had, in no more chunks than before (DESIGN §11).
 */
static void run_owned_model(const struct machine *m, bool dirty, uint64_t seed)
{
	struct test_machine_cfg c = {
		.ram = m->ram,
		.ram_count = m->ram_count,
		.rsv = m->rsv,
		.rsv_count = m->rsv_count,
		.dirty = dirty,
	};
	static struct extent live[4096];
	unsigned int nlive = 0, allocs = 0;
	uint64_t free0;
	struct test_snap before, after;

	rng = seed;
	mach = m;
	test_machine_boot(&c);
	heap_strict = true;
	build_reference();
	free(ref_owner);
	free(ref_head);
	ref_owner = calloc(m->top_pfn, sizeof(*ref_owner));
	ref_head = calloc(m->top_pfn, sizeof(*ref_head));
	assert_true(ref_owner && ref_head);
	scrub_everything();
	free0 = heap_free_pages();
	before = test_heap_snapshot();
	for (unsigned int op = 0; op < 5000; op++) {
		if (nlive < ARRAY_SIZE(live) &&
		    (nlive == 0 || rnd() % 100 < 55)) {
			if (owned_alloc(&live[nlive])) {
				allocs++;
				nlive++;
			}
		} else if (rnd() % 64 == 0) { /* destroy one domain */
			uint16_t o = (uint16_t)(1 + rnd() % OWNERS);

			for (unsigned int i = nlive; i-- > 0;)
				if (live[i].owner == o) {
					owned_free(&live[i]);
					live[i] = live[--nlive];
				}
			assert_int_equal(heap_owned_pages(o), 0);
		} else {
			unsigned int i = (unsigned int)(rnd() % nlive);

			owned_free(&live[i]);
			live[i] = live[--nlive];
		}
		for (unsigned int i = 0; i < 4; i++)
			check_owner_of(rnd() % m->top_pfn);
		if (op % 500 == 0) {
			check_counters();
			check_owned_counts();
			test_heap_check_clean();
		}
	}
	assert_true(allocs > 1000);
	check_owned_counts();
	for (uint64_t p = 0; p < m->top_pfn; p++)
		check_owner_of(p);
	while (nlive)
		owned_free(&live[--nlive]);
	assert_int_equal(heap_owned_pages(0), 0);
	scrub_everything();
	assert_int_equal(heap_free_pages(), free0);
	after = test_heap_snapshot();
	assert_true(after.n <= before.n);
	test_snap_equal(&before, &after);
	test_heap_check_clean();
	free(before.c);
	free(after.c);
}

static void test_owned_destroy_round_trip(void **state)
{
	run_owned_model(&small_machine, false, 0x0badcafe);
	run_owned_model(&small_machine, true, 0xfeedface);
}

/*
 * The same on the machine of order-19 chunks, with owned extents up to
 * MAX_ORDER + 1: heap_owner_of() inside them, merges past MAX_ORDER on
 * free, and the round trip.
 */
static void test_owned_above_max_order(void **state)
{
	owned_above = 0;
	run_owned_model(&big_machine, false, 0x5eed1e55);
	assert_true(owned_above > 0);
	owned_above = 0;
	run_owned_model(&big_machine, true, 0xdecafbad);
	assert_true(owned_above > 0);
	mach = &small_machine;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_model_lazy),
		cmocka_unit_test(test_model_big_chunks),
		cmocka_unit_test(test_model_chunked),
		cmocka_unit_test(test_model_pagewise),
		cmocka_unit_test(test_owned_destroy_round_trip),
		cmocka_unit_test(test_owned_above_max_order),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
