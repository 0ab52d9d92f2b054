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
 * dt_used_bytes() - what a copy of the DTB at @dtb (at most @max bytes
 * readable) needs before it grows: its header and blocks, not the free
 * space its writer left at the end. QEMU's virt DTB says 1 MiB and holds
 * about 8 KiB: the copy a live update makes had to be one free block of 1
 * MiB, which a machine with a page bad in every 128 KiB does not have.
 * Return: the bytes (at most its totalsize), or 0 when it is not a DTB.
 */
size_t dt_used_bytes(const void *dtb, size_t max)
{
	uint64_t end;

	if (max < sizeof(struct fdt_header) || fdt_check_header(dtb) ||
	    fdt_totalsize(dtb) > max)
		return 0;
	if (fdt_version(dtb) < 17) /* no size of the structure block */
		return fdt_totalsize(dtb);
	end = MAX((uint64_t)fdt_off_dt_struct(dtb) + fdt_size_dt_struct(dtb),
		  (uint64_t)fdt_off_dt_strings(dtb) + fdt_size_dt_strings(dtb));
	/* The reservation map ends where its all-zero entry does. */
	end = MAX(end, (uint64_t)fdt_off_mem_rsvmap(dtb) +
			       (uint64_t)(fdt_num_mem_rsv(dtb) + 1) *
				       sizeof(struct fdt_reserve_entry));
	return (size_t)MIN(end, (uint64_t)fdt_totalsize(dtb));
}

/**
 * dt_handover_copy() - the DTB at @dtb (at most @max bytes readable)
 * into [@out, @out + @out_len), with /chosen/keel,handover = <@pa @size>.
 * Return: 0, or -EINVAL (not a DTB, no room).
 */
int dt_handover_copy(const void *dtb, size_t max, void *out, size_t out_len,
		     uint64_t pa, uint64_t size)
{
	size_t used = dt_used_bytes(dtb, max);
	fdt32_t c[4];
	int node;

	/*
	 * Its blocks only (fdt_open_into() would copy all of totalsize, and
	 * ask @out_len for it), then opened in place to @out_len. @dtb is
	 * one dt_parse() took: libfdt's writers loop forever on some
	 * structure blocks its header check lets through (fdt_fuzz).
	 */
	if (!used || used > out_len || out_len > INT32_MAX)
		return -EINVAL;
	memcpy(out, dtb, used);
	fdt_set_totalsize(out, (uint32_t)used);
	if (fdt_open_into(out, out, (int)out_len))
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
