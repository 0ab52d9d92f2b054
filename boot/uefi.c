/* SPDX-License-Identifier: MIT */
/*
 * UEFI memory map and LoadOptions -> bootinfo / command line.
 *
 * What it owns: nothing but the translation rules (see include/keel/uefi.h).
 * Inputs are copies the EFI stub made before ExitBootServices(); both
 * functions read only inside [buf, buf + len) and never dereference an
 * address found in the data. No lock, no state: pure functions.
 */
#include <keel/badmem.h>
#include <keel/cmdline_copy.h>
#include <keel/compiler.h>
#include <keel/errno.h>
#include <keel/printk.h>
#include <keel/string.h>
#include <keel/uefi.h>

#include "boot_priv.h"

/* A reasonable descriptor stride: version 1 is 40 bytes, firmware uses 48. */
#define UEFI_DESC_MAX 1024

#define uefi_warn(bi, fmt, ...)                           \
	do {                                              \
		pr_warn("efi: " fmt "\n", ##__VA_ARGS__); \
		(bi)->fixups++;                           \
	} while (0)

static bool is_ram(const struct uefi_mem_desc *d)
{
	switch (d->type) {
	case UEFI_LOADER_CODE:
	case UEFI_LOADER_DATA:
	case UEFI_BOOT_SERVICES_CODE:
	case UEFI_BOOT_SERVICES_DATA:
	case UEFI_CONVENTIONAL:
		/* Memory that cannot be cached is not heap material. */
		return d->attribute & UEFI_MEMORY_WB;
	default:
		return false;
	}
}

/* Reservation name of a non-RAM type, NULL for "not memory at all". */
static const char *reserved_name(uint32_t type)
{
	switch (type) {
	case UEFI_RUNTIME_SERVICES_CODE:
	case UEFI_RUNTIME_SERVICES_DATA:
		return "efi runtime";
	case UEFI_ACPI_RECLAIM:
		return "acpi reclaim";
	case UEFI_ACPI_NVS:
		return "acpi nvs";
	case UEFI_UNUSABLE:
		/* RAM that failed: RAM and bad (flush()). */
		return badmem_region_name(BADMEM_FIRMWARE);
	case UEFI_MMIO:
	case UEFI_MMIO_PORT_SPACE:
		return NULL;
	case UEFI_LOADER_CODE:
	case UEFI_LOADER_DATA:
	case UEFI_BOOT_SERVICES_CODE:
	case UEFI_BOOT_SERVICES_DATA:
	case UEFI_CONVENTIONAL:
		return NULL; /* RAM without WB: neither heap nor reserved */
	default:
		return "efi reserved";
	}
}

/* A run of adjacent descriptors of one kind, flushed when it ends. */
struct run {
	struct region span; /* its bounds */
	const char *name;   /* NULL: RAM run */
	bool open;
};

static void flush(struct run *r, struct bootinfo *bi)
{
	if (!r->open)
		return;
	if (r->name && badmem_region_source(r->name) == BADMEM_FIRMWARE)
		bootinfo_add_bad(bi, r->span.start, r->span.end,
				 BADMEM_FIRMWARE, true, NUMA_NO_NODE);
	else if (r->name)
		bootinfo_add_reserved(bi, r->span.start, r->span.end, r->name);
	else
		bootinfo_add_ram(bi, r->span.start, r->span.end, NUMA_NO_NODE);
	r->open = false;
}

static void extend(struct run *r, struct bootinfo *bi, uint64_t s, uint64_t e,
		   const char *name)
{
	if (r->open && r->name == name && pa_val(r->span.end) == s) {
		r->span.end = pa(e);
		return;
	}
	flush(r, bi);
	r->span = region_of(pa(s), pa(e));
	r->name = name;
	r->open = true;
}

/**
 * uefi_mmap_to_bootinfo() - the UEFI memory map into @bi (see uefi.h).
 * @map: descriptors.
 * @map_size: bytes at @map.
 * @desc_size: stride (the firmware's DescriptorSize).
 * @bi: bootinfo to add RAM and reserved ranges to.
 * @st: statistics (may be NULL).
 *
 * Return: 0, or -EINVAL for an unusable @desc_size.
 */
int uefi_mmap_to_bootinfo(const void *map, size_t map_size, size_t desc_size,
			  struct bootinfo *bi, struct uefi_mmap_stats *st)
{
	struct uefi_mmap_stats local = {0};
	struct run ram = {0}, res = {0};
	const uint8_t *p = map;
	size_t n;

	if (!st)
		st = &local;
	memset(st, 0, sizeof(*st));
	if (desc_size < sizeof(struct uefi_mem_desc) ||
	    desc_size > UEFI_DESC_MAX || (desc_size & 7)) {
		uefi_warn(bi,
			  "memory map DescriptorSize %zu is invalid, map "
			  "ignored",
			  desc_size);
		return -EINVAL;
	}
	if (!map)
		map_size = 0;
	n = map_size / desc_size;
	if (map_size % desc_size)
		uefi_warn(bi,
			  "memory map size %zu is not a multiple of "
			  "DescriptorSize %zu, last %zu bytes ignored",
			  map_size, desc_size, map_size % desc_size);

	for (size_t i = 0; i < n; i++) {
		struct uefi_mem_desc d;
		uint64_t s, e;

		memcpy(&d, p + i * desc_size, sizeof(d));
		st->descs++;
		s = d.phys_start;
		if (!d.pages) {
			/* Empty: bootinfo warns and counts it as dropped. */
			if (is_ram(&d))
				bootinfo_add_ram(bi, pa(s), pa(s),
						 NUMA_NO_NODE);
			else if (reserved_name(d.type))
				bootinfo_add_reserved(bi, pa(s), pa(s),
						      reserved_name(d.type));
			continue;
		}
		if (s & ((1ULL << UEFI_PAGE_SHIFT) - 1)) {
			uefi_warn(bi,
				  "descriptor %zu PhysicalStart %#llx is "
				  "not 4 KiB aligned, skipped",
				  i, U64(s));
			continue;
		}
		if (d.pages > ((~0ULL - s) >> UEFI_PAGE_SHIFT)) {
			uefi_warn(bi,
				  "descriptor %zu [%#llx, +%llu pages) "
				  "overflows, skipped",
				  i, U64(s), U64(d.pages));
			continue;
		}
		e = s + (d.pages << UEFI_PAGE_SHIFT);
		if (d.type == UEFI_ACPI_RECLAIM)
			st->acpi_reclaim_bytes += e - s;
		if (d.type == UEFI_RUNTIME_SERVICES_CODE ||
		    d.type == UEFI_RUNTIME_SERVICES_DATA)
			st->runtime_bytes += e - s;
		if (is_ram(&d)) {
			st->ram_bytes += e - s;
			extend(&ram, bi, s, e, NULL);
		} else if (reserved_name(d.type)) {
			extend(&res, bi, s, e, reserved_name(d.type));
		}
	}
	flush(&ram, bi);
	flush(&res, bi);
	return 0;
}

static uint16_t ucs2_at(const uint8_t *b, size_t i)
{
	return (uint16_t)(b[2 * i] | b[2 * i + 1] << 8);
}

static bool is_blank(uint16_t c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* LoadOptions from character @from on, as cmdline_copy() reads it. */
struct load_options {
	const uint8_t *b;
	size_t from;
};

/* Only called on text (checked first): tabs and newlines read as spaces. */
static char load_options_at(const void *src, size_t i)
{
	const struct load_options *lo = src;
	uint16_t c = ucs2_at(lo->b, lo->from + i);

	return is_blank(c) ? ' ' : (char)c;
}

/* Does [s, e) start with the ASCII @prefix? */
static bool has_prefix(const uint8_t *b, size_t s, size_t e, const char *prefix)
{
	size_t n = strlen(prefix);

	if (e - s < n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (ucs2_at(b, s + i) != (uint8_t)prefix[i])
			return false;
	return true;
}

/* "\keel.efi", "fs0:\efi\keel", "keel.efi": a path, not an option. */
static bool word_is_path(const uint8_t *b, size_t s, size_t e)
{
	size_t n = e - s;
	bool sep = false;

	for (size_t i = s; i < e; i++) {
		uint16_t c = ucs2_at(b, i);

		if (c == '=')
			return false;
		if (c == '\\' || c == '/' || c == ':')
			sep = true;
	}
	if (n >= 4 && ucs2_at(b, e - 4) == '.' &&
	    (ucs2_at(b, e - 3) | 0x20) == 'e' &&
	    (ucs2_at(b, e - 2) | 0x20) == 'f' &&
	    (ucs2_at(b, e - 1) | 0x20) == 'i')
		return true;
	return sep;
}

/**
 * uefi_load_options() - LoadOptions to an ASCII command line (see uefi.h).
 * @opts: UCS-2 text, any alignment.
 * @bytes: bytes at @opts.
 * @out: output buffer.
 * @out_len: its size (>= 1).
 *
 * The text is checked first, the word naming the image found and skipped
 * in the UCS-2 itself, and the rest copied by cmdline_copy(): a line too
 * long for @out loses whole words, never part of one.
 *
 * Return: true when GRUB's BOOT_IMAGE= word was seen (and dropped).
 */
bool uefi_load_options(const void *opts, size_t bytes, char *out,
		       size_t out_len)
{
	const uint8_t *b = opts;
	size_t n = b ? bytes / 2 : 0, len = 0, w0, w0_end;
	struct load_options lo = {b, 0};
	bool grub = false;

	if (!out || !out_len)
		return false;
	out[0] = '\0';
	for (; len < n; len++) {
		uint16_t c = ucs2_at(b, len);

		if (!c)
			break;
		if (!is_blank(c) && (c < 0x20 || c > 0x7e)) {
			pr_warn("efi: LoadOptions character %zu is %#x, not "
				"text: command line ignored\n",
				len, c);
			return false;
		}
	}
	/* Leading blanks would make word 0 empty. */
	for (w0 = 0; w0 < len && is_blank(ucs2_at(b, w0)); w0++)
		;
	for (w0_end = w0; w0_end < len && !is_blank(ucs2_at(b, w0_end));
	     w0_end++)
		;
	lo.from = w0;
	if (has_prefix(b, w0, w0_end, "BOOT_IMAGE=")) {
		grub = true;
		lo.from = w0_end;
	} else if (w0 < len && word_is_path(b, w0, w0_end)) {
		lo.from = w0_end;
	}
	/* The blank after a dropped word 0 is not part of the line. */
	if (lo.from > w0 && lo.from < len)
		lo.from++;
	cmdline_copy(out, out_len, &lo, len - lo.from, load_options_at,
		     "efi: LoadOptions");
	return grub;
}
