/* SPDX-License-Identifier: MIT */
/*
 * Owner: lib.
 * Console output. Every line keel prints starts with "keel: "; warnings and
 * errors carry "warning: " / "error: " after it so that logs can be grepped.
 */
#ifndef KEEL_PRINTK_H
#define KEEL_PRINTK_H

#include <keel/compiler.h>
#include <keel/types.h>

enum log_level {
	LOG_ERR = 0,
	LOG_WARN = 1,
	LOG_INFO = 2,
	LOG_DEBUG = 3,
};

/*
 * Messages above the level are dropped (cmdline loglevel=; LOG_INFO until
 * the boot sets it, once).
 */
void printk_set_level(int level);
int printk_get_level(void);

/* Counts of warnings and errors printed so far (the report shows them). */
extern unsigned int printk_warn_count;
extern unsigned int printk_err_count;

/* %llx / %llu take unsigned long long: one cast for every width. */
#define U64(x) ((unsigned long long)(x))

/* printk(level, fmt, ...): one message; "keel: " prefix added by the caller macros. */
void printk(int level, const char *fmt, ...) __printf(2, 3);
void vprintk(int level, const char *fmt, va_list ap);
/* Raw output, no prefix, no level (the JSON report is printed with this). */
void console_puts(const char *s);
void console_write(const char *s, size_t len);
void console_printf(const char *fmt, ...) __printf(1, 2);
/* The same without the console lock, for exception paths (printk.c). */
void console_printf_nolock(const char *fmt, ...) __printf(1, 2);
/*
 * Hold info/warning/debug lines in a buffer (a live update's downtime);
 * errors, raw output and panics write them out first. console_release():
 * write them out, stop holding; return the bytes held since the first hold.
 */
void console_hold(void);
size_t console_release(void);

#define pr_err(fmt, ...)   printk(LOG_ERR, "keel: error: " fmt, ##__VA_ARGS__)
#define pr_warn(fmt, ...)  printk(LOG_WARN, "keel: warning: " fmt, ##__VA_ARGS__)
#define pr_info(fmt, ...)  printk(LOG_INFO, "keel: " fmt, ##__VA_ARGS__)
#define pr_debug(fmt, ...) printk(LOG_DEBUG, "keel: " fmt, ##__VA_ARGS__)

/*
 * panic(): prints "keel: panic: <msg>" and "KEEL: FAIL panic: <msg>", then
 * stops the machine through arch_stop(false). Never returns.
 */
__noreturn void panic(const char *fmt, ...) __printf(1, 2);

#endif
