/* SPDX-License-Identifier: MIT */
/*
 * What the files of the domain build share (common/domain_*.c): the
 * domain table and the plan helpers. See include/keel/domain.h.
 */
#ifndef COMMON_DOMAIN_PRIV_H
#define COMMON_DOMAIN_PRIV_H

#include <keel/domain.h>
#include <keel/escape.h>
#include <keel/spinlock.h>
#include <keel/types.h>

/* domain=: at most 1 PiB. */
#define DOMAIN_BYTES_MAX (1ull << 50)

/* Extent orders, largest first: 1 GiB, 2 MiB, 4 KiB. */
#define DOMAIN_EXTENT_KINDS 3
extern const unsigned int domain_extent_order[DOMAIN_EXTENT_KINDS];

/*
 * The guest-physical work unit: 1 GiB (the largest extent) for a domain
 * of 1 GiB or more; a smaller one has no 1 GiB extent to lose, and is cut
 * into units of at least 2 MiB so that its node's CPUs share it
 * (DOMAIN_UNITS_PER_CPU each, as the scrub does).
 */
#define DOMAIN_UNIT_SHIFT     30
#define DOMAIN_UNIT_MIN_SHIFT 21
#define DOMAIN_UNITS_PER_CPU  4

/*
 * Big extents (common/domain_big.c): owned extents above MAX_ORDER (up to
 * 2^MAX_FREE_ORDER pages), at most DOMAIN_BIG_MAX per domain, covering the
 * guest-physical prefix [0, big_bytes); each mapped with 1 GiB leaves.
 */
#define DOMAIN_BIG_MAX 16

struct domain_big {
	uint64_t gpa; /* guest-physical start */
	paddr_t pa;
	unsigned int order;	    /* MAX_ORDER + 1 .. MAX_FREE_ORDER */
	bool zero, maint;	    /* the build zeroes / cleans it to PoC */
	uint64_t first_unit, units; /* its work units (1 when no work) */
};

/*
 * A static domain's memory (common/domain_static.c): its xen,static-mem
 * ranges in guest order, the node of each, how many the heap adopted.
 */
struct domain_static {
	struct paddr_range range[DOMAIN_STATIC_MAX];
	uint32_t node[DOMAIN_STATIC_MAX];
	unsigned int count, adopted;
};

struct jw;
struct p2m;

struct domain {
	struct domain_spec spec;    /* bytes and node (name: see @name) */
	char name[DOMAIN_NAME_MAX]; /* whole: domainN or the DT node's */
	char shown[ESCAPE_SIZE(DOMAIN_NAME_MAX - 1)]; /* @name, printable */
	char kernel[DOMAIN_NAME_MAX]; /* its kernel module, "" when none */
	uint32_t vcpus;		      /* the DT's `cpus`, 0 when not given */
	enum domain_origin origin;
	struct domain_static st; /* DOMAIN_ORIGIN_STATIC only */
	uint16_t id;		 /* heap owner id: index + 1 */
	uint32_t node;		 /* where its memory should be */
	uint32_t
		build_node; /* whose CPUs build it (node, or nearest with CPUs) */
	struct p2m *p2m;    /* NULL until the table exists */
	bool failed, built, destroyed;
	char fail_reason[128];

	/* Work: 1 GiB units of guest-physical space, claimed by a cursor. */
	uint64_t units, next_unit;
	unsigned int unit_shift;
	bool stop; /* a unit failed: the others stop claiming */
	struct domain_big big[DOMAIN_BIG_MAX];
	unsigned int nbig;
	uint64_t big_bytes, big_units; /* units [0, big_units) are big ones */
	spinlock_t map_lock;	       /* p2m_map() of the domain's workers */

	/* Results (atomics while the workers run). */
	uint64_t bytes_built, remote_bytes;
	uint64_t extents[DOMAIN_EXTENT_KINDS];
	uint64_t alloc_ticks, zero_ticks, map_ticks, maint_ticks;
	uint64_t lock_max_ticks;
	uint64_t start_ticks, end_ticks;
	uint64_t table_pages;
	uint64_t heap_extents; /* heap_alloc_owned() calls that succeeded */
	/* What its build did to memory: zeroed, cleaned to PoC (bytes). */
	uint64_t zeroed_bytes, maint_bytes;
	uint64_t cpu_bits[(CONFIG_NR_CPUS + 63) / 64]; /* CPUs that worked */
};

/* The heap's free memory before the build and after destroy + scrub. */
struct domain_heap_snap {
	uint64_t free_pages, free_chunks;
	bool taken;
};

extern struct domain domains[DOMAIN_MAX];
extern unsigned int domains_count, domains_dropped;
extern uint64_t domains_build_ticks;
extern struct domain_heap_snap domains_before, domains_after;
/* Problems found by the checks and destroy (each one warning). */
extern unsigned int domains_problems;
/* Sampling of domains_check(): frames read for zero, IPAs the MMU walked. */
extern uint64_t domains_zero_sampled, domains_hw_checked;

/* A domain= value or a dom0less memory, as a warning spells it. */
#define DOMAIN_WHAT_MAX (ESCAPE_SIZE(DOMAIN_NAME_MAX - 1) + 64)

/* domain_parse.c */
void domain_set_name(struct domain *d, const char *name);
uint32_t domain_pick_node(int64_t asked, const uint64_t *budget,
			  unsigned int nodes, const char *name);
void domain_plan(uint64_t *free, unsigned int nodes);
uint64_t domain_table_pages_max(uint64_t bytes);
/*
 * domain_expected_extents(): extents of @bytes built from the largest
 * extents with no allocation failing (what the tests compare against).
 */
void domain_expected_extents(uint64_t bytes, uint64_t out[DOMAIN_EXTENT_KINDS]);

/* domain_build.c: what domain_big.c shares with the build. */
/* Memory the heap calls clean is zeroed by the build (bootscrub=off). */
bool domain_scrub_off(void);
bool domain_zero_untrusted(void);
/* A contiguous physical range waiting for its cache maintenance. */
struct maint_acc {
	paddr_t start;
	uint64_t bytes;
};
bool domain_maint_needed(void);
void domain_maint_add(struct domain *d, struct maint_acc *acc, paddr_t pa,
		      uint64_t bytes);
void domain_maint_flush(struct domain *d, struct maint_acc *acc);
void domain_extent_zero(struct domain *d, paddr_t pa, uint64_t bytes);
void domain_atomic_max(uint64_t *p, uint64_t v);

/* domain_big.c */
void domain_big_alloc(struct domain *d, unsigned int max_order);
int domain_big_unit(struct domain *d, uint64_t u, uint64_t *gpa);
void domain_big_free(struct domain *d);

/* domain_build.c */
struct progress;
bool domains_progress_at(struct progress *p, uint64_t now);
unsigned int domain_unit_shift(uint64_t bytes, unsigned int cpus);
/* What one domain_build_local_cost() build took and did. */
struct domain_build_cost {
	uint64_t ticks;			    /* table, extents, commit */
	uint64_t zeroed_bytes, maint_bytes; /* by the heap and the build */
};
int domain_build_local_cost(uint64_t bytes, int node,
			    unsigned int max_extent_order,
			    struct domain_build_cost *cost);

/* domain_bench.c: bench=on, the same domain deferred and eager. */
struct domain_bench {
	uint64_t bytes;
	uint32_t node;
	struct domain_build_cost deferred, eager;
	int deferred_err, eager_err;
	bool done;
};
extern struct domain_bench domains_bench_result;

/* domain_static.c: dom0less domains, static ones built from their ranges. */
void domain_from_dt(struct domain *d, const struct bi_domain *b,
		    const struct bootinfo *bi);
void domain_static_build(struct domain *d);
void domain_static_free(struct domain *d);
bool domain_static_leaf_ok(const struct domain *d, uint64_t gpa, paddr_t pa,
			   unsigned int order, pfn_t head, unsigned int horder);
void domain_fail(struct domain *d, const char *why);

/* domain_report.c: "boot" or "static" (domains[].origin). */
const char *domain_origin_name(enum domain_origin o);

/* domain_summary.c: the rows the report prints, the summary of all. */
unsigned int domain_report_pick(bool chosen[DOMAIN_MAX]);
uint64_t domain_build_ns(const struct domain *d);
void domains_summary_json(struct jw *w, unsigned int rows);

/* domain_destroy.c */
void domain_free(struct domain *d);
void domain_snapshot(struct domain_heap_snap *s);
void domain_scrub_back(void);
void domain_scrub_dirty(void);

#endif
