/* SPDX-License-Identifier: MIT */
/*
 * Multiboot2 boot information -> struct bootinfo (GRUB `multiboot2`).
 * The information is one block of 8-byte aligned tags; the arch hands it
 * over as (buffer, length) with the length bounded, so this parser never
 * reads outside [buf, buf+len), whatever total_size and the tag sizes say.
 *
 * Tags used: 1 cmdline, 2 loader name, 3 module, 4 basic meminfo (fallback
 * without a map), 6 memory map, 14/15 ACPI RSDP (a copy inside the block:
 * bi->acpi_rsdp = its physical address; 15 wins over 14), 17 EFI memory map
 * (only when there is no tag 6), 21 image load base (only said: the arch
 * knows where it runs; GRUB gives it for a relocatable image, head.S's tag
 * 10). The whole block is reserved as "loader info" (the RSDP copy lives in
 * it), modules as "module".
 */
#include <keel/cmdline_copy.h>
#include <keel/errno.h>
#include <keel/multiboot.h>
#include <keel/printk.h>
#include <keel/string.h>

#include "multiboot_priv.h"

#define MB2_TAG_END	   0
#define MB2_TAG_CMDLINE	   1
#define MB2_TAG_LOADER	   2
#define MB2_TAG_MODULE	   3
#define MB2_TAG_MEMINFO	   4
#define MB2_TAG_MMAP	   6
#define MB2_TAG_RSDP_V1	   14
#define MB2_TAG_RSDP_V2	   15
#define MB2_TAG_EFI_MMAP   17
#define MB2_TAG_LOAD_BASE  21

#define MB2_MMAP_ENTRY_MIN 24
#define EFI_DESC_MIN	   40
#define RSDP_V1_LEN	   20
#define RSDP_V2_LEN	   36
#define SZ_1M		   (1ULL << 20)
#define LOW_MEM_MAX	   (640ULL << 10)
#define EFI_PAGES_MAX	   (1ULL << 52)

struct mb2_state {
	struct bootinfo *bi;
	const uint8_t *buf;
	uint64_t info_pa;
	bool have_cmdline, have_loader, have_mmap, have_meminfo;
	bool have_rsdp_v2;
	size_t efi_off, efi_size; /* tag 17, parsed last */
	uint32_t mem_lower, mem_upper;
	bool ram;
};

static bool tag_min(size_t off, uint32_t type, uint32_t size, uint32_t min)
{
	if (size >= min)
		return true;
	pr_warn("multiboot2: tag %u at offset %zu: size %u < %u, ignored\n",
		type, off, size, min);
	return false;
}

static bool tag_once(bool *seen, size_t off, uint32_t type)
{
	if (!*seen) {
		*seen = true;
		return true;
	}
	pr_warn("multiboot2: duplicate tag %u at offset %zu, ignored\n", type,
		off);
	return false;
}

static void mb2_mmap(struct mb2_state *st, const uint8_t *t, size_t off,
		     uint32_t size)
{
	uint32_t esize = mb_u32(t + 8);
	char name[BOOTINFO_NAME_MAX];
	struct mb_map m;
	size_t n, rest;

	if (esize < MB2_MMAP_ENTRY_MIN) {
		pr_warn("multiboot2: mmap entry_size %u < %u, map ignored\n",
			esize, MB2_MMAP_ENTRY_MIN);
		return;
	}
	if (esize % 8)
		pr_warn("multiboot2: mmap entry_size %u is not a multiple of "
			"8\n",
			esize);
	n = (size - 16) / esize;
	rest = (size - 16) % esize;
	if (rest)
		pr_warn("multiboot2: mmap has %zu trailing bytes, ignored\n",
			rest);
	if (n > MB_MAP_MAX_ENTRIES) {
		pr_warn("multiboot2: mmap has %zu entries, only %u used\n", n,
			MB_MAP_MAX_ENTRIES);
		n = MB_MAP_MAX_ENTRIES;
	}
	mb_map_begin(&m, st->bi, "multiboot2 mmap");
	for (size_t i = 0; i < n; i++) {
		const uint8_t *e = t + 16 + i * esize;

		mb_map_add(&m, mb_u64(e), mb_u64(e + 8),
			   mb_e820_name(mb_u32(e + 16), name, sizeof(name)));
	}
	if (!m.have_ram)
		pr_warn("multiboot2: mmap (tag at offset %zu) has no RAM "
			"entry\n",
			off);
	st->ram |= m.have_ram;
}

static const char *efi_type_name(uint32_t type, char *buf, size_t size)
{
	static const char *const names[] = {
		[0] = "efi reserved",	  [5] = "efi runtime code",
		[6] = "efi runtime data", [8] = "efi unusable",
		[9] = "acpi reclaimable", [10] = "acpi nvs",
		[11] = "efi mmio",	  [12] = "efi mmio port",
		[13] = "efi pal code",	  [14] = "efi persistent",
	};

	switch (type) {
	case 1: /* LoaderCode */
	case 2: /* LoaderData */
	case 3: /* BootServicesCode */
	case 4: /* BootServicesData */
	case 7: /* ConventionalMemory */
		return NULL;
	}
	if (type < ARRAY_SIZE(names) && names[type])
		return names[type];
	snprintf(buf, size, "efi type %u", type);
	return buf;
}

static void mb2_efi_mmap(struct mb2_state *st)
{
	const uint8_t *t = st->buf + st->efi_off;
	uint32_t dsize = mb_u32(t + 8);
	char name[BOOTINFO_NAME_MAX];
	struct mb_map m;
	size_t n;

	if (dsize < EFI_DESC_MIN) {
		pr_warn("multiboot2: efi mmap descriptor_size %u < %u, map "
			"ignored\n",
			dsize, EFI_DESC_MIN);
		return;
	}
	n = (st->efi_size - 16) / dsize;
	if (n > MB_MAP_MAX_ENTRIES) {
		pr_warn("multiboot2: efi mmap has %zu entries, only %u used\n",
			n, MB_MAP_MAX_ENTRIES);
		n = MB_MAP_MAX_ENTRIES;
	}
	mb_map_begin(&m, st->bi, "multiboot2 efi mmap");
	for (size_t i = 0; i < n; i++) {
		const uint8_t *d = t + 16 + i * dsize;
		uint64_t pages = mb_u64(d + 24);

		if (pages >= EFI_PAGES_MAX) {
			pr_warn("multiboot2: efi mmap entry %zu: %llu pages, "
				"ignored\n",
				i, U64(pages));
			m.entries++;
			continue;
		}
		mb_map_add(&m, mb_u64(d + 8), pages << 12,
			   efi_type_name(mb_u32(d), name, sizeof(name)));
	}
	if (!m.have_ram)
		pr_warn("multiboot2: efi mmap has no usable RAM\n");
	st->ram |= m.have_ram;
}

static void mb2_rsdp(struct mb2_state *st, const uint8_t *t, size_t off,
		     uint32_t type, uint32_t size)
{
	bool v2 = type == MB2_TAG_RSDP_V2;

	if (!tag_min(off, type, size, 8 + (v2 ? RSDP_V2_LEN : RSDP_V1_LEN)))
		return;
	if (memcmp(t + 8, "RSD PTR ", 8)) {
		pr_warn("multiboot2: tag %u at offset %zu: no RSDP signature, "
			"ignored\n",
			type, off);
		return;
	}
	if (!v2 && st->have_rsdp_v2)
		return;
	st->have_rsdp_v2 |= v2;
	st->bi->acpi_rsdp = pa(st->info_pa + off + 8);
}

static void mb2_tag(struct mb2_state *st, size_t off, uint32_t type,
		    uint32_t size)
{
	const uint8_t *t = st->buf + off;
	struct bootinfo *bi = st->bi;

	switch (type) {
	case MB2_TAG_CMDLINE:
		if (tag_once(&st->have_cmdline, off, type)) {
			/* Only measured here: whole words are kept below. */
			mb_copy_string(NULL, 0, (const char *)t + 8, size - 8,
				       "multiboot2: cmdline");
			cmdline_copy_bootinfo(bi, t + 8, size - 8, NULL,
					      "multiboot2: cmdline");
		}
		break;
	case MB2_TAG_LOADER:
		if (tag_once(&st->have_loader, off, type))
			mb_copy_string(bi->loader, sizeof(bi->loader),
				       (const char *)t + 8, size - 8,
				       "multiboot2: boot loader name");
		break;
	case MB2_TAG_MODULE: {
		uint32_t s, e;

		if (!tag_min(off, type, size, 16))
			break;
		s = mb_u32(t + 8);
		e = mb_u32(t + 12);
		if (e <= s) {
			pr_warn("multiboot2: module [%#x, %#x) is empty or "
				"inverted, ignored\n",
				s, e);
			break;
		}
		bootinfo_add_reserved(bi, pa(s), pa(e), "module");
		if (!pa_val(bi->handover.image.end)) /* a live update's image */
			bi->handover.image = region_of(pa(s), pa(e));
		break;
	}
	case MB2_TAG_MEMINFO:
		if (tag_min(off, type, size, 16) &&
		    tag_once(&st->have_meminfo, off, type)) {
			st->mem_lower = mb_u32(t + 8);
			st->mem_upper = mb_u32(t + 12);
		}
		break;
	case MB2_TAG_MMAP:
		if (tag_min(off, type, size, 16) &&
		    tag_once(&st->have_mmap, off, type))
			mb2_mmap(st, t, off, size);
		break;
	case MB2_TAG_RSDP_V1:
	case MB2_TAG_RSDP_V2:
		mb2_rsdp(st, t, off, type, size);
		break;
	case MB2_TAG_EFI_MMAP:
		if (!tag_min(off, type, size, 16))
			break;
		if (st->efi_size) {
			pr_warn("multiboot2: duplicate tag 17 at offset %zu, "
				"ignored\n",
				off);
			break;
		}
		st->efi_off = off;
		st->efi_size = size;
		break;
	case MB2_TAG_LOAD_BASE:
		if (tag_min(off, type, size, 12))
			pr_info("multiboot2: the loader put the image at %#x "
				"(tag 21)\n",
				mb_u32(t + 8));
		break;
	default:
		break;
	}
}

static void mb2_meminfo(struct mb2_state *st)
{
	uint64_t lower = (uint64_t)st->mem_lower << 10;
	uint64_t upper = (uint64_t)st->mem_upper << 10;

	pr_warn("multiboot2: no memory map, using mem_lower %u KiB and "
		"mem_upper %u KiB\n",
		st->mem_lower, st->mem_upper);
	if (lower > LOW_MEM_MAX) {
		pr_warn("multiboot2: mem_lower %u KiB exceeds 640 KiB, "
			"clamped\n",
			st->mem_lower);
		lower = LOW_MEM_MAX;
	}
	if (lower && bootinfo_add_ram(st->bi, pa(0), pa(lower), 0) == 0)
		st->ram = true;
	if (upper &&
	    bootinfo_add_ram(st->bi, pa(SZ_1M), pa(SZ_1M + upper), 0) == 0)
		st->ram = true;
}

#define MB2_HEADER_MAGIC     0xE85250D6u
#define MB2_HEADER_SEARCH    32768
#define MB2_HEADER_TAG_RELOC 10

/* The multiboot2 header's tags [@off, @end) hold a relocatable tag (10). */
static bool mb2_header_relocatable(const uint8_t *b, size_t off, size_t end)
{
	while (off + 8 <= end) {
		uint16_t type = (uint16_t)(b[off] | b[off + 1] << 8);
		uint32_t size = mb_u32(b + off + 4);

		if (type == 0 || size < 8 || size > end - off)
			return false;
		if (type == MB2_HEADER_TAG_RELOC)
			return size >= 24;
		off += ALIGN_UP((size_t)size, 8);
	}
	return false;
}

/**
 * multiboot2_image_relocatable() - whether the image file [@buf, @buf+@len)
 * has a multiboot2 header (8-byte aligned, in its first 32 KiB, checksum
 * right) with a relocatable tag (type 10): a loader may then run it away
 * from its link address, and so may a live update (arch/x86_64).
 * Return: true when it has; false for no header, a bad one, or no tag.
 */
bool multiboot2_image_relocatable(const void *buf, uint64_t len)
{
	const uint8_t *b = buf;
	uint64_t lim = len < MB2_HEADER_SEARCH ? len : MB2_HEADER_SEARCH;

	for (uint64_t off = 0; off + 16 <= lim; off += 8) {
		uint32_t hlen = mb_u32(b + off + 8);

		if (mb_u32(b + off) != MB2_HEADER_MAGIC ||
		    mb_u32(b + off) + mb_u32(b + off + 4) + hlen +
				    mb_u32(b + off + 12) !=
			    0)
			continue;
		if (hlen < 16 || hlen > len - off)
			return false;
		return mb2_header_relocatable(b, off + 16, off + hlen);
	}
	return false;
}

/**
 * multiboot2_parse() - fill @bi from the multiboot2 block [buf, buf+len)
 * loaded at physical address @info_pa.
 * Return: 0, or -EINVAL when no RAM was found.
 */
int multiboot2_parse(struct bootinfo *bi, const void *buf, size_t len,
		     uint64_t info_pa)
{
	struct mb2_state st = {.bi = bi, .buf = buf, .info_pa = info_pa};
	uint32_t total;
	size_t end, off = 8;
	bool seen_end = false, bad = false;

	if (len < 8) {
		pr_warn("multiboot2: information of %zu bytes is too short\n",
			len);
		return -EINVAL;
	}
	total = mb_u32(buf);
	if (total < 8) {
		pr_warn("multiboot2: total_size %u < 8\n", total);
		return -EINVAL;
	}
	end = total;
	if (end > len) {
		pr_warn("multiboot2: total_size %u exceeds the %zu bytes "
			"given, parsing those\n",
			total, len);
		end = len;
	}
	if (info_pa & 7)
		pr_warn("multiboot2: information at %#llx is not 8-byte "
			"aligned\n",
			U64(info_pa));
	bootinfo_add_reserved(bi, pa(info_pa), pa(info_pa + end),
			      "loader info");
	strlcpy(bi->loader, "multiboot2", sizeof(bi->loader));

	while (off + 8 <= end) {
		uint32_t type = mb_u32(st.buf + off);
		uint32_t size = mb_u32(st.buf + off + 4);

		if (size < 8 || size > end - off) {
			pr_warn("multiboot2: tag %u at offset %zu: size %u "
				"does not fit in [8, %zu], rest ignored\n",
				type, off, size, end - off);
			bad = true;
			break;
		}
		if (type == MB2_TAG_END) {
			seen_end = true;
			break;
		}
		mb2_tag(&st, off, type, size);
		off += ALIGN_UP((size_t)size, 8);
	}
	if (!seen_end && !bad)
		pr_warn("multiboot2: no end tag within %zu bytes\n", end);

	if (!st.have_mmap && st.efi_size)
		mb2_efi_mmap(&st);
	if (!st.ram && st.have_meminfo)
		mb2_meminfo(&st);
	if (!st.ram) {
		pr_warn("multiboot2: no RAM in the information\n");
		return -EINVAL;
	}
	return 0;
}
