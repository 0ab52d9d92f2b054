/* SPDX-License-Identifier: MIT */
/*
 * struct bootinfo: bootinfo_init(), the adders the firmware parsers use
 * (a full table drops with one warning; a full reserved table merges the
 * nearest ranges), and the queries the rest of keel reads it with.
 * bootinfo_sanitise(), which gives it the shape keel relies on, is in
 * boot/bootinfo_sanitise.c.
 *
 * No lock: the parsers run once on the boot CPU.
 */
#include <keel/bootinfo.h>
#include <keel/compiler.h>
#include <keel/errno.h>
#include <keel/printk.h>
#include <keel/string.h>

#include "boot_priv.h"

/**
 * bootinfo_init() - empty @bi for @protocol: no ranges, no CPUs,
 * el = -1, paddr_bits BOOTINFO_PADDR_BITS_DEFAULT.
 */
void bootinfo_init(struct bootinfo *bi, enum boot_protocol protocol)
{
	memset(bi, 0, sizeof(*bi));
	bi->protocol = protocol;
	bi->el = -1;
	bi->paddr_bits = BOOTINFO_PADDR_BITS_DEFAULT;
	for (unsigned int n = 0; n < MAX_NUMNODES; n++)
		bi->node_fw_id[n] = NODE_FW_ID_NONE;
}

/**
 * bootinfo_add_ram() - append RAM [start, end) on @node.
 * Return: 0, -EINVAL (end <= start) or -ENOSPC (table full).
 */
int bootinfo_add_ram(struct bootinfo *bi, paddr_t start, paddr_t end,
		     uint32_t node)
{
	struct bi_ram *r;

	if (pa_val(end) <= pa_val(start)) {
		fix_warn(bi, "ram [%#llx, %#llx) is empty, dropped",
			 U64(pa_val(start)), U64(pa_val(end)));
		bi->dropped_ram++;
		return -EINVAL;
	}
	if (bi->ram_count >= BOOTINFO_MAX_RAM) {
		fix_warn(bi, "ram [%#llx, %#llx): more than %u ranges, dropped",
			 U64(pa_val(start)), U64(pa_val(end)),
			 BOOTINFO_MAX_RAM);
		bi->dropped_ram++;
		return -ENOSPC;
	}
	r = &bi->ram[bi->ram_count++];
	r->start = start;
	r->end = end;
	r->node = node;
	return 0;
}

static int cmp_reserved(const void *a, const void *b)
{
	uint64_t x = pa_val(((const struct bi_reserved *)a)->start);
	uint64_t y = pa_val(((const struct bi_reserved *)b)->start);

	return (x > y) - (x < y);
}

/*
 * The table is full and [start, end) must still be reserved: sort the
 * table by start and merge the two neighbours with the smallest gap, which
 * frees one slot. The new range takes part: it is merged if it is nearest.
 * Every byte reserved before stays reserved; the gap joins them.
 */
static void reserved_merge_nearest(struct bootinfo *bi, paddr_t start,
				   paddr_t end, const char *name)
{
	static struct bi_reserved tab[BOOTINFO_MAX_RESERVED + 1];
	unsigned int n = bi->reserved_count, best = 0;
	uint64_t best_gap = ~0ULL, reach = 0;

	memcpy(tab, bi->reserved, n * sizeof(tab[0]));
	tab[n].start = start;
	tab[n].end = end;
	strlcpy(tab[n].name, name, sizeof(tab[n].name));
	n++;
	sort(tab, n, sizeof(tab[0]), cmp_reserved);
	for (unsigned int i = 0; i + 1 < n; i++) {
		/* Overlapping ranges have gap 0: they merge first. */
		uint64_t gap;

		reach = MAX(reach, pa_val(tab[i].end));
		gap = pa_val(tab[i + 1].start) > reach
			      ? pa_val(tab[i + 1].start) - reach
			      : 0;
		if (gap < best_gap) {
			best_gap = gap;
			best = i;
		}
	}
	if (!bi->merged_reserved++)
		fix_warn(bi,
			 "more than %u reserved ranges: merging the nearest "
			 "ones, the bytes between them are reserved too",
			 BOOTINFO_MAX_RESERVED);
	bi->merged_reserved_gap += best_gap;
	tab[best].end =
		pa(MAX(pa_val(tab[best].end), pa_val(tab[best + 1].end)));
	tab[best].name[sizeof(tab[best].name) - 1] = '\0';
	if (strncmp(tab[best].name, tab[best + 1].name, sizeof(tab[0].name)))
		strlcpy(tab[best].name, "merged", sizeof(tab[best].name));
	memmove(&tab[best + 1], &tab[best + 2],
		(n - best - 2) * sizeof(tab[0]));
	n--;
	memcpy(bi->reserved, tab, n * sizeof(tab[0]));
	bi->reserved_count = n;
}

/**
 * bootinfo_add_reserved() - append reserved [start, end) named @name.
 * Return: 0 or -EINVAL (end <= start). A full table merges (see the
 * header); nothing reserved is ever dropped for want of room.
 */
int bootinfo_add_reserved(struct bootinfo *bi, paddr_t start, paddr_t end,
			  const char *name)
{
	struct bi_reserved *r;

	if (!name || !*name)
		name = "reserved";
	if (pa_val(end) <= pa_val(start)) {
		fix_warn(bi, "reserved %s [%#llx, %#llx) is empty, dropped",
			 name, U64(pa_val(start)), U64(pa_val(end)));
		bi->dropped_reserved++;
		return -EINVAL;
	}
	if (bi->reserved_count >= BOOTINFO_MAX_RESERVED) {
		bi->reserved_count = BOOTINFO_MAX_RESERVED;
		reserved_merge_nearest(bi, start, end, name);
		return 0;
	}
	r = &bi->reserved[bi->reserved_count++];
	r->start = start;
	r->end = end;
	strlcpy(r->name, name, sizeof(r->name));
	return 0;
}

/**
 * bootinfo_add_cpu() - append a CPU (not the boot CPU; the arch marks that).
 * Return: 0 or -ENOSPC (more than CONFIG_NR_CPUS).
 */
int bootinfo_add_cpu(struct bootinfo *bi, uint64_t hwid, uint32_t node,
		     uint32_t package, uint32_t core, uint32_t thread,
		     bool usable)
{
	struct bi_cpu *c;

	if (bi->cpu_count >= CONFIG_NR_CPUS) {
		/* Counted here, warned about once by bootinfo_sanitise(). */
		bi->cpus_over_cap++;
		bi->dropped_cpus++;
		return -ENOSPC;
	}
	c = &bi->cpus[bi->cpu_count++];
	memset(c, 0, sizeof(*c));
	c->hwid = hwid;
	c->node = node;
	c->package = package;
	c->core = core;
	c->thread = thread;
	c->usable = usable;
	return 0;
}

/**
 * bootinfo_set_distance() - record distance[a][b] = @d (one direction;
 * sanitise fills an unset reverse from it).
 */
void bootinfo_set_distance(struct bootinfo *bi, uint32_t a, uint32_t b,
			   uint8_t d)
{
	if (a >= MAX_NUMNODES || b >= MAX_NUMNODES) {
		fix_warn(bi, "distance %u %u: node id >= %u, ignored", a, b,
			 (unsigned int)MAX_NUMNODES);
		return;
	}
	bi->distance[a][b] = d;
	bi->have_distance = true;
}

/**
 * bootinfo_distance_problem() - why @v cannot be distance[@a][@b].
 * Return: NULL when it can (10 on the diagonal, 11..255 elsewhere).
 */
const char *bootinfo_distance_problem(uint32_t a, uint32_t b, uint32_t v)
{
	if (a == b)
		return v == NODE_DISTANCE_LOCAL ? NULL
						: "a local distance must be 10";
	if (v <= NODE_DISTANCE_LOCAL)
		return "a remote distance must be above 10";
	if (v > NODE_DISTANCE_UNREACHABLE)
		return "above 255 (unreachable)";
	return NULL;
}

/**
 * bootinfo_node_ram_bytes() - RAM described by @bi on @node, or on every
 * node for NUMA_NO_NODE.
 * Return: bytes (meaningful after sanitise, when ranges do not overlap).
 */
uint64_t bootinfo_node_ram_bytes(const struct bootinfo *bi, uint32_t node)
{
	uint64_t total = 0;

	for (unsigned int i = 0; i < bi->ram_count && i < BOOTINFO_MAX_RAM; i++)
		if (node == NUMA_NO_NODE || bi->ram[i].node == node)
			total += pa_val(bi->ram[i].end) -
				 pa_val(bi->ram[i].start);
	return total;
}

/** bootinfo_ram_bytes() - Return: all RAM described by @bi. */
uint64_t bootinfo_ram_bytes(const struct bootinfo *bi)
{
	return bootinfo_node_ram_bytes(bi, NUMA_NO_NODE);
}

/**
 * boot_protocol_name() - the report's name of @p.
 * Return: "multiboot1", "multiboot2", "dt", "efi", "sandbox" or "unknown".
 */
const char *boot_protocol_name(enum boot_protocol p)
{
	switch (p) {
	case BOOT_MULTIBOOT1:
		return "multiboot1";
	case BOOT_MULTIBOOT2:
		return "multiboot2";
	case BOOT_DT:
		return "dt";
	case BOOT_EFI:
		return "efi";
	case BOOT_SANDBOX:
		return "sandbox";
	default:
		return "unknown";
	}
}
