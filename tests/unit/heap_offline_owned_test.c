/* SPDX-License-Identifier: MIT */
/*
 * common/mm/heap_offline.c: heap_offline_owned(), the restore's mark of a
 * page a live update's handover names bad inside a domain's extent
 * (issue 38 §5). An adopted (preserved) range is marked as an extent the
 * heap handed out is: held for its owner, counted once, refused for any
 * other owner and twice; the release of the range back to reserved keeps
 * the mark (the page is still counted and heap_for_each_bad() still
 * names it, so the next handover carries it). An extent the heap handed
 * out: marked, and its free withholds the page.
 */
#include "heap_offline_fixture.h"

#include <keel/heap_boot.h>

struct seen {
	unsigned int n;
	uint64_t pfn;
	unsigned int reason;
	int holder;
};

static void note(pfn_t p, unsigned int reason, int holder, void *arg)
{
	struct seen *s = arg;

	s->n++;
	s->pfn = pfn_val(p);
	s->reason = reason;
	s->holder = holder;
}

static const enum heap_bad_reason HANDOVER =
	(enum heap_bad_reason)(HEAP_BAD_BROKEN | HEAP_BAD_FROM_HANDOVER);

/* A preserved range adopted for owner 7: marked, refused, released. */
static void test_adopted_marked(void **state)
{
	uint64_t s = ADOPTED_PFN, e = ADOPTED_END;
	struct seen seen = {0};
	struct heap_stats st;

	(void)state;
	adopted_machine("preserved");
	test_quiet_begin();
	/* Another owner's page, and owner 0: refused, nothing changed. */
	assert_int_equal(heap_offline_owned(pfn(s + 3), 8, HANDOVER), -EPERM);
	assert_int_equal(heap_offline_owned(pfn(s + 3), 0, HANDOVER), -EINVAL);
	/* A source past the last: refused. */
	assert_int_equal(
		heap_offline_owned(pfn(s + 3), 7, (enum heap_bad_reason)0x51),
		-EINVAL);
	test_quiet_end();
	assert_int_equal(stats().bad_pages, 0);

	assert_int_equal(heap_offline_owned(pfn(s + 3), 7, HANDOVER), 0);
	st = stats();
	assert_int_equal(st.bad_pages, 1);
	assert_int_equal(st.bad_held_pages, 1);
	assert_int_equal(st.bad_by_source[HEAP_BAD_FROM_HANDOVER >> 4], 1);
	assert_int_equal(heap_held_bad_pages(7), 1);
	test_quiet_begin();
	assert_int_equal(heap_offline_owned(pfn(s + 3), 7, HANDOVER), -EEXIST);
	test_quiet_end();
	test_heap_check_clean();

	/* Back to reserved: the mark stays, named with its reason. */
	assert_int_equal(heap_release_owned(0, pfn(s), pfn(e), 7), 0);
	st = stats();
	assert_int_equal(st.bad_pages, 1);
	assert_int_equal(st.owned_pages, 0);
	assert_int_equal(heap_for_each_bad(0, note, &seen), 1);
	assert_int_equal(seen.n, 1);
	assert_int_equal(seen.pfn, s + 3);
	assert_int_equal(seen.reason, HANDOVER);
	test_heap_check_clean();
}

/* An extent the heap handed out: marked, its free withholds the page. */
static void test_owned_extent_marked(void **state)
{
	struct page_info *pg;
	uint64_t p, bad;

	(void)state;
	machine();
	pg = heap_alloc_owned(9, 0, HEAP_NO_SCRUB, 5, NULL, NULL);
	assert_non_null(pg);
	p = pfn_val(page_to_pfn(pg));
	bad = p + 100;
	test_quiet_begin();
	assert_int_equal(heap_offline_owned(pfn(bad), 6, HANDOVER), -EPERM);
	/* A free page is no owner's. */
	assert_int_equal(heap_offline_owned(pfn(p + 512), 5, HANDOVER), -EPERM);
	test_quiet_end();
	assert_int_equal(heap_offline_owned(pfn(bad), 5, HANDOVER), 0);
	assert_int_equal(heap_held_bad_pages(5), 1);
	assert_int_equal(heap_free_owned(pg, 9, 5), 0);
	assert_int_equal(stats().bad_held_pages, 0);
	/* The list of marked pages keeps its block. */
	assert_int_equal(stats().free_pages, PAGES - 1 - list_pages());
	take_all(&bad, 1, PAGES - 1 - list_pages());
	test_heap_check_clean();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_adopted_marked, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_owned_extent_marked,
						test_setup, test_teardown),
	};

	return cmocka_run_group_tests(tests, test_setup, test_teardown);
}
