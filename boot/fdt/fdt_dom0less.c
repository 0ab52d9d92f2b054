/* SPDX-License-Identifier: MIT */
/*
 * Xen's dom0less binding (docs/misc/arm/device-tree/booting.txt in Xen):
 * every /chosen child with compatible "xen,domain" is a domain to build at
 * boot. keel reads what its memory needs:
 *
 *   memory = <hi lo>;        64-bit size in KiB (one cell accepted too)
 *   cpus = <N>;              the vCPU count, one cell, 1..4096: reported
 *   xen,static-mem = <...>;  (address, size) pairs: the host memory the
 *                            domain is built from (Xen's static
 *                            allocation), in the parent's #address-cells
 *                            / #size-cells (Xen 4.17 on), or in the node's
 *                            #xen,static-mem-address-cells / -size-cells
 *                            when it has them (Xen 4.16)
 *   a multiboot,kernel child its name is the domain's `kernel` (the module
 *                            itself is reserved by fdt_modules.c)
 *
 * and the node's name, whole, becomes the domain's name. The other
 * properties (vpl011, passthrough, vCPU affinity nodes) are a hypervisor's
 * business and are ignored, so a user's dom0less DT works unchanged.
 *
 * Static memory is the user's: every (address, size) pair that can be read
 * is reserved as "static-mem" before anything else is looked at, so no
 * problem with the node (no memory, a bad name, a mismatch) ever hands it
 * to the heap. A problem that makes the domain unbuildable (the ranges do
 * not total `memory`, a range not page aligned or wrapping, more than
 * BOOTINFO_DOMAIN_STATIC_MAX ranges, unreadable cells) refuses it: it is
 * kept with the reason in bi_domain.refused (a failed row), one warning
 * per problem. Where each range lies (inside RAM, clear of keel and of the
 * other reservations) is checked once every reservation is known
 * (common/domain/domain_static.c).
 *
 * A bad node otherwise costs itself only: one warning naming it, skipped
 * (no or malformed memory, zero, more than 1 PiB; a name longer than
 * BOOTINFO_DOMAIN_NAME_MAX - 1 bytes, which is never cut: two nodes would
 * show as one). A bad `cpus` is warned and ignored (vcpus 0). Names are
 * escaped in every warning. More nodes than BOOTINFO_MAX_DOMAINS: one
 * warning, the rest counted in bi->dropped_domains. Reads only through
 * libfdt on a blob dt_parse() has checked (fdt_check_full), every length
 * checked before its cells are read.
 */
#include "fdt_priv.h"

#include <keel/compiler.h>
#include <keel/string.h>

#include "../boot_priv.h"

#define DOM0LESS_BYTES_MAX (1ull << 50)

/* The node being read, its name and the name as warnings show it. */
struct dnode {
	int node, name_len;
	const char *name;
	char shown[DT_NAME_SHOWN];
};

/* `memory` of @n in bytes; 0 (warned) when unusable. */
static uint64_t dom0less_memory(struct dt_ctx *c, const struct dnode *n)
{
	int len;
	const fdt32_t *p = fdt_getprop(c->fdt, n->node, "memory", &len);
	uint64_t kib;

	if (!p) {
		dt_warn(c->bi, "dom0less %s has no memory property, skipped",
			n->shown);
		return 0;
	}
	if (len != 4 && len != 8) {
		dt_warn(c->bi,
			"dom0less %s/memory has length %d, expected 8, skipped",
			n->shown, len);
		return 0;
	}
	kib = dt_read_cells(p, len / 4);
	if (!kib || kib > DOM0LESS_BYTES_MAX >> 10) {
		dt_warn(c->bi, "dom0less %s/memory = %llu KiB is %s, skipped",
			n->shown, U64(kib), kib ? "over 1 PiB" : "zero");
		return 0;
	}
	return kib << 10;
}

/* `cpus` of @n: 1..BOOTINFO_DOMAIN_VCPUS_MAX, else 0 (warned if given). */
static uint32_t dom0less_vcpus(struct dt_ctx *c, const struct dnode *n)
{
	int len;
	const fdt32_t *p = fdt_getprop(c->fdt, n->node, "cpus", &len);
	uint32_t v;

	if (!p)
		return 0;
	if (len != 4) {
		dt_warn(c->bi,
			"dom0less %s/cpus has length %d, expected one cell "
			"(4), "
			"ignored",
			n->shown, len);
		return 0;
	}
	v = fdt32_to_cpu(*p);
	if (!v || v > BOOTINFO_DOMAIN_VCPUS_MAX) {
		dt_warn(c->bi, "dom0less %s/cpus = %u is %s, ignored", n->shown,
			v,
			v ? "more than 4096 vCPUs"
			  : "zero (a domain needs a vCPU)");
		return 0;
	}
	return v;
}

/* The first multiboot,kernel child of @n into d->kernel. */
static void dom0less_kernel(struct dt_ctx *c, const struct dnode *n,
			    struct bi_domain *d)
{
	char shown[DT_NAME_SHOWN];
	const char *kind, *name;
	int sub, len;

	fdt_for_each_subnode(sub, c->fdt, n->node)
	{
		kind = dt_module_kind(c->fdt, sub);
		if (!kind || strcmp(kind, "module:kernel"))
			continue;
		name = fdt_get_name(c->fdt, sub, &len);
		dt_name_shown(c->fdt, sub, shown, sizeof(shown));
		if (d->kernel[0] || !name || len < 0 ||
		    (size_t)len >= sizeof(d->kernel)) {
			dt_warn(c->bi,
				"dom0less %s: kernel module %s not reported "
				"(%s; it is reserved)",
				n->shown, shown,
				d->kernel[0] ? "a second kernel"
					     : "name too "
					       "long");
			continue;
		}
		memcpy(d->kernel, name, (size_t)len);
		d->kernel[len] = '\0';
	}
}

/* Refuse @d for @why (the first reason is kept), one warning. */
static void dom0less_refuse(struct dt_ctx *c, const struct dnode *n,
			    struct bi_domain *d, const char *why)
{
	dt_warn(c->bi, "dom0less %s: %s: domain refused", n->shown, why);
	if (!d->refused[0])
		strlcpy(d->refused, why, sizeof(d->refused));
}

/* The cells of @n's xen,static-mem (see the top). Return: false if none. */
static bool static_cells(struct dt_ctx *c, const struct dnode *n, int *ac,
			 int *sc)
{
	if (fdt_getprop(c->fdt, n->node, "#xen,static-mem-address-cells",
			NULL) ||
	    fdt_getprop(c->fdt, n->node, "#xen,static-mem-size-cells", NULL)) {
		/* Both are needed: a missing one reads as 0 (unusable). */
		*ac = dt_cells(c, n->node, "#xen,static-mem-address-cells", 0,
			       false);
		*sc = dt_cells(c, n->node, "#xen,static-mem-size-cells", 0,
			       false);
	} else {
		int parent = fdt_parent_offset(c->fdt, n->node);

		*ac = dt_cells_inherited(c, parent, "#address-cells", 2);
		*sc = dt_cells_inherited(c, parent, "#size-cells", 1);
	}
	return *ac >= 1 && *sc >= 1;
}

/* One xen,static-mem pair of @n: reserved, and kept in @d. */
static void static_range(struct dt_ctx *c, const struct dnode *n,
			 struct bi_domain *d, uint64_t s, uint64_t size,
			 uint64_t *total)
{
	uint64_t e = s + size;
	char why[BOOTINFO_REFUSED_MAX];

	if (!size) {
		dt_warn(c->bi,
			"dom0less %s/xen,static-mem entry at %#llx is "
			"empty, ignored",
			n->shown, U64(s));
		return;
	}
	if (e < s) {
		e = ~0ULL & PAGE_MASK;
		snprintf(why, sizeof(why),
			 "xen,static-mem [%#llx + %#llx] wraps", U64(s),
			 U64(size));
		dom0less_refuse(c, n, d, why);
	} else if ((s | size) & (PAGE_SIZE - 1)) {
		snprintf(why, sizeof(why),
			 "xen,static-mem [%#llx, %#llx) is not page aligned",
			 U64(s), U64(e));
		dom0less_refuse(c, n, d, why);
	}
	*total = *total + size < *total ? ~0ULL : *total + size;
	if (e <= s) /* wrapped from the last page: nothing to reserve */
		return;
	bootinfo_add_reserved(c->bi, pa(s), pa(e), "static-mem");
	if (d->static_count == BOOTINFO_DOMAIN_STATIC_MAX) {
		snprintf(why, sizeof(why),
			 "xen,static-mem has more than %u ranges (all are "
			 "reserved)",
			 BOOTINFO_DOMAIN_STATIC_MAX);
		dom0less_refuse(c, n, d, why);
		return;
	}
	d->static_mem[d->static_count++] =
		(struct region){.start = pa(s), .end = pa(e)};
}

/*
 * xen,static-mem of @n: every readable pair reserved ("static-mem") and
 * kept in @d. Return: the bytes the pairs total (0 without the property).
 */
static uint64_t dom0less_static(struct dt_ctx *c, const struct dnode *n,
				struct bi_domain *d)
{
	int len, ac, sc, entry;
	const fdt32_t *p = fdt_getprop(c->fdt, n->node, "xen,static-mem", &len);
	char why[BOOTINFO_REFUSED_MAX];
	uint64_t total = 0;

	if (!p)
		return 0;
	d->is_static = true;
	if (!static_cells(c, n, &ac, &sc)) {
		dt_warn(c->bi,
			"dom0less %s/xen,static-mem cannot be read (unusable "
			"cells): NOT reserved",
			n->shown);
		dom0less_refuse(c, n, d, "xen,static-mem cells unusable");
		return 0;
	}
	entry = 4 * (ac + sc);
	if (len < entry || len % entry) {
		snprintf(why, sizeof(why),
			 "xen,static-mem length %d is not a multiple of %d",
			 len, entry);
		dom0less_refuse(c, n, d, why);
	}
	for (int off = 0; off + entry <= len; off += entry)
		static_range(c, n, d, dt_read_cells(p + off / 4, ac),
			     dt_read_cells(p + off / 4 + ac, sc), &total);
	if (!d->static_count)
		dom0less_refuse(c, n, d, "xen,static-mem holds no range");
	return total;
}

/* The static total must be `memory`: Xen mixes no heap memory in. */
static void static_total(struct dt_ctx *c, const struct dnode *n,
			 struct bi_domain *d, uint64_t total)
{
	char why[BOOTINFO_REFUSED_MAX];

	if (!d->is_static || d->refused[0] || total == d->bytes)
		return;
	snprintf(why, sizeof(why),
		 "xen,static-mem totals %llu KiB, memory is %llu KiB",
		 U64(total >> 10), U64(d->bytes >> 10));
	dom0less_refuse(c, n, d, why);
}

static void dom0less_add(struct dt_ctx *c, int node)
{
	static struct dnode n; /* off small boot stacks */
	struct bootinfo *bi = c->bi;
	struct bi_domain d = {0};
	uint64_t total;

	n.node = node;
	n.name = fdt_get_name(c->fdt, node, &n.name_len);
	dt_name_shown(c->fdt, node, n.shown, sizeof(n.shown));
	total = dom0less_static(c, &n, &d);
	d.bytes = dom0less_memory(c, &n);
	if (!d.bytes)
		return;
	if (!n.name || n.name_len < 0 || (size_t)n.name_len >= sizeof(d.name)) {
		dt_warn(bi,
			"dom0less node name %s of %d bytes is longer than %u: "
			"skipped",
			n.shown, n.name_len, BOOTINFO_DOMAIN_NAME_MAX - 1);
		return;
	}
	memcpy(d.name, n.name, (size_t)n.name_len);
	d.vcpus = dom0less_vcpus(c, &n);
	dom0less_kernel(c, &n, &d);
	static_total(c, &n, &d, total);
	if (bi->domain_count >= BOOTINFO_MAX_DOMAINS) {
		if (!bi->dropped_domains++)
			dt_warn(bi,
				"more than %u dom0less domains: %s and "
				"later ones dropped (counted)",
				BOOTINFO_MAX_DOMAINS, n.shown);
		return;
	}
	bi->domains[bi->domain_count++] = d;
}

/**
 * dt_parse_dom0less() - the xen,domain children of /chosen into
 * bi->domains, in DT order.
 */
void dt_parse_dom0less(struct dt_ctx *c)
{
	int chosen = fdt_path_offset(c->fdt, "/chosen");
	int node;

	if (chosen < 0)
		return;
	fdt_for_each_subnode(node, c->fdt, chosen)
	{
		if (fdt_node_check_compatible(c->fdt, node, "xen,domain"))
			continue;
		dom0less_add(c, node);
	}
}
