/* SPDX-License-Identifier: MIT */
/*
 * ACPI single-table parsers: MADT, SRAT, SLIT, FADT (+ \_S5 in the DSDT),
 * HPET, SPCR. Each takes the bytes of one table whose checksum and length
 * boot/acpi.c already checked, and trusts nothing inside it: every entry
 * length and every field offset is bounded by the table length before it
 * is read, so arbitrary bytes never cause a read outside @buf (the fuzzers
 * in tests/fuzz/acpi_*_fuzz.c call these directly).
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
#include <keel/errno.h>
#include <keel/nodemap.h>
#include <keel/string.h>

#include "acpi_priv.h"

#define MADT_ENTRIES		  44
#define SRAT_ENTRIES		  48
#define SLIT_MATRIX		  44
#define FADT_MIN_LEN		  116 /* ACPI 1.0 FADT */
#define SLIT_MAX_LOCALITIES	  1024

#define MADT_ENABLED		  (1u << 0)
#define MADT_LAPIC_ONLINE_CAPABLE (1u << 1)
#define MADT_GICC_ONLINE_CAPABLE  (1u << 3)
#define MPIDR_AFF_MASK		  0xff00ffffffULL

#define SRAT_ENABLED		  (1u << 0)
#define SRAT_MEM_HOTPLUG	  (1u << 1)
#define SRAT_MEM_NONVOLATILE	  (1u << 2)

#define FADT_TMR_VAL_EXT	  (1u << 8)
#define FADT_RESET_REG_SUP	  (1u << 10)
#define FADT_HW_REDUCED		  (1u << 20)

/* ---- MADT --------------------------------------------------------- */

static void madt_add_cpu(struct acpi_info *info, uint8_t kind, uint64_t hwid,
			 uint32_t uid, uint32_t flags, bool online_capable,
			 uint64_t hwid_boot)
{
	struct acpi_cpu *c;
	unsigned int i;

	for (i = 0; i < info->cpu_count; i++) {
		if (info->cpus[i].hwid == hwid) {
			acpi_warn(info,
				  "MADT: CPU hwid %#llx listed twice, "
				  "ignoring the second entry",
				  (unsigned long long)hwid);
			return;
		}
	}
	if (info->cpu_count >= ACPI_MAX_CPUS) {
		/*
		 * Counted only: acpi_fill_bootinfo() passes the count on and
		 * bootinfo_sanitise() prints the one line for all of them.
		 */
		info->cpu_dropped++;
		return;
	}
	c = &info->cpus[info->cpu_count++];
	memset(c, 0, sizeof(*c));
	c->kind = kind;
	c->hwid = hwid;
	c->acpi_uid = uid;
	c->usable = flags & MADT_ENABLED;
	c->online_capable = !c->usable && online_capable;
	if (c->usable)
		info->cpu_usable_count++;
	if (hwid == hwid_boot && !info->boot_cpu_found) {
		c->boot_cpu = true;
		info->boot_cpu_found = true;
	}
}

/* Minimum length of each MADT entry type we read (0: not read). */
static uint8_t madt_min_len(uint8_t type)
{
	switch (type) {
	case 0:
		return 8;
	case 5:
		return 12;
	case 9:
		return 16;
	case 0xb:
		return 76; /* ACPI 5.1 GICC; 6.x adds fields we ignore */
	case 0xc:
		return 24;
	default:
		return 0;
	}
}

/**
 * acpi_parse_madt() - CPUs and interrupt controller bases from the MADT.
 * Entries before a broken one (length 0 or past the table end) are kept.
 *
 * Return: 0, or -EINVAL when the table is too short or an entry is broken.
 */
int acpi_parse_madt(const void *buf, size_t len, uint64_t hwid_boot,
		    struct acpi_info *info)
{
	const uint8_t *p = buf;
	uint32_t tlen = acpi_table_len(p, len);
	uint32_t off;

	if (tlen < MADT_ENTRIES) {
		acpi_warn(info, "MADT: length %u too short, ignored", tlen);
		return -EINVAL;
	}
	info->lapic_base = acpi_get32(p + 36);
	info->madt_flags = acpi_get32(p + 40);

	for (off = MADT_ENTRIES; off + 2 <= tlen; off += p[off + 1]) {
		const uint8_t *e = p + off;
		uint8_t type = e[0], elen = e[1];

		if (elen < 2 || elen > tlen - off) {
			acpi_warn(info,
				  "MADT: entry type %u at offset %u has "
				  "length %u (table length %u), stopping",
				  type, off, elen, tlen);
			return -EINVAL;
		}
		if (elen < madt_min_len(type)) {
			acpi_warn(info,
				  "MADT: entry type %u at offset %u has "
				  "length %u < %u, skipped",
				  type, off, elen, madt_min_len(type));
			continue;
		}
		switch (type) {
		case 0:			  /* processor local APIC */
			if (e[3] == 0xff) /* listed as x2APIC instead */
				break;
			madt_add_cpu(info, ACPI_CPU_LAPIC, e[3], e[2],
				     acpi_get32(e + 4),
				     acpi_get32(e + 4) &
					     MADT_LAPIC_ONLINE_CAPABLE,
				     hwid_boot);
			break;
		case 5: /* local APIC address override */
			info->lapic_base = acpi_get64(e + 4);
			break;
		case 9: /* processor local x2APIC */
			if (acpi_get32(e + 4) == 0xffffffffu)
				break;
			madt_add_cpu(info, ACPI_CPU_X2APIC, acpi_get32(e + 4),
				     acpi_get32(e + 12), acpi_get32(e + 8),
				     acpi_get32(e + 8) &
					     MADT_LAPIC_ONLINE_CAPABLE,
				     hwid_boot);
			break;
		case 0xb: { /* GICC */
			uint64_t mpidr = acpi_get64(e + 68) & MPIDR_AFF_MASK;
			unsigned int before = info->cpu_count;

			madt_add_cpu(info, ACPI_CPU_GICC, mpidr,
				     acpi_get32(e + 8), acpi_get32(e + 12),
				     acpi_get32(e + 12) &
					     MADT_GICC_ONLINE_CAPABLE,
				     hwid_boot & MPIDR_AFF_MASK);
			if (info->cpu_count > before)
				info->cpus[before].gicc_cpu_if =
					acpi_get32(e + 4);
			break;
		}
		case 0xc: /* GIC distributor */
			info->gicd_base = acpi_get64(e + 8);
			info->gic_version = e[20];
			break;
		default: /* I/O APIC, overrides, NMIs, ITS...: not ours */
			break;
		}
	}
	info->tables |= ACPI_T_MADT;
	return 0;
}

/* ---- SRAT --------------------------------------------------------- */

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

static void memblk_sort(struct acpi_memblk *m, unsigned int count)
{
	unsigned int i, j;

	for (i = 1; i < count; i++) {
		struct acpi_memblk t = m[i];

		for (j = i; j > 0 && pa_val(m[j - 1].start) > pa_val(t.start);
		     j--)
			m[j] = m[j - 1];
		m[j] = t;
	}
}

/* Pass 1: entry lengths and the set of proximity domains. */
static int srat_scan(struct acpi_info *info, const uint8_t *p, uint32_t tlen)
{
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
		if (srat_entry_pxm(e, &pxm))
			nodemap_add(&info->nodemap, pxm);
	}
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
		struct acpi_memblk *m;

		if (!srat_entry_pxm(e, &pxm))
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
		m->pxm = pxm;
		m->hotplug = flags & SRAT_MEM_HOTPLUG;
		m->nonvolatile = flags & SRAT_MEM_NONVOLATILE;
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
		const struct acpi_memblk *a = &info->memblk[i - 1];
		const struct acpi_memblk *b = &info->memblk[i];

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

/* ---- FADT and \_S5 ------------------------------------------------ */

/**
 * acpi_parse_fadt() - PM timer, PM1 control, reset register, boot flags,
 * the DSDT address. Fields past the table's length (older revisions) are
 * left 0.
 *
 * Return: 0, or -EINVAL when shorter than an ACPI 1.0 FADT.
 */
int acpi_parse_fadt(const void *buf, size_t len, struct acpi_info *info)
{
	const uint8_t *p = buf;
	uint32_t tlen = acpi_table_len(p, len);
	uint32_t blk;

	if (tlen < FADT_MIN_LEN) {
		acpi_warn(info, "FACP: length %u < %u, ignored", tlen,
			  FADT_MIN_LEN);
		return -EINVAL;
	}
	info->fadt_revision = p[8];
	info->fadt_flags = acpi_get32(p + 112);
	info->hw_reduced = info->fadt_flags & FADT_HW_REDUCED;
	info->sci_irq = acpi_get16(p + 46);
	info->smi_cmd = acpi_get32(p + 48);
	info->acpi_enable = p[52];
	info->iapc_boot_arch = acpi_get16(p + 109);
	info->dsdt = pa(acpi_get32(p + 40));
	if (tlen >= 148 && acpi_get64(p + 140))
		info->dsdt = pa(acpi_get64(p + 140));

	/* PM timer: X_PM_TMR_BLK when present, else the I/O port. */
	if (tlen >= 220 && acpi_get64(p + 212)) {
		acpi_get_gas(p + 208, &info->pm_timer);
	} else if ((blk = acpi_get32(p + 76)) != 0) {
		if (p[91] == 4) {
			info->pm_timer =
				(struct acpi_gas){.space_id = ACPI_GAS_IO,
						  .bit_width = 32,
						  .address = blk};
		} else {
			acpi_warn(info,
				  "FACP: PM_TMR_LEN %u != 4, no PM "
				  "timer",
				  p[91]);
		}
	}
	info->pm_timer_bits = info->fadt_flags & FADT_TMR_VAL_EXT ? 32 : 24;

	/* PM1 control blocks (S5 power-off). */
	if (tlen >= 196 && acpi_get64(p + 176))
		acpi_get_gas(p + 172, &info->pm1a_cnt);
	else if ((blk = acpi_get32(p + 64)) != 0)
		info->pm1a_cnt = (struct acpi_gas){.space_id = ACPI_GAS_IO,
						   .bit_width = 16,
						   .address = blk};
	if (tlen >= 196 && acpi_get64(p + 188))
		acpi_get_gas(p + 184, &info->pm1b_cnt);
	else if ((blk = acpi_get32(p + 68)) != 0)
		info->pm1b_cnt = (struct acpi_gas){.space_id = ACPI_GAS_IO,
						   .bit_width = 16,
						   .address = blk};

	/* ACPI 2.0+ fields. */
	if (tlen >= 129) {
		acpi_get_gas(p + 116, &info->reset_reg);
		info->reset_value = p[128];
		info->reset_supported =
			(info->fadt_flags & FADT_RESET_REG_SUP) &&
			info->reset_reg.address;
	}
	if (tlen >= 131) {
		info->arm_boot_arch = acpi_get16(p + 129);
		info->psci_compliant = info->arm_boot_arch & 1;
		info->psci_use_hvc = info->arm_boot_arch & 2;
	}
	info->tables |= ACPI_T_FADT;
	return 0;
}

/* AML package length: bits 7:6 of the lead byte count the extra bytes. */
static bool aml_pkg_length(const uint8_t *p, size_t len, size_t *pos)
{
	size_t extra;

	if (*pos >= len)
		return false;
	extra = p[*pos] >> 6;
	*pos += 1 + extra;
	return *pos < len;
}

/**
 * acpi_find_s5() - find "Name (_S5_, Package () { SLP_TYPa, ... })".
 * The scan is bounded by @len; only a NameOp (0x08, optionally followed by
 * the root prefix '\') followed by "_S5_" and a PackageOp counts.
 *
 * Return: 0 with *slp_typ set, or -ENOENT.
 */
int acpi_find_s5(const void *aml, size_t len, uint8_t *slp_typ)
{
	const uint8_t *p = aml;
	size_t i, j;

	for (i = 1; i + 4 <= len; i++) {
		if (memcmp(p + i, "_S5_", 4))
			continue;
		if (p[i - 1] != 0x08 &&
		    !(p[i - 1] == '\\' && i >= 2 && p[i - 2] == 0x08))
			continue;
		j = i + 4;
		if (j >= len || p[j] != 0x12) /* PackageOp */
			continue;
		j++;
		if (!aml_pkg_length(p, len, &j))
			continue;
		j++; /* NumElements */
		if (j >= len)
			continue;
		switch (p[j]) {
		case 0x00: /* ZeroOp */
		case 0x01: /* OneOp */
			*slp_typ = p[j];
			return 0;
		case 0x0a: /* BytePrefix */
		case 0x0b: /* WordPrefix: SLP_TYP is 3 bits anyway */
		case 0x0c: /* DWordPrefix */
			if (j + 1 >= len)
				continue;
			*slp_typ = p[j + 1];
			return 0;
		default:
			continue;
		}
	}
	return -ENOENT;
}

/* ---- HPET, SPCR --------------------------------------------------- */

/**
 * acpi_parse_hpet() - the HPET's MMIO base.
 *
 * Return: 0, or -EINVAL (too short, not in memory space, or 0).
 */
int acpi_parse_hpet(const void *buf, size_t len, struct acpi_info *info)
{
	const uint8_t *p = buf;
	uint32_t tlen = acpi_table_len(p, len);
	struct acpi_gas g;

	if (tlen < 52) {
		acpi_warn(info, "HPET: length %u too short, ignored", tlen);
		return -EINVAL;
	}
	acpi_get_gas(p + 40, &g);
	if (g.space_id != ACPI_GAS_MEMORY || !g.address) {
		acpi_warn(info, "HPET: base address %#llx in space %u, ignored",
			  (unsigned long long)g.address, g.space_id);
		return -EINVAL;
	}
	info->hpet_base = g.address;
	info->tables |= ACPI_T_HPET;
	return 0;
}

/**
 * acpi_parse_spcr() - the firmware's console UART: interface type,
 * register block, baud rate.
 *
 * Return: 0, or -EINVAL (too short or no address).
 */
int acpi_parse_spcr(const void *buf, size_t len, struct acpi_info *info)
{
	static const uint32_t baud[8] = {0,	0, 0,	  9600,
					 19200, 0, 57600, 115200};
	const uint8_t *p = buf;
	uint32_t tlen = acpi_table_len(p, len);

	if (tlen < 52) {
		acpi_warn(info, "SPCR: length %u too short, ignored", tlen);
		return -EINVAL;
	}
	acpi_get_gas(p + 40, &info->spcr_reg);
	info->spcr_type = p[36];
	if (!info->spcr_reg.address) {
		/* Console redirection off in the firmware setup: not a fault. */
		pr_info("ACPI SPCR: base address 0 (console redirection off), "
			"ignored\n");
		return -EINVAL;
	}
	if (tlen >= 59)
		info->spcr_baud = p[58] < 8 ? baud[p[58]] : 0;
	info->tables |= ACPI_T_SPCR;
	return 0;
}
