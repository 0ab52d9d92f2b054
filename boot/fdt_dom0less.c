/* SPDX-License-Identifier: MIT */
/*
 * Xen's dom0less binding (docs/misc/arm/device-tree/booting.txt in Xen):
 * every /chosen child with compatible "xen,domain" is a domain to build at
 * boot. keel reads what its memory needs:
 *
 *   memory = <hi lo>;  64-bit size in KiB (one cell accepted too)
 *   cpus = <N>;        vCPUs, reported only
 *
 * and the node's name becomes the domain's name. The other properties
 * (kernel modules, vpl011, passthrough) are a hypervisor's business and are
 * ignored, so a user's dom0less DT works unchanged.
 *
 * A bad node (no or malformed memory, zero, more than 1 PiB) costs itself
 * only: one warning naming it, skipped. More nodes than
 * BOOTINFO_MAX_DOMAINS: one warning, the rest counted in
 * bi->dropped_domains. Reads only through libfdt on a blob dt_parse() has
 * checked (fdt_check_full), so nothing is read out of bounds.
 */
#include "fdt_priv.h"

#include <keel/string.h>

#define DOM0LESS_BYTES_MAX (1ull << 50)

/* `memory` of @node in bytes; 0 (warned) when unusable. */
static uint64_t dom0less_memory(struct dt_ctx *c, int node, const char *name)
{
	int len;
	const fdt32_t *p = fdt_getprop(c->fdt, node, "memory", &len);
	uint64_t kib;

	if (!p) {
		dt_warn(c->bi, "dom0less %s has no memory property, skipped",
			name);
		return 0;
	}
	if (len != 4 && len != 8) {
		dt_warn(c->bi,
			"dom0less %s/memory has length %d, expected 8, skipped",
			name, len);
		return 0;
	}
	kib = dt_read_cells(p, len / 4);
	if (!kib || kib > DOM0LESS_BYTES_MAX >> 10) {
		dt_warn(c->bi, "dom0less %s/memory = %llu KiB is %s, skipped",
			name, (unsigned long long)kib,
			kib ? "over 1 PiB" : "zero");
		return 0;
	}
	return kib << 10;
}

static void dom0less_add(struct dt_ctx *c, int node)
{
	struct bootinfo *bi = c->bi;
	const char *name = dt_node_name(c->fdt, node);
	uint64_t bytes = dom0less_memory(c, node, name);
	struct bi_domain *d;
	uint32_t cpus = 0;

	if (!bytes)
		return;
	if (fdt_getprop(c->fdt, node, "cpus", NULL) &&
	    !dt_prop_u32(c, node, "cpus", &cpus))
		cpus = 0;
	if (bi->domain_count >= BOOTINFO_MAX_DOMAINS) {
		if (!bi->dropped_domains++)
			dt_warn(bi,
				"more than %u dom0less domains: %s and "
				"later ones dropped (counted)",
				BOOTINFO_MAX_DOMAINS, name);
		return;
	}
	d = &bi->domains[bi->domain_count++];
	d->bytes = bytes;
	d->cpus = cpus;
	strlcpy(d->name, name, sizeof(d->name));
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
