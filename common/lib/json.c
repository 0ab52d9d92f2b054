/* SPDX-License-Identifier: MIT */
/*
 * Streaming JSON writer (include/keel/json.h), used by the boot report.
 *
 * Owns nothing global: all state is in the caller's struct jw. Output goes
 * through a JW_BUF staging buffer to console_write(), so a document of any
 * size needs no heap and no big buffer. Comma state lives on a small stack,
 * one entry per open container; deeper nesting than the stack still writes
 * valid brackets but stops tracking commas (the report never nests that
 * deep). No floating point: the kernel may be built without FP/SIMD, so
 * rates are fixed-point thousandths ("1.234").
 */
#include <keel/json.h>
#include <keel/printk.h>
#include <keel/string.h>

/** jw_init() - an empty writer, before the top-level value. */
void jw_init(struct jw *w)
{
	memset(w, 0, sizeof(*w));
	w->first[0] = true;
}

/** jw_flush() - write out what is staged. */
void jw_flush(struct jw *w)
{
	if (w->len)
		console_write(w->buf, w->len);
	w->len = 0;
}

static void jw_raw(struct jw *w, const char *s, size_t n)
{
	w->total += n;
	while (n) {
		size_t room = JW_BUF - w->len;
		size_t k = n < room ? n : room;

		memcpy(w->buf + w->len, s, k);
		w->len += k;
		s += k;
		n -= k;
		if (w->len == JW_BUF)
			jw_flush(w);
	}
}

static void jw_ch(struct jw *w, char c)
{
	jw_raw(w, &c, 1);
}

static unsigned int dec_digits(uint64_t v)
{
	unsigned int d = 1;

	while (v >= 10) {
		v /= 10;
		d++;
	}
	return d;
}

static void jw_udec(struct jw *w, uint64_t v)
{
	char tmp[20];
	unsigned int i = sizeof(tmp);

	do {
		tmp[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	jw_raw(w, tmp + i, sizeof(tmp) - i);
}

/*
 * Length of the well-formed UTF-8 sequence of a code point from U+00A0 up
 * at @s (at most @n bytes), or 0: a lone or wrong continuation byte, an
 * overlong form, a surrogate, past U+10FFFF, cut short by @n or a NUL, or
 * a C1 control (U+0080..U+009F, escaped like the C0 ones).
 */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	unsigned char c = s[0], lo = 0x80, hi = 0xbf;
	size_t len;

	if (c >= 0xc2 && c <= 0xdf)
		len = 2;
	else if (c >= 0xe0 && c <= 0xef)
		len = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		len = 4;
	else
		return 0;
	if (c == 0xc2)
		lo = 0xa0; /* U+0080..U+009F: C1 controls */
	else if (c == 0xe0)
		lo = 0xa0; /* overlong */
	else if (c == 0xed)
		hi = 0x9f; /* surrogates */
	else if (c == 0xf0)
		lo = 0x90; /* overlong */
	else if (c == 0xf4)
		hi = 0x8f; /* past U+10FFFF */
	if (len > n || s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < len; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return len;
}

/*
 * Quoted, escaped string of at most @max bytes (stops at NUL). Well-formed
 * UTF-8 is written as it is; a quote and a backslash are escaped, and so
 * is every other byte: controls, DEL and C1 controls as \u00NN (the code
 * point), each byte of an ill-formed sequence as \u00NN (its value, as
 * Latin-1 would read it), so the line is valid JSON whatever bytes the
 * firmware or the command line contained.
 */
static void jw_qstr(struct jw *w, const char *s, size_t max)
{
	static const char hex[] = "0123456789abcdef";
	size_t n = 0;

	while (s && n < max && s[n])
		n++;
	jw_ch(w, '"');
	for (size_t i = 0; i < n;) {
		unsigned char c = (unsigned char)s[i];
		size_t u = c >= 0x80 ? utf8_len((const unsigned char *)s + i,
						n - i)
				     : 0;

		if (u) {
			jw_raw(w, s + i, u);
			i += u;
			continue;
		}
		/* A C1 control, U+0080..U+009F: one \u0080..\u009f. */
		if (c == 0xc2 && i + 1 < n &&
		    ((unsigned char)s[i + 1] & 0xe0) == 0x80)
			c = (unsigned char)s[++i];
		if (c == '"' || c == '\\') {
			jw_ch(w, '\\');
			jw_ch(w, (char)c);
		} else if (c < 0x20 || c >= 0x7f) {
			char e[6] = {'\\', 'u', '0', '0'};

			e[4] = hex[c >> 4];
			e[5] = hex[c & 15];
			jw_raw(w, e, sizeof(e));
		} else {
			jw_ch(w, (char)c);
		}
		i++;
	}
	jw_ch(w, '"');
}

/* Separator and key for the next item (@key NULL inside arrays). */
static void jw_item(struct jw *w, const char *key)
{
	if (!w->first[w->depth])
		jw_ch(w, ',');
	w->first[w->depth] = false;
	if (key) {
		jw_qstr(w, key, 64);
		jw_ch(w, ':');
	}
}

/** jw_open() - open an object ('{') or array ('[') under @key. */
void jw_open(struct jw *w, const char *key, char c)
{
	jw_item(w, key);
	jw_ch(w, c);
	if (w->depth + 1 < JW_MAX_DEPTH)
		w->depth++;
	w->first[w->depth] = true;
}

/** jw_close() - close the innermost container with @c ('}' or ']'). */
void jw_close(struct jw *w, char c)
{
	jw_ch(w, c);
	if (w->depth)
		w->depth--;
}

/** jw_u64() - an unsigned integer. */
void jw_u64(struct jw *w, const char *key, uint64_t v)
{
	jw_item(w, key);
	jw_udec(w, v);
}

/** jw_i64() - a signed integer. */
void jw_i64(struct jw *w, const char *key, int64_t v)
{
	jw_item(w, key);
	if (v < 0) {
		jw_ch(w, '-');
		jw_udec(w, (uint64_t)0 - (uint64_t)v);
	} else {
		jw_udec(w, (uint64_t)v);
	}
}

/** jw_milli() - a non-negative fixed-point number: 1234 -> 1.234. */
void jw_milli(struct jw *w, const char *key, uint64_t milli)
{
	uint64_t frac = milli % 1000;

	jw_item(w, key);
	jw_udec(w, milli / 1000);
	jw_ch(w, '.');
	jw_ch(w, (char)('0' + frac / 100));
	jw_ch(w, (char)('0' + frac / 10 % 10));
	jw_ch(w, (char)('0' + frac % 10));
}

/** jw_str() - a NUL-terminated string, or null when @s is NULL. */
void jw_str(struct jw *w, const char *key, const char *s)
{
	if (!s) {
		jw_null(w, key);
		return;
	}
	jw_item(w, key);
	jw_qstr(w, s, ~(size_t)0);
}

/** jw_strn() - a string of at most @max bytes (a fixed-size field). */
void jw_strn(struct jw *w, const char *key, const char *s, size_t max)
{
	jw_item(w, key);
	jw_qstr(w, s, max);
}

/** jw_bool() - true or false. */
void jw_bool(struct jw *w, const char *key, bool v)
{
	jw_item(w, key);
	if (v)
		jw_raw(w, "true", 4);
	else
		jw_raw(w, "false", 5);
}

/** jw_null() - null. */
void jw_null(struct jw *w, const char *key)
{
	jw_item(w, key);
	jw_raw(w, "null", 4);
}

/** jw_table() - open a table: the column names, then the rows list. */
void jw_table(struct jw *w, const char *key, const char *const *cols,
	      unsigned int count)
{
	jw_obj(w, key);
	jw_arr(w, "columns");
	for (unsigned int i = 0; i < count; i++)
		jw_str(w, NULL, cols[i]);
	jw_arr_end(w);
	jw_arr(w, "rows");
}

/** jw_table_end() - close the rows list and the table. */
void jw_table_end(struct jw *w)
{
	jw_arr_end(w);
	jw_obj_end(w);
}

/**
 * jw_end_with_length() - the last key of the top-level object: the length
 * of the document, itself included, then the closing brace.
 * @w: a writer inside the top-level object
 * @key: the key name (plain ASCII: it is not escaped in the count)
 *
 * What is still to be written is `,"key":` (fixed), the digits of the
 * answer and `}`; the digit count is found by iterating, since adding a
 * digit can carry the total into one more.
 *
 * Return: the length written (bytes of the whole document).
 */
uint64_t jw_end_with_length(struct jw *w, const char *key)
{
	uint64_t fixed = (w->first[w->depth] ? 0 : 1) + strlen(key) + 3 + 1;
	uint64_t total;
	unsigned int d = 1;

	for (;;) {
		total = w->total + fixed + d;
		if (dec_digits(total) == d)
			break;
		d = dec_digits(total);
	}
	jw_u64(w, key, total);
	jw_obj_end(w);
	return total;
}
