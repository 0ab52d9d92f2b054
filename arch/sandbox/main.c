/* SPDX-License-Identifier: MIT */
/*
 * The sandbox's main(): read the firmware description (DESIGN §3) into a
 * bootinfo, replay the firmware tables it names, join the command line
 * and parse the options from it (once), map the RAM arena (--prefault:
 * fault it in), then keel_main().
 */
#include <arch/cpu.h>
#include <asm/os.h>
#include <asm/sandbox.h>
#include <keel/boot.h>
#include <keel/bootinfo.h>
#include <keel/cmdline_copy.h>
#include <keel/compiler.h>
#include <keel/errno.h>
#include <keel/fwboot.h>
#include <keel/fwdesc.h>
#include <keel/options.h>
#include <keel/string.h>

#include "sandbox_priv.h"

static struct bootinfo sandbox_bi;
/* The boot's options, parsed once (options_parse()); read, never copied. */
static struct keel_options sandbox_opts;

/*
 * argv[first..] joined by spaces into bi->cmdline the way every loader's
 * line is copied (cmdline_copy_bootinfo()): a line too long loses whole
 * words, with one counted warning. Return: -ENOMEM when the host has no
 * memory for the joined line.
 */
static int join_cmdline(struct bootinfo *bi, int argc, char **argv, int first)
{
	size_t len = 0, used = 0;
	char *line;

	for (int i = first; i < argc; i++)
		len += strlen(argv[i]) + 1;
	line = os_malloc(len + 1);
	if (!line)
		return -ENOMEM;
	for (int i = first; i < argc; i++) {
		size_t n = strlen(argv[i]);

		if (used)
			line[used++] = ' ';
		memcpy(line + used, argv[i], n);
		used += n;
	}
	line[used] = '\0';
	cmdline_copy_bootinfo(bi, line, used, NULL, "sandbox: command line");
	os_free(line);
	return 0;
}

static int usage(const char *prog)
{
	os_eprintf("usage: %s [--prefault] FILE [keel command line words...]\n"
		   "  FILE: sandbox firmware description "
		   "(ram/reserved/cpu/distance/acpidump/dtb lines)\n"
		   "  --prefault: fault the RAM in (huge pages where the host "
		   "gives them) before the boot\n",
		   prog);
	return 2;
}

/*
 * Map the arena over every RAM byte sanitise can keep (below paddr_bits:
 * sanitise drops or clamps the rest, naming each range), its top into
 * @top; with @prefault, fault the RAM in. Return: 0, or -ENOMEM after an
 * error on stderr naming the range that set the top.
 */
static int map_ram(const struct bootinfo *bi, bool prefault, uint64_t *top)
{
	uint64_t limit = 1ull << bi->paddr_bits;
	unsigned int highest = 0;

	*top = 0;
	for (unsigned int i = 0; i < bi->ram_count; i++) {
		uint64_t s = pa_val(bi->ram[i].start);
		uint64_t e = MIN(pa_val(bi->ram[i].end), limit);

		if (s < limit && e > *top) {
			*top = e;
			highest = i;
		}
	}
	if (sandbox_ram_init(*top)) {
		os_eprintf("keel: error: cannot map %llu bytes of sandbox RAM "
			   "for ram [%#llx, %#llx): the host's address space "
			   "is smaller\n",
			   (unsigned long long)*top,
			   (unsigned long long)pa_val(bi->ram[highest].start),
			   (unsigned long long)pa_val(bi->ram[highest].end));
		return -ENOMEM;
	}
	for (unsigned int i = 0; prefault && i < bi->ram_count; i++) {
		if (sandbox_ram_prefault(pa_val(bi->ram[i].start),
					 pa_val(bi->ram[i].end))) {
			os_eprintf("keel: error: --prefault: the host "
				   "cannot back the RAM\n");
			return -ENOMEM;
		}
	}
	return 0;
}

/**
 * sandbox_main() - `keel [--prefault] FILE [command line words...]`: boot
 * the sandbox (main() calls it; so do tests, in a child process).
 * @argc: argument count
 * @argv: FILE is the firmware description (DESIGN §3)
 *
 * Return: does not return on success (keel_main stops the process);
 * 2 on usage errors or when FILE cannot be read or RAM cannot be mapped.
 */
int sandbox_main(int argc, char **argv)
{
	static struct fwdesc_files files;
	struct bootinfo *bi = &sandbox_bi;
	uint64_t top;
	bool prefault = false;
	size_t len;
	char *buf;

	arch_entry_ticks = arch_ticks();
	if (argc < 2)
		return usage(argc > 0 ? argv[0] : "keel");
	if (!strcmp(argv[1], "--prefault")) {
		prefault = true;
		argv++;
		argc--;
	}
	if (argc < 2)
		return usage(argv[0]);
	buf = sandbox_read_file(argv[1], &len);
	if (!buf) {
		os_eprintf("keel: error: cannot read firmware description %s: "
			   "%s\n",
			   argv[1], os_errstr());
		return 2;
	}

	bootinfo_init(bi, BOOT_SANDBOX);
	if (sandbox_canary_enabled())
		files.on_range = sandbox_canary_observe;
	fwdesc_parse_files(bi, buf, len, &files);
	os_free(buf);
	if (sandbox_replay_firmware(bi, argv[1], &files))
		return 2;
	if (join_cmdline(bi, argc, argv, 2)) {
		os_eprintf("keel: error: no memory for the command line\n");
		return 2;
	}
	/* The readers above need no option: parsed once, before the map. */
	options_parse(&sandbox_opts, bi->cmdline, sizeof(bi->cmdline));
	snprintf(bi->loader, sizeof(bi->loader), "sandbox");
	bi->timer_source = "clock_monotonic_raw";
	bi->timer_calibrated_by = "os";
	bi->timer_hz = arch_ticks_hz();
	bi->el = -1;
	/*
	 * The width the sandbox simulates, within what one host mapping
	 * holds (arch/sandbox/Kconfig): RAM above it is dropped by
	 * sanitise with a warning naming it, not a failed mapping.
	 */
	bi->paddr_bits = fwboot_paddr_bits(CONFIG_SANDBOX_PADDR_BITS,
					   BOOTINFO_PADDR_BITS_DEFAULT);

	if (map_ram(bi, prefault, &top))
		return 2;
	sandbox_canary_arm(top);
	fwboot_finish(bi, &sandbox_opts);
	keel_main(bi, &sandbox_opts);
}

/**
 * main() - the sandbox's entry: sandbox_main().
 * @argc: argument count
 * @argv: arguments
 *
 * Weak, because unit tests and libFuzzer bring their own main().
 *
 * Return: sandbox_main()'s.
 */
__attribute__((weak)) int main(int argc, char **argv)
{
	return sandbox_main(argc, argv);
}
