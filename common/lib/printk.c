/* SPDX-License-Identifier: MIT */
/*
 * Console output: printk levels, raw console writes and panic().
 *
 * Each message is formatted into a bounded stack buffer first and then
 * written with one arch_console_write() call under console_lock, so lines
 * of several CPUs never interleave and a slow UART is never entered with a
 * half-formatted line.
 *
 * Lock: console_lock (a ticket lock) only around arch_console_write().
 * console_lock_cpu remembers the holder so that a panic() raised by the
 * CPU while it holds the lock writes unlocked instead of waiting for
 * itself. panic() never waits unboundedly: it tries the lock
 * for a while and then writes anyway, because a garbled last line beats a
 * silent hang.
 */
#include <arch/console.h>
#include <arch/cpu.h>
#include <keel/atomic.h>
#include <keel/compiler.h>
#include <keel/printk.h>
#include <keel/spinlock.h>
#include <keel/string.h>

#define PRINTK_BUF	   512
#define CONSOLE_HOLD_BYTES (16 * 1024)
#define NO_CPU		   0xffffffffu
/* arch_cpu_relax() rounds before panic() writes without the lock. */
#define PANIC_LOCK_TRIES 10000000u

/* loglevel=: one writer, printk_set_level(). */
static int printk_level = LOG_INFO;
unsigned int printk_warn_count;
unsigned int printk_err_count;

static spinlock_t console_lock = SPINLOCK_INIT;
static uint32_t console_lock_cpu = NO_CPU;
static uint32_t panic_cpu = NO_CPU;
static char panic_msg[256];

/* console_hold(): lines kept, under console_lock, until console_release(). */
static char held[CONSOLE_HOLD_BYTES];
static size_t held_len, held_total;
static bool holding;

/* Ticket-lock trylock: take a ticket only when it is served at once. */
static bool console_trylock(void)
{
	uint32_t owner = atomic_load_acquire(&console_lock.owner);
	uint32_t next = owner;

	return atomic_cmpxchg(&console_lock.next, &next, owner + 1);
}

/*
 * Take the console lock. Return: true when taken (pass to console_unlock),
 * false when writing unlocked (re-entry on this CPU, or @bounded gave up).
 */
static bool console_lock_acquire(bool bounded)
{
	uint32_t me = arch_cpu_id();

	/*
	 * Only panic() may find its own CPU holding the lock (it panicked
	 * inside a console write). Plain printk never skips the lock: test
	 * threads on the sandbox may share a CPU id.
	 */
	if (bounded && atomic_load_acquire(&console_lock_cpu) == me)
		return false;
	if (!bounded) {
		spin_lock(&console_lock);
	} else {
		unsigned int tries = 0;

		while (!console_trylock()) {
			if (++tries >= PANIC_LOCK_TRIES)
				return false;
			arch_cpu_relax();
		}
	}
	atomic_store_release(&console_lock_cpu, me);
	return true;
}

static void console_lock_release(bool locked)
{
	if (!locked)
		return;
	atomic_store_release(&console_lock_cpu, NO_CPU);
	spin_unlock(&console_lock);
}

/* Write out the held lines and stop holding; console_lock held. */
static void held_flush(bool stop)
{
	if (held_len)
		arch_console_write(held, held_len);
	held_len = 0;
	if (stop)
		WRITE_ONCE(holding, false);
}

/*
 * @hold: a leveled line above LOG_ERR, which may wait in the hold buffer;
 * anything else (an error, raw output, a panic's lines) writes the held
 * lines first and ends the hold, so nothing comes out of order.
 */
static void console_emit(const char *s, size_t len, bool bounded, bool hold)
{
	bool locked = console_lock_acquire(bounded);

	if (READ_ONCE(holding)) {
		if (!hold) {
			held_flush(true);
		} else {
			if (len > sizeof(held) - held_len)
				held_flush(false); /* full: out, keep holding */
			if (len <= sizeof(held) - held_len) {
				memcpy(held + held_len, s, len);
				held_len += len;
				held_total += len;
				console_lock_release(locked);
				return;
			}
		}
	}
	arch_console_write(s, len);
	console_lock_release(locked);
}

/**
 * console_hold() - from now on keep info, warning and debug lines in a
 * buffer (CONSOLE_HOLD_BYTES) instead of writing them: a live update's new
 * image holds its lines through the downtime, where a 115200-baud UART
 * takes about 7 ms a line. An error, raw output or a panic writes them
 * out first; a full buffer is written out and holding goes on; nothing is
 * dropped.
 */
void console_hold(void)
{
	WRITE_ONCE(holding, true);
}

/**
 * console_release() - write out the held lines and stop holding.
 * Return: the bytes held since the first console_hold() (0: none).
 */
size_t console_release(void)
{
	bool locked;

	if (!READ_ONCE(holding))
		return held_total;
	locked = console_lock_acquire(false);
	held_flush(true);
	console_lock_release(locked);
	return held_total;
}

/*
 * Format into buf (PRINTK_BUF bytes). A message cut short still ends in a
 * newline so that the next line starts cleanly. Return: bytes to write.
 */
static size_t format_line(char *buf, const char *fmt, va_list ap)
{
	int n = vsnprintf(buf, PRINTK_BUF, fmt, ap);
	size_t len;

	if (n < 0)
		return 0;
	len = (size_t)n;
	if (len >= PRINTK_BUF) {
		len = PRINTK_BUF - 1;
		buf[len - 1] = '\n';
	}
	return len;
}

/**
 * printk_set_level() - drop messages above @level from now on: the boot
 * sets loglevel= once (fwboot_finish(), before the sanitiser's lines).
 * @level: LOG_ERR..LOG_DEBUG
 */
void printk_set_level(int level)
{
	WRITE_ONCE(printk_level, level);
}

/** printk_get_level() - the level printk_set_level() set (LOG_INFO first). */
int printk_get_level(void)
{
	return READ_ONCE(printk_level);
}

/**
 * vprintk() - print one message at @level (LOG_ERR..LOG_DEBUG); messages
 * above printk_level are dropped. Warnings and errors are counted even
 * when dropped, so the report still shows them.
 */
void vprintk(int level, const char *fmt, va_list ap)
{
	char buf[PRINTK_BUF];
	size_t len;

	if (level == LOG_WARN)
		atomic_fetch_add_relaxed(&printk_warn_count, 1);
	else if (level <= LOG_ERR)
		atomic_fetch_add_relaxed(&printk_err_count, 1);
	if (level > READ_ONCE(printk_level))
		return;
	len = format_line(buf, fmt, ap);
	console_emit(buf, len, false, level > LOG_ERR);
}

/**
 * printk() - vprintk() with variadic arguments.
 */
void printk(int level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprintk(level, fmt, ap);
	va_end(ap);
}

/**
 * console_write() - raw output (no prefix, no level), in one locked write.
 */
void console_write(const char *s, size_t len)
{
	console_emit(s, len, false, false);
}

/**
 * console_puts() - console_write() of a NUL-terminated string.
 */
void console_puts(const char *s)
{
	console_emit(s, strlen(s), false, false);
}

/* @fmt into @buf (@size bytes, cut to fit). Return: the bytes to write. */
static size_t format_raw(char *buf, size_t size, const char *fmt, va_list ap)
{
	int n = vsnprintf(buf, size, fmt, ap);

	return n < 0 ? 0 : MIN((size_t)n, size - 1);
}

/**
 * console_printf() - formatted raw output (bounded like printk; longer
 * output is cut, so print big documents in pieces).
 */
void console_printf(const char *fmt, ...)
{
	char buf[PRINTK_BUF];
	va_list ap;
	size_t n;

	va_start(ap, fmt);
	n = format_raw(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	console_emit(buf, n, false, false);
}

/**
 * console_printf_nolock() - console_printf() for an exception path: the
 * line is formatted on the stack and written with arch_console_write()
 * and no console lock, so an exception taken while this CPU holds it
 * cannot deadlock (another CPU's line may interleave). Held lines are not
 * written first.
 */
void console_printf_nolock(const char *fmt, ...)
{
	char buf[PRINTK_BUF];
	va_list ap;
	size_t n;

	va_start(ap, fmt);
	n = format_raw(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	arch_console_write(buf, n);
}

static void panic_line(const char *prefix, const char *msg)
{
	char buf[PRINTK_BUF];
	int n = snprintf(buf, sizeof(buf), "%s%s\n", prefix, msg);

	if (n < 0)
		return;
	if ((size_t)n >= sizeof(buf)) {
		n = sizeof(buf) - 1;
		buf[n - 1] = '\n';
	}
	console_emit(buf, (size_t)n, true, false);
}

/**
 * panic() - print "keel: panic: <msg>" and "KEEL: FAIL panic: <msg>", then
 * stop through arch_panic(). A panic raised while this CPU is already
 * panicking skips the formatting and stops at once; a second CPU
 * panicking meanwhile waits for the first to stop the machine.
 */
void panic(const char *fmt, ...)
{
	uint32_t me = arch_cpu_id();
	uint32_t expected = NO_CPU;
	size_t msg_len;
	va_list ap;

	if (!atomic_cmpxchg(&panic_cpu, &expected, me)) {
		if (expected == me)
			arch_panic("recursive panic");
		/* Another CPU owns the panic; it stops the machine. */
		for (unsigned int i = 0; i < PANIC_LOCK_TRIES; i++) {
			if (atomic_load_acquire(&panic_cpu) == NO_CPU)
				break;
			arch_cpu_relax();
		}
		arch_panic("concurrent panic");
	}

	atomic_fetch_add_relaxed(&printk_err_count, 1);
	va_start(ap, fmt);
	vsnprintf(panic_msg, sizeof(panic_msg), fmt, ap);
	va_end(ap);
	/* Messages end without '\n'; drop one if a caller added it. */
	msg_len = strlen(panic_msg);
	if (msg_len && panic_msg[msg_len - 1] == '\n')
		panic_msg[msg_len - 1] = '\0';
	panic_line("keel: panic: ", panic_msg);
	panic_line("KEEL: FAIL panic: ", panic_msg);

	/*
	 * Test hooks longjmp out of arch_panic() on the sandbox; release the
	 * guard first so that the next test can panic again.
	 */
	atomic_store_release(&panic_cpu, NO_CPU);
	arch_panic(panic_msg);
}
