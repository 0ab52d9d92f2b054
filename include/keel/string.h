/* SPDX-License-Identifier: MIT */
/*
 * Owner: lib.
 * The freestanding C library subset keel carries (common/lib). The names are
 * the standard ones so that compilers' builtin expansions and libfdt link
 * against them.
 */
#ifndef KEEL_STRING_H
#define KEEL_STRING_H

#include <keel/types.h>

void *memset(void *s, int c, size_t n);
void *memcpy(void *dst, const void *src, size_t n);
void *memmove(void *dst, const void *src, size_t n);
int memcmp(const void *a, const void *b, size_t n);
void *memchr(const void *s, int c, size_t n);
size_t strlen(const char *s);
size_t strnlen(const char *s, size_t max);
int strcmp(const char *a, const char *b);
int strncmp(const char *a, const char *b, size_t n);
char *strchr(const char *s, int c);
char *strrchr(const char *s, int c);
/* strlcpy: always NUL-terminates when size > 0. Return: strlen(src). */
size_t strlcpy(char *dst, const char *src, size_t size);
unsigned long strtoul(const char *s, char **end, int base);
unsigned long long strtoull(const char *s, char **end, int base);

int vsnprintf(char *buf, size_t size, const char *fmt, va_list ap);
int snprintf(char *buf, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * parse_u64 / parse_size: decimal or 0x-hex over exactly [s, s+len);
 * parse_size also takes a K/M/G/T suffix (powers of 1024).
 * Return: 0, or -EINVAL (not a number, junk after it) / -ERANGE (overflow).
 */
int parse_u64(const char *s, size_t len, uint64_t *out);
/*
 * Each byte's value as a hex digit plus one, 0 when it is none: one load,
 * no branch on the digit's class (common/lib/lib.c).
 */
extern const uint8_t lib_hex_plus1[256];

/* Value of hex digit @c (0-15), -1 when it is not one. */
static inline int hex_digit(char c)
{
	return (int)lib_hex_plus1[(unsigned char)c] - 1;
}
int parse_size(const char *s, size_t len, uint64_t *out);

/* format_size: "512M", "1G", "4K" or "12345" when not a round unit. */
void format_size(char *buf, size_t size, uint64_t bytes);

/*
 * format_bytes: the human lines' sizes, "0 bytes", "4 KiB", "1.98 GiB":
 * the largest unit of 1024 with an integer part, two decimals unless they
 * are exact ("1.5 KiB", but "1.00 MiB" for 1 MiB and 4 KiB), rounded as
 * @round says (FORMAT_DOWN for what there is, e.g. free memory: never
 * more than @bytes; FORMAT_UP for what is needed).
 * FORMAT_BYTES_LEN bytes of @buf hold any result ("1023.99 PiB").
 */
#define FORMAT_BYTES_LEN 12
enum format_round { FORMAT_DOWN, FORMAT_UP };
void format_bytes(char *buf, size_t size, uint64_t bytes,
		  enum format_round round);

/* qsort-style insertion/heap sort without libc. */
void sort(void *base, size_t count, size_t size,
	  int (*cmp)(const void *, const void *));
int cmp_u64(const void *a, const void *b); /* ascending uint64_t */

uint32_t crc32(uint32_t crc, const void *buf, size_t len);
/* crc32() of A || B from crc32() of each and B's length: O(log len_b). */
uint32_t crc32_combine(uint32_t crc_a, uint32_t crc_b, uint64_t len_b);

#endif
