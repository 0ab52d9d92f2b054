/* SPDX-License-Identifier: MIT */
/* common/lib/printk.c: levels, counters, raw output, truncation, panic, SMP. */
#include <pthread.h>
#include <stdlib.h>

#include "common.h"

static int saved_level;

static int setup(void **state)
{
	saved_level = printk_get_level();
	printk_set_level(LOG_INFO);
	return test_setup(state);
}

static int teardown(void **state)
{
	printk_set_level(saved_level);
	return test_teardown(state);
}

static void test_levels(void **state)
{
	unsigned int w = printk_warn_count, e = printk_err_count;

	pr_info("info %d\n", 1);
	pr_debug("debug %d\n", 2);
	pr_warn("warn %s\n", "x");
	pr_err("err %u\n", 3u);
	assert_string_equal(sandbox_console_buffer(), "keel: info 1\n"
						      "keel: warning: warn x\n"
						      "keel: error: err 3\n");
	assert_int_equal(printk_warn_count, w + 1);
	assert_int_equal(printk_err_count, e + 1);

	sandbox_console_clear();
	printk_set_level(LOG_ERR);
	pr_info("hidden\n");
	pr_warn("hidden too\n");
	pr_err("shown\n");
	assert_string_equal(sandbox_console_buffer(), "keel: error: shown\n");
	/* Dropped warnings still count. */
	assert_int_equal(printk_warn_count, w + 2);

	sandbox_console_clear();
	printk_set_level(LOG_DEBUG);
	pr_debug("dbg\n");
	assert_string_equal(sandbox_console_buffer(), "keel: dbg\n");
}

static void test_raw(void **state)
{
	console_puts("KEEL-REPORT {");
	console_write("\"a\":1}xyz", 6);
	console_printf("\n%s %d\n", "v", -4);
	assert_string_equal(sandbox_console_buffer(),
			    "KEEL-REPORT {\"a\":1}\nv -4\n");
}

static void test_truncation(void **state)
{
	static char big[2000];
	const char *out;
	size_t n;

	memset(big, 'a', sizeof(big) - 1);
	pr_info("%s\n", big);
	out = sandbox_console_buffer();
	n = strlen(out);
	/* Bounded, and a cut line still ends the line. */
	assert_true(n > 100 && n < 1024);
	assert_int_equal(out[n - 1], '\n');
	assert_int_equal(strncmp(out, "keel: aaaa", 10), 0);
}

static void test_panic(void **state)
{
	unsigned int e = printk_err_count;

	TEST_EXPECT_PANIC(panic("boom %d in %s", 42, "test"),
			  "boom 42 in test");
	assert_string_equal(sandbox_last_panic(), "boom 42 in test");
	assert_true(test_console_contains("keel: panic: boom 42 in test\n"));
	assert_true(
		test_console_contains("KEEL: FAIL panic: boom 42 in test\n"));
	assert_int_equal(printk_err_count, e + 1);

	/* Panics print even at loglevel 0, and the guard was released. */
	sandbox_console_clear();
	printk_set_level(LOG_ERR);
	TEST_EXPECT_PANIC(panic("second"), "second");
	assert_true(test_console_contains("KEEL: FAIL panic: second\n"));
}

static void test_hold(void **state)
{
	static char line[200];
	size_t before = console_release(), n = 0;

	/* Held lines stay out of the console until the release. */
	console_hold();
	pr_info("one\n");
	pr_warn("two\n");
	assert_string_equal(sandbox_console_buffer(), "");
	assert_int_equal(console_release(),
			 before + strlen("keel: one\n") +
				 strlen("keel: warning: two\n"));
	assert_string_equal(sandbox_console_buffer(),
			    "keel: one\nkeel: warning: two\n");
	/* Released: lines go straight out again. */
	pr_info("three\n");
	assert_true(test_console_contains("keel: three\n"));

	/* An error writes the held lines first, in order, and ends it. */
	sandbox_console_clear();
	console_hold();
	pr_info("held\n");
	pr_err("bad\n");
	pr_info("after\n");
	assert_string_equal(sandbox_console_buffer(),
			    "keel: held\nkeel: error: bad\nkeel: after\n");

	/* Raw output (the report) too. */
	sandbox_console_clear();
	console_hold();
	pr_info("x\n");
	console_puts("KEEL: PASS\n");
	assert_string_equal(sandbox_console_buffer(), "keel: x\nKEEL: PASS\n");

	/* A full buffer is written out and holding goes on: nothing lost. */
	sandbox_console_clear();
	memset(line, 'h', sizeof(line) - 2);
	line[sizeof(line) - 2] = '\n';
	console_hold();
	for (int i = 0; i < 200; i++)
		pr_info("%s", line);
	assert_true(strlen(sandbox_console_buffer()) > 0);
	assert_true(strlen(sandbox_console_buffer()) <
		    200 * (sizeof(line) + 5));
	console_release();
	for (const char *p = sandbox_console_buffer(); (p = strstr(p, line));
	     p++)
		n++;
	assert_int_equal(n, 200);

	/* A panic writes them out before its own lines. */
	sandbox_console_clear();
	console_hold();
	pr_info("last words\n");
	TEST_EXPECT_PANIC(panic("held panic"), "held panic");
	assert_int_equal(strncmp(sandbox_console_buffer(),
				 "keel: last words\nkeel: panic: held panic\n",
				 strlen("keel: last words\nkeel: panic: ")),
			 0);
	console_release();
}

#define THREADS 4
#define LINES	300

static void *writer(void *arg)
{
	long t = (long)arg;

	for (int i = 0; i < LINES; i++)
		pr_info("thread %ld line %d of %d\n", t, i, LINES);
	return NULL;
}

static void test_concurrent_lines(void **state)
{
	pthread_t th[THREADS];
	int seen[THREADS] = {0};
	char *copy, *line, *save = NULL;

	for (long t = 0; t < THREADS; t++)
		assert_int_equal(
			pthread_create(&th[t], NULL, writer, (void *)t), 0);
	for (int t = 0; t < THREADS; t++)
		pthread_join(th[t], NULL);

	copy = strdup(sandbox_console_buffer());
	assert_non_null(copy);
	/* Every line whole: no interleaving inside a line. */
	for (line = strtok_r(copy, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		long t;
		int i, total, used = 0;

		assert_int_equal(sscanf(line,
					"keel: thread %ld line %d of %d%n", &t,
					&i, &total, &used),
				 3);
		assert_int_equal((size_t)used, strlen(line));
		assert_true(t >= 0 && t < THREADS);
		assert_int_equal(i, seen[t]);
		assert_int_equal(total, LINES);
		seen[t]++;
	}
	for (int t = 0; t < THREADS; t++)
		assert_int_equal(seen[t], LINES);
	free(copy);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_levels, setup, teardown),
		cmocka_unit_test_setup_teardown(test_raw, setup, teardown),
		cmocka_unit_test_setup_teardown(test_truncation, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_panic, setup, teardown),
		cmocka_unit_test_setup_teardown(test_concurrent_lines, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_hold, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
