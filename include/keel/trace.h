/* SPDX-License-Identifier: MIT */
/*
 * Owner: smp.
 * Boot timing, bootstage-style: per-CPU buffers of raw tick stamps, converted
 * to ns only in the report. Compiled to nothing with CONFIG_TRACE=n.
 * Names are string literals (they are stored by pointer).
 */
#ifndef KEEL_TRACE_H
#define KEEL_TRACE_H

#include <keel/config.h>
#include <keel/enum_names.h>
#include <keel/ticks.h>
#include <keel/types.h>

struct jw;

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

/*
 * trace= (docs/cmdline.md): summary (default) keeps detail events (one per
 * scrub unit) out of the per-CPU buffers and only sums them per node and
 * per CPU; full records every one of them as well.
 */
enum trace_mode {
	TRACE_MODE_SUMMARY = 0,
	TRACE_MODE_FULL,
};
/* trace= words and trace_mode (common/smp/trace.c). */
extern const struct enum_name trace_mode_names[];
/* trace= for this boot (keel_main()); trace_full(): is it full? */
void trace_set_mode(enum trace_mode mode);

/*
 * The sum of completed detail begin/end pairs (arg0 = node, arg1 = bytes)
 * of one node or one CPU. Ticks are absolute (arch_ticks()); busy_ticks is
 * the sum of end - begin (per node: over every CPU, so it may exceed
 * last - first).
 */
struct trace_summary {
	const char *name; /* NULL while nothing was recorded */
	uint64_t count;
	uint64_t arg1; /* bytes */
	uint64_t first_ticks, last_ticks, busy_ticks;
};

#define TRACE_EVENTS_PER_CPU 512
/* Slots of each buffer that detail events (scrub units) may not use. */
#define TRACE_PHASE_RESERVE 32

#ifdef CONFIG_TRACE
void trace_event(const char *name, enum trace_kind kind, uint64_t arg0,
		 uint64_t arg1);
/*
 * trace_detail(): a high-volume event (one per scrub unit), arg0 = node,
 * arg1 = bytes. Always summed per node and per CPU (trace_summary_*());
 * stored in the buffer only with trace=full, and then it stops being
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

/*
 * trace_summary_node() / trace_summary_cpu(): the detail events of node
 * @node (arg0) or recorded by CPU @cpu, whatever the trace mode. Return:
 * false when there are none.
 */
bool trace_summary_node(unsigned int node, struct trace_summary *out);
bool trace_summary_cpu(unsigned int cpu, struct trace_summary *out);
/* trace_full(): trace=full is in force (detail events are in the buffers). */
bool trace_full(void);

/* CPUs whose events are recorded (the boot CPU's static buffer, others'). */
unsigned int trace_cpus_recorded(void);

#endif
