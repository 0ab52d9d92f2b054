/* SPDX-License-Identifier: MIT */
/*
 * heap_chunk_order(): the decomposition of a free range into maximal
 * aligned power-of-two chunks (DESIGN §4), checked by its properties over
 * thousands of random ranges rather than by a list of expected outputs.
 */
#include "common.h"

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint64_t rnd(void)
{
	return test_xorshift64(&rng);
}

static unsigned int zone_of(uint64_t p)
{
	unsigned int z = 0;

	while (p) {
		z++;
		p >>= 1;
	}
	return z;
}

static unsigned int ilog2(uint64_t v)
{
	return 63 - (unsigned int)__builtin_clzll(v);
}

/* Check every property for [s, e); return the chunk count. */
static uint64_t check_range(uint64_t s, uint64_t e)
{
	uint64_t p = s, chunks = 0;
	int last_order = -1;
	bool descending = false;

	while (p < e) {
		unsigned int k = heap_chunk_order(p, e);
		uint64_t size = 1ULL << k;

		assert_true(k <= MAX_FREE_ORDER);
		/* power-of-two sized and aligned */
		assert_int_equal(p & (size - 1), 0);
		/* inside the range */
		assert_true(p + size <= e);
		assert_true(p + size > p);
		/* never across a zone boundary */
		assert_int_equal(zone_of(p), zone_of(p + size - 1));
		/* pfn 0 is only ever an order-0 chunk */
		if (p == 0)
			assert_int_equal(k, 0);
		/* maximal: the next order up would not be aligned or fit */
		if (k < MAX_FREE_ORDER && p != 0)
			assert_true((p & (2 * size - 1)) || p + 2 * size > e);
		/* orders go up, then down (plus a run at MAX_FREE_ORDER) */
		if ((int)k < last_order)
			descending = true;
		else if (descending)
			assert_true((int)k <= last_order);
		last_order = (int)k;
		p += size;
		chunks++;
	}
	/* tiles the range exactly */
	assert_int_equal(p, e);
	return chunks;
}

static void test_small_exhaustive(void **state)
{
	uint64_t s, e;

	for (s = 0; s < 300; s++)
		for (e = s + 1; e < 600; e++)
			check_range(s, e);
	assert_int_equal(heap_chunk_order(5, 5), 0);
}

static void test_random_ranges(void **state)
{
	unsigned int i;

	for (i = 0; i < 20000; i++) {
		unsigned int bits = 1 + (unsigned int)(rnd() % 40);
		uint64_t s = rnd() & ((1ULL << bits) - 1);
		uint64_t len = 1 + (rnd() & ((1ULL << (rnd() % 29)) - 1));
		uint64_t chunks, bound;

		if (i % 5 == 0)
			s = 0;
		chunks = check_range(s, s + len);
		/*
		 * O(log): at most two chunks per order on the way up and
		 * down, plus the full MAX_FREE_ORDER chunks in the middle.
		 */
		bound = 2 * (MAX_FREE_ORDER + 2) + (len >> MAX_FREE_ORDER);
		assert_true(chunks <= bound);
		assert_true(chunks >= 1);
		if (len > 1)
			assert_true(chunks <= 2 * ilog2(len) + 3 +
						      (len >> MAX_FREE_ORDER));
	}
}

/*
 * Issue 13: a range costs O(log) chunks, not one per 2^MAX_ORDER pages.
 * 1 TiB at 1 GiB: orders 18 up to 27 (2^28 - 2^18 pages), then one order-18
 * chunk for the last 2^18 pages: 11 chunks (1024 with 1 GiB chunks).
 */
static void test_big_contiguous(void **state)
{
	uint64_t s = (1ULL << 30) >> 12, e = s + (1ULL << 28);

	assert_int_equal(check_range(s, e), 11);
	/* 64 TiB at 8 TiB: 2^34 pages in 2^31-page chunks, exactly 8. */
	s = 1ULL << 31;
	assert_int_equal(check_range(s, s + (1ULL << 34)), 8);
	/* 64 TiB at 4 KiB: up from order 0 to 30, 7 full, down. */
	assert_true(check_range(1, 1 + (1ULL << 34)) <= 2 * 31 + 8);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_small_exhaustive,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_random_ranges, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_big_contiguous, test_setup,
						test_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
