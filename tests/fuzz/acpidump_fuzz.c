/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: acpidump_parse() on arbitrary text, then the whole
 * replay (acpi_replay(): the ACPI parsers on whatever tables came out)
 * and bootinfo_sanitise().
 */
#include <keel/acpi.h>
#include <keel/acpidump.h>

#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t buf[1 << 20];
	static struct acpidump d;
	static struct bootinfo bi;
	const char *text = (const char *)data;

	fuzz_console_quiet();
	if (size / 3 + 16 > sizeof(buf))
		return 0;
	d.buf = buf;
	d.size = size / 3 + 16;
	acpidump_parse(text, size, &d);
	FUZZ_CHECK(d.used <= d.size);
	for (unsigned int i = 0; i < d.table_count; i++)
		FUZZ_CHECK(d.table[i].offset + d.table[i].length <= d.used);

	bootinfo_early_pool_reset();
	bootinfo_init(&bi, BOOT_SANDBOX);
	acpi_replay(&bi, text, size, buf, size / 3 + 16);
	bootinfo_sanitise(&bi);
	fuzz_check_bootinfo(&bi);
	return 0;
}
