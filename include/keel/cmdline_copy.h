/* SPDX-License-Identifier: MIT */
/*
 * Owner: boot.
 * Copying a loader's command line into a fixed buffer (boot/cmdline_copy.c),
 * the one way every boot path does it: multiboot1/2, the DT's
 * /chosen/bootargs, UEFI LoadOptions and the sandbox's argv.
 *
 * A line that fits is copied byte for byte. A line that does not is copied
 * word by word: a word that does not fit in what is left is dropped whole,
 * never cut (a cut "mem=900M" would read "mem=90"), and the words after it
 * are still tried. Words are separated by blanks outside double quotes, as
 * cmdline_parse() reads them. One warning per copy names the count and the
 * first dropped word.
 */
#ifndef KEEL_CMDLINE_COPY_H
#define KEEL_CMDLINE_COPY_H

#include <keel/bootinfo.h>
#include <keel/types.h>

/*
 * Character @i (< the length given) of a source that is not a plain char
 * array (a loader's memory read through an accessor, UCS-2 text).
 */
typedef char (*cmdline_char_fn)(const void *src, size_t i);

/*
 * cmdline_copy(): [src, src+len) into @dst (@size bytes, NUL-terminated when
 * @size > 0). A NUL in the source ends it. @at is NULL when @src is a plain
 * char array. @what names the source in the warning ("multiboot2: cmdline").
 * Return: number of words dropped (0: nothing lost).
 */
unsigned int cmdline_copy(char *dst, size_t size, const void *src, size_t len,
			  cmdline_char_fn at, const char *what);

/*
 * cmdline_copy_bootinfo(): cmdline_copy() into @bi->cmdline; a line that
 * lost words also counts one bi->fixups.
 * Return: number of words dropped.
 */
unsigned int cmdline_copy_bootinfo(struct bootinfo *bi, const void *src,
				   size_t len, cmdline_char_fn at,
				   const char *what);

#endif
