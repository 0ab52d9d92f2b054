// SPDX-License-Identifier: MIT
/*
 * Bounded progress lines for long phases (include/keel/progress.h).
 *
 * When a line is due: never before PROGRESS_FIRST_S into the phase, then
 * no sooner than PROGRESS_PERIOD_S after the last one, and no sooner than
 * a tenth of the phase's estimated length (elapsed * total / done), so
 * that PROGRESS_MAX_LINES lines cover the whole phase instead of its first
 * minute. After the last allowed line the phase is silent until its own
 * summary line.
 */
#include <arch/cpu.h>
#include <keel/printk.h>
#include <keel/progress.h>
#include <keel/ticks.h>

void progress_begin(struct progress *p, const char *what, uint64_t total)
{
	p->what = what;
	p->total = total;
	p->start = arch_ticks();
	p->next = p->start + PROGRESS_FIRST_S * arch_ticks_hz();
	p->lines = 0;
}

/* Bytes in the unit the line prints them in: GiB above 10 GiB, else MiB. */
static void print_line(const struct progress *p, uint64_t done, uint64_t ns)
{
	bool gib = p->total >= (10ULL << 30);
	unsigned int shift = gib ? 30 : 20;
	uint64_t pct = done * 100 / p->total;
	/* GB/s with one decimal: bytes per ns * 10. */
	uint64_t gbps10 = ns ? done * 10 / ns : 0;
	uint64_t left_s = (uint64_t)((__uint128_t)(ns / 1000000000ULL) *
				     (p->total - done) / done);

	pr_info("%s: %llu%% done, %llu %s of %llu %s, %llu.%llu GB/s, about "
		"%llu s left\n",
		p->what, (unsigned long long)pct,
		(unsigned long long)(done >> shift), gib ? "GiB" : "MiB",
		(unsigned long long)(p->total >> shift), gib ? "GiB" : "MiB",
		(unsigned long long)(gbps10 / 10),
		(unsigned long long)(gbps10 % 10), (unsigned long long)left_s);
}

bool progress_update_at(struct progress *p, uint64_t done, uint64_t now)
{
	uint64_t hz = arch_ticks_hz(), elapsed, spread;

	if (!p->total || done >= p->total || p->lines >= PROGRESS_MAX_LINES ||
	    now < p->next || !done)
		return false;
	elapsed = now - p->start;
	print_line(p, done, ticks_to_ns(elapsed));
	p->lines++;
	/* A tenth of the estimated phase, but at least the period. */
	spread = (uint64_t)((__uint128_t)elapsed * p->total / done /
			    PROGRESS_MAX_LINES);
	p->next = now + (spread > PROGRESS_PERIOD_S * hz
				 ? spread
				 : PROGRESS_PERIOD_S * hz);
	return true;
}

void progress_update(struct progress *p, uint64_t done)
{
	progress_update_at(p, done, arch_ticks());
}
