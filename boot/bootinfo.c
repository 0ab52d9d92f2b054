/* SPDX-License-Identifier: MIT */
/*
 * struct bootinfo: the adders the firmware parsers use, and
 * bootinfo_sanitise(), which turns whatever the firmware said into the
 * shape the rest of keel relies on:
 *
 *  - RAM: page-aligned (trimmed inwards), clamped to paddr_bits, non-empty,
 *    sorted by start, non-overlapping, adjacent ranges of one node merged;
 *    where RAM of two nodes overlaps the lower node id keeps it.
 *  - reserved: page-aligned outwards, non-empty, otherwise as given
 *    (overlaps allowed: "reserved wins" is applied by bootmem).
 *  - node ids < node_count <= MAX_NUMNODES, node_count >= 1; distance
 *    matrix valid for [0, node_count)^2: 10 on the diagonal, 11..255
 *    elsewhere (asymmetric allowed, 255 = unreachable); one bad entry is
 *    mended, more mean 10/20 (include/keel/bootinfo.h, "Node distances").
 *  - CPUs: 1 <= cpu_count, hwids unique, exactly one boot_cpu, which is
 *    usable and sits at index 0 (logical CPU 0 is the boot CPU).
 *
 * Every fix prints one warning and counts in bi->fixups. Rounding a
 * reserved range outwards is routine (loader structures sit at arbitrary
 * addresses) and only logged at debug level.
 *
 * No lock: runs once on the boot CPU. The scratch arrays of the overlap
 * resolution are static to keep them off small boot stacks.
 */
#include <keel/bootinfo.h>
#include <keel/compiler.h>
#include <keel/errno.h>
#include <keel/printk.h>
#include <keel/string.h>

#define fix_warn(bi, fmt, ...)                                 \
	do {                                                   \
		(bi)->fixups++;                                \
		pr_warn("bootinfo: " fmt "\n", ##__VA_ARGS__); \
	} while (0)

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

/* --- sanitise ------------------------------------------------------- */

static uint32_t fix_node(struct bootinfo *bi, uint32_t node, const char *what,
			 uint64_t id)
{
	if (node < MAX_NUMNODES)
		return node;
	if (node == NUMA_NO_NODE)
		fix_warn(bi, "%s %#llx has no node, using node 0", what,
			 U64(id));
	else
		fix_warn(bi, "%s %#llx: node %u >= %u, using node 0", what,
			 U64(id), node, (unsigned int)MAX_NUMNODES);
	return 0;
}

/* Clamp, trim to pages and drop empty RAM ranges, compacting the table. */
static void ram_trim(struct bootinfo *bi, uint64_t limit)
{
	unsigned int out = 0;

	for (unsigned int i = 0; i < bi->ram_count; i++) {
		struct bi_ram r = bi->ram[i];
		uint64_t s = pa_val(r.start), e = pa_val(r.end);
		uint64_t ns, ne;

		r.node = fix_node(bi, r.node, "ram at", s);
		if (s >= limit) {
			fix_warn(bi,
				 "ram [%#llx, %#llx) above the %u-bit address "
				 "limit, dropped",
				 U64(s), U64(e), bi->paddr_bits);
			bi->dropped_ram++;
			continue;
		}
		if (e > limit) {
			fix_warn(bi,
				 "ram [%#llx, %#llx) above the %u-bit address "
				 "limit, clamped",
				 U64(s), U64(e), bi->paddr_bits);
			e = limit;
		}
		ns = s > PAGE_MASK ? e : ALIGN_UP(s, PAGE_SIZE);
		ne = ALIGN_DOWN(e, PAGE_SIZE);
		if (ns >= ne) {
			fix_warn(bi,
				 "ram [%#llx, %#llx) holds no whole page, "
				 "dropped",
				 U64(s), U64(pa_val(r.end)));
			bi->dropped_ram++;
			continue;
		}
		/*
		 * Not a fault of the map: a PC BIOS ends low RAM where the
		 * EBDA starts (0x9fc00), so an info line, not a warning.
		 */
		if (ns != s || ne != e)
			pr_info("bootinfo: ram [%#llx, %#llx) trimmed to pages "
				"[%#llx, %#llx)\n",
				U64(s), U64(e), U64(ns), U64(ne));
		r.start = pa(ns);
		r.end = pa(ne);
		bi->ram[out++] = r;
	}
	bi->ram_count = out;
}

static uint64_t ram_points[2 * BOOTINFO_MAX_RAM];
static struct bi_ram ram_out[BOOTINFO_MAX_RAM];

/*
 * Sort, merge and resolve overlaps: cut the address space at every range
 * boundary; each elementary piece covered by some range goes to the
 * lowest node covering it. O(n^2) for n <= BOOTINFO_MAX_RAM, once a boot.
 */
static void ram_resolve(struct bootinfo *bi)
{
	unsigned int np = 0, out = 0;
	bool warned_cross = false;

	for (unsigned int i = 0; i < bi->ram_count; i++) {
		ram_points[np++] = pa_val(bi->ram[i].start);
		ram_points[np++] = pa_val(bi->ram[i].end);
	}
	sort(ram_points, np, sizeof(ram_points[0]), cmp_u64);

	for (unsigned int p = 0; p + 1 < np; p++) {
		uint64_t s = ram_points[p], e = ram_points[p + 1];
		uint32_t node = NUMA_NO_NODE;
		unsigned int covers = 0;
		int first = -1, other = -1;

		if (s == e)
			continue;
		for (unsigned int i = 0; i < bi->ram_count; i++) {
			const struct bi_ram *r = &bi->ram[i];

			if (pa_val(r->start) > s || pa_val(r->end) < e)
				continue;
			covers++;
			if (first < 0)
				first = (int)i;
			else if (other < 0)
				other = (int)i;
			if (r->node < node)
				node = r->node;
		}
		if (!covers)
			continue;
		if (covers > 1) {
			const struct bi_ram *a = &bi->ram[first];
			const struct bi_ram *b = &bi->ram[other];

			if (a->node == b->node) {
				fix_warn(bi,
					 "ram [%#llx, %#llx) listed twice on "
					 "node %u, merged",
					 U64(s), U64(e), a->node);
			} else if (!warned_cross) {
				/* One warning for the whole disagreement. */
				warned_cross = true;
				fix_warn(bi,
					 "ram [%#llx, %#llx) claimed by nodes "
					 "%u and %u, node %u keeps it",
					 U64(s), U64(e), a->node, b->node,
					 node);
			}
		}
		if (out && pa_val(ram_out[out - 1].end) == s &&
		    ram_out[out - 1].node == node) {
			ram_out[out - 1].end = pa(e);
			continue;
		}
		if (out >= BOOTINFO_MAX_RAM) {
			fix_warn(bi,
				 "ram [%#llx, %#llx): too many pieces after "
				 "resolving overlaps, dropped",
				 U64(s), U64(e));
			bi->dropped_ram++;
			continue;
		}
		ram_out[out].start = pa(s);
		ram_out[out].end = pa(e);
		ram_out[out].node = node;
		out++;
	}
	memcpy(bi->ram, ram_out, out * sizeof(ram_out[0]));
	bi->ram_count = out;
}

static void reserved_trim(struct bootinfo *bi)
{
	unsigned int out = 0;

	for (unsigned int i = 0; i < bi->reserved_count; i++) {
		struct bi_reserved r = bi->reserved[i];
		uint64_t s = pa_val(r.start), e = pa_val(r.end);
		uint64_t ns = ALIGN_DOWN(s, PAGE_SIZE);
		uint64_t ne =
			e > PAGE_MASK ? PAGE_MASK : ALIGN_UP(e, PAGE_SIZE);

		r.name[sizeof(r.name) - 1] = '\0';
		if (e <= s) {
			fix_warn(bi,
				 "reserved %s [%#llx, %#llx) is empty, dropped",
				 r.name, U64(s), U64(e));
			bi->dropped_reserved++;
			continue;
		}
		if (ns >= ne) {
			/* Inside the last page of the address space: no RAM
			 * can be there (RAM ends at PAGE_MASK at most). */
			pr_debug("bootinfo: reserved %s [%#llx, %#llx) beyond "
				 "RAM, dropped\n",
				 r.name, U64(s), U64(e));
			continue;
		}
		if (ns != s || ne != e)
			pr_debug("bootinfo: reserved %s [%#llx, %#llx) rounded "
				 "to pages\n",
				 r.name, U64(s), U64(e));
		r.start = pa(ns);
		r.end = pa(ne);
		bi->reserved[out++] = r;
	}
	bi->reserved_count = out;
}

static void cpus_fix(struct bootinfo *bi)
{
	unsigned int out = 0, boot = ~0u;

	if (bi->cpu_count > CONFIG_NR_CPUS)
		bi->cpu_count = CONFIG_NR_CPUS;
	/* One line for the whole table, never one per CPU, and only once. */
	if (bi->cpus_over_cap && !bi->cpus_over_cap_said) {
		bi->cpus_over_cap_said = true;
		fix_warn(bi,
			 "firmware describes %u CPUs, this build holds %u "
			 "(CONFIG_NR_CPUS): %u dropped",
			 (unsigned int)CONFIG_NR_CPUS + bi->cpus_over_cap,
			 (unsigned int)CONFIG_NR_CPUS, bi->cpus_over_cap);
	}
	for (unsigned int i = 0; i < bi->cpu_count; i++) {
		struct bi_cpu c = bi->cpus[i];
		bool dup = false;

		c.node = fix_node(bi, c.node, "cpu hwid", c.hwid);
		for (unsigned int j = 0; j < out; j++) {
			if (bi->cpus[j].hwid != c.hwid)
				continue;
			dup = true;
			fix_warn(bi,
				 "cpu hwid %#llx listed twice, dropped the "
				 "second",
				 U64(c.hwid));
			bi->dropped_cpus++;
			/* The boot flag survives on the entry that stays. */
			if (c.boot_cpu)
				bi->cpus[j].boot_cpu = true;
			break;
		}
		if (!dup)
			bi->cpus[out++] = c;
	}
	bi->cpu_count = out;

	if (!bi->cpu_count) {
		fix_warn(bi, "no CPUs described, assuming one boot CPU (hwid "
			     "0, node 0)");
		bootinfo_add_cpu(bi, 0, 0, 0, 0, 0, true);
		bi->cpus[0].boot_cpu = true;
	}
	for (unsigned int i = 0; i < bi->cpu_count; i++) {
		if (!bi->cpus[i].boot_cpu)
			continue;
		if (boot == ~0u) {
			boot = i;
			continue;
		}
		fix_warn(bi, "cpu hwid %#llx also marked as boot CPU, cleared",
			 U64(bi->cpus[i].hwid));
		bi->cpus[i].boot_cpu = false;
	}
	if (boot == ~0u) {
		fix_warn(bi, "no boot CPU marked, using the first (hwid %#llx)",
			 U64(bi->cpus[0].hwid));
		boot = 0;
		bi->cpus[0].boot_cpu = true;
	}
	if (!bi->cpus[boot].usable) {
		fix_warn(bi,
			 "boot CPU hwid %#llx marked unusable, it runs anyway",
			 U64(bi->cpus[boot].hwid));
		bi->cpus[boot].usable = true;
	}
	/* Logical CPU 0 is the boot CPU: rotate it to the front. */
	if (boot) {
		struct bi_cpu c = bi->cpus[boot];

		memmove(&bi->cpus[1], &bi->cpus[0], boot * sizeof(c));
		bi->cpus[0] = c;
	}
}

/*
 * Fill what was not given, then apply the policy of include/keel/bootinfo.h
 * ("Node distances"): asymmetric and unreachable (255) entries stay, one
 * bad entry is mended, two or more mean 10/20 for all nodes.
 */
static void distance_fix(struct bootinfo *bi)
{
	unsigned int n = bi->node_count, bad = 0, ba = 0, bb = 0;
	bool ok = bi->have_distance;

	/* 0 = not given: diagonal 10, else the valid reverse, else 20. */
	for (unsigned int a = 0; ok && a < n; a++) {
		for (unsigned int b = 0; b < n; b++) {
			uint8_t *d = &bi->distance[a][b];
			uint8_t rev = bi->distance[b][a];

			if (*d)
				continue;
			if (a == b)
				*d = NODE_DISTANCE_LOCAL;
			else if (rev && !bootinfo_distance_problem(b, a, rev))
				*d = rev;
			else
				*d = NODE_DISTANCE_REMOTE;
		}
	}
	for (unsigned int a = 0; ok && a < n; a++) {
		for (unsigned int b = 0; b < n; b++) {
			if (bootinfo_distance_problem(a, b,
						      bi->distance[a][b]) &&
			    !bad++) {
				ba = a;
				bb = b;
			}
		}
	}
	if (bad == 1) {
		/* The reverse is valid: only this entry is bad. */
		uint8_t *d = &bi->distance[ba][bb];
		uint8_t to =
			ba == bb ? NODE_DISTANCE_LOCAL : bi->distance[bb][ba];

		fix_warn(bi, "distance %u %u = %u: %s, using %u", ba, bb, *d,
			 bootinfo_distance_problem(ba, bb, *d), to);
		*d = to;
	} else if (bad) {
		fix_warn(
			bi,
			"distance %u %u = %u: %s (%u bad entries), using "
			"10/20 for all nodes",
			ba, bb, bi->distance[ba][bb],
			bootinfo_distance_problem(ba, bb, bi->distance[ba][bb]),
			bad);
		ok = false;
	}
	if (!ok)
		bi->have_distance = false;
	for (unsigned int a = 0; a < MAX_NUMNODES; a++)
		for (unsigned int b = 0; b < MAX_NUMNODES; b++)
			if (!ok || a >= n || b >= n)
				bi->distance[a][b] =
					a == b ? NODE_DISTANCE_LOCAL
					       : NODE_DISTANCE_REMOTE;
}

/**
 * bootinfo_sanitise() - make @bi consistent (see the top of this file and
 * include/keel/bootinfo.h). Idempotent: a second call changes nothing and
 * warns about nothing.
 */
void bootinfo_sanitise(struct bootinfo *bi)
{
	uint64_t limit;
	uint32_t top = 0;

	if (bi->paddr_bits < 32 || bi->paddr_bits > 64) {
		fix_warn(bi, "paddr_bits %u out of range, using %u",
			 bi->paddr_bits, BOOTINFO_PADDR_BITS_DEFAULT);
		bi->paddr_bits = BOOTINFO_PADDR_BITS_DEFAULT;
	}
	limit = bi->paddr_bits == 64 ? ~0ULL : 1ULL << bi->paddr_bits;
	if (bi->ram_count > BOOTINFO_MAX_RAM)
		bi->ram_count = BOOTINFO_MAX_RAM;
	if (bi->reserved_count > BOOTINFO_MAX_RESERVED)
		bi->reserved_count = BOOTINFO_MAX_RESERVED;
	bi->loader[sizeof(bi->loader) - 1] = '\0';
	bi->cmdline[sizeof(bi->cmdline) - 1] = '\0';

	ram_trim(bi, limit);
	ram_resolve(bi);
	reserved_trim(bi);
	cpus_fix(bi);

	for (unsigned int i = 0; i < bi->ram_count; i++)
		top = MAX(top, bi->ram[i].node);
	for (unsigned int i = 0; i < bi->cpu_count; i++)
		top = MAX(top, bi->cpus[i].node);
	bi->node_count = top + 1;
	distance_fix(bi);
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
