/* SPDX-License-Identifier: MIT */
/*
 * Tests of common/audit.c and common/report.c on a small sandbox machine:
 * the audit balances and sees allocations and broken books; the report is
 * one well-formed JSON line with escaped strings and the right verdict.
 */
#include "test_util.h"

#include <keel/report.h>

#define NODE_BYTES (64ull << 20)

static int machine_setup(void **state)
{
	struct test_machine_cfg cfg = {
		.nodes = 2,
		.node = {{NODE_BYTES, 1}, {NODE_BYTES, 1}},
		.clean_handoff = true,
	};

	(void)state;
	test_machine_boot(&cfg);
	return 0;
}

static void test_audit_balances(void **state)
{
	struct audit_result a;

	(void)state;
	audit_run(&a, true);
	assert_true(a.ok);
	assert_int_equal(a.lost_pages, 0);
	assert_int_equal(a.problems, 0);
	assert_int_equal(a.ram_pages, 2 * NODE_BYTES / PAGE_SIZE);
	assert_int_equal(a.free_pages, heap_free_pages());
	/* The frame table came from bootmem: some RAM must be reserved. */
	assert_true(a.reserved_pages > 0);
	assert_int_equal(a.free_pages + a.allocated_pages + a.reserved_pages,
			 a.ram_pages);
}

static void test_audit_sees_allocation(void **state)
{
	struct audit_result before, after;
	struct page_info *pg;

	(void)state;
	audit_run(&before, false);
	pg = heap_alloc(4, HEAP_NO_SCRUB);
	assert_non_null(pg);
	audit_run(&after, false);
	assert_true(after.ok);
	assert_int_equal(after.allocated_pages, before.allocated_pages + 16);
	assert_int_equal(after.free_pages, before.free_pages - 16);
	assert_int_equal(heap_free(pg, 4, false), 0);
	audit_run(&after, false);
	assert_int_equal(after.free_pages, before.free_pages);
}

/* Count braces/brackets outside strings; false on imbalance or bad escape. */
static bool json_balanced(const char *s, const char *end)
{
	int depth = 0;
	bool in_str = false;

	for (; s < end; s++) {
		if (in_str) {
			if (*s == '\\')
				s++;
			else if (*s == '"')
				in_str = false;
			else if ((unsigned char)*s < 0x20)
				return false;
			continue;
		}
		if (*s == '"')
			in_str = true;
		else if (*s == '{' || *s == '[')
			depth++;
		else if (*s == '}' || *s == ']')
			if (--depth < 0)
				return false;
	}
	return depth == 0 && !in_str;
}

static const char *report_line(const char *out, const char **end)
{
	const char *line = strstr(out, "KEEL-REPORT ");

	assert_non_null(line);
	/* Exactly one. */
	assert_null(strstr(line + 1, "KEEL-REPORT "));
	line += strlen("KEEL-REPORT ");
	*end = strchr(line, '\n');
	assert_non_null(*end);
	return line;
}

static void test_report_json_pass(void **state)
{
	struct audit_result a;
	const char *out, *json, *end;
	bool pass;

	(void)state;
	strcpy(test_bi.cmdline, "bench=off note=\"q\\\x01");
	audit_run(&a, false);
	test_quiet_begin();
	pass = report_print(&test_bi, &a, NULL);
	test_quiet_end();
	out = sandbox_console_buffer();

	assert_true(pass);
	json = report_line(out, &end);
	assert_int_equal(json[0], '{');
	assert_int_equal(end[-1], '}');
	assert_true(json_balanced(json, end));
	/* The quote, backslash and control byte are escaped. */
	assert_non_null(strstr(json, "note=\\\"q\\\\\\u0001\""));
	assert_non_null(strstr(json, "\"schema\":1,"));
	assert_non_null(strstr(json, "\"lost_pages\":0,"));
	assert_non_null(strstr(json, "\"result\":\"pass\""));
	assert_non_null(strstr(end, "\nKEEL: PASS\n"));
	assert_null(strstr(out, "KEEL: FAIL"));
	test_bi.cmdline[0] = '\0';
}

static void test_report_fail_on_lost_pages(void **state)
{
	struct audit_result a;
	const char *out, *json, *end;

	(void)state;
	audit_run(&a, false);
	a.lost_pages = 3;
	a.ok = false;
	test_quiet_begin();
	assert_false(report_print(&test_bi, &a, NULL));
	test_quiet_end();
	out = sandbox_console_buffer();
	json = report_line(out, &end);
	assert_true(json_balanced(json, end));
	assert_non_null(strstr(json, "\"lost_pages\":3,"));
	assert_non_null(strstr(json, "\"result\":\"fail\""));
	assert_non_null(strstr(out, "KEEL: FAIL audit: lost pages\n"));
	assert_null(strstr(out, "KEEL: PASS"));
}

static void test_report_fail_reason_given(void **state)
{
	struct audit_result a;

	(void)state;
	audit_run(&a, false);
	test_quiet_begin();
	assert_false(report_print(&test_bi, &a, "scrub incomplete"));
	test_quiet_end();
	assert_true(
		test_console_contains("\"fail_reason\":\"scrub incomplete\""));
	assert_true(test_console_contains("KEEL: FAIL scrub incomplete\n"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_audit_balances),
		cmocka_unit_test(test_audit_sees_allocation),
		cmocka_unit_test(test_report_json_pass),
		cmocka_unit_test(test_report_fail_on_lost_pages),
		cmocka_unit_test(test_report_fail_reason_given),
	};

	return cmocka_run_group_tests(tests, machine_setup, NULL);
}
