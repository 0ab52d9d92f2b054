/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: acpi_parse_srat() on one table, with local APIC and
 * GICC CPUs present to resolve against, then acpi_apply_numa() on a RAM
 * map crossing the first 8 GiB and bootinfo_sanitise().
 */
#include "acpi_fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct acpi_info ai;
	static struct bootinfo bi;

	fuzz_console_quiet();
	acpi_info_reset(&ai);
	acpi_fuzz_cpus(&ai);
	acpi_parse_srat(data, size, &ai);
	acpi_fuzz_check(&ai);

	bootinfo_init(&bi, BOOT_MULTIBOOT2);
	bootinfo_add_ram(&bi, pa(0), pa(0x9f000), 0);
	bootinfo_add_ram(&bi, pa(0x100000), pa(0xc0000000), 0);
	bootinfo_add_ram(&bi, pa(0x100000000ULL), pa(0x200000000ULL), 0);
	acpi_apply_numa(&bi, &ai);
	for (unsigned int i = 0; i < bi.ram_count; i++)
		FUZZ_CHECK(bi.ram[i].node < MAX_NUMNODES &&
			   ai.node_used[bi.ram[i].node]);
	acpi_fill_bootinfo(&bi, &ai);
	bootinfo_sanitise(&bi);
	fuzz_check_bootinfo(&bi);
	return 0;
}
