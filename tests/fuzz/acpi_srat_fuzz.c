/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: acpi_parse_srat() on one table, with local APIC and
 * GICC CPUs present to resolve against, then acpi_apply_numa() on a RAM
 * map crossing the first 8 GiB (non-volatile ranges in it must come back
 * reserved as "persistent") and bootinfo_sanitise().
 */
#include <keel/string.h>

#include "acpi_fuzz.h"

/*
 * Persistent memory is never RAM (issue 20 §2.4): each non-volatile SRAT
 * range that overlaps the RAM map is reserved whole as "persistent".
 */
static void check_persistent(const struct bootinfo *bi,
			     const struct acpi_info *ai)
{
	for (unsigned int i = 0; ai->numa_valid && i < ai->memblk_count; i++) {
		const struct region *m = &ai->memblk[i];
		bool in_ram = false, reserved = false;

		if (!(m->flags & REGION_NONVOLATILE))
			continue;
		for (unsigned int r = 0; r < bi->ram.count; r++)
			in_ram |= pa_val(bi->ram.regions[r].start) <
					  pa_val(m->end) &&
				  pa_val(m->start) <
					  pa_val(bi->ram.regions[r].end);
		for (unsigned int r = 0; r < bi->reserved.count; r++)
			reserved |= !strcmp(bi->reserved.regions[r].name,
					    "persistent") &&
				    pa_val(bi->reserved.regions[r].start) <=
					    pa_val(m->start) &&
				    pa_val(m->end) <=
					    pa_val(bi->reserved.regions[r].end);
		FUZZ_CHECK(!in_ram || reserved);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct acpi_info ai;
	static struct bootinfo bi;

	fuzz_console_quiet();
	acpi_info_reset(&ai);
	acpi_fuzz_cpus(&ai);
	acpi_parse_srat(data, size, &ai);
	acpi_fuzz_check(&ai);

	bootinfo_early_pool_reset();
	bootinfo_init(&bi, BOOT_MULTIBOOT2);
	bootinfo_add_ram(&bi, pa(0), pa(0x9f000), 0);
	bootinfo_add_ram(&bi, pa(0x100000), pa(0xc0000000), 0);
	bootinfo_add_ram(&bi, pa(0x100000000ULL), pa(0x200000000ULL), 0);
	acpi_apply_numa(&bi, &ai);
	for (unsigned int i = 0; i < bi.ram.count; i++)
		FUZZ_CHECK(bi.ram.regions[i].node < MAX_NUMNODES &&
			   ai.node_used[bi.ram.regions[i].node]);
	check_persistent(&bi, &ai);
	acpi_fill_bootinfo(&bi, &ai);
	bootinfo_sanitise(&bi);
	fuzz_check_bootinfo(&bi);
	return 0;
}
