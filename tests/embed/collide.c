// SPDX-License-Identifier: MIT
/*
 * A host with names of its own that keel also has inside: printk() and
 * panic() of another signature, zlib's crc32(), a sort() and its own
 * memset(). Linked beside embed.c and host.c (make embed: embed-collide),
 * the program must link and pass: libkeel-heap exports none of these
 * (Makefile, "make lib"), so keel keeps calling its own. Each one but
 * memset fails the run if keel calls it; memset is the host's libc,
 * which the hosted archive uses and a freestanding archive never exports.
 *
 * It also includes every header a host includes beside <zlib.h>, whose
 * crc32() keel/string.h would contradict.
 */
#include <keel/bootmem.h>
#include <keel/cachemaint.h>
#include <keel/frametable.h>
#include <keel/heap.h>
#include <keel/heap_boot.h>
#include <keel/heap_check.h>
#include <keel/hooks.h>
#include <keel/numa.h>

#include <stdio.h>
#include <stdlib.h>
#include <zlib.h>

int printk(const char *fmt, ...);
void panic(const char *why) __attribute__((noreturn));
void sort(int *v, size_t n);
void *memset(void *s, int c, size_t n);

static void __attribute__((noreturn)) called(const char *name)
{
	printf("embed: FAIL (keel called the host's %s())\n", name);
	exit(1);
}

/* The host's logger: a format, no level (keel's takes a level first). */
int printk(const char *fmt, ...)
{
	(void)fmt;
	called("printk");
}

void panic(const char *why)
{
	(void)why;
	called("panic");
}

uLong crc32(uLong crc, const Bytef *buf, uInt len)
{
	(void)crc, (void)buf, (void)len;
	called("crc32");
}

void sort(int *v, size_t n)
{
	(void)v, (void)n;
	called("sort");
}

/* Built with -fno-builtin: the loop must not become a call to itself. */
void *memset(void *s, int c, size_t n)
{
	volatile unsigned char *p = s;

	while (n--)
		*p++ = (unsigned char)c;
	return s;
}
