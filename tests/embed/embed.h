/* SPDX-License-Identifier: MIT */
/*
 * The host hooks of a Linux program that links libkeel-heap.a (host.c):
 * what they share with their users, tests/embed (embed.c, collide.c,
 * cxx_host.cc) and the runtime benchmark (tests/bench/heap_runtime.c).
 */
#ifndef EMBED_H
#define EMBED_H

#include <keel/types.h>

/* Where the mmap()ed region lies in "physical" memory (not at 0). */
#define EMBED_PHYS_BASE 0x40000000ull

/*
 * The kind a lock is given when it is made (host.lock_kind then), so that
 * its acquisitions are counted apart: a program sets HOST_LOCK_NODE around
 * heap_init(), which makes the node locks.
 */
enum host_lock_kind {
	HOST_LOCK_OTHER,
	HOST_LOCK_NODE,
	HOST_LOCK_REF, /* the benchmark's reference allocator's */
	HOST_LOCK_KINDS
};

struct host_state {
	const char *name;    /* prefix of the host's own lines; "embed" */
	unsigned char *base; /* the region */
	uint64_t bytes;
	bool verbose; /* keel's console shown (EMBED_VERBOSE) */
	/*
	 * Say the cache is coherent (no maintenance call, as on x86): a
	 * benchmark. Otherwise the host says it is not, so that every
	 * maintenance call reaches it and is counted (the embed checks).
	 */
	bool coherent;
	uint64_t console_bytes;
	uint64_t maint_ops, maint_bytes, icache_ops;
	uint64_t warnings; /* keel's "warning:" lines */
	/*
	 * The debug host's run (embed.c): a panic is what it checks for,
	 * so arch_panic() exits with EMBED_PANIC_STATUS, not a failure.
	 */
	bool panic_expected;
	enum host_lock_kind lock_kind;	      /* of the locks made now */
	uint64_t lock_inits[HOST_LOCK_KINDS]; /* locks made, by kind */
};

#define EMBED_PANIC_STATUS 42

extern struct host_state host;
/* Per thread: the "interrupt" flag and the CPU id the thread runs as. */
extern __thread unsigned long host_irq_on;
extern __thread unsigned int host_cpu;
/* Per thread: its acquisitions of the host's locks, by kind (no shared line). */
extern __thread uint64_t host_lock_count[HOST_LOCK_KINDS];
/*
 * The host's lock: "mutex" (a pthread mutex), or "ticket" with
 * HOST_LOCK=ticket in the environment (a ticket lock as keel's arches
 * give: take a ticket, spin with a pause until it is served).
 */
const char *host_lock_name(void);

#endif
