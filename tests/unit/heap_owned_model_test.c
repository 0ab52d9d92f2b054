/* SPDX-License-Identifier: MIT */
/*
 * Owned extents against the reference model (heap_model_fixture.h), mixed
 * with anonymous blocks: heap_owner_of() on random pfns against the
 * reference, per-owner counts, domains destroyed whole, and the destroy
 * round trip (free memory and chunks back after scrub), also with owned
 * extents above MAX_ORDER on a machine of big chunks.
 */
#include "heap_model_fixture.h"

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
		assert_int_equal(heap_stats_all(o).owned_pages, want[o]);
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
	pg = owner ? heap_alloc_owned(k, want, flags, owner, NULL, NULL)
		   : heap_alloc(k, want, 0, flags, NULL);
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
		assert_int_equal(heap_free(x->pg, x->order, HEAP_FREE_DIRTY),
				 0);
}

/* The idle scrub, run to the end on the calling thread. */
static void scrub_everything(void)
{
	struct page_info *pg;
	unsigned int order;

	for (uint32_t n = 0; n < 3; n++)
		while ((pg = heap_take_dirty(n, &order)))
			heap_put_clean(pg, order, false);
	assert_int_equal(heap_stats_all(0).dirty_pages, 0);
}

/*
 * Random owned extents and anonymous blocks, whole domains destroyed now
 * and then, heap_owner_of() checked on random pfns against the reference;
 * at the end every domain is destroyed and the scrub runs: the heap holds
 * the free memory it had, in no more chunks than before (DESIGN §11).
 */
/* One step: allocate, destroy a whole domain, or free one extent. */
static void owned_step(struct extent *live, unsigned int *nlive,
		       unsigned int cap, unsigned int *allocs)
{
	if (*nlive < cap && (*nlive == 0 || rnd() % 100 < 55)) {
		if (owned_alloc(&live[*nlive])) {
			(*allocs)++;
			(*nlive)++;
		}
	} else if (rnd() % 64 == 0) { /* destroy one domain */
		uint16_t o = (uint16_t)(1 + rnd() % OWNERS);

		for (unsigned int i = *nlive; i-- > 0;)
			if (live[i].owner == o) {
				owned_free(&live[i]);
				live[i] = live[--*nlive];
			}
		assert_int_equal(heap_stats_all(o).owned_pages, 0);
	} else {
		unsigned int i = (unsigned int)(rnd() % *nlive);

		owned_free(&live[i]);
		live[i] = live[--*nlive];
	}
}

/* Every extent freed and scrubbed: as much free memory, no more chunks. */
static void owned_finish(struct extent *live, unsigned int nlive,
			 uint64_t free0, struct test_snap *before)
{
	struct test_snap after;

	while (nlive)
		owned_free(&live[--nlive]);
	assert_int_equal(heap_stats_all(0).owned_pages, 0);
	scrub_everything();
	assert_int_equal(heap_stats_all(0).free_pages, free0);
	after = test_heap_snapshot();
	assert_true(after.n <= before->n);
	test_snap_equal(before, &after);
	test_heap_check_clean();
	free(before->c);
	free(after.c);
}

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
	struct test_snap before;

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
	free0 = heap_stats_all(0).free_pages;
	before = test_heap_snapshot();
	for (unsigned int op = 0; op < 5000; op++) {
		owned_step(live, &nlive, ARRAY_SIZE(live), &allocs);
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
	owned_finish(live, nlive, free0, &before);
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
		cmocka_unit_test_setup_teardown(test_owned_destroy_round_trip,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_owned_above_max_order,
						test_setup, test_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
