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
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
