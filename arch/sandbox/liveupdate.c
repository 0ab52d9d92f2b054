/* SPDX-License-Identifier: MIT */
/*
 * Sandbox arch hooks of <arch/liveupdate.h>: the new image is a fresh
 * process, an exec() of a keel binary (this one, /proc/self/exe, unless
 * KEEL_LIVEUPDATE_IMAGE names another) over the same RAM: the arena is a
 * memory file (main() maps one when liveupdate= is asked or a handover
 * came) whose descriptor stays open across exec(), and the new image is
 * told where it is and where the handover lies in its first argument:
 *
 *   keel --handover=FD:PA:SIZE [--prefault] FILE [command line ...]
 *
 * FILE and the command line are this image's own, so the firmware
 * description is read afresh, but for its `bad` lines when
 * KEEL_FIRMWARE_FD=N in the environment names it condensed
 * (fw_condense.c): the handover carries their pages. An environment
 * variable, not an option: a keel built before it (an update back to an
 * older build, KEEL_LIVEUPDATE_IMAGE) ignores it and reads FILE, where
 * an option it does not know would stop it after the freeze. The old
 * process's address space is held
 * across the exec() by a helper task and let go after the new image's
 * verify (os_lu_hold(), arch_lu_verified()): its teardown, a cost of the
 * host, is not in the downtime. The CPUs stop by ending their host threads;
 * exec() ends the process's other threads anyway, but the freeze must
 * see them gone first, as hardware's would.
 */
#include <arch/liveupdate.h>
#include <asm/os.h>
#include <asm/sandbox.h>
#include <keel/compiler.h>
#include <keel/errno.h>
#include <keel/printk.h>
#include <keel/string.h>

#include "sandbox_priv.h"

#define IMAGE_ENV  "KEEL_LIVEUPDATE_IMAGE"
#define SELF_IMAGE "/proc/self/exe"

static int lu_argc, lu_first;
static char **lu_argv;
static bool lu_prefault, lu_condense;
static int lu_fd = -1;
static int fw_fd = -1; /* the condensed description (fw_condense.c) */
static char **next_argv;
static char next_arg[64];

/**
 * sandbox_lu_args() - main()'s arguments, for the next image.
 * @argc: as main() got it
 * @argv: as main() got it
 * @first: index of the firmware description in @argv
 * @prefault: --prefault was given
 * @condense: the next image may be given the description condensed
 *	(fw_condense.c): no canary, no handover=discard
 */
void sandbox_lu_args(int argc, char **argv, int first, bool prefault,
		     bool condense)
{
	lu_argc = argc;
	lu_argv = argv;
	lu_first = first;
	lu_prefault = prefault;
	lu_condense = condense;
}

/** sandbox_lu_arena_fd() - the arena's memory file (-1: anonymous). */
void sandbox_lu_arena_fd(int fd)
{
	lu_fd = fd;
}

uint64_t arch_lu_build_id(void)
{
	return os_build_id();
}

void arch_lu_cpu_stop(void)
{
	os_thread_park();
}

bool arch_lu_cpu_stopped(unsigned int cpu, uint64_t hwid)
{
	(void)hwid;
	return sandbox_cpu_thread_exited(cpu);
}

/* The old image's address space, held across the exec(), can go now. */
void arch_lu_verified(void)
{
	os_lu_hold_release();
}

void arch_lu_needs(struct arch_lu_needs *n)
{
	n->scratch_bytes = 0;
	n->max_bits = 0;
}

static const char *image_path(void)
{
	const char *p = os_getenv(IMAGE_ENV);

	return p && *p ? p : SELF_IMAGE;
}

/*
 * The next image's argv: the image, --handover=, [--prefault], the rest;
 * KEEL_FIRMWARE_FD in its environment when the description is condensed.
 */
int arch_lu_prepare(const struct arch_lu_jump *j, char *why, size_t why_len)
{
	const char *img = image_path();
	int n = 0, err;

	/* The last update's helper, before this one's freeze. */
	os_lu_hold_release();
	os_lu_hold_reap();

	if (lu_fd < 0 || !lu_argv) {
		snprintf(why, why_len,
			 "the RAM arena is no memory file (the "
			 "sandbox maps one only when liveupdate= is on its "
			 "command line)");
		return -EINVAL;
	}
	err = os_access_exec(img);
	if (err) {
		snprintf(why, why_len,
			 "the new image %s is not executable "
			 "(%s)",
			 img, os_errstr());
		return err;
	}
	os_free(next_argv); /* an earlier update's, failed after this */
	next_argv =
		os_calloc((size_t)(lu_argc - lu_first) + 4, sizeof(*next_argv));
	if (!next_argv) {
		snprintf(why, why_len, "no host memory for the new argv");
		return -ENOMEM;
	}
	next_argv[n++] = (char *)img;
	next_argv[n++] = next_arg;
	if (lu_prefault)
		next_argv[n++] = "--prefault";
	if (fw_fd >= 0) /* an earlier update's, failed after this */
		sandbox_close_fd(fw_fd);
	fw_fd = lu_condense ? sandbox_fw_condensed_fd(lu_argv[lu_first]) : -1;
	sandbox_fw_fd_pass(fw_fd);
	for (int i = lu_first; i < lu_argc; i++)
		next_argv[n++] = lu_argv[i];
	pr_info("sandbox: liveupdate: the new image is %s (exec, arena fd "
		"%d%s)\n",
		img, lu_fd,
		fw_fd >= 0 ? ", the firmware description less its bad lines"
			   : "");
	/*
	 * The helper that holds this address space across the exec(), made
	 * now, out of the downtime: a clone() there cost 50-150 us, and the
	 * exec() after it more while the helper was still starting on the
	 * other core (100,000 bad pages: +0.1 ms). An update that fails
	 * from here on leaves it blocked, sharing this address space, until
	 * os_exit() lets it go. Not held (a failure): exec() tears this
	 * image down in the downtime, as before.
	 */
	(void)os_lu_hold();
	return 0;
}

void arch_lu_jump(const struct arch_lu_jump *j)
{
	int err;

	snprintf(next_arg, sizeof(next_arg), "--handover=%d:%#llx:%llu", lu_fd,
		 (unsigned long long)pa_val(j->handover),
		 (unsigned long long)j->handover_bytes);
	err = os_exec(next_argv[0], next_argv);
	panic("sandbox: liveupdate: exec %s failed (%d) after the freeze",
	      next_argv[0], err);
}
