/* SPDX-License-Identifier: MIT */
/*
 * Domains, the report (common/report/domain_report.c, domain_summary.c,
 * through the domain room's public view only): the
 * compact report keeps a few chosen rows of many domains and summarises
 * all of them (counts, bytes, nodes, reasons by kind), report=full keeps
 * every row; the human lines print sizes in a unit that fits. On a
 * sandbox machine of 2 nodes x 64 MiB with the real heap and p2m.
 */
#include "common.h"
#include <keel/domain.h>
#include <keel/json.h>

#include "../../common/report/report_priv.h"

/* The domains of the test's boot (the flow holds one likewise). */
static struct domain_set ds;

#define NODE_RAM (64 * MiB)

/* 6 small domains built, 4 too big for the machine: 10 in all. */
#define MANY                                                    \
	"domain=4K domain=1M@1 domain=8K domain=2M domain=12K " \
	"domain=3M@0 domain=1G domain=2G domain=1G@1 domain=5G"

static void machine(const char *cmdline)
{
	struct test_machine_cfg cfg = {
		.nodes = 2,
		.node = {{NODE_RAM, 2, 0}, {NODE_RAM, 2, 0}},
		.cmdline = cmdline,
		.cachemaint = CACHEMAINT_DEFERRED,
	};

	assert_int_equal(test_machine_boot(&cfg), 4);
	domains_setup(&ds, &opts, &test_bi);
	test_quiet_begin();
	domains_build(&ds, NULL);
	test_quiet_end();
}

/* The report's domains keys, as text (valid until the next capture). */
static const char *report_text(void)
{
	struct jw w;

	test_quiet_begin();
	sandbox_console_clear();
	jw_init(&w);
	jw_obj(&w, NULL);
	domains_report_json(&w, &ds);
	jw_obj_end(&w);
	jw_flush(&w);
	test_quiet_end();
	return sandbox_console_buffer();
}

/* Rows of the `domains` table in @json, their ids in @ids. */
static unsigned int table_rows(const char *json, unsigned int *ids)
{
	const char *p = strstr(json, "\"domains\":{\"columns\":");
	unsigned int n = 0, depth = 0;

	assert_non_null(p);
	p = strstr(p, "\"rows\":[");
	assert_non_null(p);
	for (p += strlen("\"rows\":["); *p && !(*p == ']' && !depth); p++) {
		if (*p == '[' && !depth++)
			ids[n++] = (unsigned int)strtoul(p + 1, NULL, 10);
		else if (*p == ']')
			depth--;
		else if (*p == '"') /* a reason may hold brackets */
			p = strchr(p + 1, '"');
	}
	return n;
}

/* The number under domains_info.@key in @json. */
static uint64_t json_u64(const char *json, const char *key)
{
	const char *p = strstr(json, "\"domains_info\":");
	char pat[64];

	assert_non_null(p);
	snprintf(pat, sizeof(pat), "\"%s\":", key);
	p = strstr(p, pat);
	assert_non_null(p);
	return strtoull(p + strlen(pat), NULL, 10);
}

/* Many domains, compact: a few chosen rows, the rest summarised. */
static void test_compact(void **state)
{
	unsigned int ids[DOMAIN_MAX], n;
	const char *json;

	machine(MANY);
	assert_int_equal(ds.stats.count, 10);
	json = report_text();
	n = table_rows(json, ids);
	assert_true(n >= 2 && n <= 4);
	/* The largest built (3 MiB, id 6) and the first failed (id 7). */
	assert_int_equal(ids[n - 1], 7);
	assert_int_equal(json_u64(json, "rows"), n);
	assert_int_equal(json_u64(json, "rows_left_out"), 10 - n);
	assert_int_equal(json_u64(json, "built"), 6);
	assert_int_equal(json_u64(json, "failed"), 4);
	assert_int_equal(json_u64(json, "built_bytes"),
			 4096 + MiB + 8192 + 2 * MiB + 12288 + 3 * MiB);
	assert_int_equal(json_u64(json, "largest"), 6);
	assert_non_null(strstr(json, "\"reasons\":{\"columns\":[\"reason\","
				     "\"count\",\"first\"],\"rows\":"
				     "[[\"out of memory\",4,7]]}"));
	assert_non_null(strstr(json, "\"by_node\":"));
}

/* report=full: every row, none left out. */
static void test_full(void **state)
{
	unsigned int ids[DOMAIN_MAX];
	const char *json;

	machine(MANY " report=full");
	json = report_text();
	assert_int_equal(table_rows(json, ids), 10);
	for (unsigned int i = 0; i < 10; i++)
		assert_int_equal(ids[i], i + 1);
	assert_int_equal(json_u64(json, "rows_left_out"), 0);
	assert_int_equal(json_u64(json, "failed"), 4);
}

/* Up to 4 domains the compact table has them all. */
static void test_few(void **state)
{
	unsigned int ids[DOMAIN_MAX];

	machine("domain=4K domain=1G domain=8K domain=2M");
	assert_int_equal(table_rows(report_text(), ids), 4);
}

/* Human lines: a 4 KiB domain is 4 KiB, not "0 MiB"; tables named. */
static void test_human_sizes(void **state)
{
	machine("domain=4K domain=5G");
	test_quiet_begin();
	sandbox_console_clear();
	domains_report_human(&ds);
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
		cmocka_unit_test_setup_teardown(test_compact, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_full, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_few, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_human_sizes, test_setup,
						test_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
