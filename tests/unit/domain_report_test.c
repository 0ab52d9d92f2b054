/* SPDX-License-Identifier: MIT */
/*
 * Domains, the report (common/domain_report.c): the human lines print
 * sizes in a unit that fits. On a sandbox machine of 2 nodes x 64 MiB
 * with the real heap and p2m.
 */
#include "common.h"
#include <keel/domain.h>

#include "../../common/domain_priv.h"

#define NODE_RAM (64 * MiB)

static void machine(const char *cmdline)
{
	struct test_machine_cfg cfg = {
		.nodes = 2,
		.node = {{NODE_RAM, 2, 0}, {NODE_RAM, 2, 0}},
		.cmdline = cmdline,
		.cachemaint = CACHEMAINT_DEFERRED,
	};

	assert_int_equal(test_machine_boot(&cfg), 4);
	domains_setup(&opts, &test_bi);
	test_quiet_begin();
	domains_build(NULL);
	test_quiet_end();
}

/* Human lines: a 4 KiB domain is 4 KiB, not "0 MiB"; tables named. */
static void test_human_sizes(void **state)
{
	machine("domain=4K domain=5G");
	test_quiet_begin();
	sandbox_console_clear();
	domains_report_human();
	test_quiet_end();
	assert_true(test_console_contains("domain 1 domain0: 4 KiB on node "));
	assert_true(test_console_contains(
		"domains: 1 built (4 KiB + 16 KiB of tables), 1 failed"));
	assert_true(test_console_contains(
		"FAILED: out of memory: 5 GiB asked + 40 KiB of tables, "));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_human_sizes, test_setup,
						test_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
