/* SPDX-License-Identifier: MIT */
/*
 * Owner: domain.
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
 * Files: domain_base.c (what the others share: names, extent orders, the
 * context, zeroing and cache maintenance; it calls none of them),
 * domain_parse.c (domain= words, the plan: node, budget),
 * domain_static.c (dom0less domains from bootinfo; static ones checked,
 * built and given back to reserved),
 * domain_build.c (one domain, work units, the parallel build),
 * domain_big.c (the prefix extents), domain_destroy.c, domain_check.c
 * (table walk, audit=full sampling),
 * domain_restore.c (a live update's domains taken back from the handover),
 * domain_view.c (what the rooms above read), and in the
 * report room domain_report.c, domain_summary.c (the `domains` table, the
 * human lines), through domain_view() and domain_set_stats().
 *
 * One struct domain_set holds a boot's domains from domains_setup() to
 * destroy; its owner (the flow) hands it to each step and to the report.
 */
#ifndef KEEL_DOMAIN_H
#define KEEL_DOMAIN_H

#include <keel/bootinfo.h>
#include <keel/cpumask.h>
#include <keel/escape.h>
#include <keel/domain_spec.h>
#include <keel/p2m.h>
#include <keel/spinlock.h>
#include <keel/types.h>

struct keel_options;
struct p2m;
struct bootinfo;

/* A domain's name: domainN, or a DT node's kept whole (63 bytes at most). */
#define DOMAIN_NAME_MAX	  BOOTINFO_DOMAIN_NAME_MAX
#define DOMAIN_STATIC_MAX BOOTINFO_DOMAIN_STATIC_MAX

/* Where a domain's memory comes from (the report's domains[].origin). */
enum domain_origin {
	DOMAIN_ORIGIN_BOOT = 0, /* the heap, at boot (domain=, dom0less) */
	DOMAIN_ORIGIN_STATIC, /* its xen,static-mem ranges, never the heap's */
	DOMAIN_ORIGIN_HANDOVER, /* a live update's handover, restored as is */
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
 * is counted in @o->domains_dropped (one warning for the first only).
 * @NODE is any number: one that is no node of the machine is warned and
 * falls back when the plan is made (domain_pick_node()), whatever its value.
 * @quiet: count, do not print (options_parse(), the one parse, warns: false).
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

/* Extent orders, largest first: 1 GiB, 2 MiB, 4 KiB. */
#define DOMAIN_EXTENT_KINDS 3

/*
 * What a build runs under (struct domain_set, and the caller of a
 * one-CPU build): the boot's promise about free memory -- bootscrub=off:
 * nothing is known zero, so the build zeroes every extent itself, and
 * freed domains are not scrubbed back; domains_trust=on: that memory is
 * known zero anyway -- and where a destroy counts the extents the heap
 * refused back (each one a warning; the verdict fails on any).
 */
struct domain_ctx {
	bool scrub_off, trust_zero;
	unsigned int *problems; /* atomic adds */
	/*
	 * The build's cache maintenance policy and counter sink (extents,
	 * their range maintenance, the p2m's table pages); NULL: the heap's,
	 * the boot's (heap_set_cachemaint()).
	 */
	const struct cachemaint *maint;
};

/* domain_ctx_init(): @c from @o's bootscrub= and domains_trust=. */
void domain_ctx_init(struct domain_ctx *c, const struct keel_options *o,
		     unsigned int *problems);

/*
 * The prefix extents (common/domain/domain_big.c): the fewest owned
 * extents, 2 MiB up to 2^MAX_FREE_ORDER pages, at most DOMAIN_BIG_MAX per
 * domain (enough for every power of two of any size keel takes, with room
 * for a fragmented node), covering the guest-physical prefix
 * [0, big_bytes); each mapped with the largest leaves it holds.
 */
#define DOMAIN_BIG_MAX 32

struct domain_big {
	uint64_t gpa; /* guest-physical start */
	paddr_t pa;
	unsigned int order;	    /* 9 (2 MiB) .. MAX_FREE_ORDER */
	bool zero, maint;	    /* the build zeroes / cleans it to PoC */
	uint64_t first_unit, units; /* its work units (1 when no work) */
};

/*
 * A static domain's memory (common/domain/domain_static.c): its
 * xen,static-mem ranges in guest order, the node of each, how many the
 * heap adopted.
 */
struct domain_static {
	struct region range[DOMAIN_STATIC_MAX];
	uint32_t node[DOMAIN_STATIC_MAX];
	unsigned int count, adopted;
};

/*
 * One domain: the domain room's own record (the files of common/domain/
 * write it; the rooms above read it through domain_view()). It lies in a
 * struct domain_set, or on the stack of a one-CPU build.
 */
struct domain {
	struct domain_spec spec;    /* bytes and node (name: see @name) */
	char name[DOMAIN_NAME_MAX]; /* whole: domainN or the DT node's */
	char shown[ESCAPE_SIZE(DOMAIN_NAME_MAX - 1)]; /* @name, printable */
	char kernel[DOMAIN_NAME_MAX]; /* its kernel module, "" when none */
	uint32_t vcpus;		      /* the DT's `cpus`, 0 when not given */
	enum domain_origin origin;
	struct domain_static st; /* DOMAIN_ORIGIN_STATIC only */
	/* DOMAIN_ORIGIN_HANDOVER only: its record in the (reserved) handover. */
	const struct bi_handover_domain *restored;
	struct domain_ctx *ctx; /* its set's, or the one-CPU build's */
	uint16_t id;		/* heap owner id: index + 1 */
	uint32_t node;		/* where its memory should be */
	uint32_t
		build_node; /* whose CPUs build it (node, or nearest with CPUs) */
	struct p2m table;   /* its stage-2 / EPT table, once @p2m is set */
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
	/*
	 * Its own build: from its prefix taken (prefix_ticks before the
	 * workers) and its first unit claimed (first_ticks) to its table
	 * committed, not the wait for a CPU while other domains are built.
	 */
	uint64_t start_ticks, end_ticks, first_ticks, prefix_ticks;
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

/* What one domain_build_local_cost() build took and did. */
struct domain_build_cost {
	uint64_t ticks;			    /* table, extents, commit */
	uint64_t zeroed_bytes, maint_bytes; /* by the heap and the build */
};

/* bench=on (common/selftest/domain_bench.c): one domain deferred, eager. */
struct domain_bench {
	uint64_t bytes;
	uint32_t node;
	struct domain_build_cost deferred, eager;
	int deferred_err, eager_err;
	bool done;
};

/* The counters of a set, for the report (domain_set_stats()). */
struct domain_set_stats {
	unsigned int count;    /* domains set up (built or failed) */
	unsigned int dropped;  /* past DOMAIN_MAX, or a name already taken */
	unsigned int problems; /* of the checks and destroys (the verdict) */
	/* Sampling of domains_check(): frames read for zero, IPAs the MMU
	 * walked. */
	uint64_t zero_sampled, hw_checked;
	uint64_t build_ticks; /* domains_build(), wall */
	struct domain_heap_snap before, after;
	struct domain_bench bench; /* bench=on */
};

/*
 * The domains of one boot, from domains_setup() to the report: what was
 * asked, the plan, the builds, the checks, destroy. Its owner (the flow,
 * common/boot.c) holds it and hands it to each step; nothing else keeps
 * a copy. The rooms above read it through domain_set_stats() and
 * domain_view() only. About 192 KiB: the flow's is asked of bootmem.
 */
struct domain_set {
	struct domain_set_stats stats;
	struct domain_ctx ctx;
	/*
	 * The slots of @d backed by the set's storage: 0 for a whole set
	 * (DOMAIN_MAX: a static one); the flow's is sized to the domains
	 * its boot asks for (domain_set_bytes()), so that a machine whose
	 * bad pages leave no 192 KiB in one piece still holds them.
	 */
	unsigned int cap;
	struct domain d[DOMAIN_MAX]; /* stats.count of them */
};

/* The slots of @s (its @cap, DOMAIN_MAX for a whole set). */
static inline unsigned int domain_set_cap(const struct domain_set *s)
{
	return s->cap && s->cap < DOMAIN_MAX ? s->cap : DOMAIN_MAX;
}

/* Bytes of a set of @cap slots (1..DOMAIN_MAX). */
static inline size_t domain_set_bytes(unsigned int cap)
{
	return __builtin_offsetof(struct domain_set, d) +
	       (size_t)cap * sizeof(struct domain);
}

/*
 * domains_setup(): empty @s, then gather the specs of @o and of @bi
 * (dom0less) in that order, at most DOMAIN_MAX in all; the set's
 * context from @o (bootscrub=, domains_trust=). Boot CPU, before
 * domains_build().
 * Return: number of domains.
 */
unsigned int domains_setup(struct domain_set *s, const struct keel_options *o,
			   const struct bootinfo *bi);

/*
 * domains_build(): build every domain of @s on @cpus (all online CPUs
 * when NULL), in parallel: each domain by the CPUs of its node (or of the
 * nearest node with CPUs), a big one split in 1 GiB work units across
 * them. Returns when all are built. A domain that cannot be had fails
 * alone (fail_reason), its memory given back. Boot CPU only.
 */
void domains_build(struct domain_set *s, const cpumask_t *cpus);

/*
 * domain_plan_nodes(): the node the plan of domains_build() gives each of
 * the @count domain= specs @spec if they were built now, in order, on the
 * heap as it is (the latency probe's load, common/irq/latency.c): a
 * pinned node when it is one, else the node with the most free memory
 * left. Quiet (domains_build() warns about a node that is none).
 */
void domain_plan_nodes(const struct domain_spec *spec, unsigned int count,
		       uint32_t *node);

/*
 * domain_build_local(): build one extra domain of @bytes on @node (extents
 * at most 2^@max_extent_order pages) entirely on the calling CPU, under
 * @ctx, then destroy it (the latency probe's build-local phase). Any CPU,
 * while no other domain is being built or destroyed.
 * Return: 0, -ENOMEM, -EINVAL.
 */
int domain_build_local(uint64_t bytes, int node, unsigned int max_extent_order,
		       struct domain_ctx *ctx);

/*
 * domain_build_local_cost(): domain_build_local(), and in *@cost (may be
 * NULL) the build's time (table, extents, commit; not the destroy) and
 * the bytes it zeroed and cleaned to PoC (bench=on).
 */
int domain_build_local_cost(uint64_t bytes, int node,
			    unsigned int max_extent_order,
			    struct domain_ctx *ctx,
			    struct domain_build_cost *cost);

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
			 unsigned int max_extent_order, unsigned int slot,
			 struct domain_ctx *ctx);

/*
 * domain_scrub_dirty(): every online CPU scrubs every dirty free chunk,
 * whatever bootscrub= said (the bench's own builds). Boot CPU.
 */
void domain_scrub_dirty(void);

/*
 * domains_destroy_all(): every built domain's extents back to the heap
 * (dirty) and its table freed; then the scrub back and the "after"
 * snapshot. Boot CPU, after domains_build().
 */
void domains_destroy_all(struct domain_set *s);

/*
 * domains_check(): walk every built domain's table: each leaf maps frames
 * owned by that domain (heap_owner_of), no frame in two domains, block
 * sizes as built; @zero_sample: also read sampled frames for zero; on
 * arm64 at EL2 compare p2m_hw_translate() on sampled IPAs with the walk.
 * Return: problems found (each one warning; added to stats.problems).
 */
unsigned int domains_check(struct domain_set *s, bool zero_sample);
/*
 * domains_inject_poison(): each inject=poison-domain:ID of the command
 * line: the page at the middle of built domain ID goes bad, marked in
 * its extent (common/domain/domain_poison.c). Boot CPU, no guest running.
 */
void domains_inject_poison(struct domain_set *s);
/*
 * domains_poison_pfn(): page frame @n goes bad now, for the inject= word
 * @kind (poison, poison-late, poison-freeze): heap_offline() as broken,
 * from an injection; one line either way (`inject=KIND:N: pfn 0x...
 * offlined (broken)` and @after, or a warning that nothing was injected).
 */
void domains_poison_pfn(const char *kind, uint64_t n, const char *after);

/*
 * The set's counters (read-only). A NULL @s, here and in domain_view(), is
 * a set with no domain: the flow claims its set only for a boot with
 * domains to hold (common/boot.c).
 */
const struct domain_set_stats *domain_set_stats(const struct domain_set *s);

/*
 * domains_restore() - live update (DESIGN §13): every domain of @bi's
 * taken handover into the empty set @s, as the old image left it: its id,
 * name and node; its extents adopted by the heap as owned extents (one
 * head write per aligned block, nothing zeroed); its p2m taken over as
 * is, once a walk proved every leaf inside its extents and every table
 * page one of its preserved table pages. A domain that fails the walk or
 * the adoption fails alone (one error naming it, its memory untouched and
 * still reserved). Boot CPU, right after the heap opens
 * (common/domain/domain_restore.c).
 * Return: the domains restored; *@failed the others.
 */
unsigned int domains_restore(struct domain_set *s, const struct bootinfo *bi,
			     const struct keel_options *o,
			     unsigned int *failed);

/*
 * One domain as the rooms above see it (domain_view()): a copy, times in
 * ticks, summed over the CPUs that built it unless said.
 */
struct domain_view {
	uint16_t id;
	const char *name;	 /* whole: domainN or the DT node's */
	const char *shown;	 /* @name made printable */
	const char *kernel;	 /* its kernel module, NULL when none */
	const char *fail_reason; /* NULL unless failed */
	enum domain_origin origin;
	int64_t asked_node; /* as asked (DOMAIN_ANY_NODE: not pinned) */
	uint32_t node;	    /* where its memory is */
	uint32_t vcpus;	    /* the DT's `cpus`, 0 when not given */
	bool built, failed;
	uint64_t bytes, remote_bytes;
	uint64_t extents[DOMAIN_EXTENT_KINDS]; /* leaves: 1 GiB, 2 MiB, 4 KiB */
	uint64_t heap_extents; /* heap_alloc_owned() calls that succeeded */
	uint64_t build_ticks;  /* wall, its start to its end; 0: not built */
	uint64_t alloc_ticks, zero_ticks, map_ticks, maint_ticks;
	uint64_t lock_max_ticks; /* the longest heap lock hold */
	uint64_t table_pages;
	unsigned int cpus; /* CPUs that worked on it */
	/*
	 * What the guests (common/guest/) take: whose CPUs built it, its
	 * committed table (NULL unless built and not destroyed), whether its
	 * memory is the user's (a static domain's xen,static-mem: never
	 * zeroed, never to be written by keel).
	 */
	uint32_t build_node;
	struct p2m *p2m;
	bool user_data;
};

/*
 * domain_view(): domain @i (< stats.count) of @s into *@v.
 * Return: false when there is no such domain (*@v untouched).
 */
bool domain_view(const struct domain_set *s, unsigned int i,
		 struct domain_view *v);
/*
 * For a live update (common/liveupdate/), of a built domain's view (its
 * p2m set): its extents in gpa order, leaves merged while gpa and pa run
 * on; its p2m table pages, root first, consecutive pages merged.
 * Read-only, while no CPU changes the domains. Return: 0, or -EIO when
 * the walk met a descriptor the format reserves.
 */
int domain_view_extents(const struct domain_view *v,
			void (*fn)(uint64_t gpa, paddr_t pa, uint64_t pages,
				   void *arg),
			void *arg);
int domain_view_tables(const struct domain_view *v,
		       void (*fn)(paddr_t start, paddr_t end, void *arg),
		       void *arg);

struct bi_handover;

/*
 * Guest isolation (common/domain/domain_restore_check.c): the extents and
 * table ranges of every domain of a taken handover must be pairwise
 * disjoint before any is restored. A span: a range, its owner in the low
 * 12 bits of start (domain index << 1 | 1 for table pages).
 * domains_disjoint(): O(n log n) in @k runs of @per spans each (k x per
 * at least handover_span_count()), with @idx 3 x @k words of scratch: each
 * run sorted, then all merged. Return: 0, -EINVAL with @why naming the
 * first overlap, or -ENOMEM when the runs are too small.
 */
struct handover_span {
	uint64_t start, end;
};
uint64_t handover_span_count(const struct bi_handover *h);
int domains_disjoint(const struct bi_handover *h,
		     struct handover_span *const *runs, uint32_t k,
		     uint64_t per, uint64_t *idx, char *why, size_t n);

#endif
