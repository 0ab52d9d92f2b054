/* SPDX-License-Identifier: MIT */
/*
 * escape_bytes(): outside bytes made safe to print (include/keel/escape.h).
 * Reads exactly [s, s+len) (a NUL is a byte like any other, shown \x00);
 * never writes past @size; no allocation, no lock.
 */
#include <keel/escape.h>
#include <keel/string.h>

/* The escape of @c into @e (4 bytes). Return: its length. */
static size_t escape_one(unsigned char c, char *e)
{
	static const char hex[] = "0123456789abcdef";

	if (c == '\\') {
		e[0] = e[1] = '\\';
		return 2;
	}
	if (c >= 0x20 && c < 0x7f) {
		e[0] = (char)c;
		return 1;
	}
	e[0] = '\\';
	e[1] = 'x';
	e[2] = hex[c >> 4];
	e[3] = hex[c & 15];
	return 4;
}

/**
 * escape_bytes() - printable copy of [s, s+len).
 * @out: the buffer
 * @size: its bytes (ESCAPE_SIZE(len) always suffices)
 * @s: the bytes
 * @len: how many
 *
 * Printable ASCII is kept, a backslash doubled, any other byte written
 * \xNN. When the whole copy does not fit in @out, it ends in "..." after
 * the last whole escape that fits.
 *
 * Return: @out (NUL-terminated when @size > 0).
 */
const char *escape_bytes(char *out, size_t size, const char *s, size_t len)
{
	size_t o = 0, total = 0, room;
	char e[4];

	if (!size)
		return out;
	for (size_t i = 0; i < len; i++)
		total += escape_one((unsigned char)s[i], e);
	/* Cut short: whole escapes, then "..." (when even that fits). */
	room = total < size ? size - 1 : (size > 4 ? size - 4 : 0);
	for (size_t i = 0; i < len; i++) {
		size_t n = escape_one((unsigned char)s[i], e);

		if (o + n > room)
			break;
		memcpy(out + o, e, n);
		o += n;
	}
	if (total >= size)
		for (unsigned int k = 0; k < 3 && o + 1 < size; k++)
			out[o++] = '.';
	out[o] = '\0';
	return out;
}
