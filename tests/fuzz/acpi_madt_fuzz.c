/* SPDX-License-Identifier: MIT */
/* libFuzzer target: acpi_parse_madt() on one table; boot hwid 0. */
#include "acpi_fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct acpi_info ai;

	fuzz_console_quiet();
	acpi_info_reset(&ai);
	acpi_parse_madt(data, size, 0, &ai);
	acpi_fuzz_check(&ai);
	return 0;
}
