/* SPDX-License-Identifier: MIT */
/*
 * Guests' memory (DESIGN §11): the domains a hypervisor builds at boot,
 * from `domain=SIZE[@NODE]` words and (arm64) Xen's dom0less /chosen
 * nodes. Each domain gets its memory in the largest extents (1 GiB, 2 MiB,
 * 4 KiB) from heap_alloc_owned() on its node, mapped with the largest
 * block into its own stage-2 / EPT table (p2m), one p2m_commit() per
 * domain. The p2m is the record of the extents: destroy and the checks
 * walk it, so nothing here is O(pages).
 *
 * A dom0less domain with xen,static-mem is built from its own ranges
 * instead (DOMAIN_ORIGIN_STATIC: reserved at boot, adopted by the heap as
 * its owned extents, never zeroed).
 *
 * Files: domain_parse.c (domain= words, the plan: node, budget),
 * domain_static.c (dom0less domains from bootinfo; static ones checked,
 * built and given back to reserved),
 * domain_build.c (one domain, work units, the parallel build),
 * domain_destroy.c, domain_check.c (table walk, audit=full sampling),
 * domain_report.c (the `domains` table and the human lines).
 */
#ifndef KEEL_DOMAIN_H
#define KEEL_DOMAIN_H

#include <keel/bootinfo.h>
#include <keel/cpumask.h>
#include <keel/types.h>

struct jw;
struct keel_options;
struct bootinfo;

#define DOMAIN_MAX 64 /* domain= words and dom0less nodes together */
/* A domain's name: domainN, or a DT node's kept whole (63 bytes at most). */
#define DOMAIN_NAME_MAX	     BOOTINFO_DOMAIN_NAME_MAX
#define DOMAIN_WORD_NAME_MAX 16 /* "domainN" of a domain= word */
#define DOMAIN_STATIC_MAX    BOOTINFO_DOMAIN_STATIC_MAX
#define DOMAIN_ANY_NODE	     (-1)

/* What was asked by one domain= word (kept small: options live on stacks). */
struct domain_spec {
	uint64_t bytes; /* rounded up to 4 KiB */
	int64_t node; /* as asked (maybe no node), DOMAIN_ANY_NODE: not pinned */
	char name[DOMAIN_WORD_NAME_MAX];
};

/* Where a domain's memory comes from (domains[].origin). */
enum domain_origin {
	DOMAIN_ORIGIN_BOOT = 0, /* the heap, at boot (domain=, dom0less) */
	DOMAIN_ORIGIN_STATIC, /* its xen,static-mem ranges, never the heap's */
};

/*
 * domain_page_round(): the one size rule of domain= and dom0less `memory`:
 * @bytes rounded up to whole 4 KiB pages. domain_warn_rounded(): its one
 * warning, "@src: @what is not a multiple of 4K, rounded up to N bytes".
 */
static inline uint64_t domain_page_round(uint64_t bytes)
{
	return (bytes + PAGE_SIZE - 1) & ~(PAGE_SIZE - 1);
}
void domain_warn_rounded(const char *src, const char *what, uint64_t rounded);

/*
 * domain_opt_add(): one `domain=` value [val, val+len): SIZE (K/M/G/T
 * suffixes) and an optional @NODE, appended to @o. A size that is not a
 * multiple of 4 KiB is rounded up (one warning); past DOMAIN_MAX the word
 * is counted in domains_dropped (one warning for the first only).
 * @NODE is any number: one that is no node of the machine is warned and
 * falls back when the plan is made (domain_pick_node()), whatever its value.
 * @quiet: count, do not print (options_early()).
 * Return: warnings printed (>= 0), or -EINVAL for a value refused (a zero
 * size, over 1 PiB, SIZE or NODE not a number), with *@why saying why for
 * the caller's warning -- nothing is stored then.
 */
int domain_opt_add(struct keel_options *o, const char *val, size_t len,
		   bool quiet, const char **why);

/*
 * domain_spec_parse(): the pure part of domain_opt_add(): SIZE[@NODE].
 * @rounded: out, true when the size was rounded up to 4 KiB.
 * @why: out, on -EINVAL: the reason.
 * Return: 0 or -EINVAL.
 */
int domain_spec_parse(const char *val, size_t len, struct domain_spec *out,
		      bool *rounded, const char **why);

/* bootscrub=off and domains_trust= for the builds (keel_main()). */
void domains_set_scrub_policy(bool bootscrub_off, bool trust);

/*
 * domains_setup(): gather the specs of @o and of @bi (dom0less) in that
 * order, at most DOMAIN_MAX in all. Boot CPU, before domains_build().
 * Return: number of domains.
 */
unsigned int domains_setup(const struct keel_options *o,
			   const struct bootinfo *bi);

/*
 * domains_build(): build every domain of domains_setup() on @cpus (all
 * online CPUs when NULL), in parallel: each domain by the CPUs of its
 * node (or of the nearest node with CPUs), a big one split in 1 GiB work
 * units across them. Returns when all are built. A domain that cannot be
 * had fails alone (fail_reason), its memory given back. Boot CPU only.
 */
void domains_build(const cpumask_t *cpus);

/*
 * domain_build_local(): build one extra domain of @bytes on @node (extents
 * at most 2^@max_extent_order pages) entirely on the calling CPU, then
 * destroy it (the latency probe's build-local phase). Any CPU, while no
 * other domain is being built or destroyed.
 * Return: 0, -ENOMEM, -EINVAL.
 */
int domain_build_local(uint64_t bytes, int node, unsigned int max_extent_order);

/* Owner ids of domain_build_private(): DOMAIN_PRIVATE_OWNER + slot. */
#define DOMAIN_PRIVATE_OWNER (DOMAIN_MAX + 2)

/*
 * domain_build_private(): as domain_build_local(), but several CPUs may
 * build at once, each with its own @slot (0, 1, ...: owner id
 * DOMAIN_PRIVATE_OWNER + @slot, its table on the caller's stack): the
 * latency probe's build-remote load. The domain is destroyed by the CPU
 * that built it (its memory back dirty, nothing run on any other CPU).
 * Not while domains_build() or domain_build_local() runs.
 * Return: 0, -ENOMEM, -EINVAL.
 */
int domain_build_private(uint64_t bytes, int node,
			 unsigned int max_extent_order, unsigned int slot);

/*
 * domains_bench(): bench=on, before domains_build(): the largest domain
 * built on this CPU with the cache maintenance mode in force and with
 * cachemaint=eager, in the same boot (domains_info.bench). Boot CPU.
 */
void domains_bench(void);

/*
 * domains_destroy_all(): every built domain's extents back to the heap
 * (dirty) and its table freed. Boot CPU, after domains_build().
 */
void domains_destroy_all(void);

/*
 * domains_check(): walk every built domain's table: each leaf maps frames
 * owned by that domain (heap_owner_of), no frame in two domains, block
 * sizes as built; @zero_sample: also read sampled frames for zero; on
 * arm64 at EL2 compare p2m_hw_translate() on sampled IPAs with the walk.
 * Return: problems found (each one warning).
 */
unsigned int domains_check(bool zero_sample);

/*
 * A built domain as a live update hands it over (common/domain/
 * domain_view.c): read-only, while no CPU changes the domains.
 */
struct p2m;
struct domain_view {
	uint16_t id;	 /* heap owner id */
	uint16_t origin; /* enum domain_origin */
	uint32_t node;
	const char *name;
	uint64_t bytes; /* mapped */
	const struct p2m *p2m;
};
/* Domain @i when built (not failed, not destroyed). Return: false if not. */
bool domain_view_get(unsigned int i, struct domain_view *v);
/* Its extents in gpa order, leaves merged while gpa and pa run on. */
int domain_view_extents(const struct domain_view *v,
			void (*fn)(uint64_t gpa, paddr_t pa, uint64_t pages,
				   void *arg),
			void *arg);
/* Its p2m table pages, root first, consecutive pages merged. */
int domain_view_tables(const struct domain_view *v,
		       void (*fn)(paddr_t start, paddr_t end, void *arg),
		       void *arg);

/* How many domains there are (built or failed). */
unsigned int domain_count(void);
/* Problems the checks and destroy found (the boot fails on any). */
unsigned int domains_problem_count(void);

#endif
