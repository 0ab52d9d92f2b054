/* SPDX-License-Identifier: MIT */
/*
 * acpidump text -> table bytes (include/keel/acpidump.h), for the sandbox's
 * firmware replay (acpi_replay.c): a user runs `sudo acpidump` on a
 * server and keel parses those tables with the code that reads them on
 * hardware.
 *
 * Invariants: reads only [text, text + len) (a NUL is a byte of its line,
 * never the end of the text); writes d->buf only below
 * d->size and d->table[] only below ACPIDUMP_MAX_TABLES; a table is
 * published (table_count++) only once its last line was read and its
 * length checked, so a cut-off or garbled block never reaches a parser.
 * No lock, no allocation.
 */
#include <keel/acpidump.h>
#include <keel/printk.h>
#include <keel/string.h>

#include "acpi_priv.h"

#define BYTES_PER_LINE 16
#define HEADER_LEN     36

#define dump_warn(d, fmt, ...)                                 \
	do {                                                   \
		(d)->warnings++;                               \
		pr_warn("acpidump: " fmt "\n", ##__VA_ARGS__); \
	} while (0)

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/*
 * A hex number at @s[*i..len) (at most 16 digits). Return: true and
 * *@out, *@i past it; false when there is no digit or too many.
 */
static bool hex_number(const char *s, size_t len, size_t *i, uint64_t *out)
{
	unsigned int digits = 0;
	uint64_t v = 0;

	while (*i < len && hex_digit(s[*i]) >= 0) {
		if (++digits > 16)
			return false;
		v = (v << 4) | (uint64_t)hex_digit(s[*i]);
		(*i)++;
	}
	*out = v;
	return digits > 0;
}

/*
 * "SIG @ 0xADDR": SIG is 1..7 printable characters without '@' (the RSDP
 * is "RSD PTR"). Return: true and @sig / *@addr filled.
 */
static bool header_line(const char *s, size_t len, char sig[8], uint64_t *addr)
{
	const char *at = memchr(s, '@', len);
	size_t n, i;

	if (!at || at == s || !is_space(at[-1]))
		return false;
	n = (size_t)(at - s) - 1;
	while (n && is_space(s[n - 1]))
		n--;
	if (n == 0 || n > 7)
		return false;
	for (i = 0; i < n; i++)
		if (s[i] < 0x20 || s[i] >= 0x7f)
			return false;
	i = (size_t)(at - s) + 1;
	while (i < len && is_space(s[i]))
		i++;
	if (len - i < 3 || s[i] != '0' || (s[i + 1] != 'x' && s[i + 1] != 'X'))
		return false;
	i += 2;
	if (!hex_number(s, len, &i, addr))
		return false;
	while (i < len && is_space(s[i]))
		i++;
	if (i != len)
		return false;
	memcpy(sig, s, n);
	sig[n] = '\0';
	return true;
}

/*
 * "  OFFSET: XX XX ...  ascii". The bytes are pairs of hex digits, each
 * after one space; the ASCII column starts after two, so text that looks
 * like hex there is never taken for bytes. Return: bytes decoded into
 * @out (1..16), or -1 when the line is not a hex line.
 */
static int hex_line(const char *s, size_t len, uint64_t *offset,
		    uint8_t out[BYTES_PER_LINE])
{
	size_t i = 0;
	int n = 0;

	while (i < len && is_space(s[i]))
		i++;
	if (!hex_number(s, len, &i, offset) || i >= len || s[i] != ':')
		return -1;
	i++;
	while (n < BYTES_PER_LINE && i + 3 <= len && s[i] == ' ' &&
	       hex_digit(s[i + 1]) >= 0 && hex_digit(s[i + 2]) >= 0 &&
	       (i + 3 == len || is_space(s[i + 3]))) {
		out[n++] = (uint8_t)(hex_digit(s[i + 1]) << 4 |
				     hex_digit(s[i + 2]));
		i += 3;
	}
	return n ? n : -1;
}

/* The block being read: not yet in d->table[]. */
struct block {
	bool open;
	bool bad; /* warned: skip its lines, publish nothing */
	unsigned int lineno;
	struct acpidump_table t;
};

/* Close @b: publish it if whole. */
static void block_end(struct acpidump *d, struct block *b)
{
	const uint8_t *p = d->buf + b->t.offset;
	uint32_t want;

	if (!b->open)
		return;
	b->open = false;
	if (b->bad) {
		d->used = b->t.offset;
		return;
	}
	if (!b->t.length) {
		dump_warn(d, "line %u: %s has no bytes, dropped", b->lineno,
			  b->t.sig);
		return;
	}
	if (strcmp(b->t.sig, "RSD PTR")) {
		want = b->t.length >= 8 ? acpi_get32(p + 4) : 0;
		if (b->t.length < 8 || want > b->t.length ||
		    (strcmp(b->t.sig, "FACS") && want < HEADER_LEN)) {
			dump_warn(d,
				  "line %u: %s: %u bytes dumped, its header "
				  "says %u, dropped",
				  b->lineno, b->t.sig, b->t.length, want);
			d->used = b->t.offset;
			return;
		}
	}
	if (d->table_count == ACPIDUMP_MAX_TABLES) {
		dump_warn(d, "line %u: more than %u tables, %s dropped",
			  b->lineno, ACPIDUMP_MAX_TABLES, b->t.sig);
		d->used = b->t.offset;
		return;
	}
	d->table[d->table_count++] = b->t;
}

static void block_line(struct acpidump *d, struct block *b, const char *s,
		       size_t len, unsigned int lineno)
{
	uint8_t bytes[BYTES_PER_LINE];
	uint64_t offset;
	int n;

	if (b->bad)
		return;
	n = hex_line(s, len, &offset, bytes);
	if (n < 0) {
		/* Not a hex line: the block is over. */
		block_end(d, b);
		return;
	}
	if (offset != b->t.length || (b->t.length % BYTES_PER_LINE)) {
		dump_warn(d,
			  "line %u: %s: offset %#llx where %#x was due, "
			  "table dropped",
			  lineno, b->t.sig, (unsigned long long)offset,
			  b->t.length);
		b->bad = true;
		return;
	}
	if (b->t.length + (uint64_t)n > 0xffffffffu ||
	    d->size - d->used < (size_t)n) {
		dump_warn(d, "line %u: %s: no room for its bytes, dropped",
			  lineno, b->t.sig);
		b->bad = true;
		return;
	}
	memcpy(d->buf + d->used, bytes, (size_t)n);
	d->used += (size_t)n;
	b->t.length += (uint32_t)n;
}

/**
 * acpidump_parse() - decode acpidump text (see include/keel/acpidump.h).
 *
 * Return: the number of tables kept.
 */
unsigned int acpidump_parse(const char *text, size_t len, struct acpidump *d)
{
	struct block b = {0};
	unsigned int lineno = 0;
	size_t pos = 0;

	d->used = 0;
	d->table_count = 0;
	d->warnings = 0;
	if (!text)
		return 0;
	/* Every byte up to @len counts: a NUL is not the end of the text. */
	while (pos < len) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t end = nl ? (size_t)(nl - text) : len;
		const char *s = text + pos;
		size_t n = end - pos;
		uint64_t addr;
		char sig[8];

		lineno++;
		pos = end + 1;
		if (header_line(s, n, sig, &addr)) {
			block_end(d, &b);
			memset(&b, 0, sizeof(b));
			b.open = true;
			b.lineno = lineno;
			memcpy(b.t.sig, sig, sizeof(sig));
			b.t.addr = addr;
			b.t.offset = d->used;
			continue;
		}
		if (b.open)
			block_line(d, &b, s, n, lineno);
	}
	block_end(d, &b);
	return d->table_count;
}

/**
 * acpidump_find() - the @n-th table named @sig.
 *
 * Return: it, or NULL.
 */
const struct acpidump_table *acpidump_find(const struct acpidump *d,
					   const char *sig, unsigned int n)
{
	for (unsigned int i = 0; i < d->table_count; i++)
		if (!strcmp(d->table[i].sig, sig) && !n--)
			return &d->table[i];
	return NULL;
}
