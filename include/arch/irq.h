/* SPDX-License-Identifier: MIT */
/*
 * Arch hooks: the interrupt mask of the running CPU and its one timer
 * interrupt (DESIGN §12). Implemented in arch/{x86_64,arm64,sandbox}/irq.c.
 *
 * x86_64: RFLAGS.IF (cli/sti); the local APIC timer, TSC-deadline mode when
 *         CPUID.1:ECX[24] has it, else one-shot (QEMU TCG).
 * arm64:  PSTATE.I (daifset/daifclr #2); GICv3 PPI 26, the EL2 physical
 *         timer (CNTHP) at EL2, or PPI 27, the EL1 virtual timer, at EL1.
 * sandbox: "interrupts off" is a flag of the CPU's thread (a signal that
 *         comes meanwhile is taken when they go back on); the timer is a
 *         per-CPU POSIX timer whose signal is aimed at that CPU's thread.
 *
 * Keel runs with interrupts on outside its critical sections: each
 * secondary from the moment it serves its mailbox (common/smp/smp_boot.c),
 * the boot CPU once the CPUs are started (common/boot.c). Critical
 * sections mask them: the heap's node locks (spin_lock_irqsave()), the
 * check-and-halt of an idle wait. No handler takes a lock but x86_64's
 * I/O APIC register lock, which every holder takes with interrupts off.
 * The interrupts keel takes: the idle wake-ups (wake-up IPI or SGI, the
 * idle timer), the latency probe's timer, and any other that firmware
 * left on, counted as unexpected, its source masked where the arch can
 * tell it (x86_64: the I/O APIC entries of its vector), and ended.
 */
#ifndef ARCH_IRQ_H
#define ARCH_IRQ_H

#include <keel/types.h>

/* The saved interrupt state of arch_irq_save(); opaque to common code. */
typedef unsigned long irqflags_t;

void arch_irq_enable(void);
void arch_irq_disable(void);
/* Mask interrupts. Return: the state before, for arch_irq_restore(). */
irqflags_t arch_irq_save(void);
void arch_irq_restore(irqflags_t flags);
/* Were interrupts on in @flags? */
bool arch_irq_flags_on(irqflags_t flags);

/*
 * Prepare the calling CPU's timer interrupt (once per CPU; later calls
 * are cheap). Return: 0, or -ENODEV with the reason in *@why (a
 * static string: "GICv2: the probe needs GICv3", ...).
 */
int arch_timer_init_cpu(const char **why);
/*
 * Fire the calling CPU's timer once at @deadline (absolute, arch_ticks()
 * units); a deadline already passed fires at once. Interrupts may be on
 * when the timer's handler cannot arm another deadline meanwhile
 * (common/irq/latency.c: it arms only while the probe samples, and then the
 * same deadline); the handler itself calls it masked.
 */
void arch_timer_arm_at(uint64_t deadline);
/*
 * Stop the calling CPU's timer (interrupts may be on, the handler no
 * longer arming it): no interrupt from it comes after, but one that was
 * already pending.
 */
void arch_timer_cancel(void);
/* How the timer is driven ("tsc-deadline", "apic-oneshot", "cnthp", ...). */
const char *arch_timer_mode(void);

/*
 * The irq room's entries the arch's handlers call (irq_timer_handler(),
 * irq_count_*()) are declared in keel/latency.h.
 */

/*
 * inject=irq-unexpected: raise on the calling CPU, interrupts on, one
 * interrupt keel never asks for (x86_64: a self-IPI on vector
 * X86_STRAY_VEC; arm64: SGI 2 to itself, enabled by the first call).
 * Return: 0, or -EOPNOTSUPP (no local APIC or GICv3; the sandbox), -EIO.
 */
int arch_irq_raise_stray(void);

/*
 * inject=ioapic-unmask, before the scrub, on the calling CPU with
 * interrupts on: unmask a controller input whose source keeps firing
 * (x86_64: the RTC's I/O APIC entry, level-triggered, its line held
 * asserted), and wait until the stray handler has masked it again.
 * Return: 0, -EOPNOTSUPP (no such input: arm64, the sandbox, an x86
 * without an I/O APIC for the RTC), -ETIMEDOUT (not masked in time).
 */
int arch_irq_inject_line(void);

/*
 * Wait for an interrupt with interrupts on (the latency probe between its
 * deadlines): hlt, wfi; the sandbox, whose interrupt is a signal, relaxes.
 * It may return before one (the caller checks again).
 */
void arch_cpu_wait_irq(void);

#endif
