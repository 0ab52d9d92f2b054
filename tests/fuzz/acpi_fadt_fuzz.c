/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: acpi_parse_fadt() on one table, and the same bytes as
 * DSDT AML for acpi_find_s5() (seeds: FADTs and DSDTs). HPET and SPCR
 * have their own targets (acpi_hpet_fuzz.c, acpi_spcr_fuzz.c).
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
	acpi_fuzz_check(&ai);
	return 0;
}
