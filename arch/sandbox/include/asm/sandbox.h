/* SPDX-License-Identifier: MIT */
/*
 * Sandbox-only interfaces, for arch/sandbox and the unit tests (never for
 * common/ or boot/). Implemented in the files of arch/sandbox.
 */
#ifndef ASM_SANDBOX_H
#define ASM_SANDBOX_H

#include <keel/types.h>

/*
 * RAM arena: one mmap(MAP_NORESERVE) covering [0, top), so physical address
 * pa lives at arena + pa. Only touched pages cost host memory. Calling it
 * again replaces the arena. Return: 0 or -ENOMEM.
 */
int sandbox_ram_init(uint64_t top);
void sandbox_ram_fini(void);

/*
 * Panic hook for tests: when set, panic() calls it (with the message,
 * without the "keel: panic: " prefix) instead of exiting; the hook must not
 * return (tests longjmp out of it).
 */
void sandbox_set_panic_hook(void (*hook)(const char *msg));
/* The last panic message (empty when none). */
const char *sandbox_last_panic(void);

/* Console capture for tests: when enabled, console output is appended to a
 * buffer (and still printed unless @quiet). */
void sandbox_console_capture(bool enable, bool quiet);
const char *sandbox_console_buffer(void);
void sandbox_console_clear(void);

/* Cache maintenance counters (the sandbox does no real maintenance). */
struct sandbox_cache_counters {
	uint64_t clean_ops, clean_bytes;
	uint64_t clean_inval_ops, clean_inval_bytes;
	uint64_t icache_invals;
	uint64_t scrub_clean_ops, scrub_clean_bytes;
};
void sandbox_cache_counters(struct sandbox_cache_counters *out);
void sandbox_cache_counters_reset(void);
/*
 * Optional per-range observer for tests (called for every clean/clean+inval
 * with the physical range). NULL to disable.
 */
void sandbox_set_cache_observer(void (*fn)(paddr_t start, uint64_t len,
					   bool invalidate));

/*
 * Optional observer of the scrub primitive for tests: called after
 * arch_scrub_range() (@clean false) and arch_scrub_clean_range() (@clean
 * true) with the physical range just zeroed. NULL to disable.
 */
void sandbox_set_scrub_observer(void (*fn)(paddr_t start, uint64_t len,
					   bool clean));

/*
 * Tests: every secondary's idle sleep lasts @ns until it is woken (0: the
 * bound its caller asks for), so that a wake-up and the safety-net timer
 * are far apart.
 */
void sandbox_set_idle_wait(uint64_t ns);

/*
 * The sandbox's whole boot, main()'s body: `keel [--prefault] FILE
 * [words...]` in @argv. Does not return once the boot started (the
 * process exits with its verdict); 2 on a usage or file error.
 */
int sandbox_main(int argc, char **argv);

/* Host CPU count (for pinning and the benchmark table). */
unsigned int sandbox_host_cpus(void);

/* Read a whole file into a malloc'ed buffer. Return: NULL on error. */
char *sandbox_read_file(const char *path, size_t *len);
/* The same, mapped (no copy); sandbox_unmap_file() frees it. */
char *sandbox_map_file(const char *path, size_t *len);
char *sandbox_map_fd(int fd, size_t *len);
void sandbox_unmap_file(char *buf, size_t len);
/* A memory file of @len bytes, kept open across exec(). Return: fd, -1. */
int sandbox_memfd_text(const char *name, const char *buf, size_t len);
void sandbox_close_fd(int fd);

/*
 * KEEL_SANDBOX_CANARY=1: check the firmware's reserved RAM pages at exit.
 * The description's parser reports its ranges to sandbox_canary_observe()
 * (a fwdesc_range_fn); sandbox_canary_arm() then fills them below @top.
 */
bool sandbox_canary_enabled(void);
void sandbox_canary_observe(void *arg, bool ram, uint64_t start, uint64_t end);
void sandbox_canary_arm(uint64_t top);

#endif
