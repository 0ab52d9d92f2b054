/* SPDX-License-Identifier: MIT */
/* libFuzzer target: acpi_parse_spcr() on one table. */
#include "acpi_fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct acpi_info ai;

	fuzz_console_quiet();
	acpi_info_reset(&ai);
	/* accepted: in bounds, an address, a baud rate SPCR can encode */
	if (acpi_parse_spcr(data, size, &ai) == 0) {
		FUZZ_CHECK(size >= 52 && ai.spcr_reg.address);
		FUZZ_CHECK(ai.spcr_baud == 0 || ai.spcr_baud == 9600 ||
			   ai.spcr_baud == 19200 || ai.spcr_baud == 57600 ||
			   ai.spcr_baud == 115200);
	}
	acpi_fuzz_check(&ai);
	return 0;
}
