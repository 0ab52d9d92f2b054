/* SPDX-License-Identifier: MIT */
/*
 * The boot timer: the generic timer's virtual count CNTVCT_EL0 (at EL2
 * head.S zeroes CNTVOFF_EL2, so it equals the physical count and is the
 * same on every CPU). Rate: CNTFRQ_EL0 as programmed by firmware, unless
 * the DT /timer node overrides it with clock-frequency (firmware that
 * forgot to program CNTFRQ). Read with an ISB before it so the count is
 * not taken early by out-of-order execution.
 */
#include <arch/cpu.h>
#include <asm/arm64.h>
#include <keel/printk.h>

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
