/* SPDX-License-Identifier: MIT */
/*
 * A UEFI boot described in /chosen, as Linux's EFI stub describes it to
 * the kernel it enters (Documentation/arch/arm/uefi.rst):
 *
 *   linux,uefi-system-table    the EFI system table's physical address
 *   linux,uefi-mmap-start      the UEFI memory map's physical address
 *   linux,uefi-mmap-size       its bytes
 *   linux,uefi-mmap-desc-size  its descriptor stride
 *   linux,uefi-mmap-desc-ver   its descriptor version (1)
 *
 * each of one or two cells, plus keel's own:
 *
 *   keel,uefi-mmap             the map's bytes themselves, where
 *                              linux,uefi-mmap-start points: inside the
 *                              blob, so the "dtb" reservation keeps them
 *   keel,uefi-loader           "uefi" or "grub", for the report
 *
 * A live update writes them (dt_uefi_write()) into the DTB copy it passes
 * to the next image, with the command line the old image booted with, so
 * that the next image boots down the UEFI path as a first boot did: the
 * same memory map (runtime, ACPI and reserved memory kept), the same
 * ACPI or DT choice, the same command line (docs/liveupdate.md). The next
 * image reads them as firmware input (dt_uefi_read()): every field's
 * length and value is checked, each problem one counted warning naming
 * it, and a partial or malformed set is refused as a whole (the arch then
 * stops rather than boot without the map: a plain DT boot would take
 * runtime memory for RAM and zero it).
 *
 * Nothing outside [blob, blob + len) is read; the map itself is the
 * arch's to copy from the address given.
 */
#include "fdt_priv.h"

#include <keel/compiler.h>
#include <keel/errno.h>
#include <keel/string.h>

#include "../boot_priv.h"

#define UEFI_DESC_MIN 40 /* EFI_MEMORY_DESCRIPTOR version 1 */
#define UEFI_DESC_MAX 1024

static const char *const uefi_props[] = {
	"linux,uefi-system-table",  "linux,uefi-mmap-start",
	"linux,uefi-mmap-size",	    "linux,uefi-mmap-desc-size",
	"linux,uefi-mmap-desc-ver",
};

/* Property @name of one or two cells into *@out. Return: 0 or -EINVAL. */
static int read_cells(const void *fdt, int node, const char *name,
		      struct bootinfo *bi, uint64_t *out)
{
	int len;
	const fdt32_t *p = fdt_getprop(fdt, node, name, &len);

	if (!p) {
		dt_warn(bi,
			"chosen/%s missing beside the other linux,uefi-* "
			"properties",
			name);
		return -EINVAL;
	}
	if (len != 4 && len != 8) {
		dt_warn(bi, "chosen/%s has length %d, expected 4 or 8", name,
			len);
		return -EINVAL;
	}
	*out = dt_read_cells(p, len / 4);
	return 0;
}

/* The values, each checked alone. Return: 0 or -EINVAL (warned). */
static int check_values(const struct dt_uefi *u, struct bootinfo *bi)
{
	if (!u->system_table) {
		dt_warn(bi, "chosen/linux,uefi-system-table is 0");
		return -EINVAL;
	}
	if (u->desc_size < UEFI_DESC_MIN || u->desc_size > UEFI_DESC_MAX ||
	    (u->desc_size & 7)) {
		dt_warn(bi,
			"chosen/linux,uefi-mmap-desc-size %llu is not a "
			"descriptor stride (40 to 1024, a multiple of 8)",
			U64(u->desc_size));
		return -EINVAL;
	}
	if (u->desc_ver != 1) {
		dt_warn(bi,
			"chosen/linux,uefi-mmap-desc-ver %llu, only 1 "
			"is known",
			U64(u->desc_ver));
		return -EINVAL;
	}
	if (!u->mmap_size || u->mmap_size % u->desc_size) {
		dt_warn(bi,
			"chosen/linux,uefi-mmap-size %llu is not a "
			"whole number of %llu-byte descriptors",
			U64(u->mmap_size), U64(u->desc_size));
		return -EINVAL;
	}
	if (!u->mmap_start || u->mmap_start + u->mmap_size < u->mmap_start) {
		dt_warn(bi,
			"chosen/linux,uefi-mmap-start %#llx (+%llu "
			"bytes) is no address",
			U64(u->mmap_start), U64(u->mmap_size));
		return -EINVAL;
	}
	return 0;
}

/* keel,uefi-loader: a short printable name, else "uefi" (one warning). */
static void read_loader(const void *fdt, int node, struct bootinfo *bi,
			struct dt_uefi *u)
{
	int len;
	const char *s = fdt_getprop(fdt, node, "keel,uefi-loader", &len);
	bool ok =
		s && len > 1 && (size_t)len <= sizeof(u->loader) && !s[len - 1];

	for (int i = 0; ok && i < len - 1; i++)
		ok = s[i] > 0x20 && s[i] < 0x7f;
	if (s && !ok)
		dt_warn(bi,
			"chosen/keel,uefi-loader of %d bytes is not a "
			"name, \"uefi\" used",
			len);
	strlcpy(u->loader, ok ? s : "uefi", sizeof(u->loader));
}

/**
 * dt_uefi_read() - the UEFI boot /chosen describes (see the top of the
 * file and include/keel/fdt.h).
 * @blob: the flattened DT.
 * @len: readable bytes at @blob.
 * @bi: counts the warnings (fixups).
 * @u: out: the values (zeroed first).
 *
 * Return: 1 when /chosen describes a UEFI boot and every field is good,
 * 0 when it has none of the linux,uefi-* properties (or the blob is
 * unusable: dt_parse() says why), -EINVAL when some are there but not a
 * usable set (each problem warned about).
 */
int dt_uefi_read(const void *blob, size_t len, struct bootinfo *bi,
		 struct dt_uefi *u)
{
	uint64_t v[ARRAY_SIZE(uefi_props)];
	bool any = false;
	int node;

	memset(u, 0, sizeof(*u));
	if (!dt_blob_usable(blob, len))
		return 0;
	node = fdt_path_offset(blob, "/chosen");
	for (unsigned int i = 0; node >= 0 && i < ARRAY_SIZE(uefi_props); i++)
		any |= !!fdt_getprop(blob, node, uefi_props[i], NULL);
	if (!any)
		return 0;
	for (unsigned int i = 0; i < ARRAY_SIZE(uefi_props); i++)
		if (read_cells(blob, node, uefi_props[i], bi, &v[i]))
			return -EINVAL;
	u->system_table = v[0];
	u->mmap_start = v[1];
	u->mmap_size = v[2];
	u->desc_size = v[3];
	u->desc_ver = v[4];
	if (check_values(u, bi))
		return -EINVAL;
	read_loader(blob, node, bi, u);
	return 1;
}

/* Set @name to the 64-bit @v (two cells). Return: libfdt's error. */
static int set_u64(void *fdt, int node, const char *name, uint64_t v)
{
	return fdt_setprop_u64(fdt, node, name, v);
}

/* The command line into the property the next image reads first. */
static int set_cmdline(void *fdt, int node, const char *cmdline)
{
	int len;
	const char *x = fdt_getprop(fdt, node, "xen,xen-bootargs", &len);

	if (x && len > 0 && memchr(x, '\0', (size_t)len))
		return fdt_setprop_string(fdt, node, "xen,xen-bootargs",
					  cmdline);
	return fdt_setprop_string(fdt, node, "bootargs", cmdline);
}

/**
 * dt_uefi_write() - describe the UEFI boot @u in the /chosen of @fdt, a
 * blob opened with room (fdt_open_into()) at physical address @fdt_pa:
 * the properties at the top of the file, the @u->mmap_size bytes of the
 * map at @map copied into keel,uefi-mmap and linux,uefi-mmap-start set to
 * where they lie, and @cmdline as the command line (xen,xen-bootargs
 * when the blob has a usable one, which the next image reads first, else
 * bootargs). @u->mmap_start is ignored. The blob is packed (no room left:
 * nothing may be added after this).
 *
 * Return: 0, or -EINVAL (a bad blob, no /chosen possible, no room).
 */
int dt_uefi_write(void *fdt, uint64_t fdt_pa, const struct dt_uefi *u,
		  const void *map, const char *cmdline)
{
	int node = fdt_path_offset(fdt, "/chosen");
	const uint8_t *at;
	int len;

	if (node < 0)
		node = fdt_add_subnode(fdt, 0, "chosen");
	if (node < 0 || !map || !u->mmap_size || u->mmap_size > INT32_MAX)
		return -EINVAL;
	/* Every insertion first: each may move the data before it. */
	if (set_u64(fdt, node, "linux,uefi-system-table", u->system_table) ||
	    set_u64(fdt, node, "linux,uefi-mmap-start", 0) ||
	    fdt_setprop_u32(fdt, node, "linux,uefi-mmap-size",
			    (uint32_t)u->mmap_size) ||
	    fdt_setprop_u32(fdt, node, "linux,uefi-mmap-desc-size",
			    (uint32_t)u->desc_size) ||
	    fdt_setprop_u32(fdt, node, "linux,uefi-mmap-desc-ver",
			    (uint32_t)u->desc_ver) ||
	    fdt_setprop_string(fdt, node, "keel,uefi-loader", u->loader) ||
	    set_cmdline(fdt, node, cmdline) ||
	    fdt_setprop(fdt, node, "keel,uefi-mmap", map, (int)u->mmap_size))
		return -EINVAL;
	/*
	 * Packed (dt_copy_pack(): fdt_pack() may move the structure block
	 * down when the loader's blob had a gap after its header), then
	 * where the map's bytes ended up, written in place.
	 */
	if (fdt_pack(fdt))
		return -EINVAL;
	node = fdt_path_offset(fdt, "/chosen");
	at = fdt_getprop(fdt, node, "keel,uefi-mmap", &len);
	if (node < 0 || !at || (uint64_t)len != u->mmap_size)
		return -EINVAL;
	return fdt_setprop_inplace_u64(
		       fdt, node, "linux,uefi-mmap-start",
		       fdt_pa + (uint64_t)(at - (const uint8_t *)fdt))
		       ? -EINVAL
		       : 0;
}

/**
 * dt_copy_pack() - a live update's DTB copy, once written, shrunk to what
 * it holds (fdt_pack(): the free space fdt_open_into() gave it is
 * dropped). Without it each update's copy would carry the room of the one
 * before and grow towards the 2 MiB a DTB may have. The blocks may move
 * (a gap after the header closed): dt_uefi_write() packs before it
 * writes an address into the blob, so a second pack moves nothing.
 * Return: 0 or -EINVAL.
 */
int dt_copy_pack(void *fdt)
{
	return fdt_pack(fdt) ? -EINVAL : 0;
}
