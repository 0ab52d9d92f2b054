/* SPDX-License-Identifier: MIT */
/*
 * The boot scrub's work (bootscrub=on): how the dirty chunks are cut into
 * units, handed out and scrubbed, steps 2 to 4 of the boot scrub described
 * at the top of common/scrub/scrub.c (which plans and starts it).
 *
 *  2. Every node's dirty free chunks are copied into a static table
 *     (heap_for_each_free under the node lock, nothing else done there).
 *     A node's chunks are cut into units of unit_bytes that never span two
 *     chunks, numbered 0..units-1 per node. The numbers are split into
 *     SCRUB_STRIPES contiguous stripes, each with its own cursor on its
 *     own cache line: a worker claims with one atomic increment in the
 *     stripe of its CPU id, and moves to the next stripe when that one is
 *     empty, so hundreds of workers on one node do not all bounce one
 *     line, and they start far apart in the node's memory. Should a node
 *     have more chunks than the table holds, the scrub runs in several
 *     passes: a chunk scrubbed in one pass is clean and not collected
 *     again.
 *  3. Each worker drains its own node, then the CPU-less nodes it stands
 *     in for, then whichever node with CPUs has the most work left: a
 *     CPU-less node is scrubbed by the workers of its nearest node only
 *     (locality; others join only in the re-runs of step 4). A unit is
 *     zeroed and cleaned to PoC by arch_scrub_clean_range() with no lock
 *     held; the last unit of a chunk (per-chunk atomic count) calls
 *     heap_mark_clean().
 *  4. A unit given up (inject=scrub-stop:N) goes to the node's abandoned
 *     list, which claimers drain once the cursor is exhausted; the boot CPU
 *     re-runs the workers (minus the quitter) until no node has work left,
 *     so no unit is ever lost.
 *
 * Owns the chunk table (scrub_chunks[]) and every node's work
 * (scrub_work[]), shared through common/scrub/scrub_priv.h. Locking: the boot
 * CPU fills the table and the stripes between runs of the workers, which
 * only read them; stripe cursors, per-chunk counts and timestamps are
 * atomics; a node's abandoned list is written under its abandoned_lock.
 */
#include <arch/cpu.h>
#include <arch/mm.h>
#include <keel/atomic.h>
#include <keel/bug.h>
#include <keel/heap_boot.h>
#include <keel/heap_check.h>
#include <keel/heap_scrub.h>
#include <keel/inject.h>
#include <keel/numa.h>
#include <keel/printk.h>
#include <keel/progress.h>
#include <keel/scrub.h>
#include <keel/smp.h>
#include <keel/spinlock.h>
#include <keel/string.h>

#include "scrub_priv.h"

static struct scrub_chunk chunks_min[SCRUB_MIN_CHUNKS];
struct scrub_chunk *scrub_chunks = chunks_min;
unsigned int scrub_chunk_cap = SCRUB_MIN_CHUNKS, scrub_chunk_used;
struct scrub_node_work scrub_work[MAX_NUMNODES];
/* The first run of a pass: CPU-less nodes are their stand-in's alone. */
static bool first_round;
/*
 * First round: a node's own workers have begun (indexed by the node whose
 * workers scrub it). Until then nobody else takes its units, so that its
 * memory is scrubbed by its own CPUs first even when the host runs those
 * CPUs late (a vCPU thread under TCG, a sandbox thread); re-runs lift it.
 */
static uint32_t own_started[MAX_NUMNODES];

/* ---- collecting chunks --------------------------------------------------- */

struct collect_ctx {
	uint32_t node;
	unsigned int limit; /* table index this node may not reach */
	bool overflow;
};

/* heap_for_each_free() callback: a dirty chunk into the table, cut in units. */
static void collect_chunk(struct page_info *head, unsigned int order,
			  unsigned int zone, void *arg)
{
	struct collect_ctx *ctx = arg;
	struct scrub_node_work *nw = &scrub_work[ctx->node];
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

/**
 * scrub_collect_pass() - fill the chunk table for one pass.
 *
 * Return: true if some chunk did not fit.
 */
bool scrub_collect_pass(void)
{
	unsigned int per_node =
		scrub_chunk_cap / (scrub_nodes ? scrub_nodes : 1);
	bool overflow = false;

	scrub_chunk_used = 0;
	for (unsigned int n = 0; n < scrub_nodes; n++) {
		struct scrub_node_work *nw = &scrub_work[n];
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

/* ---- claiming and doing units -------------------------------------------- */

/* Claim a unit of @nw: from the stripes, then the abandoned list. */
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

/* Give @unit back to @nw's abandoned list, for another worker. */
static void abandon_unit(struct scrub_node_work *nw, uint64_t unit)
{
	spin_lock(&nw->abandoned_lock);
	/* One unit per quitting CPU at most, so the array cannot overflow. */
	CHECK(nw->abandoned_count < cpu_count);
	nw->abandoned[nw->abandoned_count] = unit;
	atomic_store_release(&nw->abandoned_count, nw->abandoned_count + 1);
	spin_unlock(&nw->abandoned_lock);
}

/* Units of @nw nobody has claimed yet (cursors and abandoned list). */
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

/* The chunk that holds node-relative @unit (binary search). */
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

/* The boot scrub's console progress, driven by the boot CPU's units. */
static struct progress scrub_progress;

/* Scrub @unit of @node; the chunk's last unit marks the chunk clean. */
static void do_unit(uint32_t node, uint64_t unit)
{
	struct scrub_chunk *ch = unit_chunk(&scrub_work[node], unit);
	uint64_t up = scrub_work[node].unit_pages;
	uint64_t off = (unit - ch->first_unit) * up;
	uint64_t pages = MIN(up, ch->pages - off);

	if (!scrub_pages(node, pfn(ch->start_pfn + off), pages))
		atomic_store_relaxed(&ch->all_clean, 0);
	if (atomic_fetch_sub(&ch->remaining, 1) == 1)
		heap_mark_clean(ch->head, atomic_load_acquire(&ch->all_clean));
	if (arch_cpu_id() == 0)
		progress_update(&scrub_progress,
				atomic_load_relaxed(&scrub_stats.bytes));
}

/*
 * Drain @node. @stop: this CPU quits at its first claim (fault injection),
 * handing the unit back. Return: false when the worker must stop.
 */
static bool drain_node(uint32_t node, bool stop)
{
	struct scrub_node_work *nw = &scrub_work[node];
	uint64_t unit;

	while (claim_unit(nw, &unit)) {
		if (stop) {
			abandon_unit(nw, unit);
			scrub_note_stopped();
			return false;
		}
		do_unit(node, unit);
	}
	return true;
}

/* A worker: its node, the CPU-less nodes it stands in for, then the busiest. */
static void scrub_worker(void *arg)
{
	unsigned int cpu = arch_cpu_id();
	uint32_t mine = cpu_table[cpu].node;
	bool stop = first_round && inject_has(INJECT_SCRUB_STOP, cpu);

	(void)arg;
	if (mine < MAX_NUMNODES)
		atomic_store_release(&own_started[mine], 1);
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
			uint64_t left = work_left(&scrub_work[n]);

			/*
			 * A CPU-less node is its stand-in node's work, and a
			 * node whose own workers have not begun yet is theirs
			 * to start: only the re-runs after the first round (a
			 * stand-in quit, a node's workers never came) let
			 * anyone else in.
			 */
			if (first_round &&
			    (scrubbed_by[n] != n ||
			     !atomic_load_acquire(&own_started[n])))
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

/* Does any node have units left? */
static bool any_work_left(void)
{
	for (uint32_t n = 0; n < scrub_nodes; n++)
		if (work_left(&scrub_work[n]))
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

/* CONFIG_DEBUG: the first and last page of every unit of @ch read zero. */
static void verify_chunk(const struct scrub_chunk *ch, uint64_t up)
{
	for (uint64_t off = 0; off < ch->pages; off += up) {
		uint64_t last = MIN(off + up, ch->pages) - 1;

		verify_page(ch->start_pfn + off);
		verify_page(ch->start_pfn + last);
	}
}

/* CONFIG_DEBUG: every chunk of the pass reads zero where checked. */
static void verify_pass(void)
{
	for (unsigned int n = 0; n < scrub_nodes; n++) {
		const struct scrub_node_work *nw = &scrub_work[n];

		for (unsigned int i = nw->first_chunk;
		     i < nw->first_chunk + nw->chunk_count; i++)
			verify_chunk(&scrub_chunks[i], nw->unit_pages);
	}
}

/**
 * scrub_run_passes() - the boot scrub proper: passes until all is clean.
 * @workers: the CPUs of the plan (scrub_plan())
 *
 * Each pass collects what the chunk table holds, runs @workers on it, then
 * re-runs them (minus a quitter) until no node has work left.
 */
void scrub_run_passes(const cpumask_t *workers)
{
	unsigned int passes = 0;
	bool more;

	progress_begin(&scrub_progress, "scrub",
		       scrub_stats.bytes +
			       (heap_stats_all(0).dirty_pages << PAGE_SHIFT));
	do {
		uint64_t before = scrub_stats.bytes;
		cpumask_t again = *workers;

		more = scrub_collect_pass();
		if (!scrub_chunk_used)
			break;
		first_round = passes == 0;
		memset(own_started, 0, sizeof(own_started));
		smp_run_on(workers, scrub_worker, NULL);
		first_round = false;
		/* Units the quitters handed back and nobody took. */
		for (unsigned int w = 0; w < CPUMASK_WORDS; w++)
			again.bits[w] &= ~scrub_stats.stopped.bits[w];
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
