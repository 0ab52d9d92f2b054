/* SPDX-License-Identifier: MIT */
/* Arch hooks: the running CPU, time, stopping the machine. */
#ifndef ARCH_CPU_H
#define ARCH_CPU_H

#include <keel/types.h>

/* Logical index (0 = boot CPU) of the CPU running this code. */
unsigned int arch_cpu_id(void);

/*
 * The firmware id of the running CPU read from its own hardware (APIC ID,
 * MPIDR affinity, the sandbox thread's id): at check-in it is compared
 * with the id of the per-CPU block the CPU took (report cpus[].hwid_seen).
 */
uint64_t arch_cpu_hwid(void);

/* Spin-wait hint (pause / yield). */
void arch_cpu_relax(void);

/*
 * One wait of a secondary with nothing to do (waiting for its acceptance,
 * its mailbox, or parked): give the CPU away until arch_cpu_wake() posts
 * to it or about @max_us microseconds pass (the safety net). It may return
 * earlier (a spurious wake-up) and the caller checks again;
 * common/smp/smp_boot.c grows @max_us while the CPU stays idle. x86_64 halts
 * until a fixed-vector IPI or a one-shot local APIC timer; arm64 waits in
 * WFI until an SGI or its virtual timer, through the GICv3 (a yield
 * without one); the sandbox sleeps on a futex. On the boot CPU, which is
 * never woken, it is a spin-wait hint.
 */
void arch_cpu_idle_wait(uint32_t max_us);
/*
 * End the idle wait of CPU @cpu (firmware id @hwid) now, or its next one
 * when it is not waiting: the wake-up is kept until then (x86_64: a
 * fixed-vector IPI, pending in the IRR; arm64: an SGI, pending in the
 * GIC; the sandbox: a flag and a futex wake). Work posted to an idle CPU
 * is then started at once, not at the end of its timer.
 */
void arch_cpu_wake(unsigned int cpu, uint64_t hwid);
/* The longest idle wait common/smp asks for (an arch may cut longer ones). */
#define IDLE_MAX_US 1000000

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
