/* SPDX-License-Identifier: MIT */
/*
 * Helpers shared by the multiboot1 and multiboot2 parsers (private to
 * boot/multiboot*.c): unaligned little-endian loads and the firmware memory
 * map entry handling common to e820-style maps.
 */
#ifndef BOOT_MULTIBOOT_PRIV_H
#define BOOT_MULTIBOOT_PRIV_H

#include <keel/bootinfo.h>
#include <keel/string.h>

#include "boot_priv.h"

/* Loads through memcpy: info blocks need not be aligned. */
static inline uint32_t mb_u32(const void *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline uint64_t mb_u64(const void *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* Guards against absurd maps: more entries than bootinfo can ever hold. */
#define MB_MAP_MAX_ENTRIES 1024

/*
 * One memory map being read: entries are checked against the earlier
 * entries of the same map (overlaps are reported; "reserved wins" later).
 */
struct mb_map {
	struct bootinfo *bi;
	const char *what; /* "multiboot1 mmap", "multiboot2 efi mmap" */
	unsigned int ram_first, res_first;
	unsigned int entries;
	bool have_ram;
};

void mb_map_begin(struct mb_map *m, struct bootinfo *bi, const char *what);
/* Add one entry; @name is NULL for RAM. Zero length and overflow are warned. */
void mb_map_add(struct mb_map *m, uint64_t base, uint64_t len,
		const char *name);
/* e820 / multiboot type to reserved name, NULL for type 1 (RAM). */
const char *mb_e820_name(uint32_t type, char *buf, size_t size);

/*
 * Copy the NUL-terminated string at [src, src+avail) to @dst (size
 * @dst_size). Warns (naming @what) when no NUL is found within @avail or the
 * string is truncated to @dst_size - 1.
 * Return: bytes of the string consumed, NUL included when found.
 */
size_t mb_copy_string(char *dst, size_t dst_size, const char *src, size_t avail,
		      const char *what);

#endif
