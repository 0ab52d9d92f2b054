/* SPDX-License-Identifier: MIT */
/*
 * x86_64 arch hooks of <arch/irq.h>: RFLAGS.IF, and the local APIC timer
 * (lapic.c) as the latency probe's timer. The timer has one vector,
 * X86_WAKE_VEC, for both of its users: the idle halt of a secondary
 * (cpu.c) and the probe's absolute deadlines. entry.S's x86_timer_stub
 * saves the scratch registers and calls x86_timer_irq(), which reads the
 * TSC first, tells the two apart by this CPU's `armed` flag (set by
 * arch_timer_arm_at(), cleared when the interrupt comes or by
 * arch_timer_cancel()), calls common code for a probe deadline, counts
 * the interrupt and writes the EOI. Handlers run with IF clear (an
 * interrupt gate); nothing nests.
 *
 * Lock: none; each CPU touches only its own `armed` slot and its own
 * local APIC.
 */
#include <arch/cpu.h>
#include <arch/irq.h>
#include <asm/lapic.h>
#include <asm/x86.h>
#include <keel/cpumask.h>
#include <keel/errno.h>

#define RFLAGS_IF (1ul << 9)

static uint8_t armed[NR_CPUS];

/** arch_irq_enable() - sti. */
void arch_irq_enable(void)
{
	__asm__ __volatile__("sti" ::: "memory");
}

/** arch_irq_disable() - cli. */
void arch_irq_disable(void)
{
	__asm__ __volatile__("cli" ::: "memory");
}

/** arch_irq_save() - Return: RFLAGS before; interrupts now off. */
irqflags_t arch_irq_save(void)
{
	irqflags_t f;

	__asm__ __volatile__("pushfq; popq %0; cli" : "=r"(f) : : "memory");
	return f;
}

/** arch_irq_restore() - IF back as in @flags. */
void arch_irq_restore(irqflags_t flags)
{
	if (flags & RFLAGS_IF)
		arch_irq_enable();
}

/** arch_irq_flags_on() - Return: IF set in @flags. */
bool arch_irq_flags_on(irqflags_t flags)
{
	return flags & RFLAGS_IF;
}

/**
 * x86_timer_irq() - the local APIC timer's interrupt (entry.S).
 */
void x86_timer_irq(void);
void x86_timer_irq(void)
{
	uint64_t entry = rdtsc();
	unsigned int cpu = arch_cpu_id();
	bool probe = cpu < NR_CPUS && armed[cpu];

	if (probe)
		armed[cpu] = 0;
	irq_count_taken(!probe);
	if (probe)
		irq_timer_handler(entry);
	x86_apic_eoi();
}

/*
 * Unexpected interrupts a CPU ends with an EOI; the next one is left in
 * service. keel does not program the I/O APIC, so a level-triggered line
 * a firmware left unmasked would fire again after every EOI: left in
 * service, it blocks its own priority class and those below in the local
 * APIC, and the storm ends. X86_WAKE_VEC (class 15) still comes through,
 * unless the source is in class 15 too.
 */
#define UNEXPECTED_EOI_MAX 64
static uint8_t unexpected_ended[NR_CPUS];

/**
 * x86_other_irq() - any other vector (entry.S): count it and end it at the
 * local APIC when there is one (an EOI with nothing in service is
 * ignored), at most UNEXPECTED_EOI_MAX times per CPU.
 */
void x86_other_irq(void);
void x86_other_irq(void)
{
	unsigned int cpu = arch_cpu_id();

	irq_count_unexpected();
	if (cpu >= NR_CPUS || unexpected_ended[cpu] >= UNEXPECTED_EOI_MAX)
		return;
	unexpected_ended[cpu]++;
	if (lapic_x2apic() || lapic_mmio())
		x86_apic_eoi();
}

/**
 * arch_irq_raise_stray() - a fixed self-IPI on X86_STRAY_VEC; taken at
 * once (interrupts on), or merged with one already pending.
 * Return: 0, or -EOPNOTSUPP without a local APIC, -EIO from the ICR.
 */
int arch_irq_raise_stray(void)
{
	if (!lapic_x2apic() && !lapic_mmio())
		return -EOPNOTSUPP;
	return lapic_send_ipi(x86_apic_id(),
			      ICR_FIXED | ICR_ASSERT | X86_STRAY_VEC);
}

/**
 * arch_timer_init_cpu() - the running CPU's timer for deadlines.
 * @why: out: the reason when there is none
 *
 * Return: 0, or -ENODEV without a calibrated local APIC timer.
 */
int arch_timer_init_cpu(const char **why)
{
	if (!lapic_timer_mode()) {
		*why = "no calibrated local APIC timer";
		return -ENODEV;
	}
	lapic_timer_probe_init();
	return 0;
}

/** arch_timer_arm_at() - fire once at TSC @deadline. */
void arch_timer_arm_at(uint64_t deadline)
{
	unsigned int cpu = arch_cpu_id();

	if (cpu < NR_CPUS)
		armed[cpu] = 1;
	lapic_timer_arm_tsc(deadline);
}

/** arch_timer_cancel() - stop it; the idle one-shot timer is back. */
void arch_timer_cancel(void)
{
	unsigned int cpu = arch_cpu_id();

	lapic_timer_stop();
	if (cpu < NR_CPUS)
		armed[cpu] = 0;
}

/**
 * arch_cpu_wait_irq() - hlt until an interrupt, which is taken at once;
 * a pause when interrupts are off (a hlt then would never end).
 */
void arch_cpu_wait_irq(void)
{
	irqflags_t f;

	__asm__ __volatile__("pushfq; popq %0" : "=r"(f) : : "memory");
	if (f & RFLAGS_IF)
		__asm__ __volatile__("hlt" ::: "memory");
	else
		arch_cpu_relax();
}

/** arch_timer_mode() - Return: "tsc-deadline" or "apic-oneshot". */
const char *arch_timer_mode(void)
{
	const char *m = lapic_timer_mode();

	return m ? m : "none";
}
