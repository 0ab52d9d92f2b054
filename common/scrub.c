/* SPDX-License-Identifier: MIT */
/*
 * Scrubbing free memory (DESIGN §5).
 *
 * Boot scrub (bootscrub=on), before the heap opens:
 *  1. scrub_plan() picks the workers (one online CPU per core, the lowest
 *     thread; every online CPU with scrub_smt) and, for every node, the node
 *     whose workers scrub it: itself when it has a worker, else the node
 *     with workers whose CPUs are nearest to its memory, the smallest
 *     distance[helper][node] (numa_nearest_to(); the matrix may be
 *     asymmetric; ties to the lowest id, unreachable helpers last).
 *  2. Every node's dirty free chunks are copied into a static table
 *     (heap_for_each_free under the node lock, nothing else done there).
 *     A node's chunks are cut into units of unit_bytes that never span two
 *     chunks, numbered 0..units-1 per node. The numbers are split into
 *     SCRUB_STRIPES contiguous stripes, each with its own cursor on its
 *     own cache line: a worker claims with one atomic increment in the
 *     stripe of its CPU id, and moves to the next stripe when that one is
 *     empty, so hundreds of workers on one node do not all bounce one
 *     line, and they start far apart in the node's memory. Should a node
 *     have more
 *     chunks than the table holds, the scrub runs in several passes: a
 *     chunk scrubbed in one pass is clean and not collected again.
 *  3. Each worker drains its own node, then the CPU-less nodes it stands
 *     in for, then whichever node with CPUs has the most work left: a
 *     CPU-less node is scrubbed by the workers of its nearest node only
 *     (locality; others join only in the re-runs of step 4). A unit is zeroed
 *     and cleaned to PoC by arch_scrub_clean_range() with no lock held; the
 *     last unit of a chunk (per-chunk atomic count) calls heap_mark_clean().
 *  4. A unit given up (inject=scrub-stop:N) goes to the node's abandoned
 *     list, which claimers drain once the cursor is exhausted; the boot CPU
 *     re-runs the workers (minus the quitter) until no node has work left,
 *     so no unit is ever lost.
 *
 * Idle scrub (bootscrub=idle): the heap opens dirty; every online CPU but
 * the boot CPU loops scrub_idle_step(), which detaches one dirty chunk
 * (heap_take_dirty), scrubs it with no lock held and gives it back clean
 * (heap_put_clean). scrub_wait_all_clean() joins them.
 *
 * Statistics: each CPU writes only its own scrub_stats.cpu[] entry; node
 * and total counters are updated with atomics. The per-CPU arrays
 * (scrub_stats.cpu, cpu_node_bytes, the abandoned lists) come from bootmem
 * through scrub_init_cpus(), sized by the CPUs of the boot, not NR_CPUS.
 */
#include <arch/cpu.h>
#include <arch/mm.h>
#include <arch/scrub.h>
#include <keel/atomic.h>
#include <keel/bug.h>
#include <keel/heap.h>
#include <keel/numa.h>
#include <keel/options.h>
#include <keel/printk.h>
#include <keel/scrub.h>
#include <keel/smp.h>
#include <keel/spinlock.h>
#include <keel/string.h>
#include <keel/trace.h>

#define SCRUB_MAX_CHUNKS 4096
#define SCRUB_STRIPES	 8 /* claim cursors per node, a cache line each */

struct scrub_stats scrub_stats;

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

static struct scrub_chunk scrub_chunks[SCRUB_MAX_CHUNKS];
static unsigned int scrub_chunk_used;
static struct scrub_node_work node_work[MAX_NUMNODES];
/* [cpu][node]: bytes @cpu scrubbed on @node (cpu_count rows). */
static uint64_t (*cpu_node_bytes)[MAX_NUMNODES];
static uint64_t *abandoned_store; /* scrub_nodes rows of cpu_count */
static unsigned int abandoned_rows;

/* The node bit sets below (helpers, plans) are one 64-bit word. */
_Static_assert(MAX_NUMNODES <= 64, "node masks in scrub.c are uint64_t");

/**
 * scrub_init_cpus() - the per-CPU arrays, from bootmem.
 *
 * Call after smp_init() and numa_init(), before the heap handoff.
 */
void scrub_init_cpus(void)
{
	abandoned_rows = MIN(numa_node_count(), (unsigned int)MAX_NUMNODES);
	scrub_stats.cpu = smp_percpu_alloc(sizeof(*scrub_stats.cpu),
					   "scrub per-cpu stats");
	cpu_node_bytes = smp_percpu_alloc(sizeof(*cpu_node_bytes),
					  "scrub per-cpu node bytes");
	abandoned_store = smp_percpu_alloc(abandoned_rows * sizeof(uint64_t),
					   "scrub abandoned units");
}

static uint32_t scrubbed_by[MAX_NUMNODES];
static bool planned;
static unsigned int scrub_nodes;
static uint64_t unit_pages; /* the cap (bootscrub_chunk); idle mode's unit */
static cpumask_t workers, idle_workers;
static bool first_round;
static uint64_t scrub_start;

/**
 * scrub_mode_name() - name of a mode for the report.
 * @m: mode
 *
 * Return: "on", "off", "idle" or "?".
 */
const char *scrub_mode_name(enum scrub_mode m)
{
	switch (m) {
	case SCRUB_ON:
		return "on";
	case SCRUB_OFF:
		return "off";
	case SCRUB_IDLE:
		return "idle";
	}
	return "?";
}

/* Is @i an online CPU that is not the first online thread of its core? */
static bool online_sibling(unsigned int i)
{
	const struct cpu_info *c = &cpu_table[i];

	for (unsigned int j = 0; j < cpu_count; j++) {
		const struct cpu_info *o = &cpu_table[j];

		if (o->online && o->node == c->node &&
		    o->package == c->package && o->core == c->core &&
		    o->thread < c->thread)
			return true;
	}
	return false;
}

/**
 * scrub_plan() - choose workers and who scrubs which node.
 * @smt: use SMT siblings too
 * @out_workers: out: the worker CPUs
 * @out_by: out: for each node, the node whose workers scrub it
 *
 * Only online CPUs count; a core whose first thread is offline is served by
 * its lowest online thread.
 */
void scrub_plan(bool smt, cpumask_t *out_workers, uint32_t out_by[MAX_NUMNODES])
{
	unsigned int nodes = numa_node_count();
	uint64_t have = 0;

	cpumask_clear(out_workers);
	for (unsigned int i = 0; i < cpu_count; i++) {
		if (!cpu_table[i].online || (!smt && online_sibling(i)))
			continue;
		cpumask_set(out_workers, i);
		if (cpu_table[i].node < 64)
			have |= 1ull << cpu_table[i].node;
	}
	for (unsigned int n = 0; n < MAX_NUMNODES; n++) {
		uint32_t by = NUMA_NO_NODE;

		if (n < nodes) {
			by = numa_nearest_to(n, have);
			if (by == NUMA_NO_NODE)
				by = cpu_table[0].node;
		}
		out_by[n] = by;
	}
}

/* ---- work accounting ----------------------------------------------------- */

static void atomic_min64(uint64_t *p, uint64_t v)
{
	uint64_t cur = atomic_load_relaxed(p);

	while (v < cur && !atomic_cmpxchg(p, &cur, v))
		;
}

static void atomic_max64(uint64_t *p, uint64_t v)
{
	uint64_t cur = atomic_load_relaxed(p);

	while (v > cur && !atomic_cmpxchg(p, &cur, v))
		;
}

/* Scrub [p, p + pages) for @node on the calling CPU and account for it. */
static bool scrub_pages(uint32_t node, pfn_t p, uint64_t pages)
{
	unsigned int cpu = arch_cpu_id();
	uint64_t bytes = pages << PAGE_SHIFT;
	struct scrub_node_work *nw = &node_work[node];
	uint64_t t0, t1;
	bool clean;

	trace_detail("scrub_unit", TRACE_BEGIN, node, bytes);
	t0 = arch_ticks();
	clean = arch_scrub_clean_range(phys_to_virt(pfn_to_paddr(p)), bytes);
	t1 = arch_ticks();
	trace_detail("scrub_unit", TRACE_END, node, bytes);

	atomic_fetch_add_relaxed(&scrub_stats.bytes, bytes);
	atomic_fetch_add_relaxed(&scrub_stats.node[node].bytes, bytes);
	atomic_fetch_or(&scrub_stats.node[node].cpus.bits[cpu / 64],
			1ull << (cpu % 64));
	atomic_min64(&nw->first_start, t0);
	atomic_max64(&nw->last_end, t1);
	if (cpu < cpu_count) {
		scrub_stats.cpu[cpu].bytes += bytes;
		scrub_stats.cpu[cpu].ticks += t1 - t0;
		scrub_stats.cpu[cpu].units++;
		scrub_stats.cpu[cpu].last_end = t1;
		cpu_node_bytes[cpu][node] += bytes;
	}
	return clean;
}

/* ---- boot scrub: collecting chunks --------------------------------------- */

struct collect_ctx {
	uint32_t node;
	unsigned int limit; /* table index this node may not reach */
	bool overflow;
};

static void collect_chunk(struct page_info *head, unsigned int order,
			  unsigned int zone, void *arg)
{
	struct collect_ctx *ctx = arg;
	struct scrub_node_work *nw = &node_work[ctx->node];
	uint64_t size = 1ull << order, first = head->first_dirty;
	struct scrub_chunk *ch;

	(void)zone;
	if (first == FIRST_DIRTY_NONE || first >= size)
		return;
	if (scrub_chunk_used >= ctx->limit) {
		ctx->overflow = true;
		return;
	}
	ch = &scrub_chunks[scrub_chunk_used++];
	ch->head = head;
	ch->start_pfn = pfn_val(page_to_pfn(head)) + first;
	ch->pages = size - first;
	ch->first_unit = nw->units;
	ch->units =
		(uint32_t)((ch->pages + nw->unit_pages - 1) / nw->unit_pages);
	ch->remaining = ch->units;
	ch->all_clean = 1;
	nw->units += ch->units;
	nw->chunk_count++;
}

/* Cut [0, units) into SCRUB_STRIPES contiguous stripes (some may be empty). */
static void stripe_units(struct scrub_node_work *nw)
{
	for (unsigned int i = 0; i < SCRUB_STRIPES; i++) {
		nw->stripe[i].next = nw->units * i / SCRUB_STRIPES;
		nw->stripe[i].end = nw->units * (i + 1) / SCRUB_STRIPES;
	}
}

/* Fill the chunk table for one pass. Return: true if some chunk did not fit. */
static bool collect_pass(void)
{
	unsigned int per_node =
		SCRUB_MAX_CHUNKS / (scrub_nodes ? scrub_nodes : 1);
	bool overflow = false;

	scrub_chunk_used = 0;
	for (unsigned int n = 0; n < scrub_nodes; n++) {
		struct scrub_node_work *nw = &node_work[n];
		struct collect_ctx ctx = {n, scrub_chunk_used + per_node,
					  false};

		nw->first_chunk = scrub_chunk_used;
		nw->chunk_count = 0;
		nw->units = 0;
		nw->abandoned_count = 0;
		if (n < heap_node_count())
			heap_for_each_free(n, collect_chunk, &ctx);
		overflow |= ctx.overflow;
		stripe_units(nw);
	}
	return overflow;
}

/* ---- boot scrub: claiming and doing units -------------------------------- */

static bool claim_unit(struct scrub_node_work *nw, uint64_t *unit)
{
	unsigned int first = arch_cpu_id() % SCRUB_STRIPES;
	bool got = false;

	for (unsigned int k = 0; k < SCRUB_STRIPES; k++) {
		struct scrub_stripe *st =
			&nw->stripe[(first + k) % SCRUB_STRIPES];
		uint64_t u;

		if (atomic_load_relaxed(&st->next) >= st->end)
			continue;
		u = atomic_fetch_add(&st->next, 1);
		if (u < st->end) {
			*unit = u;
			return true;
		}
	}
	if (!atomic_load_acquire(&nw->abandoned_count))
		return false;
	spin_lock(&nw->abandoned_lock);
	if (nw->abandoned_count) {
		*unit = nw->abandoned[nw->abandoned_count - 1];
		atomic_store_release(&nw->abandoned_count,
				     nw->abandoned_count - 1);
		got = true;
	}
	spin_unlock(&nw->abandoned_lock);
	return got;
}

static void abandon_unit(struct scrub_node_work *nw, uint64_t unit)
{
	spin_lock(&nw->abandoned_lock);
	/* One unit per quitting CPU at most, so the array cannot overflow. */
	CHECK(nw->abandoned_count < cpu_count);
	nw->abandoned[nw->abandoned_count] = unit;
	atomic_store_release(&nw->abandoned_count, nw->abandoned_count + 1);
	spin_unlock(&nw->abandoned_lock);
}

static uint64_t work_left(const struct scrub_node_work *nw)
{
	uint64_t left = 0;

	for (unsigned int i = 0; i < SCRUB_STRIPES; i++) {
		uint64_t cur = atomic_load_relaxed(&nw->stripe[i].next);

		if (cur < nw->stripe[i].end)
			left += nw->stripe[i].end - cur;
	}
	return left + atomic_load_acquire(&nw->abandoned_count);
}

static struct scrub_chunk *unit_chunk(const struct scrub_node_work *nw,
				      uint64_t unit)
{
	uint32_t lo = nw->first_chunk, hi = nw->first_chunk + nw->chunk_count;

	/* Last chunk whose first_unit <= unit. */
	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (scrub_chunks[mid].first_unit <= unit)
			lo = mid;
		else
			hi = mid;
	}
	return &scrub_chunks[lo];
}

static void do_unit(uint32_t node, uint64_t unit)
{
	struct scrub_chunk *ch = unit_chunk(&node_work[node], unit);
	uint64_t up = node_work[node].unit_pages;
	uint64_t off = (unit - ch->first_unit) * up;
	uint64_t pages = MIN(up, ch->pages - off);

	if (!scrub_pages(node, pfn(ch->start_pfn + off), pages))
		atomic_store_relaxed(&ch->all_clean, 0);
	if (atomic_fetch_sub(&ch->remaining, 1) == 1)
		heap_mark_clean(ch->head, atomic_load_acquire(&ch->all_clean));
}

/*
 * Drain @node. @stop: this CPU quits at its first claim (fault injection),
 * handing the unit back. Return: false when the worker must stop.
 */
static bool drain_node(uint32_t node, bool stop)
{
	struct scrub_node_work *nw = &node_work[node];
	uint64_t unit;

	while (claim_unit(nw, &unit)) {
		if (stop) {
			abandon_unit(nw, unit);
			atomic_store_release(&scrub_stats.stopped_cpu,
					     (int)arch_cpu_id());
			return false;
		}
		do_unit(node, unit);
	}
	return true;
}

static void scrub_worker(void *arg)
{
	unsigned int cpu = arch_cpu_id();
	uint32_t mine = cpu_table[cpu].node;
	bool stop = first_round && inject_has(INJECT_SCRUB_STOP, cpu);

	(void)arg;
	if (mine < scrub_nodes && !drain_node(mine, stop))
		return;
	for (uint32_t n = 0; n < scrub_nodes; n++) {
		if (n != mine && scrubbed_by[n] == mine && !drain_node(n, stop))
			return;
	}
	for (;;) {
		uint64_t best_left = 0;
		uint32_t best = NUMA_NO_NODE;

		for (uint32_t n = 0; n < scrub_nodes; n++) {
			uint64_t left = work_left(&node_work[n]);

			/*
			 * A CPU-less node is its stand-in node's work: only
			 * the re-runs after the first round (a stand-in quit)
			 * let anyone else in.
			 */
			if (first_round && scrubbed_by[n] != n)
				continue;
			if (left > best_left) {
				best_left = left;
				best = n;
			}
		}
		if (best == NUMA_NO_NODE || !drain_node(best, stop))
			return;
	}
}

static bool any_work_left(void)
{
	for (uint32_t n = 0; n < scrub_nodes; n++)
		if (work_left(&node_work[n]))
			return true;
	return false;
}

/* CONFIG_DEBUG: the first, middle and last 64 bytes of a page read zero. */
static void verify_page(uint64_t p)
{
	static const uint64_t offs[] = {0, PAGE_SIZE / 2, PAGE_SIZE - 64};
	const unsigned char *va = phys_to_virt(pfn_to_paddr(pfn(p)));

	for (unsigned int i = 0; i < ARRAY_SIZE(offs); i++) {
		const uint64_t *w = (const uint64_t *)(va + offs[i]);

		for (unsigned int k = 0; k < 64 / sizeof(*w); k++)
			if (w[k])
				panic("scrub: pfn %#llx not zero at offset "
				      "%llu after the boot scrub",
				      (unsigned long long)p,
				      (unsigned long long)(offs[i] +
							   k * sizeof(*w)));
	}
}

static void verify_chunk(const struct scrub_chunk *ch, uint64_t up)
{
	for (uint64_t off = 0; off < ch->pages; off += up) {
		uint64_t last = MIN(off + up, ch->pages) - 1;

		verify_page(ch->start_pfn + off);
		verify_page(ch->start_pfn + last);
	}
}

static void verify_pass(void)
{
	for (unsigned int n = 0; n < scrub_nodes; n++) {
		const struct scrub_node_work *nw = &node_work[n];

		for (unsigned int i = nw->first_chunk;
		     i < nw->first_chunk + nw->chunk_count; i++)
			verify_chunk(&scrub_chunks[i], nw->unit_pages);
	}
}

static void run_boot_scrub(void)
{
	unsigned int passes = 0;
	bool more;

	do {
		uint64_t before = scrub_stats.bytes;
		cpumask_t again = workers;

		more = collect_pass();
		if (!scrub_chunk_used)
			break;
		first_round = passes == 0;
		smp_run_on(&workers, scrub_worker, NULL);
		first_round = false;
		/* Units a quitter handed back and nobody took. */
		if (scrub_stats.stopped_cpu >= 0)
			cpumask_clear_cpu(
				&again, (unsigned int)scrub_stats.stopped_cpu);
		if (!cpumask_weight(&again))
			cpumask_set(&again, arch_cpu_id());
		while (any_work_left())
			smp_run_on(&again, scrub_worker, NULL);
		if (IS_ENABLED(CONFIG_DEBUG))
			verify_pass();
		passes++;
		/* A pass that scrubbed nothing would repeat forever. */
		if (scrub_stats.bytes == before)
			break;
	} while (more);
}

/* ---- choosing the primitive and the unit -------------------------------- */

/* Does scrub_primitive=@forced name @name ('_' standing for ' ')? */
static bool primitive_matches(const char *forced, const char *name)
{
	for (; *forced && *name; forced++, name++) {
		char f = *forced == '_' ? ' ' : *forced;

		if (f != *name)
			return false;
	}
	return !*forced && !*name;
}

/* Is @a faster than @b (bytes per tick; unmeasured is slowest)? */
static bool calib_faster(const struct scrub_calib *a,
			 const struct scrub_calib *b)
{
	if (!a->bytes)
		return false;
	if (!b->bytes)
		return true;
	/* Below the clock's resolution: as fast as it gets. */
	if (!a->ticks || !b->ticks)
		return !a->ticks && b->ticks;
	/* a->bytes / a->ticks > b->bytes / b->ticks, without division. */
	return (unsigned __int128)a->bytes * b->ticks >
	       (unsigned __int128)b->bytes * a->ticks;
}

/**
 * scrub_choose_primitive() - the primitive to use (see keel/scrub.h).
 * @c: the candidates, with their measurements
 * @count: how many
 * @forced: scrub_primitive= ("" when not given)
 * @forced_unknown: out: @forced names no candidate
 *
 * Return: the index of the primitive to use.
 */
unsigned int scrub_choose_primitive(const struct scrub_calib *c,
				    unsigned int count, const char *forced,
				    bool *forced_unknown)
{
	unsigned int best = 0;

	*forced_unknown = false;
	if (forced && *forced) {
		for (unsigned int i = 0; i < count; i++)
			if (primitive_matches(forced, c[i].primitive))
				return i;
		*forced_unknown = true;
	}
	for (unsigned int i = 1; i < count; i++)
		if (calib_faster(&c[i], &c[best]))
			best = i;
	return best;
}

/**
 * scrub_unit_pages() - a node's work unit (see keel/scrub.h).
 * @dirty_pages: what the node has to scrub
 * @worker_count: the workers that start on it
 * @cap_pages: bootscrub_chunk, in pages
 *
 * Return: pages per unit.
 */
uint64_t scrub_unit_pages(uint64_t dirty_pages, unsigned int worker_count,
			  uint64_t cap_pages)
{
	uint64_t min = SCRUB_MIN_UNIT_BYTES >> PAGE_SHIFT, want;

	if (!cap_pages)
		cap_pages = 1;
	if (!worker_count)
		worker_count = 1;
	want = dirty_pages / ((uint64_t)worker_count * SCRUB_UNITS_PER_WORKER);
	want = MAX(ALIGN_DOWN(want, min), min);
	return MIN(want, cap_pages);
}

/* Every node's unit, from its dirty pages and the workers that start on it. */
static void size_units(void)
{
	unsigned int all = cpumask_weight(&workers), c;

	for (unsigned int n = 0; n < scrub_nodes; n++) {
		const struct heap_node_stats *st =
			n < heap_node_count() ? heap_node_stats(n) : NULL;
		unsigned int w = 0;

		for_each_cpu_in (c, &workers)
			w += cpu_table[c].node == scrubbed_by[n];
		node_work[n].unit_pages = scrub_unit_pages(
			st ? st->dirty_pages : 0, w ? w : all, unit_pages);
		scrub_stats.node[n].unit_bytes = node_work[n].unit_pages
						 << PAGE_SHIFT;
	}
}

/*
 * The calibration region: the start of the largest dirty chunk, on the
 * boot CPU's node when it has one. Dirty free memory before the heap opens
 * is used by nobody, and the scrub zeroes it again afterwards.
 * Return: its bytes (0: no dirty memory).
 */
static uint64_t calib_region(void **va)
{
	uint32_t home = cpu_table[arch_cpu_id()].node;
	const struct scrub_chunk *best = NULL;
	bool best_local = false;

	for (unsigned int n = 0; n < scrub_nodes; n++) {
		const struct scrub_node_work *nw = &node_work[n];

		for (unsigned int i = nw->first_chunk;
		     i < nw->first_chunk + nw->chunk_count; i++) {
			const struct scrub_chunk *ch = &scrub_chunks[i];
			bool local = n == home;

			if (!best || (local && !best_local) ||
			    (local == best_local && ch->pages > best->pages)) {
				best = ch;
				best_local = local;
			}
		}
	}
	if (!best)
		return 0;
	*va = phys_to_virt(pfn_to_paddr(pfn(best->start_pfn)));
	return MIN(SCRUB_PROBE_BYTES, best->pages << PAGE_SHIFT);
}

/*
 * Time every primitive the arch offers on the calibration region (a
 * warm-up with the first, then two rounds in turn, the best of each) and
 * select the fastest, or the one scrub_primitive= names.
 */
static void scrub_calibrate(bool measure)
{
	const char *names[ARCH_SCRUB_MAX_PRIMITIVES];
	unsigned int count = arch_scrub_candidates(names, ARRAY_SIZE(names));
	struct scrub_calib *c = scrub_stats.calib;
	uint64_t t_start = arch_ticks(), len = 0;
	unsigned int pick;
	bool unknown;
	void *va = NULL;

	if (measure) {
		collect_pass();
		len = calib_region(&va);
	}
	for (unsigned int i = 0; i < count; i++) {
		c[i].primitive = names[i];
		c[i].bytes = 0;
		c[i].ticks = 0;
	}
	if (len) {
		arch_scrub_probe(0, va, len);
		for (unsigned int round = 0; round < 2; round++) {
			for (unsigned int i = 0; i < count; i++) {
				uint64_t t0 = arch_ticks(), t;

				arch_scrub_probe(i, va, len);
				t = arch_ticks() - t0;
				if (!c[i].bytes || t < c[i].ticks)
					c[i].ticks = t;
				c[i].bytes = len;
			}
		}
		scrub_stats.calib_count = count;
	}
	pick = scrub_choose_primitive(c, count, opts.scrub_primitive, &unknown);
	if (unknown)
		pr_warn("scrub_primitive=%s: this CPU has no such primitive, "
			"using %s\n",
			opts.scrub_primitive, names[pick]);
	scrub_stats.choice = !unknown && opts.scrub_primitive[0]
				     ? SCRUB_CHOICE_FORCED
			     : len ? SCRUB_CHOICE_MEASURED
				   : SCRUB_CHOICE_DEFAULT;
	arch_scrub_select(pick);
	scrub_stats.calib_ticks = arch_ticks() - t_start;
}

/**
 * scrub_choice_name() - how scrub.primitive was chosen, for the report.
 * @c: the choice
 *
 * Return: "measured", "forced" or "default".
 */
const char *scrub_choice_name(enum scrub_choice c)
{
	switch (c) {
	case SCRUB_CHOICE_MEASURED:
		return "measured";
	case SCRUB_CHOICE_FORCED:
		return "forced";
	case SCRUB_CHOICE_DEFAULT:
		break;
	}
	return "default";
}

/* ---- idle scrub ---------------------------------------------------------- */

static bool idle_scrub_node(uint32_t node)
{
	unsigned int order;
	struct page_info *pg = heap_take_dirty(node, &order);
	uint64_t size, first, p;
	bool clean = true;

	if (!pg)
		return false;
	size = 1ull << order;
	first = pg->first_dirty;
	if (first >= size)
		first = 0; /* say dirty but no offset: scrub it all */
	p = pfn_val(page_to_pfn(pg)) + first;
	for (uint64_t done = 0; done < size - first;) {
		uint64_t n = MIN(unit_pages, size - first - done);

		clean &= scrub_pages(node, pfn(p + done), n);
		done += n;
	}
	heap_put_clean(pg, order, clean);
	return true;
}

/**
 * scrub_idle_step() - scrub one dirty chunk on the calling CPU.
 *
 * Tries the CPU's own node, then the CPU-less nodes that node stands in
 * for, then any node.
 *
 * Return: false when no node had a dirty chunk left.
 */
bool scrub_idle_step(void)
{
	unsigned int nodes = heap_node_count();
	uint32_t mine = cpu_table[arch_cpu_id()].node;

	if (!unit_pages)
		unit_pages = SCRUB_UNIT_DEFAULT >> PAGE_SHIFT;
	if (mine < nodes && idle_scrub_node(mine))
		return true;
	for (uint32_t n = 0; planned && n < nodes; n++)
		if (n != mine && scrubbed_by[n] == mine && idle_scrub_node(n))
			return true;
	for (uint32_t n = 0; n < nodes; n++)
		if (n != mine && idle_scrub_node(n))
			return true;
	return false;
}

static void idle_worker(void *arg)
{
	(void)arg;
	while (scrub_idle_step())
		;
}

/* ---- entry points -------------------------------------------------------- */

static void finish_stats(uint64_t end)
{
	scrub_stats.ticks = end - scrub_start;
	/*
	 * A CPU that scrubbed is a scrubber, whoever planned it: with
	 * bootscrub=idle the boot CPU finishes the work (and stress=N has
	 * every CPU take idle steps), so cpus[].scrubber, scrub.workers and
	 * scrub.per_cpu[] all say the same.
	 */
	scrub_stats.workers = 0;
	for (unsigned int c = 0; c < cpu_count && c < NR_CPUS; c++) {
		struct scrub_cpu_stats *cs = &scrub_stats.cpu[c];

		cs->worker |= cs->bytes != 0;
		scrub_stats.workers += cs->worker;
	}
	/* What each worker did not scrub of the wall time, at the end. */
	for (unsigned int c = 0; c < cpu_count; c++) {
		struct scrub_cpu_stats *cs = &scrub_stats.cpu[c];

		if (!cs->worker)
			continue;
		cs->idle_ticks = end - (cs->bytes && cs->last_end >= scrub_start
						? cs->last_end
						: scrub_start);
	}
	for (unsigned int n = 0; n < scrub_nodes; n++) {
		struct scrub_node_work *nw = &node_work[n];

		if (nw->last_end > nw->first_start)
			scrub_stats.node[n].ticks =
				nw->last_end - nw->first_start;
	}
	for (unsigned int c = 0; c < cpu_count; c++) {
		struct scrub_cpu_stats *cs = &scrub_stats.cpu[c];
		uint64_t best = 0;

		cs->node = cpu_table[c].node;
		for (unsigned int n = 0; n < scrub_nodes; n++) {
			if (cpu_node_bytes[c][n] > best) {
				best = cpu_node_bytes[c][n];
				cs->node = n;
			}
		}
	}
}

/*
 * inject=scrub-stop:N does something only to a boot scrub worker of
 * bootscrub=on (smp_init() already warned about a CPU that does not exist).
 */
static void check_scrub_stop(enum scrub_mode mode)
{
	for (unsigned int i = 0; i < opts.inject_count && i < INJECT_MAX; i++) {
		uint64_t cpu = opts.inject[i].arg;

		if (opts.inject[i].kind != INJECT_SCRUB_STOP ||
		    cpu >= cpu_count)
			continue;
		if (mode == SCRUB_ON &&
		    cpumask_test(&workers, (unsigned int)cpu))
			continue;
		pr_warn("inject=scrub-stop:%llu: cpu %llu is not a boot scrub "
			"worker (bootscrub=%s), nothing injected\n",
			(unsigned long long)cpu, (unsigned long long)cpu,
			scrub_mode_name(mode));
	}
}

/**
 * scrub_boot() - the boot scrub for @mode (see the top of this file).
 * @mode: on, off or idle
 * @unit_bytes: work unit (bootscrub_chunk), rounded up to whole pages
 * @smt: SMT siblings scrub too
 */
void scrub_boot(enum scrub_mode mode, uint64_t unit_bytes, bool smt)
{
	uint64_t end;

	struct scrub_cpu_stats *cpus = scrub_stats.cpu;

	CHECK(cpus && cpu_node_bytes && abandoned_store);
	memset(&scrub_stats, 0, sizeof(scrub_stats));
	scrub_stats.cpu = cpus;
	memset(cpus, 0, sizeof(*cpus) * cpu_count);
	memset(cpu_node_bytes, 0, sizeof(*cpu_node_bytes) * cpu_count);
	scrub_stats.mode = mode;
	scrub_stats.stopped_cpu = -1;
	unit_bytes = ALIGN_UP(unit_bytes ? unit_bytes : PAGE_SIZE, PAGE_SIZE);
	scrub_stats.unit_bytes = unit_bytes;
	unit_pages = unit_bytes >> PAGE_SHIFT;
	scrub_nodes = MIN(numa_node_count(), (unsigned int)MAX_NUMNODES);
	for (unsigned int n = 0; n < MAX_NUMNODES; n++) {
		memset(&node_work[n], 0, sizeof(node_work[n]));
		spin_lock_init(&node_work[n].abandoned_lock);
		if (n < abandoned_rows)
			node_work[n].abandoned =
				abandoned_store + (uint64_t)n * cpu_count;
		node_work[n].first_start = UINT64_MAX;
		scrub_stats.node[n].helper_of = NUMA_NO_NODE;
	}
	if (mode == SCRUB_OFF) {
		scrub_calibrate(false);
		scrub_start = arch_ticks();
		check_scrub_stop(mode);
		scrub_stats.heap_ready_ticks = scrub_start - arch_entry_ticks;
		return;
	}

	/* arch_scrub_init() is the caller's (boot.c), before this. */
	scrub_plan(smt, &workers, scrubbed_by);
	planned = true;
	size_units();
	scrub_calibrate(true);
	scrub_start = arch_ticks();
	for (unsigned int n = 0; n < scrub_nodes; n++)
		if (scrubbed_by[n] != n)
			scrub_stats.node[n].helper_of = scrubbed_by[n];
	for (unsigned int c = 0; c < cpu_count; c++)
		scrub_stats.cpu[c].worker = cpumask_test(&workers, c);
	check_scrub_stop(mode);

	if (mode == SCRUB_IDLE) {
		smp_online_mask(&idle_workers);
		cpumask_clear_cpu(&idle_workers, arch_cpu_id());
		scrub_stats.workers = cpumask_weight(&idle_workers);
		for (unsigned int c = 0; c < cpu_count; c++)
			scrub_stats.cpu[c].worker =
				cpumask_test(&idle_workers, c);
		if (!scrub_stats.workers) {
			/* The boot CPU, later (scrub_wait_all_clean()). */
			scrub_stats.workers = 1;
			scrub_stats.cpu[arch_cpu_id()].worker = true;
		}
		scrub_stats.heap_ready_ticks = arch_ticks() - arch_entry_ticks;
		smp_post(&idle_workers, idle_worker, NULL);
		return;
	}

	scrub_stats.workers = cpumask_weight(&workers);
	trace_begin("scrub_boot");
	run_boot_scrub();
	trace_end("scrub_boot");
	end = arch_ticks();
	finish_stats(end);
	scrub_stats.heap_ready_ticks = end - arch_entry_ticks;
	scrub_stats.all_clean_ticks = scrub_stats.heap_ready_ticks;
	if (scrub_stats.stopped_cpu >= 0)
		pr_warn("scrub: cpu %d stopped (injected), its work was "
			"finished by the others\n",
			scrub_stats.stopped_cpu);
}

/**
 * scrub_wait_all_clean() - idle mode: wait until no free chunk is dirty.
 *
 * Joins the background workers, then finishes on the calling CPU what is
 * left (chunks freed dirty meanwhile, or everything when there was no
 * other CPU).
 */
void scrub_wait_all_clean(void)
{
	uint64_t end;

	if (scrub_stats.mode != SCRUB_IDLE || scrub_stats.all_clean_ticks)
		return;
	smp_wait(&idle_workers);
	while (scrub_idle_step())
		;
	end = arch_ticks();
	finish_stats(end);
	scrub_stats.all_clean_ticks = end - arch_entry_ticks;
}
