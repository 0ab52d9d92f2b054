/* SPDX-License-Identifier: MIT */
/*
 * Owner: lib.
 * A streaming JSON writer for the boot report: a small staging buffer
 * flushed to console_write(), no heap, one line (it never writes a
 * newline). It counts the bytes it wrote, so a document can end with its
 * own length (jw_end_with_length()).
 *
 * Tables: a list of objects that all have the same keys is written as
 * {"columns": [names...], "rows": [[values...], ...]} - the key names once
 * instead of once per row (docs/report-format.md, "Tables").
 *
 * Used by common/report/report.c and by each subsystem's *_report_json(), which
 * writes that subsystem's section of the report.
 */
#ifndef KEEL_JSON_H
#define KEEL_JSON_H

#include <keel/compiler.h>
#include <keel/types.h>

#define JW_MAX_DEPTH 10
#define JW_BUF	     256

struct jw {
	char buf[JW_BUF];
	size_t len;
	uint64_t total; /* bytes written so far, flushed or not */
	unsigned int depth;
	bool first[JW_MAX_DEPTH]; /* next item is the first of its level */
};

void jw_init(struct jw *w);
void jw_flush(struct jw *w);

void jw_open(struct jw *w, const char *key, char c);
void jw_close(struct jw *w, char c);
#define jw_obj(w, key) jw_open((w), (key), '{')
#define jw_obj_end(w)  jw_close((w), '}')
#define jw_arr(w, key) jw_open((w), (key), '[')
#define jw_arr_end(w)  jw_close((w), ']')

/* Values: @key NULL inside arrays (and table rows). */
void jw_u64(struct jw *w, const char *key, uint64_t v);
void jw_i64(struct jw *w, const char *key, int64_t v);
void jw_milli(struct jw *w, const char *key, uint64_t milli);
void jw_str(struct jw *w, const char *key, const char *s); /* NULL: null */
void jw_strn(struct jw *w, const char *key, const char *s, size_t max);
void jw_bool(struct jw *w, const char *key, bool v);
void jw_null(struct jw *w, const char *key);

/*
 * jw_table(): open a table under @key with @count column names; then one
 * jw_row() ... jw_row_end() per row, values in column order, then
 * jw_table_end().
 */
void jw_table(struct jw *w, const char *key, const char *const *cols,
	      unsigned int count);
#define jw_row(w)     jw_arr((w), NULL)
#define jw_row_end(w) jw_arr_end(w)
void jw_table_end(struct jw *w);
#define JW_TABLE(w, key, cols) jw_table((w), (key), (cols), ARRAY_SIZE(cols))

/* Bytes per ns is GB/s, in thousandths (jw_milli); 1 TiB * 1000 fits. */
static inline uint64_t rate_gbps_milli(uint64_t bytes, uint64_t ns)
{
	return ns ? bytes * 1000 / ns : 0;
}

/*
 * jw_end_with_length(): write `,"@key":N}` closing the top-level object,
 * N being the length in bytes of the whole document, this key included.
 * Return: N.
 */
uint64_t jw_end_with_length(struct jw *w, const char *key);

#endif
