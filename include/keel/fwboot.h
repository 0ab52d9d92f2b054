/* SPDX-License-Identifier: MIT */
/*
 * What every arch's setup asks of boot/ between finding its firmware
 * tables and keel_main() (boot/fwboot.c): the command-line words needed
 * before the options are parsed, the ACPI tables into bootinfo, the boot
 * CPU, the physical address width. Arch differences come in as
 * parameters.
 */
#ifndef KEEL_FWBOOT_H
#define KEEL_FWBOOT_H

#include <keel/acpi.h>
#include <keel/bootinfo.h>
#include <keel/options.h>

/*
 * Fault injection acted on before keel_main() parses the options
 * (docs/cmdline.md; tests only), because the firmware tables are read
 * first: inject=bad-srat / inject=bad-slit corrupt a copy of that ACPI
 * table (acpi_mem_corrupting()), inject=bad-dt-distance a copy of the DT
 * (dt_parse_bad_distance()). The firmware's own tables are never written.
 */
#define FWBOOT_INJ_BAD_SRAT    ACPI_CORRUPT_SRAT
#define FWBOOT_INJ_BAD_SLIT    ACPI_CORRUPT_SLIT
#define FWBOOT_INJ_BAD_DT_DIST 4u

/*
 * Physical address width when the CPU does not report one (x86 without
 * CPUID leaf 0x80000008: 36, PAE's).
 */
#define FWBOOT_PADDR_BITS_UNKNOWN 36

unsigned int fwboot_early(struct keel_options *early, const char *cmdline);
/* The arch acted on FWBOOT_INJ_* @kinds (fwboot_finish() warns of the rest). */
void fwboot_inject_done(unsigned int kinds);
int fwboot_acpi(struct bootinfo *bi, const struct acpi_mem *mem, paddr_t hint,
		uint64_t boot_hwid, unsigned int inject, bool need_cpus,
		struct acpi_info *ai);
int fwboot_boot_cpu(struct bootinfo *bi, const struct bi_cpu *me, uint64_t mask,
		    const char *source, const char *id_name);
int fwboot_boot_cpu_first(struct bootinfo *bi, unsigned int from);
unsigned int fwboot_paddr_bits(unsigned int cpu_bits, unsigned int map_bits);
/* inject=bad-map, then bootinfo_sanitise(): the arch calls it right before
 * keel_main(). */
void fwboot_finish(struct bootinfo *bi);

#endif
