/* SPDX-License-Identifier: MIT */
/*
 * The boot timer: the TSC, calibrated once on the boot CPU before
 * keel_main(). Sources, best first:
 *   1. hypervisor leaf 0x40000010 EAX (TSC kHz), only when the hypervisor's
 *      max leaf 0x40000000.EAX reaches it (TCG reports 0x40000001 and its
 *      0x40000010 reads garbage);
 *   2. CPUID 0x15 (crystal ratio) when it gives both ratio and crystal;
 *   3. the PIT: channel 2 counts a fixed interval in one-shot mode (gate via
 *      port 0x61, output read back in bit 5), best of three runs.
 * The PIT always runs as a cross-check of 1 and 2: a disagreement over 2%
 * is reported and the PIT wins (a firmware/hypervisor bug is likelier than
 * a broken PIT). CPUID 0x16 (nominal MHz) is only printed. The ACPI PM
 * timer (3.579545 MHz, port from the FADT) is a second cross-check when
 * the tables have one in I/O space, and the fallback when the PIT is dead;
 * the HPET (ACPI HPET table, MMIO mapped uncached) is a third cross-check
 * and the first fallback.
 * Invariant TSC (CPUID 0x80000007 EDX bit 8) is reported; without it (TCG)
 * the TSC still runs at a constant rate in practice but is not promised to.
 */
#include <asm/x86.h>
#include <keel/acpi.h>
#include <keel/bootinfo.h>
#include <keel/printk.h>
#include <keel/string.h>

#define PIT_HZ	     1193182ULL
#define PIT_TICKS    11932 /* ~10 ms */
#define PIT_RUNS     3
#define PIT_POLL_MAX 50000000u /* bound when no PIT answers */

/* One PIT channel 2 one-shot. Return: TSC ticks over PIT_TICKS, 0 on timeout. */
static uint64_t pit_measure(void)
{
	uint8_t ctl = inb(0x61);
	uint64_t t0, t1;
	unsigned int i;

	/* Gate low, speaker off; channel 2, lo/hi byte, mode 0, binary. */
	outb(0x61, (ctl & ~0x03) | 0x00);
	outb(0x43, 0xb0);
	outb(0x42, PIT_TICKS & 0xff);
	outb(0x42, PIT_TICKS >> 8);
	/* A rising gate starts the count; OUT2 (0x61 bit 5) rises at zero. */
	outb(0x61, (ctl & ~0x03) | 0x01);
	t0 = rdtsc();
	for (i = 0; i < PIT_POLL_MAX; i++)
		if (inb(0x61) & 0x20)
			break;
	t1 = rdtsc();
	outb(0x61, ctl & ~0x03);
	return i == PIT_POLL_MAX ? 0 : t1 - t0;
}

static uint64_t pit_calibrate(void)
{
	uint64_t best = 0;

	for (int r = 0; r < PIT_RUNS; r++) {
		uint64_t d = pit_measure();

		if (d && (!best || d < best))
			best = d;
	}
	return best * PIT_HZ / PIT_TICKS;
}

#define PM_TIMER_HZ    3579545ULL
#define PM_TIMER_TICKS 35795 /* ~10 ms */

/* TSC rate against the ACPI PM timer. Return: Hz, 0 when unusable. */
static uint64_t pm_timer_calibrate(void)
{
	const struct acpi_info *ai = x86_acpi;
	uint32_t mask, start, now = 0;
	uint64_t t0, t1, best = 0, elapsed = 0;
	uint16_t port;

	if (!ai || !ai->pm_timer.address ||
	    ai->pm_timer.space_id != ACPI_GAS_IO ||
	    ai->pm_timer.address > 0xffff)
		return 0;
	port = (uint16_t)ai->pm_timer.address;
	mask = ai->pm_timer_bits == 32 ? 0xffffffffu : 0xffffffu;
	for (int r = 0; r < PIT_RUNS; r++) {
		unsigned int i;

		start = inl(port) & mask;
		t0 = rdtsc();
		for (i = 0; i < PIT_POLL_MAX; i++) {
			now = inl(port) & mask;
			elapsed = (now - start) & mask;
			if (elapsed >= PM_TIMER_TICKS)
				break;
		}
		t1 = rdtsc();
		if (i == PIT_POLL_MAX)
			return 0;
		if (!best || (t1 - t0) * PM_TIMER_TICKS < best * elapsed)
			best = (t1 - t0) * PM_TIMER_TICKS / elapsed;
	}
	return best * PM_TIMER_HZ / PM_TIMER_TICKS;
}

#define HPET_CAP	 0x000
#define HPET_CFG	 0x010
#define HPET_COUNTER	 0x0f0
#define HPET_CFG_ENABLE	 0x1
#define HPET_MAX_PERIOD	 100000000ULL	   /* fs: the spec's 100 ns bound */
#define HPET_INTERVAL_FS 10000000000000ULL /* 10 ms */

/*
 * TSC rate against the HPET main counter (ACPI HPET table; its page is
 * mapped uncached). The counter is enabled for the measurement when the
 * firmware left it off, and put back as it was. Return: Hz, 0 when unusable.
 */
static uint64_t hpet_calibrate(void)
{
	const struct acpi_info *ai = x86_acpi;
	volatile uint64_t *hpet;
	uint64_t period, cfg, ticks, best = 0, best_n = 1;

	if (!ai || !ai->hpet_base)
		return 0;
	hpet = mm_map_uc(ai->hpet_base, PAGE_SIZE);
	if (!hpet)
		return 0;
	period = hpet[HPET_CAP / 8] >> 32;
	if (!period || period > HPET_MAX_PERIOD) {
		pr_warn("tsc: HPET counter period %llu fs is out of range\n",
			(unsigned long long)period);
		return 0;
	}
	ticks = HPET_INTERVAL_FS / period;
	cfg = hpet[HPET_CFG / 8];
	if (!(cfg & HPET_CFG_ENABLE))
		hpet[HPET_CFG / 8] = cfg | HPET_CFG_ENABLE;
	for (int r = 0; r < PIT_RUNS; r++) {
		/* 32-bit reads: the counter may be 32 bits wide. */
		volatile uint32_t *cnt =
			(volatile uint32_t *)&hpet[HPET_COUNTER / 8];
		uint32_t start = *cnt, n = 0;
		uint64_t t0 = rdtsc(), t1;
		unsigned int i;

		for (i = 0; i < PIT_POLL_MAX; i++) {
			n = *cnt - start;
			if (n >= ticks)
				break;
		}
		t1 = rdtsc();
		if (i == PIT_POLL_MAX)
			break;
		if (!best || (t1 - t0) * best_n < best * n) {
			best = t1 - t0;
			best_n = n;
		}
	}
	hpet[HPET_CFG / 8] = cfg;
	if (!best)
		return 0;
	/* best TSC ticks over best_n * period fs. */
	return best * (1000000000000000ULL / period) / best_n;
}

static uint64_t hypervisor_hz(void)
{
	uint32_t max;

	if (!(cpuid(1, 0).ecx & (1u << 31)))
		return 0;
	max = cpuid(0x40000000, 0).eax;
	if (max < 0x40000010 || max > 0x400000ff)
		return 0;
	return (uint64_t)cpuid(0x40000010, 0).eax * 1000;
}

static uint64_t cpuid15_hz(uint32_t max_leaf)
{
	struct cpuid_regs r;

	if (max_leaf < 0x15)
		return 0;
	r = cpuid(0x15, 0);
	if (!r.eax || !r.ebx || !r.ecx)
		return 0;
	return (uint64_t)r.ecx * r.ebx / r.eax;
}

static bool close_enough(uint64_t a, uint64_t b)
{
	uint64_t d = a > b ? a - b : b - a;

	return d * 50 <= b; /* within 2% */
}

static void tsc_record(struct bootinfo *bi, uint64_t hz, const char *by,
		       bool invariant)
{
	tsc_hz = hz;
	bi->timer_source = "tsc";
	bi->timer_calibrated_by = by;
	bi->timer_hz = hz;
	if (!strcmp(by, "handover"))
		pr_info("tsc: %llu.%03llu MHz (measured by the last image, "
			"handed over), invariant TSC: %s\n",
			(unsigned long long)(hz / 1000000),
			(unsigned long long)(hz / 1000 % 1000),
			invariant ? "yes" : "no");
}

/*
 * The TSC rate from the clocks measured (0: unusable), *@by naming the
 * one taken: the PIT, unless the HPET and the ACPI PM timer agree on
 * another rate (each PIT run interrupted); then the HPET, then the PM
 * timer. Return: Hz, 0 when none measured.
 */
static uint64_t measured(uint64_t pit, uint64_t pm, uint64_t hpet,
			 const char **by)
{
	uint64_t hz = 0;

	if (pit && pm && !close_enough(pm, pit))
		pr_warn("tsc: the PIT measures %llu Hz but the ACPI PM timer "
			"%llu Hz\n",
			(unsigned long long)pit, (unsigned long long)pm);
	if (pit && hpet && !close_enough(hpet, pit))
		pr_warn("tsc: the PIT measures %llu Hz but the HPET %llu Hz\n",
			(unsigned long long)pit, (unsigned long long)hpet);
	if (!hz && pit && hpet && pm && close_enough(hpet, pm) &&
	    !close_enough(hpet, pit)) {
		/* Two clocks agree: the PIT's runs were each interrupted. */
		pr_warn("tsc: the HPET and the ACPI PM timer agree on %llu Hz: "
			"using the HPET, not the PIT\n",
			(unsigned long long)hpet);
		hz = hpet;
		*by = "hpet";
	}
	if (!hz) {
		hz = pit;
		*by = "pit";
	}
	if (!hz) {
		hz = hpet;
		*by = "hpet";
	}
	if (!hz) {
		hz = pm;
		*by = "acpi_pm";
	}
	return hz;
}

/**
 * tsc_init() - calibrate the TSC and record it in @bi; after a live
 * update, take the rate the last image measured (x86_lu_ticks_hz()).
 */
void tsc_init(struct bootinfo *bi)
{
	uint32_t max_leaf = cpuid(0, 0).eax;
	uint64_t pit, pm, hpet, m, hz = x86_lu_ticks_hz();
	const char *by = "handover", *mby = NULL;
	bool invariant = cpuid(0x80000000, 0).eax >= 0x80000007 &&
			 (cpuid(0x80000007, 0).edx & (1u << 8));

	if (hz) { /* a live update: the last image's measure, ~90 ms saved */
		tsc_record(bi, hz, by, invariant);
		return;
	}
	pit = pit_calibrate();
	pm = pm_timer_calibrate();
	hpet = hpet_calibrate();
	hz = hypervisor_hz();
	by = "hypervisor";
	if (!hz) {
		hz = cpuid15_hz(max_leaf);
		by = "cpuid";
	}
	if (hz && pit && !close_enough(hz, pit)) {
		pr_warn("tsc: %s says %llu Hz but the PIT measures %llu Hz; "
			"using the PIT\n",
			by, (unsigned long long)hz, (unsigned long long)pit);
		hz = 0;
	}
	m = measured(pit, pm, hpet, &mby); /* its warnings in any case */
	if (!hz) {
		hz = m;
		by = mby;
	}
	if (!hz) {
		pr_warn("tsc: no PIT and no CPUID frequency; assuming 1 GHz\n");
		hz = 1000000000ULL;
		by = "none";
	}
	if (max_leaf >= 0x16 && cpuid(0x16, 0).eax)
		pr_info("tsc: CPUID 0x16 nominal %u MHz\n", cpuid(0x16, 0).eax);
	tsc_record(bi, hz, by, invariant);
	pr_info("tsc: %llu.%03llu MHz (%s; PIT %llu Hz, ACPI PM timer %llu "
		"Hz, HPET %llu Hz), invariant TSC: %s\n",
		(unsigned long long)(hz / 1000000),
		(unsigned long long)(hz / 1000 % 1000), by,
		(unsigned long long)pit, (unsigned long long)pm,
		(unsigned long long)hpet, invariant ? "yes" : "no");
}
