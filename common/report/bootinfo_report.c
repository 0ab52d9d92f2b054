// SPDX-License-Identifier: MIT
/*
 * Read-only questions about a struct bootinfo (the firmware's own
 * description, as the arch and boot/ gave it), asked by the report and the
 * flow's log lines. In the report room: lib knows no firmware, and the
 * subsystems below read bootmem's tables, not bootinfo. They read the RAM
 * table as it is; after bootinfo_sanitise() its ranges do not overlap.
 */
#include <keel/bootinfo.h>
#include <keel/enum_names.h>
#include <keel/report.h>

/* The report's names of enum boot_protocol (the report's "boot"). */
const struct enum_name boot_protocol_names[] = {
	{BOOT_MULTIBOOT1, "multiboot1"},
	{BOOT_MULTIBOOT2, "multiboot2"},
	{BOOT_DT, "dt"},
	{BOOT_EFI, "efi"},
	{BOOT_SANDBOX, "sandbox"},
	ENUM_NAMES_END,
};

/**
 * bootinfo_node_ram_bytes() - RAM of @node (NUMA_NO_NODE: all nodes).
 * Return: bytes (meaningful after sanitise, when ranges do not overlap).
 */
uint64_t bootinfo_node_ram_bytes(const struct bootinfo *bi, uint32_t node)
{
	uint64_t total = 0;

	for (unsigned int i = 0; i < bi->ram.count; i++)
		if (node == NUMA_NO_NODE || bi->ram.regions[i].node == node)
			total += pa_val(bi->ram.regions[i].end) -
				 pa_val(bi->ram.regions[i].start);
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
	return enum_name(boot_protocol_names, p);
}
