/* SPDX-License-Identifier: MIT */
/*
 * The interrupt counters (include/keel/latency.h), the irq room's: the
 * arch's handlers call irq_count_taken(), _unexpected(), _spurious() and
 * _stray_masked() by name (include/arch/irq.h), each CPU into its own
 * struct irq_cpu_counts; irq_census() asks every online CPU whether it
 * runs with interrupts on. The counters are one array of cpu_count
 * entries from bootmem (smp_percpu_alloc(), as every per-CPU state is),
 * allocated by irq_counts_init() before any CPU turns its interrupts on:
 * an interrupt before it (none is expected) is not counted. The report
 * reads them through irq_counts() with every CPU parked.
 *
 * The controllers' inputs masked at boot are counted once, by the arch,
 * before interrupts are on.
 *
 * No lock: each CPU writes only its own entry.
 */
#include <arch/cpu.h>
#include <keel/cpumask.h>
#include <keel/latency.h>
#include <keel/smp.h>

static struct irq_cpu_counts *counts;
static unsigned int counts_cpus;
static struct irq_boot_masked boot_masked;

/**
 * irq_counts_init() - the per-CPU counters, zeroed. Call after
 * smp_init(), before the heap handoff and before any CPU turns its
 * interrupts on.
 */
void irq_counts_init(void)
{
	counts = smp_percpu_alloc(sizeof(*counts), "irq counters");
	counts_cpus = cpu_count;
}

/**
 * irq_counts() - @cpu's counters.
 *
 * Return: them, or NULL when @cpu has none (before irq_counts_init(), or
 * not a CPU of cpu_table).
 */
const struct irq_cpu_counts *irq_counts(unsigned int cpu)
{
	return counts && cpu < counts_cpus ? &counts[cpu] : NULL;
}

/** irq_boot_masked() - Return: the inputs masked at boot. */
const struct irq_boot_masked *irq_boot_masked(void)
{
	return &boot_masked;
}

/* The calling CPU's counters, or NULL. */
static struct irq_cpu_counts *mine(void)
{
	unsigned int cpu = arch_cpu_id();

	return counts && cpu < counts_cpus ? &counts[cpu] : NULL;
}

/**
 * irq_count_taken() - count an interrupt on the calling CPU.
 * @idle_wake: it only ended an idle halt
 */
void irq_count_taken(bool idle_wake)
{
	struct irq_cpu_counts *c = mine();

	if (!c)
		return;
	if (idle_wake)
		c->idle_wakes++;
	else
		c->taken++;
}

/**
 * irq_count_unexpected() - count an interrupt keel never asked for.
 */
void irq_count_unexpected(void)
{
	struct irq_cpu_counts *c = mine();

	if (c)
		c->unexpected++;
}

/**
 * irq_count_spurious() - count a spurious interrupt on the calling CPU.
 */
void irq_count_spurious(void)
{
	struct irq_cpu_counts *c = mine();

	if (c)
		c->spurious++;
}

/**
 * irq_count_masked_at_boot() - the controllers' inputs masked at boot.
 * @controllers: the interrupt controllers (x86_64: I/O APICs)
 * @entries: their inputs, all masked now
 * @unmasked: how many of them the firmware had left unmasked
 */
void irq_count_masked_at_boot(unsigned int controllers, unsigned int entries,
			      unsigned int unmasked)
{
	boot_masked.controllers = controllers;
	boot_masked.entries = entries;
	boot_masked.unmasked = unmasked;
}

/**
 * irq_count_stray_masked() - inputs a stray's handler masked.
 * @entries: how many (0: none delivered its vector)
 */
void irq_count_stray_masked(unsigned int entries)
{
	struct irq_cpu_counts *c = mine();

	if (c)
		c->stray_masked += entries;
}

static void census_fn(void *arg)
{
	struct irq_cpu_counts *c = mine();
	irqflags_t f = arch_irq_save();

	(void)arg;
	if (c)
		c->on_seen = arch_irq_flags_on(f) ? 2 : 1;
	arch_irq_restore(f);
}

/**
 * irq_census() - ask every online CPU, through its mailbox (the boot CPU
 * directly), whether it runs with interrupts on outside a critical
 * section, as <arch/irq.h> says it does (report irq.on_cpus).
 */
void irq_census(void)
{
	cpumask_t all;

	smp_online_mask(&all);
	smp_run_on(&all, census_fn, NULL);
}
