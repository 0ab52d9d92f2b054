// SPDX-License-Identifier: MIT
/*
 * The interrupts-off tracer, like Linux's irqsoff: every region where a
 * CPU that runs with interrupts on masks them (irq_save_at(),
 * spin_lock_irqsave(): the heap's node locks) is timed with arch_ticks(),
 * and each CPU keeps its longest region and the name of the function that
 * began it. The latency probe resets it before a phase and reads the
 * maximum over all CPUs after.
 *
 * Owns irqsoff_cpus (per CPU, from bootmem, latency=on only). Each CPU
 * writes only its own slot, with its interrupts masked (no handler runs
 * in between); irqsoff_reset() and irqsoff_max() run on the boot CPU
 * between phases, every other CPU parked in its idle wait, whose masking
 * is not traced (the smp mailbox orders the accesses). No lock.
 */
#include <arch/cpu.h>
#include <keel/irqsoff.h>

static struct irqsoff_cpu *irqsoff_cpus;
static unsigned int irqsoff_count;

/**
 * irqsoff_setup() - turn the tracer on.
 * @cpus: one zeroed slot per CPU, or NULL to turn it off
 * @count: slots
 */
void irqsoff_setup(struct irqsoff_cpu *cpus, unsigned int count)
{
	irqsoff_count = cpus ? count : 0;
	irqsoff_cpus = cpus;
}

/* Every heap lock calls it: off (no latency=on), it reads one word. */
static struct irqsoff_cpu *this_slot(void)
{
	unsigned int cpu;

	if (!irqsoff_count)
		return NULL;
	cpu = arch_cpu_id();
	return cpu < irqsoff_count ? &irqsoff_cpus[cpu] : NULL;
}

/**
 * irqsoff_begin() - interrupts just went off on this CPU.
 * @site: the function that masked them
 */
void irqsoff_begin(const char *site)
{
	struct irqsoff_cpu *c = this_slot();

	if (!c)
		return;
	c->site = site;
	c->start = arch_ticks();
}

/**
 * irqsoff_end() - interrupts are about to go back on: time the region.
 */
void irqsoff_end(void)
{
	struct irqsoff_cpu *c = this_slot();
	uint64_t d;

	if (!c || !c->site)
		return;
	d = arch_ticks() - c->start;
	if (d > c->max) {
		c->max = d;
		c->max_site = c->site;
	}
	c->site = NULL;
}

/**
 * irqsoff_reset() - forget every CPU's longest region.
 */
void irqsoff_reset(void)
{
	for (unsigned int i = 0; i < irqsoff_count; i++) {
		irqsoff_cpus[i].max = 0;
		irqsoff_cpus[i].max_site = NULL;
	}
}

/**
 * irqsoff_max() - the longest region of any CPU since irqsoff_reset().
 * @site: out: the function that began it (NULL when there was none)
 *
 * Return: its length in ticks (0: none).
 */
uint64_t irqsoff_max(const char **site)
{
	uint64_t max = 0;

	*site = NULL;
	for (unsigned int i = 0; i < irqsoff_count; i++) {
		if (irqsoff_cpus[i].max > max) {
			max = irqsoff_cpus[i].max;
			*site = irqsoff_cpus[i].max_site;
		}
	}
	return max;
}
