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
 * in-lock baseline). The mode is switched on the boot CPU between phases,
 * every other CPU parked and the no_flush batch empty, and the boot's own
 * mode and counters are put back at the end.
 *
 * The load (latency.load says which ran): build-local is issue 22's
 * domain_build_local(): a LAT_DOMAIN_BYTES domain on the probe CPU's node
 * in extents of at most latency_max_order= (default MAX_ORDER: 1 GiB; 9:
 * 2 MiB), mapped into its stage-2/EPT table, then destroyed (its memory
 * dirty, so the next build zeroes it: in the heap lock when eager).
 * build-remote runs the same real domain build on every online CPU but
 * the probe's (domain_build_private(), one owner id per load CPU): the
 * command line's domain= domains dealt out over those CPUs (latency runs
 * before domains_build(), which builds them again for the boot), or
 * without any, one probe-owned domain per load CPU (remote_bytes()); each
 * destroyed by the CPU that built it, so nothing runs on the probe CPU.
 *
 * Owns the probe state (lat) and the phase table. The handler runs on the
 * probe CPU only and writes only the current phase's histogram, which the
 * boot CPU reads after smp_wait(): ordered by the mailbox. `stop` is the
 * one flag shared while a phase runs (atomic).
 */
#include <arch/cpu.h>
#include <arch/mm.h>
#include <arch/scrub.h>
#include <keel/atomic.h>
#include <keel/cachemaint.h>
#include <keel/domain.h>
#include <keel/heap.h>
#include <keel/heap_scrub.h>
#include <keel/latency.h>
#include <keel/numa.h>
#include <keel/options.h>
#include <keel/printk.h>
#include <keel/smp.h>
#include <keel/trace.h>

#include "latency_priv.h"

struct lat_state lat;
/* The options latency_run() was given (latency_cpu=, the domain= list). */
static const struct keel_options *lo;

/* The probe CPU (latency_cpu=, else the last online CPU of node 0). */
static unsigned int pick_probe_cpu(void)
{
	unsigned int cpu, best = 0;

	if (lo->latency_cpu != LATENCY_CPU_AUTO) {
		cpu = lo->latency_cpu;
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
unsigned int lat_bucket(uint64_t ns)
{
	unsigned int e;

	if (ns < 4)
		return (unsigned int)ns;
	e = (unsigned int)fls64(ns) - 1;
	if (e > LAT_MAX_LOG2)
		return LAT_BUCKETS - 1;
	return 4 * (e - 1) + (unsigned int)((ns >> (e - 2)) & 3);
}

/* The smallest value of bucket @b (its largest: lat_bucket_lo(b + 1) - 1). */
uint64_t lat_bucket_lo(unsigned int b)
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
	struct lat_phase *ph = lat.cur;
	uint64_t late, ns, next;

	if (!ph || !lat.sampling || arch_cpu_id() != lat.cpu)
		return;
	if (entry < lat.deadline) {
		/* Early, or left pending by the last phase: not a sample. */
		arch_timer_arm_at(lat.deadline);
		return;
	}
	late = entry - lat.deadline;
	ns = ticks_to_ns(late);
	ph->hist[lat_bucket(ns)]++;
	if (!ph->samples || ns < ph->min_ns)
		ph->min_ns = ns;
	if (ns > ph->max_ns) {
		ph->max_ns = ns;
		ph->max_at = lat.deadline;
	}
	ph->samples++;
	next = lat.deadline + lat.period;
	if (next <= entry)
		next = entry + lat.period; /* missed: skip, do not queue */
	lat.deadline = next;
	arch_timer_arm_at(next);
}

/*
 * This CPU's slot among the load CPUs of a build-remote phase (every
 * online CPU but the probe's): its owner id for domain_build_private().
 */
static unsigned int load_slot(unsigned int cpu)
{
	unsigned int slot = 0;

	for (unsigned int c = 0; c < cpu && c < cpu_count; c++)
		slot += cpu_table[c].online && c != lat.cpu;
	return slot;
}

/*
 * One round of the build-remote load on this CPU (slot @slot of @slots):
 * the command line's domain= domains @slot, @slot + @slots, ... (its node,
 * else this CPU's), or without any, one probe-owned domain of
 * lat.remote_bytes on this CPU's node; each built with the real domain
 * build and destroyed on this CPU. Return: domains built.
 */
static unsigned int remote_round(struct lat_phase *ph, unsigned int slot,
				 unsigned int slots, uint32_t node)
{
	unsigned int built = 0, n = lo->domain_count;
	int err;

	for (unsigned int i = slot; i < n && !atomic_load_acquire(&lat.stop);
	     i += slots) {
		const struct domain_spec *s = &lo->domain[i];

		err = domain_build_private(s->bytes,
					   s->node >= 0 ? s->node : (int)node,
					   lat.max_order, slot);
		built += !err;
		if (err)
			atomic_store_relaxed(&ph->build_err, err);
	}
	if (n)
		return built;
	err = domain_build_private(lat.remote_bytes, (int)node, lat.max_order,
				   slot);
	if (err)
		atomic_store_relaxed(&ph->build_err, err);
	return !err;
}

/* Load on this CPU until the probe says stop. */
static void load_fn(void *arg)
{
	struct lat_phase *ph = arg;
	unsigned int cpu = arch_cpu_id(), slot = load_slot(cpu);
	unsigned int slots = smp_online_count() - 1, built;
	uint32_t node = cpu_table[cpu].node;

	while (!atomic_load_acquire(&lat.stop)) {
		built = remote_round(ph, slot, slots ? slots : 1, node);
		if (built)
			atomic_fetch_add(&ph->builds, built);
		else /* out of memory, or more CPUs than domain= words */
			arch_cpu_relax();
	}
}

static bool phase_done(uint64_t t0, const struct lat_phase *ph)
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
	struct lat_phase *ph = arg;
	uint32_t node = cpu_table[arch_cpu_id()].node;
	uint64_t t0 = arch_ticks();
	unsigned int builds = 0;
	int failed = 0;

	/*
	 * Armed and cancelled with interrupts on: the handler (this CPU)
	 * arms only while lat.sampling, and then the same deadline, so
	 * nothing needs masking. Masked, each was a region of 90-200 us
	 * under QEMU TCG, where a timer register write takes QEMU's global
	 * lock: the longest of the idle phase.
	 */
	lat.deadline = t0 + lat.period;
	lat.sampling = true;
	barrier();
	arch_timer_arm_at(lat.deadline);
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
			failed = domain_build_local(lat.domain_bytes, (int)node,
						    lat.max_order);
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
	lat.sampling = false;
	barrier();
	arch_timer_cancel();
	if (ph->local) { /* build-remote: the load CPUs count theirs */
		ph->builds = builds;
		ph->build_err = failed;
	}
	ph->ticks = arch_ticks() - t0;
	atomic_store_release(&lat.stop, 1);
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
	unsigned int cpu = arch_cpu_id();
	int node = (int)cpu_table[cpu].node;

	(void)arg;
	if (cpu == lat.cpu)
		domain_build_local(lat.domain_bytes, node, lat.max_order);
	else
		domain_build_private(lat.remote_bytes, node, lat.max_order,
				     load_slot(cpu));
}

static void warm_up(void)
{
	cpumask_t load, probe;

	smp_online_mask(&load);
	cpumask_clear_cpu(&load, lat.cpu);
	smp_run_on(&load, warm_fn, NULL);
	cpumask_clear(&probe);
	cpumask_set(&probe, lat.cpu);
	smp_run_on(&probe, warm_fn, NULL);
}

/* One phase, driven from the boot CPU. */
static void run_phase(struct lat_phase *ph)
{
	unsigned int self = arch_cpu_id();
	cpumask_t probe, others, all;

	cachemaint_flush_batch();
	cachemaint_init(ph->mode);
	ph->mode = cachemaint_mode();
	smp_online_mask(&all);
	cpumask_clear(&probe);
	cpumask_set(&probe, lat.cpu);
	others = all;
	cpumask_clear_cpu(&others, lat.cpu);
	if (!ph->remote)
		cpumask_clear(&others);
	irqsoff_reset();
	atomic_store_release(&lat.stop, 0);
	lat.cur = ph;
	trace_begin(ph->name);
	smp_post(&probe, probe_fn, ph);
	smp_post(&others, load_fn, ph);
	if (self == lat.cpu)
		probe_fn(ph);
	else if (cpumask_test(&others, self))
		load_fn(ph);
	smp_wait(&all);
	trace_end(ph->name);
	lat.cur = NULL;
	ph->irqsoff_max = irqsoff_max(&ph->irqsoff_site);
	ph->ran = true;
	if (ph->build_err && ph->local)
		pr_warn("latency: %s: domain_build_local(%llu MiB, node %u): "
			"%d\n",
			ph->name, (unsigned long long)(lat.domain_bytes >> 20),
			cpu_table[lat.cpu].node, ph->build_err);
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

static void init_phases(void)
{
	static const char *const names[] = {"build-remote", "build-local"};
	enum cachemaint_mode modes[] = {CACHEMAINT_DEFERRED, CACHEMAINT_EAGER};
	unsigned int n = 0;

	lat.phase[n++] =
		(struct lat_phase){.name = "idle", .mode = lat.boot_mode};
	for (unsigned int i = 0; i < 2; i++)
		for (unsigned int m = 0; m < 2; m++)
			lat.phase[n++] = (struct lat_phase){
				.name = names[i],
				.mode = modes[m],
				.remote = i == 0,
				.local = i == 1,
			};
	lat.phase_count = n;
}

/*
 * The build-local domain: LAT_DOMAIN_BYTES, or on a node with less than
 * 1.5 times that free, half its free memory (2 MiB multiples, at least
 * 2 MiB), so that the build does not fail for want of memory.
 */
static uint64_t domain_bytes(uint32_t node)
{
	struct heap_node_stats st;
	uint64_t free;

	if (heap_node_stats(node, &st))
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
static uint64_t remote_bytes(void)
{
	uint64_t best = LAT_DOMAIN_BYTES;
	unsigned int cpu, c, n;

	for (cpu = 0; cpu < cpu_count; cpu++) {
		struct heap_node_stats st;
		uint32_t node = cpu_table[cpu].node;
		uint64_t share;

		if (!cpu_table[cpu].online || cpu == lat.cpu)
			continue;
		for (c = 0, n = 0; c < cpu_count; c++)
			n += cpu_table[c].online && c != lat.cpu &&
			     cpu_table[c].node == node;
		share = heap_node_stats(node, &st)
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

/**
 * latency_run() - latency=on: every phase, then the boot's cachemaint mode
 * and counters back.
 * @o: the boot's options (latency_*=, the domain= list, bootscrub=)
 */
void latency_run(const struct keel_options *o)
{
	struct cachemaint_stats saved = cachemaint_stats;
	uint32_t period_us = o->latency_period_us;
	const char *why = NULL;

	lo = o;
	if (period_us < LAT_PERIOD_MIN_US || period_us > LAT_PERIOD_MAX_US) {
		pr_warn("latency: latency_period=%u is outside [%u, %u] us, "
			"using 100\n",
			period_us, LAT_PERIOD_MIN_US, LAT_PERIOD_MAX_US);
		period_us = 100;
	}
	lat.max_order = o->latency_max_order;
	if (lat.max_order < 9 || lat.max_order > MAX_ORDER) {
		pr_warn("latency: latency_max_order=%u is outside [9, %u], "
			"using %u\n",
			lat.max_order, (unsigned int)MAX_ORDER,
			(unsigned int)MAX_ORDER);
		lat.max_order = MAX_ORDER;
	}
	lat.cpu = pick_probe_cpu();
	lat.domain_bytes = domain_bytes(cpu_table[lat.cpu].node);
	lat.period = period_us * arch_ticks_hz() / 1000000;
	lat.period_ns = (uint64_t)period_us * 1000;
	lat.remote_bytes = remote_bytes();
	lat.load = o->domain_count ? LAT_LOAD_CMDLINE : LAT_LOAD_PROBE;
	lat.boot_mode = cachemaint_mode();
	lat.requested = true;
	lat.timer_mode = arch_timer_mode();
	if (timer_init_on(lat.cpu, &why)) {
		lat.unsupported = why;
		pr_warn("latency: no probe: %s\n", why);
		return;
	}
	init_phases();
	warm_up();
	for (unsigned int i = 0; i < lat.phase_count; i++) {
		if (lat.phase[i].remote && smp_online_count() < 2) {
			if (lat.phase[i].mode == CACHEMAINT_DEFERRED)
				pr_info("latency: no build-remote phases: no "
					"other CPU online\n");
			continue;
		}
		run_phase(&lat.phase[i]);
	}
	cachemaint_flush_batch();
	cachemaint_init(lat.boot_mode);
	cachemaint_stats = saved;
	if (o->bootscrub != SCRUB_OFF)
		scrub_leftovers();
}
