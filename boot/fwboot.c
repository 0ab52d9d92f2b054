/* SPDX-License-Identifier: MIT */
/*
 * The firmware interpretation every arch's setup shares, done here once:
 *  - the ACPI tables into bootinfo: the RSDP, the parse (through a
 *    corrupting accessor when the options ask, INJECT_FW_BAD_SRAT/SLIT),
 *    the CPUs and distances;
 *  - the boot CPU: marked, or added when the firmware did not list it, so
 *    that the boot goes on;
 *  - the physical address width: the CPU's, within what the arch maps;
 *  - the end of it all (fwboot_finish()): loglevel=, inject=bad-map, the
 *    sanitiser, a live update's handover (boot/handover.c).
 * The options were parsed once, before the firmware was read
 * (options_parse()), and are read here as data. The arch passes what
 * differs (its accessor, its RSDP hint, its hwid and its mask) as
 * parameters; nothing here knows which arch runs it.
 */
#include <keel/badmem.h>
#include <keel/compiler.h>
#include <keel/errno.h>
#include <keel/fwboot.h>
#include <keel/handover.h>
#include <keel/printk.h>
#include <keel/string.h>

/* The INJECT_FW_* kinds acted on (or said why not) this boot. */
static unsigned int inject_done;

/**
 * fwboot_inject_done() - record that the firmware-table faults @kinds
 * (INJECT_FW_*) were acted on, or warned about where they were met, so
 * that fwboot_finish() does not call them unused.
 */
void fwboot_inject_done(unsigned int kinds)
{
	inject_done |= kinds;
}

/* INJECT_FW_BAD_SRAT / _SLIT as the ACPI corrupting accessor's bits. */
static unsigned int acpi_corrupt_bits(unsigned int inject)
{
	return (inject & INJECT_FW_BAD_SRAT ? ACPI_CORRUPT_SRAT : 0) |
	       (inject & INJECT_FW_BAD_SLIT ? ACPI_CORRUPT_SLIT : 0);
}

/* The accessor's ACPI_CORRUPT_* bits back as INJECT_FW_* kinds. */
static unsigned int inject_fw_bits(unsigned int corrupted)
{
	return (corrupted & ACPI_CORRUPT_SRAT ? INJECT_FW_BAD_SRAT : 0) |
	       (corrupted & ACPI_CORRUPT_SLIT ? INJECT_FW_BAD_SLIT : 0);
}

/**
 * fwboot_acpi() - the ACPI tables' CPUs and distances into @bi.
 * @bi: bootinfo (its RAM is labelled later by acpi_apply_numa(@ai))
 * @mem: the arch's accessor of physical memory
 * @hint: where the firmware said the RSDP is (0: scan the BIOS areas)
 * @boot_hwid: the boot CPU's APIC ID / MPIDR, marked in the MADT
 * @inject: the options' INJECT_FW_* kinds; with BAD_SRAT / BAD_SLIT that
 *	table is read from a corrupted copy
 * @need_cpus: tables without a CPU are not usable (where ACPI is only one
 *	of the firmware's descriptions)
 * @ai: out: the parsed tables
 *
 * Return: 0; -ENOENT when no RSDP was found; -EINVAL when the tables do
 * not parse or lack the CPUs asked for (@bi untouched then).
 */
int fwboot_acpi(struct bootinfo *bi, const struct acpi_mem *mem, paddr_t hint,
		uint64_t boot_hwid, unsigned int inject, bool need_cpus,
		struct acpi_info *ai)
{
	struct acpi_mem cmem =
		acpi_mem_corrupting(mem, acpi_corrupt_bits(inject));
	paddr_t rsdp = acpi_find_rsdp(&cmem, hint);

	int err = 0;

	if (pa_val(rsdp) == pa_val(INVALID_PADDR))
		return -ENOENT;
	if (acpi_parse(&cmem, rsdp, boot_hwid, ai) ||
	    (need_cpus && !ai->cpu_count))
		err = -EINVAL;
	if (acpi_corrupt_bits(inject))
		fwboot_inject_done(inject_fw_bits(acpi_mem_corrupted()));
	if (err)
		return err;
	acpi_fill_bootinfo(bi, ai);
	return 0;
}

/**
 * fwboot_boot_cpu() - mark the CPU running the boot in @bi, adding it when
 * the firmware did not list it (one warning; the boot goes on).
 * @bi: bootinfo with the firmware's CPUs
 * @me: the boot CPU as it would be added (hwid, node, topology)
 * @mask: the bits of a listed hwid that identify a CPU
 * @source: who should have listed it, for the warning; NULL: the firmware
 *	gave no CPU list, add it without a warning
 * @id_name: what the hwid is, for the warning ("APIC ID", "MPIDR")
 *
 * Return: the boot CPU's index in @bi->cpus, or -1 (none, or no room).
 */
int fwboot_boot_cpu(struct bootinfo *bi, const struct bi_cpu *me, uint64_t mask,
		    const char *source, const char *id_name)
{
	unsigned int n = bi->cpu_count;

	for (unsigned int i = 0; i < n; i++) {
		if ((bi->cpus[i].hwid & mask) == me->hwid) {
			bi->cpus[i].boot_cpu = true;
			return (int)i;
		}
	}
	if (source)
		pr_warn("%s: boot CPU %s %#llx is not listed, adding it\n",
			source, id_name, (unsigned long long)me->hwid);
	if (bootinfo_add_cpu(bi, me->hwid, me->node, me->package, me->core,
			     me->thread, true))
		return -1;
	bi->cpus[n].boot_cpu = true;
	return (int)n;
}

/**
 * fwboot_boot_cpu_first() - where the boot CPU's hwid is not known (a
 * replayed machine in the sandbox): the CPU already marked, else the first
 * usable one from @from on, as firmware lists the boot CPU first.
 * @bi: bootinfo with the firmware's CPUs
 * @from: the first CPU this firmware described
 *
 * Return: the boot CPU's index in @bi->cpus, or -1 when there is none.
 */
int fwboot_boot_cpu_first(struct bootinfo *bi, unsigned int from)
{
	for (unsigned int i = 0; i < bi->cpu_count; i++)
		if (bi->cpus[i].boot_cpu)
			return (int)i;
	for (unsigned int i = from; i < bi->cpu_count; i++) {
		if (bi->cpus[i].usable) {
			bi->cpus[i].boot_cpu = true;
			return (int)i;
		}
	}
	return -1;
}

/**
 * fwboot_paddr_bits() - the physical address width to give bootinfo.
 * @cpu_bits: what the CPU reports; 0 when it does not say
 *	(FWBOOT_PADDR_BITS_UNKNOWN then)
 * @map_bits: the most the arch can map (bootinfo_sanitise() clamps RAM to
 *	the result)
 *
 * Return: bits.
 */
unsigned int fwboot_paddr_bits(unsigned int cpu_bits, unsigned int map_bits)
{
	if (!cpu_bits)
		cpu_bits = FWBOOT_PADDR_BITS_UNKNOWN;
	return MIN(cpu_bits, map_bits);
}

/*
 * Fault injection, inject=bad-map (tests only; docs/cmdline.md): a bogus
 * firmware map entry claims the kernel image (the first reserved range
 * named "kernel", else the first reserved range) is RAM of another node id
 * (the node of the RAM around it + 1). Added before bootinfo_sanitise() on
 * purpose: the sanitiser must resolve the overlap (the lower node keeps
 * RAM two nodes claim) and "reserved wins" at the bootmem handoff must keep
 * the kernel out of the heap, so the boot still passes with the kernel
 * range reserved and audit.lost_pages 0. A kernel handed to the heap would
 * be scrubbed under our feet: never a silent wrong result.
 */
static void inject_bad_map(struct bootinfo *bi)
{
	const struct region *k = NULL;
	uint32_t node = 0;

	for (unsigned int i = 0; i < bi->reserved.count; i++) {
		if (!strncmp(bi->reserved.regions[i].name, "kernel",
			     sizeof(bi->reserved.regions[i].name))) {
			k = &bi->reserved.regions[i];
			break;
		}
	}
	if (!k && bi->reserved.count)
		k = &bi->reserved.regions[0];
	if (!k) {
		pr_warn("inject=bad-map: no reserved range to overlap, "
			"nothing injected\n");
		return;
	}
	for (unsigned int i = 0; i < bi->ram.count; i++)
		if (pa_val(bi->ram.regions[i].start) <= pa_val(k->start) &&
		    pa_val(k->start) < pa_val(bi->ram.regions[i].end))
			node = bi->ram.regions[i].node;
	pr_warn("inject=bad-map: firmware map claims [%#llx, %#llx) (%.*s) "
		"is RAM on node %u\n",
		(unsigned long long)pa_val(k->start),
		(unsigned long long)pa_val(k->end), (int)sizeof(k->name),
		k->name, node + 1);
	bootinfo_add_ram(bi, k->start, k->end, node + 1);
}

/*
 * inject=bad-srat / bad-slit / bad-dt-distance where the arch corrupted
 * no such table (a DT boot, the sandbox, a machine without a SLIT): one
 * warning each, not a silent no-op. Then the record starts afresh.
 */
static void warn_tables_not_met(unsigned int inject)
{
	static const struct {
		enum inject_kind kind;
		unsigned int bit;
		const char *table;
	} t[] = {
		{INJECT_BAD_SRAT, INJECT_FW_BAD_SRAT, "ACPI SRAT"},
		{INJECT_BAD_SLIT, INJECT_FW_BAD_SLIT, "ACPI SLIT"},
		{INJECT_BAD_DT_DISTANCE, INJECT_FW_BAD_DT_DIST,
		 "device tree distance-map"},
		{INJECT_PT_POOL_SHORT, INJECT_FW_PT_SHORT,
		 "arm64 page-table pool"},
	};

	for (unsigned int i = 0; i < ARRAY_SIZE(t); i++)
		if ((inject & t[i].bit) && !(inject_done & t[i].bit))
			pr_warn("inject=%s: no %s to corrupt on this boot, "
				"nothing injected\n",
				inject_name(t[i].kind), t[i].table);
	inject_done = 0;
}

/**
 * fwboot_finish() - the last step of every arch's firmware reading, right
 * before keel_main(): loglevel= from here on (the sanitiser's lines honour
 * it; the one place the level is set), inject=bad-map (tests), then
 * bootinfo_sanitise(), so that keel_main() is given a sanitised bootinfo
 * and common/ never calls back into boot/ (DESIGN §1).
 * @bi: what the arch's firmware readers filled
 * @o: the options, parsed once from @bi's command line (options_parse())
 */
void fwboot_finish(struct bootinfo *bi, const struct keel_options *o)
{
	printk_set_level(o->loglevel);
	if (o->fw_inject & INJECT_FW_BAD_MAP)
		inject_bad_map(bi);
	warn_tables_not_met(o->fw_inject);
	bootinfo_sanitise(bi);
	/* badpage= / badram= / memmap=: over the sanitised RAM, before bootmem. */
	badmem_boot(bi);
	/* A live update's handover: checked before bootmem exists. */
	handover_apply(bi, o->handover == HANDOVER_DISCARD);
}
