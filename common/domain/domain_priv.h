/* SPDX-License-Identifier: MIT */
/*
 * What the files of the domain room share (common/domain/): the plan
 * helpers, the build's pieces, destroy. The domain record and the set
 * are in include/keel/domain.h. Not an interface: nothing outside
 * common/domain/ (and its unit tests) includes it.
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

/* A domain= value or a dom0less memory, as a warning spells it. */
#define DOMAIN_WHAT_MAX (ESCAPE_SIZE(DOMAIN_NAME_MAX - 1) + 64)

/* domain_parse.c */
void domain_set_name(struct domain *d, const char *name);
uint32_t domain_pick_node(int64_t asked, const uint64_t *budget,
			  unsigned int nodes, const char *name);
void domain_plan(struct domain_set *s, uint64_t *free, unsigned int nodes);
void domain_budget(uint64_t *free, unsigned int nodes);
uint64_t domain_table_pages_max(uint64_t bytes);
/*
 * domain_expected_extents(): extents of @bytes built from the largest
 * extents with no allocation failing (what the tests compare against).
 */
void domain_expected_extents(uint64_t bytes, uint64_t out[DOMAIN_EXTENT_KINDS]);

/* domain_base.c: the room's leaf, what its files share. */
/* Memory the heap calls clean is zeroed by the build (bootscrub=off). */
bool domain_zero_untrusted(const struct domain *d);
/* A contiguous physical range waiting for its cache maintenance. */
struct maint_acc {
	paddr_t start;
	uint64_t bytes;
};
/* The policy @d is built under (its context's, else the heap's). */
const struct cachemaint *domain_maint(const struct domain *d);
bool domain_maint_needed(const struct domain *d);
void domain_maint_add(struct domain *d, struct maint_acc *acc, paddr_t pa,
		      uint64_t bytes);
void domain_maint_flush(struct domain *d, struct maint_acc *acc);
void domain_extent_zero(struct domain *d, paddr_t pa, uint64_t bytes);
void domain_atomic_max(uint64_t *p, uint64_t v);
/* @n problems a destroy found: counted in @d's context (atomic). */
void domain_problem(const struct domain *d, unsigned int n);

/* domain_big.c */
void domain_big_alloc(struct domain *d, unsigned int max_order);
int domain_big_unit(struct domain *d, uint64_t u, uint64_t *gpa);
void domain_big_free(struct domain *d);

/* domain_build.c */
struct progress;
bool domains_progress_at(const struct domain_set *s, struct progress *p,
			 uint64_t now);
unsigned int domain_unit_shift(uint64_t bytes, unsigned int cpus);

/* domain_restore_check.c: guest isolation, before any domain is restored */
struct bi_handover;
int domains_restore_disjoint(const struct bi_handover *h, char *why, size_t n);

/* domain_static.c: dom0less domains, static ones built from their ranges. */
void domain_from_dt(struct domain *d, const struct bi_domain *b,
		    const struct bootinfo *bi);
void domain_static_build(struct domain *d);
void domain_static_free(struct domain *d);
bool domain_static_leaf_ok(const struct domain *d, uint64_t gpa, paddr_t pa,
			   unsigned int order, pfn_t head, unsigned int horder);
void domain_fail(struct domain *d, const char *why);

/* domain_restore.c: a restored domain's extents back to reserved. */
void domain_restore_free(struct domain *d);

/* domain_destroy.c */
void domain_free(struct domain *d);
void domain_snapshot(struct domain_heap_snap *s);
void domain_scrub_back(const struct domain_ctx *ctx);

#endif
