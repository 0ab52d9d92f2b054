/* SPDX-License-Identifier: MIT */
/*
 * Device tree NUMA for dt_parse() (boot/fdt/fdt.c): the numa-distance-map-v1
 * distance-matrix triplets (another /distance-map: one warning, default
 * distances), then the firmware numa-node-ids through the node map into
 * keel node ids, folding extra nodes by distance, and the distances
 * between kept nodes (include/keel/bootinfo.h, "Node distances").
 */
#include "fdt_priv.h"

#include <keel/compiler.h>
#include <keel/errno.h>
#include <keel/string.h>

#include "../boot_priv.h"

/* Triplet @i of the distance-matrix. */
static void dt_triplet(const struct dt_ctx *c, unsigned int i, uint32_t *a,
		       uint32_t *b, uint32_t *v)
{
	*a = fdt32_to_cpu(c->dist[3 * i]);
	*b = fdt32_to_cpu(c->dist[3 * i + 1]);
	*v = fdt32_to_cpu(c->dist[3 * i + 2]);
}

/*
 * A /distance-map that is not numa-distance-map-v1: ignored, as Linux does,
 * but said, so default distances are not taken for the firmware's. Early
 * arm64 NUMA device trees (Cavium's two-socket ThunderX) named the binding
 * numa,distance-map-v1.
 */
static void parse_distance_map_other(struct dt_ctx *c)
{
	int node = fdt_subnode_offset(c->fdt, 0, "distance-map");
	const char *compat;

	if (node < 0 || !fdt_getprop(c->fdt, node, "distance-matrix", NULL))
		return;
	compat = dt_prop_str(c->fdt, node, "compatible", NULL);
	if (compat)
		dt_warn(c->bi,
			"distance-map is \"%s\", not numa-distance-map-v1: "
			"ignored, using default distances",
			compat);
	else
		dt_warn(c->bi, "distance-map has no compatible: ignored, "
			       "using default distances");
}

/*
 * Check the distance-matrix triplets (structure and the values ACPI
 * forbids) and keep them for dt_nodes_finish(); ids are firmware ids.
 */
void dt_parse_distances(struct dt_ctx *c)
{
	static const char prop[] = "distance-matrix";
	int node = fdt_node_offset_by_compatible(c->fdt, -1,
						 "numa-distance-map-v1");
	unsigned int bad = 0, first = 0;
	uint32_t a, b, v;
	int len;

	if (node < 0) {
		parse_distance_map_other(c);
		return;
	}
	c->dist = fdt_getprop(c->fdt, node, prop, &len);
	if (!c->dist) {
		dt_warn(c->bi, "distance-map has no %s, using defaults", prop);
		return;
	}
	if (len % 12)
		dt_warn(c->bi,
			"%s length %d is not a multiple of 12, trailing bytes "
			"ignored",
			prop, len);
	c->dist_count = (unsigned int)len / 12;
	for (unsigned int i = 0; i < c->dist_count; i++) {
		dt_triplet(c, i, &a, &b, &v);
		if (bootinfo_distance_problem(a, b, v) && !bad++)
			first = i;
	}
	if (!bad)
		return;
	dt_triplet(c, first, &a, &b, &v);
	if (bad > 1) {
		dt_warn(c->bi,
			"%s entry %u %u = %u: %s (%u bad entries), using "
			"defaults",
			prop, a, b, v, bootinfo_distance_problem(a, b, v), bad);
		c->dist = NULL;
		c->dist_count = 0;
		return;
	}
	dt_warn(c->bi, "%s entry %u %u = %u: %s, entry skipped", prop, a, b, v,
		bootinfo_distance_problem(a, b, v));
	c->dist_skip = (int)first;
}

/* Firmware distance @fa -> @fb (the reverse when only that is given). */
static unsigned int dt_distance(const void *ctx, uint32_t fa, uint32_t fb)
{
	const struct dt_ctx *c = ctx;
	unsigned int d = 0, rev = 0;
	uint32_t a, b, v;

	for (unsigned int i = 0; i < c->dist_count; i++) {
		if ((int)i == c->dist_skip)
			continue;
		dt_triplet(c, i, &a, &b, &v);
		if (a == fa && b == fb)
			d = v;
		else if (a == fb && b == fa)
			rev = v;
	}
	return d ? d : rev;
}

/*
 * Keel node ids for the RAM and CPUs this parse added (from @ram0 /
 * @cpu0 on), folding extra nodes by the distance-matrix, then the
 * distances between kept nodes (one-direction entries mirrored until the
 * other direction comes).
 */
void dt_nodes_finish(struct dt_ctx *c, unsigned int ram0, unsigned int cpu0)
{
	struct bootinfo *bi = c->bi;
	unsigned int folded, unknown = 0;
	uint32_t a, b, v, ua = 0, ub = 0;

	folded = nodemap_finalise(c->nodes, c->dist ? dt_distance : NULL, c);
	if (folded) {
		bi->fixups++;
		bi->dropped_nodes += folded;
	}
	nodemap_export_fw_ids(c->nodes, bi);
	for (unsigned int i = ram0; i < bi->ram.count; i++)
		bi->ram.regions[i].node =
			nodemap_node(c->nodes, bi->ram.regions[i].node);
	for (unsigned int i = cpu0; i < bi->cpu_count; i++)
		bi->cpus[i].node = nodemap_node(c->nodes, bi->cpus[i].node);
	for (unsigned int i = 0; i < c->dist_count; i++) {
		uint32_t na, nb;

		if ((int)i == c->dist_skip)
			continue;
		dt_triplet(c, i, &a, &b, &v);
		if (!nodemap_has(c->nodes, a) || !nodemap_has(c->nodes, b)) {
			if (!unknown++) {
				ua = a;
				ub = b;
			}
			continue;
		}
		/* A folded node's distances go: its kept node's stand. */
		if (!nodemap_kept(c->nodes, a) || !nodemap_kept(c->nodes, b))
			continue;
		na = nodemap_node(c->nodes, a);
		nb = nodemap_node(c->nodes, b);
		bootinfo_set_distance(bi, na, nb, (uint8_t)v);
		if (!bi->distance[nb][na])
			bootinfo_set_distance(bi, nb, na, (uint8_t)v);
	}
	if (unknown)
		dt_warn(bi,
			"distance-matrix entry %u %u names node %u, which has "
			"no memory and no CPU: ignored (%u such entries)",
			ua, ub, nodemap_has(c->nodes, ua) ? ub : ua, unknown);
}
