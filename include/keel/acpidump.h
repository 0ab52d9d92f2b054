/* SPDX-License-Identifier: MIT */
/*
 * Owner: boot.
 * The text Linux's acpidump prints (boot/acpi/acpidump.c): one block per table,
 *
 *   APIC @ 0x00000000bf79e000
 *       0000: 41 50 49 43 BC 00 00 00 03 7F 41 4C 41 53 4B 41  APIC......ALASKA
 *       0010: ...
 *
 * a header line "SIG @ 0xADDRESS" (SIG is 4 characters, "RSD PTR" for the
 * RSDP), then lines "OFFSET: up to 16 hex bytes  ASCII", offsets counting
 * up from 0 in steps of 16, a blank line after the last. Anything else
 * between blocks (acpidump's banner, a shell prompt pasted along) is
 * skipped without a word; inside a block it ends the block.
 *
 * A pure parser: it reads only [text, text + len), writes only the
 * caller's buffer and table array, allocates nothing. Problems are one
 * pr_warn() each naming the table and line, counted in warnings; the
 * table concerned is dropped, the others are kept.
 */
#ifndef KEEL_ACPIDUMP_H
#define KEEL_ACPIDUMP_H

#include <keel/types.h>

#define ACPIDUMP_MAX_TABLES 128

struct acpidump_table {
	char sig[8];	 /* "APIC", "RSD PTR" (NUL-terminated) */
	uint64_t addr;	 /* the address acpidump printed (often 0) */
	size_t offset;	 /* first byte in acpidump.buf */
	uint32_t length; /* bytes dumped */
};

struct acpidump {
	uint8_t *buf; /* caller's: decoded bytes of every table, in order */
	size_t size;  /* its size; len / 3 + 16 always suffices */
	size_t used;
	struct acpidump_table table[ACPIDUMP_MAX_TABLES];
	unsigned int table_count;
	unsigned int warnings;
};

/*
 * acpidump_parse(): decode the tables of @text (@len bytes, a NUL ends it
 * early) into @d, whose buf and size the caller set. A table whose dump
 * is shorter than its header's length field (36 bytes and up, the RSDP
 * and FACS excepted) is dropped with a warning: the parser must see whole
 * tables only.
 * Return: the number of tables kept.
 */
unsigned int acpidump_parse(const char *text, size_t len, struct acpidump *d);

/* acpidump_find(): the @n-th (from 0) table with signature @sig, or NULL. */
const struct acpidump_table *acpidump_find(const struct acpidump *d,
					   const char *sig, unsigned int n);

#endif
