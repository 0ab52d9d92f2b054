/* SPDX-License-Identifier: MIT */
/*
 * The scrub's private state, shared by common/scrub/scrub.c (the plan, entry
 * points, idle scrub, statistics), common/scrub/scrub_work.c (the boot scrub's
 * chunk table, units and workers) and common/scrub/scrub_calib.c (primitive
 * and unit choice). Not an interface: nothing outside common/scrub*.c
 * includes it.
 */
#ifndef COMMON_SCRUB_PRIV_H
#define COMMON_SCRUB_PRIV_H

#include <keel/cpumask.h>
#include <keel/heap_scrub.h>
#include <keel/numa.h>
#include <keel/scrub.h>
#include <keel/spinlock.h>
#include <keel/types.h>

/*
 * The chunk table: SCRUB_MAX_CHUNKS entries from bootmem (scrub_init_cpus(),
 * not in keel's image), else SCRUB_MIN_CHUNKS static ones (more passes).
 */
#define SCRUB_MAX_CHUNKS 4096
#define SCRUB_MIN_CHUNKS 256
#define SCRUB_STRIPES	 8 /* claim cursors per node, a cache line each */

struct scrub_chunk {
	struct page_info *head;
	uint64_t start_pfn;  /* first dirty page */
	uint64_t pages;	     /* dirty: start_pfn to chunk end */
	uint64_t first_unit; /* node-relative index of its first unit */
	uint32_t units;
	uint32_t remaining; /* units not yet done (atomic) */
	uint32_t all_clean; /* every unit reported clean to PoC (atomic) */
};

/* One stripe of a node's units: [next, end), next claimed atomically. */
struct scrub_stripe {
	uint64_t next, end;
} __attribute__((aligned(64)));

struct scrub_node_work {
	struct scrub_stripe stripe[SCRUB_STRIPES];
	uint32_t first_chunk, chunk_count; /* slice of scrub_chunks[] */
	uint64_t units;
	spinlock_t abandoned_lock;
	uint32_t abandoned_count; /* atomic read, written under the lock */
	uint64_t *abandoned;	  /* cpu_count entries (scrub_init_cpus) */
	uint64_t first_start, last_end; /* ticks, whole boot scrub (atomic) */
	uint64_t unit_pages;		/* scrub_unit_pages() */
};

/* scrub_work.c owns them; scrub.c resets them, scrub_calib.c reads. */
extern struct scrub_chunk *scrub_chunks;
extern unsigned int scrub_chunk_cap, scrub_chunk_used;
extern struct scrub_node_work scrub_work[MAX_NUMNODES];

/* scrub.c's plan: nodes scrubbed, and by whose workers each one. */
extern unsigned int scrub_nodes;
extern uint32_t scrubbed_by[MAX_NUMNODES];

/* common/scrub/scrub.c */
bool scrub_pages(uint32_t node, pfn_t p, uint64_t pages);
void scrub_note_stopped(void);

/* common/scrub/scrub_work.c */
bool scrub_collect_pass(void);
void scrub_run_passes(const cpumask_t *workers);

/* scrub_calib.c: what it found, copied into scrub_stats by scrub.c. */
struct scrub_calib_result {
	struct scrub_calib calib[ARCH_SCRUB_MAX_PRIMITIVES];
	unsigned int count; /* candidates measured (0: bootscrub=off) */
	uint64_t ticks;	    /* the calibration's wall time */
	enum scrub_choice choice;
};
const struct scrub_calib_result *scrub_calib_result(void);
void scrub_calibrate(bool measure, uint64_t unit_bytes);
int scrub_calib_claim(uint64_t bytes, unsigned int *cand);
void scrub_calib_account(int ticket, uint64_t bytes, uint64_t ticks);
void scrub_calib_end(void);

#endif /* COMMON_SCRUB_PRIV_H */
