/* SPDX-License-Identifier: MIT */
/*
 * A live update's device tree (docs/liveupdate.md): the DTB this image
 * was entered with, copied and grown by one property,
 *
 *   /chosen/keel,handover = <addr-hi addr-lo size-hi size-lo>;
 *
 * which tells the new image where its handover lies (boot/fdt/fdt_chosen.c
 * reads it). Everything else stays as the firmware wrote it: memory,
 * CPUs, /chosen's bootargs and initrd. A property left by an earlier
 * update is replaced, not repeated. Writes only the copy.
 */
#include "fdt_priv.h"

#include <keel/errno.h>
#include <keel/handover.h>

#define PROP "keel,handover"

static void cells(fdt32_t c[4], uint64_t pa, uint64_t size)
{
	c[0] = cpu_to_fdt32((uint32_t)(pa >> 32));
	c[1] = cpu_to_fdt32((uint32_t)pa);
	c[2] = cpu_to_fdt32((uint32_t)(size >> 32));
	c[3] = cpu_to_fdt32((uint32_t)size);
}

/**
 * dt_handover_copy() - the DTB at @dtb (at most @max bytes readable)
 * into [@out, @out + @out_len), with /chosen/keel,handover = <@pa @size>.
 * Return: 0, or -EINVAL (not a DTB, no room).
 */
int dt_handover_copy(const void *dtb, size_t max, void *out, size_t out_len,
		     uint64_t pa, uint64_t size)
{
	fdt32_t c[4];
	int node;

	if (max < sizeof(struct fdt_header) || fdt_check_header(dtb) ||
	    fdt_totalsize(dtb) > max || fdt_open_into(dtb, out, (int)out_len))
		return -EINVAL;
	node = fdt_path_offset(out, "/chosen");
	if (node < 0)
		node = fdt_add_subnode(out, 0, "chosen");
	cells(c, pa, size);
	if (node < 0 || fdt_setprop(out, node, PROP, c, sizeof(c)))
		return -EINVAL;
	return 0;
}

/**
 * dt_handover_set() - the property of a dt_handover_copy() copy set to
 * <@pa @size> in place (same length: cannot fail on a good copy).
 * Return: 0 or -EINVAL.
 */
int dt_handover_set(void *out, uint64_t pa, uint64_t size)
{
	int node = fdt_path_offset(out, "/chosen");
	fdt32_t c[4];

	cells(c, pa, size);
	if (node < 0 || fdt_setprop_inplace(out, node, PROP, c, sizeof(c)))
		return -EINVAL;
	return 0;
}
