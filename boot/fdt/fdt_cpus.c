/* SPDX-License-Identifier: MIT */
/*
 * Device tree CPUs for dt_parse() (boot/fdt/fdt.c): /cpus/cpu@* (reg = MPIDR,
 * numa-node-id, enable-method, status) and their topology, from
 * /cpus/cpu-map when it places every CPU, from MPIDR affinity otherwise
 * (dt_mpidr_topology(), shared with ACPI boots).
 */
#include "fdt_priv.h"

#include <keel/compiler.h>
#include <keel/errno.h>
#include <keel/string.h>

#include "../boot_priv.h"

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
 * The map must place every CPU dt_parse_cpus() added exactly once: the first
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
		dt_node_name(w->c->fdt, node), what);
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

/*
 * status = "fail" or "fail-sss": the CPU is broken (DT spec 2.3.4), not a
 * hot-plug slot as "disabled" is; its fail_reason says so.
 */
static bool cpu_failed(const void *fdt, int node)
{
	const char *s = dt_prop_str(fdt, node, "status", NULL);

	return s && !strncmp(s, "fail", 4) && (!s[4] || s[4] == '-');
}

/* One warning for the CPUs whose status is "fail" (@first: the first). */
static void warn_failed(struct dt_ctx *c, unsigned int count, int first)
{
	if (count)
		dt_warn(c->bi,
			"%u CPU%s with status \"fail\" (first %s): failed "
			"in firmware, left out",
			count, count == 1 ? "" : "s",
			dt_node_name(c->fdt, first));
}

/* What one walk of /cpus carries from CPU to CPU. */
struct cpus_walk {
	int ac;
	bool any_id, warned_spin;
	unsigned int first, failed;
	int first_failed;
	uint32_t phandle[CONFIG_NR_CPUS];
};

/* The MPIDR of cpu @node, masked to the affinity fields; false: no reg. */
static bool cpu_hwid(struct dt_ctx *c, int node, int ac, uint64_t *hwid)
{
	int len;
	const fdt32_t *reg = fdt_getprop(c->fdt, node, "reg", &len);

	if (!reg || len < ac * 4) {
		dt_warn(c->bi, "%s has no reg (MPIDR), CPU ignored",
			dt_node_name(c->fdt, node));
		return false;
	}
	*hwid = dt_read_cells(reg, ac);
	if (*hwid & ~MPIDR_HWID_MASK) {
		dt_warn(c->bi,
			"%s reg %#llx has bits outside the MPIDR "
			"affinity fields, masked",
			dt_node_name(c->fdt, node), U64(*hwid));
		*hwid &= MPIDR_HWID_MASK;
	}
	return true;
}

/* One /cpus child @node of device_type "cpu" into the bootinfo. */
static void cpu_one(struct dt_ctx *c, struct cpus_walk *w, int node)
{
	uint32_t id = 0, pkg, core, thread, ph;
	const char *em;
	uint64_t hwid;
	bool usable;

	if (!cpu_hwid(c, node, w->ac, &hwid))
		return;
	if (!dt_node_id(c, node, &id)) {
		if (w->any_id || c->any_mem_node_id)
			dt_warn(c->bi, "%s has no numa-node-id, using node 0",
				dt_node_name(c->fdt, node));
		id = 0;
		nodemap_add(c->nodes, id);
	}
	usable = dt_node_enabled(c->fdt, node);
	em = dt_prop_str(c->fdt, node, "enable-method", NULL);
	if (em && strcmp(em, "psci")) {
		if (!w->warned_spin)
			dt_warn(c->bi,
				"%s enable-method \"%s\" is not "
				"supported, CPU left out",
				dt_node_name(c->fdt, node), em);
		w->warned_spin = true;
		usable = false;
	}
	dt_mpidr_topology(hwid, &pkg, &core, &thread);
	if (bootinfo_add_cpu(c->bi, hwid, id, pkg, core, thread, usable))
		return;
	if (cpu_failed(c->fdt, node)) {
		c->bi->cpus[c->bi->cpu_count - 1].failed = true;
		if (!w->failed++)
			w->first_failed = node;
	}
	ph = fdt_get_phandle(c->fdt, node);
	w->phandle[c->bi->cpu_count - 1 - w->first] = ph ? ph : CPU_MAP_UNNAMED;
}

void dt_parse_cpus(struct dt_ctx *c)
{
	static struct cpus_walk w;
	int cpus = fdt_path_offset(c->fdt, "/cpus");
	int node;

	if (cpus < 0) {
		dt_warn(c->bi, "no /cpus node, booting on the boot CPU only");
		return;
	}
	memset(&w, 0, sizeof(w));
	w.first = c->bi->cpu_count;
	w.ac = dt_cells(c, cpus, "#address-cells", 1, true);
	if (w.ac < 0)
		return;
	fdt_for_each_subnode(node, c->fdt, cpus)
	{
		if (fdt_getprop(c->fdt, node, "numa-node-id", NULL))
			w.any_id = true;
	}
	fdt_for_each_subnode(node, c->fdt, cpus)
	{
		const char *t = dt_prop_str(c->fdt, node, "device_type", NULL);

		if (t && !strcmp(t, "cpu"))
			cpu_one(c, &w, node);
	}
	warn_failed(c, w.failed, w.first_failed);
	c->ai->cpu_map = parse_cpu_map(c, cpus, w.first, w.phandle);
}
