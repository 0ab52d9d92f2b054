/* SPDX-License-Identifier: MIT */
/*
 * Sandbox arch hook of <arch/console.h>: the console is stdout. Tests may
 * capture it into a buffer (sandbox_console_capture()), quietly or not;
 * one lock, the host's stdout lock (os_stdout_lock()), orders the writers
 * of both.
 */
#include <arch/console.h>
#include <asm/os.h>
#include <asm/sandbox.h>
#include <keel/string.h>

/* Under os_stdout_lock(). */
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
		nb = os_realloc(capture_buf, cap);
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
	os_stdout_lock();
	if (capture_on)
		capture_append(s, len);
	if (!capture_on || !capture_quiet)
		os_write_stdout(s, len);
	os_stdout_unlock();
}

/**
 * sandbox_console_capture() - start/stop appending console output to a buffer.
 * @enable: capture on/off (the buffer is kept until cleared)
 * @quiet: while capturing, do not also print
 */
void sandbox_console_capture(bool enable, bool quiet)
{
	os_stdout_lock();
	capture_on = enable;
	capture_quiet = quiet;
	os_stdout_unlock();
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
	os_stdout_lock();
	capture_len = 0;
	if (capture_buf)
		capture_buf[0] = '\0';
	os_stdout_unlock();
}
