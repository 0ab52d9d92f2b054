/* SPDX-License-Identifier: MIT */
/*
 * Owner: lib.
 * Bytes from outside (a command line, a firmware description) made safe to
 * print on the console: printable ASCII as is, a backslash as \\, every
 * other byte (control bytes, ESC, DEL, bytes >= 0x80) as \xNN, so a
 * warning can never move the cursor or recolour a terminal.
 */
#ifndef KEEL_ESCAPE_H
#define KEEL_ESCAPE_H

#include <keel/types.h>

/* Room escape_bytes() needs for @len bytes, NUL included. */
#define ESCAPE_SIZE(len) ((len)*4 + 1)

/* Escape [s, s+len) into @out of @size bytes (see the top of this file). */
const char *escape_bytes(char *out, size_t size, const char *s, size_t len);

#endif
