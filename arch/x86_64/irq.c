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
 * the interrupt and writes the EOI. Every other vector is a stray,
 * counted and ended (x86_other_irq()). Handlers run with IF clear (an
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
#include <keel/latency.h>

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

/**
 * x86_other_irq() - every vector but X86_WAKE_VEC (entry.S's stubs).
 * @vec: the vector taken
 *
 * An interrupt keel never asked for is counted, the I/O APIC entries
 * that deliver @vec are masked (a level-triggered line that stays
 * asserted would come back after every EOI, for ever), and it is ended
 * with an EOI: never left in service, where it would block its priority
 * class and those below (one in class 15 would block X86_WAKE_VEC). The
 * local APIC's own spurious vector is not in service and takes no EOI
 * (Intel SDM vol. 3A, "Spurious Interrupt"): counted only. A fixed
 * interrupt sent on that vector is in service: a stray like the others.
 */
void x86_other_irq(uint64_t vec);
void x86_other_irq(uint64_t vec)
{
	bool apic = lapic_x2apic() || lapic_mmio();

	if (vec == X86_SPURIOUS_VEC && (!apic || !lapic_in_service(vec))) {
		irq_count_spurious();
		return;
	}
	irq_count_unexpected();
	irq_count_stray_masked(ioapic_mask_vector((uint8_t)vec));
	if (apic)
		x86_apic_eoi();
}

/* How long a self-IPI may take to be taken and ended (a few us). */
#define STRAY_TAKEN_US 10000

/**
 * arch_irq_raise_stray() - a fixed self-IPI on X86_STRAY_VEC, taken at
 * once (interrupts on); returns once it was taken and ended, so that the
 * next one is not merged with it (at most STRAY_TAKEN_US: one left in
 * service or requested stays so, and the next merges).
 * Return: 0, or -EOPNOTSUPP without a local APIC, -EIO from the ICR.
 */
int arch_irq_raise_stray(void)
{
	uint64_t end;
	int err;

	if (!lapic_x2apic() && !lapic_mmio())
		return -EOPNOTSUPP;
	err = lapic_send_ipi(x86_apic_id(),
			     ICR_FIXED | ICR_ASSERT | X86_STRAY_VEC);
	end = rdtsc() +
	      (tsc_hz ? tsc_hz : 1000000000ull) / 1000000 * STRAY_TAKEN_US;
	while (!err &&
	       (lapic_requested(X86_STRAY_VEC) ||
		lapic_in_service(X86_STRAY_VEC)) &&
	       rdtsc() < end)
		arch_cpu_relax();
	return err;
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
