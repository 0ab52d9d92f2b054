/* SPDX-License-Identifier: MIT */
/*
 * Owner: boot.
 * Device Tree -> struct bootinfo (boot/fdt/fdt.c), through libfdt. A pure
 * function over a byte buffer: it never touches hardware and never reads
 * outside [blob, blob + len), so it is unit-tested and fuzzed on the host.
 *
 * Besides bootinfo it returns the few facts only the arch needs (console
 * UART, PSCI conduit and function ids, timer frequency override).
 */
#ifndef KEEL_FDT_H
#define KEEL_FDT_H

#include <keel/bootinfo.h>
#include <keel/types.h>

enum dt_psci_method {
	DT_PSCI_NONE = 0, /* no /psci node: secondaries cannot start */
	DT_PSCI_HVC,
	DT_PSCI_SMC,
};

/* PSCI 0.2+ standard function ids (SMC64 where there is a choice). */
#define PSCI_FN_VERSION	      0x84000000u
#define PSCI_FN_CPU_OFF	      0x84000002u
#define PSCI_FN_CPU_ON	      0xc4000003u
#define PSCI_FN_AFFINITY_INFO 0xc4000004u
#define PSCI_FN_SYSTEM_OFF    0x84000008u
#define PSCI_FN_SYSTEM_RESET  0x84000009u

/* Redistributor regions kept (a GICv3 has one per socket or chiplet). */
#define DT_MAX_GICR 16
/*
 * /reserved-memory children with `no-map` kept for the arch's RAM mapping
 * (firmware's secure carve-outs, a few per machine); more are still
 * reserved but mapped as ordinary RAM, with a warning.
 */
#define DT_MAX_NOMAP 32

struct dt_arch_info {
	/* Console: the node /chosen/stdout-path names, if it has a reg. */
	paddr_t uart_base;  /* 0 when unknown */
	bool uart_is_pl011; /* compatible contains "arm,pl011" */
	char uart_path[64];
	/* PSCI */
	enum dt_psci_method psci_method;
	uint32_t psci_cpu_on, psci_cpu_off; /* from /psci (0.1) or standard */
	bool psci_v0_2;			    /* system_off/reset are available */
	/* /timer clock-frequency (0 when absent: use CNTFRQ_EL0) */
	uint64_t timer_freq;
	/* /chosen initrd, [start, end); both 0 when none */
	paddr_t initrd_start, initrd_end;
	uint32_t totalsize; /* the blob's header totalsize (0 when bad) */
	bool qemu_virt;	    /* root compatible "linux,dummy-virt" (QEMU virt) */
	bool cpu_map; /* CPU topology from /cpus/cpu-map, not from MPIDR */
	/*
	 * GICv3/v4 (compatible "arm,gic-v3", or the MADT's GICD and GICR
	 * entries): where the distributor and the redistributor regions
	 * are, for the idle CPUs' timer wake-up. gicd_base 0: none found
	 * (a GICv2, or no interrupt controller described).
	 */
	paddr_t gicd_base;
	unsigned int gicr_count;
	struct dt_gicr {
		paddr_t base;
		uint64_t size;
	} gicr[DT_MAX_GICR];
	/*
	 * /reserved-memory ranges marked no-map, as the DT gives them: the
	 * arch never maps them (a speculative access there may fault), and
	 * they are reserved in bootinfo like every /reserved-memory child.
	 */
	unsigned int nomap_count;
	struct region nomap[DT_MAX_NOMAP];
};

/*
 * dt_parse(): fill @bi (RAM with nodes, reserved ranges including the blob
 * itself "dtb", the initrd "initrd", /reserved-memory and the memreserve
 * block, CPUs with MPIDR/node/topology, distances, loader, and cmdline
 * from /chosen/bootargs unless @bi already holds one) and @ai from the
 * flattened DT at @blob, @len readable bytes, loaded at physical address
 * @blob_pa. @bi must be bootinfo_init()ed by the caller.
 * Each problem: one pr_warn() naming the field and value, a safe fallback
 * and bi->fixups++.
 * Return: 0, or -EINVAL when the blob is unusable (bad magic/version,
 * totalsize > len, structure errors); @bi then only holds what was parsed.
 */
int dt_parse(const void *blob, size_t len, paddr_t blob_pa, struct bootinfo *bi,
	     struct dt_arch_info *ai);

/*
 * dt_parse_loader(): what the loader put in the DT at @blob, read even when
 * ACPI describes the hardware (as Xen reads /chosen whatever describes
 * the machine): the blob reserved as "dtb", /chosen's command line (as
 * dt_parse() copies it), initrd ("initrd", and @ai's initrd), the live
 * update's keel,handover, and the boot modules ("module:*"). Memory, CPUs,
 * NUMA, PSCI, the timer and the GIC are not read. Same checks and
 * warnings as dt_parse(). Return: 0, or -EINVAL when the blob is unusable.
 */
int dt_parse_loader(const void *blob, size_t len, paddr_t blob_pa,
		    struct bootinfo *bi, struct dt_arch_info *ai);

/*
 * A UEFI boot as /chosen describes it (boot/fdt/fdt_uefi.c): Linux's EFI
 * stub properties linux,uefi-system-table and linux,uefi-mmap-start/
 * -size/-desc-size/-desc-ver, and keel,uefi-loader. A live update writes
 * them into the DTB copy it passes on, the map's bytes inside the blob.
 */
struct dt_uefi {
	uint64_t system_table; /* physical address of EFI_SYSTEM_TABLE */
	uint64_t mmap_start;   /* physical address of the memory map */
	uint64_t mmap_size, desc_size, desc_ver;
	char loader[16]; /* "uefi", "grub" */
};

/*
 * dt_uefi_read(): @u from the /chosen of the blob (@len readable bytes),
 * every length and value checked, each problem one counted warning
 * naming the property. Return: 1 a usable set, 0 none of the linux,uefi-*
 * properties (or an unusable blob), -EINVAL a partial or bad set.
 */
int dt_uefi_read(const void *blob, size_t len, struct bootinfo *bi,
		 struct dt_uefi *u);

/*
 * dt_uefi_write(): describe @u in /chosen of the opened blob @fdt (at
 * physical address @fdt_pa), the map's bytes at @map copied into the blob
 * and linux,uefi-mmap-start pointing at them, and @cmdline as the command
 * line the next image reads first; the blob is left packed (no room).
 * Return: 0 or -EINVAL (no room).
 */
int dt_uefi_write(void *fdt, uint64_t fdt_pa, const struct dt_uefi *u,
		  const void *map, const char *cmdline);

/*
 * dt_copy_pack(): a live update's DTB copy @fdt shrunk to what it holds,
 * every property left at its address. Return: 0 or -EINVAL.
 */
int dt_copy_pack(void *fdt);

/*
 * dt_has_cpus(): quiet check that the blob (@len readable bytes) is valid
 * and has a /cpus child with device_type "cpu". Return: true if so.
 */
bool dt_has_cpus(const void *blob, size_t len);

/*
 * dt_read_cmdline(): a DT boot's command line before its tables are read
 * (the options are parsed from it first): /chosen/bootargs into
 * @bi->cmdline, as dt_parse() would copy it (whole words, one counted
 * warning when too long), unless @bi already holds a line. Quiet when the
 * blob (@len readable bytes) is unusable: dt_parse() says why.
 * Return: true when bootargs were copied.
 */
bool dt_read_cmdline(const void *blob, size_t len, struct bootinfo *bi);

/*
 * dt_parse_bad_distance(): inject=bad-dt-distance, dt_parse() again from a
 * copy of @blob (@total bytes) with one remote distance set to 10
 * (boot/fdt/fdt_inject.c). Return: 1 injected and parsed, 0 nothing injected
 * (@bi untouched), -EINVAL the copy did not parse (parse the original).
 */
int dt_parse_bad_distance(const void *blob, size_t total, paddr_t blob_pa,
			  struct bootinfo *bi, struct dt_arch_info *ai);

/*
 * dt_info_from_acpi() (boot/fdt/acpi_dt.c): @dt from ACPI tables instead of a
 * DT (PSCI from the FADT, PL011 console from the SPCR, GICv3 from the
 * MADT; an SPCR 16550 in memory space into @spcr_8250), and @bi's CPUs
 * their topology from MPIDR. @uart_kept: the console named when the
 * SPCR's cannot be driven.
 */
struct acpi_info;
struct console_spec;
void dt_info_from_acpi(struct bootinfo *bi, const struct acpi_info *ai,
		       paddr_t uart_kept, struct dt_arch_info *dt,
		       struct console_spec *spcr_8250);

/*
 * dt_ram_to_numa() (boot/fdt/acpi_dt.c): a UEFI boot on a DT takes RAM from
 * the UEFI map; the DT's RAM ranges (moved out of @bi) become @ai's
 * memory affinity blocks, sorted, for acpi_apply_numa().
 */
void dt_ram_to_numa(struct bootinfo *bi, struct acpi_info *ai);

/*
 * MPIDR -> topology (CPUs without a usable /cpus/cpu-map): with the MT bit (24) Aff0 is the thread, Aff1 the
 * core, Aff2/Aff3 the package; without it Aff0 is the core and
 * Aff1..Aff3 the package (cluster).
 */
void dt_mpidr_topology(uint64_t mpidr, uint32_t *package, uint32_t *core,
		       uint32_t *thread);

/* The affinity bits of an MPIDR (Aff3..Aff0), as in DT cpu reg. */
#define MPIDR_HWID_MASK 0xff00ffffffULL
#define MPIDR_MT	(1ULL << 24)

#endif
