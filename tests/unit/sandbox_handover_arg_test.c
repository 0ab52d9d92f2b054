/* SPDX-License-Identifier: MIT */
/*
 * The sandbox's --handover=FD:PA:SIZE (arch/sandbox/main.c) with a
 * descriptor that cannot be this image's RAM: sandbox_main() runs in a
 * child process and must stop with one error naming the option, the
 * descriptor and the host's own reason, never a cause it was not given
 * (it once said "the host's address space is smaller" for a closed
 * descriptor).
 */
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"

/*
 * The child maps nothing and exits at once (milliseconds); it is killed
 * after 60 s, far more than 5x that on a busy host, so that a hang fails
 * the test instead of hanging it.
 */
#define CHILD_TIMEOUT_S 60

/* Run sandbox_main(@argv) in a child; its stderr into @err. Return: rc. */
static int run_child(char **argv, char *err, size_t size)
{
	int pipefd[2], status, argc = 0;
	size_t used = 0;
	ssize_t got;
	pid_t pid;

	while (argv[argc])
		argc++;
	assert_int_equal(pipe(pipefd), 0);
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(pipefd[0]);
		alarm(CHILD_TIMEOUT_S);
		dup2(pipefd[1], STDERR_FILENO);
		_exit(sandbox_main(argc, argv));
	}
	close(pipefd[1]);
	while ((got = read(pipefd[0], err + used, size - 1 - used)) > 0)
		used += (size_t)got;
	err[used] = '\0';
	close(pipefd[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	return WEXITSTATUS(status);
}

static void test_closed_descriptor(void **state)
{
	static char err[8192];
	char *argv[] = {"keel", "--handover=77:0x1000:4096",
			"tests/data/sandbox-1node.fw", NULL};

	(void)state;
	close(77);
	assert_int_equal(run_child(argv, err, sizeof(err)), 2);
	assert_non_null(strstr(err, "keel: error: --handover=: descriptor 77 "
				    "cannot be mapped"));
	assert_non_null(strstr(err, "Bad file descriptor"));
	assert_null(strstr(err, "address space is smaller"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_closed_descriptor),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
