/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: dt_parse() on arbitrary bytes (an exactly-sized copy,
 * so ASan sees any read past the length), then bootinfo_sanitise().
 * Links Debian's host libfdt (-lfdt). Seeds: the tests/data/dt-*.dts
 * fixtures compiled by scripts/dtbs.sh (tests/fuzz/corpus/fdt/).
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
	if (dt_parse(copy, size, pa(0x40000000), &bi, &ai) == 0)
		FUZZ_CHECK(ai.totalsize <= size);
	/* A blob dt_parse() rejects never counts as describing CPUs. */
	if (dt_has_cpus(copy, size))
		FUZZ_CHECK(ai.totalsize != 0);
	FUZZ_CHECK(bi.cmdline[sizeof(bi.cmdline) - 1] == '\0');
	FUZZ_CHECK(ai.uart_path[sizeof(ai.uart_path) - 1] == '\0');
	for (unsigned int i = 0; i < bi.ram_count; i++) {
		FUZZ_CHECK(pa_val(bi.ram[i].start) < pa_val(bi.ram[i].end));
		FUZZ_CHECK(bi.ram[i].node < MAX_NUMNODES);
	}
	for (unsigned int i = 0; i < bi.cpu_count; i++) {
		FUZZ_CHECK(bi.cpus[i].node < MAX_NUMNODES);
		/* status "fail": left out, and said to have failed. */
		FUZZ_CHECK(!bi.cpus[i].failed || !bi.cpus[i].usable);
	}

	free(copy);
	bootinfo_sanitise(&bi);
	fuzz_check_bootinfo(&bi);
	return 0;
}
