/* SPDX-License-Identifier: MIT */
/*
 * common/guest/guest_skip.c: the skip list of a domain's guest (issue 38
 * §4) on a sandbox machine of 2 nodes x 64 MiB with the real heap and
 * p2m: a domain of 8 MiB (4 leaves of 2 MiB) and one of 4 MiB.
 *  - no bad page: an empty list (GUEST_SKIP_END first);
 *  - pages offlined in the first domain's extents in any order: their
 *    IPAs (translated through its extents, not the host addresses),
 *    ascending, then GUEST_SKIP_END; a page of the other domain and a
 *    free page are not in it; the other domain's list names its own;
 *  - more than GUEST_SKIP_MAX: -E2BIG, the list left empty.
 */
#include "common.h"
#include <keel/domain.h>
#include <keel/guest_abi.h>
#include <keel/heap.h>
#include <keel/p2m.h>

#include "../../common/guest/guest_priv.h"

static struct domain_set ds;
static uint64_t list[512];

#define NODE_RAM (64 * MiB)
#define BROKEN	 ((enum heap_bad_reason)(HEAP_BAD_BROKEN | HEAP_BAD_FROM_MCE))

static void machine(void)
{
	struct test_machine_cfg cfg = {
		.nodes = 2,
		.node = {{NODE_RAM, 2, 0}, {NODE_RAM, 2, 0}},
		.cmdline = "domain=8M@0 domain=4M@1",
		.cachemaint = CACHEMAINT_DEFERRED,
	};

	assert_int_equal(test_machine_boot(&cfg), 4);
	assert_int_equal(domains_setup(&ds, &opts, &test_bi), 2);
	test_quiet_begin();
	domains_build(&ds, NULL);
	test_quiet_end();
}

static struct domain_view view(unsigned int i)
{
	struct domain_view v;

	assert_true(domain_view(&ds, i, &v));
	assert_non_null(v.p2m);
	return v;
}

/* The host pfn domain @i maps at guest @gpa. */
static pfn_t host_of(unsigned int i, uint64_t gpa)
{
	struct domain_view v = view(i);
	paddr_t pa;

	assert_int_equal(p2m_translate(v.p2m, gpa, &pa, NULL), 0);
	return paddr_to_pfn(pa);
}

static void test_empty(void **state)
{
	struct domain_view v;

	(void)state;
	machine();
	v = view(0);
	memset(list, 0xa5, sizeof(list));
	assert_int_equal(guest_skip_list(&v, list), 0);
	assert_int_equal(list[0], (uint64_t)GUEST_SKIP_END);
}

static void test_sorted_ipas(void **state)
{
	static const uint64_t gpas[] = {0x5ff000, 0x1000, 0x200000, 0x7ff000};
	struct domain_view v;

	(void)state;
	machine();
	for (unsigned int i = 0; i < ARRAY_SIZE(gpas); i++)
		assert_int_equal(heap_offline(host_of(0, gpas[i]), BROKEN), 0);
	/* The other domain's page, and a free one: not domain 1's. */
	assert_int_equal(heap_offline(host_of(1, 0x3000), BROKEN), 0);
	v = view(0);
	assert_int_equal(guest_skip_list(&v, list), 4);
	assert_int_equal(list[0], 0x1000);
	assert_int_equal(list[1], 0x200000);
	assert_int_equal(list[2], 0x5ff000);
	assert_int_equal(list[3], 0x7ff000);
	assert_int_equal(list[4], (uint64_t)GUEST_SKIP_END);
	v = view(1);
	assert_int_equal(guest_skip_list(&v, list), 1);
	assert_int_equal(list[0], 0x3000);
	assert_int_equal(list[1], (uint64_t)GUEST_SKIP_END);
}

static void test_too_many(void **state)
{
	struct domain_view v;

	(void)state;
	machine();
	test_quiet_begin();
	for (uint64_t i = 0; i <= GUEST_SKIP_MAX; i++)
		assert_int_equal(heap_offline(host_of(0, i << 12), BROKEN), 0);
	test_quiet_end();
	v = view(0);
	assert_int_equal(guest_skip_list(&v, list), -E2BIG);
	assert_int_equal(list[0], (uint64_t)GUEST_SKIP_END);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_empty, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_sorted_ipas, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_too_many, test_setup,
						test_teardown),
	};

	return cmocka_run_group_tests(tests, test_setup, test_teardown);
}
