/* SPDX-License-Identifier: MIT */
/*
 * Sandbox arch hooks of <arch/cpu.h>: the CPU id (a __thread variable, 0
 * on the main thread, set by each CPU thread of smp.c), the spin and idle
 * hints (which must not starve the host, see relax()), time
 * (CLOCK_MONOTONIC_RAW in ns, hz = 1e9), and the end of the process:
 * arch_stop() exits with the verdict, arch_panic() calls the tests' panic
 * hook (sandbox_set_panic_hook()) when one is set on the panicking thread.
 */
#include <arch/cpu.h>
#include <asm/os.h>
#include <asm/sandbox.h>
#include <keel/compiler.h>
#include <keel/string.h>

#include "sandbox_priv.h"

const char arch_name[] = "sandbox";
uint64_t arch_entry_ticks;

static __thread unsigned int this_cpu;
static __thread uint64_t this_hwid;
static __thread unsigned int relax_count;
static __thread uint64_t spin_start, spin_last;

/* A gap this long between relax batches starts a new spin. */
#define SPIN_GAP_NS 100000ull
/* After spinning this long, a thread sleeps between polls. */
#define SPIN_SLEEP_AFTER_NS 2000000ull
/* Sleep 1/SPIN_SLEEP_SHARE of the time waited so far, within these. */
#define SPIN_SLEEP_MIN_NS 200000ull
#define SPIN_SLEEP_MAX_NS 20000000ull
#define SPIN_SLEEP_SHARE  8

/**
 * arch_cpu_id() - logical id of the calling thread's CPU.
 *
 * Return: 0 for the main thread, the started id for secondaries.
 */
unsigned int arch_cpu_id(void)
{
	return this_cpu;
}

/**
 * sandbox_set_cpu_id() - what arch_cpu_id() and arch_cpu_hwid() return
 * on the calling thread.
 * @cpu: its logical id (set first thing by each CPU thread, smp.c)
 * @hwid: the firmware id it was started for
 */
void sandbox_set_cpu_id(unsigned int cpu, uint64_t hwid)
{
	this_cpu = cpu;
	this_hwid = hwid;
}

/**
 * arch_cpu_hwid() - the firmware id the calling CPU thread was started
 * for (0 on the main thread).
 * Return: the id.
 */
uint64_t arch_cpu_hwid(void)
{
	return this_hwid;
}

/*
 * The common part of both hints: a pause instruction per call, and every
 * 64th call a cancellation point that gives the host CPU away. The host may
 * have fewer cores than the sandbox has CPUs, and a spinning thread must
 * not starve the one it waits for: until a spin has lasted 2 ms it yields;
 * after that it sleeps. Short waits (locks, a quick smp_run_on) keep their
 * latency.
 */
static void relax(bool idle, uint64_t max_ns)
{
	uint64_t now;

#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield" ::: "memory");
#else
	__asm__ __volatile__("" ::: "memory");
#endif
	if ((++relax_count & 63) != 0)
		return;
	os_thread_testcancel();
	now = arch_ticks();
	if (now - spin_last > SPIN_GAP_NS)
		spin_start = now;
	spin_last = now;
	if (now - spin_start > SPIN_SLEEP_AFTER_NS) {
		uint64_t ns = idle ? (now - spin_start) / SPIN_SLEEP_SHARE : 0;

		os_sleep_ns(
			MIN(MIN(MAX(ns, SPIN_SLEEP_MIN_NS), SPIN_SLEEP_MAX_NS),
			    max_ns));
		spin_last = arch_ticks();
	} else {
		os_yield();
	}
}

/**
 * arch_cpu_relax() - spin-wait hint: after 2 ms of spinning, 200 us sleeps.
 *
 * Back-to-back waits (the boot CPU starting one CPU after another) look
 * like one long spin here, so the sleep stays short.
 */
void arch_cpu_relax(void)
{
	relax(false, SPIN_SLEEP_MAX_NS);
}

/**
 * arch_cpu_idle_wait() - one wait of a CPU with nothing to do.
 * @max_us: the longest sleep.
 *
 * A secondary sleeps on its wake-up word (a futex) until arch_cpu_wake()
 * posts to it or @max_us passes; a wake-up posted before the sleep ends
 * it at once. The boot CPU (which is never woken) relaxes: after 2 ms it
 * sleeps 1/8 of the time waited so far, from 200 us to at most @max_us.
 */
/* sandbox_set_idle_wait(): a secondary's idle sleep, 0: as asked (tests). */
static uint64_t idle_wait_ns;

void arch_cpu_idle_wait(uint32_t max_us)
{
	uint32_t *w = this_cpu ? sandbox_cpu_wake_word(this_cpu) : NULL;
	uint64_t ns = __atomic_load_n(&idle_wait_ns, __ATOMIC_RELAXED);

	if (!w) {
		relax(true, (uint64_t)max_us * 1000);
		return;
	}
	/* Acquire: the work posted before the wake-up is seen after it. */
	if (__atomic_exchange_n(w, 0, __ATOMIC_ACQ_REL))
		return;
	os_futex_wait(w, 0, ns ? ns : (uint64_t)max_us * 1000);
	__atomic_exchange_n(w, 0, __ATOMIC_ACQ_REL);
}

/**
 * sandbox_set_idle_wait() - every secondary's idle sleep (the safety net
 * of arch_cpu_idle_wait()) lasts @ns until it is woken; 0 goes back to the
 * caller's bound. For tests that tell a wake-up from the safety net by
 * far more than the host's scheduling delays.
 */
void sandbox_set_idle_wait(uint64_t ns)
{
	__atomic_store_n(&idle_wait_ns, ns, __ATOMIC_RELAXED);
}

/**
 * arch_cpu_wake() - post a wake-up to @cpu: set its word, wake its futex.
 * @cpu: logical id
 * @hwid: unused
 */
void arch_cpu_wake(unsigned int cpu, uint64_t hwid)
{
	uint32_t *w = sandbox_cpu_wake_word(cpu);

	(void)hwid;
	if (w && !__atomic_exchange_n(w, 1, __ATOMIC_ACQ_REL))
		os_futex_wake(w);
}

/**
 * arch_ticks() - CLOCK_MONOTONIC_RAW in ns.
 *
 * Return: the current time in ticks (ns).
 */
uint64_t arch_ticks(void)
{
	return os_clock_ns();
}

/**
 * arch_ticks_hz() - the tick rate.
 *
 * Return: 1e9 (ticks are ns).
 */
uint64_t arch_ticks_hz(void)
{
	return 1000000000ull;
}

static void (*panic_hook)(const char *msg);
/*
 * Tests longjmp out of the hook: only legal on the thread that set it,
 * which panic_hook_owner names by the address of its own panic_hook_mark.
 */
static __thread char panic_hook_mark;
static const char *panic_hook_owner;
static char last_panic[512];

/**
 * arch_stop() - end the process: 0 after PASS, 1 otherwise.
 * @how: ignored (a process can only exit)
 * @pass: the verdict
 */
void arch_stop(enum after_action how, bool pass)
{
	(void)how;
	os_exit(pass ? 0 : 1);
}

/**
 * sandbox_set_panic_hook() - let tests catch panics (hook must not return).
 * @hook: NULL to restore exit(1); only panics on the calling thread reach it
 */
void sandbox_set_panic_hook(void (*hook)(const char *msg))
{
	panic_hook_owner = &panic_hook_mark;
	panic_hook = hook;
}

/**
 * sandbox_last_panic() - the message of the last panic.
 *
 * Return: a string, empty when there was none.
 */
const char *sandbox_last_panic(void)
{
	return last_panic;
}

/**
 * arch_panic() - after panic() printed @msg: call the test hook or exit(1).
 * @msg: the message without the "keel: panic: " prefix
 *
 * A panic on another thread (a secondary CPU) cannot be caught by a test:
 * it ends the process, so the failure is still seen.
 */
void arch_panic(const char *msg)
{
	void (*hook)(const char *) = panic_hook;

	snprintf(last_panic, sizeof(last_panic), "%s", msg ? msg : "");
	if (hook && panic_hook_owner == &panic_hook_mark) {
		hook(last_panic);
		/* A hook that returns broke its contract: still stop. */
	}
	os_exit(1);
}
