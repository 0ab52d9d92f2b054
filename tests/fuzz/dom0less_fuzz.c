/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the dom0less reader (boot/fdt_dom0less.c), reached
 * through dt_parse() on arbitrary bytes (an exactly-sized copy, so ASan
 * sees any read past the length). Checks what the reader promises: at most
 * BOOTINFO_MAX_DOMAINS kept, each with a size in (0, 1 PiB], a multiple of
 * 1 KiB, and a NUL-terminated name. Seeds: tests/data/dom0less.dts compiled
 * into tests/fuzz/corpus/dom0less/.
 */
#include <stdlib.h>

#include <keel/fdt.h>
#include <keel/string.h>

#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct bootinfo bi;
	static struct dt_arch_info ai;
	uint8_t *copy = malloc(size ? size : 1);

	if (!copy)
		return 0;
	memcpy(copy, data, size);
	fuzz_console_quiet();
	bootinfo_init(&bi, BOOT_DT);
	dt_parse(copy, size, pa(0x40000000), &bi, &ai);
	FUZZ_CHECK(bi.domain_count <= BOOTINFO_MAX_DOMAINS);
	for (unsigned int i = 0; i < bi.domain_count; i++) {
		const struct bi_domain *d = &bi.domains[i];

		FUZZ_CHECK(d->bytes > 0 && d->bytes <= (1ull << 50));
		FUZZ_CHECK((d->bytes & 1023) == 0);
		FUZZ_CHECK(memchr(d->name, '\0', sizeof(d->name)) != NULL);
	}
	if (bi.dropped_domains)
		FUZZ_CHECK(bi.domain_count == BOOTINFO_MAX_DOMAINS);
	free(copy);
	return 0;
}
