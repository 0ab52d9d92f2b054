/* SPDX-License-Identifier: MIT */
/*
 * Firmware replay: a machine's ACPI tables, as `acpidump` printed them,
 * turned into struct bootinfo by the same parsers that read them on
 * x86_64 and arm64 hardware (acpi.c and the table parsers). The sandbox
 * calls it for an `acpidump FILE` line of its firmware description, so a
 * user sees what keel would find on a server before rebooting it.
 *
 * What hardware gives and a dump does not: the memory map (e820 / UEFI)
 * and the boot CPU. Without `ram` lines RAM is the SRAT's enabled,
 * non-hot-pluggable, volatile memory ranges (one warning says so: the real map has
 * holes and reserved ranges the SRAT does not show); the boot CPU is the
 * first enabled MADT entry (firmware lists the BSP first). CPU topology
 * comes from CPUID on x86_64, which a dump does not carry: each CPU is its
 * own core, as for `cpu` lines without core=.
 *
 * Tables are found by signature, not through the RSDP/XSDT (a dump may
 * lack them, and linuxhw's collection prints every address as 0). They
 * keep the addresses acpidump printed when those are non-zero and do not
 * overlap, so warnings name real addresses; otherwise each gets a made-up
 * one. No lock: one replay per boot, on the boot CPU, before SMP; the
 * dump, the table list and struct acpi_info are static.
 */
#include <keel/acpi.h>
#include <keel/acpidump.h>
#include <keel/errno.h>
#include <keel/fwboot.h>
#include <keel/printk.h>
#include <keel/string.h>

/* Made-up table addresses start here (not 0: 0 means "absent"). */
#define REPLAY_FAKE_BASE 0x100000000000ULL

static struct acpidump dump;
static struct acpi_table_ref refs[ACPIDUMP_MAX_TABLES];
static uint64_t ref_offset[ACPIDUMP_MAX_TABLES];
static unsigned int ref_count;
static struct acpi_info info;

static const void *replay_map(uint64_t p, size_t len, void *ctx)
{
	(void)ctx;
	for (unsigned int i = 0; i < ref_count; i++) {
		uint64_t a = pa_val(refs[i].addr);

		if (p >= a && p - a <= refs[i].length &&
		    len <= refs[i].length - (p - a))
			return dump.buf + ref_offset[i] + (p - a);
	}
	return NULL;
}

/* Do the printed addresses name each table once, without overlap? */
static bool real_addresses_usable(void)
{
	for (unsigned int i = 0; i < dump.table_count; i++) {
		const struct acpidump_table *a = &dump.table[i];

		if (!a->addr || a->addr + a->length < a->addr)
			return false;
		for (unsigned int j = 0; j < i; j++) {
			const struct acpidump_table *b = &dump.table[j];

			if (a->addr < b->addr + b->length &&
			    b->addr < a->addr + a->length)
				return false;
		}
	}
	return true;
}

static void build_refs(void)
{
	bool real = real_addresses_usable();

	ref_count = 0;
	for (unsigned int i = 0; i < dump.table_count; i++) {
		const struct acpidump_table *t = &dump.table[i];
		struct acpi_table_ref *r = &refs[ref_count];

		memset(r, 0, sizeof(*r));
		memcpy(r->sig, t->sig, MIN(strlen(t->sig), sizeof(r->sig) - 1));
		r->addr = pa(real ? t->addr : REPLAY_FAKE_BASE + t->offset);
		r->length = t->length;
		ref_offset[ref_count++] = t->offset;
	}
}

/*
 * RAM = the SRAT's enabled, non-hot-pluggable, volatile ranges (see the
 * top); non-volatile ones are persistent memory, never RAM (issue 20
 * §2.4: acpi_apply_numa() prints them).
 */
static void ram_from_srat(struct bootinfo *bi)
{
	unsigned int used = 0, hotplug = 0;
	uint64_t bytes = 0;

	for (unsigned int i = 0; i < info.memblk_count; i++) {
		const struct region *m = &info.memblk[i];

		if (m->flags & REGION_NONVOLATILE)
			continue;
		if (m->flags & REGION_HOTPLUG) {
			hotplug++;
			continue;
		}
		if (bootinfo_add_ram(bi, m->start, m->end, m->node))
			continue;
		used++;
		bytes += pa_val(m->end) - pa_val(m->start);
	}
	bi->fixups++;
	if (!info.numa_valid)
		pr_warn("replay: no ram lines and no usable SRAT: no RAM; "
			"add ram lines (the machine's e820 or UEFI map)\n");
	else
		pr_warn("replay: no ram lines: RAM is the SRAT's %u enabled, "
			"non-hot-pluggable memory range%s (%llu MiB, %u "
			"hot-pluggable left out), without the holes and "
			"reserved ranges of the real memory map\n",
			used, used == 1 ? "" : "s",
			(unsigned long long)(bytes >> 20), hotplug);
}

/**
 * acpi_replay() - a machine's ACPI tables into @bi (see include/keel/acpi.h).
 *
 * Return: 0, or -ENOENT when the text holds no valid table.
 */
int acpi_replay(struct bootinfo *bi, const char *text, size_t len, uint8_t *buf,
		size_t size)
{
	bool have_ram = bi->ram.count > 0, have_cpus = bi->cpu_count > 0;
	unsigned int cpu0 = bi->cpu_count, madt_cpus;

	dump.buf = buf;
	dump.size = size;
	acpidump_parse(text, len, &dump);
	bi->fixups += dump.warnings;
	build_refs();
	if (acpi_parse_tables(&(struct acpi_mem){replay_map, NULL}, refs,
			      ref_count, ~0ULL, &info)) {
		bi->fixups++;
		pr_warn("replay: no valid ACPI table in the acpidump text\n");
		return -ENOENT;
	}
	bi->fixups += info.warnings;
	pr_info("replay: %u ACPI tables, %u MADT CPUs (%u enabled), %u "
		"proximity domain%s%s\n",
		info.table_count, info.cpu_count, info.cpu_usable_count,
		info.nodemap.count, info.nodemap.count == 1 ? "" : "s",
		info.have_distance ? ", SLIT" : "");

	/* cpu lines stand for the MADT: fill the rest only. */
	madt_cpus = info.cpu_count;
	if (have_cpus)
		info.cpu_count = 0;
	acpi_fill_bootinfo(bi, &info);
	info.cpu_count = madt_cpus;
	bi->acpi_rsdp = pa(0); /* nothing for a driver to find in the sandbox */
	for (unsigned int i = cpu0; !have_cpus && i < bi->cpu_count; i++)
		bi->cpus[i].core = i - cpu0;
	/* The sandbox boots on the first enabled MADT CPU (or cpu line). */
	fwboot_boot_cpu_first(bi, cpu0);
	if (!have_ram)
		ram_from_srat(bi);
	acpi_apply_numa(bi, &info);
	return 0;
}
