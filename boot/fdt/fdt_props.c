/* SPDX-License-Identifier: MIT */
/*
 * The property readers of the DT room (fdt_priv.h): cells, names, string
 * and u32 properties, #address-cells/#size-cells, node ids, reg walks.
 * Every node family's parser (fdt_*.c) and dt_parse() call them; they
 * call libfdt, printk and the node map (boot/nodemap.c), nothing else of
 * the room, so the calls of boot/fdt/ go one way: dt_parse() -> the
 * family parsers -> these readers.
 *
 * Invariants: the blob was checked once (dt_parse()) before any reader
 * runs, and every property length is checked before its cells are read.
 * A bad value is one dt_warn() (bi->fixups++) and a safe fallback.
 */
#include "fdt_priv.h"

#include <keel/compiler.h>
#include <keel/escape.h>
#include <keel/string.h>

#include "../boot_priv.h"

/* Read @n (1 or 2) big-endian cells. */
uint64_t dt_read_cells(const fdt32_t *p, int n)
{
	uint64_t v = 0;

	for (int i = 0; i < n; i++)
		v = (v << 32) | fdt32_to_cpu(p[i]);
	return v;
}

const char *dt_node_name(const void *fdt, int node)
{
	const char *n = fdt_get_name(fdt, node, NULL);

	return n ? n : "?";
}

/* A NUL-terminated string property, or NULL. */
const char *dt_prop_str(const void *fdt, int node, const char *name, int *lenp)
{
	int len;
	const char *s = fdt_getprop(fdt, node, name, &len);

	if (!s || len <= 0 || strnlen(s, (size_t)len) == (size_t)len)
		return NULL;
	if (lenp)
		*lenp = len;
	return s;
}

/* A u32 property: true and *out when present and exactly 4 bytes. */
bool dt_prop_u32(struct dt_ctx *c, int node, const char *name, uint32_t *out)
{
	int len;
	const fdt32_t *p = fdt_getprop(c->fdt, node, name, &len);

	if (!p)
		return false;
	if (len != 4) {
		char shown[DT_NAME_SHOWN];

		dt_warn(c->bi, "%s/%s has length %d, expected 4, ignored",
			dt_name_shown(c->fdt, node, shown, sizeof(shown)), name,
			len);
		return false;
	}
	*out = fdt32_to_cpu(*p);
	return true;
}

bool dt_node_enabled(const void *fdt, int node)
{
	const char *s = dt_prop_str(fdt, node, "status", NULL);

	return !s || !strcmp(s, "okay") || !strcmp(s, "ok");
}

/*
 * #address-cells / #size-cells of @node (as parent of its children):
 * missing -> @def with a warning when @warn_missing; out of our range ->
 * warning and -1 (the caller skips the children).
 */
int dt_cells(struct dt_ctx *c, int node, const char *name, int def,
	     bool warn_missing)
{
	uint32_t v;

	if (!fdt_getprop(c->fdt, node, name, NULL)) {
		if (warn_missing)
			dt_warn(c->bi, "%s has no %s, assuming %d",
				node ? dt_node_name(c->fdt, node) : "/", name,
				def);
		return def;
	}
	if (!dt_prop_u32(c, node, name, &v))
		return def;
	if (v > DT_MAX_CELLS || (v == 0 && name[1] == 'a')) {
		char shown[DT_NAME_SHOWN];

		dt_warn(c->bi, "%s %s = %u is not supported",
			node ? dt_name_shown(c->fdt, node, shown, sizeof(shown))
			     : "/",
			name, v);
		return -1;
	}
	return (int)v;
}

/**
 * dt_cells_inherited() - the #address-cells or #size-cells (@name) that
 * apply to the children of @node, as Xen's and Linux's early readers take
 * them: @node's own, else its nearest ancestor's, else @def (the root's
 * default: 2 addresses, 1 size). QEMU's guest-loader writes 2+2-cell
 * modules under a /chosen that has neither property: the root's apply.
 * Return: the count, or -1 (warned by dt_cells()) when it is unusable.
 */
int dt_cells_inherited(struct dt_ctx *c, int node, const char *name, int def)
{
	for (int n = node; n >= 0; n = fdt_parent_offset(c->fdt, n)) {
		if (fdt_getprop(c->fdt, n, name, NULL))
			return dt_cells(c, n, name, def, false);
		if (n == 0)
			break;
	}
	return def;
}

/**
 * dt_name_shown() - the name of @node made printable (escape_bytes(): a
 * name may hold any byte but NUL and '/'), cut with "..." past @size.
 * Return: @buf.
 */
const char *dt_name_shown(const void *fdt, int node, char *buf, size_t size)
{
	int len;
	const char *n = fdt_get_name(fdt, node, &len);

	if (!n || len < 0)
		return escape_bytes(buf, size, "?", 1);
	return escape_bytes(buf, size, n, (size_t)len);
}

/*
 * The firmware node id of @node: *out, or false when it has none. The id
 * is recorded in the node map; dt_nodes_finish() turns it into a keel id.
 * NUMA_NO_NODE (0xffffffff) is refused: node 0, one warning.
 */
bool dt_node_id(struct dt_ctx *c, int node, uint32_t *out)
{
	uint32_t id;

	if (!dt_prop_u32(c, node, "numa-node-id", &id))
		return false;
	/*
	 * 0xffffffff is NUMA_NO_NODE, which Linux refuses: not a node, so
	 * the node gets the fallback of a missing id (node 0). One warning
	 * per device tree.
	 */
	if (id == NODE_FW_ID_NONE) {
		if (!c->no_node_ids++)
			dt_warn(c->bi,
				"%s numa-node-id 0xffffffff is NUMA_NO_NODE: "
				"refused, using node 0 (for any such node)",
				dt_node_name(c->fdt, node));
		id = 0;
	}
	nodemap_add(c->nodes, id);
	*out = id;
	return true;
}

/*
 * Walk the reg entries of @node with (@ac, @sc) cells, calling @fn for each
 * non-empty [start, end). A trailing partial entry is warned about and
 * ignored; a range that wraps is clamped to the top of the address space.
 */
void dt_for_each_reg(struct dt_ctx *c, int node, int ac, int sc,
		     void (*fn)(struct dt_ctx *, int, uint64_t, uint64_t,
				void *),
		     void *arg)
{
	int len, entry = (ac + sc) * 4;
	const fdt32_t *p = fdt_getprop(c->fdt, node, "reg", &len);

	if (!p)
		return;
	if (len % entry) {
		dt_warn(c->bi,
			"%s reg length %d is not a multiple of %d, trailing "
			"bytes ignored",
			dt_node_name(c->fdt, node), len, entry);
	}
	for (int off = 0; off + entry <= len; off += entry) {
		uint64_t start = dt_read_cells(p + off / 4, ac);
		uint64_t size = dt_read_cells(p + off / 4 + ac, sc);
		uint64_t end = start + size;

		if (!size)
			continue;
		if (end < start) {
			dt_warn(c->bi, "%s reg [%#llx + %#llx] wraps, clamped",
				dt_node_name(c->fdt, node), U64(start),
				U64(size));
			end = ~0ULL & PAGE_MASK;
		}
		fn(c, node, start, end, arg);
	}
}
