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
	unsigned long irq_on; /* the "interrupt" flag */
	bool verbose;	      /* EMBED_VERBOSE: show keel's console */
	uint64_t console_bytes;
	uint64_t maint_ops, maint_bytes, icache_ops;
};

extern struct host_state host;

#endif
