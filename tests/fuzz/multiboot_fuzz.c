/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: multiboot1_parse() over a fake physical memory image
 * (the input itself, physical address 0 = first byte), the information
 * pointer taken from the first 4 bytes; then bootinfo_sanitise().
 */
#include <keel/multiboot.h>
#include <keel/string.h>

#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct image {
	const uint8_t *data;
	size_t size;
};

static const void *image_read(uint64_t p, size_t len, void *ctx)
{
	const struct image *img = ctx;

	if (p > img->size || len > img->size - p)
		return NULL;
	return img->data + p;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct bootinfo bi;
	struct image img = {data, size};
	uint32_t info = 0;

	fuzz_console_quiet();
	if (size >= 4)
		memcpy(&info, data, 4);
	bootinfo_early_pool_reset();
	bootinfo_init(&bi, BOOT_MULTIBOOT1);
	multiboot1_parse(&bi, info, image_read, &img);
	FUZZ_CHECK(bi.cmdline[sizeof(bi.cmdline) - 1] == '\0');
	FUZZ_CHECK(bi.loader[sizeof(bi.loader) - 1] == '\0');
	for (unsigned int i = 0; i < bi.ram.count; i++)
		FUZZ_CHECK(pa_val(bi.ram.regions[i].start) <
			   pa_val(bi.ram.regions[i].end));
	bootinfo_sanitise(&bi);
	fuzz_check_bootinfo(&bi);
	return 0;
}
