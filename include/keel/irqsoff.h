/* SPDX-License-Identifier: MIT */
/*
 * Owner: lib.
 * The interrupts-off tracer (common/lib/irqsoff.c), below the locks: every
 * interrupt-masking site goes through irq_save_at() / irq_restore(), and
 * so do the spin_lock_irqsave() locks of <keel/spinlock.h>. The latency
 * probe (<keel/latency.h>, the irq room) turns it on, resets it between
 * its phases and reads it; nothing here knows the probe.
 */
#ifndef KEEL_IRQSOFF_H
#define KEEL_IRQSOFF_H

#include <arch/irq.h>
#include <keel/types.h>

/*
 * A region starts where a CPU with interrupts on masks them and ends
 * where it unmasks them; @site names where it started (pass __func__).
 * Every CPU runs with interrupts on outside its critical sections
 * (<arch/irq.h>), so every such section is a region; the tracer keeps
 * state only once irqsoff_setup() gave it slots (latency=on). The idle
 * waits mask interrupts with the raw arch_irq_save() (their halt unmasks
 * them): not regions.
 */
void irqsoff_begin(const char *site);
void irqsoff_end(void);

/* Mask interrupts, timing the region when they were on. */
static inline irqflags_t irq_save_at(const char *site)
{
	irqflags_t f = arch_irq_save();

	if (arch_irq_flags_on(f))
		irqsoff_begin(site);
	return f;
}

static inline void irq_restore(irqflags_t f)
{
	if (arch_irq_flags_on(f))
		irqsoff_end();
	arch_irq_restore(f);
}

#define irq_save() irq_save_at(__func__)

/* Per-CPU tracer state (the probe's latency_init_cpus() allocates it). */
struct irqsoff_cpu {
	uint64_t start;	      /* ticks the current region began */
	uint64_t max;	      /* longest region since the last reset */
	const char *site;     /* of the current region */
	const char *max_site; /* of the longest */
} __attribute__((aligned(64)));

/* Turn the tracer on for @count CPUs (zeroed slots); NULL: off. */
void irqsoff_setup(struct irqsoff_cpu *cpus, unsigned int count);
/* Forget every CPU's longest region (between phases, CPUs quiet). */
void irqsoff_reset(void);
/* The longest region of any CPU since the reset; its site in *@site. */
uint64_t irqsoff_max(const char **site);

#endif
