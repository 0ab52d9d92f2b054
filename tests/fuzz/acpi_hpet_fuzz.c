/* SPDX-License-Identifier: MIT */
/* libFuzzer target: acpi_parse_hpet() on one table. */
#include "acpi_fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct acpi_info ai;

	fuzz_console_quiet();
	acpi_info_reset(&ai);
	/* accepted: the 52-byte layout was in the buffer, the base is real */
	if (acpi_parse_hpet(data, size, &ai) == 0)
		FUZZ_CHECK(size >= 52 && ai.hpet_base);
	else
		FUZZ_CHECK(!ai.hpet_base);
	acpi_fuzz_check(&ai);
	return 0;
}
