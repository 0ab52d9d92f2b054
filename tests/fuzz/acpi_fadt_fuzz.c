/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: acpi_parse_fadt(), and the same bytes as DSDT AML for
 * acpi_find_s5(); then HPET and SPCR (short fixed-layout tables) too.
 */
#include "acpi_fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct acpi_info ai;
	uint8_t typ;

	fuzz_console_quiet();
	acpi_info_reset(&ai);
	acpi_parse_fadt(data, size, &ai);
	if (acpi_find_s5(data, size, &typ) == 0)
		ai.s5_slp_typ = typ;
	acpi_parse_hpet(data, size, &ai);
	acpi_parse_spcr(data, size, &ai);
	acpi_fuzz_check(&ai);
	return 0;
}
