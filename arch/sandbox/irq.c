/* SPDX-License-Identifier: MIT */
/*
 * Sandbox arch hooks of <arch/irq.h>. A CPU is a host thread, so its
 * interrupt is a real-time signal sent to that thread by its own POSIX
 * timer (os.c), and "interrupts off" is that signal blocked. The state
 * is kept in a thread variable too, so that a CPU that never turned
 * interrupts on (every CPU but the probe's and its load's) makes no
 * system call at a lock. The deadline is absolute in ticks (ns of
 * CLOCK_MONOTONIC_RAW); the host timer is armed relative to now.
 *
 * The signal handler runs on the interrupted thread with the signal
 * blocked, like an interrupt with interrupts masked: it reads the clock
 * first, then calls common code.
 */
#include <arch/cpu.h>
#include <arch/irq.h>
#include <asm/os.h>
#include <keel/errno.h>

static __thread bool irq_on;
static __thread void *irq_timer;

/** arch_irq_enable() - unblock the interrupt signal. */
void arch_irq_enable(void)
{
	irq_on = true;
	os_irq_mask(false);
}

/** arch_irq_disable() - block it (no call when it was blocked). */
void arch_irq_disable(void)
{
	if (!irq_on)
		return;
	os_irq_mask(true);
	irq_on = false;
}

/** arch_irq_save() - Return: whether it was on; now off. */
irqflags_t arch_irq_save(void)
{
	irqflags_t f = irq_on;

	arch_irq_disable();
	return f;
}

/** arch_irq_restore() - back to the state of @flags. */
void arch_irq_restore(irqflags_t flags)
{
	if (flags)
		arch_irq_enable();
	else
		arch_irq_disable();
}

/** arch_irq_flags_on() - Return: were interrupts on in @flags? */
bool arch_irq_flags_on(irqflags_t flags)
{
	return flags != 0;
}

static void sandbox_irq_entry(void)
{
	uint64_t entry = arch_ticks();
	bool was = irq_on;

	irq_on = false;
	irq_count_taken(false);
	irq_timer_handler(entry);
	irq_on = was;
}

/**
 * arch_timer_init_cpu() - the calling thread's timer, signal blocked.
 * @why: out: the reason when there is none
 *
 * Return: 0, or -ENODEV when the host refused a timer.
 */
int arch_timer_init_cpu(const char **why)
{
	arch_irq_disable();
	os_irq_mask(true);
	if (!irq_timer)
		irq_timer = os_irq_timer_create(sandbox_irq_entry);
	if (!irq_timer) {
		*why = "the host refused a POSIX timer";
		return -ENODEV;
	}
	return 0;
}

/** arch_timer_arm_at() - fire once at @deadline (ns, absolute). */
void arch_timer_arm_at(uint64_t deadline)
{
	uint64_t now = arch_ticks();

	if (irq_timer)
		os_irq_timer_set(irq_timer,
				 deadline > now ? deadline - now : 1);
}

/** arch_timer_cancel() - disarm the calling thread's timer. */
void arch_timer_cancel(void)
{
	if (irq_timer)
		os_irq_timer_set(irq_timer, 0);
}

/** arch_timer_mode() - Return: "posix-timer". */
const char *arch_timer_mode(void)
{
	return "posix-timer";
}
