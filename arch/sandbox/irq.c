/* SPDX-License-Identifier: MIT */
/*
 * Sandbox arch hooks of <arch/irq.h>. A CPU is a host thread, so its
 * interrupt is a real-time signal sent to that thread by its own POSIX
 * timer (os.c). "Interrupts off" is a flag of the thread, not a blocked
 * signal: masking is then no system call, and keel, which runs with
 * interrupts on outside its critical sections, masks them at every heap
 * lock. The signal stays unblocked in the thread once its timer exists;
 * a signal that comes while the flag says off is only marked pending, and
 * arch_irq_enable() (or a restore to on) runs the entry then, as a CPU
 * takes an interrupt left pending the moment it unmasks. The deadline is
 * absolute in ticks (ns of CLOCK_MONOTONIC_RAW); the host timer is armed
 * relative to now.
 *
 * The entry runs on the interrupted thread with the flag off, like an
 * interrupt with interrupts masked: it reads the clock first, then calls
 * common code. Every variable is the thread's own; the signal handler
 * and the thread it interrupts are one flow of control, ordered by
 * compiler barriers (signal fences).
 */
#include <arch/cpu.h>
#include <arch/irq.h>
#include <asm/os.h>
#include <keel/errno.h>
#include <keel/latency.h>

static __thread volatile bool irq_on;
static __thread volatile bool irq_pending;
static __thread void *irq_timer;

#define signal_fence() __atomic_signal_fence(__ATOMIC_SEQ_CST)

/* The entry, with interrupts "off"; entered from the signal or a replay. */
static void irq_entry(void)
{
	uint64_t entry = arch_ticks();

	irq_on = false;
	signal_fence();
	irq_count_taken(false);
	irq_timer_handler(entry);
	signal_fence();
}

/* The signal: taken now when interrupts are on, else left pending. */
static void sandbox_irq_signal(void)
{
	if (!irq_on) {
		irq_pending = true;
		return;
	}
	irq_entry();
	irq_on = true;
}

/** arch_irq_enable() - interrupts on; take one left pending first. */
void arch_irq_enable(void)
{
	for (;;) {
		while (irq_pending) {
			irq_pending = false;
			signal_fence();
			irq_entry();
		}
		irq_on = true;
		signal_fence();
		/* A signal between the last check and the store: pending. */
		if (!irq_pending)
			return;
		irq_on = false;
		signal_fence();
	}
}

/** arch_irq_disable() - interrupts off (a flag: no system call). */
void arch_irq_disable(void)
{
	irq_on = false;
	signal_fence();
}

/** arch_irq_save() - Return: whether they were on; now off. */
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

/**
 * arch_timer_init_cpu() - the calling thread's timer, its signal unblocked.
 * @why: out: the reason when there is none
 *
 * Return: 0, or -ENODEV when the host refused a timer.
 */
int arch_timer_init_cpu(const char **why)
{
	if (!irq_timer)
		irq_timer = os_irq_timer_create(sandbox_irq_signal);
	if (!irq_timer) {
		*why = "the host refused a POSIX timer";
		return -ENODEV;
	}
	os_irq_mask(false);
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

/**
 * arch_cpu_wait_irq() - a relax: the host schedules this thread, and its
 * interrupt is a signal, which a sleep would only delay.
 */
void arch_cpu_wait_irq(void)
{
	arch_cpu_relax();
}

/** arch_irq_raise_stray() - Return: -EOPNOTSUPP (one signal, the timer's). */
int arch_irq_raise_stray(void)
{
	return -EOPNOTSUPP;
}

/** arch_irq_inject_line() - Return: -EOPNOTSUPP (no I/O APIC). */
int arch_irq_inject_line(void)
{
	return -EOPNOTSUPP;
}

/** arch_timer_mode() - Return: "posix-timer". */
const char *arch_timer_mode(void)
{
	return "posix-timer";
}
