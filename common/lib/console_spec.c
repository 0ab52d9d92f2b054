/* SPDX-License-Identifier: MIT */
/*
 * console_spec_parse(): the console= value (docs/cmdline.md) into a
 * struct console_spec. The spelling is Linux's earlycon one where the two
 * overlap (uart8250,io,PORT / uart8250,mmio,ADDR / pl011,ADDR), plus the
 * PC names com1-com4. Pure: no hardware, no printing (the caller warns
 * once, cmdline.c for the real parse); reads only [s, s + len).
 */
#include <keel/compiler.h>
#include <keel/console_spec.h>
#include <keel/enum_names.h>
#include <keel/errno.h>
#include <keel/string.h>

/* Legacy PC COM ports, as every BIOS and Linux's ttyS0-3 number them. */
static const uint16_t com_ports[4] = {0x3f8, 0x2f8, 0x3e8, 0x2e8};

/* The 8 registers of a 16550 must fit below 64 Ki I/O ports. */
#define IO_PORT_MAX (0x10000u - 8u)

struct field {
	const char *p;
	size_t len;
};

static bool field_is(const struct field *f, const char *word)
{
	return strlen(word) == f->len && !memcmp(f->p, word, f->len);
}

/* Split at commas into at most @max fields. Return: the count, or -1. */
static int split(const char *s, size_t len, struct field *f, int max)
{
	int n = 0;
	size_t start = 0;

	for (size_t i = 0; i <= len; i++) {
		if (i < len && s[i] != ',')
			continue;
		if (n == max)
			return -1;
		f[n].p = s + start;
		f[n].len = i - start;
		n++;
		start = i + 1;
	}
	return n;
}

/* BAUD or BAUDn8, within [CONSOLE_BAUD_MIN, @max]. */
static int parse_baud(const struct field *f, uint32_t max, uint32_t *out)
{
	size_t len = f->len;
	uint64_t v;

	if (len > 2 && f->p[len - 2] == 'n' && f->p[len - 1] == '8')
		len -= 2;
	/* Decimal only: "0x1c200" is no baud rate anyone writes. */
	for (size_t i = 0; i < len; i++)
		if (f->p[i] < '0' || f->p[i] > '9')
			return -EINVAL;
	if (!len || parse_u64(f->p, len, &v))
		return -EINVAL;
	if (v < CONSOLE_BAUD_MIN || v > max)
		return -ERANGE;
	*out = (uint32_t)v;
	return 0;
}

static int parse_addr(const struct field *f, uint64_t *out)
{
	int ret = parse_u64(f->p, f->len, out);

	if (ret)
		return ret == -ERANGE ? -ERANGE : -EINVAL;
	return *out ? 0 : -ERANGE;
}

/**
 * console_spec_parse() - see keel/console_spec.h.
 * @s: the value (not NUL-terminated).
 * @len: its length.
 * @out: the result.
 *
 * Return: 0, -EINVAL or -ERANGE.
 */
int console_spec_parse(const char *s, size_t len, struct console_spec *out)
{
	struct console_spec cs = {CONSOLE_DEFAULT, 0, 0, 0};
	struct field f[4];
	int n, next, ret;
	uint32_t baud_max = CONSOLE_8250_BAUD_MAX;

	if (!s || !len)
		return -EINVAL;
	n = split(s, len, f, ARRAY_SIZE(f));
	if (n < 1)
		return -EINVAL;

	if (f[0].len == 4 && !memcmp(f[0].p, "com", 3) && f[0].p[3] >= '1' &&
	    f[0].p[3] <= '4') {
		cs.kind = CONSOLE_8250_IO;
		cs.addr = com_ports[f[0].p[3] - '1'];
		next = 1;
	} else if (field_is(&f[0], "uart8250") || field_is(&f[0], "uart")) {
		if (n < 3)
			return -EINVAL;
		if (field_is(&f[1], "io")) {
			cs.kind = CONSOLE_8250_IO;
		} else if (field_is(&f[1], "mmio")) {
			cs.kind = CONSOLE_8250_MMIO;
		} else if (field_is(&f[1], "mmio32")) {
			cs.kind = CONSOLE_8250_MMIO;
			cs.reg_shift = 2;
		} else {
			return -EINVAL;
		}
		ret = parse_addr(&f[2], &cs.addr);
		if (ret)
			return ret;
		next = 3;
	} else if (field_is(&f[0], "pl011")) {
		/* pl011,ADDR or pl011,mmio|mmio32,ADDR: 32-bit registers. */
		next = 1;
		if (n >= 2 &&
		    (field_is(&f[1], "mmio") || field_is(&f[1], "mmio32")))
			next = 2;
		if (n <= next)
			return -EINVAL;
		ret = parse_addr(&f[next], &cs.addr);
		if (ret)
			return ret;
		cs.kind = CONSOLE_PL011;
		baud_max = CONSOLE_PL011_BAUD_MAX;
		next++;
	} else {
		return -EINVAL;
	}

	if (cs.kind == CONSOLE_8250_IO && cs.addr > IO_PORT_MAX)
		return -ERANGE;
	if (cs.kind != CONSOLE_8250_IO &&
	    !IS_ALIGNED(cs.addr,
			cs.kind == CONSOLE_PL011 ? 4u : 1u << cs.reg_shift))
		return -ERANGE;
	if (n > next + 1)
		return -EINVAL;
	if (n == next + 1) {
		ret = parse_baud(&f[next], baud_max, &cs.baud);
		if (ret)
			return ret;
	}
	*out = cs;
	return 0;
}

/**
 * console_kind_name() - a console kind for log lines.
 * @kind: the kind.
 *
 * Return: a constant string.
 */
const char *console_kind_name(enum console_kind kind)
{
	static const struct enum_name names[] = {
		{CONSOLE_8250_IO, "8250 I/O port"},
		{CONSOLE_8250_MMIO, "8250 MMIO"},
		{CONSOLE_PL011, "PL011"},
		ENUM_NAMES_END,
	};
	const char *n = enum_name(names, kind);

	return strcmp(n, "unknown") ? n : "default";
}
