/* SPDX-License-Identifier: MIT */
/*
 * arm64 arch hooks of <arch/cpu.h>.
 *
 * The CPU: its logical id in TPIDR_EL2/TPIDR_EL1 (per exception level),
 * the spin hint (yield) and the idle wait (WFI until the virtual timer
 * fires through the GIC, gic.c). Stopping: PSCI SYSTEM_OFF/RESET (psci.c)
 * or WFI forever.
 *
 * The boot timer: the generic timer's virtual count CNTVCT_EL0 (at EL2
 * head.S zeroes CNTVOFF_EL2, so it equals the physical count and is the
 * same on every CPU). Rate: CNTFRQ_EL0 as programmed by firmware, unless
 * the DT /timer node overrides it with clock-frequency (firmware that
 * forgot to program CNTFRQ). Read with an ISB before it so the count is
 * not taken early by out-of-order execution.
 */
#include <arch/cpu.h>
#include <asm/arm64.h>
#include <keel/compiler.h>
#include <keel/printk.h>

const char arch_name[] = "arm64";
uint64_t arch_entry_ticks;
static uint64_t ticks_hz;

/**
 * arch_ticks() - CNTVCT_EL0.
 * Return: raw ticks.
 */
uint64_t arch_ticks(void)
{
	isb();
	return read_sysreg(cntvct_el0);
}

/**
 * arch_ticks_hz() - the timer rate.
 * Return: Hz.
 */
uint64_t arch_ticks_hz(void)
{
	return ticks_hz;
}

/**
 * timer_init() - pick the rate.
 * @dt_freq: the DT's clock-frequency override, 0 when none.
 */
void timer_init(uint64_t dt_freq)
{
	uint64_t frq = read_sysreg(cntfrq_el0) & 0xffffffffu;

	ticks_hz = dt_freq ? dt_freq : frq;
	if (!ticks_hz) {
		pr_warn("timer: CNTFRQ_EL0 is 0 and the DT gives no "
			"clock-frequency, assuming 62500000\n");
		ticks_hz = 62500000;
	}
}

/**
 * arch_cpu_id() - logical id of this CPU, kept in TPIDR_EL2/TPIDR_EL1.
 * Return: 0 for the boot CPU.
 */
unsigned int arch_cpu_id(void)
{
	if (arm64_el == 2)
		return (unsigned int)read_sysreg(tpidr_el2);
	return (unsigned int)read_sysreg(tpidr_el1);
}

/**
 * arch_cpu_hwid() - this CPU's MPIDR_EL1 affinity fields.
 * Return: MPIDR_EL1 & MPIDR_HWID_MASK, as the DT's cpu reg gives it.
 */
uint64_t arch_cpu_hwid(void)
{
	return read_sysreg(mpidr_el1) & MPIDR_HWID_MASK;
}

/**
 * arch_cpu_wake() - the wake SGI to @hwid (gic.c): it ends the target's
 * WFI, or its next one. Sent from the boot CPU and from the secondaries
 * whose GIC interface is on (TPIDRRO_EL0 = 1).
 * @cpu: logical id (unused)
 * @hwid: its MPIDR
 */
void arch_cpu_wake(unsigned int cpu, uint64_t hwid)
{
	(void)cpu;
	gic_send_wake(hwid, arch_cpu_id() ? read_sysreg(tpidrro_el0) != 0
					  : gic_boot_cpu_can_send());
}

/**
 * arch_cpu_relax() - spin-wait hint.
 */
void arch_cpu_relax(void)
{
	__asm__ __volatile__("yield" ::: "memory");
}

/**
 * arch_cpu_idle_wait() - WFI until the virtual timer fires after @max_us
 * or the wake SGI comes (gic.c); a yield on CPUs whose GIC setup failed.
 * TPIDRRO_EL0 is 1 on the CPUs that can sleep (arm64_secondary_start(),
 * and setup.c for the boot CPU). Called with IRQs masked, the caller's
 * check and the WFI one step; what ended the WFI is acknowledged, never
 * taken.
 * @max_us: the wait, at most IDLE_MAX_US.
 */
void arch_cpu_idle_wait(uint32_t max_us)
{
	if (!read_sysreg(tpidrro_el0)) {
		arch_cpu_relax();
		return;
	}
	gic_idle_wait(arch_ticks_hz() * MIN(max_us, IDLE_MAX_US) / 1000000);
}

/**
 * arch_stop() - end the boot: PSCI SYSTEM_OFF for poweroff/exit (QEMU then
 * exits 0; PASS/FAIL is in the log), SYSTEM_RESET for reset, else halt;
 * the default is exit on QEMU virt (its DT or its ACPI tables) and halt
 * elsewhere.
 * @how: the after= action.
 * @pass: verdict (already printed).
 */
void arch_stop(enum after_action how, bool pass)
{
	(void)pass;
	/* The arch's choice: exit QEMU (the log has the verdict), halt on HW. */
	if (how == AFTER_DEFAULT && arm64_qemu_virt())
		how = AFTER_EXIT;
	switch (how) {
	case AFTER_POWEROFF:
	case AFTER_EXIT:
		psci_system_off();
	case AFTER_RESET:
		psci_system_reset();
	default:
		break;
	}
	__asm__ __volatile__("msr daifset, #0xf");
	for (;;)
		__asm__ __volatile__("wfi");
}

/**
 * arch_panic() - after panic() printed: stop as a failed boot, honouring
 * after= like arch_stop() (so QEMU tests do not wait for their timeout).
 * @msg: the panic message (already printed).
 */
void arch_panic(const char *msg)
{
	(void)msg;
	arch_stop(arm64_early_after, false);
}
