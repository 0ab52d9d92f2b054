/* SPDX-License-Identifier: MIT */
/*
 * Owner: lib.
 * Raw ticks (arch_ticks(): TSC, CNTVCT_EL0, the sandbox's monotonic clock)
 * to nanoseconds (common/lib/ticks.c). Phases keep raw ticks; only what
 * prints a number converts them.
 */
#ifndef KEEL_TICKS_H
#define KEEL_TICKS_H

#include <keel/types.h>

/* A tick delta in ns, without 128-bit division; 0 when the rate is unknown. */
uint64_t ticks_to_ns(uint64_t delta);
/* An absolute arch_ticks() value in ns since kernel entry (0 before it). */
uint64_t ticks_to_ns_since_entry(uint64_t ticks);

#endif
