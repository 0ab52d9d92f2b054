/* SPDX-License-Identifier: MIT */
/*
 * Bringing the secondary CPUs up, and their life afterwards.
 *
 * Bring-up (smp_boot_cpus()): with smp_start=parallel every present
 * secondary is asked to start, each without waiting for the one before
 * (arch_cpu_start(), then one arch_cpu_start_commit()), and all are waited
 * for against one deadline: N dead CPUs cost one ap_timeout_ms, not N. A
 * CPU whose clock starts late (a sandbox thread the host has not run yet,
 * arch_cpu_clock_start()) gets its own deadline from when it runs.
 * smp_start=serial starts and waits for one CPU at a time (the baseline
 * of the benchmarks). A secondary announces itself in checked_in[], with
 * the hardware id it reads from its own registers (hwid_seen[]), and only
 * the boot CPU marks it online, after seeing the check-in before the
 * deadline. So a CPU that checks in late is never counted: it waits for
 * an acceptance that never comes and stays parked. What the bring-up
 * finds (online, why not, the timer skew) is recorded in cpu_table
 * through common/smp/smp.c, cpu_table's one writer (smp_cpu_accepted(),
 * smp_cpu_failed(), smp_cpu_skew()).
 *
 * Sizing: the bring-up arrays share cpu_table's bootmem block (smp.c
 * allocates it at smp_init(), smp_boot_arrays_carve() cuts them out), one
 * entry per CPU described, never NR_CPUS entries.
 *
 * After acceptance a secondary serves its mailbox (common/smp/smp.c posts to
 * it and runs it: smp_serve_mailbox()). Idle: a secondary with nothing to
 * do (not yet accepted) waits in arch_cpu_idle_wait() until the boot CPU
 * wakes it (arch_cpu_wake(): an IPI, an SGI, a futex), with a timer as a
 * safety net: under QEMU TCG hundreds of vCPU threads share a few host
 * cores, and a spinning or often-woken one starves the boot CPU.
 *
 * Lock: none. Every array entry has a single writer (the secondary or the
 * boot CPU, as marked), published with release and read with acquire.
 */
#include <arch/cpu.h>
#include <arch/irq.h>
#include <arch/mm.h>
#include <arch/smp.h>
#include <keel/atomic.h>
#include <keel/bootmem.h>
#include <keel/inject.h>
#include <keel/printk.h>
#include <keel/smp.h>
#include <keel/trace.h>

#include "smp_priv.h"

/* Written by the secondary: 1 = alive. */
static uint32_t *checked_in;
/* Written by the secondary at check-in: arch_cpu_hwid(). */
static uint64_t *hwid_seen;
/* Written by the boot CPU: its ticks at acceptance (0 = not accepted). */
static uint64_t *accept_ticks;
/* Boot CPU only: 1 while started and not yet accepted or given up. */
static uint8_t *starting;
/* Boot CPU only: the first start request, the last check-in seen. */
static uint64_t first_start, last_up;
/*
 * Timer skew probe (smp_measure_skews(), any time after the bring-up: a
 * live update's new image runs it after the downtime), one CPU at a time,
 * posted to its mailbox (skew_answer()): the boot CPU stamps t0 and posts
 * round r in skew_ping; the secondary stamps skew_stamp and echoes r in
 * skew_pong; the boot CPU stamps t2. skew = stamp - (t0 + t2) / 2, within
 * +-(t2 - t0) / 2; the round with the shortest round trip is kept. A ping
 * beyond SKEW_ROUNDS tells the secondary to stop (the boot CPU gave up).
 */
#define SKEW_ROUNDS 16

static uint32_t *skew_ping;
static uint32_t *skew_pong;
static uint64_t *skew_stamp;

/* Carve @size bytes (8-byte aligned) from *@p. */
static void *carve(char **p, size_t size)
{
	void *r = *p;

	*p += ALIGN_UP(size, 8);
	return r;
}

/** smp_boot_arrays_bytes() - Return: the bring-up arrays' bytes per CPU. */
size_t smp_boot_arrays_bytes(void)
{
	return 3 * sizeof(uint32_t) + 3 * sizeof(uint64_t) + 1;
}

/**
 * smp_boot_arrays_carve() - the bring-up arrays for @count CPUs, cut from
 * @p (zeroed, smp_boot_arrays_bytes() * @count bytes plus 24 of carve()
 * alignment; the rest of cpu_table's block, smp.c).
 */
void smp_boot_arrays_carve(char *p, unsigned int count)
{
	accept_ticks = carve(&p, sizeof(uint64_t) * count);
	skew_stamp = carve(&p, sizeof(uint64_t) * count);
	hwid_seen = carve(&p, sizeof(uint64_t) * count);
	checked_in = carve(&p, sizeof(uint32_t) * count);
	skew_ping = carve(&p, sizeof(uint32_t) * count);
	skew_pong = carve(&p, sizeof(uint32_t) * count);
	starting = carve(&p, count);
	first_start = last_up = 0;
}

/**
 * smp_bringup_ns() - from the first start request to the last check-in.
 * Return: ns, 0 when no secondary checked in.
 */
uint64_t smp_bringup_ns(void)
{
	return last_up > first_start && first_start
		       ? ticks_to_ns(last_up - first_start)
		       : 0;
}

/**
 * smp_cpu_up_ns() - when @cpu's check-in was seen, since the first start.
 * @cpu: logical id
 * @ns: set when the function returns true
 * Return: false for the boot CPU and the CPUs that are not online.
 */
bool smp_cpu_up_ns(unsigned int cpu, uint64_t *ns)
{
	if (!cpu || cpu >= cpu_count || !cpu_table[cpu].online ||
	    !accept_ticks[cpu])
		return false;
	*ns = ticks_to_ns(accept_ticks[cpu] - first_start);
	return true;
}

/**
 * smp_cpu_hwid_seen() - the hardware id @cpu read from its own registers
 * at check-in.
 * @cpu: logical id
 * @hwid: set when the function returns true
 * Return: false for the boot CPU (never started) and the CPUs that are
 * not online.
 */
bool smp_cpu_hwid_seen(unsigned int cpu, uint64_t *hwid)
{
	if (!cpu || cpu >= cpu_count || !cpu_table[cpu].online)
		return false;
	*hwid = hwid_seen[cpu];
	return true;
}

/* Does fault injection keep @cpu from checking in? */
static bool cpu_injected_silent(unsigned int cpu)
{
	if (inject_has(INJECT_AP_TIMEOUT, cpu))
		return true;
	return cpu != 0 &&
	       inject_has(INJECT_NODE_CPUS_FAIL, cpu_table[cpu].node);
}

/* A CPU that takes no part: idle forever, never spinning. */
static __noreturn void cpu_park_forever(void)
{
	for (;;)
		arch_cpu_idle_wait(IDLE_MAX_US);
}

/**
 * smp_secondary_main() - the arch-neutral life of a secondary CPU.
 * @cpu: its logical id
 *
 * Checks in, waits to be accepted, then serves its mailbox forever (the
 * timer skew probe comes through it: skew_answer()).
 */
void smp_secondary_main(unsigned int cpu)
{
	if (cpu >= cpu_count || cpu_injected_silent(cpu))
		cpu_park_forever();

	atomic_store_relaxed(&hwid_seen[cpu], arch_cpu_hwid());
	atomic_store_release(&checked_in[cpu], 1);
	/*
	 * The boot CPU may be busy with other CPUs: sleep until it wakes us
	 * (arch_cpu_wake() with the first post to our mailbox, after the
	 * acceptance); the timer is only a safety net, as short waits would
	 * have every starting CPU wake every few us.
	 */
	while (!atomic_load_acquire(&accept_ticks[cpu]))
		arch_cpu_idle_wait(IDLE_MAX_US);

	/* From here on this CPU runs with interrupts on (<arch/irq.h>). */
	arch_irq_enable();
	smp_serve_mailbox(cpu);
}

/* Wait until *@flag reads @v. Return: false at @deadline (ticks). */
static bool wait_flag_value(uint32_t *flag, uint32_t v, uint64_t deadline)
{
	while (atomic_load_acquire(flag) != v) {
		if (arch_ticks() >= deadline)
			return false;
		arch_cpu_relax();
	}
	return true;
}

/* The secondary's side of the skew probe (posted by measure_skew()). */
static void skew_answer(void *arg)
{
	unsigned int cpu = arch_cpu_id();
	uint32_t ping;

	(void)arg;
	for (uint32_t r = 1; r <= SKEW_ROUNDS; r++) {
		/* The boot CPU pings at once: each round is a round trip. */
		while ((ping = atomic_load_acquire(&skew_ping[cpu])) < r)
			arch_cpu_relax();
		if (ping > SKEW_ROUNDS)
			break;
		atomic_store_relaxed(&skew_stamp[cpu], arch_ticks());
		atomic_store_release(&skew_pong[cpu], r);
	}
}

/*
 * The boot CPU's side of the skew probe of @cpu (see skew_ping). Only
 * informative: a secondary too slow to answer keeps skew 0.
 */
static void measure_skew(unsigned int cpu, uint64_t deadline)
{
	uint64_t best_rtt = UINT64_MAX;
	int64_t skew = 0;
	cpumask_t one;

	cpumask_clear(&one);
	cpumask_set(&one, cpu);
	atomic_store_relaxed(&skew_pong[cpu], 0);
	for (uint32_t r = 1; r <= SKEW_ROUNDS; r++) {
		uint64_t t0 = arch_ticks(), t2;

		atomic_store_release(&skew_ping[cpu], r);
		if (r == 1)
			smp_post(&one, skew_answer, NULL); /* wakes it */
		if (!wait_flag_value(&skew_pong[cpu], r, deadline)) {
			atomic_store_release(&skew_ping[cpu], SKEW_ROUNDS + 1);
			return;
		}
		t2 = arch_ticks();
		if (t2 - t0 < best_rtt) {
			uint64_t stamp = atomic_load_relaxed(&skew_stamp[cpu]);

			best_rtt = t2 - t0;
			skew = (int64_t)(stamp - (t0 + best_rtt / 2));
			smp_cpu_skew(cpu, skew);
		}
	}
	pr_debug("smp: cpu %u timer skew %s%llu ns (+-%llu ns)\n", cpu,
		 skew < 0 ? "-" : "",
		 (unsigned long long)ticks_to_ns(skew < 0 ? (uint64_t)-skew
							  : (uint64_t)skew),
		 (unsigned long long)ticks_to_ns(best_rtt / 2));
}

/* @cpu stays out of the boot, for @reason (one warning, kept for the report). */
static void cpu_fail(unsigned int cpu, const char *reason)
{
	smp_cpu_failed(cpu, reason);
	pr_warn("cpu %u (hwid %#llx): %s, left out\n", cpu,
		(unsigned long long)cpu_table[cpu].hwid, reason);
}

/* When @cpu, started, is given up: the shared @deadline, later only for
 * a CPU whose clock started late (arch_cpu_clock_start()). */
static uint64_t cpu_deadline(unsigned int cpu, uint64_t deadline,
			     uint64_t timeout)
{
	uint64_t clk = arch_cpu_clock_start(cpu);

	if (clk == UINT64_MAX)
		return UINT64_MAX; /* not running yet: no deadline */
	return MAX(deadline, clk + timeout);
}

#define STACKS_OVER                                                    \
	"no stack: the CPUs' stacks would leave the heap less than a " \
	"quarter of the free RAM"
/* CPUs left down by the stacks' budget this bring-up, and the first. */
static unsigned int over_budget, over_first;

/*
 * The bytes the secondaries' stacks may take: at most three quarters of
 * the free boot memory, so that the heap keeps a quarter for its own state
 * and the guests (4,096 CPUs described on 73 MiB of RAM took it all: no
 * heap, `no usable RAM`).
 * Stacks under a sixteenth of RAM, any real machine's (384 CPUs: 24 MiB),
 * are not counted: no walk of the free ranges in a live update's
 * downtime, which 100,000 carried bad pages cut into as many.
 */
static uint64_t stack_budget(void)
{
	uint64_t all = (uint64_t)(cpu_count - 1) * SMP_STACK_SIZE;

	if (all <= bootmem_ram_bytes() / 16)
		return UINT64_MAX;
	return bootmem_free_bytes() / 4 * 3;
}

/*
 * Ask @cpu to start: its stack on its node, out of @budget (stack_budget()),
 * then arch_cpu_start().
 * Return: true when it is now starting (starting[cpu] set).
 */
static bool start_one(unsigned int cpu, uint64_t *budget)
{
	const struct cpu_info *c = &cpu_table[cpu];
	paddr_t stack;

	if (!c->present)
		return false;
	if (inject_has(INJECT_CPU_ON_FAIL, cpu)) {
		cpu_fail(cpu, "CPU_ON refused (injected)");
		return false;
	}
	if (*budget < SMP_STACK_SIZE) { /* one line for all: smp_boot_cpus() */
		smp_cpu_failed(cpu, STACKS_OVER);
		if (!over_budget++)
			over_first = cpu;
		return false;
	}
	/* No RAM left for a stack: the CPU stays down, the boot goes on (a
	 * map with no usable RAM ends in a FAIL, not a panic). */
	stack = bootmem_alloc_try(SMP_STACK_SIZE, PAGE_SIZE, c->node,
				  "cpu stack");
	if (pa_val(stack) == pa_val(INVALID_PADDR)) {
		cpu_fail(cpu, "no free RAM for its stack");
		return false;
	}
	if (*budget != UINT64_MAX)
		*budget -= SMP_STACK_SIZE;
	if (!first_start)
		first_start = arch_ticks();
	if (arch_cpu_start(cpu, c->hwid,
			   (uintptr_t)phys_to_virt(stack) + SMP_STACK_SIZE)) {
		cpu_fail(cpu, "start request refused by firmware");
		return false;
	}
	starting[cpu] = 1;
	return true;
}

/*
 * @cpu checked in: accept it. It is not woken here: the first post to its
 * mailbox (the skew probe's, in a cold boot next) wakes it once for both,
 * so a sleeping CPU costs one wake-up, not two; until then its idle
 * timer lets it find the acceptance on its own.
 */
static void accept(unsigned int cpu)
{
	const struct cpu_info *c = &cpu_table[cpu];
	uint64_t now = arch_ticks();

	starting[cpu] = 0;
	smp_cpu_accepted(cpu);
	last_up = now;
	atomic_store_release(&accept_ticks[cpu], now);
	/* Ordered by the acquire of its check-in. */
	if (hwid_seen[cpu] != c->hwid)
		pr_warn("cpu %u (hwid %#llx) runs on hwid %#llx: it took "
			"another CPU's per-CPU data\n",
			cpu, (unsigned long long)c->hwid,
			(unsigned long long)hwid_seen[cpu]);
}

/* The skew probes' share of the bring-up, at most (ms). */
#define SKEW_BUDGET_MS 500

/**
 * smp_measure_skews() - the timer skew of every online secondary, one at a
 * time through its mailbox, after the bring-up (keel/smp.h). Only
 * informative, and bounded: all probes share one deadline, at most
 * SKEW_BUDGET_MS and @timeout_ms (a microsecond each on hardware; a loaded
 * host running a thousand sandbox threads must not double the bring-up);
 * a CPU reached after it keeps skew 0. Boot CPU; every secondary is idle
 * again when it returns.
 */
void smp_measure_skews(unsigned int timeout_ms)
{
	uint64_t budget = MIN(timeout_ms, SKEW_BUDGET_MS);
	uint64_t deadline = arch_ticks() + arch_ticks_hz() / 1000 * budget;
	cpumask_t all;

	for (unsigned int cpu = 1; cpu < cpu_count; cpu++)
		if (cpu_table[cpu].online && accept_ticks[cpu] &&
		    arch_ticks() < deadline)
			measure_skew(cpu, deadline);
	smp_online_mask(&all);
	smp_wait(&all);
}

/*
 * Wait for the starting CPUs among [@first, @last), all against one
 * deadline: each is accepted when seen checked in, or left out at its
 * deadline. Return: the CPUs accepted.
 */
static unsigned int wait_started(unsigned int first, unsigned int last,
				 uint64_t timeout)
{
	uint64_t deadline = arch_ticks() + timeout;
	unsigned int online = 0, left;

	do {
		left = 0;
		for (unsigned int cpu = first; cpu < last; cpu++) {
			if (!starting[cpu])
				continue;
			if (atomic_load_acquire(&checked_in[cpu])) {
				accept(cpu);
				online++;
			} else if (arch_ticks() >=
				   cpu_deadline(cpu, deadline, timeout)) {
				starting[cpu] = 0;
				cpu_fail(cpu,
					 "did not check in before the timeout");
			} else {
				left++;
			}
		}
		if (left)
			arch_cpu_relax();
	} while (left);
	return online;
}

static enum smp_start_mode start_used;

enum smp_start_mode smp_start_used(void)
{
	return start_used;
}

/**
 * smp_boot_cpus() - start every present secondary and wait for them.
 * @timeout_ms: how long the CPUs may take to check in
 *
 * The caller has run arch_smp_prepare() successfully. smp_start=parallel
 * (the default) asks every CPU to start, each without waiting for the
 * last, and waits for all against one deadline: N dead CPUs cost one
 * timeout. smp_start=serial starts one, waits for it, then the next (the
 * baseline of the benchmarks).
 *
 * Return: number of CPUs online, boot CPU included.
 */
unsigned int smp_boot_cpus(unsigned int timeout_ms, enum smp_start_mode start)
{
	uint64_t timeout = arch_ticks_hz() / 1000 * timeout_ms;
	bool serial = start == SMP_START_SERIAL;
	unsigned int online = 1;
	uint64_t budget;

	start_used = start;

	trace_begin("smp_boot");
	budget = stack_budget();
	over_budget = 0;
	for (unsigned int cpu = 1; cpu < cpu_count; cpu++) {
		if (start_one(cpu, &budget) && serial) {
			arch_cpu_start_commit();
			online += wait_started(cpu, cpu + 1, timeout);
		}
	}
	if (over_budget)
		pr_warn("smp: %u CPUs left out (cpu %u the first): %s\n",
			over_budget, over_first, STACKS_OVER);
	if (!serial) {
		arch_cpu_start_commit();
		online += wait_started(1, cpu_count, timeout);
	}
	trace_end("smp_boot");
	return online;
}
