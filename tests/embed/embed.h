/* SPDX-License-Identifier: MIT */
/* tests/embed: what the host hooks (host.c) share with the checks. */
#ifndef EMBED_H
#define EMBED_H

#include <keel/types.h>

/* Where the mmap()ed region lies in "physical" memory (not at 0). */
#define EMBED_PHYS_BASE 0x40000000ull

struct host_state {
	unsigned char *base; /* the region */
	uint64_t bytes;
	bool verbose; /* EMBED_VERBOSE: show keel's console */
	uint64_t console_bytes;
	uint64_t maint_ops, maint_bytes, icache_ops;
	uint64_t lock_calls; /* arch_lock(): the host's own lock taken */
	uint64_t warnings;   /* keel's "warning:" lines */
	/*
	 * The debug host's run (embed.c): a panic is what it checks for,
	 * so arch_panic() exits with EMBED_PANIC_STATUS, not a failure.
	 */
	bool panic_expected;
};

#define EMBED_PANIC_STATUS 42

extern struct host_state host;
/* Per thread: the "interrupt" flag and the CPU id the thread runs as. */
extern __thread unsigned long host_irq_on;
extern __thread unsigned int host_cpu;

#endif
