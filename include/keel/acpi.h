/* SPDX-License-Identifier: MIT */
/*
 * Owner: boot.
 * ACPI static table parsers (boot/acpi/acpi.c, boot/acpi/acpi_*.c): RSDP ->
 * XSDT/RSDT -> MADT, SRAT, SLIT, FADT (+ the DSDT's \_S5), HPET, SPCR.
 *
 * The parsers never dereference a physical address: the arch gives them a
 * struct acpi_mem whose map() returns a pointer to @len readable bytes at
 * physical address @pa, or NULL (not RAM, not mapped). Returned pointers
 * must stay valid until acpi_parse() returns (a direct map does that).
 *
 * Use from arch code:
 *	static struct acpi_info ai;
 *	struct acpi_mem mem = { my_map, NULL };
 *	paddr_t rsdp = acpi_find_rsdp(&mem, pa(mb2_rsdp_copy_or_0));
 *	if (acpi_parse(&mem, rsdp, my_apic_id, &ai) == 0) {
 *		acpi_fill_bootinfo(bi, &ai);	CPUs (+node), distances, rsdp
 *		... add RAM from the e820 / UEFI map ...
 *		acpi_apply_numa(bi, &ai);	RAM ranges get SRAT nodes
 *	}
 *
 * Every problem is one pr_warn() naming the table, the field and the value,
 * with a safe fallback: a table with a bad checksum or length is ignored;
 * a bad SRAT means one node (all RAM and CPUs on node 0); a SLIT with one
 * bad entry is mended, one with more means the default 10/20 distances
 * (include/keel/bootinfo.h, "Node distances": asymmetric SLITs and 255 are
 * kept). More than MAX_NUMNODES proximity domains: the lowest ones are
 * kept, the others fold into their nearest kept node by SLIT distance
 * (include/keel/nodemap.h), one warning, counted in dropped_nodes.
 */
#ifndef KEEL_ACPI_H
#define KEEL_ACPI_H

#include <keel/bootinfo.h>
#include <keel/console_spec.h>
#include <keel/nodemap.h>
#include <keel/types.h>

/* Physical memory accessor (see above). */
struct acpi_mem {
	const void *(*map)(uint64_t pa, size_t len, void *ctx);
	void *ctx;
};

#define ACPI_HEADER_SIZE   36
#define ACPI_TABLE_MAX_LEN (1u << 20) /* larger tables are rejected */
#define ACPI_RSDP_V1_SIZE  20
#define ACPI_RSDP_V2_SIZE  36

/* Generic Address Structure. address == 0 means "not present". */
struct acpi_gas {
	uint8_t space_id; /* ACPI_GAS_MEMORY / ACPI_GAS_IO / ... */
	uint8_t bit_width, bit_offset, access_size;
	uint64_t address;
};

#define ACPI_GAS_MEMORY 0
#define ACPI_GAS_IO	1

/* SPCR interface types (the DBG2 serial port subtypes). */
#define ACPI_SPCR_16550	    0x00
#define ACPI_SPCR_16450	    0x01
#define ACPI_SPCR_PL011	    0x03
#define ACPI_SPCR_SBSA32    0x0d
#define ACPI_SPCR_SBSA	    0x0e
#define ACPI_SPCR_16550_GAS 0x12

/* Bits of acpi_info.tables: which tables were found valid. */
enum acpi_table_bit {
	ACPI_T_MADT = 1u << 0,
	ACPI_T_SRAT = 1u << 1,
	ACPI_T_SLIT = 1u << 2,
	ACPI_T_FADT = 1u << 3,
	ACPI_T_DSDT = 1u << 4,
	ACPI_T_HPET = 1u << 5,
	ACPI_T_SPCR = 1u << 6,
	ACPI_T_XSDT = 1u << 7, /* the root table used was the XSDT */
	ACPI_T_RSDT = 1u << 8, /* ... or the RSDT */
};

enum acpi_cpu_kind {
	ACPI_CPU_LAPIC = 0,  /* MADT type 0 */
	ACPI_CPU_X2APIC = 9, /* MADT type 9 */
	ACPI_CPU_GICC = 0xb, /* MADT type 0xB */
};

/* One MADT processor entry. */
struct acpi_cpu {
	uint64_t hwid;	      /* APIC ID, x2APIC ID or MPIDR affinity bits */
	uint32_t acpi_uid;    /* ACPI processor id / UID */
	uint32_t gicc_cpu_if; /* GICC CPU interface number (GICv2) */
	uint32_t node;	      /* from SRAT; 0 when no (valid) SRAT */
	uint8_t kind;	      /* enum acpi_cpu_kind */
	bool usable;	      /* enabled: start it */
	bool online_capable;  /* disabled but hot-pluggable slot */
	bool boot_cpu;	      /* hwid == hwid_boot */
};

#define ACPI_MAX_CPUS	 CONFIG_NR_CPUS
#define ACPI_MAX_MEMBLKS 128
#define ACPI_MAX_TABLES	 64
#define ACPI_MAX_GICR	 16
#define ACPI_MAX_IOAPICS 64
#define ACPI_ISA_IRQS	 16

/* A table listed by the root table (checksum and length valid). */
struct acpi_table_ref {
	char sig[5];
	paddr_t addr;
	uint32_t length;
};

struct acpi_info {
	/* Root pointers. */
	paddr_t rsdp, rsdt, xsdt;
	uint8_t rsdp_revision;
	char oem_id[7];
	uint32_t tables; /* enum acpi_table_bit */
	struct acpi_table_ref table[ACPI_MAX_TABLES];
	unsigned int table_count;

	/* MADT */
	uint64_t lapic_base; /* local APIC MMIO (type 5 override applied) */
	uint32_t madt_flags; /* bit 0: PC-AT dual 8259 */
	uint64_t gicd_base;  /* MADT type 0xC, 0 when none */
	uint8_t gic_version;
	/* MADT type 0xE: GICv3 redistributor regions, in table order */
	struct acpi_gicr {
		uint64_t base;
		uint32_t length;
	} gicr[ACPI_MAX_GICR];
	unsigned int gicr_count;
	unsigned int gicr_dropped; /* entries beyond ACPI_MAX_GICR */
	/* MADT type 1: the I/O APICs, in table order (x86 masks them all) */
	struct acpi_ioapic {
		uint64_t base;	   /* register window (IOREGSEL, IOWIN) */
		uint32_t gsi_base; /* the GSI of its first input */
		uint8_t id;
	} ioapic[ACPI_MAX_IOAPICS];
	unsigned int ioapic_count;
	unsigned int ioapic_dropped; /* entries beyond ACPI_MAX_IOAPICS */
	/*
	 * MADT type 2: ISA IRQ -> GSI overrides, by ISA IRQ; an IRQ without
	 * one is GSI = IRQ, ISA's active-high edge (acpi_isa_irq_gsi()).
	 */
	struct acpi_irq_override {
		uint32_t gsi;
		uint16_t flags; /* MPS INTI: polarity bits 0-1, trigger 2-3 */
		bool present;
	} isa_irq[ACPI_ISA_IRQS];
	struct acpi_cpu cpus[ACPI_MAX_CPUS];
	unsigned int cpu_count; /* entries in cpus[] (usable or not) */
	unsigned int cpu_usable_count;
	unsigned int cpu_dropped; /* entries beyond ACPI_MAX_CPUS */
	bool boot_cpu_found;

	/* SRAT + SLIT */
	bool numa_valid;	 /* SRAT parsed without problems */
	unsigned int node_count; /* highest node id + 1, 1 without SRAT */
	/* The enabled SRAT memory affinity ranges: node, REGION_HOTPLUG and
	 * REGION_NONVOLATILE in flags. */
	struct region memblk[ACPI_MAX_MEMBLKS];
	unsigned int memblk_count;
	uint32_t pxm[MAX_NUMNODES]; /* pxm[node] = proximity domain */
	bool node_used[MAX_NUMNODES];
	struct nodemap nodemap;	    /* PXM -> node, folds included */
	unsigned int dropped_nodes; /* proximity domains folded */
	bool have_distance;	    /* SLIT valid */
	uint8_t distance[MAX_NUMNODES][MAX_NUMNODES]; /* 10/20 if no SLIT */
	uint64_t slit_localities;
	/* The checked SLIT matrix while parsing (acpi_parse() clears it). */
	const uint8_t *slit;
	bool slit_fixed; /* its one bad entry, mended: */
	uint32_t slit_fix_a, slit_fix_b;
	uint8_t slit_fix_v;

	/* FADT (+ DSDT) */
	uint8_t fadt_revision;
	uint32_t fadt_flags;
	bool hw_reduced;	  /* HW_REDUCED_ACPI: no PM timer/PM1 blocks */
	struct acpi_gas pm_timer; /* address 0: none */
	unsigned int pm_timer_bits; /* 24 or 32 */
	struct acpi_gas pm1a_cnt, pm1b_cnt;
	uint32_t smi_cmd;
	uint8_t acpi_enable; /* value to write to smi_cmd */
	uint16_t sci_irq;
	uint8_t s5_slp_typ; /* SLP_TYPa for S5 (0 when not found) */
	bool s5_found;
	struct acpi_gas reset_reg;
	uint8_t reset_value;
	bool reset_supported; /* FADT RESET_REG_SUP */
	uint16_t iapc_boot_arch;
	uint16_t arm_boot_arch;
	bool psci_compliant; /* ARM_BOOT_ARCH bit 0 */
	bool psci_use_hvc;   /* ARM_BOOT_ARCH bit 1 */
	paddr_t dsdt;

	/* HPET */
	uint64_t hpet_base;
	/* SPCR */
	struct acpi_gas spcr_reg; /* serial port registers */
	uint8_t spcr_type;	  /* ACPI_SPCR_* */
	uint32_t spcr_baud;	  /* 0: "as is" / unknown */

	unsigned int warnings; /* pr_warn lines printed by the parsers */
};

/*
 * acpi_find_rsdp(): validate the RSDP at @hint (multiboot2 tag 14/15, UEFI
 * configuration table) or, when @hint is 0, scan the first KiB of the EBDA
 * and 0xE0000-0xFFFFF on 16-byte boundaries.
 * Return: the RSDP's address, or INVALID_PADDR.
 */
paddr_t acpi_find_rsdp(const struct acpi_mem *mem, paddr_t hint);

/*
 * acpi_parse(): validate the RSDP at @rsdp, walk the XSDT (or the RSDT when
 * the XSDT is absent or broken) and parse every known table into @info
 * (zeroed first). @hwid_boot is the boot CPU's APIC ID or MPIDR.
 * Return: 0, or -ENOENT when there is no valid RSDP / root table.
 */
int acpi_parse(const struct acpi_mem *mem, paddr_t rsdp, uint64_t hwid_boot,
	       struct acpi_info *info);

/*
 * acpi_parse_tables(): acpi_parse() for tables found without a root table
 * (a firmware replay, boot/acpi/acpi_replay.c): @list names each table by
 * signature, address and length; the RSDP, root tables and FACS in it are
 * skipped, every other one is validated as acpi_parse() validates what the
 * XSDT lists. A DSDT in @list is the one the FADT's \_S5 is looked up in.
 * Return: 0, or -ENOENT when no table in @list is valid.
 */
int acpi_parse_tables(const struct acpi_mem *mem,
		      const struct acpi_table_ref *list, unsigned int count,
		      uint64_t hwid_boot, struct acpi_info *info);

/*
 * acpi_replay(): firmware replay (boot/acpi/acpi_replay.c): the tables in @text,
 * the output of Linux's acpidump (include/keel/acpidump.h), parsed as on
 * hardware into @bi. @buf (@size bytes, len / 3 + 16 suffices) receives
 * the decoded tables and must stay valid while @bi is built. CPUs come
 * from the MADT (node from the SRAT, the first enabled entry boots)
 * unless @bi already has CPUs; RAM is @bi's own, labelled with SRAT nodes,
 * or when @bi has none the SRAT's enabled non-hot-pluggable ranges (one
 * warning); distances from the SLIT; node_fw_id[] from the SRAT. Every
 * warning is counted in bi->fixups.
 * Return: 0, or -ENOENT when @text holds no valid table (warned).
 */
int acpi_replay(struct bootinfo *bi, const char *text, size_t len, uint8_t *buf,
		size_t size);

/*
 * acpi_fill_bootinfo(): bootinfo_add_cpu() for every MADT CPU (node from
 * SRAT, topology 0 for the arch to fill, usable = enabled, boot_cpu
 * marked), the SLIT distances when valid, bi->acpi_rsdp, the folded
 * proximity domains into bi->dropped_nodes and, with a valid SRAT, each
 * node's proximity domain into bi->node_fw_id[].
 * Return: the number of CPUs added.
 */
unsigned int acpi_fill_bootinfo(struct bootinfo *bi,
				const struct acpi_info *info);

/*
 * acpi_apply_numa(): give every bi->ram range the node of the SRAT memory
 * range covering it, splitting ranges at SRAT boundaries. RAM not covered
 * by SRAT goes to the node of the nearest lower SRAT range (else of the
 * lowest one) with one warning. Without a valid SRAT all RAM goes to node
 * 0. Call it after the RAM of the firmware map was added and before
 * bootinfo_sanitise().
 */
void acpi_apply_numa(struct bootinfo *bi, const struct acpi_info *info);

/*
 * Single-table parsers, used by acpi_parse() and the fuzzers. @buf holds
 * @len readable bytes of the table (header included); the table's own
 * length field is trusted only up to @len. Checksums are acpi_parse()'s
 * job. SRAT resolves CPUs against the MADT already in @info, SLIT against
 * the SRAT. Return: 0 or -EINVAL (table ignored, fallback applied).
 */
int acpi_parse_madt(const void *buf, size_t len, uint64_t hwid_boot,
		    struct acpi_info *info);
int acpi_parse_srat(const void *buf, size_t len, struct acpi_info *info);
int acpi_parse_slit(const void *buf, size_t len, struct acpi_info *info);
int acpi_parse_fadt(const void *buf, size_t len, struct acpi_info *info);
int acpi_parse_hpet(const void *buf, size_t len, struct acpi_info *info);
int acpi_parse_spcr(const void *buf, size_t len, struct acpi_info *info);

/*
 * acpi_isa_irq_gsi(): the GSI of ISA IRQ @irq (< ACPI_ISA_IRQS) after the
 * MADT's overrides, and in *@flags their MPS INTI flags (0: the bus's
 * default, active-high edge for ISA).
 * Return: the GSI.
 */
uint32_t acpi_isa_irq_gsi(const struct acpi_info *info, unsigned int irq,
			  uint16_t *flags);

/*
 * acpi_find_s5(): bounded scan of DSDT AML bytes for Name(_S5_, Package)
 * and its first element (SLP_TYPa).
 * Return: 0 and *slp_typ set, or -ENOENT.
 */
int acpi_find_s5(const void *aml, size_t len, uint8_t *slp_typ);

/* acpi_checksum(): sum of @len bytes (0 for a valid table). */
uint8_t acpi_checksum(const void *buf, size_t len);

/* acpi_info_reset(): empty info, one node, distances 10/20. */
void acpi_info_reset(struct acpi_info *info);

/*
 * Fault injection (inject=bad-srat / inject=bad-slit): an accessor that
 * wraps @inner and hands the parser a copy of each table named in @which
 * (ACPI_CORRUPT_*) with the first byte after the header flipped, so its
 * checksum fails and the parser must take its documented fallback. The
 * firmware's tables are never written. One such accessor at a time (boot
 * code, one CPU); its copies stay valid until the next call.
 */
#define ACPI_CORRUPT_SRAT 1u
#define ACPI_CORRUPT_SLIT 2u
struct acpi_mem acpi_mem_corrupting(const struct acpi_mem *inner,
				    unsigned int which);
/* The ACPI_CORRUPT_* tables that accessor met (a parse read them). */
unsigned int acpi_mem_corrupted(void);

/*
 * acpi_spcr_console() (boot/acpi/acpi_devices.c): the console the ACPI SPCR
 * parsed into @ai names. Interface types 16550 / 16450 / 16550-with-GAS
 * give an 8250 (I/O or MMIO by the address space; 32-bit access width
 * means reg_shift 2), PL011 and the SBSA generic UARTs a PL011. The baud
 * byte's "as is" (0) stays 0.
 * Return: 0, -ENOENT (no usable SPCR: absent, or address 0, which means
 * "no redirection"), -EINVAL (a type or address space keel cannot drive;
 * *@out still holds the address, kind CONSOLE_DEFAULT, for the warning).
 */
int acpi_spcr_console(const struct acpi_info *ai, struct console_spec *out);

#endif
