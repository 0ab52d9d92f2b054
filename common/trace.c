/* SPDX-License-Identifier: MIT */
/*
 * Boot timing trace (bootstage-style).
 *
 * Owns one bounded buffer of TRACE_EVENTS_PER_CPU events per logical CPU.
 * Invariant: only CPU c appends to buffer c, so appending needs no lock;
 * the count is published with release so that a reader on another CPU that
 * loads it with acquire sees complete events. When a buffer is full, later
 * events of that CPU are dropped and its overflow flag is set (the report
 * says so) - the first events of a boot are the ones worth keeping. Detail
 * events (trace_detail: one per scrub unit) leave the last
 * TRACE_PHASE_RESERVE slots to phase events, so a boot with many small
 * scrub units still records the end of the scrub, the audit and the report.
 *
 * Detail events are also summed, whatever the mode: per CPU (only CPU c
 * writes trace_cpu_sum[c], no lock) and per node (arg0; several CPUs add
 * to one node, so with atomics: add for counts, compare-exchange for the
 * first/last stamps). With trace=summary (the default) that sum is all that
 * is kept of them, so the report stays small on big machines and tiny
 * scrub units never fill the buffers; trace=full stores every one as well.
 *
 * Ticks stay raw until the report converts them with ticks_to_ns*().
 */
#include <arch/cpu.h>
#include <keel/atomic.h>
#include <keel/cpumask.h>
#include <keel/options.h>
#include <keel/trace.h>

/** trace_full() - Return: trace=full is in force. */
bool trace_full(void)
{
	return opts.trace == TRACE_MODE_FULL;
}

#ifdef CONFIG_TRACE
static struct trace_event trace_buf[NR_CPUS][TRACE_EVENTS_PER_CPU];
static uint32_t trace_count[NR_CPUS];
static bool trace_overflow[NR_CPUS];
/* A detail begin was dropped: drop its end as well (only CPU c writes [c]). */
static bool trace_detail_dropped[NR_CPUS];
static struct trace_summary trace_cpu_sum[NR_CPUS];
static struct trace_summary trace_node_sum[MAX_NUMNODES];
/* Stamp of the open detail begin of each CPU (0: none open). */
static uint64_t trace_detail_begin[NR_CPUS];

static void atomic_min_u64(uint64_t *p, uint64_t v)
{
	uint64_t cur = atomic_load_relaxed(p);

	while ((!cur || v < cur) && !atomic_cmpxchg(p, &cur, v))
		;
}

static void atomic_max_u64(uint64_t *p, uint64_t v)
{
	uint64_t cur = atomic_load_relaxed(p);

	while (v > cur && !atomic_cmpxchg(p, &cur, v))
		;
}

/*
 * Sum one detail event of @cpu. A begin only remembers its stamp; the end
 * adds the completed pair, so a pair still open at the report is not
 * counted (as in the buffers, where it would be an open slice).
 */
static void trace_detail_sum(unsigned int cpu, const char *name,
			     enum trace_kind kind, uint64_t node,
			     uint64_t bytes)
{
	struct trace_summary *c = &trace_cpu_sum[cpu];
	uint64_t now = arch_ticks();
	uint64_t begin = trace_detail_begin[cpu];

	if (kind == TRACE_BEGIN) {
		trace_detail_begin[cpu] = now;
		return;
	}
	if (kind != TRACE_END || !begin)
		return;
	trace_detail_begin[cpu] = 0;
	c->name = name;
	c->count++;
	c->arg1 += bytes;
	c->busy_ticks += now - begin;
	if (!c->first_ticks)
		c->first_ticks = begin;
	c->last_ticks = now;
	if (node < MAX_NUMNODES) {
		struct trace_summary *n = &trace_node_sum[node];

		atomic_store_relaxed(&n->name, name);
		atomic_fetch_add_relaxed(&n->count, 1);
		atomic_fetch_add_relaxed(&n->arg1, bytes);
		atomic_fetch_add_relaxed(&n->busy_ticks, now - begin);
		atomic_min_u64(&n->first_ticks, begin);
		atomic_max_u64(&n->last_ticks, now);
	}
}

static void trace_record(unsigned int cpu, uint32_t limit, const char *name,
			 enum trace_kind kind, uint64_t arg0, uint64_t arg1)
{
	struct trace_event *ev;
	uint32_t idx;

	idx = atomic_load_relaxed(&trace_count[cpu]);
	if (idx >= limit) {
		atomic_store_relaxed(&trace_overflow[cpu], true);
		return;
	}
	ev = &trace_buf[cpu][idx];
	ev->name = name;
	ev->ticks = arch_ticks();
	ev->arg0 = arg0;
	ev->arg1 = arg1;
	ev->cpu = (uint16_t)cpu;
	ev->kind = (uint8_t)kind;
	atomic_store_release(&trace_count[cpu], idx + 1);
}

/**
 * trace_event() - record one event on the calling CPU.
 * @name: a string literal (stored by pointer)
 * @kind: mark, begin or end
 * @arg0: free-form (e.g. node)
 * @arg1: free-form (e.g. bytes)
 */
void trace_event(const char *name, enum trace_kind kind, uint64_t arg0,
		 uint64_t arg1)
{
	unsigned int cpu = arch_cpu_id();

	if (cpu < NR_CPUS)
		trace_record(cpu, TRACE_EVENTS_PER_CPU, name, kind, arg0, arg1);
}

/**
 * trace_detail() - record a high-volume event, keeping room for phases.
 * @name: a string literal (stored by pointer)
 * @kind: mark, begin or end
 * @arg0: free-form (e.g. node)
 * @arg1: free-form (e.g. bytes)
 */
void trace_detail(const char *name, enum trace_kind kind, uint64_t arg0,
		  uint64_t arg1)
{
	const uint32_t limit = TRACE_EVENTS_PER_CPU - TRACE_PHASE_RESERVE;
	unsigned int cpu = arch_cpu_id();
	uint32_t idx;

	if (cpu >= NR_CPUS)
		return;
	trace_detail_sum(cpu, name, kind, arg0, arg1);
	if (!trace_full())
		return;
	if (kind == TRACE_END && trace_detail_dropped[cpu]) {
		trace_detail_dropped[cpu] = false;
		return;
	}
	idx = atomic_load_relaxed(&trace_count[cpu]);
	/* A begin needs room for its end. */
	if (kind == TRACE_BEGIN && idx + 1 >= limit) {
		trace_detail_dropped[cpu] = true;
		atomic_store_relaxed(&trace_overflow[cpu], true);
		return;
	}
	trace_record(cpu, limit, name, kind, arg0, arg1);
}

/**
 * trace_events() - the events recorded by @cpu so far.
 * @cpu: logical CPU
 * @count: out: number of events
 * @overflowed: out: events were dropped (may be NULL)
 *
 * Return: the first event, or NULL when there are none.
 */
const struct trace_event *trace_events(unsigned int cpu, unsigned int *count,
				       bool *overflowed)
{
	*count = 0;
	if (overflowed)
		*overflowed = false;
	if (cpu >= NR_CPUS)
		return NULL;
	*count = atomic_load_acquire(&trace_count[cpu]);
	if (overflowed)
		*overflowed = atomic_load_relaxed(&trace_overflow[cpu]);
	return *count ? trace_buf[cpu] : NULL;
}

static bool trace_summary_copy(const struct trace_summary *s,
			       struct trace_summary *out)
{
	out->name = atomic_load_relaxed(&s->name);
	out->count = atomic_load_relaxed(&s->count);
	out->arg1 = atomic_load_relaxed(&s->arg1);
	out->first_ticks = atomic_load_relaxed(&s->first_ticks);
	out->last_ticks = atomic_load_relaxed(&s->last_ticks);
	out->busy_ticks = atomic_load_relaxed(&s->busy_ticks);
	return out->count != 0;
}

/**
 * trace_summary_node() - the completed detail pairs whose arg0 is @node.
 * @node: node id
 * @out: filled (zero when there are none)
 *
 * Return: true when there is at least one.
 */
bool trace_summary_node(unsigned int node, struct trace_summary *out)
{
	*out = (struct trace_summary){0};
	if (node >= MAX_NUMNODES)
		return false;
	return trace_summary_copy(&trace_node_sum[node], out);
}

/**
 * trace_summary_cpu() - the completed detail pairs recorded by @cpu.
 * @cpu: logical CPU
 * @out: filled (zero when there are none)
 *
 * Return: true when there is at least one.
 */
bool trace_summary_cpu(unsigned int cpu, struct trace_summary *out)
{
	*out = (struct trace_summary){0};
	if (cpu >= NR_CPUS)
		return false;
	return trace_summary_copy(&trace_cpu_sum[cpu], out);
}
#else
const struct trace_event *trace_events(unsigned int cpu, unsigned int *count,
				       bool *overflowed)
{
	(void)cpu;
	*count = 0;
	if (overflowed)
		*overflowed = false;
	return NULL;
}

bool trace_summary_node(unsigned int node, struct trace_summary *out)
{
	(void)node;
	*out = (struct trace_summary){0};
	return false;
}

bool trace_summary_cpu(unsigned int cpu, struct trace_summary *out)
{
	(void)cpu;
	*out = (struct trace_summary){0};
	return false;
}
#endif

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
