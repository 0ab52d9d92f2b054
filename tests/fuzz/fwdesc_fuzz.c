/* SPDX-License-Identifier: MIT */
/* libFuzzer target: fwdesc_parse() then bootinfo_sanitise(). */
#include <keel/fwdesc.h>

#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct bootinfo bi;

	fuzz_console_quiet();
	bootinfo_init(&bi, BOOT_SANDBOX);
	fwdesc_parse(&bi, (const char *)data, size);
	for (unsigned int i = 0; i < bi.ram_count; i++)
		FUZZ_CHECK(pa_val(bi.ram[i].start) < pa_val(bi.ram[i].end));
	bootinfo_sanitise(&bi);
	fuzz_check_bootinfo(&bi);
	return 0;
}
