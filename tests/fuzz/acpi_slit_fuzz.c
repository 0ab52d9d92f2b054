/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: acpi_parse_slit() on one table, after a fixed valid
 * 3-node SRAT (PXMs 0, 1 and 0x100, the last remapped to node 2).
 */
#include <keel/string.h>

#include "acpi_fuzz.h"

static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint32_t pxm[3] = {0, 1, 0x100};
	static struct acpi_info ai;
	uint8_t srat[48 + 3 * 40];

	fuzz_console_quiet();
	memset(srat, 0, sizeof(srat));
	memcpy(srat, "SRAT", 4);
	put32(srat + 4, sizeof(srat));
	for (int i = 0; i < 3; i++) {
		uint8_t *e = srat + 48 + 40 * i;

		e[0] = 1;
		e[1] = 40;
		put32(e + 2, pxm[i]);
		put32(e + 12, (uint32_t)i); /* base i * 4 GiB */
		put32(e + 20, 1);	    /* length 4 GiB */
		put32(e + 28, 1);
	}
	acpi_info_reset(&ai);
	FUZZ_CHECK(acpi_parse_srat(srat, sizeof(srat), &ai) == 0);
	acpi_parse_slit(data, size, &ai);
	acpi_fuzz_check(&ai);
	return 0;
}
