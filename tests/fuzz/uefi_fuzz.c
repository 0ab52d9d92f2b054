/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: boot/uefi.c on arbitrary bytes. Byte 0 picks the
 * descriptor stride (multiple of 8, 0..1016: invalid ones must be refused),
 * the rest is the memory map (an exactly-sized copy, so ASan sees any read
 * past its length); the same bytes are also fed to uefi_load_options().
 * Then bootinfo_sanitise(). Seeds: tests/fuzz/corpus/uefi/ (a QEMU-like
 * map).
 */
#include <stdlib.h>

#include <keel/string.h>
#include <keel/uefi.h>

#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct bootinfo bi;
	struct uefi_mmap_stats st;
	char out[64];
	size_t stride, len;
	uint8_t *copy;
	int r;

	if (!size)
		return 0;
	stride = (size_t)data[0] * 8;
	len = size - 1;
	copy = malloc(len ? len : 1);
	if (!copy)
		return 0;
	memcpy(copy, data + 1, len);
	fuzz_console_quiet();

	bootinfo_early_pool_reset();
	bootinfo_init(&bi, BOOT_EFI);
	r = uefi_mmap_to_bootinfo(copy, len, stride, &bi, &st);
	if (r) {
		FUZZ_CHECK(bi.ram.count == 0 && bi.reserved.count == 0);
	} else {
		FUZZ_CHECK(st.descs == len / stride);
		for (unsigned int i = 0; i < bi.ram.count; i++) {
			FUZZ_CHECK(pa_val(bi.ram.regions[i].start) <
				   pa_val(bi.ram.regions[i].end));
			FUZZ_CHECK(bi.ram.regions[i].node == NUMA_NO_NODE);
		}
	}

	uefi_load_options(copy, len, out, sizeof(out));
	FUZZ_CHECK(strlen(out) < sizeof(out));
	for (size_t i = 0; out[i]; i++)
		FUZZ_CHECK(out[i] >= 0x20 && out[i] <= 0x7e);
	free(copy);

	bootinfo_sanitise(&bi);
	fuzz_check_bootinfo(&bi);
	return 0;
}
