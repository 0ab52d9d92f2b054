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
 * The blob itself is reserved as "dtb" and the initrd as "initrd".
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

#include <keel/bootinfo.h>
#include <keel/cmdline_copy.h>
#include <keel/compiler.h>
#include <keel/errno.h>
#include <keel/fdt.h>
#include <keel/nodemap.h>
#include <keel/printk.h>
#include <keel/string.h>

#include "boot_priv.h"
#define DT_MAX_CELLS  2 /* addresses/sizes we can hold in 64 bits */
#define DT_MAX_MEMRSV 64

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
	struct nodemap *nodes; /* numa-node-id -> keel node */
	/* distance-matrix triplets, NULL when absent or dropped */
	const fdt32_t *dist;
	unsigned int dist_count;
	int dist_skip; /* the one bad triplet, -1 when none */
};

/* Read @n (1 or 2) big-endian cells. */
static uint64_t read_cells(const fdt32_t *p, int n)
{
	uint64_t v = 0;

	for (int i = 0; i < n; i++)
		v = (v << 32) | fdt32_to_cpu(p[i]);
	return v;
}

static const char *node_name(const void *fdt, int node)
{
	const char *n = fdt_get_name(fdt, node, NULL);

	return n ? n : "?";
}

/* A NUL-terminated string property, or NULL. */
static const char *prop_str(const void *fdt, int node, const char *name,
			    int *lenp)
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
static bool prop_u32(struct dt_ctx *c, int node, const char *name,
		     uint32_t *out)
{
	int len;
	const fdt32_t *p = fdt_getprop(c->fdt, node, name, &len);

	if (!p)
		return false;
	if (len != 4) {
		dt_warn(c->bi, "%s/%s has length %d, expected 4, ignored",
			node_name(c->fdt, node), name, len);
		return false;
	}
	*out = fdt32_to_cpu(*p);
	return true;
}

static bool node_enabled(const void *fdt, int node)
{
	const char *s = prop_str(fdt, node, "status", NULL);

	return !s || !strcmp(s, "okay") || !strcmp(s, "ok");
}

/*
 * #address-cells / #size-cells of @node (as parent of its children):
 * missing -> @def with a warning when @warn_missing; out of our range ->
 * warning and -1 (the caller skips the children).
 */
static int cells(struct dt_ctx *c, int node, const char *name, int def,
		 bool warn_missing)
{
	uint32_t v;

	if (!fdt_getprop(c->fdt, node, name, NULL)) {
		if (warn_missing)
			dt_warn(c->bi, "%s has no %s, assuming %d",
				node ? node_name(c->fdt, node) : "/", name,
				def);
		return def;
	}
	if (!prop_u32(c, node, name, &v))
		return def;
	if (v > DT_MAX_CELLS || (v == 0 && name[1] == 'a')) {
		dt_warn(c->bi, "%s %s = %u is not supported",
			node ? node_name(c->fdt, node) : "/", name, v);
		return -1;
	}
	return (int)v;
}

/*
 * The firmware node id of @node: *out, or false when it has none. The id
 * is recorded in the node map; dt_nodes_finish() turns it into a keel id.
 */
static bool node_id(struct dt_ctx *c, int node, uint32_t *out)
{
	uint32_t id;

	if (!prop_u32(c, node, "numa-node-id", &id))
		return false;
	nodemap_add(c->nodes, id);
	*out = id;
	return true;
}

/*
 * Walk the reg entries of @node with (@ac, @sc) cells, calling @fn for each
 * non-empty [start, end). A trailing partial entry is warned about and
 * ignored; a range that wraps is clamped to the top of the address space.
 */
static void for_each_reg(struct dt_ctx *c, int node, int ac, int sc,
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
			node_name(c->fdt, node), len, entry);
	}
	for (int off = 0; off + entry <= len; off += entry) {
		uint64_t start = read_cells(p + off / 4, ac);
		uint64_t size = read_cells(p + off / 4 + ac, sc);
		uint64_t end = start + size;

		if (!size)
			continue;
		if (end < start) {
			dt_warn(c->bi, "%s reg [%#llx + %#llx] wraps, clamped",
				node_name(c->fdt, node), U64(start), U64(size));
			end = ~0ULL & PAGE_MASK;
		}
		fn(c, node, start, end, arg);
	}
}

/* --- memory ---------------------------------------------------------- */

static bool is_memory_node(const void *fdt, int node)
{
	const char *t = prop_str(fdt, node, "device_type", NULL);
	const char *n = node_name(fdt, node);

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

static void parse_memory(struct dt_ctx *c, int ac, int sc)
{
	int node;
	uint32_t id;

	fdt_for_each_subnode(node, c->fdt, 0)
	{
		if (is_memory_node(c->fdt, node) &&
		    node_enabled(c->fdt, node) &&
		    fdt_getprop(c->fdt, node, "numa-node-id", NULL))
			c->any_mem_node_id = true;
	}
	fdt_for_each_subnode(node, c->fdt, 0)
	{
		if (!is_memory_node(c->fdt, node) ||
		    !node_enabled(c->fdt, node))
			continue;
		if (!node_id(c, node, &id)) {
			if (c->any_mem_node_id)
				dt_warn(c->bi,
					"%s has no numa-node-id while other "
					"memory has, using node 0",
					node_name(c->fdt, node));
			id = 0;
			nodemap_add(c->nodes, id);
		}
		for_each_reg(c, node, ac, sc, add_ram, &id);
	}
}

/* --- reserved memory -------------------------------------------------- */

static void add_reserved(struct dt_ctx *c, int node, uint64_t s, uint64_t e,
			 void *arg)
{
	char name[BOOTINFO_NAME_MAX];
	const char *n = arg ? (const char *)arg : node_name(c->fdt, node);

	strlcpy(name, n, sizeof(name));
	bootinfo_add_reserved(c->bi, pa(s), pa(e), name);
}

static void parse_reserved(struct dt_ctx *c, int root_ac, int root_sc)
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
	ac = cells(c, rm, "#address-cells", root_ac, true);
	sc = cells(c, rm, "#size-cells", root_sc, true);
	if (ac < 0 || sc < 0)
		return;
	fdt_for_each_subnode(node, c->fdt, rm)
	{
		if (!node_enabled(c->fdt, node))
			continue;
		for_each_reg(c, node, ac, sc, add_reserved, NULL);
	}
}

/* --- chosen ------------------------------------------------------------ */

static bool prop_addr(struct dt_ctx *c, int node, const char *name,
		      uint64_t *out)
{
	int len;
	const fdt32_t *p = fdt_getprop(c->fdt, node, name, &len);

	if (!p)
		return false;
	if (len != 4 && len != 8) {
		dt_warn(c->bi,
			"chosen/%s has length %d, expected 4 or 8, ignored",
			name, len);
		return false;
	}
	*out = read_cells(p, len / 4);
	return true;
}

static void parse_stdout(struct dt_ctx *c, const char *path, int len)
{
	const char *colon = memchr(path, ':', (size_t)len);
	int plen =
		colon ? (int)(colon - path) : (int)strnlen(path, (size_t)len);
	int node = fdt_path_offset_namelen(c->fdt, path, plen);
	int parent, ac, sc, rlen;
	const fdt32_t *reg;

	if (node < 0) {
		dt_warn(c->bi, "chosen/stdout-path \"%.*s\" names no node",
			plen, path);
		return;
	}
	strlcpy(c->ai->uart_path, node_name(c->fdt, node),
		sizeof(c->ai->uart_path));
	parent = fdt_parent_offset(c->fdt, node);
	if (parent < 0)
		return;
	ac = cells(c, parent, "#address-cells", 2, false);
	sc = cells(c, parent, "#size-cells", 1, false);
	reg = fdt_getprop(c->fdt, node, "reg", &rlen);
	if (ac < 0 || sc < 0 || !reg || rlen < ac * 4) {
		dt_warn(c->bi, "stdout-path node %s has no usable reg",
			c->ai->uart_path);
		return;
	}
	/* Parent buses are assumed to map 1:1 ("ranges;"), as on virt. */
	c->ai->uart_base = pa(read_cells(reg, ac));
	c->ai->uart_is_pl011 =
		!fdt_node_check_compatible(c->fdt, node, "arm,pl011");
}

static void parse_chosen(struct dt_ctx *c)
{
	int node = fdt_path_offset(c->fdt, "/chosen");
	const char *s;
	int len;
	uint64_t is = 0, ie = 0;

	if (node < 0)
		return;
	s = fdt_getprop(c->fdt, node, "bootargs", &len);
	if (s && len > 0)
		cmdline_copy_bootinfo(c->bi, s, (size_t)len, NULL,
				      "dt: chosen/bootargs");
	if (prop_addr(c, node, "linux,initrd-start", &is) &&
	    prop_addr(c, node, "linux,initrd-end", &ie)) {
		if (ie <= is) {
			dt_warn(c->bi,
				"initrd [%#llx, %#llx) is empty or inverted, "
				"ignored",
				U64(is), U64(ie));
		} else {
			c->ai->initrd_start = pa(is);
			c->ai->initrd_end = pa(ie);
			bootinfo_add_reserved(c->bi, pa(is), pa(ie), "initrd");
		}
	}
	s = fdt_getprop(c->fdt, node, "stdout-path", &len);
	if (!s)
		s = fdt_getprop(c->fdt, node, "linux,stdout-path", &len);
	if (s && len > 0)
		parse_stdout(c, s, len);
	if (fdt_getprop(c->fdt, node, "u-boot,version", NULL))
		strlcpy(c->bi->loader, "u-boot", sizeof(c->bi->loader));
}

/* --- cpus -------------------------------------------------------------- */

/**
 * dt_mpidr_topology() - package/core/thread from MPIDR affinity fields.
 * @mpidr: MPIDR_EL1 value or DT cpu reg.
 * @package: out.
 * @core: out.
 * @thread: out.
 */
void dt_mpidr_topology(uint64_t mpidr, uint32_t *package, uint32_t *core,
		       uint32_t *thread)
{
	uint32_t aff0 = mpidr & 0xff, aff1 = (mpidr >> 8) & 0xff;
	uint32_t aff2 = (mpidr >> 16) & 0xff, aff3 = (mpidr >> 32) & 0xff;

	if (mpidr & MPIDR_MT) {
		*thread = aff0;
		*core = aff1;
		*package = aff2 | aff3 << 8;
	} else {
		*thread = 0;
		*core = aff0;
		*package = aff1 | aff2 << 8 | aff3 << 16;
	}
}

/*
 * /cpus/cpu-map (the Linux cpu-topology binding): socketN nodes holding
 * clusterN nodes (nested at will) holding coreN nodes, each core a leaf or
 * the parent of threadN leaves; a leaf names its CPU with cpu = <&phandle>.
 * Children are looked up by name, N counting up from 0 until one is
 * missing (as Linux does). Package = N of socketN, or of the top clusterN
 * when there is no socket level; core = the core's position within its
 * package in that order (cluster numbers folded in, so core ids are unique
 * within a package); thread = N of threadN (0 for a core leaf).
 * The map must place every CPU parse_cpus() added exactly once: the first
 * defect (a leaf without cpu, a phandle naming no CPU or one placed
 * already, a CPU left out, clusters nested too deep) is one warning and
 * every CPU keeps its MPIDR topology.
 */
#define CPU_MAP_MAX_DEPTH 8
#define CPU_MAP_PLACED	  0   /* not a phandle: the CPU has its place */
#define CPU_MAP_UNNAMED	  ~0u /* not a phandle: no map leaf can name it */

struct cpu_map_walk {
	struct dt_ctx *c;
	unsigned int first; /* bi->cpus[first...] are the DT's CPUs */
	unsigned int count;
	uint32_t *phandle; /* of each of those CPUs, or CPU_MAP_* */
	uint32_t package, core;
	bool bad;
};

/* The child of @node named "<prefix><n>", or a negative libfdt error. */
static int map_child(const void *fdt, int node, const char *prefix,
		     unsigned int n)
{
	char name[24];

	snprintf(name, sizeof(name), "%s%u", prefix, n);
	return fdt_subnode_offset(fdt, node, name);
}

static void map_defect(struct cpu_map_walk *w, int node, const char *what)
{
	dt_warn(w->c->bi, "cpu-map %s: %s, using the MPIDR topology",
		node_name(w->c->fdt, node), what);
	w->bad = true;
}

static void map_leaf(struct cpu_map_walk *w, int node, uint32_t thread)
{
	int len;
	const fdt32_t *p = fdt_getprop(w->c->fdt, node, "cpu", &len);
	uint32_t ph;

	if (!p || len != 4) {
		map_defect(w, node, "no cpu phandle");
		return;
	}
	ph = fdt32_to_cpu(*p);
	for (unsigned int i = 0; i < w->count; i++) {
		struct bi_cpu *cpu = &w->c->bi->cpus[w->first + i];

		if (w->phandle[i] != ph || ph == CPU_MAP_PLACED ||
		    ph == CPU_MAP_UNNAMED)
			continue;
		w->phandle[i] = CPU_MAP_PLACED;
		cpu->package = w->package;
		cpu->core = w->core;
		cpu->thread = thread;
		return;
	}
	map_defect(w, node, "cpu phandle names no CPU, or one placed already");
}

static void map_core(struct cpu_map_walk *w, int node)
{
	int t = map_child(w->c->fdt, node, "thread", 0);

	if (t < 0)
		map_leaf(w, node, 0);
	for (unsigned int n = 0; t >= 0 && !w->bad; n++) {
		map_leaf(w, t, n);
		t = map_child(w->c->fdt, node, "thread", n + 1);
	}
	w->core++;
}

/* A socket or cluster: its clusters first, then its own cores. */
static void map_cluster(struct cpu_map_walk *w, int node, unsigned int depth)
{
	int ch;

	if (depth > CPU_MAP_MAX_DEPTH) {
		map_defect(w, node, "clusters nested too deep");
		return;
	}
	for (unsigned int n = 0; !w->bad; n++) {
		ch = map_child(w->c->fdt, node, "cluster", n);
		if (ch < 0)
			break;
		map_cluster(w, ch, depth + 1);
	}
	for (unsigned int n = 0; !w->bad; n++) {
		ch = map_child(w->c->fdt, node, "core", n);
		if (ch < 0)
			break;
		map_core(w, ch);
	}
}

/* Return: true when the map placed every CPU (topology now from it). */
static bool parse_cpu_map(struct dt_ctx *c, int cpus, unsigned int first,
			  uint32_t *phandle)
{
	struct cpu_map_walk w = {.c = c, .first = first, .phandle = phandle};
	int map = fdt_subnode_offset(c->fdt, cpus, "cpu-map");
	const char *top = "socket";

	if (map < 0)
		return false;
	w.count = c->bi->cpu_count - first;
	if (map_child(c->fdt, map, top, 0) < 0)
		top = "cluster";
	for (unsigned int n = 0; !w.bad; n++) {
		int pkg = map_child(c->fdt, map, top, n);

		if (pkg < 0)
			break;
		w.package = n;
		w.core = 0;
		map_cluster(&w, pkg, 0);
	}
	for (unsigned int i = 0; i < w.count && !w.bad; i++) {
		if (phandle[i] == CPU_MAP_PLACED)
			continue;
		dt_warn(c->bi,
			"cpu-map does not place the CPU with MPIDR %#llx, "
			"using the MPIDR topology",
			U64(c->bi->cpus[first + i].hwid));
		w.bad = true;
	}
	if (!w.bad)
		return true;
	for (unsigned int i = first; i < c->bi->cpu_count; i++) {
		struct bi_cpu *cpu = &c->bi->cpus[i];

		dt_mpidr_topology(cpu->hwid, &cpu->package, &cpu->core,
				  &cpu->thread);
	}
	return false;
}

static void parse_cpus(struct dt_ctx *c)
{
	int cpus = fdt_path_offset(c->fdt, "/cpus");
	int node, ac, len;
	bool any_id = false, warned_spin = false;
	unsigned int first = c->bi->cpu_count;
	uint32_t phandle[CONFIG_NR_CPUS];

	if (cpus < 0) {
		dt_warn(c->bi, "no /cpus node, booting on the boot CPU only");
		return;
	}
	ac = cells(c, cpus, "#address-cells", 1, true);
	if (ac < 0)
		return;
	fdt_for_each_subnode(node, c->fdt, cpus)
	{
		if (fdt_getprop(c->fdt, node, "numa-node-id", NULL))
			any_id = true;
	}
	fdt_for_each_subnode(node, c->fdt, cpus)
	{
		const char *t = prop_str(c->fdt, node, "device_type", NULL);
		const char *em;
		const fdt32_t *reg;
		uint32_t id = 0, pkg, core, thread, ph;
		uint64_t hwid;
		bool usable;

		if (!t || strcmp(t, "cpu"))
			continue;
		reg = fdt_getprop(c->fdt, node, "reg", &len);
		if (!reg || len < ac * 4) {
			dt_warn(c->bi, "%s has no reg (MPIDR), CPU ignored",
				node_name(c->fdt, node));
			continue;
		}
		hwid = read_cells(reg, ac);
		if (hwid & ~MPIDR_HWID_MASK) {
			dt_warn(c->bi,
				"%s reg %#llx has bits outside the MPIDR "
				"affinity fields, masked",
				node_name(c->fdt, node), U64(hwid));
			hwid &= MPIDR_HWID_MASK;
		}
		if (!node_id(c, node, &id)) {
			if (any_id || c->any_mem_node_id)
				dt_warn(c->bi,
					"%s has no numa-node-id, using node 0",
					node_name(c->fdt, node));
			id = 0;
			nodemap_add(c->nodes, id);
		}
		usable = node_enabled(c->fdt, node);
		em = prop_str(c->fdt, node, "enable-method", NULL);
		if (em && strcmp(em, "psci")) {
			if (!warned_spin)
				dt_warn(c->bi,
					"%s enable-method \"%s\" is not "
					"supported, CPU left out",
					node_name(c->fdt, node), em);
			warned_spin = true;
			usable = false;
		}
		dt_mpidr_topology(hwid, &pkg, &core, &thread);
		if (bootinfo_add_cpu(c->bi, hwid, id, pkg, core, thread,
				     usable))
			continue;
		ph = fdt_get_phandle(c->fdt, node);
		phandle[c->bi->cpu_count - 1 - first] =
			ph ? ph : CPU_MAP_UNNAMED;
	}
	c->ai->cpu_map = parse_cpu_map(c, cpus, first, phandle);
}

/* --- psci, timer, distances ------------------------------------------- */

static void parse_psci(struct dt_ctx *c)
{
	int node = fdt_node_offset_by_compatible(c->fdt, -1, "arm,psci-1.0");
	const char *m;
	uint32_t v;

	if (node < 0)
		node = fdt_node_offset_by_compatible(c->fdt, -1,
						     "arm,psci-0.2");
	if (node >= 0) {
		c->ai->psci_v0_2 = true;
	} else {
		node = fdt_node_offset_by_compatible(c->fdt, -1, "arm,psci");
		if (node < 0)
			return;
	}
	c->ai->psci_cpu_on = PSCI_FN_CPU_ON;
	c->ai->psci_cpu_off = PSCI_FN_CPU_OFF;
	if (!c->ai->psci_v0_2) {
		if (prop_u32(c, node, "cpu_on", &v))
			c->ai->psci_cpu_on = v;
		if (prop_u32(c, node, "cpu_off", &v))
			c->ai->psci_cpu_off = v;
	}
	m = prop_str(c->fdt, node, "method", NULL);
	if (m && !strcmp(m, "hvc"))
		c->ai->psci_method = DT_PSCI_HVC;
	else if (m && !strcmp(m, "smc"))
		c->ai->psci_method = DT_PSCI_SMC;
	else
		dt_warn(c->bi,
			"psci method \"%s\" is not hvc or smc, secondary CPUs "
			"will not start",
			m ? m : "(none)");
}

static void parse_timer(struct dt_ctx *c)
{
	int node = fdt_node_offset_by_compatible(c->fdt, -1, "arm,armv8-timer");
	uint32_t f;

	if (node >= 0 && prop_u32(c, node, "clock-frequency", &f))
		c->ai->timer_freq = f;
}

/*
 * The GICv3 node: reg is the distributor, then #redistributor-regions
 * (default 1) redistributor regions; GICC/GICH/GICV may follow. A GICv2
 * (or no GIC) leaves gicd_base 0: the arch then keeps its spinning idle.
 */
static void parse_gic(struct dt_ctx *c)
{
	int node = fdt_node_offset_by_compatible(c->fdt, -1, "arm,gic-v3");
	int parent, ac, sc, rlen, n;
	uint32_t regions = 1;
	const fdt32_t *reg;

	if (node < 0)
		return;
	parent = fdt_parent_offset(c->fdt, node);
	if (parent < 0)
		return;
	ac = cells(c, parent, "#address-cells", 2, false);
	sc = cells(c, parent, "#size-cells", 1, false);
	reg = fdt_getprop(c->fdt, node, "reg", &rlen);
	prop_u32(c, node, "#redistributor-regions", &regions);
	if (ac < 0 || sc < 0 || !reg || rlen < 0) {
		dt_warn(c->bi, "%s has no usable reg, idle CPUs will spin",
			node_name(c->fdt, node));
		return;
	}
	n = rlen / (4 * (ac + sc));
	if (regions < 1 || (int)regions >= n) {
		dt_warn(c->bi,
			"%s: #redistributor-regions %u with %d reg entries, "
			"idle CPUs will spin",
			node_name(c->fdt, node), regions, n);
		return;
	}
	if (regions > DT_MAX_GICR) {
		dt_warn(c->bi,
			"%s: %u redistributor regions, only the first %u kept",
			node_name(c->fdt, node), regions, DT_MAX_GICR);
		regions = DT_MAX_GICR;
	}
	c->ai->gicd_base = pa(read_cells(reg, ac));
	for (uint32_t i = 1; i <= regions; i++) {
		const fdt32_t *r = reg + (size_t)i * (size_t)(ac + sc);

		c->ai->gicr[i - 1].base = pa(read_cells(r, ac));
		c->ai->gicr[i - 1].size = read_cells(r + ac, sc);
	}
	c->ai->gicr_count = regions;
}

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
	compat = prop_str(c->fdt, node, "compatible", NULL);
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
static void parse_distances(struct dt_ctx *c)
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
static void dt_nodes_finish(struct dt_ctx *c, unsigned int ram0,
			    unsigned int cpu0)
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
	for (unsigned int i = ram0; i < bi->ram_count; i++)
		bi->ram[i].node = nodemap_node(c->nodes, bi->ram[i].node);
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

/* --- entry ------------------------------------------------------------- */

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
	unsigned int ram0 = bi->ram_count, cpu0 = bi->cpu_count;
	uint32_t total;
	int err, ac, sc;

	memset(ai, 0, sizeof(*ai));
	nodemap_init(&nodes, "dt");
	if (!blob || len < sizeof(struct fdt_header)) {
		dt_warn(bi, "blob of %zu bytes is smaller than a header", len);
		return -EINVAL;
	}
	if (fdt_magic(blob) != FDT_MAGIC) {
		dt_warn(bi, "bad magic %#x", fdt_magic(blob));
		return -EINVAL;
	}
	/*
	 * Pre-v16 blobs (full paths as node names) crash Debian's libfdt
	 * 1.6.1 fdt_check_full() with a NULL read (found by fdt_fuzz); no
	 * firmware or QEMU still produces them.
	 */
	if (fdt_version(blob) < 16) {
		dt_warn(bi, "version %u < 16 not supported", fdt_version(blob));
		return -EINVAL;
	}
	total = fdt_totalsize(blob);
	if (total > len) {
		dt_warn(bi, "totalsize %u exceeds the %zu bytes available",
			total, len);
		return -EINVAL;
	}
	err = fdt_check_full(blob, total);
	if (err) {
		dt_warn(bi, "malformed blob (%s)", fdt_strerror(err));
		return -EINVAL;
	}
	ai->totalsize = total;
	bootinfo_add_reserved(bi, blob_pa, pa_add(blob_pa, total), "dtb");

	if (!fdt_node_check_compatible(blob, 0, "linux,dummy-virt")) {
		ai->qemu_virt = true;
		strlcpy(bi->loader, "qemu", sizeof(bi->loader));
	}
	ac = cells(&c, 0, "#address-cells", 2, true);
	sc = cells(&c, 0, "#size-cells", 1, true);
	if (ac >= 0 && sc >= 0) {
		parse_memory(&c, ac, sc);
		parse_reserved(&c, ac, sc);
	}
	parse_chosen(&c);
	parse_cpus(&c);
	parse_psci(&c);
	parse_timer(&c);
	parse_gic(&c);
	parse_distances(&c);
	dt_nodes_finish(&c, ram0, cpu0);
	if (!bi->ram_count)
		dt_warn(bi, "no usable /memory node");
	return 0;
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

	if (!blob || len < sizeof(struct fdt_header) ||
	    fdt_magic(blob) != FDT_MAGIC || fdt_totalsize(blob) > len ||
	    fdt_version(blob) < 16 || /* see dt_parse() */
	    fdt_check_full(blob, fdt_totalsize(blob)))
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
