/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: acpi_find_rsdp() scanning a fake BIOS area: the input
 * is physical memory from 0xE0000 up (the EBDA pointer at 0x40E is not
 * mapped), then, if the first byte is odd, the input at 0xE0000 as a
 * hint.
 */
#include "acpi_fuzz.h"

struct image {
	const uint8_t *data;
	size_t size;
};

#define IMAGE_BASE 0xe0000ULL

static const void *image_map(uint64_t p, size_t len, void *ctx)
{
	const struct image *img = ctx;

	if (p < IMAGE_BASE || p - IMAGE_BASE > img->size ||
	    len > img->size - (p - IMAGE_BASE))
		return NULL;
	return img->data + (p - IMAGE_BASE);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct image img = {data, size};
	struct acpi_mem mem = {image_map, &img};
	paddr_t r;

	fuzz_console_quiet();
	r = acpi_find_rsdp(&mem, pa(0));
	if (pa_val(r) != pa_val(INVALID_PADDR)) {
		FUZZ_CHECK(pa_val(r) >= IMAGE_BASE &&
			   pa_val(r) + 20 <= IMAGE_BASE + size);
		FUZZ_CHECK((pa_val(r) & 15) == 0);
	}
	if (size && (data[0] & 1))
		acpi_find_rsdp(&mem, pa(IMAGE_BASE));
	return 0;
}
