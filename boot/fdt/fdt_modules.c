/* SPDX-License-Identifier: MIT */
/*
 * Boot modules in /chosen, for dt_parse() (boot/fdt/fdt.c). Xen's binding
 * (docs/misc/arm/device-tree/booting.txt): a node compatible
 * "multiboot,module" (Xen 4.4's "xen,multiboot-module") with a reg is a
 * file a loader (U-Boot, GRUB's xen_module, QEMU's -device guest-loader)
 * placed in RAM: directly under /chosen (dom0's), or inside a /chosen
 * child such as a xen,domain node (each domU's kernel, ramdisk, device
 * tree). keel does not use them, but their bytes are the user's data: every
 * reg entry is reserved, named by the node's more specific compatible
 * ("module:kernel", "module:ramdisk", "module:device-tree",
 * "module:xsm-policy", else "module"), so the heap never gets it and the
 * boot scrub never zeroes it. Nodes deeper than a grandchild of /chosen
 * are not modules (as in Xen).
 *
 * reg is read with the parent's #address-cells / #size-cells, inherited
 * from the nearest ancestor that has them (dt_cells_inherited(): QEMU's
 * guest-loader writes 2+2 cells under a /chosen that has neither).
 *
 * Fail closed: every whole (address, size) entry is reserved, however odd
 * (a range that wraps: up to the top of the address space); trailing
 * bytes, an empty entry, a range outside the DT's RAM are warned about.
 * A node whose reg cannot be read at all (none, shorter than one entry,
 * unusable cell counts) is warned about as not reserved: nothing says
 * where its bytes are. RAM is checked only when the DT describes some (a
 * UEFI boot's RAM comes from the memory map, after this parser).
 */
#include "fdt_priv.h"

#include <keel/compiler.h>
#include <keel/string.h>

#include "../boot_priv.h"

static const struct {
	const char *compatible, *name;
} module_kinds[] = {
	{"multiboot,kernel", "module:kernel"},
	{"xen,linux-zimage", "module:kernel"},
	{"multiboot,ramdisk", "module:ramdisk"},
	{"xen,linux-initrd", "module:ramdisk"},
	{"multiboot,device-tree", "module:device-tree"},
	{"xen,xsm-policy", "module:xsm-policy"},
};

/**
 * dt_module_kind() - the reservation name of boot module @node.
 * Return: "module:kernel" ... "module", or NULL when @node is no module.
 */
const char *dt_module_kind(const void *fdt, int node)
{
	if (fdt_node_check_compatible(fdt, node, "multiboot,module") &&
	    fdt_node_check_compatible(fdt, node, "xen,multiboot-module"))
		return NULL;
	for (unsigned int i = 0; i < ARRAY_SIZE(module_kinds); i++)
		if (!fdt_node_check_compatible(fdt, node,
					       module_kinds[i].compatible))
			return module_kinds[i].name;
	return "module";
}

/* Does the RAM the DT listed so far hold [s, e)? 2 all, 1 part, 0 none. */
static int ram_holds(const struct bootinfo *bi, uint64_t s, uint64_t e)
{
	int part = 0;

	for (unsigned int i = 0; i < bi->ram.count; i++) {
		uint64_t rs = pa_val(bi->ram.regions[i].start),
			 re = pa_val(bi->ram.regions[i].end);

		if (rs <= s && e <= re)
			return 2;
		if (rs < e && s < re)
			part = 1;
	}
	return part;
}

/* One (address, size) entry of module @shown, reserved as @kind. */
static void module_entry(struct dt_ctx *c, const char *shown, const char *kind,
			 uint64_t s, uint64_t size)
{
	uint64_t e = s + size;
	int held;

	if (!size) {
		dt_warn(c->bi, "module %s reg entry at %#llx is empty", shown,
			U64(s));
		return;
	}
	if (e < s) {
		dt_warn(c->bi,
			"module %s reg [%#llx + %#llx] wraps, reserved to the "
			"top",
			shown, U64(s), U64(size));
		e = ~0ULL & PAGE_MASK;
	}
	held = c->bi->ram.count ? ram_holds(c->bi, s, e) : 2;
	if (held < 2)
		dt_warn(c->bi, "module %s reg [%#llx, %#llx) is %s RAM", shown,
			U64(s), U64(e), held ? "partly outside" : "outside");
	bootinfo_add_reserved(c->bi, pa(s), pa(e), kind);
}

/* Reserve every reg entry of module @node (see the top of the file). */
static void module_reserve(struct dt_ctx *c, int node, const char *kind)
{
	int parent = fdt_parent_offset(c->fdt, node);
	int ac = dt_cells_inherited(c, parent, "#address-cells", 2);
	int sc = dt_cells_inherited(c, parent, "#size-cells", 1);
	int len, entry = 4 * (ac + sc);
	const fdt32_t *reg = fdt_getprop(c->fdt, node, "reg", &len);
	char shown[DT_NAME_SHOWN];

	dt_name_shown(c->fdt, node, shown, sizeof(shown));
	if (!reg || len <= 0) {
		dt_warn(c->bi, "module %s has no reg: nothing reserved", shown);
		return;
	}
	if (ac < 1 || sc < 1 || len < entry) {
		dt_warn(c->bi,
			"module %s reg of %d bytes cannot be read with %d+%d "
			"cells: nothing reserved",
			shown, len, ac, sc);
		return;
	}
	if (len % entry)
		dt_warn(c->bi,
			"module %s reg length %d is not a multiple of %d, "
			"trailing bytes ignored",
			shown, len, entry);
	for (int off = 0; off + entry <= len; off += entry)
		module_entry(c, shown, kind, dt_read_cells(reg + off / 4, ac),
			     dt_read_cells(reg + off / 4 + ac, sc));
}

static void module_check(struct dt_ctx *c, int node)
{
	const char *kind = dt_module_kind(c->fdt, node);

	if (kind)
		module_reserve(c, node, kind);
}

/**
 * dt_parse_modules() - reserve the boot modules among the children and
 * grandchildren of /chosen (see the top of the file).
 */
void dt_parse_modules(struct dt_ctx *c)
{
	int chosen = fdt_path_offset(c->fdt, "/chosen");
	int node, sub;

	if (chosen < 0)
		return;
	fdt_for_each_subnode(node, c->fdt, chosen)
	{
		module_check(c, node);
		fdt_for_each_subnode(sub, c->fdt, node) module_check(c, sub);
	}
}
