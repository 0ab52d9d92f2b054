/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: multiboot2_parse() over the input as the information
 * block (libFuzzer's buffer is exactly @size bytes, so ASan catches any
 * over-read), then bootinfo_sanitise().
 */
#include <keel/multiboot.h>

#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct bootinfo bi;
	uint64_t info_pa = 0x10000;

	fuzz_console_quiet();
	bootinfo_early_pool_reset();
	bootinfo_init(&bi, BOOT_MULTIBOOT2);
	multiboot2_parse(&bi, data, size, info_pa);
	FUZZ_CHECK(bi.cmdline[sizeof(bi.cmdline) - 1] == '\0');
	FUZZ_CHECK(bi.loader[sizeof(bi.loader) - 1] == '\0');
	FUZZ_CHECK(!pa_val(bi.acpi_rsdp) ||
		   (pa_val(bi.acpi_rsdp) >= info_pa + 16 &&
		    pa_val(bi.acpi_rsdp) + 20 <= info_pa + size));
	for (unsigned int i = 0; i < bi.ram.count; i++)
		FUZZ_CHECK(pa_val(bi.ram.regions[i].start) <
			   pa_val(bi.ram.regions[i].end));
	bootinfo_sanitise(&bi);
	fuzz_check_bootinfo(&bi);
	return 0;
}
