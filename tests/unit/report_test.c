/* SPDX-License-Identifier: MIT */
/*
 * Tests of common/report/audit.c, common/lib/json.c and common/report/report.c
  * on a small sandbox machine: the audit balances and sees allocations and
   * broken books; the writer's tables and self-inclusive length are exact; the
 * report is one well-formed JSON line with escaped strings, per-CPU tables
 * and the right verdict.
 */
#include "common.h"

#include <stdlib.h>

#include <keel/heap_check.h>
#include <keel/json.h>
#include <keel/audit.h>
#include <keel/boot.h>
#include <keel/domain.h>
#include <keel/report.h>

/* A boot without domains (the flow's set, as domains_setup() never ran). */
static struct domain_set no_domains;

#define NODE_BYTES (64ull << 20)

static int machine_setup(void **state)
{
	struct test_machine_cfg cfg = {
		.nodes = 2,
		.node = {{NODE_BYTES, 1}, {NODE_BYTES, 1}},
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
	assert_int_equal(a.free_pages, heap_stats_all(0).free_pages);
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
	pg = heap_alloc(4, HEAP_ANY_NODE, 0, HEAP_NO_SCRUB, NULL);
	assert_non_null(pg);
	audit_run(&after, false);
	assert_true(after.ok);
	assert_int_equal(after.allocated_pages, before.allocated_pages + 16);
	assert_int_equal(after.free_pages, before.free_pages - 16);
	assert_int_equal(heap_free(pg, 4, HEAP_FREE_ZEROED), 0);
	audit_run(&after, false);
	assert_int_equal(after.free_pages, before.free_pages);
}

/* A table is the column names once, then one list of values per row. */
static void test_json_table_rows(void **state)
{
	static const char *const cols[] = {"a", "b"};
	static const char want[] =
		"{\"k\":1,\"t\":{\"columns\":[\"a\",\"b\"],\"rows\":[[1,\"x\"],"
		"[2,null],[3,true]]},\"n\":[]}";
	struct jw w;

	(void)state;
	test_quiet_begin();
	jw_init(&w);
	jw_obj(&w, NULL);
	jw_u64(&w, "k", 1);
	jw_table(&w, "t", cols, 2);
	jw_row(&w);
	jw_u64(&w, NULL, 1);
	jw_str(&w, NULL, "x");
	jw_row_end(&w);
	jw_row(&w);
	jw_u64(&w, NULL, 2);
	jw_null(&w, NULL);
	jw_row_end(&w);
	jw_row(&w);
	jw_u64(&w, NULL, 3);
	jw_bool(&w, NULL, true);
	jw_row_end(&w);
	jw_table_end(&w);
	jw_arr(&w, "n");
	jw_arr_end(&w);
	jw_obj_end(&w);
	jw_flush(&w);
	test_quiet_end();
	assert_string_equal(sandbox_console_buffer(), want);
	assert_int_equal(w.total, strlen(want));
}

/*
 * Strings: well-formed UTF-8 as it is (2, 3 and 4-byte forms), every
 * ill-formed byte as \u00NN (a stray byte, a sequence cut short, an
 * overlong form, a surrogate, past U+10FFFF), C1 controls as one \u00NN.
 */
static void test_json_utf8(void **state)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{"caf\xc3\xa9", "\"caf\xc3\xa9\""},
		{"\xe2\x82\xac \xf0\x9f\x98\x80",
		 "\"\xe2\x82\xac \xf0\x9f\x98\x80\""},
		{"a\xff"
		 "b",
		 "\"a\\u00ffb\""},
		{"x\xc3", "\"x\\u00c3\""},
		{"\xe2\x82", "\"\\u00e2\\u0082\""},
		{"\xc0\xaf", "\"\\u00c0\\u00af\""},
		{"\xed\xa0\x80", "\"\\u00ed\\u00a0\\u0080\""},
		{"\xf4\x90\x80\x80", "\"\\u00f4\\u0090\\u0080\\u0080\""},
		{"\xc2\x85|\xc2\xa0", "\"\\u0085|\xc2\xa0\""},
		{"\x1b\x7f\"", "\"\\u001b\\u007f\\\"\""},
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct jw w;

		sandbox_console_clear();
		test_quiet_begin();
		jw_init(&w);
		jw_str(&w, NULL, cases[i].in);
		jw_flush(&w);
		test_quiet_end();
		assert_string_equal(sandbox_console_buffer(), cases[i].out);
		assert_int_equal(w.total, strlen(cases[i].out));
	}
}

/*
 * jw_end_with_length() counts itself: for documents whose length crosses
 * 10, 100 and 1000 (where the number gains a digit), the printed value is
 * the length of what was printed.
 */
static void test_json_length_counts_itself(void **state)
{
	static char pad[1200];

	(void)state;
	memset(pad, 'p', sizeof(pad) - 1);
	for (size_t n = 0; n < sizeof(pad) - 1; n++) {
		struct jw w;
		const char *out, *num;
		uint64_t got;

		test_quiet_begin();
		jw_init(&w);
		jw_obj(&w, NULL);
		if (n)
			jw_strn(&w, "p", pad, n - 1);
		got = jw_end_with_length(&w, "len");
		jw_flush(&w);
		test_quiet_end();
		out = sandbox_console_buffer();
		assert_int_equal(got, strlen(out));
		num = strstr(out, "\"len\":");
		assert_non_null(num);
		assert_int_equal(strtoull(num + 6, NULL, 10), got);
		assert_int_equal(out[strlen(out) - 1], '}');
	}
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

	(void)state;
	strcpy(test_bi.cmdline, "bench=off note=\"q\\\x01");
	audit_run(&a, false);
	test_quiet_begin();
	report_print(&test_bi, &a, NULL, &(struct boot_times){0}, &no_domains);
	test_quiet_end();
	out = sandbox_console_buffer();

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

/* Count non-overlapping occurrences of @needle in [s, end). */
static unsigned int count_in(const char *s, const char *end, const char *needle)
{
	unsigned int n = 0;

	while ((s = strstr(s, needle)) != NULL && s < end) {
		n++;
		s += strlen(needle);
	}
	return n;
}

/*
 * The per-CPU lists are tables (key names once, not once per CPU), scrub
 * units are summed unless trace=full, and report_bytes is the length of
 * the JSON text.
 */
static void test_report_compact(void **state)
{
	struct audit_result a;
	const char *json, *end, *p;
	unsigned long long bytes;

	(void)state;
	audit_run(&a, false);
	test_quiet_begin();
	report_print(&test_bi, &a, NULL, &(struct boot_times){0}, &no_domains);
	test_quiet_end();
	json = report_line(sandbox_console_buffer(), &end);
	assert_non_null(
		strstr(json, "\"cpus\":{\"columns\":[\"id\",\"hwid\","));
	/* Column names appear once whatever the CPU count. */
	assert_int_equal(count_in(json, end, "\"tsc_skew_ns\""), 1);
	assert_int_equal(count_in(json, end, "\"hwid\""), 1);
	assert_non_null(strstr(json, "\"trace_mode\":\"summary\""));
	assert_int_equal(count_in(json, end, "\"scrub_unit\""), 0);
	p = strstr(json, ",\"report_bytes\":");
	assert_non_null(p);
	assert_int_equal(sscanf(p, ",\"report_bytes\":%llu}", &bytes), 1);
	assert_int_equal(bytes, (unsigned long long)(end - json));
	assert_ptr_equal(strchr(p, '}'), end - 1);
}

static void test_report_fail_on_lost_pages(void **state)
{
	struct audit_result a;
	const char *out, *json, *end;

	(void)state;
	audit_run(&a, false);
	a.lost_pages = 3;
	a.ok = false;
	/* The verdict is boot_verdict()'s; the report prints it. */
	assert_string_equal(boot_verdict(&a, &opts), "audit: lost pages");
	a.lost_pages = 0;
	assert_string_equal(boot_verdict(&a, &opts),
			    "audit: heap check problems");
	a.lost_pages = 3;
	test_quiet_begin();
	report_print(&test_bi, &a, boot_verdict(&a, &opts),
		     &(struct boot_times){0}, &no_domains);
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
	report_print(&test_bi, &a, "scrub incomplete", &(struct boot_times){0},
		     &no_domains);
	test_quiet_end();
	assert_true(
		test_console_contains("\"fail_reason\":\"scrub incomplete\""));
	assert_true(test_console_contains("KEEL: FAIL scrub incomplete\n"));
}

/*
 * The flow's set is NULL on a boot with no domain to hold (common/boot.c
 * claims it only then): its report is that of an empty set, byte for byte.
 */
static void test_report_null_set(void **state)
{
	static char empty[32768];
	struct audit_result a;
	const char *out;

	(void)state;
	audit_run(&a, false);
	test_quiet_begin();
	report_print(&test_bi, &a, NULL, &(struct boot_times){0}, &no_domains);
	test_quiet_end();
	out = sandbox_console_buffer();
	assert_true(strlen(out) < sizeof(empty));
	strcpy(empty, out);
	test_quiet_begin();
	report_print(&test_bi, &a, NULL, &(struct boot_times){0}, NULL);
	test_quiet_end();
	assert_string_equal(sandbox_console_buffer(), empty);
	assert_int_equal(domain_set_stats(NULL)->count, 0);
	assert_false(domain_view(NULL, 0, &(struct domain_view){0}));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_audit_balances, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_audit_sees_allocation,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_json_table_rows,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_json_length_counts_itself,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_json_utf8, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_report_json_pass,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_report_compact, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_report_fail_on_lost_pages,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_report_null_set,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_report_fail_reason_given,
						test_setup, test_teardown),
	};

	return cmocka_run_group_tests(tests, machine_setup, NULL);
}
