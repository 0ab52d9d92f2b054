/* SPDX-License-Identifier: MIT */
/*
 * Firmware replay: the `acpidump` and `dtb` lines of a sandbox firmware
 * description name files of a real machine's tables, which boot/ parses
 * as it does on hardware (acpi_replay(), dt_parse()).
 */
#include <asm/os.h>
#include <asm/sandbox.h>
#include <keel/acpi.h>
#include <keel/bootinfo.h>
#include <keel/fdt.h>
#include <keel/fwdesc.h>
#include <keel/fwboot.h>
#include <keel/string.h>

#include "sandbox_priv.h"

/*
 * @file as the description at @desc names it: relative paths start in the
 * description's folder. Return: an os_malloc()'ed path, or NULL.
 */
static char *replay_path(const char *desc, const char *file)
{
	const char *slash = strrchr(desc, '/');
	/* The folder with its slash, or nothing. */
	size_t dir = file[0] == '/' || !slash ? 0 : (size_t)(slash - desc) + 1;
	size_t size = dir + strlen(file) + 1;
	char *out = os_malloc(size);

	if (out)
		snprintf(out, size, "%.*s%s", (int)dir, desc, file);
	return out;
}

/* Read @file for a replay line; NULL after an error on stderr. */
static char *replay_read(const char *desc, const char *file, const char *what,
			 size_t *len)
{
	char *path = replay_path(desc, file), *buf = NULL;

	if (path)
		buf = sandbox_read_file(path, len);
	if (!buf)
		os_eprintf("keel: error: cannot read %s file %s: %s\n", what,
			   path ? path : file, os_errstr());
	os_free(path);
	return buf;
}

/*
 * What a replayed DT describes, shown to the parser's range observer as
 * the description's own lines are (the reserved-page canary, canary.c):
 * its RAM, and every range the DT reserved (memreserve, /reserved-memory,
 * the initrd, boot modules, xen,static-mem), from @ram0 and @rsv0 on.
 */
static void replay_observe(const struct bootinfo *bi, unsigned int ram0,
			   unsigned int rsv0, const struct fwdesc_files *files)
{
	for (unsigned int i = ram0; i < bi->ram.count; i++)
		files->on_range(files->on_range_arg, true,
				pa_val(bi->ram.regions[i].start),
				pa_val(bi->ram.regions[i].end));
	for (unsigned int i = rsv0; i < bi->reserved.count; i++)
		files->on_range(files->on_range_arg, false,
				pa_val(bi->reserved.regions[i].start),
				pa_val(bi->reserved.regions[i].end));
}

/*
 * The `acpidump` and `dtb` lines of @desc: the machine's tables parsed by
 * boot/ as on hardware, into @bi (which keeps no pointer into the files,
 * so both are freed here). Return: 0, or 2 (usage error, said on stderr).
 */
int sandbox_replay_firmware(struct bootinfo *bi, const char *desc,
			    const struct fwdesc_files *files)
{
	size_t len;
	char *text;

	if (files->acpidump[0]) {
		uint8_t *tables;
		size_t size;

		text = replay_read(desc, files->acpidump, "acpidump", &len);
		if (!text)
			return 2;
		size = len / 3 + 16;
		tables = os_malloc(size);
		if (!tables) {
			os_free(text);
			return 2;
		}
		acpi_replay(bi, text, len, tables, size);
		os_free(tables);
		os_free(text);
	}
	if (files->dtb[0]) {
		struct dt_arch_info ai;
		unsigned int r0 = bi->reserved.count, c0 = bi->cpu_count;
		unsigned int m0 = bi->ram.count;

		if (files->acpidump[0]) {
			os_eprintf("keel: error: acpidump and dtb in one "
				   "description: a machine boots with one\n");
			return 2;
		}
		text = replay_read(desc, files->dtb, "dtb", &len);
		if (!text)
			return 2;
		dt_parse(text, len, pa(0), bi, &ai);
		/* A DT names no boot CPU: the first usable one it lists. */
		fwboot_boot_cpu_first(bi, c0);
		/* The blob lives in this process, not in the machine's RAM. */
		for (unsigned int i = r0; i < bi->reserved.count; i++) {
			if (strcmp(bi->reserved.regions[i].name, "dtb"))
				continue;
			memmove(&bi->reserved.regions[i],
				&bi->reserved.regions[i + 1],
				(bi->reserved.count - i - 1) *
					sizeof(bi->reserved.regions[0]));
			bi->reserved.count--;
			break;
		}
		if (files->on_range)
			replay_observe(bi, m0, r0, files);
		os_free(text);
	}
	return 0;
}
