/* SPDX-License-Identifier: MIT */
/*
 * boot/nodemap.c: which firmware node ids keel keeps and where the others
 * fold (the policy of include/keel/nodemap.h).
 */
#include "common.h"

#include <keel/nodemap.h>

static struct nodemap m;

/* Distances from a small table of (a, b, v); 0 when not listed. */
struct dist_table {
	unsigned int count;
	uint32_t e[16][3];
};

static unsigned int table_distance(const void *ctx, uint32_t a, uint32_t b)
{
	const struct dist_table *t = ctx;

	for (unsigned int i = 0; i < t->count; i++)
		if (t->e[i][0] == a && t->e[i][1] == b)
			return t->e[i][2];
	return 0;
}

/* Few ids: nothing folds, no warning; keel ids 0.. in id order. */
static void test_no_fold(void **state)
{
	uint32_t fw;

	nodemap_init(&m, "test");
	nodemap_add(&m, 1000);
	nodemap_add(&m, 3);
	nodemap_add(&m, 3);
	nodemap_add(&m, 0);
	nodemap_add(&m, 500);
	assert_int_equal(nodemap_finalise(&m, NULL, NULL), 0);
	assert_int_equal(test_console_warnings(), 0);
	assert_true(test_console_contains(
		"test: firmware node ids 0..1000 are keel nodes 0..3"));
	assert_int_equal(nodemap_node(&m, 0), 0);
	assert_int_equal(nodemap_node(&m, 3), 1);
	assert_int_equal(nodemap_node(&m, 500), 2);
	assert_int_equal(nodemap_node(&m, 1000), 3);
	assert_true(nodemap_kept(&m, 1000));
	assert_true(nodemap_fw_id(&m, 3, &fw));
	assert_int_equal(fw, 1000);
	assert_false(nodemap_fw_id(&m, 4, &fw));
	assert_false(nodemap_has(&m, 7));
	assert_int_equal(nodemap_node(&m, 7), 0); /* unknown: lowest kept */
}

/*
 * MAX_NUMNODES + 3 ids, added highest first: the lowest MAX_NUMNODES are
 * kept. Folds: by the folded id's own row; a tie broken by the reverse
 * distance; unreachable (255) and invalid (<= 10) entries ignored; with
 * nothing usable, the lowest kept node (0: id 1). Kept id k is node k - 1.
 */
static void test_fold_nearest(void **state)
{
	const uint32_t f = MAX_NUMNODES + 1; /* first folded id */
	struct dist_table t = {
		.count = 8,
		.e =
			{
				{f, 4, 30},
				{f, 5, 25}, /* f -> 5 (node 4) */
				{f + 1, 2, 14},
				{f + 1, 3, 14}, /* tie, the reverse decides: */
				{2, f + 1, 40},
				{3, f + 1, 16}, /* f+1 -> 3 (node 2) */
				{f + 2, 6, 255},
				{f + 2, 7, 9}, /* neither usable: node 0 */
			},
	};
	char want[128];

	nodemap_init(&m, "test");
	for (uint32_t id = f + 2; id >= 1; id--)
		nodemap_add(&m, id);
	assert_int_equal(nodemap_finalise(&m, table_distance, &t), 3);
	snprintf(want, sizeof(want),
		 "test: %u proximity domains, %u kept (MAX_NUMNODES=%u), 3 "
		 "folded into their nearest node",
		 MAX_NUMNODES + 3, MAX_NUMNODES, MAX_NUMNODES);
	assert_int_equal(test_console_warnings(), 1);
	assert_true(test_console_contains(want));
	/* Ids 1..MAX are keel nodes 0..MAX-1. */
	for (uint32_t id = 1; id <= MAX_NUMNODES; id++)
		assert_int_equal(nodemap_node(&m, id), id - 1);
	assert_int_equal(nodemap_node(&m, f), 4);
	assert_int_equal(nodemap_node(&m, f + 1), 2);
	assert_int_equal(nodemap_node(&m, f + 2), 0);
	assert_false(nodemap_kept(&m, f));
	assert_true(nodemap_has(&m, f));
}

/* A full table forgets its highest ids; they count as folded. */
static void test_table_full(void **state)
{
	nodemap_init(&m, "test");
	for (uint32_t id = NODEMAP_MAX_IDS + 9; id + 1 > 0; id--)
		nodemap_add(&m, id);
	assert_int_equal(nodemap_finalise(&m, NULL, NULL),
			 NODEMAP_MAX_IDS + 10 - MAX_NUMNODES);
	assert_int_equal(test_console_warnings(), 1);
	assert_true(nodemap_has(&m, 0));
	assert_false(nodemap_has(&m, NODEMAP_MAX_IDS + 9));
	assert_int_equal(nodemap_node(&m, NODEMAP_MAX_IDS + 9), 0);
	assert_int_equal(nodemap_node(&m, MAX_NUMNODES - 1), MAX_NUMNODES - 1);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, test_setup, test_teardown)
	const struct CMUnitTest tests[] = {
		T(test_no_fold),
		T(test_fold_nearest),
		T(test_table_full),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
