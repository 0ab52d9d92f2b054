/* SPDX-License-Identifier: MIT */
/*
 * Device tree RAM and reservations for dt_parse() (boot/fdt/fdt.c): /memory*
 * nodes (reg in the root's cells, numa-node-id), /reserved-memory
 * children (reg in its own cells; "size"-only nodes are the OS's to
 * allocate and skipped) and the memreserve block, each entry reserved as
 * "memreserve".
 */
#include "fdt_priv.h"

#include <keel/compiler.h>
#include <keel/errno.h>
#include <keel/string.h>

#include "../boot_priv.h"

#define DT_MAX_MEMRSV 64

/* --- memory ---------------------------------------------------------- */

static bool is_memory_node(const void *fdt, int node)
{
	const char *t = dt_prop_str(fdt, node, "device_type", NULL);
	const char *n = dt_node_name(fdt, node);

	if (t)
		return !strcmp(t, "memory");
	return !strncmp(n, "memory", 6) && (n[6] == '\0' || n[6] == '@');
}

static void add_ram(struct dt_ctx *c, int node, uint64_t s, uint64_t e,
		    void *arg)
{
	(void)node;
	bootinfo_add_ram(c->bi, pa(s), pa(e), *(uint32_t *)arg);
}

void dt_parse_memory(struct dt_ctx *c, int ac, int sc)
{
	int node;
	uint32_t id;

	fdt_for_each_subnode(node, c->fdt, 0)
	{
		if (is_memory_node(c->fdt, node) &&
		    dt_node_enabled(c->fdt, node) &&
		    fdt_getprop(c->fdt, node, "numa-node-id", NULL))
			c->any_mem_node_id = true;
	}
	fdt_for_each_subnode(node, c->fdt, 0)
	{
		if (!is_memory_node(c->fdt, node) ||
		    !dt_node_enabled(c->fdt, node))
			continue;
		if (!dt_node_id(c, node, &id)) {
			if (c->any_mem_node_id)
				dt_warn(c->bi,
					"%s has no numa-node-id while other "
					"memory has, using node 0",
					dt_node_name(c->fdt, node));
			id = 0;
			nodemap_add(c->nodes, id);
		}
		dt_for_each_reg(c, node, ac, sc, add_ram, &id);
	}
}

/* --- reserved memory -------------------------------------------------- */

static void add_reserved(struct dt_ctx *c, int node, uint64_t s, uint64_t e,
			 void *arg)
{
	char name[BOOTINFO_NAME_MAX];
	const char *n = arg ? (const char *)arg : dt_node_name(c->fdt, node);

	strlcpy(name, n, sizeof(name));
	bootinfo_add_reserved(c->bi, pa(s), pa(e), name);
}

/* A no-map child: reserved, and kept for the arch never to map. */
static void add_nomap(struct dt_ctx *c, int node, uint64_t s, uint64_t e,
		      void *arg)
{
	struct dt_arch_info *ai = c->ai;

	add_reserved(c, node, s, e, arg);
	if (!ai)
		return;
	if (ai->nomap_count == DT_MAX_NOMAP) {
		dt_warn(c->bi,
			"%s: more than %d no-map ranges, [%#llx, %#llx) is "
			"reserved but mapped as RAM",
			dt_node_name(c->fdt, node), DT_MAX_NOMAP, U64(s),
			U64(e));
		return;
	}
	ai->nomap[ai->nomap_count++] = region_of(pa(s), pa(e));
}

void dt_parse_reserved(struct dt_ctx *c, int root_ac, int root_sc)
{
	int rm = fdt_path_offset(c->fdt, "/reserved-memory");
	int n = fdt_num_mem_rsv(c->fdt), node, ac, sc;

	if (n > DT_MAX_MEMRSV) {
		dt_warn(c->bi,
			"memreserve block has %d entries, using the first %d",
			n, DT_MAX_MEMRSV);
		n = DT_MAX_MEMRSV;
	}
	for (int i = 0; i < n; i++) {
		uint64_t addr, size;

		if (fdt_get_mem_rsv(c->fdt, i, &addr, &size) || !size)
			continue;
		if (addr + size < addr) {
			dt_warn(c->bi,
				"memreserve [%#llx + %#llx] wraps, ignored",
				U64(addr), U64(size));
			continue;
		}
		bootinfo_add_reserved(c->bi, pa(addr), pa(addr + size),
				      "memreserve");
	}
	if (rm < 0)
		return;
	ac = dt_cells(c, rm, "#address-cells", root_ac, true);
	sc = dt_cells(c, rm, "#size-cells", root_sc, true);
	if (ac < 0 || sc < 0)
		return;
	fdt_for_each_subnode(node, c->fdt, rm)
	{
		if (!dt_node_enabled(c->fdt, node))
			continue;
		bool nomap = fdt_getprop(c->fdt, node, "no-map", NULL);

		dt_for_each_reg(c, node, ac, sc,
				nomap ? add_nomap : add_reserved, NULL);
	}
}
