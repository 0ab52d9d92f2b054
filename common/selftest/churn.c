/* SPDX-License-Identifier: MIT */
/*
 * The heap at runtime under churn (churn=N, DESIGN §15, keel/churn.h).
 *
 * Owns churn_stats and a per-CPU table (churn_cpus[]: held blocks, two
 * latency histograms); each CPU touches only its own entry, so there is
 * no lock. The boot CPU posts the run to every online CPU with
 * smp_run_on() and reads the results after it returns, which orders every
 * CPU's writes before.
 *
 * Each CPU loops until the deadline (and at least CHURN_MIN_ITERS times).
 * One iteration in CHURN_DOMAIN_EVERY (on the first CHURN_DOMAIN_CPUS
 * CPUs) creates a domain of a random size (4 KiB to 16 MiB, not a power
 * of two in general) on the CPU's node with the real build (domain_build_private(): its own stage-2 table, extents
 * from heap_alloc_owned(), owner DOMAIN_PRIVATE_OWNER + cpu) and destroys
 * it (its extents back dirty). The others allocate an anonymous block
 * (heap_alloc(), HEAP_ANY_NODE: the CPU's node first) of a random order --
 * order 0 half of the time, the 2 MiB order one time in eight, else 1..10
 * -- or free one the CPU holds (heap_free(), clean: nobody wrote it). A
 * CPU holds at most CHURN_HELD_MAX blocks and its share of half the free
 * pages, so the heap never runs dry.
 *
 * Every operation is timed with arch_ticks() into a log-linear histogram
 * (CHURN_SUB_BITS of mantissa: a bucket is at most 1/8 wide, bounded, no
 * array of samples), one for anonymous block operations, one for domain
 * create + destroy; p50 and p99 come from their sums. Node-lock
 * acquisitions are the heap's per-CPU counters (heap_cpu_node_locks()),
 * read before and after on each CPU, and around each domain (a domain
 * takes a lock per extent and table page: the blocks' own rate is apart).
 *
 * The run turns the heap's per-CPU caches on (the runtime path) and, at
 * the end, leaves them as it found them (keel's boot: on, as a hypervisor
 * runs), given back first so that the count after is read off the lists.
 * Fragmentation -- the share of free pages in
 * chunks of 2 MiB and larger, the largest free order -- is walked before
 * and after everything was freed (heap_for_each_block() drains the caches
 * first). At the end the dirty memory the domains left is scrubbed on
 * every CPU (re-scrub steps, counted nowhere; not with bootscrub=off), and
 * the free pages must equal those before (every other CPU was idle: the
 * count is exact), heap_check() must find nothing and no domain build may
 * have counted a problem.
 */
#include <arch/cpu.h>
#include <keel/atomic.h>
#include <keel/bug.h>
#include <keel/churn.h>
#include <keel/compiler.h>
#include <keel/domain.h>
#include <keel/heap.h>
#include <keel/heap_boot.h>
#include <keel/heap_check.h>
#include <keel/options.h>
#include <keel/printk.h>
#include <keel/scrub.h>
#include <keel/smp.h>
#include <keel/string.h>

#include "selftest_priv.h"

#define CHURN_HELD_MAX	   32 /* blocks one CPU holds at most */
#define CHURN_MIN_ITERS	   64 /* even a CPU that starts after the deadline */
#define CHURN_DOMAIN_EVERY 16 /* one iteration in 16 is a domain */
#define CHURN_ORDER_MAX	   10 /* anonymous blocks: orders 0..10 */
#define CHURN_DOMAIN_SHIFT 12 /* domain sizes up to 2^(12+12) = 16 MiB */
#define CHURN_2M_ORDER	   9
/*
 * CPUs 0..CHURN_DOMAIN_CPUS-1 create domains, one owner id each at a time:
 * half the heap's owner slots, so that the heap never refuses an owner
 * (HEAP_OWNER_SLOTS); CPUs above churn anonymous blocks only.
 */
#define CHURN_DOMAIN_CPUS (HEAP_OWNER_SLOTS / 2)

/* Log-linear histogram: values < 8 exact, then 8 sub-buckets a power. */
#define CHURN_SUB_BITS 3
#define CHURN_SUB      (1u << CHURN_SUB_BITS)
#define CHURN_TOP_BIT  43 /* 2^44 ticks: hours at GHz; above: last bucket */
#define CHURN_SLOTS    ((CHURN_TOP_BIT - CHURN_SUB_BITS + 2) * CHURN_SUB)

struct churn_hist {
	uint32_t n[CHURN_SLOTS];
};

struct churn_block {
	struct page_info *pg;
	uint8_t order;
};

struct churn_cpu {
	uint64_t rng;
	uint64_t held_pages;
	unsigned int held_count;
	struct churn_block held[CHURN_HELD_MAX];
	struct churn_hist heap_ops, domain_ops;
	/* Counted here, in this CPU's own lines; copied out at its end. */
	struct churn_cpu_stats st;
} __attribute__((aligned(128)));

/* Set by the boot CPU before the post; read-only while the CPUs run. */
struct churn_run {
	uint64_t deadline;
	uint64_t budget_pages;	   /* per CPU */
	uint64_t domain_max_pages; /* per domain */
	struct domain_ctx ctx;
	unsigned int problems; /* the domain builds' (atomic adds) */
};

struct churn_stats churn_stats;

static struct churn_cpu *churn_cpus; /* cpu_count entries */
static struct churn_run run;

/**
 * churn_init_cpus() - the per-CPU tables for cpu_count CPUs, from bootmem.
 *
 * Call after smp_init(), before the heap handoff.
 */
void churn_init_cpus(void)
{
	churn_cpus = smp_percpu_alloc(sizeof(*churn_cpus), "churn per-cpu");
	churn_stats.cpu = smp_percpu_alloc(sizeof(*churn_stats.cpu),
					   "churn per-cpu stats");
}

static unsigned int hist_slot(uint64_t v)
{
	unsigned int b;

	if (v < CHURN_SUB)
		return (unsigned int)v;
	b = (unsigned int)fls64(v) - 1;
	if (b > CHURN_TOP_BIT)
		return CHURN_SLOTS - 1;
	return (b - CHURN_SUB_BITS + 1) * CHURN_SUB +
	       (unsigned int)((v >> (b - CHURN_SUB_BITS)) & (CHURN_SUB - 1));
}

/* The middle of slot @i's range of values (what a percentile reports). */
static uint64_t hist_value(unsigned int i)
{
	unsigned int b = i / CHURN_SUB + CHURN_SUB_BITS - 1;
	uint64_t sub = i % CHURN_SUB, lo, width;

	if (i < CHURN_SUB)
		return i;
	width = 1ull << (b - CHURN_SUB_BITS);
	lo = (CHURN_SUB + sub) * width;
	return lo + width / 2;
}

/* Time one operation from @t0; Return: now (the loop's next clock). */
static uint64_t hist_add(struct churn_hist *h, uint64_t t0)
{
	uint64_t now = arch_ticks();
	uint32_t *n = &h->n[hist_slot(now - t0)];

	if (*n != (uint32_t)~0u) /* saturates: hours of ops */
		(*n)++;
	return now;
}

static unsigned int pick_order(struct churn_cpu *cc)
{
	uint64_t r = selftest_rnd(&cc->rng);

	if (r & 1)
		return 0;
	if ((r & 0xe) == 0)
		return CHURN_2M_ORDER;
	return 1 + (unsigned int)((r >> 8) % CHURN_ORDER_MAX);
}

static void free_slot(struct churn_cpu *cc, unsigned int i)
{
	struct churn_cpu_stats *st = &cc->st;
	struct churn_block b = cc->held[i];
	uint64_t t0 = arch_ticks();
	int err;

	cc->held[i] = cc->held[--cc->held_count];
	cc->held_pages -= 1ull << b.order;
	err = heap_free(b.pg, b.order, HEAP_FREE_ZEROED);
	hist_add(&cc->heap_ops, t0);
	if (err) {
		/* heap_free() said why; the check at the end fails. */
		atomic_fetch_add(&run.problems, 1);
		return;
	}
	st->frees++;
	st->ops++;
}

static void free_random(struct churn_cpu *cc)
{
	uint64_t r = selftest_rnd(&cc->rng);

	free_slot(cc, (unsigned int)(r % cc->held_count));
}

static void alloc_one(struct churn_cpu *cc)
{
	struct churn_cpu_stats *st = &cc->st;
	unsigned int order = pick_order(cc);
	struct page_info *pg;
	uint64_t t0;

	/* Stay inside this CPU's share of the heap. */
	while (cc->held_count &&
	       cc->held_pages + (1ull << order) > run.budget_pages)
		free_random(cc);
	if ((1ull << order) > run.budget_pages)
		order = 0;
	t0 = arch_ticks();
	pg = heap_alloc(order, HEAP_ANY_NODE, 0, 0, NULL);
	hist_add(&cc->heap_ops, t0);
	if (!pg) {
		st->alloc_failures++;
		if (cc->held_count)
			free_random(cc);
		return;
	}
	st->allocs++;
	st->ops++;
	cc->held[cc->held_count++] = (struct churn_block){pg, (uint8_t)order};
	cc->held_pages += 1ull << order;
}

/* Create and destroy one domain of a random size on this CPU's node. */
static void domain_one(unsigned int cpu, struct churn_cpu *cc)
{
	struct churn_cpu_stats *st = &cc->st;
	uint64_t r = selftest_rnd(&cc->rng);
	unsigned int shift = (unsigned int)(r % (CHURN_DOMAIN_SHIFT + 1));
	uint64_t pages = (1ull << shift) + ((r >> 8) & ((1ull << shift) - 1));
	uint32_t node = cpu_table[cpu].node;
	uint64_t t0, locks0;
	int err;

	pages = MIN(pages, run.domain_max_pages);
	if (node >= heap_node_count())
		node = 0;
	locks0 = heap_cpu_node_locks(cpu);
	t0 = arch_ticks();
	err = domain_build_private(pages * PAGE_SIZE, (int)node, CHURN_2M_ORDER,
				   cpu, &run.ctx);
	hist_add(&cc->domain_ops, t0);
	st->domain_node_locks += heap_cpu_node_locks(cpu) - locks0;
	if (err) {
		st->domain_failures++;
		return;
	}
	st->domains++;
	st->ops += 2;
}

static void churn_cpu_main(void *arg)
{
	unsigned int cpu = arch_cpu_id();
	struct churn_cpu *cc = &churn_cpus[cpu];
	struct churn_cpu_stats *st = &cc->st;
	uint64_t locks0 = heap_cpu_node_locks(cpu), t0 = arch_ticks();

	(void)arg;
	memset(cc, 0, sizeof(*cc));
	cc->rng = selftest_seed(cpu, t0);
	st->ran = true;
	for (uint64_t it = 0;; it++) {
		uint64_t r;

		if (it >= CHURN_MIN_ITERS && arch_ticks() >= run.deadline)
			break;
		r = selftest_rnd(&cc->rng);
		if (r % CHURN_DOMAIN_EVERY == 0 && cpu < CHURN_DOMAIN_CPUS)
			domain_one(cpu, cc);
		else if (cc->held_count == CHURN_HELD_MAX ||
			 (cc->held_count && (r & 0x100)))
			free_random(cc);
		else
			alloc_one(cc);
	}
	while (cc->held_count)
		free_slot(cc, cc->held_count - 1);
	st->ticks = arch_ticks() - t0;
	st->node_locks = heap_cpu_node_locks(cpu) - locks0;
	churn_stats.cpu[cpu] = *st;
}

static void frag_block(struct page_info *head, unsigned int order, int owner,
		       void *arg)
{
	struct churn_frag *f = arg;
	uint64_t pages = 1ull << order;

	(void)head;
	if (owner != HEAP_OWNER_FREE)
		return;
	f->free_pages += pages;
	if (order >= CHURN_2M_ORDER)
		f->free_2m_pages += pages;
	if (order > f->largest_order)
		f->largest_order = order;
}

/* Walk every node's free chunks (caches drained). Return: problems. */
static unsigned int frag_walk(struct churn_frag *f)
{
	unsigned int bad = 0;

	memset(f, 0, sizeof(*f));
	for (unsigned int n = 0; n < heap_node_count(); n++)
		bad += heap_for_each_block(n, frag_block, f);
	return bad;
}

static void prepare(const struct keel_options *o)
{
	struct churn_cpu_stats *cpus = churn_stats.cpu;
	unsigned int online = smp_online_count();
	uint64_t budget;

	CHECK(cpus && churn_cpus);
	memset(&churn_stats, 0, sizeof(churn_stats));
	churn_stats.cpu = cpus;
	memset(cpus, 0, sizeof(*cpus) * cpu_count);
	churn_stats.seconds = o->churn_seconds;
	memset(&run, 0, sizeof(run));
	domain_ctx_init(&run.ctx, o, &run.problems);
	/*
	 * Half the free pages, shared by the CPUs, blocks and a domain in
	 * build at once: the heap never runs dry.
	 */
	budget = selftest_free_pages_locked() / 2 / (online ? online : 1);
	run.budget_pages = MAX(budget / 2, 1ull);
	run.domain_max_pages = MAX(budget / 2, 1ull);
}

/* Percentile @pct of @h. Return: ticks (0: empty). */
static uint64_t percentile(const struct churn_hist *h, unsigned int pct)
{
	uint64_t total = 0, want, seen = 0;

	for (unsigned int i = 0; i < CHURN_SLOTS; i++)
		total += h->n[i];
	if (!total)
		return 0;
	want = (total * pct + 99) / 100;
	for (unsigned int i = 0; i < CHURN_SLOTS; i++) {
		seen += h->n[i];
		if (seen >= want)
			return hist_value(i);
	}
	return hist_value(CHURN_SLOTS - 1);
}

static void hist_sum(struct churn_hist *to, const struct churn_hist *from)
{
	for (unsigned int i = 0; i < CHURN_SLOTS; i++)
		to->n[i] += from->n[i];
}

/* Totals of the CPUs that ran, percentiles of their summed histograms. */
static void sum_cpus(struct churn_stats *s)
{
	static struct churn_hist heap_ops, domain_ops; /* boot CPU only */

	memset(&heap_ops, 0, sizeof(heap_ops));
	memset(&domain_ops, 0, sizeof(domain_ops));
	for (unsigned int c = 0; c < cpu_count; c++) {
		const struct churn_cpu_stats *st = &s->cpu[c];

		if (!st->ran)
			continue;
		s->cpus++;
		s->ops += st->ops;
		s->allocs += st->allocs;
		s->frees += st->frees;
		s->alloc_failures += st->alloc_failures;
		s->domains += st->domains;
		s->domain_failures += st->domain_failures;
		s->node_locks += st->node_locks;
		s->domain_node_locks += st->domain_node_locks;
		hist_sum(&heap_ops, &churn_cpus[c].heap_ops);
		hist_sum(&domain_ops, &churn_cpus[c].domain_ops);
	}
	s->p50_ticks = percentile(&heap_ops, 50);
	s->p99_ticks = percentile(&heap_ops, 99);
	s->domain_p50_ticks = percentile(&domain_ops, 50);
	s->domain_p99_ticks = percentile(&domain_ops, 99);
}

static void finish(void)
{
	struct churn_stats *s = &churn_stats;

	sum_cpus(s);
	s->domain_problems = atomic_load_relaxed(&run.problems);
	s->heap_problems += frag_walk(&s->end) + heap_check();
	s->free_after = selftest_free_pages_locked();
	s->ran = true;
	if (s->domain_problems)
		s->fail_reason = "churn: a domain or a free was refused";
	else if (s->heap_problems)
		s->fail_reason = "churn: heap_check found problems";
	else if (s->free_after != s->free_before)
		s->fail_reason = "churn: free pages differ before/after";
	else if (s->cpus && !s->ops)
		s->fail_reason = "churn: no operation succeeded";
	if (s->fail_reason)
		pr_err("%s (domain problems %llu, heap problems %u, free "
		       "pages %llu before, %llu after)\n",
		       s->fail_reason, (unsigned long long)s->domain_problems,
		       s->heap_problems, (unsigned long long)s->free_before,
		       (unsigned long long)s->free_after);
}

/*
 * Scrub dirty free chunks until none is left: re-scrubs, counted nowhere
 * (the report's scrub figures stay the boot scrub's, as after stress=N).
 */
static void rescrub_worker(void *arg)
{
	(void)arg;
	while (scrub_rescrub_step())
		;
}

/**
 * churn_run() - churn every online CPU for @o->churn_seconds, then check.
 * @o: the options (churn=, bootscrub= for the domain builds' context)
 *
 * Boot CPU, every other CPU idle (after the idle scrub's wait).
 */
void churn_run(const struct keel_options *o)
{
	bool caches = heap_cpu_caches_on();
	uint64_t start;
	cpumask_t all;

	prepare(o);
	if (!heap_node_count()) {
		finish();
		return;
	}
	heap_set_cpu_caches(true);
	churn_stats.heap_problems = frag_walk(&churn_stats.start);
	churn_stats.free_before = selftest_free_pages_locked();
	smp_online_mask(&all);
	start = arch_ticks();
	run.deadline = start + o->churn_seconds * arch_ticks_hz();
	smp_run_on(&all, churn_cpu_main, NULL);
	churn_stats.ticks = arch_ticks() - start;
	/*
	 * Given back, then as they were: the phases after (domains, a live
	 * update's freeze, the audit) run on the runtime's caches.
	 */
	heap_set_cpu_caches(false);
	heap_set_cpu_caches(caches);
	/* What the domains gave back dirty, on every CPU, counted nowhere. */
	if (!run.ctx.scrub_off)
		smp_run_on(&all, rescrub_worker, NULL);
	finish();
}

/**
 * churn_ok() - verdict of the last churn_run().
 *
 * Return: true when it found no problem (or never ran).
 */
bool churn_ok(void)
{
	return !churn_stats.fail_reason;
}

/**
 * churn_fail_reason() - why churn_ok() is false.
 *
 * Return: a "churn: ..." string, or NULL.
 */
const char *churn_fail_reason(void)
{
	return churn_stats.fail_reason;
}
