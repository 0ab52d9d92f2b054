/* SPDX-License-Identifier: MIT */
/*
 * Owner: boot.
 * What every arch's setup asks of boot/ between finding its firmware
 * tables and keel_main() (boot/fwboot.c): the ACPI tables into bootinfo,
 * the boot CPU, the physical address width, and the end of it all. The
 * options were parsed once before (options_parse()) and come in as data;
 * other arch differences come in as parameters.
 */
#ifndef KEEL_FWBOOT_H
#define KEEL_FWBOOT_H

#include <keel/acpi.h>
#include <keel/bootinfo.h>
#include <keel/options.h>

/*
 * Physical address width when the CPU does not report one (x86 without
 * CPUID leaf 0x80000008: 36, PAE's).
 */
#define FWBOOT_PADDR_BITS_UNKNOWN 36

/*
 * The arch acted on the INJECT_FW_* @kinds of the options (fwboot_finish()
 * warns of the firmware-table kinds nobody acted on).
 */
void fwboot_inject_done(unsigned int kinds);
int fwboot_acpi(struct bootinfo *bi, const struct acpi_mem *mem, paddr_t hint,
		uint64_t boot_hwid, unsigned int inject, bool need_cpus,
		struct acpi_info *ai);
int fwboot_boot_cpu(struct bootinfo *bi, const struct bi_cpu *me, uint64_t mask,
		    const char *source, const char *id_name);
int fwboot_boot_cpu_first(struct bootinfo *bi, unsigned int from);
unsigned int fwboot_paddr_bits(unsigned int cpu_bits, unsigned int map_bits);
/*
 * loglevel=, inject=bad-map, then bootinfo_sanitise(): the arch calls it
 * right before keel_main(bi, o).
 */
void fwboot_finish(struct bootinfo *bi, const struct keel_options *o);

#endif
