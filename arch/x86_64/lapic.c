/* SPDX-License-Identifier: MIT */
/*
 * The local APIC of every CPU: x2APIC (MSRs) when CPUID.1:ECX[21] says
 * so, else xAPIC MMIO at the MADT's address (else IA32_APIC_BASE), mapped
 * uncached. IPIs go out with ICR high before ICR low, and in xAPIC mode
 * the delivery status (bit 12) is polled, bounded, before and after each.
 *
 * The timer: one-shot, divide by 1, vector X86_WAKE_VEC (entry.S's stub
 * only writes the EOI). It ends an idle secondary's halt (cpu.c,
 * arch_cpu_idle_wait). Its rate is measured once against the TSC on the
 * boot CPU (timer_calibrate(), tries whose reads were interrupted left
 * out); without it (no TSC rate, every try interrupted, a timer faster
 * than IDLE_MAX_US allows in 32 bits: one warning) idle waits stay a
 * pause and lapic_timer_mode() is NULL, so no guest is held (guest.c).
 *
 * The latency probe (irq.c) uses the same timer and vector for absolute
 * TSC deadlines: TSC-deadline mode (IA32_TSC_DEADLINE) where CPUID.1:ECX[24]
 * has it, else one-shot with the count converted from TSC ticks by the
 * calibrated rate (QEMU TCG has no TSC-deadline). lapic_timer_stop() puts
 * the one-shot idle timer back.
 *
 * Lock: none. lapic_init() runs once on the boot CPU before any secondary
 * starts; afterwards the globals here are only read, and each CPU touches
 * only its own local APIC.
 */
#include <arch/cpu.h>
#include <asm/lapic.h>
#include <asm/x86.h>
#include <keel/acpi.h>
#include <keel/errno.h>
#include <keel/printk.h>

#define X2APIC_MSR_BASE	 0x800 /* + xAPIC register offset >> 4 */
#define X2APIC_MSR_ICR	 0x830

#define SVR_ENABLE	 0x100
#define LVT_MASKED	 0x10000
#define TIMER_DIV_1	 0xb
#define LVT_TSC_DEADLINE (2u << 17)
#define MSR_TSC_DEADLINE 0x6e0
#define ICR_TIMEOUT_US	 100000
/* Calibration: tries, good ones wanted, widest bracket (of the span). */
#define CAL_TRIES	40
#define CAL_GOOD	3
#define CAL_BRACKET_PPM 20000

static volatile uint32_t *lapic;
static bool x2apic;
/* Local APIC timer ticks per microsecond (divide by 1); 0: no idle halt. */
static uint32_t ticks_per_us;
/* CPUID.1:ECX[24]: the timer takes absolute TSC deadlines. */
static bool tsc_deadline;

bool lapic_x2apic(void)
{
	return x2apic;
}

volatile uint32_t *lapic_mmio(void)
{
	return lapic;
}

/**
 * x86_apic_id() - the APIC ID of the running CPU: x2APIC ID from CPUID
 * leaf 0xB when it exists (8-bit IDs would truncate it), else CPUID.1.
 * Return: the APIC ID.
 */
uint32_t x86_apic_id(void)
{
	if (cpuid(0, 0).eax >= 0xb && cpuid(0xb, 0).ebx)
		return cpuid(0xb, 0).edx;
	return cpuid(1, 0).ebx >> 24;
}

/**
 * lapic_read() - a local APIC register by its xAPIC offset.
 * @reg: APIC_*
 * Return: its value.
 */
uint32_t lapic_read(uint32_t reg)
{
	if (x2apic)
		return (uint32_t)rdmsr(X2APIC_MSR_BASE + (reg >> 4));
	return lapic ? lapic[reg / 4] : 0; /* none mapped (lapic_init()) */
}

/**
 * lapic_write() - write a local APIC register by its xAPIC offset.
 * @reg: APIC_*
 * @v: the value
 */
void lapic_write(uint32_t reg, uint32_t v)
{
	if (x2apic)
		wrmsr(X2APIC_MSR_BASE + (reg >> 4), v);
	else if (lapic) /* none mapped (lapic_init() failed): nothing */
		lapic[reg / 4] = v;
}

static bool icr_wait_idle(void)
{
	uint64_t hz = tsc_hz ? tsc_hz : 1000000000ULL;
	uint64_t end = rdtsc() + hz / 1000000 * ICR_TIMEOUT_US;

	if (x2apic)
		return true; /* x2APIC has no delivery status to poll */
	while (lapic[APIC_ICR_LO / 4] & ICR_BUSY) {
		if (rdtsc() >= end)
			return false;
		arch_cpu_relax();
	}
	return true;
}

/**
 * lapic_send_ipi() - send one IPI.
 * @dest: APIC ID
 * @icr: ICR low word (delivery mode, level, vector)
 * Return: 0, or -EIO when the ICR stays busy (xAPIC).
 */
int lapic_send_ipi(uint32_t dest, uint32_t icr)
{
	if (x2apic) {
		/* WRMSR to the ICR is not serialising: order earlier stores. */
		__asm__ __volatile__("mfence; lfence" ::: "memory");
		wrmsr(X2APIC_MSR_ICR, ((uint64_t)dest << 32) | icr);
		return 0;
	}
	if (!icr_wait_idle())
		return -EIO;
	lapic[APIC_ICR_HI / 4] = dest << 24;
	lapic[APIC_ICR_LO / 4] = icr;
	return icr_wait_idle() ? 0 : -EIO;
}

/**
 * lapic_enable_local() - software-enable the running CPU's local APIC,
 * switching it to x2APIC mode when that is in use.
 */
void lapic_enable_local(void)
{
	if (x2apic) {
		uint64_t base = rdmsr(MSR_APIC_BASE);

		if ((base & (APIC_BASE_EN | APIC_BASE_X2APIC)) !=
		    (APIC_BASE_EN | APIC_BASE_X2APIC))
			wrmsr(MSR_APIC_BASE,
			      base | APIC_BASE_EN | APIC_BASE_X2APIC);
	}
	lapic_write(APIC_SVR, SVR_ENABLE | X86_SPURIOUS_VEC);
}

/*
 * One reading of the (masked) local APIC timer's count, with the TSC read
 * right before (*@t0) and after (*@t1) it: a wide bracket means the CPU
 * was taken away meanwhile (a busy host under QEMU TCG).
 */
static uint32_t timer_read(uint64_t *t0, uint64_t *t1)
{
	uint32_t cur;

	*t0 = rdtsc();
	cur = lapic_read(APIC_TIMER_CUR);
	*t1 = rdtsc();
	return cur;
}

/*
 * One try: the timer counted down over about 1 ms of TSC, each end read
 * with a bracket of at most CAL_BRACKET_PPM of that time. Return: ticks
 * per microsecond (divide by 1), 0 when a bracket was too wide or the
 * count ran out.
 */
static uint32_t timer_try(uint64_t ppm)
{
	uint64_t a0, a1, b0, b1, span, tsc;
	uint32_t c0, c1;

	lapic_write(APIC_TIMER_INIT, 0xffffffffu);
	c0 = timer_read(&a0, &a1);
	while (rdtsc() < a1 + tsc_hz / 1000)
		arch_cpu_relax();
	c1 = timer_read(&b0, &b1);
	lapic_write(APIC_TIMER_INIT, 0);
	span = b1 - a0;
	tsc = (b0 + b1) / 2 - (a0 + a1) / 2;
	if (!c1 || c1 >= c0 || !tsc ||
	    (a1 - a0) + (b1 - b0) > span / 1000000 * ppm)
		return 0;
	return (uint32_t)((uint64_t)(c0 - c1) * (tsc_hz / 1000000) / tsc);
}

/*
 * The timer's rate against the TSC, on the boot CPU: up to CAL_TRIES
 * tries, each refused when the CPU was taken away while it read one end
 * (under a loaded QEMU TCG a vCPU thread sleeps for milliseconds, and a
 * count read late once made the rate look 4x too fast, left the timer
 * off and let held vCPUs run forever). The median of the good tries; when
 * none was good, a second round that allows brackets 10 times as wide.
 * Return: ticks per microsecond, 0: none (said at warning level).
 */
static uint32_t timer_calibrate(void)
{
	uint32_t got[CAL_TRIES], v;
	unsigned int n = 0;

	if (!tsc_hz) {
		pr_warn("x86_64: local APIC timer not calibrated: the TSC rate "
			"is unknown; idle CPUs spin and no guest is held "
			"across a live update\n");
		return 0;
	}
	lapic_write(APIC_TIMER_DIV, TIMER_DIV_1);
	lapic_write(APIC_LVT_TIMER, LVT_MASKED | X86_WAKE_VEC);
	for (unsigned int t = 0; t < 2 * CAL_TRIES && n < CAL_GOOD; t++) {
		unsigned int i = n;

		if (t == CAL_TRIES && n)
			break;
		v = timer_try(t < CAL_TRIES ? CAL_BRACKET_PPM
					    : 10 * CAL_BRACKET_PPM);
		if (!v)
			continue;
		for (n++; i && got[i - 1] > v; i--) /* got[] stays sorted */
			got[i] = got[i - 1];
		got[i] = v;
	}
	v = n ? got[n / 2] : 0;
	if (v > 0xffffffffu / IDLE_MAX_US) {
		pr_warn("x86_64: local APIC timer at %u ticks/us is faster "
			"than a 32-bit count of %u us holds: not used; idle "
			"CPUs spin and no guest is held across a live update\n",
			v, IDLE_MAX_US);
		return 0;
	}
	if (!v)
		pr_warn("x86_64: local APIC timer not calibrated: %u tries "
			"against the TSC were each interrupted; idle CPUs spin "
			"and no guest is held across a live update\n",
			2 * CAL_TRIES);
	else
		pr_debug("x86_64: local APIC timer %u ticks/us (median of "
			 "%u good tries)\n",
			 v, n);
	return v;
}

/**
 * lapic_timer_setup_ap() - the running CPU's idle timer (every secondary,
 * and the boot CPU in arch_smp_prepare()): one-shot, unmasked,
 * X86_WAKE_VEC; lapic_timer_oneshot() then only sets the count.
 */
void lapic_timer_setup_ap(void)
{
	if (!ticks_per_us)
		return;
	lapic_write(APIC_TIMER_DIV, TIMER_DIV_1);
	lapic_write(APIC_LVT_TIMER, X86_WAKE_VEC);
}

/**
 * lapic_timer_oneshot() - start the running CPU's one-shot timer.
 * @us: microseconds, cut to IDLE_MAX_US
 * Return: false when there is no calibrated timer (nothing started).
 */
bool lapic_timer_oneshot(uint32_t us)
{
	if (!ticks_per_us)
		return false;
	lapic_write(APIC_TIMER_INIT, MIN(us, IDLE_MAX_US) * ticks_per_us);
	return true;
}

/** lapic_timer_calibrated() - Return: the one-shot timer can be armed. */
bool lapic_timer_calibrated(void)
{
	return ticks_per_us != 0;
}

/**
 * lapic_timer_mode() - how lapic_timer_arm_tsc() drives the timer.
 * Return: "tsc-deadline", "apic-oneshot", or NULL when it cannot.
 */
const char *lapic_timer_mode(void)
{
	if (tsc_deadline)
		return "tsc-deadline";
	return ticks_per_us ? "apic-oneshot" : NULL;
}

/**
 * lapic_timer_probe_init() - the running CPU's timer for absolute
 * deadlines: TSC-deadline mode, or one-shot, unmasked, X86_WAKE_VEC.
 */
void lapic_timer_probe_init(void)
{
	lapic_write(APIC_TIMER_INIT, 0);
	lapic_write(APIC_TIMER_DIV, TIMER_DIV_1);
	lapic_write(APIC_LVT_TIMER,
		    (tsc_deadline ? LVT_TSC_DEADLINE : 0) | X86_WAKE_VEC);
}

/**
 * lapic_timer_arm_tsc() - fire once at TSC @deadline (at once when it
 * has passed), after lapic_timer_probe_init().
 * @deadline: absolute TSC value
 */
void lapic_timer_arm_tsc(uint64_t deadline)
{
	uint64_t now, count;

	if (tsc_deadline) {
		wrmsr(MSR_TSC_DEADLINE, deadline ? deadline : 1);
		return;
	}
	now = rdtsc();
	count = 1;
	if (deadline > now && tsc_hz)
		count = (uint64_t)((unsigned __int128)(deadline - now) *
				   ticks_per_us * 1000000 / tsc_hz);
	lapic_write(APIC_TIMER_INIT,
		    (uint32_t)MAX(MIN(count, 0xffffffffull), 1ull));
}

/**
 * lapic_timer_stop() - disarm the probe's deadline and give the timer back
 * to the idle wait (one-shot, X86_WAKE_VEC).
 */
void lapic_timer_stop(void)
{
	if (tsc_deadline)
		wrmsr(MSR_TSC_DEADLINE, 0);
	lapic_write(APIC_TIMER_INIT, 0);
	lapic_write(APIC_LVT_TIMER, X86_WAKE_VEC);
}

/**
 * lapic_in_service() - @vec's bit of the running CPU's In-Service Register.
 * @vec: a vector
 * Return: true when @vec is in service (an EOI would end it).
 */
bool lapic_in_service(uint8_t vec)
{
	return lapic_read(APIC_ISR + (vec / 32) * 0x10) & (1u << (vec % 32));
}

/**
 * lapic_requested() - @vec's bit of the Interrupt Request Register.
 * @vec: a vector
 * Return: true when @vec waits to be taken.
 */
bool lapic_requested(uint8_t vec)
{
	return lapic_read(APIC_IRR + (vec / 32) * 0x10) & (1u << (vec % 32));
}

/**
 * x86_apic_eoi() - end of the wake interrupt (entry.S x86_wake_stub).
 */
void x86_apic_eoi(void)
{
	lapic_write(APIC_EOI, 0);
}

/**
 * lapic_init() - bring up the boot CPU's local APIC and calibrate its
 * timer.
 * Return: 0, or -ENODEV without a usable local APIC.
 */
int lapic_init(void)
{
	uint64_t base = rdmsr(MSR_APIC_BASE);
	uint64_t phys = base & 0x000ffffffffff000ULL;

	if (!(cpuid(1, 0).edx & (1u << 9))) {
		pr_warn("x86_64: CPUID.1:EDX[9] (APIC) = 0: no local APIC\n");
		return -ENODEV;
	}
	if (x86_acpi && x86_acpi->lapic_base)
		phys = x86_acpi->lapic_base;
	x2apic = cpuid(1, 0).ecx & (1u << 21);
	tsc_deadline = cpuid(1, 0).ecx & (1u << 24);
	if (!(base & APIC_BASE_EN))
		wrmsr(MSR_APIC_BASE, base | APIC_BASE_EN);
	if (!x2apic) {
		lapic = mm_map_uc(phys, PAGE_SIZE);
		if (!lapic) {
			pr_warn("x86_64: local APIC at %#llx is not below "
				"4 GiB, cannot map it\n",
				(unsigned long long)phys);
			return -ENODEV;
		}
	}
	lapic_enable_local();
	ticks_per_us = timer_calibrate();
	pr_info("x86_64: local APIC %s at %#llx, boot CPU APIC ID %u\n",
		x2apic ? "x2APIC" : "xAPIC", (unsigned long long)phys,
		x86_apic_id());
	return 0;
}
