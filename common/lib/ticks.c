/* SPDX-License-Identifier: MIT */
/*
 * Ticks to nanoseconds: every phase is timed in raw arch_ticks() (TSC,
 * CNTVCT_EL0, the host's monotonic clock) and converted only where a
 * number is printed.
 */
#include <arch/cpu.h>
#include <keel/ticks.h>

/**
 * ticks_to_ns() - convert a tick delta to ns without overflow.
 * @delta: ticks
 *
 * Split into whole seconds and a remainder so that no 128-bit division
 * (a libgcc call on freestanding targets) is needed: the remainder is
 * below hz, so rem * 1e9 fits in 64 bits for any hz up to 18 GHz; faster
 * timers are scaled down first.
 *
 * Return: ns, 0 when the timer rate is unknown.
 */
uint64_t ticks_to_ns(uint64_t delta)
{
	uint64_t hz = arch_ticks_hz();
	uint64_t sec, rem;

	if (!hz)
		return 0;
	while (hz > 18000000000ull) {
		hz >>= 1;
		delta >>= 1;
	}
	sec = delta / hz;
	rem = delta % hz;
	return sec * 1000000000ull + rem * 1000000000ull / hz;
}

/**
 * ticks_to_ns_since_entry() - absolute ticks to ns since kernel entry.
 * @ticks: an arch_ticks() value
 *
 * Return: ns since arch_entry_ticks (0 for stamps taken before entry).
 */
uint64_t ticks_to_ns_since_entry(uint64_t ticks)
{
	if (ticks <= arch_entry_ticks)
		return 0;
	return ticks_to_ns(ticks - arch_entry_ticks);
}
