/* SPDX-License-Identifier: MIT */
/*
 * Parsed ACPI tables (struct acpi_info, boot/acpi/acpi.c) into struct bootinfo:
 * the MADT's CPUs, the SLIT's distances and the RSDP
 * (acpi_fill_bootinfo()), and the SRAT's nodes onto RAM that came from
 * elsewhere (the e820 or UEFI map), splitting a range that spans two
 * memory affinity blocks (acpi_apply_numa()). RAM itself never comes from
 * ACPI.
 */
#include <keel/compiler.h>
#include <keel/errno.h>
#include <keel/string.h>

#include "acpi_priv.h"

/**
 * acpi_fill_bootinfo() - CPUs, distances and the RSDP into @bi.
 *
 * Return: the number of CPUs added.
 */
unsigned int acpi_fill_bootinfo(struct bootinfo *bi,
				const struct acpi_info *info)
{
	unsigned int i, a, b, added = 0;

	for (i = 0; i < info->cpu_count; i++) {
		const struct acpi_cpu *c = &info->cpus[i];
		uint32_t node = info->numa_valid ? c->node : 0;

		if (bootinfo_add_cpu(bi, c->hwid, node, 0, 0, 0, c->usable))
			continue;
		bi->cpus[bi->cpu_count - 1].boot_cpu = c->boot_cpu;
		added++;
	}
	if (info->numa_valid && info->have_distance) {
		for (a = 0; a < MAX_NUMNODES; a++) {
			if (!info->node_used[a])
				continue;
			for (b = 0; b < MAX_NUMNODES; b++)
				if (info->node_used[b])
					bootinfo_set_distance(
						bi, a, b, info->distance[a][b]);
		}
		bi->have_distance = true;
	}
	if (info->numa_valid) {
		bi->dropped_nodes += info->dropped_nodes;
		nodemap_export_fw_ids(&info->nodemap, bi);
	}
	/* Beyond the MADT table's NR_CPUS entries: one warning in sanitise. */
	bi->cpus_over_cap += info->cpu_dropped;
	bi->dropped_cpus += info->cpu_dropped;
	bi->acpi_rsdp = info->rsdp;
	return added;
}

/* The SRAT range containing @addr, or NULL. */
static const struct region *memblk_at(const struct acpi_info *info,
				      uint64_t addr)
{
	unsigned int i;

	for (i = 0; i < info->memblk_count; i++)
		if (addr >= pa_val(info->memblk[i].start) &&
		    addr < pa_val(info->memblk[i].end))
			return &info->memblk[i];
	return NULL;
}

/*
 * For uncovered @addr: the node of the nearest SRAT range below it (of the
 * lowest range when none is below: node 0 may not exist) and the start of
 * the next range above it (where coverage resumes).
 */
static uint32_t memblk_gap(const struct acpi_info *info, uint64_t addr,
			   uint64_t *next)
{
	uint32_t node = info->memblk[0].node; /* numa_valid: count >= 1 */
	unsigned int i;

	*next = ~0ULL;
	for (i = 0; i < info->memblk_count; i++) { /* sorted by start */
		const struct region *m = &info->memblk[i];

		if (pa_val(m->end) <= addr)
			node = m->node;
		else if (pa_val(m->start) > addr && pa_val(m->start) < *next)
			*next = pa_val(m->start);
	}
	return node;
}

/**
 * acpi_apply_numa() - label RAM ranges with SRAT nodes, splitting them at
 * SRAT boundaries (see include/keel/acpi.h).
 */
void acpi_apply_numa(struct bootinfo *bi, const struct acpi_info *info)
{
	bool warned = false;
	unsigned int i;

	for (i = 0; i < bi->ram.count; i++) {
		struct region *r = &bi->ram.regions[i];
		uint64_t s = pa_val(r->start), e = pa_val(r->end), cut;
		const struct region *m;
		uint32_t node;

		if (!info->numa_valid || s >= e) {
			r->node = 0;
			continue;
		}
		m = memblk_at(info, s);
		if (m) {
			node = m->node;
			cut = pa_val(m->end);
		} else {
			node = memblk_gap(info, s, &cut);
			if (!warned) {
				pr_warn("ACPI SRAT: RAM [%#llx, %#llx) is in "
					"no memory affinity range, using node "
					"%u\n",
					(unsigned long long)s,
					(unsigned long long)MIN(e, cut), node);
				warned = true;
			}
		}
		r->node = node;
		if (cut >= e)
			continue;
		/* The remainder is appended and labelled later in this loop. */
		if (bi->ram.count >= bi->ram.cap &&
		    !range_table_double(&bi->ram)) {
			pr_warn("ACPI SRAT: no room to split RAM at %#llx, "
				"[%#llx, %#llx) stays on node %u\n",
				(unsigned long long)cut, (unsigned long long)s,
				(unsigned long long)e, node);
			continue;
		}
		/* The table may have moved as it grew. */
		r = &bi->ram.regions[i];
		r->end = pa(cut);
		/* No node yet: with @node it would merge back into r. */
		bootinfo_add_ram(bi, pa(cut), pa(e), NUMA_NO_NODE);
	}
	acpi_reserve_persistent(bi, info);
}
