// SPDX-License-Identifier: MIT
/*
 * The flow's memory errors (issue 38; keel/boot.h): the injections that
 * stand in for a failing page once the heap is open (inject=poison, ce,
 * sea), and the drain of the bad queue between phases, which first has
 * every idle CPU poll for the corrected errors its machine logged
 * without an exception (arch_ras_poll()), then takes each queued page
 * out of service (broken) or counts it (corrected: keel/ce_count.h), in
 * bad_queue_take() (common/mm/bad_take.c, a live update's freeze's too).
 *
 * Runs on the boot CPU, between phases; the other CPUs only run the poll
 * posted through smp_run_on(). No lock (the bad queue's drain lets one
 * CPU drain at a time).
 */
#include <arch/ras.h>
#include <keel/bad_queue.h>
#include <keel/boot.h>
#include <keel/domain.h>
#include <keel/errno.h>
#include <keel/heap.h>
#include <keel/inject.h>
#include <keel/printk.h>
#include <keel/smp.h>

/*
 * inject=poison:N (issue 38 §3, the sandbox's machine check): page frame
 * N goes bad once the heap is open, before the scrub: heap_offline() as
 * broken, from an injection. One line either way.
 */
static void poison_page(uint64_t n, void *ctx)
{
	(void)ctx;
	domains_poison_pfn("poison", n, "");
}

/*
 * inject=ce:N: the arch logs a corrected memory error in page frame N
 * where its poll finds it (the sandbox: arch/sandbox/ras.c), so the
 * next drain counts it (ce_offline=). One warning where it cannot.
 */
static void log_corrected(uint64_t n, void *ctx)
{
	int err = arch_ras_log_corrected(pa_val(pfn_to_paddr(pfn(n))));

	(void)ctx;
	if (err == -EOPNOTSUPP)
		pr_warn("inject=ce:%#llx: not on this arch (x86_64 under QEMU: "
			"the monitor's mce), nothing injected\n",
			(unsigned long long)n);
	else if (err)
		pr_warn("inject=ce:%#llx: no bank free to log it (%d), nothing "
			"injected\n",
			(unsigned long long)n, err);
}

/*
 * inject=sea, right after inject=poison and inject=ce: the arch reads a
 * page no device answers, and the abort ends the boot through its
 * exception path (arch_ras_raise_sea()). One warning where it cannot.
 */
static void inject_sea(void)
{
	uint64_t at;
	int err;

	if (!inject_has(INJECT_SEA, 0))
		return;
	err = arch_ras_raise_sea(&at);
	if (err == -EOPNOTSUPP)
		pr_warn("inject=sea: not on this arch, nothing injected\n");
	else if (err == -EIO)
		pr_warn("inject=sea: the read of %#llx came back without an "
			"abort\n",
			(unsigned long long)at);
}

static void poll_ras(void *arg)
{
	(void)arg;
	arch_ras_poll();
}

/**
 * boot_drain_failed_pages() - pages a machine check (or an injection)
 * queued where no lock may be taken, taken out of service here, between
 * phases (keel/boot.h); first every idle
 * online CPU polls for the corrected errors it logged silently (a CPU
 * still busy, or none started yet: the boot CPU alone; the others wait
 * for the next drain).
 * @ce_offline: ce_offline=, for the corrected errors' count
 */
void boot_drain_failed_pages(uint32_t ce_offline)
{
	cpumask_t idle;

	smp_online_mask(&idle);
	for (unsigned int cpu = 0; cpu < cpu_count; cpu++)
		if (!smp_cpu_idle(cpu))
			cpumask_clear_cpu(&idle, cpu);
	if (cpu_count)
		smp_run_on(&idle, poll_ras, NULL);
	else
		arch_ras_poll();
	bad_queue_take(ce_offline);
}

/**
 * boot_inject_failures() - once the heap is open, before the scrub:
 * inject=poison, inject=ce, then inject=sea (fatal where it works).
 */
void boot_inject_failures(void)
{
	inject_for_each(INJECT_POISON, poison_page, NULL);
	inject_for_each(INJECT_CE, log_corrected, NULL);
	inject_sea();
}
