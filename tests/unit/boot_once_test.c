/* SPDX-License-Identifier: MIT */
/*
 * The command line is parsed once a boot (issue 29 §2): the sandbox's
 * whole boot, sandbox_main() from the arch's entry through keel_main() to
 * arch_stop(), runs in a child process; its exit handler reports how many
 * times options_parse() ran, and its console shows each warning of a
 * malformed word exactly once. (Before, the early readers and
 * fwboot_finish() parsed the line quietly and keel_main() a third time.)
 */
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"

/*
 * The boot (512 MiB, 2 CPUs, bootscrub=off) takes about 0.02 s under
 * ASan on a quiet 2-core host; the child is killed after 60 s, far more
 * than 5x that even on a busy one, so that a hung boot fails the test
 * instead of hanging it.
 */
#define BOOT_TIMEOUT_S 60

static int count_fd = -1;
static unsigned int parses_before;

/* The child's exit handler: the parses its boot did, to the parent. */
static void report_parses(void)
{
	unsigned int n = options_parse_count() - parses_before;

	if (write(count_fd, &n, sizeof(n)) != sizeof(n))
		_exit(97);
}

/* The child: boot @argv with the console on @out_fd, report at exit. */
static __attribute__((noreturn)) void child_boot(char **argv, int out_fd)
{
	int argc = 0;

	while (argv[argc])
		argc++;
	alarm(BOOT_TIMEOUT_S);
	sandbox_console_capture(false, false);
	dup2(out_fd, STDOUT_FILENO);
	parses_before = options_parse_count();
	atexit(report_parses);
	sandbox_main(argc, argv);
	_exit(98); /* sandbox_main() returned: usage or file error */
}

/*
 * Boot @argv in a child; its console into @log (NUL-terminated, cut at
 * @size). Return: how many times it parsed the options (~0u: it never
 * reached its exit handler).
 */
static unsigned int boot_and_count(char **argv, char *log, size_t size)
{
	int out[2], cnt[2], status;
	unsigned int n = ~0u;
	size_t used = 0;
	ssize_t got;
	pid_t pid;

	assert_int_equal(pipe(out), 0);
	assert_int_equal(pipe(cnt), 0);
	fflush(stdout);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(out[0]);
		close(cnt[0]);
		count_fd = cnt[1];
		child_boot(argv, out[1]);
	}
	close(out[1]);
	close(cnt[1]);
	/* Read while it runs: the log is larger than a pipe holds. */
	while ((got = read(out[0], log + used, size - 1 - used)) > 0) {
		used += (size_t)got;
		if (used == size - 1) {
			char sink[4096];

			while (read(out[0], sink, sizeof(sink)) > 0)
				;
			break;
		}
	}
	log[used] = '\0';
	if (read(cnt[0], &n, sizeof(n)) != sizeof(n))
		n = ~0u;
	close(out[0]);
	close(cnt[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	return n;
}

static unsigned int count_in(const char *log, const char *s)
{
	unsigned int n = 0;

	for (const char *p = log; (p = strstr(p, s)) != NULL; p += strlen(s))
		n++;
	return n;
}

static void test_sandbox_boot_parses_once(void **state)
{
	static char log[1 << 20];
	char *argv[] = {
		"keel",	  "tests/data/sandbox-1node.fw", "bootscrub=off",
		"frob=1", "bootscrub_chunk=banana",	 "inject=bad-map:7",
		NULL};

	(void)state;
	assert_int_equal(boot_and_count(argv, log, sizeof(log)), 1);
	assert_non_null(strstr(log, "KEEL: PASS"));
	assert_int_equal(count_in(log, "unknown option frob=1 ignored"), 1);
	assert_int_equal(count_in(log, "bootscrub_chunk=\"banana\""), 1);
	assert_int_equal(count_in(log, "inject=bad-map:7: bad-map takes no "
				       ":N, ignored"),
			 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_sandbox_boot_parses_once,
						test_setup, test_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
