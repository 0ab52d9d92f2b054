/* SPDX-License-Identifier: MIT */
/*
 * Owner: boot (data: common/ reads it).
 * struct bootinfo: everything the firmware told us, in one arch-neutral
 * shape. The boot/ parsers fill it (multiboot1/2, FDT, ACPI, the sandbox
 * firmware description), bootinfo_sanitise() makes it consistent, and
 * common/boot.c consumes it. Nothing here touches hardware.
 */
#ifndef KEEL_BOOTINFO_H
#define KEEL_BOOTINFO_H

#include <keel/config.h>
#include <keel/handover.h>
#include <keel/lattice.h>
#include <keel/node_limits.h>
#include <keel/range_table.h>
#include <keel/types.h>

/* The static slots of the RAM and reserved tables (they grow past them). */
#define BOOTINFO_MAX_RAM      512
#define BOOTINFO_MAX_RESERVED 512
#define BOOTINFO_CMDLINE_MAX  4096
#define BOOTINFO_NAME_MAX     REGION_NAME_MAX
/* The early pool the tables grow into before bootmem (boot/bootinfo.c). */
#define BOOTINFO_EARLY_POOL_BYTES ((size_t)CONFIG_BOOTINFO_EARLY_POOL_KB << 10)
#define BOOTINFO_MAX_DOMAINS \
	64 /* dom0less domains kept (boot/fdt/fdt_dom0less.c) */
/*
 * A dom0less node's name is kept whole up to 63 bytes (a longer one is
 * refused with a warning: never cut); its xen,static-mem holds at most 8
 * ranges (more: all reserved, the domain refused); `cpus` above 4096 is
 * not a vCPU count (warned, ignored).
 */
#define BOOTINFO_DOMAIN_NAME_MAX   64
#define BOOTINFO_DOMAIN_STATIC_MAX 8
#define BOOTINFO_DOMAIN_VCPUS_MAX  4096
#define BOOTINFO_REFUSED_MAX	   128
/* badram= patterns kept as patterns (struct bootinfo's @lattice). */
#define BOOTINFO_LATTICE_MAX 16

/*
 * Node distances (ACPI SLIT semantics, also for the DT distance-map and the
 * sandbox `distance A B V` lines): distance[a][b] is the cost seen from
 * node a (its CPUs) reaching node b (its memory). ACPI allows
 * distance[a][b] != distance[b][a], and so does keel: an asymmetric matrix
 * is kept as given. What ACPI forbids is rejected: a local distance
 * (a == b) other than 10, a remote one <= 10. 255 means "unreachable": it
 * is kept and ranks after every reachable node (a helper or fallback node
 * is never one that is unreachable unless nothing else exists).
 *
 * A bad entry costs only itself when it is the only one: it takes 10 on
 * the diagonal, else the reverse distance[b][a] (valid, as only one entry
 * is bad), with one warning naming it. Two or more bad entries mean the
 * matrix as a whole cannot be trusted (a wrong locality count, a garbled
 * table): it is replaced by 10/20 with one warning naming the first bad
 * entry and the count. The SLIT parser applies this to the table in PXM
 * terms, the DT parser to the distance-matrix triplets (a single bad
 * triplet is skipped), the sandbox parser skips each bad line with its
 * own line warning, and bootinfo_sanitise() applies it once more to the
 * node matrix for whatever a parser let through.
 *
 * Directions, used by common/mm/numa.c: allocations for node n fall back in
 * the order of distance[n][other]; a memory-only node m is scrubbed by the
 * node h with CPUs that minimises distance[h][m] (h's CPUs write m's
 * memory).
 */
#define NODE_DISTANCE_LOCAL	  10
#define NODE_DISTANCE_REMOTE	  20
#define NODE_DISTANCE_UNREACHABLE 255
#define NODE_FW_ID_NONE		  0xffffffffu

enum boot_protocol {
	BOOT_UNKNOWN = 0,
	BOOT_MULTIBOOT1,
	BOOT_MULTIBOOT2,
	BOOT_DT,
	BOOT_EFI,
	BOOT_SANDBOX,
};

struct bi_cpu {
	uint64_t hwid; /* APIC ID / MPIDR affinity / sandbox id */
	uint32_t node; /* NUMA_NO_NODE until known; sanitise fixes */
	uint32_t package, core, thread;
	bool usable;   /* enabled in firmware (not a hot-plug slot) */
	bool boot_cpu; /* the CPU running the boot */
	bool failed;   /* !usable because the firmware says it failed */
};

/*
 * A dom0less domain (/chosen child, compatible "xen,domain"; boot/
 * fdt_dom0less.c). Its static ranges are in the reserved list too
 * ("static-mem"), whatever becomes of the domain.
 */
struct bi_domain {
	uint64_t bytes; /* `memory` (KiB in the DT), in bytes, as given */
	uint32_t vcpus; /* `cpus`; 0 when absent or unusable (warned) */
	bool is_static; /* it has xen,static-mem (even if unusable) */
	char name[BOOTINFO_DOMAIN_NAME_MAX];   /* the DT node's, whole */
	char kernel[BOOTINFO_DOMAIN_NAME_MAX]; /* its multiboot,kernel child */
	/* xen,static-mem: the host ranges the domain must be built from. */
	struct region static_mem[BOOTINFO_DOMAIN_STATIC_MAX];
	unsigned int static_count;
	/* Why it cannot be built ("" when it can): a failed row, not built. */
	char refused[BOOTINFO_REFUSED_MAX];
};

struct bootinfo {
	enum boot_protocol protocol;
	char loader[64];
	char cmdline[BOOTINFO_CMDLINE_MAX];

	/*
	 * RAM (struct region: bounds and node) and reserved ranges
	 * (struct region: bounds and name), two range tables
	 * (include/keel/range_table.h). Until sanitise both are lists in
	 * the order the parsers added them (parsers index what they added
	 * and relabel its nodes in place): RAM with the touching and
	 * overlapping ranges of one node id merged as they are added,
	 * reserved ranges as given. bootinfo_sanitise() makes the RAM list
	 * a range table proper: sorted, disjoint, merged. Each starts on
	 * the static store below and doubles, when full, into the early pool
	 * (boot/bootinfo.c, BOOTINFO_EARLY_POOL_BYTES) up to
	 * RANGE_TABLE_MAX_REGIONS; only past that is a separate RAM range
	 * dropped, or the nearest reserved ranges merged. bootmem takes the
	 * RAM table over as its own (bootmem_init_from_bootinfo()): it is
	 * not copied, and bootmem's is the one the report reads. A bootinfo
	 * is not copied by assignment (its tables would share storage):
	 * bootinfo_init() makes a fresh one.
	 */
	struct range_table ram;
	struct range_table reserved;
	struct region ram_store[BOOTINFO_MAX_RAM];
	struct region reserved_store[BOOTINFO_MAX_RESERVED + 1];

	/*
	 * Static, unlike every other per-CPU table: the parsers fill it
	 * before any allocator exists (32 bytes a CPU, .bss only: 128 KiB
	 * at NR_CPUS 4096). Beyond it CPUs are counted in cpus_over_cap.
	 */
	struct bi_cpu cpus[CONFIG_NR_CPUS];
	unsigned int cpu_count;

	/* Nodes are 0..node_count-1 after sanitise. */
	unsigned int node_count;
	uint8_t distance[MAX_NUMNODES][MAX_NUMNODES];
	bool have_distance; /* firmware gave a matrix (SLIT / distance-map) */
	/*
	 * The firmware's id of each node (ACPI proximity domain, DT
	 * numa-node-id, sandbox node=), NODE_FW_ID_NONE when the firmware
	 * named none (no SRAT, a node made up by sanitise). A folded id is
	 * not listed: its node shows the id it was folded into.
	 */
	uint32_t node_fw_id[MAX_NUMNODES];

	/* Highest physical address bit the machine decodes (clamp for ranges). */
	unsigned int paddr_bits;

	/* Filled by the arch for the report. */
	int el;			  /* arm64 exception level, -1 elsewhere */
	const char *timer_source; /* "tsc", "cntvct", "clock_monotonic_raw" */
	const char *
		timer_calibrated_by; /* "pit", "acpi_pm", "hpet", "cntfrq", "cpuid", "os" */
	uint64_t timer_hz;
	paddr_t acpi_rsdp; /* 0 when none */
	/*
	 * The running image [image_start, image_end) and the address it is
	 * linked at (x86_64: GRUB's multiboot2 may load it elsewhere);
	 * image_end 0: not said (the report leaves `image` out).
	 */
	paddr_t image_start, image_end, image_link;

	/*
	 * Reserved ranges merged into their nearest neighbour because the
	 * table was full, and the bytes between them reserved with them.
	 */
	unsigned int merged_reserved;
	uint64_t merged_reserved_gap;

	/* Warnings and dropped items while building/sanitising (reported). */
	unsigned int fixups;
	unsigned int dropped_ram, dropped_reserved, dropped_cpus;
	/*
	 * RAM dropped because the table was full: separate ranges beyond
	 * what the table could grow to (one warning for the whole boot).
	 */
	uint64_t dropped_ram_bytes;
	/* Firmware NUMA nodes folded into others (include/keel/nodemap.h). */
	unsigned int dropped_nodes;
	/*
	 * CPUs beyond the CONFIG_NR_CPUS entries of cpus[] (part of
	 * dropped_cpus): counted by the parsers, one warning from sanitise.
	 */
	unsigned int cpus_over_cap;
	bool cpus_over_cap_said; /* its warning printed (sanitise is idempotent) */

	/* dom0less domains, in DT order; past the table: dropped_domains. */
	struct bi_domain domains[BOOTINFO_MAX_DOMAINS];
	unsigned int domain_count, dropped_domains;

	/* A live update's handover and new image (boot/handover.c). */
	struct bi_handover handover;
	/*
	 * The handover's bad ranges, reserved (handover_bad_reserve()) but
	 * not copied into @reserved: 100,000 of them would be written there
	 * and again into bootmem's table. bootmem reads them where they are
	 * (handover.bad[]: each record sorted, all apart, inside RAM) as if
	 * they were listed in @reserved at index @carried_at, where they
	 * were given (equal starts: the earlier names the bytes), each under
	 * its source's badmem_carried_name(). Whoever sums @reserved adds
	 * bootinfo_carried().
	 */
	bool carried;
	unsigned int carried_at;
	/*
	 * badram= patterns that name more runs of pages than a table should
	 * hold (boot/badmem.c, BADRAM_TABLE_RUNS: a failing column is a page
	 * in every 128 KiB), kept as patterns, not reservations, 16 bytes
	 * each. bootmem never allocates their pages (it copies them:
	 * bootmem_init_from_bootinfo()); the heap's handoff hands them over
	 * with the free RAM around them and the heap takes them out of
	 * service before anything allocates (bad_lattice_take()).
	 */
	struct lattice lattice[BOOTINFO_LATTICE_MAX];
	unsigned int lattice_count;
	/*
	 * The bytes of @reserved's ranges as they stand, kept by
	 * bootinfo_sanitise() (its trim reads each) and the adders after
	 * it, so that no one reads 100,000 ranges again to print their sum
	 * in a live update's downtime. Not known before sanitise, nor once
	 * a full list merged its nearest ranges (bootinfo_reserved_bytes()
	 * sums them then).
	 */
	uint64_t reserved_bytes;
	bool reserved_bytes_known;
};

/*
 * The carried bad ranges (see struct bootinfo): their count, 0 when none,
 * and their bytes in *@bytes (may be NULL). O(1).
 */
static inline unsigned int bootinfo_carried(const struct bootinfo *bi,
					    uint64_t *bytes)
{
	bool c = bi->carried;

	if (bytes)
		*bytes = c ? bi->handover.bad_pages * PAGE_SIZE : 0;
	return c ? bi->handover.bad_count : 0;
}

/*
 * The bytes of the reserved ranges the firmware, the options and a
 * handover gave (@reserved and the carried ones; overlaps counted twice):
 * O(1) once sanitised.
 */
static inline uint64_t bootinfo_reserved_bytes(const struct bootinfo *bi)
{
	uint64_t sum;

	bootinfo_carried(bi, &sum);
	if (bi->reserved_bytes_known)
		return sum + bi->reserved_bytes;
	for (unsigned int i = 0; i < bi->reserved.count; i++)
		sum += pa_val(bi->reserved.regions[i].end) -
		       pa_val(bi->reserved.regions[i].start);
	return sum;
}

/*
 * The physical address width of a bootinfo no arch has set yet
 * (bootinfo_init()), and sanitise's fallback for a width out of range:
 * 52, the most x86-64 and arm64 (LPA) can decode, so that nothing is
 * clamped that a real machine could have. Each arch sets its own through
 * fwboot_paddr_bits() (what its CPU reports, within what it maps; the
 * sandbox passes the width it simulates).
 */
#define BOOTINFO_PADDR_BITS_DEFAULT 52

/*
 * bootinfo_init(): empty, protocol set, el = -1, paddr_bits
 * BOOTINFO_PADDR_BITS_DEFAULT.
 */
void bootinfo_init(struct bootinfo *bi, enum boot_protocol protocol);
/*
 * bootinfo_early_pool_reset(): the early pool empty again, for a program
 * that parses many firmwares in turn (the fuzzers); no bootinfo may still
 * use a table grown into it.
 */
void bootinfo_early_pool_reset(void);

/*
 * Adders used by the parsers. An empty range (end <= start) is dropped with
 * a one-line warning and a dropped_* count. RAM whose whole pages touch or
 * overlap those of RAM of the same node id is merged into it as it is
 * added (pages listed twice are one "listed twice" warning; RAM meeting
 * inside a page, or holding no whole page, is kept apart for sanitise to
 * trim as before), so that every reader gets it. A full table grows (into
 * the early pool, up to RANGE_TABLE_MAX_REGIONS); only a separate range
 * finding it full at its limit is dropped, with one warning for the whole
 * boot, counted in dropped_ram and dropped_ram_bytes. Otherwise they
 * append: ordering, overlaps between nodes and alignment are sanitise's
 * job. A reserved range is never dropped for want of room: when the table
 * is full at its limit the two nearest ranges (the new one among them)
 * are merged, the bytes between them reserved too, with one warning for
 * the whole boot (merged_reserved counts them).
 * Return: 0 or -ENOSPC / -EINVAL.
 */
int bootinfo_add_ram(struct bootinfo *bi, paddr_t start, paddr_t end,
		     uint32_t node);
/*
 * bootinfo_drop_ram(): RAM [s, e) finds the table full at its limit (the
 * adder's path; sanitise never drops RAM): counted, one warning for the
 * whole boot.
 */
void bootinfo_drop_ram(struct bootinfo *bi, uint64_t s, uint64_t e);
int bootinfo_add_reserved(struct bootinfo *bi, paddr_t start, paddr_t end,
			  const char *name);
int bootinfo_add_cpu(struct bootinfo *bi, uint64_t hwid, uint32_t node,
		     uint32_t package, uint32_t core, uint32_t thread,
		     bool usable);
void bootinfo_set_distance(struct bootinfo *bi, uint32_t a, uint32_t b,
			   uint8_t d);

/*
 * bootinfo_distance_problem(): why @v cannot be the distance from node @a
 * to node @b (see "Node distances" above), for a parser's warning.
 * Return: NULL when it can.
 */
const char *bootinfo_distance_problem(uint32_t a, uint32_t b, uint32_t v);

/*
 * bootinfo_sanitise(): RAM trimmed inwards to whole pages, reserved trimmed
 * outwards; zero-length dropped; ranges sorted and merged (same node);
 * overlapping RAM of different nodes resolved (lower node keeps it, one
 * warning naming the first such pair: the node that keeps and one that
 * does not); RAM
 * clamped to paddr_bits; node ids kept as the parsers gave them (they map
 * PXM / numa-node-id / node= through include/keel/nodemap.h to ids <
 * MAX_NUMNODES), ids >= MAX_NUMNODES (a caller that bypassed the node map)
 * and NUMA_NO_NODE mapped to node 0; node_count = highest id in use + 1 (a
 * node may have RAM and no CPU, CPUs and no RAM, or neither); distance
 * matrix: an entry not given takes 10 on the diagonal, else the reverse
 * entry when that is valid, else 20; then validated as described under
 * "Node distances" (asymmetric and 255 kept);
 * duplicate CPU hwids dropped; at least one CPU (the boot CPU) exists.
 * One pr_warn() per fix.
 * Reserved ranges stay as given (overlaps allowed); "reserved wins" is
 * applied when RAM is handed to bootmem.
 */
void bootinfo_sanitise(struct bootinfo *bi);

/*
 * bootinfo_claim(): who claims a byte of [s, e) (bytes): a reserved range
 * (but one named @ignore), a carried bad range, a lattice page? Its name,
 * NULL: none; *skip_to: where that claim ends. For memory an arch places
 * or writes before bootmem (boot/bootinfo_claim.c).
 */
const char *bootinfo_claim(const struct bootinfo *bi, uint64_t s, uint64_t e,
			   const char *ignore, uint64_t *skip_to);

/*
 * bootinfo_add_room(): reserve as @name the pages of [s, e) no one claims
 * (bootinfo_claim()), in pieces around what does: keel's own room for a
 * bigger next image, after fwboot_finish() (boot/bootinfo_claim.c).
 */
void bootinfo_add_room(struct bootinfo *bi, paddr_t s, paddr_t e,
		       const char *name);

/* Its queries (RAM bytes, a protocol's name) are the report's: report.h. */

#endif
