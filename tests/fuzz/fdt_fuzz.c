/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: dt_read_cmdline() and dt_parse() on arbitrary bytes
 * (an exactly-sized copy, so ASan sees any read past the length), then
 * bootinfo_sanitise(); the same bytes through dt_parse_loader() (the
 * loader's /chosen under ACPI) and dt_uefi_read() (a UEFI boot /chosen
 * describes, boot/fdt/fdt_uefi.c), whose values must be the checked ones;
 * and the copy a live update makes of it. The command line read before
 * the parse is the one the parse itself copies: an arm64 boot parses its
 * options from it.
 * Links Debian's host libfdt (-lfdt). Seeds: the tests/data/dt-*.dts
 * fixtures compiled by scripts/dtbs.sh (tests/fuzz/corpus/fdt/).
 */
#include <stdlib.h>

#include <keel/fdt.h>
#include <keel/handover.h>
#include <libfdt.h>
#include <keel/string.h>

#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * A live update's copy (boot/fdt/fdt_handover.c) of a blob dt_parse()
 * took (libfdt's writers may loop forever on a structure block no parse
 * took): the bytes it needs are at most the blob's, and a copy into
 * exactly that plus room for the property is a DTB that holds it (ASan:
 * nothing read or written past).
 */
static void dt_copy_check(const uint8_t *blob, size_t size)
{
	size_t used = dt_used_bytes(blob, size);
	uint8_t *out;

	if (!used)
		return;
	FUZZ_CHECK(used <= size);
	out = malloc(used + 256);
	if (!out)
		return;
	if (!dt_handover_copy(blob, size, out, used + 256, 1, 2)) {
		FUZZ_CHECK(!fdt_check_header(out));
		FUZZ_CHECK(fdt_totalsize(out) == used + 256);
		FUZZ_CHECK(!dt_handover_set(out, 3, 4));
	}
	free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct bootinfo bi, pre;
	static struct dt_arch_info ai;
	struct dt_uefi u;
	uint8_t *copy = malloc(size ? size : 1);
	bool read;
	int rc;

	if (!copy)
		return 0;
	memcpy(copy, data, size);
	fuzz_console_quiet();
	bootinfo_early_pool_reset();
	bootinfo_init(&pre, BOOT_DT);
	read = dt_read_cmdline(copy, size, &pre);
	FUZZ_CHECK(pre.cmdline[sizeof(pre.cmdline) - 1] == '\0');
	bootinfo_init(&bi, BOOT_DT);
	rc = dt_parse(copy, size, pa(0x40000000), &bi, &ai);
	if (rc == 0)
		FUZZ_CHECK(ai.totalsize <= size);
	/* Read only from a blob dt_parse() takes, and the same line. */
	FUZZ_CHECK(rc ? !read && !pre.cmdline[0]
		      : !strcmp(pre.cmdline, bi.cmdline));
	/* A blob dt_parse() rejects never counts as describing CPUs. */
	if (dt_has_cpus(copy, size))
		FUZZ_CHECK(ai.totalsize != 0);
	FUZZ_CHECK(bi.cmdline[sizeof(bi.cmdline) - 1] == '\0');
	FUZZ_CHECK(ai.uart_path[sizeof(ai.uart_path) - 1] == '\0');
	for (unsigned int i = 0; i < bi.ram.count; i++) {
		FUZZ_CHECK(pa_val(bi.ram.regions[i].start) <
			   pa_val(bi.ram.regions[i].end));
		FUZZ_CHECK(bi.ram.regions[i].node < MAX_NUMNODES);
	}
	for (unsigned int i = 0; i < bi.cpu_count; i++) {
		FUZZ_CHECK(bi.cpus[i].node < MAX_NUMNODES);
		/* status "fail": left out, and said to have failed. */
		FUZZ_CHECK(!bi.cpus[i].failed || !bi.cpus[i].usable);
	}

	bootinfo_init(&pre, BOOT_EFI);
	if (!dt_parse_loader(copy, size, pa(0x40000000), &pre, &ai))
		FUZZ_CHECK(!rc && !pre.ram.count && !pre.cpu_count);
	if (dt_uefi_read(copy, size, &pre, &u) == 1) {
		FUZZ_CHECK(!rc && u.system_table && u.desc_ver == 1);
		FUZZ_CHECK(u.desc_size >= 40 && u.desc_size <= 1024);
		FUZZ_CHECK(u.mmap_size && u.mmap_size % u.desc_size == 0);
		FUZZ_CHECK(u.mmap_start + u.mmap_size > u.mmap_start);
		FUZZ_CHECK(u.loader[0] && u.loader[sizeof(u.loader) - 1] == 0);
	}
	/* As the arch: the copy is of a blob dt_parse() took. */
	if (!rc)
		dt_copy_check(copy, size);
	free(copy);
	bootinfo_sanitise(&bi);
	fuzz_check_bootinfo(&bi);
	return 0;
}
