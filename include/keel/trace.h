/* SPDX-License-Identifier: MIT */
/*
 * Boot timing, bootstage-style: per-CPU buffers of raw tick stamps, converted
 * to ns only in the report. Compiled to nothing with CONFIG_TRACE=n.
 * Names are string literals (they are stored by pointer).
 */
#ifndef KEEL_TRACE_H
#define KEEL_TRACE_H

#include <keel/config.h>
#include <keel/types.h>

enum trace_kind {
	TRACE_MARK = 0,
	TRACE_BEGIN,
	TRACE_END,
};

struct trace_event {
	const char *name;
	uint64_t ticks;
	uint64_t arg0, arg1; /* e.g. node, bytes of a scrub unit */
	uint16_t cpu;
	uint8_t kind;
};

#define TRACE_EVENTS_PER_CPU 512
/* Slots of each buffer that detail events (scrub units) may not use. */
#define TRACE_PHASE_RESERVE 32

#ifdef CONFIG_TRACE
void trace_event(const char *name, enum trace_kind kind, uint64_t arg0,
		 uint64_t arg1);
/*
 * trace_detail(): a high-volume event (one per scrub unit). It stops being
 * recorded TRACE_PHASE_RESERVE slots before the buffer is full, so phase
 * boundaries recorded later still fit; a dropped begin drops its end too.
 */
void trace_detail(const char *name, enum trace_kind kind, uint64_t arg0,
		  uint64_t arg1);
/*
 * trace_init_cpus(): buffers for logical CPUs 1..@count-1, from bootmem
 * (the boot CPU's is static: it traces from entry). Called by smp_init().
 */
void trace_init_cpus(unsigned int count);
#else
static inline void trace_init_cpus(unsigned int count)
{
	(void)count;
}
static inline void trace_event(const char *name, enum trace_kind kind,
			       uint64_t arg0, uint64_t arg1)
{
	(void)name, (void)kind, (void)arg0, (void)arg1;
}
static inline void trace_detail(const char *name, enum trace_kind kind,
				uint64_t arg0, uint64_t arg1)
{
	(void)name, (void)kind, (void)arg0, (void)arg1;
}
#endif

#define trace_mark(name)  trace_event((name), TRACE_MARK, 0, 0)
#define trace_begin(name) trace_event((name), TRACE_BEGIN, 0, 0)
#define trace_end(name)	  trace_event((name), TRACE_END, 0, 0)

/* Iterate all recorded events of @cpu; overflowed: events were dropped. */
const struct trace_event *trace_events(unsigned int cpu, unsigned int *count,
				       bool *overflowed);

/* Convert raw ticks (absolute) to ns since kernel entry. */
uint64_t ticks_to_ns_since_entry(uint64_t ticks);
/* Convert a tick delta to ns. */
uint64_t ticks_to_ns(uint64_t delta);

#endif
