/* SPDX-License-Identifier: MIT */
/*
 * CPUs and work dispatch.
 *
 * Owns cpu_table[], its one writer: logical id 0 is the boot CPU, then the
 * usable bootinfo CPUs in bootinfo order, then the CPUs firmware marked
 * unusable (present = false, kept only so that the report can name
 * them). Starting the secondaries is common/smp/smp_boot.c's, which records
 * what it finds through smp_cpu_accepted(), smp_cpu_failed() and
 * smp_cpu_skew(); a secondary it accepted serves its mailbox here
 * (smp_serve_mailbox()).
 *
 * Sizing: cpu_table (and smp_boot.c's check-in/skew arrays) are allocated
 * from bootmem by smp_init(), one entry per CPU the firmware described
 * (after the CONFIG_NR_CPUS cap the parsers apply), never NR_CPUS entries:
 * a 4096 CPU build keeps a small .bss. Other per-CPU state comes from
 * smp_percpu_alloc() on the same count (one array), or, for state larger
 * than a small node should hold for every CPU of the machine, from
 * smp_percpu_alloc_local() (one piece per node, near its CPUs).
 *
 * Mailbox: each online secondary polls its cpu_info, sleeping in
 * arch_cpu_idle_wait() between polls (IDLE_MIN_US doubling up to
 * IDLE_MAX_US while it stays idle: under QEMU TCG hundreds of vCPU
 * threads share a few host cores, and a spinning or often-woken one
 * starves the boot CPU). The poster (the boot CPU; one poster
 * at a time) waits for done_seq == seq, writes fn and arg, publishes seq +
 * 1 with release, then wakes the CPU (arch_cpu_wake(): an IPI, an SGI, a
 * futex); the secondary runs fn(arg) and publishes done_seq = seq with
 * release. No lock: every field has a single writer.
 */
#include <arch/cpu.h>
#include <arch/irq.h>
#include <arch/mm.h>
#include <keel/atomic.h>
#include <keel/bootmem.h>
#include <keel/bug.h>
#include <keel/heap.h>
#include <keel/heap_boot.h>
#include <keel/inject.h>
#include <keel/printk.h>
#include <keel/smp.h>
#include <keel/string.h>
#include <keel/trace.h>

#include "smp_priv.h"

struct cpu_info *cpu_table;
unsigned int cpu_count;

/* The longest halt of smp_wait() without a wake-up (a lost one's cost). */
#define SMP_WAIT_SAFETY_US 1000
/* A secondary's first idle wait on an empty mailbox (arch/cpu.h's max). */
#define IDLE_MIN_US 20

/*
 * Per-CPU state of the boot CPU alone when the map leaves no free RAM at
 * all: the boot then reaches its report (KEEL: FAIL no usable RAM) rather
 * than a panic. Pages, like bootmem's pieces.
 */
#define PERCPU_POOL_PAGES  8
#define PERCPU_STATE_BYTES 4096
static uint8_t percpu_pool[PERCPU_POOL_PAGES * PAGE_SIZE]
	__attribute__((aligned(PAGE_SIZE)));
static size_t percpu_pool_used;

/**
 * smp_percpu_alloc() - a zeroed array of one @size entry per CPU.
 * @size: bytes per CPU
 * @why: the name of the bootmem reservation
 *
 * For per-CPU state sized by the CPUs firmware described (cpu_count, set
 * by smp_init()) rather than by NR_CPUS. Bootmem must still be open.
 *
 * Return: the array (direct-map address).
 */
void *smp_percpu_alloc(size_t size, const char *why)
{
	uint64_t bytes = ALIGN_UP((uint64_t)size * (cpu_count ? cpu_count : 1),
				  PAGE_SIZE);
	paddr_t at = bootmem_alloc_try(bytes, PAGE_SIZE, BOOTMEM_ANY_NODE, why);
	void *p;

	if (pa_val(at) != pa_val(INVALID_PADDR)) {
		p = phys_to_virt(at);
	} else if (bytes <= sizeof(percpu_pool) - percpu_pool_used) {
		/* No free RAM at all (smp_init() then kept one CPU). */
		p = percpu_pool + percpu_pool_used;
		percpu_pool_used += bytes;
	} else {
		panic("smp: no free RAM for %s (%llu bytes for %u CPUs)", why,
		      (unsigned long long)bytes, cpu_count);
	}
	memset(p, 0, bytes);
	return p;
}

/* CPUs per node (smp_init() numbers them: cpu_info.node_slot). */
static uint32_t node_cpus[MAX_NUMNODES];

static void number_node_slots(void)
{
	memset(node_cpus, 0, sizeof(node_cpus));
	for (unsigned int i = 0; i < cpu_count; i++)
		cpu_table[i].node_slot =
			node_cpus[smp_percpu_node(&cpu_table[i])]++;
}

/**
 * smp_percpu_alloc_local() - one zeroed object of @size bytes per CPU, in
 * one bootmem piece per node with CPUs, on that node (else the nearest
 * with room), reserved as @why. See <keel/smp.h>.
 * @pc: out: where each node's piece is
 *
 * Return: the CPUs left without an object (0: none).
 */
unsigned int smp_percpu_alloc_local(struct smp_percpu *pc, size_t size,
				    const char *why)
{
	unsigned int missing = 0;

	memset(pc, 0, sizeof(*pc));
	pc->size = ALIGN_UP(size ? size : 1, SMP_PERCPU_ALIGN);
	for (uint32_t n = 0; n < MAX_NUMNODES; n++) {
		uint64_t bytes =
			ALIGN_UP((uint64_t)pc->size * node_cpus[n], PAGE_SIZE);
		paddr_t at;

		if (!node_cpus[n])
			continue;
		at = bootmem_alloc_try(bytes, PAGE_SIZE, n, why);
		if (pa_val(at) == pa_val(INVALID_PADDR)) {
			missing += node_cpus[n];
			continue;
		}
		pc->base[n] = phys_to_virt(at);
		memset(pc->base[n], 0, bytes);
	}
	return missing;
}

/*
 * Field by field, leaving the mailbox alone: a CPU that is still parked
 * from an earlier boot of the same process (sandbox unit tests) keeps
 * seeing seq == done_seq and never runs a half-written request.
 */
static void cpu_fill(struct cpu_info *c, const struct bi_cpu *b)
{
	c->online = false;
	c->smt_sibling = false;
	c->fail_reason = NULL;
	c->tsc_skew_ticks = 0;
	c->hwid = b->hwid;
	c->node = b->node == NUMA_NO_NODE ? 0 : b->node;
	c->package = b->package;
	c->core = b->core;
	c->thread = b->thread;
	c->present = b->usable;
	if (!b->usable)
		c->fail_reason =
			b->failed ? "failed in firmware (status fail)"
				  : "disabled in firmware (hot-plug slot)";
}

/* inject= of a CPU: the first one started is 1, and only present CPUs. */
static const char *inject_cpu_problem(uint64_t cpu)
{
	if (cpu == 0)
		return "is the boot CPU, which is never started";
	if (cpu >= cpu_count)
		return "does not exist";
	if (!cpu_table[cpu].present)
		return "is disabled in firmware, never started";
	return NULL;
}

/* inject=node-cpus-fail: some CPU of the node other than the boot CPU. */
static const char *inject_node_problem(uint64_t node, unsigned int nodes)
{
	if (node >= nodes)
		return "does not exist";
	for (unsigned int cpu = 1; cpu < cpu_count; cpu++)
		if (cpu_table[cpu].present && cpu_table[cpu].node == node)
			return NULL;
	return "has no CPU to start";
}

/*
 * The inject= words naming a CPU or a node can only be checked once the
 * CPUs and nodes are known, which is here. One that would do nothing gets
 * one warning instead of passing silently (the test expecting it would
 * otherwise pass without testing anything).
 */
struct inject_check {
	enum inject_kind kind;
	const struct bootinfo *bi;
};

static void check_one_inject(uint64_t arg, void *ctx)
{
	const struct inject_check *ic = ctx;
	const char *problem = NULL, *what = "CPU";

	switch (ic->kind) {
	case INJECT_AP_TIMEOUT:
	case INJECT_CPU_ON_FAIL:
		problem = inject_cpu_problem(arg);
		break;
	case INJECT_NODE_CPUS_FAIL:
		what = "node";
		problem = inject_node_problem(arg, ic->bi->node_count);
		break;
	default: /* scrub-stop: whether it scrubs is scrub_boot()'s to check */
		if (arg >= cpu_count)
			problem = "does not exist";
		break;
	}
	if (!problem)
		return;
	pr_warn("inject=%s:%llu: %s %llu %s (%u CPUs, %u nodes), "
		"nothing injected\n",
		inject_name(ic->kind), (unsigned long long)arg, what,
		(unsigned long long)arg, problem, cpu_count,
		ic->bi->node_count);
}

static void smp_check_inject(const struct bootinfo *bi)
{
	static const enum inject_kind kinds[] = {
		INJECT_AP_TIMEOUT,
		INJECT_CPU_ON_FAIL,
		INJECT_NODE_CPUS_FAIL,
		INJECT_SCRUB_STOP,
	};

	for (unsigned int k = 0; k < ARRAY_SIZE(kinds); k++) {
		struct inject_check ic = {kinds[k], bi};

		inject_for_each(kinds[k], check_one_inject, &ic);
	}
}

/*
 * How many CPUs get per-CPU state: those described (the boot CPU alone
 * without any), capped at NR_CPUS, or the boot CPU alone when no free piece
 * holds the state of them all.
 */
static unsigned int cpus_to_keep(const struct bootinfo *bi)
{
	/*
	 * One entry per CPU described (the boot CPU alone without any):
	 * firmware tables never hold more than NR_CPUS, so this is the cap.
	 */
	unsigned int count = MIN(MAX(bi->cpu_count, 1u), (unsigned int)NR_CPUS);

	/*
	 * No free piece holds the per-CPU state of every CPU (the CPU table,
	 * scrub and stress rows: together well under PERCPU_STATE_BYTES a
	 * CPU; stacks come later, one by one): the boot CPU alone, its state
	 * in the static pool, so the boot still ends in its report.
	 */
	if (count > 1 &&
	    !bootmem_free_at_least((uint64_t)count * PERCPU_STATE_BYTES)) {
		pr_warn("smp: no free piece of %llu KiB for the state of %u "
			"CPUs: the boot CPU runs alone\n",
			(unsigned long long)count * PERCPU_STATE_BYTES >> 10,
			count);
		count = 1;
	}
	return count;
}

/*
 * cpu_table from bootinfo, up to cpu_count entries: the boot CPU (bootinfo
 * index @boot) first, then the usable CPUs, then the unusable ones.
 * Return: the entries filled.
 */
static unsigned int fill_table(const struct bootinfo *bi, unsigned int boot)
{
	unsigned int n = 0;

	if (bi->cpu_count) {
		cpu_fill(&cpu_table[n], &bi->cpus[boot]);
		/* We are running on it, whatever firmware says. */
		cpu_table[n].present = true;
		cpu_table[n].online = true;
		cpu_table[n].fail_reason = NULL;
		n++;
	} else {
		static const struct bi_cpu none = {.usable = true};

		cpu_fill(&cpu_table[0], &none);
		cpu_table[0].present = cpu_table[0].online = true;
		n = 1;
	}
	for (unsigned int pass = 0; pass < 2; pass++) {
		for (unsigned int i = 0; i < bi->cpu_count && n < cpu_count;
		     i++) {
			if (i == boot || bi->cpus[i].usable != (pass == 0))
				continue;
			cpu_fill(&cpu_table[n++], &bi->cpus[i]);
		}
	}
	return n;
}

/* Mark the SMT siblings: a lower thread of the same node, package, core. */
static void mark_smt_siblings(void)
{
	for (unsigned int i = 0; i < cpu_count; i++) {
		struct cpu_info *c = &cpu_table[i];

		for (unsigned int j = 0; j < cpu_count; j++) {
			const struct cpu_info *o = &cpu_table[j];

			if (o->node == c->node && o->package == c->package &&
			    o->core == c->core && o->thread < c->thread) {
				c->smt_sibling = true;
				break;
			}
		}
	}
}

/*
 * cpu_table and smp_boot.c's bring-up arrays for @count CPUs, in one
 * zeroed bootmem block: one reservation for the report, not eight.
 */
static void alloc_tables(unsigned int count)
{
	size_t bytes =
		(sizeof(struct cpu_info) + smp_boot_arrays_bytes() + 24) *
		count; /* +24: the carving's alignment */
	char *p = smp_percpu_alloc(bytes / count, "cpu table");

	cpu_table = (struct cpu_info *)p;
	smp_boot_arrays_carve(p + ALIGN_UP(sizeof(struct cpu_info) * count, 8),
			      count);
}

/** smp_cpu_accepted() - @cpu checked in in time: online (smp_boot.c). */
void smp_cpu_accepted(unsigned int cpu)
{
	cpu_table[cpu].online = true;
	cpu_table[cpu].fail_reason = NULL;
}

/** smp_cpu_failed() - @cpu is left out of the boot, for @reason. */
void smp_cpu_failed(unsigned int cpu, const char *reason)
{
	cpu_table[cpu].online = false;
	cpu_table[cpu].fail_reason = reason;
}

/** smp_cpu_lost() - @cpu leaves the online set, for @reason (keel/smp.h). */
void smp_cpu_lost(unsigned int cpu, const char *reason)
{
	if (cpu >= cpu_count) /* cpu_table has cpu_count entries */
		return;
	smp_cpu_failed(cpu, reason);
	/* What its heap cache holds is free memory: given back (DESIGN §15). */
	heap_drain_cpu_cache(cpu);
}

/** smp_cpu_skew() - @cpu's timer runs @ticks ahead of the boot CPU's. */
void smp_cpu_skew(unsigned int cpu, int64_t ticks)
{
	cpu_table[cpu].tsc_skew_ticks = ticks;
}

/**
 * smp_init() - fill cpu_table from bootinfo and mark SMT siblings.
 * @bi: sanitised bootinfo (at least one CPU)
 *
 * A CPU is an SMT sibling when another CPU of the same node, package and
 * core has a lower thread number. Firmware that gives no topology (all
 * zero) therefore yields no siblings, which is the safe reading. Then the
 * inject= words naming a CPU or node that would do nothing are warned.
 */
void smp_init(const struct bootinfo *bi)
{
	unsigned int boot = 0;

	for (unsigned int i = 0; i < bi->cpu_count; i++) {
		if (bi->cpus[i].boot_cpu) {
			boot = i;
			break;
		}
	}
	cpu_count = cpus_to_keep(bi);
	percpu_pool_used = 0;
	alloc_tables(cpu_count);
	cpu_count = fill_table(bi, boot);
	number_node_slots();
	trace_init_cpus(cpu_count);
	mark_smt_siblings();
	smp_check_inject(bi);
}

/**
 * smp_post() - post fn(arg) to the online CPUs of @mask, caller excluded.
 * @mask: target CPUs
 * @fn: the work
 * @arg: its argument
 *
 * Waits for each target's previous work to finish before posting.
 */
void smp_post(const cpumask_t *mask, void (*fn)(void *), void *arg)
{
	unsigned int self = arch_cpu_id(), cpu;

	for_each_cpu_in (cpu, mask) {
		struct cpu_info *c = &cpu_table[cpu];
		uint32_t seq;

		if (cpu == self || cpu >= cpu_count || !c->online)
			continue;
		while ((seq = atomic_load_relaxed(&c->seq)) !=
		       atomic_load_acquire(&c->done_seq))
			arch_cpu_relax();
		c->fn = fn;
		c->arg = arg;
		atomic_store_release(&c->seq, seq + 1);
		arch_cpu_wake(cpu, c->hwid);
	}
}

/*
 * The CPU in smp_wait() (logical id + 1; 0: none). smp_wait() sets it and
 * then checks the mailboxes; a secondary publishes done_seq and then
 * reads it (wake_waiter()). All four accesses are sequentially
 * consistent, so either the waiter sees the work done or the secondary
 * sees the waiter and wakes it.
 */
static uint32_t smp_waiter;

/*
 * A secondary just published done_seq: wake the CPU waiting in
 * smp_wait(), if any (a wake-up it does not need ends one of its waits
 * early; it then checks again).
 */
static void wake_waiter(void)
{
	uint32_t w = atomic_load_seq_cst(&smp_waiter);

	if (w && w - 1 < cpu_count)
		arch_cpu_wake(w - 1, cpu_table[w - 1].hwid);
}

/*
 * The mailbox's sequence number, after one idle wait of at most @us when
 * it holds nothing new. Interrupts are masked from the check to the end
 * of the wait (the arch's halt unmasks them atomically): a wake-up taken
 * between the check and the halt would be lost, and the halt would last
 * until its timer. Raw masking: a halt is not an interrupts-off region.
 */
static uint32_t mailbox_wait(struct cpu_info *c, uint32_t us)
{
	irqflags_t f = arch_irq_save();
	uint32_t seq = atomic_load_acquire(&c->seq);

	if (seq == c->done_seq)
		arch_cpu_idle_wait(us);
	arch_irq_restore(f);
	return seq;
}

/**
 * smp_serve_mailbox() - the life of secondary @cpu once accepted (its
 * interrupts on): run each function posted to its mailbox, publish that
 * it is done, wake the waiter; idle waits between, IDLE_MIN_US doubling
 * up to IDLE_MAX_US while nothing comes.
 */
void smp_serve_mailbox(unsigned int cpu)
{
	struct cpu_info *c = &cpu_table[cpu];
	uint32_t seq, us;

	for (;;) {
		us = IDLE_MIN_US;
		while ((seq = mailbox_wait(c, us)) == c->done_seq)
			us = MIN(2 * us, IDLE_MAX_US);
		c->fn(c->arg);
		/* Sequentially consistent: wake_waiter()'s handshake. */
		atomic_store_seq_cst(&c->done_seq, seq);
		wake_waiter();
	}
}

/* Has every online CPU of @mask but @self finished its posted work? */
static bool all_done(const cpumask_t *mask, unsigned int self)
{
	unsigned int cpu;

	for_each_cpu_in (cpu, mask) {
		struct cpu_info *c = &cpu_table[cpu];

		if (cpu == self || cpu >= cpu_count || !c->online)
			continue;
		if (atomic_load_seq_cst(&c->done_seq) !=
		    atomic_load_relaxed(&c->seq))
			return false;
	}
	return true;
}

/**
 * smp_wait() - wait until the online CPUs of @mask (caller excluded) are idle.
 * @mask: CPUs to wait for
 *
 * The caller halts (arch_cpu_idle_wait(), interrupts masked from the check
 * to the halt) until the last of them wakes it: a spinning boot CPU costs
 * a host core under QEMU TCG, and on x86 each pause there takes QEMU's
 * global lock, which delays the others' interrupts by milliseconds. The
 * idle timer (SMP_WAIT_SAFETY_US) is only a safety net.
 */
void smp_wait(const cpumask_t *mask)
{
	unsigned int self = arch_cpu_id();
	irqflags_t f;

	if (all_done(mask, self))
		return;
	atomic_store_seq_cst(&smp_waiter, self + 1);
	for (;;) {
		f = arch_irq_save();
		if (all_done(mask, self)) {
			arch_irq_restore(f);
			break;
		}
		arch_cpu_idle_wait(SMP_WAIT_SAFETY_US);
		arch_irq_restore(f);
	}
	atomic_store_relaxed(&smp_waiter, 0);
}

/* The first online CPU of @mask but @self with work not done; NR_CPUS. */
static unsigned int first_busy(const cpumask_t *mask, unsigned int self)
{
	unsigned int cpu;

	for_each_cpu_in (cpu, mask) {
		struct cpu_info *c = &cpu_table[cpu];

		if (cpu != self && cpu < cpu_count && c->online &&
		    atomic_load_seq_cst(&c->done_seq) !=
			    atomic_load_relaxed(&c->seq))
			return cpu;
	}
	return NR_CPUS;
}

/** smp_cpu_idle() - Return: @cpu has no work posted and not done. */
bool smp_cpu_idle(unsigned int cpu)
{
	return cpu >= cpu_count ||
	       atomic_load_seq_cst(&cpu_table[cpu].done_seq) ==
		       atomic_load_relaxed(&cpu_table[cpu].seq);
}

/**
 * smp_wait_until() - smp_wait(), bounded: a live update's freeze waits for
 * nothing without a bound (<keel/smp.h>).
 * @mask: CPUs to wait for (caller excluded)
 * @deadline: arch_ticks() value
 * @busy: out (may be NULL): the first CPU still busy at @deadline
 *
 * Return: true when every CPU of @mask is idle.
 */
bool smp_wait_until(const cpumask_t *mask, uint64_t deadline,
		    unsigned int *busy)
{
	unsigned int self = arch_cpu_id(), cpu = NR_CPUS;
	irqflags_t f;

	atomic_store_seq_cst(&smp_waiter, self + 1);
	for (;;) {
		f = arch_irq_save();
		cpu = first_busy(mask, self);
		if (cpu >= NR_CPUS || arch_ticks() >= deadline) {
			arch_irq_restore(f);
			break;
		}
		arch_cpu_idle_wait(SMP_WAIT_SAFETY_US);
		arch_irq_restore(f);
	}
	atomic_store_relaxed(&smp_waiter, 0);
	if (busy)
		*busy = cpu;
	return cpu >= NR_CPUS;
}

/**
 * smp_run_on() - run fn(arg) on the online CPUs of @mask and wait.
 * @mask: target CPUs (the caller runs it too when it is in the set)
 * @fn: the work
 * @arg: its argument
 */
void smp_run_on(const cpumask_t *mask, void (*fn)(void *), void *arg)
{
	unsigned int self = arch_cpu_id();

	smp_post(mask, fn, arg);
	if (self < cpu_count && cpumask_test(mask, self))
		fn(arg);
	smp_wait(mask);
}

/**
 * smp_online_mask() - the CPUs that checked in (boot CPU included).
 * @out: filled
 */
void smp_online_mask(cpumask_t *out)
{
	cpumask_clear(out);
	for (unsigned int i = 0; i < cpu_count; i++)
		if (cpu_table[i].online)
			cpumask_set(out, i);
}

/**
 * smp_online_count() - number of online CPUs.
 *
 * Return: at least 1 once smp_init() ran.
 */
unsigned int smp_online_count(void)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < cpu_count; i++)
		n += cpu_table[i].online;
	return n;
}

const struct enum_name smp_start_names[] = {
	{SMP_START_PARALLEL, "parallel"},
	{SMP_START_SERIAL, "serial"},
	ENUM_NAMES_END,
};
