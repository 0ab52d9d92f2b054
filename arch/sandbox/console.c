/* SPDX-License-Identifier: MIT */
/*
 * Sandbox arch hook of <arch/console.h>: the console is stdout. Tests may
 * capture it into a buffer (sandbox_console_capture()), quietly or not;
 * one lock orders the writers of both.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <arch/console.h>
#include <asm/sandbox.h>

static pthread_mutex_t console_lock = PTHREAD_MUTEX_INITIALIZER;
static bool capture_on, capture_quiet;
static char *capture_buf;
static size_t capture_len, capture_cap;

static void capture_append(const char *s, size_t len)
{
	if (capture_len + len + 1 > capture_cap) {
		size_t cap = capture_cap ? capture_cap : 4096;
		char *nb;

		while (capture_len + len + 1 > cap)
			cap *= 2;
		nb = realloc(capture_buf, cap);
		if (!nb)
			return; /* drop output rather than fail a test */
		capture_buf = nb;
		capture_cap = cap;
	}
	memcpy(capture_buf + capture_len, s, len);
	capture_len += len;
	capture_buf[capture_len] = '\0';
}

/**
 * arch_console_write() - stdout (and the capture buffer when enabled).
 * @s: bytes
 * @len: count
 */
void arch_console_write(const char *s, size_t len)
{
	int old;

	/* write() is a cancellation point: never die holding the lock. */
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old);
	pthread_mutex_lock(&console_lock);
	if (capture_on)
		capture_append(s, len);
	if (!capture_on || !capture_quiet) {
		while (len) {
			ssize_t n = write(1, s, len);

			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				break;
			s += n;
			len -= (size_t)n;
		}
	}
	pthread_mutex_unlock(&console_lock);
	pthread_setcancelstate(old, NULL);
}

/**
 * sandbox_console_capture() - start/stop appending console output to a buffer.
 * @enable: capture on/off (the buffer is kept until cleared)
 * @quiet: while capturing, do not also print
 */
void sandbox_console_capture(bool enable, bool quiet)
{
	pthread_mutex_lock(&console_lock);
	capture_on = enable;
	capture_quiet = quiet;
	pthread_mutex_unlock(&console_lock);
}

/**
 * sandbox_console_buffer() - what was captured so far.
 *
 * Return: a NUL-terminated string (empty when nothing was captured).
 */
const char *sandbox_console_buffer(void)
{
	return capture_buf ? capture_buf : "";
}

/**
 * sandbox_console_clear() - empty the capture buffer.
 */
void sandbox_console_clear(void)
{
	pthread_mutex_lock(&console_lock);
	capture_len = 0;
	if (capture_buf)
		capture_buf[0] = '\0';
	pthread_mutex_unlock(&console_lock);
}
