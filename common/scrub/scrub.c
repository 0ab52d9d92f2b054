/* SPDX-License-Identifier: MIT */
/*
 * Scrubbing free memory (DESIGN §5): the plan, the entry points, the idle
 * scrub and the statistics. The boot scrub's units and workers are in
 * common/scrub/scrub_work.c, the choice of primitive and unit size in
 * common/scrub/scrub_calib.c; common/scrub/scrub_priv.h is what the three
  * share.
 *
 * Boot scrub (bootscrub=on), before the heap opens:
 *  1. scrub_plan() picks the workers (one online CPU per core, the lowest
 *     thread; every online CPU with scrub_smt) and, for every node, the node
 *     whose workers scrub it: itself when it has a worker, else the node
 *     with workers whose CPUs are nearest to its memory, the smallest
 *     distance[helper][node] (numa_nearest_to(); the matrix may be
 *     asymmetric; ties to the lowest id, unreachable helpers last).
 *     size_units() then sizes every node's unit, and scrub_calibrate()
 *     opens the calibration: the first units are timed with each
 *     primitive in turn, then every worker uses the fastest
 *     (common/scrub/scrub_calib.c).
 *  2. to 4. scrub_run_passes() cuts every node's dirty chunks into units
 *     that the workers claim and scrub with no lock held, in passes, until
 *     no node has work left, even when a worker quits
 *     (inject=scrub-stop:N). The top of common/scrub/scrub_work.c tells how.
 *
 * Idle scrub (bootscrub=idle): the heap opens dirty; every online CPU but
 * the boot CPU loops scrub_idle_step(), which detaches one dirty chunk
 * (heap_take_dirty), scrubs it with no lock held and gives it back clean
 * (heap_put_clean). scrub_wait_all_clean() joins them.
 *
 * Statistics: this file is the one writer of scrub_stats (the calibration
 * keeps its results in common/scrub/scrub_calib.c and they are copied here,
 * scrub_work.c reports a stopped worker through scrub_note_stopped()).
 * Each CPU writes only its own scrub_stats.cpu[] entry; node and total
 * counters are updated with atomics. A re-scrub that is not the boot's
 * (scrub_rescrub_step()) is counted nowhere. The per-CPU arrays
 * (scrub_stats.cpu, cpu_node_bytes, the abandoned lists) come from bootmem
 * through scrub_init_cpus(), sized by the CPUs of the boot, not NR_CPUS.
 * The plan (workers, scrubbed_by[]) is written by the boot CPU before any
 * worker starts, read-only afterwards.
 */
#include <arch/cpu.h>
#include <arch/mm.h>
#include <arch/scrub.h>
#include <keel/atomic.h>
#include <keel/bootmem.h>
#include <keel/bug.h>
#include <keel/heap_boot.h>
#include <keel/heap_scrub.h>
#include <keel/inject.h>
#include <keel/numa.h>
#include <keel/printk.h>
#include <keel/scrub.h>
#include <keel/scrub_prims.h>
#include <keel/smp.h>
#include <keel/spinlock.h>
#include <keel/string.h>
#include <keel/trace.h>

#include "scrub_priv.h"

/* stopped_cpu -1 from the start: a boot that never scrubs (fail closed). */
struct scrub_stats scrub_stats = {.stopped_cpu = -1};

/* [cpu][node]: bytes @cpu scrubbed on @node (cpu_count rows). */
static uint64_t (*cpu_node_bytes)[MAX_NUMNODES];
static uint64_t *abandoned_store; /* scrub_nodes rows of cpu_count */
static unsigned int abandoned_rows;

/* The node bit sets below (helpers, plans) are one 64-bit word. */
_Static_assert(MAX_NUMNODES <= 64, "node masks in scrub.c are uint64_t");

/* The full chunk table from bootmem (the static small one without it). */
static void chunks_from_bootmem(void)
{
	uint64_t bytes = SCRUB_MAX_CHUNKS * sizeof(struct scrub_chunk);
	paddr_t p = bootmem_alloc_try(bytes, PAGE_SIZE, BOOTMEM_ANY_NODE,
				      "scrub chunks");

	if (pa_val(p) == pa_val(INVALID_PADDR))
		return;
	scrub_chunks = phys_to_virt(p);
	scrub_chunk_cap = SCRUB_MAX_CHUNKS;
}

/**
 * scrub_init_cpus() - the per-CPU arrays and the chunk table, from bootmem.
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
	chunks_from_bootmem();
}

uint32_t scrubbed_by[MAX_NUMNODES];
unsigned int scrub_nodes;
static bool planned;
static uint64_t unit_pages; /* the cap (bootscrub_chunk); idle mode's unit */
static cpumask_t workers, idle_workers;
static uint64_t scrub_start;

/* bootscrub= words and scrub.mode (one table: parse and print). */
const struct enum_name scrub_mode_names[] = {
	{SCRUB_ON, "on"},
	{SCRUB_OFF, "off"},
	{SCRUB_IDLE, "idle"},
	ENUM_NAMES_END,
};

/** scrub_mode_name() - Return: "on", "off", "idle" (or "unknown"). */
const char *scrub_mode_name(enum scrub_mode m)
{
	return enum_name(scrub_mode_names, m);
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

/* *@p = min(*@p, @v), atomically. */
static void atomic_min64(uint64_t *p, uint64_t v)
{
	uint64_t cur = atomic_load_relaxed(p);

	while (v < cur && !atomic_cmpxchg(p, &cur, v))
		;
}

/* *@p = max(*@p, @v), atomically. */
static void atomic_max64(uint64_t *p, uint64_t v)
{
	uint64_t cur = atomic_load_relaxed(p);

	while (v > cur && !atomic_cmpxchg(p, &cur, v))
		;
}

/*
 * Zero and clean [va, va+bytes) with the selected primitive, or, when the
 * calibration makes this unit a sample, its first SCRUB_PROBE_BYTES with
 * the candidate it is given (common/scrub/scrub_calib.c), timed.
 * Return: true when the range is clean to PoC.
 */
static bool scrub_range(char *va, uint64_t bytes)
{
	unsigned int cand;
	int ticket = scrub_calib_claim(bytes, &cand);
	uint64_t probe, t0;

	if (ticket < 0)
		return arch_scrub_clean_range(va, bytes);
	probe = MIN(bytes, SCRUB_PROBE_BYTES);
	t0 = arch_ticks();
	scrub_prims_zero(cand, va, probe, true);
	scrub_calib_account(ticket, probe, arch_ticks() - t0);
	if (probe < bytes)
		return arch_scrub_clean_range(va + probe, bytes - probe);
	return true;
}

/*
 * Scrub [@p, @p + @pages) for @node on the calling CPU; when @count, in
 * scrub_stats (this CPU's entry, the node's, the total).
 * Return: true when the range was also cleaned to PoC.
 */
static bool scrub_pages_as(uint32_t node, pfn_t p, uint64_t pages, bool count)
{
	unsigned int cpu = arch_cpu_id();
	uint64_t bytes = pages << PAGE_SHIFT;
	struct scrub_node_work *nw = &scrub_work[node];
	uint64_t t0, t1;
	bool clean;

	trace_detail("scrub_unit", TRACE_BEGIN, node, bytes);
	t0 = arch_ticks();
	clean = scrub_range(phys_to_virt(pfn_to_paddr(p)), bytes);
	t1 = arch_ticks();
	trace_detail("scrub_unit", TRACE_END, node, bytes);
	if (!count)
		return clean;

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

/**
 * scrub_pages() - scrub [@p, @p + @pages) for @node on the calling CPU.
 * @node: the node whose statistics it counts for
 * @p: first page
 * @pages: how many
 *
 * Accounts for it in scrub_stats (this CPU's entry, the node's, the total).
 *
 * Return: true when the range was also cleaned to PoC.
 */
bool scrub_pages(uint32_t node, pfn_t p, uint64_t pages)
{
	return scrub_pages_as(node, p, pages, true);
}

/**
 * scrub_note_stopped() - the calling CPU, a boot scrub worker, quit
 * (inject=scrub-stop): in scrub_stats.stopped, atomically.
 */
void scrub_note_stopped(void)
{
	unsigned int cpu = arch_cpu_id();

	atomic_fetch_or(&scrub_stats.stopped.bits[cpu / 64],
			1ULL << (cpu % 64));
}

/* Every node's unit, from its dirty pages and the workers that start on it. */
static void size_units(void)
{
	unsigned int all = cpumask_weight(&workers), c;

	for (unsigned int n = 0; n < scrub_nodes; n++) {
		struct heap_stats st = {0};
		unsigned int w = 0;

		for_each_cpu_in (c, &workers)
			w += cpu_table[c].node == scrubbed_by[n];
		heap_stats(n, 0, &st); /* no such node: stays 0 */
		scrub_work[n].unit_pages = scrub_unit_pages(
			st.dirty_pages, w ? w : all, unit_pages);
		scrub_stats.node[n].unit_bytes = scrub_work[n].unit_pages
						 << PAGE_SHIFT;
	}
}

/* ---- idle scrub ---------------------------------------------------------- */

/*
 * Detach one dirty chunk of @node, scrub it from its first dirty page on,
 * give it back: clean to PoC only when the scrub cleaned it so and the
 * pages before were already (zero, but written by a cached store, they
 * may not have reached DRAM). @count: in scrub_stats. Return: false if
 * none.
 */
static bool idle_scrub_node(uint32_t node, bool count)
{
	unsigned int order;
	struct page_info *pg = heap_take_dirty(node, &order);
	uint64_t size, first, p;
	bool clean;

	if (!pg)
		return false;
	size = 1ull << order;
	first = pg->first_dirty;
	if (first >= size)
		first = 0; /* say dirty but no offset: scrub it all */
	clean = !first || (pg->flags & PGF_CLEAN_POC);
	p = pfn_val(page_to_pfn(pg)) + first;
	for (uint64_t done = 0; done < size - first;) {
		uint64_t n = MIN(unit_pages, size - first - done);

		clean &= scrub_pages_as(node, pfn(p + done), n, count);
		done += n;
	}
	heap_put_clean(pg, order, clean);
	return true;
}

/*
 * Scrub one dirty chunk on the calling CPU, counted when @count: the
 * CPU's own node first, then the CPU-less nodes that node stands in for,
 * then any node. Return: false when no node had a dirty chunk left.
 */
static bool step(bool count)
{
	unsigned int nodes = heap_node_count();
	uint32_t mine = cpu_table[arch_cpu_id()].node;

	if (!unit_pages)
		unit_pages = SCRUB_UNIT_DEFAULT >> PAGE_SHIFT;
	if (mine < nodes && idle_scrub_node(mine, count))
		return true;
	for (uint32_t n = 0; planned && n < nodes; n++)
		if (n != mine && scrubbed_by[n] == mine &&
		    idle_scrub_node(n, count))
			return true;
	for (uint32_t n = 0; n < nodes; n++)
		if (n != mine && idle_scrub_node(n, count))
			return true;
	return false;
}

/**
 * scrub_idle_step() - scrub one dirty chunk on the calling CPU, counted in
 * scrub_stats.
 *
 * Return: false when no node had a dirty chunk left.
 */
bool scrub_idle_step(void)
{
	return step(true);
}

/**
 * scrub_rescrub_step() - scrub_idle_step() counted nowhere (keel/scrub.h).
 *
 * Return: false when no node had a dirty chunk left.
 */
bool scrub_rescrub_step(void)
{
	return step(false);
}

/* A background scrubber of bootscrub=idle: until no chunk is dirty. */
static void idle_worker(void *arg)
{
	(void)arg;
	while (scrub_idle_step())
		;
}

/* ---- entry points -------------------------------------------------------- */

/* The run's figures, at @end: workers, idle times, node times, main nodes. */
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
		struct scrub_node_work *nw = &scrub_work[n];

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
static void check_scrub_stop_one(uint64_t cpu, void *ctx)
{
	enum scrub_mode mode = *(const enum scrub_mode *)ctx;

	if (cpu >= cpu_count ||
	    (mode == SCRUB_ON && cpumask_test(&workers, (unsigned int)cpu)))
		return;
	pr_warn("inject=scrub-stop:%llu: cpu %llu is not a boot scrub worker "
		"(bootscrub=%s), nothing injected\n",
		(unsigned long long)cpu, (unsigned long long)cpu,
		scrub_mode_name(mode));
}

static void check_scrub_stop(enum scrub_mode mode)
{
	inject_for_each(INJECT_SCRUB_STOP, check_scrub_stop_one, &mode);
}

/* A named worker that found no unit left to quit on: it did not stop. */
static void scrub_stop_missed(uint64_t cpu, void *ctx)
{
	(void)ctx;
	if (cpu >= cpu_count || !cpumask_test(&workers, (unsigned int)cpu) ||
	    cpumask_test(&scrub_stats.stopped, (unsigned int)cpu))
		return;
	pr_warn("inject=scrub-stop:%llu: cpu %llu found no unit left to quit "
		"on, nothing injected\n",
		(unsigned long long)cpu, (unsigned long long)cpu);
}

/* The calibration's results into scrub_stats (common/scrub/scrub_calib.c). */
static void take_calib(void)
{
	const struct scrub_calib_result *r = scrub_calib_result();

	memcpy(scrub_stats.calib, r->calib, sizeof(scrub_stats.calib));
	scrub_stats.calib_count = r->count;
	scrub_stats.calib_ticks = r->ticks;
	scrub_stats.choice = r->choice;
}

/* Clear the statistics and every node's work for a run of @mode. */
static void scrub_reset(enum scrub_mode mode, uint64_t unit_bytes)
{
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
		memset(&scrub_work[n], 0, sizeof(scrub_work[n]));
		spin_lock_init(&scrub_work[n].abandoned_lock);
		if (n < abandoned_rows)
			scrub_work[n].abandoned =
				abandoned_store + (uint64_t)n * cpu_count;
		scrub_work[n].first_start = UINT64_MAX;
		scrub_stats.node[n].helper_of = NUMA_NO_NODE;
	}
}

/* The plan in the statistics: who stands in for whom, who is a worker. */
static void record_plan(void)
{
	for (unsigned int n = 0; n < scrub_nodes; n++)
		if (scrubbed_by[n] != n)
			scrub_stats.node[n].helper_of = scrubbed_by[n];
	for (unsigned int c = 0; c < cpu_count; c++)
		scrub_stats.cpu[c].worker = cpumask_test(&workers, c);
}

/* bootscrub=idle: open the heap dirty, every other online CPU scrubbing. */
static void start_idle(void)
{
	smp_online_mask(&idle_workers);
	cpumask_clear_cpu(&idle_workers, arch_cpu_id());
	scrub_stats.workers = cpumask_weight(&idle_workers);
	for (unsigned int c = 0; c < cpu_count; c++)
		scrub_stats.cpu[c].worker = cpumask_test(&idle_workers, c);
	if (!scrub_stats.workers) {
		/* The boot CPU, later (scrub_wait_all_clean()). */
		scrub_stats.workers = 1;
		scrub_stats.cpu[arch_cpu_id()].worker = true;
	}
	scrub_stats.heap_ready_ticks = arch_ticks() - arch_entry_ticks;
	smp_post(&idle_workers, idle_worker, NULL);
}

/* bootscrub=on: scrub everything now, then the statistics. */
static void run_boot_scrub(void)
{
	uint64_t end;
	unsigned int c;

	scrub_stats.workers = cpumask_weight(&workers);
	trace_begin("scrub_boot");
	scrub_run_passes(&workers);
	trace_end("scrub_boot");
	scrub_calib_end();
	take_calib();
	end = arch_ticks();
	finish_stats(end);
	scrub_stats.heap_ready_ticks = end - arch_entry_ticks;
	scrub_stats.all_clean_ticks = scrub_stats.heap_ready_ticks;
	for_each_cpu_in (c, &scrub_stats.stopped) {
		if (scrub_stats.stopped_cpu < 0)
			scrub_stats.stopped_cpu = (int)c;
		pr_warn("scrub: cpu %u stopped (injected), its work was "
			"finished by the others\n",
			c);
	}
	inject_for_each(INJECT_SCRUB_STOP, scrub_stop_missed, NULL);
}

/**
 * scrub_boot() - the boot scrub for @mode (see the top of this file).
 * @mode: on, off or idle
 * @unit_bytes: work unit (bootscrub_chunk), rounded up to whole pages
 * @smt: SMT siblings scrub too
 */
void scrub_boot(enum scrub_mode mode, uint64_t unit_bytes, bool smt)
{
	scrub_reset(mode, unit_bytes);
	if (mode == SCRUB_OFF) {
		scrub_calibrate(false, scrub_stats.unit_bytes);
		take_calib();
		scrub_start = arch_ticks();
		check_scrub_stop(mode);
		scrub_stats.heap_ready_ticks = scrub_start - arch_entry_ticks;
		return;
	}

	/* arch_scrub_init() is the caller's (boot.c), before this. */
	scrub_plan(smt, &workers, scrubbed_by);
	planned = true;
	size_units();
	scrub_calibrate(true, scrub_stats.unit_bytes);
	take_calib();
	scrub_start = arch_ticks();
	record_plan();
	check_scrub_stop(mode);

	if (mode == SCRUB_IDLE)
		start_idle();
	else
		run_boot_scrub();
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
	scrub_calib_end();
	take_calib();
	end = arch_ticks();
	finish_stats(end);
	scrub_stats.all_clean_ticks = end - arch_entry_ticks;
}
