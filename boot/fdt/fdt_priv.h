/* SPDX-License-Identifier: MIT */
/*
 * The private header of boot/fdt/: libfdt for the files that read a
 * flattened DT, and what the parts of dt_parse() share.
 */
#ifndef BOOT_FDT_PRIV_H
#define BOOT_FDT_PRIV_H

/*
 * libfdt's own libfdt_env.h pulls in libc headers; keel is freestanding,
 * so we supply the few definitions libfdt.h needs and skip that file by
 * defining its include guard first.
 */
#define LIBFDT_ENV_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef uint16_t fdt16_t;
typedef uint32_t fdt32_t;
typedef uint64_t fdt64_t;

static inline uint16_t fdt16_to_cpu(fdt16_t x)
{
	return __builtin_bswap16(x);
}
static inline fdt16_t cpu_to_fdt16(uint16_t x)
{
	return __builtin_bswap16(x);
}
static inline uint32_t fdt32_to_cpu(fdt32_t x)
{
	return __builtin_bswap32(x);
}
static inline fdt32_t cpu_to_fdt32(uint32_t x)
{
	return __builtin_bswap32(x);
}
static inline uint64_t fdt64_to_cpu(fdt64_t x)
{
	return __builtin_bswap64(x);
}
static inline fdt64_t cpu_to_fdt64(uint64_t x)
{
	return __builtin_bswap64(x);
}

#include <libfdt.h>

#include <keel/bootinfo.h>
#include <keel/escape.h>
#include <keel/fdt.h>
#include <keel/nodemap.h>
#include <keel/printk.h>

/*
 * What the files of dt_parse() share (fdt.c and the fdt_*.c it calls,
 * one per node family): the parse context, the warning that counts a
 * fix-up, the property readers (fdt_props.c) and each family's parser.
 */
#define DT_MAX_CELLS 2 /* addresses/sizes we can hold in 64 bits */

#define dt_warn(bi, fmt, ...)                            \
	do {                                             \
		pr_warn("dt: " fmt "\n", ##__VA_ARGS__); \
		(bi)->fixups++;                          \
	} while (0)

struct dt_ctx {
	const void *fdt;
	struct bootinfo *bi;
	struct dt_arch_info *ai;
	bool any_mem_node_id;
	unsigned int no_node_ids; /* numa-node-id 0xffffffff seen */
	struct nodemap *nodes;	  /* numa-node-id -> keel node */
	/* distance-matrix triplets, NULL when absent or dropped */
	const fdt32_t *dist;
	unsigned int dist_count;
	int dist_skip; /* the one bad triplet, -1 when none */
};

/* Property readers (fdt_props.c): they call nothing else of the room. */
uint64_t dt_read_cells(const fdt32_t *p, int n);
const char *dt_node_name(const void *fdt, int node);
const char *dt_prop_str(const void *fdt, int node, const char *name, int *lenp);
bool dt_prop_u32(struct dt_ctx *c, int node, const char *name, uint32_t *out);
bool dt_node_enabled(const void *fdt, int node);
int dt_cells(struct dt_ctx *c, int node, const char *name, int def,
	     bool warn_missing);
int dt_cells_inherited(struct dt_ctx *c, int node, const char *name, int def);
const char *dt_name_shown(const void *fdt, int node, char *buf, size_t size);
/*
 * Room for a node name shown in a warning: any name a domain may have
 * whole, every byte escaped; a longer one is cut with "...".
 */
#define DT_NAME_SHOWN ESCAPE_SIZE(BOOTINFO_DOMAIN_NAME_MAX - 1)
bool dt_node_id(struct dt_ctx *c, int node, uint32_t *out);
void dt_for_each_reg(struct dt_ctx *c, int node, int ac, int sc,
		     void (*fn)(struct dt_ctx *, int, uint64_t, uint64_t,
				void *),
		     void *arg);

/* The checks of dt_parse(), quiet, for the lookups before it (fdt.c). */
bool dt_blob_usable(const void *blob, size_t len);

/* One parser per node family, in the order dt_parse() calls them. */
void dt_parse_memory(struct dt_ctx *c, int ac, int sc);
void dt_parse_reserved(struct dt_ctx *c, int root_ac, int root_sc);
void dt_parse_chosen(struct dt_ctx *c);
/* /chosen/bootargs into @bi->cmdline unless it holds a line (fdt_chosen.c). */
bool dt_copy_bootargs(const void *fdt, struct bootinfo *bi);
void dt_parse_modules(struct dt_ctx *c);
/*
 * The reservation name of a boot module node ("module:kernel", ...,
 * "module"), NULL when @node is not one (fdt_modules.c).
 */
const char *dt_module_kind(const void *fdt, int node);
void dt_parse_cpus(struct dt_ctx *c);
void dt_parse_psci(struct dt_ctx *c);
void dt_parse_timer(struct dt_ctx *c);
void dt_parse_gic(struct dt_ctx *c);
void dt_parse_distances(struct dt_ctx *c);
void dt_parse_dom0less(struct dt_ctx *c);
void dt_nodes_finish(struct dt_ctx *c, unsigned int ram0, unsigned int cpu0);

#endif
