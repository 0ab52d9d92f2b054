/* SPDX-License-Identifier: MIT */
/*
 * Copying a loader's command line into bootinfo (include/keel/cmdline_copy.h).
 *
 * Invariants: reads only characters [0, len) of the source, stopping at a
 * NUL; writes at most @size bytes, always NUL-terminated; a word is either
 * copied whole or dropped whole; at most one warning per copy. A line that
 * fits is left exactly as the loader gave it; only an overlong one is
 * rebuilt, its kept words joined by single spaces (cmdline_parse() does
 * not care how many blanks separate words). No lock, no allocation.
 */
#include <keel/cmdline_copy.h>
#include <keel/compiler.h>
#include <keel/printk.h>
#include <keel/string.h>

/* How much of the first dropped word the warning shows. */
#define SHOW_MAX 32

struct cmdline_src {
	const void *src;
	cmdline_char_fn at;
};

static char src_char(const struct cmdline_src *s, size_t i)
{
	return s->at ? s->at(s->src, i) : ((const char *)s->src)[i];
}

/* The blanks cmdline_parse() splits words at. */
static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* End of the word starting at @i: the next blank outside double quotes. */
static size_t word_end(const struct cmdline_src *s, size_t i, size_t len)
{
	bool quoted = false;

	for (; i < len; i++) {
		char c = src_char(s, i);

		if (!quoted && is_blank(c))
			break;
		if (c == '"')
			quoted = !quoted;
	}
	return i;
}

static void warn_dropped(const struct cmdline_src *s, size_t len, size_t room,
			 unsigned int dropped, size_t first, size_t first_len,
			 const char *what)
{
	char show[SHOW_MAX + 1];
	size_t n = MIN(first_len, (size_t)SHOW_MAX);

	for (size_t k = 0; k < n; k++) {
		char c = src_char(s, first + k);

		show[k] = c >= 0x20 && c < 0x7f ? c : '?';
	}
	show[n] = '\0';
	pr_warn("%s: %zu bytes, more than the %zu that fit: %u word%s "
		"dropped whole, the first \"%s%s\" (%zu bytes)\n",
		what, len, room, dropped, dropped == 1 ? "" : "s", show,
		first_len > n ? "..." : "", first_len);
}

/**
 * cmdline_copy() - a loader's command line into @dst, whole words only.
 * @dst: the buffer
 * @size: its size
 * @src: the source text
 * @len: characters at @src (a NUL ends it earlier)
 * @at: reads character i of @src; NULL when @src is a char array
 * @what: names the source in the warning
 *
 * Return: number of words dropped because they did not fit.
 */
unsigned int cmdline_copy(char *dst, size_t size, const void *src, size_t len,
			  cmdline_char_fn at, const char *what)
{
	const struct cmdline_src s = {src, at};
	size_t n = 0, used = 0, first = 0, first_len = 0, room;
	unsigned int dropped = 0;

	if (!size)
		return 0;
	while (src && n < len && src_char(&s, n))
		n++;
	room = size - 1;
	if (n <= room) {
		for (size_t i = 0; i < n; i++)
			dst[i] = src_char(&s, i);
		dst[n] = '\0';
		return 0;
	}

	for (size_t i = 0; i < n;) {
		size_t start, wlen, need;

		while (i < n && is_blank(src_char(&s, i)))
			i++;
		if (i >= n)
			break;
		start = i;
		i = word_end(&s, i, n);
		wlen = i - start;
		need = wlen + (used ? 1 : 0);
		if (need > room - used) {
			if (!dropped++) {
				first = start;
				first_len = wlen;
			}
			continue;
		}
		if (used)
			dst[used++] = ' ';
		for (size_t k = 0; k < wlen; k++)
			dst[used++] = src_char(&s, start + k);
	}
	dst[used] = '\0';
	if (dropped)
		warn_dropped(&s, n, room, dropped, first, first_len, what);
	return dropped;
}

/**
 * cmdline_copy_bootinfo() - cmdline_copy() into @bi->cmdline.
 * @bi: the bootinfo; bi->fixups counts a line that lost words
 * @src: the source text
 * @len: characters at @src
 * @at: character accessor, or NULL
 * @what: names the source in the warning
 *
 * Return: number of words dropped.
 */
unsigned int cmdline_copy_bootinfo(struct bootinfo *bi, const void *src,
				   size_t len, cmdline_char_fn at,
				   const char *what)
{
	unsigned int dropped = cmdline_copy(bi->cmdline, sizeof(bi->cmdline),
					    src, len, at, what);

	if (dropped)
		bi->fixups++;
	return dropped;
}
