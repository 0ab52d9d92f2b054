/* SPDX-License-Identifier: MIT */
/*
 * Device Tree -> struct bootinfo, through libfdt (Debian's libfdt-dev: the
 * host build for tests and fuzzing, the arm64 libfdt.a for the kernel).
 *
 * What it owns: the interpretation of the DT nodes keel cares about:
 *   /memory*            reg (root #address-cells/#size-cells), numa-node-id
 *   /reserved-memory children: reg (its own cells); "size"-only nodes are
 *                       for the OS to allocate and are skipped
 *   memreserve block    each entry reserved as "memreserve"
 *   /chosen             bootargs, linux,initrd-start/-end, stdout-path
 *   /cpus/cpu@*         reg = MPIDR, numa-node-id, enable-method, status
 *   /cpus/cpu-map       socketN/clusterN/coreN/threadN -> package, core,
 *                       thread of each CPU (MPIDR affinity without it)
 *   /psci               method (hvc/smc), compatible (0.1 ids vs 0.2+)
 *   numa-distance-map-v1  distance-matrix triplets (a /distance-map of
 *                       another compatible: one warning, defaults)
 * numa-node-id values are firmware ids: they go through a node map
 * (include/keel/nodemap.h) once every id and distance is known, so more
 * than MAX_NUMNODES nodes fold into their nearest kept node like ACPI
 * proximity domains do. Distances follow include/keel/bootinfo.h ("Node
 * distances"): asymmetric and 255 kept, one bad triplet skipped, more
 * drop the whole map.
 *   arm,armv8-timer     clock-frequency (override of CNTFRQ_EL0)
 * The blob itself is reserved as "dtb" and the initrd as "initrd"; the
 * boot modules under /chosen (fdt_modules.c) as "module:<kind>".
 *
 * The room boot/fdt/, one private header (fdt_priv.h), calls going one
 * way: this file (the blob checks, dt_parse() and the quiet lookups
 * before it) calls one parser per node family: fdt_mem.c (/memory,
 * /reserved-memory, memreserve), fdt_chosen.c (/chosen, /psci, the timer,
 * the GIC), fdt_modules.c (the multiboot,module nodes of /chosen),
 * fdt_dom0less.c (xen,domain nodes), fdt_cpus.c (/cpus, cpu-map, MPIDR
 * topology), fdt_numa.c (the distance map, node ids); they call the
 * property readers of fdt_props.c, which call nothing of the room. Above
 * dt_parse(): fdt_inject.c (inject=bad-dt-distance) and acpi_dt.c (the
 * seam between a UEFI boot's ACPI tables and a device tree).
 *
 * Invariants: nothing outside [blob, blob + len) is read. The whole
 * structure is validated once with fdt_check_full() before any lookup,
 * and every property length is checked before its cells are read. Each
 * problem is one pr_warn() naming the field and the value, bi->fixups++
 * and a safe fallback (node 0, boot CPU only, default distances, ...).
 * Pure: no hardware, no allocation; the only global is the node map's
 * table (a few KiB, kept off small boot stacks); safe to fuzz.
 */

#include "fdt_priv.h"

#include <keel/compiler.h>
#include <keel/errno.h>
#include <keel/string.h>

#include "../boot_priv.h"

/* --- entry ------------------------------------------------------------- */

static uint32_t be32_at(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

/*
 * The structure block walked as libfdt walks it, in 64-bit arithmetic,
 * before fdt_check_full() sees it: Debian's libfdt 1.6.1 adds a property's
 * length to an int offset, so a length like 0xfffffff4 sends the offset
 * backwards and fdt_check_full() loops for ever (found by dom0less_fuzz).
 * Every tag must move forward inside the block and the block must end
 * with FDT_END. @total is the blob's checked totalsize.
 * Return: true when the walk is sane.
 */
static bool dt_struct_sane(const void *blob, uint32_t total)
{
	const uint8_t *b = blob;
	uint64_t o = fdt_off_dt_struct(blob), end = total;

	if (fdt_version(blob) >= 17)
		end = o + (uint64_t)fdt_size_dt_struct(blob);
	if (o > end || end > total)
		return false;
	while (o + FDT_TAGSIZE <= end) {
		uint32_t tag = be32_at(b + o), plen;
		const uint8_t *nul;

		o += FDT_TAGSIZE;
		switch (tag) {
		case FDT_BEGIN_NODE:
			nul = memchr(b + o, 0, (size_t)(end - o));
			if (!nul)
				return false;
			o = ALIGN_UP((uint64_t)(nul - b) + 1, FDT_TAGSIZE);
			break;
		case FDT_PROP:
			if (o + 8 > end)
				return false;
			plen = be32_at(b + o);
			o += 8;
			if (plen > end - o)
				return false;
			o = ALIGN_UP(o + plen, FDT_TAGSIZE);
			break;
		case FDT_END_NODE:
		case FDT_NOP:
			break;
		case FDT_END:
			return true;
		default:
			return false;
		}
	}
	return false;
}

/* The one structure check of a blob: ours first, then libfdt's. */
static int dt_blob_check(const void *blob, uint32_t total)
{
	if (!dt_struct_sane(blob, total))
		return -FDT_ERR_BADSTRUCTURE;
	return fdt_check_full(blob, total);
}

/*
 * The checks of a blob before any lookup, each failure one counted
 * warning. Return: its totalsize, or 0 when it is unusable.
 */
static uint32_t dt_blob_open(const void *blob, size_t len, struct bootinfo *bi)
{
	uint32_t total;
	int err;

	if (!blob || len < sizeof(struct fdt_header)) {
		dt_warn(bi, "blob of %zu bytes is smaller than a header", len);
		return 0;
	}
	if (fdt_magic(blob) != FDT_MAGIC) {
		dt_warn(bi, "bad magic %#x", fdt_magic(blob));
		return 0;
	}
	/*
	 * Pre-v16 blobs (full paths as node names) crash Debian's libfdt
	 * 1.6.1 fdt_check_full() with a NULL read (found by fdt_fuzz); no
	 * firmware or QEMU still produces them.
	 */
	if (fdt_version(blob) < 16) {
		dt_warn(bi, "version %u < 16 not supported", fdt_version(blob));
		return 0;
	}
	total = fdt_totalsize(blob);
	if (total > len) {
		dt_warn(bi, "totalsize %u exceeds the %zu bytes available",
			total, len);
		return 0;
	}
	err = dt_blob_check(blob, total);
	if (err) {
		dt_warn(bi, "malformed blob (%s)", fdt_strerror(err));
		return 0;
	}
	return total;
}

/**
 * dt_parse() - fill @bi and @ai from the DT at @blob (see include/keel/fdt.h).
 * @blob: the flattened DT.
 * @len: readable bytes at @blob.
 * @blob_pa: physical address of @blob (for the "dtb" reservation).
 * @bi: bootinfo_init()ed by the caller.
 * @ai: filled (zeroed first).
 * Return: 0, or -EINVAL when the blob is unusable.
 */
int dt_parse(const void *blob, size_t len, paddr_t blob_pa, struct bootinfo *bi,
	     struct dt_arch_info *ai)
{
	static struct nodemap nodes;
	struct dt_ctx c = {.fdt = blob,
			   .bi = bi,
			   .ai = ai,
			   .nodes = &nodes,
			   .dist_skip = -1};
	unsigned int ram0 = bi->ram.count, cpu0 = bi->cpu_count;
	uint32_t total;
	int ac, sc;

	memset(ai, 0, sizeof(ai[0]));
	nodemap_init(&nodes, "dt");
	total = dt_blob_open(blob, len, bi);
	if (!total)
		return -EINVAL;
	ai->totalsize = total;
	bootinfo_add_reserved(bi, blob_pa, pa_add(blob_pa, total), "dtb");

	if (!fdt_node_check_compatible(blob, 0, "linux,dummy-virt")) {
		ai->qemu_virt = true;
		strlcpy(bi->loader, "qemu", sizeof(bi->loader));
	}
	ac = dt_cells(&c, 0, "#address-cells", 2, true);
	sc = dt_cells(&c, 0, "#size-cells", 1, true);
	if (ac >= 0 && sc >= 0) {
		dt_parse_memory(&c, ac, sc);
		dt_parse_reserved(&c, ac, sc);
	}
	dt_parse_chosen(&c);
	dt_parse_modules(&c);
	dt_parse_cpus(&c);
	dt_parse_psci(&c);
	dt_parse_timer(&c);
	dt_parse_gic(&c);
	dt_parse_distances(&c);
	dt_parse_dom0less(&c);
	dt_nodes_finish(&c, ram0, cpu0);
	if (!bi->ram.count)
		dt_warn(bi, "no usable /memory node");
	return 0;
}

/**
 * dt_parse_loader() - what a loader says in the DT at @blob whatever
 * describes the hardware (see include/keel/fdt.h): the blob reserved as
 * "dtb", /chosen's command line, initrd, keel,handover and boot modules.
 * @blob: the flattened DT.
 * @len: readable bytes at @blob.
 * @blob_pa: physical address of @blob.
 * @bi: bootinfo_init()ed by the caller.
 * @ai: out: the initrd (and, unused, stdout-path); zeroed first.
 * Return: 0, or -EINVAL when the blob is unusable.
 */
int dt_parse_loader(const void *blob, size_t len, paddr_t blob_pa,
		    struct bootinfo *bi, struct dt_arch_info *ai)
{
	/* No node ids are read: no node map. */
	struct dt_ctx c = {.fdt = blob, .bi = bi, .ai = ai, .dist_skip = -1};
	uint32_t total;

	memset(ai, 0, sizeof(ai[0]));
	total = dt_blob_open(blob, len, bi);
	if (!total)
		return -EINVAL;
	ai->totalsize = total;
	bootinfo_add_reserved(bi, blob_pa, pa_add(blob_pa, total), "dtb");
	dt_parse_chosen(&c);
	dt_parse_modules(&c);
	return 0;
}

/* The checks of dt_parse(), quiet: for the lookups before it. */
bool dt_blob_usable(const void *blob, size_t len)
{
	return blob && len >= sizeof(struct fdt_header) &&
	       fdt_magic(blob) == FDT_MAGIC && fdt_totalsize(blob) <= len &&
	       fdt_version(blob) >= 16 && /* see dt_parse() */
	       !dt_blob_check(blob, fdt_totalsize(blob));
}

/**
 * dt_has_cpus() - quiet check: does the blob describe at least one CPU
 * (a /cpus child with device_type "cpu")? GRUB installs a DT holding only
 * /chosen when the firmware gave ACPI alone; such a DT must not win.
 * @blob: the flattened DT.
 * @len: readable bytes at @blob.
 *
 * Return: true when a CPU node exists; false for a bad or CPU-less blob.
 */
bool dt_has_cpus(const void *blob, size_t len)
{
	int cpus, node, plen;

	if (!dt_blob_usable(blob, len))
		return false;
	cpus = fdt_path_offset(blob, "/cpus");
	if (cpus < 0)
		return false;
	fdt_for_each_subnode(node, blob, cpus)
	{
		const char *t = fdt_getprop(blob, node, "device_type", &plen);

		if (t && plen == 4 && !memcmp(t, "cpu", 4))
			return true;
	}
	return false;
}

/**
 * dt_read_cmdline() - a DT boot's command line, before dt_parse(), so that
 * the options are parsed before the tables are read: /chosen/bootargs
 * into @bi->cmdline unless it holds a line already (dt_parse() then keeps
 * it). Quiet when the blob is unusable: dt_parse() will say why.
 * @blob: the flattened DT.
 * @len: readable bytes at @blob.
 * @bi: the bootinfo the DT will be parsed into.
 *
 * Return: true when bootargs were copied.
 */
bool dt_read_cmdline(const void *blob, size_t len, struct bootinfo *bi)
{
	return dt_blob_usable(blob, len) && dt_copy_bootargs(blob, bi);
}
