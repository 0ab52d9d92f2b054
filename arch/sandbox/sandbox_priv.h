/* SPDX-License-Identifier: MIT */
/*
 * What the files of arch/sandbox share among themselves (not for the unit
 * tests: those use <asm/sandbox.h>).
 */
#ifndef SANDBOX_PRIV_H
#define SANDBOX_PRIV_H

#include <keel/bootinfo.h>
#include <keel/fwdesc.h>
#include <keel/types.h>

/* mm.c: the RAM arena. */
bool sandbox_in_arena(const void *va, size_t len);
int sandbox_ram_prefault(uint64_t start, uint64_t end);
int sandbox_ram_init_fd(uint64_t top, int *fd);

/*
 * liveupdate.c: main()'s arguments and the arena's memory file, for the
 * next image's exec() (@first: the firmware description's index).
 */
void sandbox_lu_args(int argc, char **argv, int first, bool prefault,
		     bool condense);
/* fw_condense.c: a live update's description less its bad lines. */
size_t sandbox_fw_condense(const char *buf, size_t len, char *out);
int sandbox_fw_condensed_fd(const char *path);
void sandbox_fw_fd_pass(int fd);
int sandbox_fw_fd_taken(bool handover);
void sandbox_lu_arena_fd(int fd);
/* The description's mce lines (mce_history.c): kept, replayed or not. */
void sandbox_mce_history_add(void *arg, bool ram, uint64_t start, uint64_t end);
void sandbox_mce_history_ignore(unsigned int lines);
/*
 * --mce-history=@path: its `mce` lines kept as the description's are;
 * @handover: only counted (the handover carries them). Return: 0, or -1
 * after an error on stderr (the file cannot be read).
 */
int sandbox_mce_history_read(const char *path, bool handover);
/* smp.c: the thread of @cpu has ended (a live update's freeze). */
bool sandbox_cpu_thread_exited(unsigned int cpu);

/* cpu.c: set arch_cpu_id() of the calling thread. */
void sandbox_set_cpu_id(unsigned int cpu, uint64_t hwid);
/* smp.c: the word a CPU thread's idle wait sleeps on (cpu.c). */
uint32_t *sandbox_cpu_wake_word(unsigned int cpu);

/* smp.c: cancel the CPU threads of the last boot. */
void sandbox_retire_all_cpus(void);

/* cache.c: count one arch_scrub_clean_range() of @len bytes. */
void sandbox_cache_count_scrub_clean(size_t len);

/* replay.c: the acpidump and dtb lines of the description @desc. */
int sandbox_replay_firmware(struct bootinfo *bi, const char *desc,
			    const struct fwdesc_files *files);

#endif
