/* SPDX-License-Identifier: MIT */
/*
 * The sandbox's main(): read the firmware description (DESIGN §3) into a
 * bootinfo, replay the firmware tables it names, join the command line,
 * map the RAM arena (--prefault: fault it in; a memory file for a live
 * update, --handover= when one came), then keel_main().
 */
#include <arch/cpu.h>
#include <arch/mm.h>
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
#include <keel/printk.h>
#include <keel/string.h>

#include "sandbox_priv.h"

static struct bootinfo sandbox_bi;
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

/* What the sandbox's clock and address width are. */
static void sandbox_set_timer(struct bootinfo *bi)
{
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
}

static int usage(const char *prog)
{
	os_eprintf("usage: %s [--prefault] [--handover=FD:PA:SIZE] "
		   "[--mce-history=HFILE] FILE [keel command line words...]\n"
		   "  FILE: sandbox firmware description "
		   "(ram/reserved/cpu/distance/acpidump/dtb lines)\n"
		   "  --prefault: fault the RAM in (huge pages where the host "
		   "gives them) before the boot\n"
		   "  --handover=FD:PA:SIZE: a live update's new image: RAM is "
		   "the memory file FD, the handover [PA, PA + SIZE) "
		   "(docs/liveupdate.md)\n"
		   "  --mce-history=HFILE: `mce START END` lines, pages this "
		   "host's machine checks took out before this boot; a cold "
		   "boot offlines them, a live update's new image is not "
		   "given them\n",
		   prog);
	return 2;
}

/* What main() reads before FILE. */
struct sandbox_args {
	bool prefault;
	bool handover; /* --handover= given */
	int fd;	       /* its memory file, -1: none */
	uint64_t pa, size;
	const char *history; /* --mce-history=HFILE, NULL: none */
	int first;	     /* argv index of FILE */
};

/* --handover=FD:PA:SIZE. Return: 0, or -EINVAL. */
static int parse_handover(const char *v, struct sandbox_args *a)
{
	char *end;
	unsigned long fd = strtoul(v, &end, 0);

	if (end == v || *end != ':' || fd > 1u << 20)
		return -EINVAL;
	a->pa = strtoull(end + 1, &end, 0);
	if (*end != ':')
		return -EINVAL;
	a->size = strtoull(end + 1, &end, 0);
	if (*end)
		return -EINVAL;
	a->fd = (int)fd;
	a->handover = true;
	return 0;
}

static int parse_args(int argc, char **argv, struct sandbox_args *a)
{
	a->fd = -1;
	for (a->first = 1; a->first < argc; a->first++) {
		const char *w = argv[a->first];

		if (!strcmp(w, "--prefault"))
			a->prefault = true;
		else if (!strncmp(w, "--handover=", 11) &&
			 !parse_handover(w + 11, a))
			continue;
		else if (!strncmp(w, "--mce-history=", 14) && w[14])
			a->history = w + 14;
		else if (!strncmp(w, "--", 2))
			return -EINVAL;
		else
			return 0;
	}
	return -EINVAL;
}

/*
 * Map the arena over every RAM byte sanitise can keep (below paddr_bits:
 * sanitise drops or clamps the rest, naming each range), its top into
 * @top: a memory file when @fd (a live update's, *@fd < 0: a new one);
 * with @prefault, fault the RAM in. Return: 0, or -ENOMEM after an error
 * on stderr naming the range that set the top.
 */
static int map_ram(const struct bootinfo *bi, bool prefault, int *fd,
		   uint64_t *top)
{
	uint64_t limit = 1ull << bi->paddr_bits;
	unsigned int highest = 0;
	int given;

	*top = 0;
	for (unsigned int i = 0; i < bi->ram.count; i++) {
		uint64_t s = pa_val(bi->ram.regions[i].start);
		uint64_t e = MIN(pa_val(bi->ram.regions[i].end), limit);

		if (s < limit && e > *top) {
			*top = e;
			highest = i;
		}
	}
	given = fd ? *fd : -1;
	if (sandbox_ram_init_fd(*top, fd)) {
		/* What the host said: never a cause it did not give. */
		if (given >= 0)
			os_eprintf("keel: error: --handover=: descriptor %d "
				   "cannot be mapped as the %llu bytes of "
				   "sandbox RAM up to ram [%#llx, %#llx): %s\n",
				   given, (unsigned long long)*top,
				   (unsigned long long)pa_val(
					   bi->ram.regions[highest].start),
				   (unsigned long long)pa_val(
					   bi->ram.regions[highest].end),
				   os_errstr());
		else
			os_eprintf("keel: error: cannot map %llu bytes of "
				   "sandbox RAM for ram [%#llx, %#llx): the "
				   "host refused: %s\n",
				   (unsigned long long)*top,
				   (unsigned long long)pa_val(
					   bi->ram.regions[highest].start),
				   (unsigned long long)pa_val(
					   bi->ram.regions[highest].end),
				   os_errstr());
		return -ENOMEM;
	}
	for (unsigned int i = 0; prefault && i < bi->ram.count; i++) {
		if (sandbox_ram_prefault(pa_val(bi->ram.regions[i].start),
					 pa_val(bi->ram.regions[i].end))) {
			os_eprintf("keel: error: --prefault: the host "
				   "cannot back the RAM\n");
			return -ENOMEM;
		}
	}
	return 0;
}

/*
 * The RAM, and a live update's: a memory file when liveupdate= is asked
 * (the next image maps it again) or the last image passed one on, the
 * handover inside it (outside: the reader refuses it, no bytes to read).
 */
static int map_ram_lu(struct bootinfo *bi, const struct sandbox_args *a,
		      const struct keel_options *o, uint64_t *top)
{
	int fd = a->fd;
	bool shared = a->handover || o->liveupdate;

	if (map_ram(bi, a->prefault, shared ? &fd : NULL, top))
		return -ENOMEM;
	sandbox_lu_arena_fd(shared ? fd : -1);
	if (!a->handover)
		return 0;
	bi->handover.pa = pa(a->pa);
	bi->handover.size = a->size;
	if (a->pa < *top && a->size <= *top - a->pa)
		bi->handover.va = phys_to_virt(pa(a->pa));
	console_hold(); /* the downtime's lines (liveupdate.c releases) */
	return 0;
}

/**
 * sandbox_main() - `keel [--prefault] [--handover=FD:PA:SIZE] FILE
 * [command line words...]`: boot the sandbox (main() calls it; so do
 * tests, in a child process).
 * @argc: argument count
 * @argv: FILE is the firmware description (DESIGN §3)
 *
 * Return: does not return on success (keel_main stops the process);
 * 2 on usage errors or when FILE cannot be read or RAM cannot be mapped.
 */
int sandbox_main(int argc, char **argv)
{
	static struct fwdesc_files files;
	struct sandbox_args a = {0};
	struct bootinfo *bi = &sandbox_bi;
	uint64_t top;
	size_t len;
	char *buf;
	int fw_fd;

	arch_entry_ticks = arch_ticks();
	if (parse_args(argc, argv, &a))
		return usage(argc > 0 ? argv[0] : "keel");
	/*
	 * Condensed by the old image: its bad lines are in the handover.
	 * Not readable: FILE itself, whose pages are carried as well.
	 */
	fw_fd = sandbox_fw_fd_taken(a.handover);
	buf = fw_fd >= 0 ? sandbox_map_fd(fw_fd, &len) : NULL;
	if (fw_fd >= 0)
		sandbox_close_fd(fw_fd);
	if (!buf)
		buf = sandbox_map_file(argv[a.first], &len);
	if (!buf) {
		os_eprintf("keel: error: cannot read firmware description %s: "
			   "%s\n",
			   argv[a.first], os_errstr());
		return 2;
	}

	bootinfo_init(bi, BOOT_SANDBOX);
	if (sandbox_canary_enabled())
		files.on_range = sandbox_canary_observe;
	files.on_mce = sandbox_mce_history_add;
	files.mce_skip = a.handover; /* the handover carries the history */
	fwdesc_parse_files(bi, buf, len, &files);
	if (files.mce_skip && files.mce_skipped)
		sandbox_mce_history_ignore(files.mce_skipped);
	sandbox_unmap_file(buf, len);
	if (a.history && sandbox_mce_history_read(a.history, a.handover))
		return 2;
	if (sandbox_replay_firmware(bi, argv[a.first], &files))
		return 2;
	if (join_cmdline(bi, argc, argv, a.first + 1)) {
		os_eprintf("keel: error: no memory for the command line\n");
		return 2;
	}
	/* The readers above need no option: parsed once, before the map. */
	options_parse(&sandbox_opts, bi->cmdline, sizeof(bi->cmdline));
	sandbox_set_timer(bi);
	if (map_ram_lu(bi, &a, &sandbox_opts, &top))
		return 2;
	sandbox_lu_args(argc, argv, a.first, a.prefault,
			!sandbox_canary_enabled() &&
				sandbox_opts.handover != HANDOVER_DISCARD);
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
