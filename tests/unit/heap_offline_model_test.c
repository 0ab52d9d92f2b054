/* SPDX-License-Identifier: MIT */
/*
 * common/mm/heap_offline.c against a reference, one thread: a random
 * mix of allocations (anonymous blocks and owned extents, orders 0..6),
 * frees, offlines (soft or broken) and onlines on a 16 MiB heap, checked
 * after every step: each page's state in the reference (free, held by a
 * block, offlined in a block, withheld) agrees with heap_owner_of(), no
 * block handed out holds a withheld page or a page of another live block,
 * the counters add up (free + blocks + withheld = total, held pages and
 * withheld pages per the node's stats), and heap_check() is clean every
 * 64 steps. Deterministic (a fixed xorshift seed per round).
 */
#include "heap_offline_fixture.h"

#define M_BASE	BASE /* the heap: [1 GiB, 1 GiB + 16 MiB) */
#define M_PAGES 4096u
#define M_LIVE	64
#define M_STEPS 4000

enum { P_FREE, P_BLOCK, P_BAD_HELD, P_BAD_OUT };

struct m_block {
	struct page_info *pg;
	unsigned int k;
	uint16_t owner;
};

static uint8_t page_state[M_PAGES];
static uint8_t page_reason[M_PAGES];
static struct m_block live[M_LIVE];
static uint64_t rng;
/* Offlines into a block [0] and into a free chunk [1], for the record. */
static unsigned int n_offline[2];

static uint64_t next(void)
{
	return test_xorshift64(&rng);
}

static uint8_t *state_of(uint64_t p)
{
	assert_true(p >= M_BASE && p < M_BASE + M_PAGES);
	return &page_state[p - M_BASE];
}

static void do_alloc(unsigned int slot)
{
	unsigned int k = (unsigned int)(next() % 7);
	uint16_t owner = next() & 1 ? 3 : 0;
	struct page_info *pg =
		owner ? heap_alloc_owned(k, 0, HEAP_NO_SCRUB, owner, NULL, NULL)
		      : heap_alloc(k, 0, 0, HEAP_NO_SCRUB, NULL);

	if (!pg)
		return;
	for (uint64_t q = pg->pfn; q < pg->pfn + (1ULL << k); q++) {
		/* Neither a withheld page nor another block's. */
		assert_int_equal(*state_of(q), P_FREE);
		*state_of(q) = P_BLOCK;
	}
	live[slot] = (struct m_block){pg, k, owner};
}

static void do_free(unsigned int slot)
{
	struct m_block *b = &live[slot];

	if (b->owner)
		assert_int_equal(heap_free_owned(b->pg, b->k, b->owner), 0);
	else
		assert_int_equal(heap_free(b->pg, b->k, HEAP_FREE_DIRTY), 0);
	for (uint64_t q = b->pg->pfn; q < b->pg->pfn + (1ULL << b->k); q++)
		*state_of(q) = *state_of(q) == P_BAD_HELD ? P_BAD_OUT : P_FREE;
	b->pg = NULL;
}

static void do_offline(void)
{
	uint64_t p = M_BASE + next() % M_PAGES;
	uint8_t *st = state_of(p);
	uint8_t reason = next() & 1 ? HEAP_BAD_BROKEN : HEAP_BAD_SOFT;
	int want = *st == P_BAD_HELD || *st == P_BAD_OUT ? -EEXIST : 0;

	assert_int_equal(heap_offline(pfn(p), (enum heap_bad_reason)reason),
			 want);
	if (want)
		return;
	n_offline[*st == P_FREE]++;
	*st = *st == P_FREE ? P_BAD_OUT : P_BAD_HELD;
	page_reason[p - M_BASE] = reason;
}

static void do_online(void)
{
	uint64_t p = M_BASE + next() % M_PAGES;
	uint8_t *st = state_of(p);
	bool bad = *st == P_BAD_HELD || *st == P_BAD_OUT;
	int want = !bad						? -EINVAL
		   : page_reason[p - M_BASE] == HEAP_BAD_BROKEN ? -EPERM
								: 0;

	assert_int_equal(heap_online(pfn(p)), want);
	if (!want)
		*st = *st == P_BAD_OUT ? P_FREE : P_BLOCK;
}

/* Every page as the reference says; the counters add up. */
static void check_all(void)
{
	uint64_t count[4] = {0};
	struct heap_stats st;

	for (uint64_t p = M_BASE; p < M_BASE + M_PAGES; p++) {
		int who = heap_owner_of(pfn(p), NULL, NULL);
		uint8_t s = *state_of(p);

		count[s]++;
		if (s == P_FREE)
			assert_int_equal(who, HEAP_OWNER_FREE);
		else if (s == P_BAD_OUT)
			assert_int_equal(who, HEAP_OWNER_BAD);
		else
			assert_true(who == HEAP_OWNER_KEEL || who == 3);
	}
	assert_int_equal(heap_stats(0, 0, &st), 0);
	assert_int_equal(st.bad_held_pages, count[P_BAD_HELD]);
	assert_int_equal(st.bad_pages, count[P_BAD_HELD] + count[P_BAD_OUT]);
	assert_int_equal(st.free_pages, count[P_FREE]);
}

/*
 * The heap is the modelled range alone; the held list is grown first to
 * 1024 entries (4 pages, more than the steps can offline), so that every
 * page allocated afterwards is the model's. The reference starts from
 * what the heap says.
 */
static void model_machine(void)
{
	struct page_info *pg;

	test_machine_boot(&(struct test_machine_cfg){
		.ram = ram4g, .ram_count = 1, .no_handoff = true});
	heap_strict = true;
	assert_true(heap_add_range(0, pfn(M_BASE), pfn(M_BASE + M_PAGES),
				   false) > 0);
	pg = heap_alloc(10, 0, 0, HEAP_NO_SCRUB, NULL);
	assert_non_null(pg);
	for (unsigned int i = 0; i < 1000; i++)
		assert_int_equal(heap_offline(pfn(pg->pfn + i), HEAP_BAD_SOFT),
				 0);
	assert_int_equal(heap_free(pg, 10, HEAP_FREE_ZEROED), 0);
	for (unsigned int i = 0; i < 1000; i++)
		assert_int_equal(heap_online(pfn(pg->pfn + i)), 0);
	assert_int_equal(list_pages(), 4);
	memset(live, 0, sizeof(live));
	for (uint64_t p = M_BASE; p < M_BASE + M_PAGES; p++)
		*state_of(p) =
			heap_owner_of(pfn(p), NULL, NULL) == HEAP_OWNER_FREE
				? P_FREE
				: P_BLOCK;
}

/* Everything allocated: never a withheld page, never one twice. */
static void take_everything(void)
{
	static uint64_t bad[M_PAGES];
	unsigned int n = 0;
	uint64_t free_pages = 0;

	for (uint64_t p = M_BASE; p < M_BASE + M_PAGES; p++) {
		if (*state_of(p) == P_BAD_OUT)
			bad[n++] = p;
		free_pages += *state_of(p) == P_FREE;
	}
	take_all(bad, n, free_pages);
}

static void test_against_reference(void **state)
{
	(void)state;
	for (unsigned int round = 0; round < 3; round++) {
		model_machine();
		rng = 0x2545f4914f6cdd1dULL * (round + 1);
		for (unsigned int step = 0; step < M_STEPS; step++) {
			unsigned int op = (unsigned int)(next() % 16);
			unsigned int slot = (unsigned int)(next() % M_LIVE);

			test_quiet_begin();
			if (op < 2)
				do_offline();
			else if (op < 3)
				do_online();
			else if (live[slot].pg)
				do_free(slot);
			else
				do_alloc(slot);
			test_quiet_end();
			check_all();
			if (!(step % 64))
				test_heap_check_clean();
		}
		for (unsigned int i = 0; i < M_LIVE; i++)
			if (live[i].pg)
				do_free(i);
		check_all();
		test_heap_check_clean();
		take_everything();
	}
	print_message("model: %u offlines in blocks, %u in free chunks\n",
		      n_offline[0], n_offline[1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_against_reference,
						test_setup, test_teardown),
	};

	return cmocka_run_group_tests(tests, test_setup, test_teardown);
}
