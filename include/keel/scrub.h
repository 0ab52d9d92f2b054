/* SPDX-License-Identifier: MIT */
/*
 * Owner: scrub.
 * Scrubbing free memory (DESIGN §5). The boot scrub cuts every node's dirty
 * chunks into units of bootscrub_chunk bytes (a unit never spans two chunks)
 * that the node's workers claim from a per-node atomic cursor. A node without
 * CPUs is scrubbed by the workers of the nearest node that has some. No heap
 * lock is held while a unit is scrubbed.
 */
#ifndef KEEL_SCRUB_H
#define KEEL_SCRUB_H

#include <arch/scrub.h>
#include <keel/bootinfo.h>
#include <keel/enum_names.h>
#include <keel/smp.h>
#include <keel/types.h>

struct jw;

/* The scrub unit when CONFIG_BOOTSCRUB_CHUNK is unusable or before options. */
#define SCRUB_UNIT_DEFAULT (128ULL << 20)

enum scrub_mode {
	SCRUB_ON = 0, /* scrub before the heap opens */
	SCRUB_OFF,    /* trust memory, never scrub at boot */
	SCRUB_IDLE,   /* heap opens dirty, parked CPUs scrub in background */
};

struct scrub_node_stats {
	uint64_t bytes;
	uint64_t unit_bytes; /* this node's work unit (scrub_unit_pages()) */
	uint64_t ticks;	     /* first unit start .. last unit end */
	cpumask_t cpus;	     /* CPUs that worked on this node */
	uint32_t
		helper_of; /* node whose workers did it, or NUMA_NO_NODE when local */
};

struct scrub_cpu_stats {
	uint32_t node; /* the node whose memory it scrubbed most */
	uint64_t bytes;
	uint64_t ticks;	     /* busy time, measured on this CPU's clock */
	uint64_t last_end;   /* when its last unit ended (ticks) */
	uint64_t idle_ticks; /* its last unit's end .. the scrub's end */
	uint32_t units;
	bool worker;
};

/* One calibrated primitive: its samples' @bytes took @ticks in all. */
struct scrub_calib {
	const char *primitive;
	uint64_t bytes;
	uint64_t ticks;
};

/* How scrub.primitive was chosen. */
enum scrub_choice {
	SCRUB_CHOICE_DEFAULT = 0, /* nothing measured (no dirty memory) */
	SCRUB_CHOICE_MEASURED,	  /* the fastest of the calibration */
	SCRUB_CHOICE_FORCED,	  /* scrub_primitive= */
};

struct scrub_stats {
	enum scrub_mode mode;
	uint64_t bytes;
	uint64_t ticks; /* wall time of the boot scrub */
	unsigned int workers;
	uint64_t heap_ready_ticks; /* since entry */
	uint64_t all_clean_ticks;  /* since entry; 0 while not all clean */
	uint64_t unit_bytes;
	/* inject=scrub-stop: the workers that quit (set atomically, by word) */
	cpumask_t stopped;
	int stopped_cpu; /* the lowest of them, or -1 */
	/* Calibration of the arch's primitives on the scrub's first units. */
	struct scrub_calib calib[ARCH_SCRUB_MAX_PRIMITIVES];
	unsigned int calib_count;
	uint64_t calib_ticks;
	enum scrub_choice choice;
	struct scrub_node_stats node[MAX_NUMNODES];
	/* cpu_count entries, from scrub_init_cpus() (kept across runs). */
	struct scrub_cpu_stats *cpu;
};

extern struct scrub_stats scrub_stats;

extern const struct enum_name scrub_mode_names[];
const char *scrub_mode_name(enum scrub_mode m);
const char *scrub_choice_name(enum scrub_choice c);
/* scrub_primitive= for this boot ("" = the calibration decides). */
void scrub_set_primitive(const char *name);

/*
 * scrub_init_cpus(): allocate the per-CPU statistics and work arrays for
 * cpu_count CPUs from bootmem. After smp_init(), before the handoff.
 */
void scrub_init_cpus(void);

/*
 * scrub_boot(): the whole boot scrub for @mode (on: scrub everything and
 * return; off: nothing; idle: start background scrubbing on the parked
 * CPUs and return at once). @smt: also use SMT siblings.
 */
void scrub_boot(enum scrub_mode mode, uint64_t unit_bytes, bool smt);

/* idle mode: wait until every free chunk is clean (all_clean_ticks set). */
void scrub_wait_all_clean(void);

/*
 * Pick the scrub workers: one per core (SMT siblings skipped unless @smt),
 * and for each node the node whose workers scrub it (itself when it has
 * CPUs, else the nearest node with CPUs, ties to the lowest id).
 */
void scrub_plan(bool smt, cpumask_t *workers,
		uint32_t scrubbed_by[MAX_NUMNODES]);

/* A calibration sample: the first bytes of a scrub unit, one candidate. */
#define SCRUB_PROBE_BYTES (8ull << 20)
/* Samples per candidate: the scrub's first count * rounds units. */
#define SCRUB_CALIB_ROUNDS 3
/* A node's work is cut into at least this many units per worker. */
#define SCRUB_UNITS_PER_WORKER 16
/* ...but units are not made smaller than this (unless bootscrub_chunk is). */
#define SCRUB_MIN_UNIT_BYTES (2ull << 20)

/*
 * scrub_choose_primitive(): which of @count calibrated primitives to use:
 * the one @forced names (scrub_primitive=; '_' matches ' ', so that
 * "rep_stosb" needs no quotes), else the highest rate (bytes/ticks; a
 * primitive not measured, ticks 0 with bytes 0, never wins over a measured
 * one; ties to the lower index, the arch's default first). @forced_unknown:
 * out, true when @forced is non-empty and names none of them.
 * Return: an index below @count (0 when @count is 0).
 */
unsigned int scrub_choose_primitive(const struct scrub_calib *c,
				    unsigned int count, const char *forced,
				    bool *forced_unknown);

/*
 * scrub_unit_pages(): the work unit of a node with @dirty_pages to scrub
 * and @workers workers: at most @cap_pages (bootscrub_chunk), small enough
 * that each worker gets SCRUB_UNITS_PER_WORKER units so that the last ones
 * leave nobody idle for long, but not below SCRUB_MIN_UNIT_BYTES (whole
 * 2 MiB units, the huge-page size).
 * Return: pages, at least 1.
 */
uint64_t scrub_unit_pages(uint64_t dirty_pages, unsigned int worker_count,
			  uint64_t cap_pages);

/* idle mode: one background step on the calling CPU. Return: false when nothing is left. */
bool scrub_idle_step(void);
/*
 * scrub_rescrub_step(): the same step, counted nowhere: a re-scrub that
 * is not the boot scrub's (stress=N after bootscrub=on: the report's
 * scrub figures are the boot scrub's; the caller counts its own steps).
 * Return: false when nothing is left.
 */
bool scrub_rescrub_step(void);

#endif
