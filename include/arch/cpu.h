/* SPDX-License-Identifier: MIT */
/* Arch hooks: the running CPU, time, stopping the machine. */
#ifndef ARCH_CPU_H
#define ARCH_CPU_H

#include <keel/types.h>

/* Logical index (0 = boot CPU) of the CPU running this code. */
unsigned int arch_cpu_id(void);

/* Spin-wait hint (pause / yield). */
void arch_cpu_relax(void);

/*
 * One wait of a secondary with nothing to do (polling its mailbox, or
 * parked): give the CPU away for at most about @max_us microseconds. It
 * may return earlier (an interrupt, a spurious wake-up) and the caller
 * checks again; common/smp_boot.c grows @max_us while the CPU stays idle.
 * x86_64 halts until a one-shot local APIC timer; arm64 waits in WFI
 * until its virtual timer fires through the GICv3 (a yield without one);
 * the sandbox, whose CPUs are threads sharing a few host cores, spins a
 * little and then sleeps at most @max_us.
 */
void arch_cpu_idle_wait(uint32_t max_us);
/* The longest idle wait common/smp asks for (an arch may cut longer ones). */
#define IDLE_MAX_US 10000

/*
 * Raw ticks of the boot timer (TSC, CNTVCT_EL0, CLOCK_MONOTONIC_RAW in ns)
 * and its rate. arch_ticks_hz() is valid once the arch has calibrated it,
 * which it does before calling keel_main().
 */
uint64_t arch_ticks(void);
uint64_t arch_ticks_hz(void);

/* "x86_64", "arm64", "sandbox" (report `arch`). */
extern const char arch_name[];

/* Ticks at kernel entry: report times are ns since then. */
extern uint64_t arch_entry_ticks;

/*
 * How the boot ends once the report is printed (cmdline after=).
 * arch_stop(): halt / power off / exit with a status telling PASS from FAIL.
 * On the sandbox: exit(0) on pass, exit(1) otherwise.
 */
enum after_action {
	AFTER_DEFAULT =
		0, /* the arch's choice: halt on hardware, exit on QEMU/sandbox */
	AFTER_HALT,
	AFTER_POWEROFF,
	AFTER_EXIT,
	AFTER_RESET,
};
__attribute__((noreturn)) void arch_stop(enum after_action how, bool pass);

/*
 * Called by panic() after the message is printed: stop the machine as a
 * failed boot. The sandbox calls the test panic hook when one is set.
 */
__attribute__((noreturn)) void arch_panic(const char *msg);

#endif
