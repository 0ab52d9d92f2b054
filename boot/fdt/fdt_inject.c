/* SPDX-License-Identifier: MIT */
/*
 * inject=bad-dt-distance (docs/cmdline.md; tests only): parse the DT
 * again from a copy whose first off-diagonal distance-matrix value is set
 * to 10, which ACPI forbids between two nodes. The parser must skip that
 * entry with one warning. The firmware's blob is never written.
 *
 * The copy holds the blob's used part (header, memory reservation block,
 * structure and strings; QEMU pads its DTB to 1 MiB of free space); 64 KiB
 * covers QEMU virt. libfdt finds and changes the value in the copy. Boot CPU only, before keel_main().
 */
#include "fdt_priv.h"

#include <keel/compiler.h>
#include <keel/errno.h>
#include <keel/fdt.h>
#include <keel/printk.h>
#include <keel/string.h>

#define DT_COPY_MAX (64u << 10)

static uint8_t dt_copy[DT_COPY_MAX] __aligned(8);

/*
 * The value cell of the first distance-matrix triplet with a != b in the
 * first node that has the property. Return: it, or NULL.
 */
static fdt32_t *matrix_remote_value(void *fdt)
{
	for (int node = fdt_next_node(fdt, -1, NULL); node >= 0;
	     node = fdt_next_node(fdt, node, NULL)) {
		int len;
		fdt32_t *m = fdt_getprop_w(fdt, node, "distance-matrix", &len);

		if (!m)
			continue;
		for (int i = 0; len >= 12 && i + 3 <= len / 4; i += 3)
			if (fdt32_to_cpu(m[i]) != fdt32_to_cpu(m[i + 1]))
				return &m[i + 2];
		return NULL;
	}
	return NULL;
}

/* The corrupted copy of @blob (@total bytes valid), or NULL (said why). */
static void *bad_distance_copy(const void *blob, size_t total)
{
	uint32_t used, v;
	fdt32_t *at;

	if (total < sizeof(struct fdt_header) || fdt_version(blob) < 17) {
		pr_warn("dt: inject=bad-dt-distance: DT version %u < 17, "
			"nothing injected\n",
			total < sizeof(struct fdt_header) ? 0
							  : fdt_version(blob));
		return NULL;
	}
	used = MAX(fdt_off_dt_struct(blob) + fdt_size_dt_struct(blob),
		   fdt_off_dt_strings(blob) + fdt_size_dt_strings(blob));
	if (used > total || used > DT_COPY_MAX ||
	    fdt_off_mem_rsvmap(blob) >= used) {
		pr_warn("dt: inject=bad-dt-distance: DT uses %u bytes, "
			"more than the %u-byte copy, nothing injected\n",
			used, DT_COPY_MAX);
		return NULL;
	}
	memcpy(dt_copy, blob, used);
	fdt_set_totalsize(dt_copy, used); /* the copy has no free space */
	at = matrix_remote_value(dt_copy);
	if (!at) {
		pr_warn("dt: inject=bad-dt-distance: no distance-matrix "
			"entry between two nodes, nothing injected\n");
		return NULL;
	}
	v = fdt32_to_cpu(*at);
	*at = cpu_to_fdt32(NODE_DISTANCE_LOCAL);
	pr_warn("dt: inject: DT distance-matrix entry %u %u changed from "
		"%u to %u in a copy before parsing\n",
		fdt32_to_cpu(at[-2]), fdt32_to_cpu(at[-1]), v,
		fdt32_to_cpu(*at));
	return dt_copy;
}

/**
 * dt_parse_bad_distance() - dt_parse() from a corrupted copy of @blob.
 * @blob: the firmware's DT, already parsed once into @bi
 * @total: its valid bytes (the header's totalsize)
 * @blob_pa: its physical address
 * @bi: bootinfo, parsed again (same protocol) when something was injected
 * @ai: the arch's DT facts, parsed again with it
 *
 * Return: 1 when @bi now holds the copy's result, 0 when nothing was
 * injected (@bi untouched), -EINVAL when the copy did not parse (@bi must
 * be parsed again from the original).
 */
int dt_parse_bad_distance(const void *blob, size_t total, paddr_t blob_pa,
			  struct bootinfo *bi, struct dt_arch_info *ai)
{
	void *copy = bad_distance_copy(blob, total);

	if (!copy)
		return 0;
	bootinfo_init(bi, bi->protocol);
	if (dt_parse(copy, fdt_totalsize(copy), blob_pa, bi, ai)) {
		pr_warn("dt: inject=bad-dt-distance: the copy does not "
			"parse, using the original\n");
		return -EINVAL;
	}
	/* Keep the whole original blob reserved, as the first parse did. */
	for (unsigned int i = 0; i < bi->reserved.count; i++)
		if (!strncmp(bi->reserved.regions[i].name, "dtb",
			     sizeof(bi->reserved.regions[i].name)))
			bi->reserved.regions[i].end =
				pa(pa_val(blob_pa) + total);
	return 1;
}
