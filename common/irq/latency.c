/* SPDX-License-Identifier: MIT */
/*
 * The interrupt latency probe, latency=on (DESIGN §12, issue 23).
 *
 * One CPU (latency_cpu=, default the last online CPU of node 0) runs with
 * interrupts on and arms its timer for an absolute deadline every
 * latency_period= microseconds; the handler records entry - deadline in a
 * histogram (no per-sample log) and arms the next deadline (a deadline
 * already missed is skipped, not queued: one late sample per stall, as
 * cyclictest counts). The phases, in order, each at least
 * LAT_MIN_SAMPLES samples and LAT_MIN_MS of time:
 *   idle          the probe CPU halts between its deadlines
 *                 (arch_cpu_wait_irq()), nothing else runs;
 *   build-remote  the load runs on every other online CPU;
 *   build-local   the probe CPU runs the load itself (the interrupted work
 *                 is the allocation, the case Xen's 133 ms spike was about);
 * each build phase with cachemaint=deferred, then eager (the per-page
 * in-lock baseline). Each phase's policy is the run's own (struct
 * lat_run's maint, handed to the loads' builds through their domain_ctx),
 * set on the boot CPU between phases, every other CPU parked; its
 * counters go to the run's own sink, so the boot's mode and counters are
 * never switched nor put back.
 *
 * The load (latency.load says which ran): build-local is issue 22's
 * domain_build_local(): a LAT_DOMAIN_BYTES domain on the probe CPU's node
 * in extents of at most latency_max_order= (default MAX_ORDER: 1 GiB; 9:
 * 2 MiB), mapped into its stage-2/EPT table, then destroyed (its memory
 * dirty, so the next build zeroes it: in the heap lock when eager).
 * build-remote runs the same real domain build on every online CPU but
 * the probe's (domain_build_private(), one owner id per load CPU): the
 * command line's domain= domains dealt out over those CPUs, each on the
 * node the domains' plan gives it (domain_plan_nodes(): latency runs
 * before domains_build(), which plans and builds them again for the
 * boot), or without any, one probe-owned domain per load CPU
 * (remote_bytes()); each destroyed by the CPU that built it, so nothing
 * runs on the probe CPU. The loads build under the boot's promise about
 * free memory (bootscrub=, domains_trust=: a struct domain_ctx).
 *
 * Owns the results (latency_stats()) and the phase table; a run's state
 * (struct lat_run, made from the options latency_run() is handed) is
 * handed to every function of the run, and to the timer handler through
 * lat_attach(). The
 * handler runs on the probe CPU only and writes only the current phase's
 * histogram, which the boot CPU reads after smp_wait(): ordered by the
 * mailbox. `stop` is the one flag shared while a phase runs (atomic).
 */
#include <arch/cpu.h>
#include <arch/mm.h>
#include <keel/atomic.h>
#include <keel/cachemaint.h>
#include <keel/domain.h>
#include <keel/heap.h>
#include <keel/heap_boot.h>
#include <keel/heap_scrub.h>
#include <keel/latency.h>
#include <keel/numa.h>
#include <keel/options.h>
#include <keel/printk.h>
#include <keel/scrub.h>
#include <keel/scrub_prims.h>
#include <keel/smp.h>
#include <keel/string.h>
#include <keel/trace.h>

#include "latency_priv.h"

/* What the last latency_run() measured (latency_stats()). */
static struct latency_stats stats;
/* The run the timer handler serves (lat_attach()). */
static struct lat_run *running;

/** latency_stats() - Return: the probe's results (keel/latency.h). */
const struct latency_stats *latency_stats(void)
{
	return &stats;
}

/**
 * lat_attach() - the run whose timer irq_timer_handler() serves, NULL for
 * none. Boot CPU, before the run's first phase is posted (ordered by the
 * mailbox) and after its last one is waited for.
 */
void lat_attach(struct lat_run *r)
{
	atomic_store_release(&running, r);
}

/* The probe CPU (latency_cpu= of @o, else the last online CPU of node 0). */
static unsigned int pick_probe_cpu(const struct keel_options *o)
{
	unsigned int cpu, best = 0;

	if (o->latency_cpu != LATENCY_CPU_AUTO) {
		cpu = o->latency_cpu;
		if (cpu < cpu_count && cpu_table[cpu].online)
			return cpu;
		pr_warn("latency: latency_cpu=%u is not an online CPU, using "
			"the default\n",
			cpu);
	}
	for (cpu = 0; cpu < cpu_count; cpu++)
		if (cpu_table[cpu].online && cpu_table[cpu].node == 0)
			best = cpu;
	return best;
}

/* Log2 buckets, 4 linear steps per power of two: 25% resolution. */
unsigned int latency_bucket(uint64_t ns)
{
	unsigned int e;

	if (ns < 4)
		return (unsigned int)ns;
	e = (unsigned int)fls64(ns) - 1;
	if (e > LATENCY_MAX_LOG2)
		return LATENCY_BUCKETS - 1;
	return 4 * (e - 1) + (unsigned int)((ns >> (e - 2)) & 3);
}

/* The smallest value of bucket @b (its largest: latency_bucket_lo(b + 1) - 1). */
uint64_t latency_bucket_lo(unsigned int b)
{
	if (b < 4)
		return b;
	return (uint64_t)(4 + b % 4) << (b / 4 - 1);
}

/**
 * irq_timer_handler() - the probe's interrupt (called by the arch entry).
 * @entry: arch_ticks() at interrupt entry
 */
void irq_timer_handler(uint64_t entry)
{
	struct lat_run *r = atomic_load_acquire(&running);
	struct latency_phase *ph = r ? r->cur : NULL;
	uint64_t late, ns, next;

	if (!ph || !r->sampling || arch_cpu_id() != r->st->cpu)
		return;
	if (entry < r->deadline) {
		/* Early, or left pending by the last phase: not a sample. */
		arch_timer_arm_at(r->deadline);
		return;
	}
	late = entry - r->deadline;
	ns = ticks_to_ns(late);
	ph->hist[latency_bucket(ns)]++;
	if (!ph->samples || ns < ph->min_ns)
		ph->min_ns = ns;
	if (ns > ph->max_ns) {
		ph->max_ns = ns;
		ph->max_at = r->deadline;
	}
	ph->samples++;
	next = r->deadline + r->period;
	if (next <= entry)
		next = entry + r->period; /* missed: skip, do not queue */
	r->deadline = next;
	arch_timer_arm_at(next);
}

/*
 * This CPU's slot among the load CPUs of a build-remote phase (every
 * online CPU but the probe's): its owner id for domain_build_private().
 */
static unsigned int load_slot(const struct lat_run *r, unsigned int cpu)
{
	unsigned int slot = 0;

	for (unsigned int c = 0; c < cpu && c < cpu_count; c++)
		slot += cpu_table[c].online && c != r->st->cpu;
	return slot;
}

/*
 * One round of the build-remote load on this CPU (slot @slot of @slots):
 * the command line's domain= domains @slot, @slot + @slots, ... (each on
 * its node of the plan), or without any, one probe-owned domain of
 * remote_bytes on this CPU's node @node; each built with the real domain
 * build and destroyed on this CPU. Return: domains built.
 */
static unsigned int remote_round(struct lat_run *r, struct latency_phase *ph,
				 unsigned int slot, unsigned int slots,
				 uint32_t node)
{
	unsigned int built = 0, n = r->load_count;
	int err;

	for (unsigned int i = slot; i < n && !atomic_load_acquire(&r->stop);
	     i += slots) {
		err = domain_build_private(r->load_spec[i].bytes,
					   (int)r->load_node[i],
					   r->st->max_order, slot, &r->ctx);
		built += !err;
		if (err)
			atomic_store_relaxed(&ph->build_err, err);
	}
	if (n)
		return built;
	err = domain_build_private(r->st->remote_bytes, (int)node,
				   r->st->max_order, slot, &r->ctx);
	if (err)
		atomic_store_relaxed(&ph->build_err, err);
	return !err;
}

/* Load on this CPU until the probe says stop. */
static void load_fn(void *arg)
{
	struct lat_run *r = arg;
	struct latency_phase *ph = r->cur;
	unsigned int cpu = arch_cpu_id(), slot = load_slot(r, cpu);
	unsigned int slots = smp_online_count() - 1, built;
	uint32_t node = cpu_table[cpu].node;

	while (!atomic_load_acquire(&r->stop)) {
		built = remote_round(r, ph, slot, slots ? slots : 1, node);
		if (built)
			atomic_fetch_add(&ph->builds, built);
		else /* out of memory, or more CPUs than domain= words */
			arch_cpu_relax();
	}
}

static bool phase_done(uint64_t t0, const struct latency_phase *ph)
{
	uint64_t el = arch_ticks() - t0;

	if (ticks_to_ns(el) > LAT_MAX_MS * 1000000ull)
		return true; /* a stuck timer: report what was measured */
	return READ_ONCE(ph->samples) >= LAT_MIN_SAMPLES &&
	       ticks_to_ns(el) >= LAT_MIN_MS * 1000000ull;
}

/* The probe CPU's part of a phase. */
static void probe_fn(void *arg)
{
	struct lat_run *r = arg;
	struct latency_phase *ph = r->cur;
	uint32_t node = cpu_table[arch_cpu_id()].node;
	uint64_t t0 = arch_ticks();
	unsigned int builds = 0;
	int failed = 0;

	/*
	 * Armed and cancelled with interrupts on: the handler (this CPU)
	 * arms only while r->sampling, and then the same deadline, so
	 * nothing needs masking. Masked, each was a region of 90-200 us
	 * under QEMU TCG, where a timer register write takes QEMU's global
	 * lock: the longest of the idle phase.
	 */
	r->deadline = t0 + r->period;
	r->sampling = true;
	barrier();
	arch_timer_arm_at(r->deadline);
	/*
	 * Build on this CPU until the phase has its samples, but start no
	 * build after LAT_BUILD_MS: one eager build of a 1 GiB block can keep
	 * interrupts off for seconds under TCG, and the phase still needs its
	 * samples with interrupts on.
	 */
	while (!phase_done(t0, ph) || (ph->local && !builds)) {
		if (ph->local && !failed &&
		    (!builds || ticks_to_ns(arch_ticks() - t0) <
					LAT_BUILD_MS * 1000000ull)) {
			failed = domain_build_local(r->st->domain_bytes,
						    (int)node, r->st->max_order,
						    &r->ctx);
			builds++;
		} else if (READ_ONCE(ph->samples)) {
			/*
			 * Halt until the next deadline, as a real-time guest
			 * idles: a spinning vCPU takes a host core from the
			 * others under QEMU TCG. Only once the timer has
			 * fired: a timer that never fires must not hang.
			 */
			arch_cpu_wait_irq();
		} else {
			/*
			 * Spin without the pause hint until then: under QEMU
			 * TCG an x86 pause takes QEMU's global lock, which the
			 * emulated timer needs (first samples ms late).
			 */
			barrier();
		}
	}
	r->sampling = false;
	barrier();
	arch_timer_cancel();
	if (ph->local) { /* build-remote: the load CPUs count theirs */
		ph->builds = builds;
		ph->build_err = failed;
	}
	ph->ticks = arch_ticks() - t0;
	atomic_store_release(&r->stop, 1);
}

/*
 * The warm-up, before the first phase: one build of each phase's load,
 * not measured. Code run for the first time costs more: on hardware a
 * cold cache, under QEMU TCG its translation, tens of microseconds at a
 * branch never taken before (a heap_alloc() region of 200-270 us in the
 * first build-remote phase, 13-14 us in a second one, measured on x86_64
 * QEMU). That is no property of the heap; Xen's probe likewise keeps its
 * maximum after a warm-up. The load CPUs build one domain each as in
 * build-remote, then the probe CPU one as in build-local; a build that
 * fails only warms less.
 */
static void warm_fn(void *arg)
{
	struct lat_run *r = arg;
	unsigned int cpu = arch_cpu_id();
	int node = (int)cpu_table[cpu].node;

	if (cpu == r->st->cpu)
		domain_build_local(r->st->domain_bytes, node, r->st->max_order,
				   &r->ctx);
	else
		domain_build_private(r->st->remote_bytes, node,
				     r->st->max_order, load_slot(r, cpu),
				     &r->ctx);
}

static void warm_up(struct lat_run *r)
{
	cpumask_t load, probe;

	smp_online_mask(&load);
	cpumask_clear_cpu(&load, r->st->cpu);
	smp_run_on(&load, warm_fn, r);
	cpumask_clear(&probe);
	cpumask_set(&probe, r->st->cpu);
	smp_run_on(&probe, warm_fn, r);
}

/* One phase of @r, driven from the boot CPU. */
static void run_phase(struct lat_run *r, struct latency_phase *ph)
{
	unsigned int self = arch_cpu_id(), cpu = r->st->cpu;
	cpumask_t probe, others, all;

	r->maint = cachemaint_policy(ph->mode, &r->maint_stats);
	ph->mode = r->maint.mode;
	smp_online_mask(&all);
	cpumask_clear(&probe);
	cpumask_set(&probe, cpu);
	others = all;
	cpumask_clear_cpu(&others, cpu);
	if (!ph->remote)
		cpumask_clear(&others);
	irqsoff_reset();
	atomic_store_release(&r->stop, 0);
	r->cur = ph;
	trace_begin(ph->name);
	smp_post(&probe, probe_fn, r);
	smp_post(&others, load_fn, r);
	if (self == cpu)
		probe_fn(r);
	else if (cpumask_test(&others, self))
		load_fn(r);
	smp_wait(&all);
	trace_end(ph->name);
	r->cur = NULL;
	ph->irqsoff_max = irqsoff_max(&ph->irqsoff_site);
	ph->ran = true;
	if (ph->build_err && ph->local)
		pr_warn("latency: %s: domain_build_local(%llu MiB, node %u): "
			"%d\n",
			ph->name,
			(unsigned long long)(r->st->domain_bytes >> 20),
			cpu_table[cpu].node, ph->build_err);
	else if (ph->build_err)
		pr_warn("latency: %s: a domain build on another CPU: %d (%u "
			"built)\n",
			ph->name, ph->build_err, ph->builds);
}

struct timer_init {
	int err;
	const char *why;
};

static void timer_init_fn(void *arg)
{
	struct timer_init *t = arg;

	t->err = arch_timer_init_cpu(&t->why);
}

/* arch_timer_init_cpu() on the probe CPU. Return: its result. */
static int timer_init_on(unsigned int cpu, const char **why)
{
	struct timer_init t = {0, NULL};
	cpumask_t m;

	cpumask_clear(&m);
	cpumask_set(&m, cpu);
	smp_run_on(&m, timer_init_fn, &t);
	*why = t.why;
	return t.err;
}

/**
 * latency_init_cpus() - latency=on: the tracer's per-CPU state.
 * Call after smp_init(), before the heap handoff.
 */
void latency_init_cpus(void)
{
	irqsoff_setup(
		smp_percpu_alloc(sizeof(struct irqsoff_cpu), "irqsoff per-cpu"),
		cpu_count);
}

static void init_phases(struct latency_stats *st,
			enum cachemaint_mode boot_mode)
{
	static const char *const names[] = {"build-remote", "build-local"};
	enum cachemaint_mode modes[] = {CACHEMAINT_DEFERRED, CACHEMAINT_EAGER};
	unsigned int n = 0;

	st->phase[n++] =
		(struct latency_phase){.name = "idle", .mode = boot_mode};
	for (unsigned int i = 0; i < 2; i++)
		for (unsigned int m = 0; m < 2; m++)
			st->phase[n++] = (struct latency_phase){
				.name = names[i],
				.mode = modes[m],
				.remote = i == 0,
				.local = i == 1,
			};
	st->phase_count = n;
}

/*
 * The build-local domain: LAT_DOMAIN_BYTES, or on a node with less than
 * 1.5 times that free, half its free memory (2 MiB multiples, at least
 * 2 MiB), so that the build does not fail for want of memory.
 */
static uint64_t domain_bytes(uint32_t node)
{
	struct heap_stats st;
	uint64_t free;

	if (heap_stats(node, 0, &st))
		return 2ull << 20;
	free = st.free_pages << PAGE_SHIFT;
	if (free >= LAT_DOMAIN_BYTES + LAT_DOMAIN_BYTES / 2)
		return LAT_DOMAIN_BYTES;
	return MAX(ALIGN_DOWN(free / 2, 2ull << 20), 2ull << 20);
}

/*
 * build-remote without domain= words: one domain per load CPU, each at most
 * LAT_DOMAIN_BYTES and at most its share of half its node's free memory
 * (2 MiB multiples, at least 2 MiB): the smallest over the load CPUs.
 */
static uint64_t remote_bytes(unsigned int probe)
{
	uint64_t best = LAT_DOMAIN_BYTES;
	unsigned int cpu, c, n;

	for (cpu = 0; cpu < cpu_count; cpu++) {
		struct heap_stats st;
		uint32_t node = cpu_table[cpu].node;
		uint64_t share;

		if (!cpu_table[cpu].online || cpu == probe)
			continue;
		for (c = 0, n = 0; c < cpu_count; c++)
			n += cpu_table[c].online && c != probe &&
			     cpu_table[c].node == node;
		share = heap_stats(node, 0, &st)
				? 0
				: (st.free_pages << PAGE_SHIFT) / 2 / n;
		best = MIN(best, ALIGN_DOWN(share, 2ull << 20));
	}
	return MAX(best, 2ull << 20);
}

/*
 * The loads leave the memory they freed dirty: zero it (the boot
 * promised a clean heap), as the idle scrubber would, on this CPU.
 */
static void scrub_leftovers(void)
{
	for (uint32_t node = 0; node < numa_node_count(); node++) {
		struct page_info *pg;
		unsigned int order;

		while ((pg = heap_take_dirty(node, &order))) {
			arch_scrub_range(
				phys_to_virt(pfn_to_paddr(pfn(pg->pfn))),
				PAGE_SIZE << order);
			heap_put_clean(pg, order, false);
		}
	}
}

/*
 * The run's settings from @o: latency_period=, latency_max_order= (each
 * warned and defaulted when out of range), the probe CPU, the loads'
 * sizes, the domain= domains of build-remote on their planned nodes.
 */
static void run_setup(struct lat_run *r, const struct keel_options *o)
{
	struct latency_stats *st = r->st;
	uint32_t period_us = o->latency_period_us;

	if (period_us < LAT_PERIOD_MIN_US || period_us > LAT_PERIOD_MAX_US) {
		pr_warn("latency: latency_period=%u is outside [%u, %u] us, "
			"using 100\n",
			period_us, LAT_PERIOD_MIN_US, LAT_PERIOD_MAX_US);
		period_us = 100;
	}
	st->max_order = o->latency_max_order;
	if (st->max_order < 9 || st->max_order > MAX_ORDER) {
		pr_warn("latency: latency_max_order=%u is outside [9, %u], "
			"using %u\n",
			st->max_order, (unsigned int)MAX_ORDER,
			(unsigned int)MAX_ORDER);
		st->max_order = MAX_ORDER;
	}
	st->cpu = pick_probe_cpu(o);
	st->domain_bytes = domain_bytes(cpu_table[st->cpu].node);
	r->period = period_us * arch_ticks_hz() / 1000000;
	st->period_ns = (uint64_t)period_us * 1000;
	st->remote_bytes = remote_bytes(st->cpu);
	st->load = o->domain_count ? LAT_LOAD_CMDLINE : LAT_LOAD_PROBE;
	domain_ctx_init(&r->ctx, o, &st->domain_problems);
	/* The warm-up builds under the boot's mode; each phase its own. */
	r->maint = cachemaint_policy(heap_cachemaint()->mode, &r->maint_stats);
	r->ctx.maint = &r->maint;
	r->load_spec = o->domain;
	r->load_count = o->domain_count;
	domain_plan_nodes(o->domain, o->domain_count, r->load_node);
}

/**
 * latency_run() - latency=on: every phase, each under its own cache
 * maintenance policy (the boot's untouched).
 * @o: the boot's options (latency_*=, the domain= list, bootscrub=)
 */
void latency_run(const struct keel_options *o)
{
	/*
	 * Not on this stack: a timer interrupt taken late, as the last phase
	 * ends, must never find freed memory behind the handler's pointer.
	 */
	static struct lat_run run;
	struct lat_run *r = &run;
	const char *why = NULL;

	memset(&stats, 0, sizeof(stats));
	memset(r, 0, sizeof(*r));
	r->st = &stats;
	run_setup(r, o);
	stats.requested = true;
	stats.timer_mode = arch_timer_mode();
	if (timer_init_on(stats.cpu, &why)) {
		stats.unsupported = why;
		pr_warn("latency: no probe: %s\n", why);
		return;
	}
	init_phases(&stats, heap_cachemaint()->mode);
	lat_attach(r);
	warm_up(r);
	for (unsigned int i = 0; i < stats.phase_count; i++) {
		if (stats.phase[i].remote && smp_online_count() < 2) {
			if (stats.phase[i].mode == CACHEMAINT_DEFERRED)
				pr_info("latency: no build-remote phases: no "
					"other CPU online\n");
			continue;
		}
		run_phase(r, &stats.phase[i]);
	}
	lat_attach(NULL);
	if (o->bootscrub != SCRUB_OFF)
		scrub_leftovers();
}
