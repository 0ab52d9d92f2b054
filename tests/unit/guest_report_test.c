/* SPDX-License-Identifier: MIT */
/*
 * Guests, the report (common/report/guest_report.c) from a state set by
 * hand (the sandbox runs no guest): nothing without guests=on; the
 * unsupported reason with an empty table; every row up to 16 guests,
 * above that (compact) the ones with a problem or a fault, at most 2, and
 * the largest blackout, the rest counted; report=full every row; null
 * IPAs where there is none; the human lines bounded the same way.
 */
#include "common.h"

#include <keel/guest.h>
#include <keel/json.h>

#include "../../common/guest/guest_priv.h"
#include "../../common/report/report_priv.h"

static const char *report_text_of(bool full)
{
	struct jw w;

	test_quiet_begin();
	sandbox_console_clear();
	jw_init(&w);
	jw_obj(&w, NULL);
	guests_report_json(&w, full);
	jw_obj_end(&w);
	jw_flush(&w);
	test_quiet_end();
	return sandbox_console_buffer();
}

static const char *report_text(void)
{
	return report_text_of(false);
}

/* Rows of the `guests` table in @json. */
static unsigned int rows_of(const char *json)
{
	const char *p = strstr(json, "\"rows\":[");
	unsigned int n = 0, depth = 0;

	if (!p)
		return 0;
	for (p += 8; *p && !(depth == 0 && *p == ']'); p++) {
		if (*p == '[' && depth++ == 0)
			n++;
		else if (*p == ']')
			depth--;
	}
	return n;
}

/* @count guests done, 1 MiB each; guest 5 bad, guest 9 faulted. */
static void state(unsigned int count)
{
	memset(&guest_state, 0, sizeof(guest_state));
	guest_state.rounds = 1;
	guest_state.count = count;
	for (unsigned int i = 0; i < count; i++) {
		struct vcpu *v = &guest_state.vcpu[i];

		v->domain = (uint16_t)(i + 1);
		v->bytes = 1 << 20;
		v->pages_walked = 256;
		v->end = GUEST_END_DONE;
		v->gap_ticks = 100 + i;
		v->first_bad_ipa = v->fault_ipa = (uint64_t)GUEST_NO_IPA;
	}
	guest_state.vcpu[4].bad_words = 3;
	guest_state.vcpu[4].first_bad_ipa = 0x2000;
	guest_state.vcpu[8].end = GUEST_END_STAGE2;
	guest_state.vcpu[8].stage2_faults = 1;
	guest_state.vcpu[8].fault_ipa = 1 << 20;
	guest_state.vcpu[2].gap_ticks = 5000; /* the largest blackout */
}

static void test_none_without_guests(void **state_)
{
	(void)state_;
	memset(&guest_state, 0, sizeof(guest_state));
	assert_null(strstr(report_text(), "guests"));
}

static void test_unsupported(void **state_)
{
	const char *t;

	(void)state_;
	memset(&guest_state, 0, sizeof(guest_state));
	guest_state.rounds = 1;
	guest_state.unsupported = "no SVM";
	t = report_text();
	assert_non_null(strstr(t, "\"unsupported\":\"no SVM\""));
	assert_int_equal(rows_of(t), 0);
	assert_non_null(strstr(t, "\"count\":0"));
}

static void test_rows(void **state_)
{
	const char *t;

	(void)state_;
	state(16);
	t = report_text();
	assert_int_equal(rows_of(t), 16);
	assert_non_null(strstr(t, "[5,0,256,3,8192,0,null,"));
	assert_non_null(strstr(t, "[9,0,256,0,null,1,1048576,"));
	assert_non_null(strstr(t, "\"stage2-fault\""));
	assert_non_null(strstr(t, "\"rows_left_out\":0"));
	/* 17: compact: the bad and the faulted one, the largest blackout. */
	state(17);
	t = report_text();
	assert_int_equal(rows_of(t), 3);
	assert_non_null(strstr(t, "\"rows_left_out\":14"));
	assert_non_null(strstr(t, "[3,0,256,0,null,0,null,"));
	assert_int_equal(rows_of(report_text_of(true)), 17);
}

static void test_human_lines(void **state_)
{
	(void)state_;
	state(16);
	test_quiet_begin();
	sandbox_console_clear();
	guests_report_human();
	test_quiet_end();
	assert_int_equal(test_console_lines(), 17);
	state(40);
	test_quiet_begin();
	sandbox_console_clear();
	guests_report_human();
	test_quiet_end();
	/* Above 16: the two with a problem, then the summary. */
	assert_int_equal(test_console_lines(), 3);
	assert_true(test_console_contains("guest 5: cpu 0, 256 pages walked, "
					  "3 bad words"));
	assert_true(test_console_contains("guests: 40 in round 1"));
	/* No walk timed, or under a microsecond: never "walked in 0 us". */
	assert_true(test_console_contains("guests: 40 in round 1, no memory "
					  "walked, "));
	guest_state.walk_bytes = 8 << 10;
	guest_state.walk_ticks = 1;
	test_quiet_begin();
	sandbox_console_clear();
	guests_report_human();
	test_quiet_end();
	assert_false(test_console_contains(" 0 us"));
	assert_true(test_console_contains("8 KiB walked in "));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_none_without_guests,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_unsupported, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_rows, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_human_lines, test_setup,
						test_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
