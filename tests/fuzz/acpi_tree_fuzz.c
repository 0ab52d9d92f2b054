/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the whole walk. The input is physical memory from
 * address 0; its first 8 bytes give the RSDP address. acpi_parse() walks
 * RSDP -> XSDT/RSDT -> every table (+ DSDT), then the result goes into a
 * bootinfo through acpi_fill_bootinfo()/acpi_apply_numa() and sanitise.
 * Seeds: tests/fuzz/corpus/acpi_tree/ (QEMU-like images built by
 * scripts/acpi-fixtures.sh --seeds).
 */
#include <keel/string.h>

#include "acpi_fuzz.h"

struct image {
	const uint8_t *data;
	size_t size;
};

static const void *image_map(uint64_t p, size_t len, void *ctx)
{
	const struct image *img = ctx;

	if (p > img->size || len > img->size - p)
		return NULL;
	return img->data + p;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct acpi_info ai;
	static struct bootinfo bi;
	struct image img = {data, size};
	struct acpi_mem mem = {image_map, &img};
	uint64_t rsdp = 0;

	fuzz_console_quiet();
	if (size < 8)
		return 0;
	memcpy(&rsdp, data, 8);
	if (acpi_parse(&mem, pa(rsdp), 0, &ai))
		return 0;
	acpi_fuzz_check(&ai);
	bootinfo_early_pool_reset();
	bootinfo_init(&bi, BOOT_MULTIBOOT2);
	bootinfo_add_ram(&bi, pa(0), pa(0x9f000), 0);
	bootinfo_add_ram(&bi, pa(0x100000), pa(0x80000000), 0);
	bootinfo_add_ram(&bi, pa(0x100000000ULL), pa(0x180000000ULL), 0);
	acpi_apply_numa(&bi, &ai);
	acpi_fill_bootinfo(&bi, &ai);
	bootinfo_sanitise(&bi);
	fuzz_check_bootinfo(&bi);
	return 0;
}
