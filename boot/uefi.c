/* SPDX-License-Identifier: MIT */
/*
 * UEFI memory map and LoadOptions -> bootinfo / command line.
 *
 * What it owns: nothing but the translation rules (see include/keel/uefi.h).
 * Inputs are copies the EFI stub made before ExitBootServices(); both
 * functions read only inside [buf, buf + len) and never dereference an
 * address found in the data. No lock, no state: pure functions.
 */
#include <keel/compiler.h>
#include <keel/errno.h>
#include <keel/printk.h>
#include <keel/string.h>
#include <keel/uefi.h>

#define U64(x) ((unsigned long long)(x))

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
	uint64_t start, end;
	const char *name; /* NULL: RAM run */
	bool open;
};

static void flush(struct run *r, struct bootinfo *bi)
{
	if (!r->open)
		return;
	if (r->name)
		bootinfo_add_reserved(bi, pa(r->start), pa(r->end), r->name);
	else
		bootinfo_add_ram(bi, pa(r->start), pa(r->end), NUMA_NO_NODE);
	r->open = false;
}

static void extend(struct run *r, struct bootinfo *bi, uint64_t s, uint64_t e,
		   const char *name)
{
	if (r->open && r->name == name && r->end == s) {
		r->end = e;
		return;
	}
	flush(r, bi);
	r->start = s;
	r->end = e;
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

static void drop_word0(char *s)
{
	char *sp = strchr(s, ' ');

	if (sp)
		memmove(s, sp + 1, strlen(sp + 1) + 1);
	else
		s[0] = '\0';
}

/* "\keel.efi", "fs0:\efi\keel", "keel.efi": a path, not an option. */
static bool word0_is_path(const char *s)
{
	size_t n = 0;
	bool sep = false;

	for (; s[n] && s[n] != ' '; n++) {
		if (s[n] == '=')
			return false;
		if (s[n] == '\\' || s[n] == '/' || s[n] == ':')
			sep = true;
	}
	if (n >= 4 && s[n - 4] == '.' && (s[n - 3] | 0x20) == 'e' &&
	    (s[n - 2] | 0x20) == 'f' && (s[n - 1] | 0x20) == 'i')
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
 * Return: true when GRUB's BOOT_IMAGE= word was seen (and dropped).
 */
bool uefi_load_options(const void *opts, size_t bytes, char *out,
		       size_t out_len)
{
	const uint8_t *b = opts;
	size_t n = b ? bytes / 2 : 0, o = 0;
	bool grub = false;

	if (!out || !out_len)
		return false;
	out[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		uint16_t c = ucs2_at(b, i);

		if (!c)
			break;
		if (c == '\t' || c == '\r' || c == '\n')
			c = ' ';
		if (c < 0x20 || c > 0x7e) {
			pr_warn("efi: LoadOptions character %zu is %#x, not "
				"text: command line ignored\n",
				i, c);
			out[0] = '\0';
			return false;
		}
		if (o + 1 >= out_len) {
			pr_warn("efi: LoadOptions longer than %zu bytes, "
				"truncated\n",
				out_len - 1);
			break;
		}
		out[o++] = (char)c;
	}
	out[o] = '\0';
	/* Leading blanks would make word 0 empty. */
	while (out[0] == ' ')
		memmove(out, out + 1, strlen(out));
	if (!strncmp(out, "BOOT_IMAGE=", 11)) {
		grub = true;
		drop_word0(out);
	} else if (out[0] && word0_is_path(out)) {
		drop_word0(out);
	}
	return grub;
}
