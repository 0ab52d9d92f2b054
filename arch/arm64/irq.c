/* SPDX-License-Identifier: MIT */
/*
 * arm64 arch hooks of <arch/irq.h>: PSTATE.I, and the latency probe's
 * timer through the GICv3 (gic.c).
 *
 * At EL2 the probe uses the EL2 physical timer, CNTHP (PPI 26): it
 * compares CNTPCT, which equals CNTVCT there (head.S zeroes CNTVOFF_EL2),
 * so a deadline in arch_ticks() units is written as it is. At EL1 it uses
 * the EL1 virtual timer, CNTV (PPI 27), the idle wait's timer: the probe
 * CPU never idles during a phase, and arch_timer_cancel() leaves it
 * masked, as gic_idle_wait() does. Without a GICv3 there is no probe
 * (the reason goes to the report's latency.unsupported).
 *
 * entry.S's IRQ vector calls arm64_irq(): read the counter, acknowledge
 * (ICC_IAR1_EL1), mask the timer's output (a level interrupt), call
 * common code (which may arm the next deadline), end it (ICC_EOIR1_EL1).
 *
 * Lock: none; every register touched is the running CPU's own.
 */
#include <arch/cpu.h>
#include <arch/irq.h>
#include <asm/arm64.h>
#include <keel/errno.h>
#include <keel/latency.h>

#define DAIF_I	       (1ul << 7)
#define TIMER_ENABLE   1u
#define TIMER_IMASK    2u
#define PPI_CNTHP      26
#define PPI_CNTV       27
#define INTID_SPURIOUS 1020 /* 1020..1023: nothing to acknowledge */

#define cnthp_ctl_el2  S3_4_C14_C2_1
#define cnthp_cval_el2 S3_4_C14_C2_2
#define icc_iar1_el1   S3_0_C12_C12_0
#define icc_eoir1_el1  S3_0_C12_C12_1

/** arch_irq_enable() - clear PSTATE.I. */
void arch_irq_enable(void)
{
	__asm__ __volatile__("msr daifclr, #2" ::: "memory");
}

/** arch_irq_disable() - set PSTATE.I. */
void arch_irq_disable(void)
{
	__asm__ __volatile__("msr daifset, #2" ::: "memory");
}

/** arch_irq_save() - Return: DAIF before; IRQs now masked. */
irqflags_t arch_irq_save(void)
{
	irqflags_t f = read_sysreg(daif);

	arch_irq_disable();
	return f;
}

/** arch_irq_restore() - PSTATE.I back as in @flags. */
void arch_irq_restore(irqflags_t flags)
{
	if (!(flags & DAIF_I))
		arch_irq_enable();
}

/** arch_irq_flags_on() - Return: IRQs unmasked in @flags. */
bool arch_irq_flags_on(irqflags_t flags)
{
	return !(flags & DAIF_I);
}

static unsigned int timer_ppi(void)
{
	return arm64_el == 2 ? PPI_CNTHP : PPI_CNTV;
}

static void timer_ctl(uint64_t v)
{
	if (arm64_el == 2)
		write_sysreg(v, cnthp_ctl_el2);
	else
		write_sysreg(v, cntv_ctl_el0);
	isb();
}

/**
 * arm64_irq() - the IRQ vector's C part (entry.S).
 */
void arm64_irq(void);
void arm64_irq(void)
{
	uint64_t entry = arch_ticks();
	uint64_t intid = read_sysreg(icc_iar1_el1) & 0xffffff;

	if (intid >= INTID_SPURIOUS && intid < 1024) {
		irq_count_spurious();
		return;
	}
	if (intid == timer_ppi()) {
		timer_ctl(TIMER_IMASK);
		irq_count_taken(false);
		irq_timer_handler(entry);
	} else if (intid == GIC_WAKE_SGI) {
		irq_count_taken(true); /* posted while this CPU was busy */
	} else {
		/* Never asked for: off for good, so that it cannot storm. */
		gic_disable_intid((unsigned int)intid);
		irq_count_unexpected();
	}
	write_sysreg(intid, icc_eoir1_el1);
	isb();
}

/**
 * arch_timer_init_cpu() - the running CPU's timer PPI, through the GICv3.
 * @why: out: the reason when there is none
 *
 * Return: 0, or -ENODEV (no GICv3, no redistributor for this CPU).
 */
int arch_timer_init_cpu(const char **why)
{
	const char *err;

	timer_ctl(TIMER_IMASK);
	err = gic_enable_ppi(timer_ppi());
	if (err) {
		*why = err;
		return -ENODEV;
	}
	return 0;
}

/** arch_timer_arm_at() - fire once at counter value @deadline. */
void arch_timer_arm_at(uint64_t deadline)
{
	if (arm64_el == 2)
		write_sysreg(deadline, cnthp_cval_el2);
	else
		write_sysreg(deadline, cntv_cval_el0);
	timer_ctl(TIMER_ENABLE);
}

/** arch_timer_cancel() - timer off (masked, like the idle wait leaves it). */
void arch_timer_cancel(void)
{
	timer_ctl(TIMER_IMASK);
}

/**
 * arch_cpu_wait_irq() - WFI: with IRQs unmasked, the interrupt that ends
 * it is taken at once (masked, it still ends the WFI, and is left pending).
 */
void arch_cpu_wait_irq(void)
{
	__asm__ __volatile__("wfi" ::: "memory");
}

/**
 * arch_irq_raise_stray() - SGI 2 to this CPU (gic.c), which arm64_irq()
 * then turns off for good.
 * Return: 0, or -EOPNOTSUPP without a GICv3.
 */
int arch_irq_raise_stray(void)
{
	return gic_raise_stray_sgi();
}

/**
 * arch_irq_inject_line() - inject=ioapic-unmask: no I/O APIC here.
 * Return: -EOPNOTSUPP.
 */
int arch_irq_inject_line(void)
{
	return -EOPNOTSUPP;
}

/** arch_timer_mode() - Return: "cnthp-el2" or "cntv-el1". */
const char *arch_timer_mode(void)
{
	return arm64_el == 2 ? "cnthp-el2" : "cntv-el1";
}
