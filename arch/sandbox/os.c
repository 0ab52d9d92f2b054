/* SPDX-License-Identifier: MIT */
/*
 * The sandbox's host services that are not an arch hook: the host CPU
 * count and reading a whole file.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <asm/sandbox.h>

/**
 * sandbox_host_cpus() - host CPUs this process may run on.
 *
 * Return: at least 1.
 */
unsigned int sandbox_host_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n > 0 ? (unsigned int)n : 1;
}

/**
 * sandbox_read_file() - read a whole file into a malloc'ed buffer.
 * @path: file name
 * @len: out: its size (the buffer has one more byte, a NUL)
 *
 * Return: the buffer, or NULL (errno set).
 */
char *sandbox_read_file(const char *path, size_t *len)
{
	struct stat st;
	size_t got = 0;
	char *buf;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) < 0) {
		close(fd);
		return NULL;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		errno = EISDIR;
		return NULL;
	}
	buf = malloc((size_t)st.st_size + 1);
	if (!buf) {
		close(fd);
		return NULL;
	}
	while (got < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + got, (size_t)st.st_size - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			free(buf);
			close(fd);
			return NULL;
		}
		if (n == 0)
			break; /* file shrank: keep what we have */
		got += (size_t)n;
	}
	close(fd);
	buf[got] = '\0';
	*len = got;
	return buf;
}
