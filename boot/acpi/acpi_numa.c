/* SPDX-License-Identifier: MIT */
/*
 * The SRAT and SLIT parsers (ACPI single-table parsers: see
 * boot/acpi/acpi_priv.h).
 *
 * Invariants after a parse: cpus[].node < MAX_NUMNODES; with numa_valid,
 * memblk[] is sorted and non-overlapping and every memblk/CPU node is in
 * node_used[]; without it everything is on node 0 and distances are 10/20.
 * Distances of used nodes follow include/keel/bootinfo.h ("Node
 * distances"): 10 on the diagonal, 11..255 elsewhere, asymmetric allowed.
 *
 * SRAT and SLIT need each other: proximity domains beyond MAX_NUMNODES
 * fold into their nearest kept node by SLIT distance (boot/nodemap.c), and
 * the SLIT's rows are mapped to nodes by the SRAT. Whichever of the two is
 * parsed second completes the job: acpi_parse() checks the SLIT first
 * (keeping a pointer to its matrix while it parses), then the SRAT.
 * No locks: this runs once, on the boot CPU, before SMP.
 */
#include <keel/bootinfo.h>
#include <keel/errno.h>
#include <keel/nodemap.h>
#include <keel/string.h>

#include "acpi_priv.h"

#define SRAT_ENTRIES	     48
#define SLIT_MATRIX	     44
#define SLIT_MAX_LOCALITIES  1024
#define SRAT_ENABLED	     (1u << 0)
#define SRAT_MEM_HOTPLUG     (1u << 1)
#define SRAT_MEM_NONVOLATILE (1u << 2)

/* ---- SRAT --------------------------------------------------------- */

/* Bytes of the RAM ranges of @bi inside [@s, @e). */
static uint64_t ram_overlap(const struct bootinfo *bi, uint64_t s, uint64_t e)
{
	uint64_t bytes = 0;

	for (unsigned int i = 0; i < bi->ram.count; i++) {
		uint64_t rs = MAX(s, pa_val(bi->ram.regions[i].start));
		uint64_t re = MIN(e, pa_val(bi->ram.regions[i].end));

		if (rs < re)
			bytes += re - rs;
	}
	return bytes;
}

/**
 * acpi_reserve_persistent() - persistent memory is never RAM to keel
 * (issue 20 §2.4): each SRAT memory range with the non-volatile flag that
 * overlaps RAM of @bi is reserved as "persistent" (sanitise cuts it out of
 * the RAM: reserved wins). One info line when the SRAT has such ranges.
 * @bi: bootinfo whose RAM came from the memory map
 * @info: parsed tables
 */
void acpi_reserve_persistent(struct bootinfo *bi, const struct acpi_info *info)
{
	uint64_t nv_bytes = 0, in_ram = 0;
	unsigned int count = 0;

	for (unsigned int i = 0; info->numa_valid && i < info->memblk_count;
	     i++) {
		const struct region *m = &info->memblk[i];
		uint64_t s = pa_val(m->start), e = pa_val(m->end), r;

		if (!(m->flags & REGION_NONVOLATILE))
			continue;
		count++;
		nv_bytes += e - s;
		r = ram_overlap(bi, s, e);
		if (r &&
		    !bootinfo_add_reserved(bi, m->start, m->end, "persistent"))
			in_ram += r;
	}
	if (count)
		pr_info("ACPI SRAT: %u non-volatile memory range%s (%llu MiB) "
			"left out of RAM, %llu MiB of the memory map reserved "
			"as persistent\n",
			count, count == 1 ? "" : "s",
			(unsigned long long)(nv_bytes >> 20),
			(unsigned long long)(in_ram >> 20));
}

/* Fallback for any SRAT problem: one node, everything on node 0. */
static void numa_reset(struct acpi_info *info)
{
	unsigned int i, j;

	info->numa_valid = false;
	info->memblk_count = 0;
	info->node_count = 1;
	info->dropped_nodes = 0;
	nodemap_init(&info->nodemap, "ACPI SRAT");
	memset(info->node_used, 0, sizeof(info->node_used));
	memset(info->pxm, 0, sizeof(info->pxm));
	info->node_used[0] = true;
	for (i = 0; i < info->cpu_count; i++)
		info->cpus[i].node = 0;
	info->have_distance = false;
	for (i = 0; i < MAX_NUMNODES; i++)
		for (j = 0; j < MAX_NUMNODES; j++)
			info->distance[i][j] = i == j ? NODE_DISTANCE_LOCAL
						      : NODE_DISTANCE_REMOTE;
}

/* The proximity domain of an SRAT entry we read, or false if none. */
static bool srat_entry_pxm(const uint8_t *e, uint32_t *pxm)
{
	switch (e[0]) {
	case 0:
		if (!(acpi_get32(e + 4) & SRAT_ENABLED))
			return false;
		*pxm = e[2] | ((uint32_t)e[9] << 8) | ((uint32_t)e[10] << 16) |
		       ((uint32_t)e[11] << 24);
		return true;
	case 1:
		if (!(acpi_get32(e + 28) & SRAT_ENABLED))
			return false;
		*pxm = acpi_get32(e + 2);
		return true;
	case 2:
		if (!(acpi_get32(e + 12) & SRAT_ENABLED))
			return false;
		*pxm = acpi_get32(e + 4);
		return true;
	case 3:
		if (!(acpi_get32(e + 10) & SRAT_ENABLED))
			return false;
		*pxm = acpi_get32(e + 2);
		return true;
	default:
		return false;
	}
}

static uint8_t srat_min_len(uint8_t type)
{
	static const uint8_t min[] = {16, 40, 24, 18};

	return type < ARRAY_SIZE(min) ? min[type] : 0;
}

/* SLIT distance from PXM @a to PXM @b (its one fix applied), 0 if none. */
static unsigned int slit_distance(const void *ctx, uint32_t a, uint32_t b)
{
	const struct acpi_info *info = ctx;
	uint64_t n = info->slit_localities;

	if (!info->slit || a >= n || b >= n)
		return 0;
	if (info->slit_fixed && a == info->slit_fix_a && b == info->slit_fix_b)
		return info->slit_fix_v;
	return info->slit[a * n + b];
}

/* node_used[] and pxm[] from the finalised node map. */
static void srat_assign_nodes(struct acpi_info *info)
{
	for (uint32_t n = 0; n < MAX_NUMNODES; n++)
		info->node_used[n] =
			nodemap_fw_id(&info->nodemap, n, &info->pxm[n]);
}

static void srat_set_cpu_node(struct acpi_info *info, uint8_t type, uint64_t id,
			      uint32_t node)
{
	unsigned int i;

	for (i = 0; i < info->cpu_count; i++) {
		struct acpi_cpu *c = &info->cpus[i];
		bool match;

		if (type == 3)
			match = c->kind == ACPI_CPU_GICC && c->acpi_uid == id;
		else
			match = c->kind != ACPI_CPU_GICC && c->hwid == id;
		if (match)
			c->node = node;
	}
}

static void memblk_sort(struct region *m, unsigned int count)
{
	unsigned int i, j;

	for (i = 1; i < count; i++) {
		struct region t = m[i];

		for (j = i; j > 0 && pa_val(m[j - 1].start) > pa_val(t.start);
		     j--)
			m[j] = m[j - 1];
		m[j] = t;
	}
}

/*
 * The proximity domain of an SRAT entry keel uses, or false if none.
 * 0xffffffff is NUMA_NO_NODE, refused as Linux does: such an entry is
 * left out (its CPU is an orphan, its memory in no affinity range: the
 * fallbacks of srat_orphan_cpus() and acpi_apply_numa()).
 */
static bool srat_entry_node_pxm(const uint8_t *e, uint32_t *pxm)
{
	return srat_entry_pxm(e, pxm) && *pxm != NODE_FW_ID_NONE;
}

/* Pass 1: entry lengths and the set of proximity domains. */
static int srat_scan(struct acpi_info *info, const uint8_t *p, uint32_t tlen)
{
	unsigned int refused = 0;
	uint32_t off, pxm;

	for (off = SRAT_ENTRIES; off + 2 <= tlen; off += p[off + 1]) {
		const uint8_t *e = p + off;

		if (e[1] < 2 || e[1] > tlen - off ||
		    e[1] < srat_min_len(e[0])) {
			acpi_warn(info,
				  "SRAT: entry type %u at offset %u has "
				  "length %u (table length %u), using one node",
				  e[0], off, e[1], tlen);
			return -EINVAL;
		}
		if (srat_entry_node_pxm(e, &pxm))
			nodemap_add(&info->nodemap, pxm);
		else if (srat_entry_pxm(e, &pxm))
			refused++;
	}
	if (refused)
		acpi_warn(info,
			  "SRAT: %u entr%s with proximity domain 0xffffffff "
			  "(NUMA_NO_NODE) refused: their CPUs and memory get "
			  "no node from the SRAT",
			  refused, refused == 1 ? "y" : "ies");
	return 0;
}

/* Pass 2: memory ranges and CPU nodes. */
static int srat_fill(struct acpi_info *info, const uint8_t *p, uint32_t tlen)
{
	uint32_t off, pxm;

	for (off = SRAT_ENTRIES; off + 2 <= tlen; off += p[off + 1]) {
		const uint8_t *e = p + off;
		uint32_t node, flags;
		uint64_t base, size;
		struct region *m;

		if (!srat_entry_node_pxm(e, &pxm))
			continue;
		node = nodemap_node(&info->nodemap, pxm);
		switch (e[0]) {
		case 0:
			srat_set_cpu_node(info, 0, e[3], node);
			continue;
		case 2:
			srat_set_cpu_node(info, 2, acpi_get32(e + 8), node);
			continue;
		case 3:
			srat_set_cpu_node(info, 3, acpi_get32(e + 6), node);
			continue;
		}
		base = acpi_get64(e + 8);
		size = acpi_get64(e + 16);
		flags = acpi_get32(e + 28);
		if (!size)
			continue;
		if (base + size < base) {
			acpi_warn(info,
				  "SRAT: memory range base %#llx length "
				  "%#llx wraps, using one node",
				  (unsigned long long)base,
				  (unsigned long long)size);
			return -EINVAL;
		}
		if (info->memblk_count == ACPI_MAX_MEMBLKS) {
			acpi_warn(info,
				  "SRAT: more than %u memory ranges, "
				  "using one node",
				  ACPI_MAX_MEMBLKS);
			return -EINVAL;
		}
		m = &info->memblk[info->memblk_count++];
		m->start = pa(base);
		m->end = pa(base + size);
		m->node = node;
		m->flags =
			(flags & SRAT_MEM_HOTPLUG ? REGION_HOTPLUG : 0) |
			(flags & SRAT_MEM_NONVOLATILE ? REGION_NONVOLATILE : 0);
	}
	return 0;
}

/*
 * CPUs without an SRAT entry go to the lowest node in use (node 0 may not
 * exist when the PXMs start at 1); one warning names the first usable one.
 */
static void srat_orphan_cpus(struct acpi_info *info)
{
	unsigned int i, first = 0, orphans = 0;
	uint32_t node = 0;

	while (node < MAX_NUMNODES - 1 && !info->node_used[node])
		node++;
	for (i = 0; i < info->cpu_count; i++) {
		struct acpi_cpu *c = &info->cpus[i];

		if (c->node != NUMA_NO_NODE)
			continue;
		c->node = node;
		if (c->usable && !orphans++)
			first = i;
	}
	if (orphans)
		acpi_warn(info,
			  "SRAT: %u usable CPU(s) without affinity entry "
			  "(first hwid %#llx), using node %u",
			  orphans, (unsigned long long)info->cpus[first].hwid,
			  node);
}

static int slit_apply(struct acpi_info *info);

/**
 * acpi_parse_srat() - NUMA nodes of memory ranges and CPUs. Call after
 * acpi_parse_madt() so that CPU entries resolve. Proximity domains beyond
 * MAX_NUMNODES are folded (include/keel/nodemap.h) by the distances of a
 * SLIT parsed before, whose distances are then applied. Any problem falls
 * back to a single node.
 *
 * Return: 0, or -EINVAL (one warning printed, single node).
 */
int acpi_parse_srat(const void *buf, size_t len, struct acpi_info *info)
{
	const uint8_t *p = buf;
	uint32_t tlen = acpi_table_len(p, len);
	unsigned int i;

	numa_reset(info);
	if (tlen < SRAT_ENTRIES) {
		acpi_warn(info, "SRAT: length %u too short, using one node",
			  tlen);
		return -EINVAL;
	}
	if (srat_scan(info, p, tlen))
		goto fail;
	info->dropped_nodes =
		nodemap_finalise(&info->nodemap, slit_distance, info);
	if (info->dropped_nodes)
		info->warnings++;
	srat_assign_nodes(info);
	for (i = 0; i < info->cpu_count; i++)
		info->cpus[i].node = NUMA_NO_NODE;
	if (srat_fill(info, p, tlen))
		goto fail;
	if (!info->memblk_count) {
		acpi_warn(info, "SRAT: no enabled memory affinity entry, "
				"using one node");
		goto fail;
	}
	memblk_sort(info->memblk, info->memblk_count);
	for (i = 1; i < info->memblk_count; i++) {
		const struct region *a = &info->memblk[i - 1];
		const struct region *b = &info->memblk[i];

		if (pa_val(b->start) < pa_val(a->end)) {
			acpi_warn(info,
				  "SRAT: memory range [%#llx, %#llx) "
				  "overlaps [%#llx, %#llx), using one node",
				  (unsigned long long)pa_val(b->start),
				  (unsigned long long)pa_val(b->end),
				  (unsigned long long)pa_val(a->start),
				  (unsigned long long)pa_val(a->end));
			goto fail;
		}
	}
	info->node_count = 0;
	for (i = 0; i < MAX_NUMNODES; i++)
		if (info->node_used[i])
			info->node_count = i + 1;
	srat_orphan_cpus(info);
	info->numa_valid = true;
	info->tables |= ACPI_T_SRAT;
	if (info->slit)
		slit_apply(info);
	return 0;
fail:
	numa_reset(info);
	return -EINVAL;
}

/* ---- SLIT --------------------------------------------------------- */

static void slit_reject(struct acpi_info *info)
{
	unsigned int i, j;

	info->have_distance = false;
	info->slit = NULL;
	info->slit_fixed = false;
	for (i = 0; i < MAX_NUMNODES; i++)
		for (j = 0; j < MAX_NUMNODES; j++)
			info->distance[i][j] = i == j ? NODE_DISTANCE_LOCAL
						      : NODE_DISTANCE_REMOTE;
}

/*
 * What ACPI forbids (include/keel/bootinfo.h, "Node distances"): one bad
 * entry is mended (10 on the diagonal, else the reverse entry), more
 * reject the table. Asymmetric and 255 entries are fine.
 * Return: 0 or -EINVAL (warned).
 */
static int slit_check(struct acpi_info *info, const uint8_t *d, uint32_t n)
{
	uint32_t i, j, bi = 0, bj = 0, bad = 0;
	const char *why;
	uint8_t v;

	for (i = 0; i < n; i++) {
		for (j = 0; j < n; j++) {
			if (bootinfo_distance_problem(i, j, d[i * n + j]) &&
			    !bad++) {
				bi = i;
				bj = j;
			}
		}
	}
	if (!bad)
		return 0;
	v = d[bi * n + bj];
	why = bootinfo_distance_problem(bi, bj, v);
	if (bad > 1) {
		acpi_warn(info,
			  "SLIT: distance[%u][%u] = %u: %s (%u bad entries), "
			  "using 10/20",
			  bi, bj, v, why, bad);
		return -EINVAL;
	}
	info->slit_fixed = true;
	info->slit_fix_a = bi;
	info->slit_fix_b = bj;
	info->slit_fix_v = bi == bj ? NODE_DISTANCE_LOCAL : d[bj * n + bi];
	acpi_warn(info, "SLIT: distance[%u][%u] = %u: %s, using %u", bi, bj, v,
		  why, info->slit_fix_v);
	return 0;
}

/* Node distances from the SLIT's PXM rows. Return: 0 or -EINVAL (warned). */
static int slit_apply(struct acpi_info *info)
{
	unsigned int a, b;

	for (a = 0; a < MAX_NUMNODES; a++) {
		if (info->node_used[a] &&
		    info->pxm[a] >= info->slit_localities) {
			acpi_warn(info,
				  "SLIT: locality count %llu does not "
				  "cover proximity domain %u, using 10/20",
				  (unsigned long long)info->slit_localities,
				  info->pxm[a]);
			slit_reject(info);
			return -EINVAL;
		}
	}
	for (a = 0; a < MAX_NUMNODES; a++) {
		if (!info->node_used[a])
			continue;
		for (b = 0; b < MAX_NUMNODES; b++) {
			if (info->node_used[b])
				info->distance[a][b] = (uint8_t)slit_distance(
					info, info->pxm[a], info->pxm[b]);
		}
	}
	info->have_distance = true;
	info->tables |= ACPI_T_SLIT;
	return 0;
}

/**
 * acpi_parse_slit() - node distances, mapped from PXM rows to node ids.
 * Without a valid SRAT yet, the matrix is only checked and remembered
 * (@buf must stay readable until acpi_parse_srat() ran): the SRAT folds
 * extra domains by it and then applies it.
 *
 * Return: 0, or -EINVAL (one warning, distances 10/20).
 */
int acpi_parse_slit(const void *buf, size_t len, struct acpi_info *info)
{
	const uint8_t *p = buf;
	uint32_t tlen = acpi_table_len(p, len);
	uint64_t n;

	slit_reject(info);
	info->slit_localities = 0;
	if (tlen < SLIT_MATRIX) {
		acpi_warn(info, "SLIT: length %u too short, using 10/20", tlen);
		return -EINVAL;
	}
	n = acpi_get64(p + 36);
	info->slit_localities = n;
	if (n == 0 || n > SLIT_MAX_LOCALITIES || n * n > tlen - SLIT_MATRIX) {
		acpi_warn(info,
			  "SLIT: locality count %llu does not fit the "
			  "table length %u, using 10/20",
			  (unsigned long long)n, tlen);
		return -EINVAL;
	}
	if (slit_check(info, p + SLIT_MATRIX, (uint32_t)n))
		return -EINVAL;
	info->slit = p + SLIT_MATRIX;
	if (!info->numa_valid)
		return 0;
	return slit_apply(info);
}
