/* SPDX-License-Identifier: MIT */
/*
 * Stress with verification (stress=N).
 *
 * Owns stress_stats and a per-CPU table of held blocks (stress_cpus[]);
 * each CPU touches only its own entry, so there is no lock. The boot CPU is
 * the only one that posts work and the only one that reads the totals, and
 * it does so after smp_wait(), which orders every CPU's writes before.
 *
 * Each CPU loops until the deadline (and at least STRESS_MIN_ITERS times):
 * allocate a random order (0..9, now and then up to a bound that keeps the
 * heap from running dry) on a random node (local half of the time, exact
 * node a quarter of the time; one allocation in four is an extent owned by
 * the CPU, heap_alloc_owned() with owner cpu + 1, freed with
 * heap_free_owned(), always dirty), or free one of the blocks it holds. A
 * held block carries one 64-bit word per cache line:
 *
 *     ((cpu + 1) << 48) ^ ((serial & 0xffff) << 32) ^ (pfn << 12) ^ offset
 *
 * so a block the heap handed to two holders at once (two CPUs, or the same
 * CPU twice) fails the check of whichever is freed second. Before freeing,
 * every word is compared; a mismatch is a corruption, printed with the pfn,
 * the offset, the CPU that owns the block and the found/expected values.
 *
 * Clean means zero: a block allocated without HEAP_NO_SCRUB must read zero
 * where the pattern goes (unless bootscrub=off, where the heap may hold
 * memory nobody zeroed). To keep that true for the next holder, a block
 * freed with need_scrub=false has its pattern words cleared first; a block
 * that came dirty (HEAP_NO_SCRUB) is always freed with need_scrub=true.
 *
 * Scrub concurrency: every STRESS_SCRUB_EVERY iterations a CPU runs one
 * scrub step, so chunks being detached, scrubbed and put back race with
 * allocations and frees on the other CPUs. With bootscrub=idle the
 * other CPUs may still be running the background scrub when stress starts:
 * the boot CPU does not wait for them, it starts stressing and posts the
 * stress to each one as soon as its mailbox is free.
 *
 * At the end every block is freed, the dirty chunks left are scrubbed
 * (unless the idle scrub's own scrub_wait_all_clean() is still to come),
 * heap_check() must find nothing and the heap must have as many free pages
 * as before. With bootscrub=on the steps are scrub_rescrub_step(), which
 * the scrub counts nowhere, so that the report describes the boot scrub,
 * not the stress's re-scrubs; with idle they are scrub_idle_step(), and
 * the background scrub's figures include them (all-clean comes later).
 */
#include <arch/cpu.h>
#include <arch/mm.h>
#include <keel/atomic.h>
#include <keel/bug.h>
#include <keel/compiler.h>
#include <keel/heap.h>
#include <keel/heap_check.h>
#include <keel/printk.h>
#include <keel/scrub.h>
#include <keel/smp.h>
#include <keel/string.h>
#include <keel/stress.h>
#include <keel/trace.h>

#define STRESS_HELD_MAX	    64	/* blocks one CPU holds at most */
#define STRESS_MIN_ITERS    256 /* even a CPU that joins after the deadline */
#define STRESS_SCRUB_EVERY  16	/* iterations between scrub steps */
#define STRESS_POLL_EVERY   8	/* boot CPU: iterations between mailbox polls */
#define STRESS_SMALL_ORDERS 10	/* orders 0..9 most of the time */
#define STRESS_ERR_PRINT    4	/* corruption lines printed per CPU */
#define STRESS_STRIDE	    64	/* one pattern word per cache line */

struct stress_block {
	struct page_info *pg;
	uint64_t pfn;
	uint32_t serial;
	uint8_t order;
	bool zeroed;	/* the heap zeroed it: may be freed as clean */
	uint16_t owner; /* owned extent: its owner (cpu + 1); 0: anonymous */
};

struct stress_cpu {
	uint64_t rng;
	uint64_t held_pages;
	uint32_t serial;
	unsigned int held_count;
	unsigned int err_printed;
	struct stress_block held[STRESS_HELD_MAX];
} __attribute__((aligned(128)));

/* Set by the boot CPU before any post; read-only while the CPUs run. */
struct stress_run {
	uint64_t start, deadline;
	uint64_t budget_pages;	/* per CPU */
	unsigned int order_max; /* largest order a CPU may ask for */
	unsigned int nodes;
	unsigned int poster;
	bool scrub_steps;
	bool rescrub; /* bootscrub=on: steps are re-scrubs, not the boot's */
	bool zero_check;
	cpumask_t pending; /* poster only: CPUs not yet posted to */
};

struct stress_stats stress_stats;
void (*stress_test_corrupt_hook)(unsigned int cpu, pfn_t p, unsigned int order);

static struct stress_cpu *stress_cpus; /* cpu_count entries */
static struct stress_run run;

/**
 * stress_init_cpus() - the per-CPU tables for cpu_count CPUs, from bootmem.
 *
 * Call after smp_init(), before the heap handoff.
 */
void stress_init_cpus(void)
{
	stress_cpus = smp_percpu_alloc(sizeof(*stress_cpus), "stress per-cpu");
	stress_stats.cpu = smp_percpu_alloc(sizeof(*stress_stats.cpu),
					    "stress per-cpu stats");
}

/* One scrub step of this CPU: counted as the boot's, or a re-scrub. */
static bool stress_scrub_step(void)
{
	return run.rescrub ? scrub_rescrub_step() : scrub_idle_step();
}

/* xorshift64*: small, no state beyond one word, good enough for choices. */
static uint64_t rnd(struct stress_cpu *sc)
{
	uint64_t x = sc->rng;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	sc->rng = x;
	return x * 0x2545f4914f6cdd1dull;
}

static inline uint64_t pattern(unsigned int cpu, uint32_t serial, uint64_t p,
			       uint64_t off)
{
	uint64_t owner = (uint64_t)(cpu + 1) << 48;
	uint64_t block = (uint64_t)(serial & 0xffff) << 32;

	return owner ^ block ^ (p << 12) ^ off;
}

static inline uint64_t *word_at(uint64_t p, uint64_t off)
{
	return (uint64_t *)((char *)phys_to_virt(pfn_to_paddr(pfn(p))) + off);
}

static void corruption(unsigned int cpu, const char *what, uint64_t p,
		       uint64_t off, uint64_t found, uint64_t expected)
{
	struct stress_cpu *sc = &stress_cpus[cpu];

	stress_stats.cpu[cpu].corruptions++;
	if (sc->err_printed++ >= STRESS_ERR_PRINT)
		return;
	pr_err("stress: cpu %u: %s: pfn %#llx offset %#llx: found %#llx, "
	       "expected %#llx (found word names cpu %lld)\n",
	       cpu, what, (unsigned long long)p, (unsigned long long)off,
	       (unsigned long long)found, (unsigned long long)expected,
	       (long long)(found >> 48) - 1);
}

/*
 * Stamp a new block; when @check_zero, each word must read zero first.
 * Return: false when a word did not.
 */
static bool stamp(unsigned int cpu, const struct stress_block *b,
		  bool check_zero)
{
	uint64_t pages = 1ull << b->order;
	bool ok = true;

	for (uint64_t i = 0; i < pages; i++) {
		uint64_t p = b->pfn + i;

		for (uint64_t off = 0; off < PAGE_SIZE; off += STRESS_STRIDE) {
			uint64_t *w = word_at(p, off);

			if (check_zero && *w && ok) {
				corruption(cpu,
					   "allocated clean block not zero", p,
					   off, *w, 0);
				ok = false;
			}
			*w = pattern(cpu, b->serial, p, off);
		}
	}
	if (check_zero)
		stress_stats.cpu[cpu].bytes_verified +=
			pages * (PAGE_SIZE / STRESS_STRIDE) * sizeof(uint64_t);
	return ok;
}

/* Compare every word of @b (and zero it when @clear). One count per block. */
static void verify(unsigned int cpu, const struct stress_block *b, bool clear)
{
	uint64_t pages = 1ull << b->order;
	bool bad = false;

	for (uint64_t i = 0; i < pages; i++) {
		uint64_t p = b->pfn + i;

		for (uint64_t off = 0; off < PAGE_SIZE; off += STRESS_STRIDE) {
			uint64_t *w = word_at(p, off);
			uint64_t want = pattern(cpu, b->serial, p, off);

			if (*w != want && !bad) {
				corruption(cpu, "pattern mismatch", p, off, *w,
					   want);
				bad = true;
			}
			if (clear)
				*w = 0;
		}
	}
	stress_stats.cpu[cpu].bytes_verified +=
		pages * (PAGE_SIZE / STRESS_STRIDE) * sizeof(uint64_t);
}

static void free_slot(unsigned int cpu, struct stress_cpu *sc, unsigned int i)
{
	struct stress_cpu_stats *st = &stress_stats.cpu[cpu];
	struct stress_block b = sc->held[i];
	/* A dirty (NO_SCRUB) block holds more than our words; an owned
	 * extent always goes back dirty. */
	bool need_scrub = !b.zeroed || b.owner || (rnd(sc) & 1);
	int err;

	sc->held[i] = sc->held[--sc->held_count];
	sc->held_pages -= 1ull << b.order;
	if (stress_test_corrupt_hook)
		stress_test_corrupt_hook(cpu, pfn(b.pfn), b.order);
	verify(cpu, &b, !need_scrub);
	err = b.owner ? heap_free_owned(b.pg, b.order, b.owner)
		      : heap_free(b.pg, b.order, need_scrub);
	if (err) {
		corruption(cpu, "heap_free refused a held block", b.pfn, 0,
			   b.pg->order, b.order);
		return;
	}
	st->frees++;
	st->ops++;
}

static unsigned int pick_order(struct stress_cpu *sc)
{
	uint64_t r = rnd(sc);
	unsigned int order = (unsigned int)((r >> 8) % STRESS_SMALL_ORDERS);

	/* One allocation in 32 is large, when the budget allows it. */
	if ((r & 31) == 0 && run.order_max >= STRESS_SMALL_ORDERS)
		order = STRESS_SMALL_ORDERS +
			(unsigned int)((r >> 16) % (run.order_max -
						    STRESS_SMALL_ORDERS + 1));
	return MIN(order, run.order_max);
}

/* Is the block the heap returned what was asked for? */
static bool block_valid(const struct page_info *pg, unsigned int order,
			uint32_t node, uint32_t flags, uint16_t owner)
{
	uint64_t p = pg->pfn;

	if (pg->state != (owner ? PGS_OWNED : PGS_ALLOCATED) ||
	    (owner && pg->owner != owner) || pg->order != order ||
	    (p & ((1ull << order) - 1)) || pg->node >= run.nodes ||
	    !heap_owns(pg->node, pfn(p), order))
		return false;
	return !(flags & HEAP_EXACT_NODE) || pg->node == node;
}

static void alloc_one(unsigned int cpu, struct stress_cpu *sc)
{
	struct stress_cpu_stats *st = &stress_stats.cpu[cpu];
	unsigned int order = pick_order(sc);
	uint64_t r = rnd(sc);
	uint32_t node = cpu_table[cpu].node, flags;
	uint16_t owner = (r & 0xc0) == 0 ? (uint16_t)(cpu + 1) : 0;
	struct stress_block *b;
	struct page_info *pg;

	if ((r & 1) || node >= run.nodes)
		node = (uint32_t)((r >> 8) % run.nodes);
	flags = 0;
	if ((r & 0x6) == 0)
		flags |= HEAP_EXACT_NODE;
	if ((r & 0x38) == 0)
		flags |= HEAP_NO_SCRUB;

	/* Stay inside this CPU's share of the heap. */
	while (sc->held_count &&
	       sc->held_pages + (1ull << order) > run.budget_pages)
		free_slot(cpu, sc, (unsigned int)(rnd(sc) % sc->held_count));

	pg = owner ? heap_alloc_owned(order, (int)node, flags, owner, NULL)
		   : heap_alloc(order, (int)node, 0, flags);
	if (!pg) {
		/* The node (or heap) ran dry: give something back. */
		st->alloc_failures++;
		if (sc->held_count)
			free_slot(cpu, sc,
				  (unsigned int)(rnd(sc) % sc->held_count));
		return;
	}
	st->allocs++;
	st->ops++;
	if (!block_valid(pg, order, node, flags, owner)) {
		/* Not ours to free: heap_free could panic on it. */
		corruption(cpu, "heap_alloc returned an invalid block", pg->pfn,
			   0, pg->order, order);
		return;
	}
	b = &sc->held[sc->held_count++];
	b->pg = pg;
	b->pfn = pg->pfn;
	b->order = (uint8_t)order;
	b->serial = sc->serial++;
	b->zeroed = !(flags & HEAP_NO_SCRUB);
	b->owner = owner;
	sc->held_pages += 1ull << order;
	stamp(cpu, b, run.zero_check && b->zeroed);
}

static bool mailbox_free(unsigned int cpu)
{
	const struct cpu_info *c = &cpu_table[cpu];

	return atomic_load_acquire(&c->done_seq) ==
	       atomic_load_relaxed(&c->seq);
}

static void stress_cpu_main(void *arg);

/* Boot CPU: post the stress to every pending CPU whose mailbox is free. */
static void post_ready(bool wait)
{
	unsigned int cpu;

	for_each_cpu_in (cpu, &run.pending) {
		cpumask_t one;

		if (!wait && !mailbox_free(cpu))
			continue;
		cpumask_clear(&one);
		cpumask_set(&one, cpu);
		smp_post(&one, stress_cpu_main, NULL);
		cpumask_clear_cpu(&run.pending, cpu);
	}
}

static void stress_cpu_main(void *arg)
{
	unsigned int cpu = arch_cpu_id();
	struct stress_cpu *sc = &stress_cpus[cpu];
	struct stress_cpu_stats *st = &stress_stats.cpu[cpu];
	uint64_t t0 = arch_ticks();

	(void)arg;
	memset(sc, 0, sizeof(*sc));
	sc->rng = ((uint64_t)(cpu + 1) * 0x9e3779b97f4a7c15ull) ^ t0;
	if (!sc->rng)
		sc->rng = 1;
	st->ran = true;
	st->start_ticks = t0 - run.start;
	trace_begin("stress");
	for (uint64_t it = 0;; it++) {
		uint64_t r;

		if (it >= STRESS_MIN_ITERS && arch_ticks() >= run.deadline)
			break;
		if (cpu == run.poster && it % STRESS_POLL_EVERY == 0)
			post_ready(false);
		if (run.scrub_steps && it % STRESS_SCRUB_EVERY == 0) {
			uint64_t s0 = arch_ticks();

			if (stress_scrub_step()) {
				st->scrub_steps++;
				st->scrub_ticks += arch_ticks() - s0;
			}
		}
		r = rnd(sc);
		if (sc->held_count == STRESS_HELD_MAX ||
		    (sc->held_count && (r & 1)))
			free_slot(cpu, sc,
				  (unsigned int)((r >> 8) % sc->held_count));
		else
			alloc_one(cpu, sc);
	}
	while (sc->held_count)
		free_slot(cpu, sc, sc->held_count - 1);
	trace_end("stress");
	st->ticks = arch_ticks() - t0;
}

/*
 * heap_free_pages() reads the counters without the node locks, which is a
 * data race while an idle scrub detaches chunks: read each under its lock.
 * A block in a CPU's cache is free memory too (the caches are on in
 * keel's boot): each node's cached pages are added, read atomically. The
 * CPUs are quiet before and after the run, so the sum is exact then.
 */
static uint64_t free_pages_locked(void)
{
	uint64_t sum = 0;

	for (unsigned int n = 0; n < heap_node_count(); n++) {
		struct heap_node_locked l = heap_lock_node(n);

		sum += heap_node_stats_locked(l)->free_pages;
		heap_unlock_node(l);
		sum += heap_cached_pages((int)n, false);
	}
	return sum;
}

static void prepare(uint64_t seconds)
{
	unsigned int online = smp_online_count();
	uint64_t budget;

	struct stress_cpu_stats *cpus = stress_stats.cpu;

	CHECK(cpus && stress_cpus);
	memset(&stress_stats, 0, sizeof(stress_stats));
	stress_stats.cpu = cpus;
	memset(cpus, 0, sizeof(*cpus) * cpu_count);
	stress_stats.seconds = seconds;
	run.nodes = heap_node_count();
	run.poster = arch_cpu_id();
	/* Half the free pages, shared by the CPUs: the heap never runs dry. */
	budget = free_pages_locked() / 2 / (online ? online : 1);
	run.budget_pages = budget ? budget : 1;
	run.order_max = MIN((unsigned int)fls64(run.budget_pages) - 1,
			    (unsigned int)MAX_ORDER);
	/* A large block is at most a quarter of the share. */
	if (run.order_max >= STRESS_SMALL_ORDERS + 2)
		run.order_max -= 2;
	run.scrub_steps = scrub_stats.mode != SCRUB_OFF;
	run.rescrub = scrub_stats.mode == SCRUB_ON;
	run.zero_check = scrub_stats.mode != SCRUB_OFF;
	stress_stats.zero_check = run.zero_check;
}

static void finish(void)
{
	struct stress_stats *s = &stress_stats;

	for (unsigned int c = 0; c < cpu_count; c++) {
		const struct stress_cpu_stats *st = &s->cpu[c];

		if (!st->ran)
			continue;
		s->cpus++;
		s->ops += st->ops;
		s->allocs += st->allocs;
		s->frees += st->frees;
		s->alloc_failures += st->alloc_failures;
		s->bytes_verified += st->bytes_verified;
		s->corruptions += st->corruptions;
	}
	s->free_after = free_pages_locked();
	s->heap_problems = heap_check();
	s->ran = true;
	if (s->corruptions)
		s->fail_reason = "stress: memory corruption found";
	else if (s->heap_problems)
		s->fail_reason = "stress: heap_check found problems";
	else if (s->free_after < s->free_before ||
		 (s->baseline_exact && s->free_after != s->free_before))
		s->fail_reason = "stress: free pages differ before/after";
	if (s->fail_reason)
		pr_err("%s (corruptions %llu, heap problems %u, free pages "
		       "%llu before, %llu after)\n",
		       s->fail_reason, (unsigned long long)s->corruptions,
		       s->heap_problems, (unsigned long long)s->free_before,
		       (unsigned long long)s->free_after);
}

/**
 * stress_run() - stress every online CPU for @seconds, then audit.
 * @seconds: run time (0: only the minimum number of iterations)
 *
 * Must be called on the boot CPU, the only CPU that posts work.
 */
void stress_run(uint64_t seconds)
{
	unsigned int self = arch_cpu_id();
	cpumask_t all;

	prepare(seconds);
	if (!run.nodes) {
		finish();
		return;
	}
	smp_online_mask(&all);
	run.pending = all;
	cpumask_clear_cpu(&run.pending, self);
	/* Every other mailbox free: nobody holds a detached chunk now. */
	stress_stats.baseline_exact = true;
	for (unsigned int c = 0; c < cpu_count; c++)
		if (cpumask_test(&run.pending, c) && !mailbox_free(c))
			stress_stats.baseline_exact = false;
	stress_stats.free_before = free_pages_locked();
	run.start = arch_ticks();
	run.deadline = run.start + seconds * arch_ticks_hz();

	post_ready(false);
	if (cpumask_test(&all, self))
		stress_cpu_main(NULL);
	/* CPUs still busy when our own loop ended run their minimum now. */
	post_ready(true);
	smp_wait(&all);

	/*
	 * Chunks freed dirty at the end: with bootscrub=on nobody else would
	 * scrub them; an idle scrub does it in scrub_wait_all_clean() unless
	 * that already ran.
	 */
	if (scrub_stats.mode == SCRUB_ON ||
	    (scrub_stats.mode == SCRUB_IDLE && scrub_stats.all_clean_ticks))
		while (stress_scrub_step())
			;
	stress_stats.ticks = arch_ticks() - run.start;
	finish();
}

/**
 * stress_ok() - verdict of the last stress_run().
 *
 * Return: true when it found no problem (or never ran).
 */
bool stress_ok(void)
{
	return !stress_stats.fail_reason;
}

/**
 * stress_fail_reason() - why stress_ok() is false.
 *
 * Return: a "stress: ..." string, or NULL.
 */
const char *stress_fail_reason(void)
{
	return stress_stats.fail_reason;
}
