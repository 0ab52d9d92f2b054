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
 * writes its own sum, no lock) and per node (arg0; several CPUs add to one
 * node, so with atomics: add for counts, compare-exchange for the first/last
 * stamps). With trace=summary (the default) that sum is all that is kept of
 * them, so the report stays small on big machines and tiny scrub units
 * never fill the buffers; trace=full stores every one as well.
 *
 * Ticks stay raw until the report converts them with ticks_to_ns*().
 *
 * Sizing: the boot CPU traces from kernel entry, before any allocator, so
 * its buffer is static; trace_init_cpus() (from smp_init(), once the CPUs
 * and their nodes are known) takes the buffers of CPUs 1..count-1 from
 * bootmem, one piece per node on that node. Before that, for ids >=
 * trace_cpus and for a CPU whose node's piece found no RAM, events are
 * not recorded.
 */
#include <arch/cpu.h>
#include <arch/mm.h>
#include <keel/atomic.h>
#include <keel/bootmem.h>
#include <keel/compiler.h>
#include <keel/cpumask.h>
#include <keel/printk.h>
#include <keel/string.h>
#include <keel/trace.h>
#include <keel/smp.h>

static enum trace_mode trace_mode = TRACE_MODE_SUMMARY;

/** trace_set_mode() - trace= for this boot (keel_main(), once parsed). */
void trace_set_mode(enum trace_mode mode)
{
	trace_mode = mode;
}

/** trace_full() - Return: trace=full is in force. */
bool trace_full(void)
{
	return trace_mode == TRACE_MODE_FULL;
}

#ifdef CONFIG_TRACE
struct trace_cpu {
	struct trace_event buf[TRACE_EVENTS_PER_CPU];
	uint32_t count;
	bool overflow;
	/* A detail begin was dropped: drop its end as well (own CPU only). */
	bool detail_dropped;
	struct trace_summary sum; /* this CPU's detail events */
	uint64_t detail_begin;	  /* stamp of its open detail begin, 0: none */
};

static struct trace_summary trace_node_sum[MAX_NUMNODES];

static struct trace_cpu trace_boot_cpu;
/* CPUs 1 .. trace_cpus - 1: per node, near their CPUs (smp.h). */
static struct smp_percpu trace_other;
static unsigned int trace_cpus = 1;

static struct trace_cpu *trace_cpu(unsigned int cpu)
{
	if (cpu == 0)
		return &trace_boot_cpu;
	return cpu < trace_cpus ? smp_percpu_ptr(&trace_other, cpu) : NULL;
}

/**
 * trace_init_cpus() - buffers for CPUs 1 .. @count - 1 from bootmem, the
 * buffers of each node's CPUs on that node (smp_percpu_alloc_local()): a
 * table of all of them would be larger than a small node (4096 CPUs'
 * are 80 MiB).
 * @count: CPUs of this boot (cpu_count; cpu_table filled)
 *
 * The boot CPU's buffer (static) keeps what it recorded so far; its slot
 * in the per-node pieces goes unused.
 */
void trace_init_cpus(unsigned int count)
{
	unsigned int missing;

	trace_cpus = 1;
	if (count <= 1)
		return;
	missing = smp_percpu_alloc_local(&trace_other, sizeof(struct trace_cpu),
					 "trace buffers");
	if (missing)
		pr_warn("trace: no free RAM for %u CPUs' buffers, those CPUs "
			"are not traced\n",
			missing);
	atomic_store_release(&trace_cpus, count);
}

static void trace_record(unsigned int cpu, uint32_t limit, const char *name,
			 enum trace_kind kind, uint64_t arg0, uint64_t arg1)
{
	struct trace_cpu *tc = trace_cpu(cpu);
	struct trace_event *ev;
	uint32_t idx;

	if (!tc)
		return;
	idx = atomic_load_relaxed(&tc->count);
	if (idx >= limit) {
		atomic_store_relaxed(&tc->overflow, true);
		return;
	}
	ev = &tc->buf[idx];
	ev->name = name;
	ev->ticks = arch_ticks();
	ev->arg0 = arg0;
	ev->arg1 = arg1;
	ev->cpu = (uint16_t)cpu;
	ev->kind = (uint8_t)kind;
	atomic_store_release(&tc->count, idx + 1);
}

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
 * Sum one detail event of the CPU owning @tc. A begin only remembers its
 * stamp; the end adds the completed pair, so a pair still open at the
 * report is not counted (as in the buffers, where it would be an open
 * slice).
 */
static void trace_detail_sum(struct trace_cpu *tc, const char *name,
			     enum trace_kind kind, uint64_t node,
			     uint64_t bytes)
{
	struct trace_summary *c = &tc->sum;
	uint64_t now = arch_ticks();
	uint64_t begin = tc->detail_begin;

	if (kind == TRACE_BEGIN) {
		tc->detail_begin = now;
		return;
	}
	if (kind != TRACE_END || !begin)
		return;
	tc->detail_begin = 0;
	atomic_store_relaxed(&c->name, name);
	atomic_store_relaxed(&c->count, c->count + 1);
	atomic_store_relaxed(&c->arg1, c->arg1 + bytes);
	atomic_store_relaxed(&c->busy_ticks, c->busy_ticks + (now - begin));
	if (!c->first_ticks)
		atomic_store_relaxed(&c->first_ticks, begin);
	atomic_store_relaxed(&c->last_ticks, now);
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
	trace_record(arch_cpu_id(), TRACE_EVENTS_PER_CPU, name, kind, arg0,
		     arg1);
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
	struct trace_cpu *tc = trace_cpu(cpu);
	uint32_t idx;

	if (!tc)
		return;
	trace_detail_sum(tc, name, kind, arg0, arg1);
	if (!trace_full())
		return;
	if (kind == TRACE_END && tc->detail_dropped) {
		tc->detail_dropped = false;
		return;
	}
	idx = atomic_load_relaxed(&tc->count);
	/* A begin needs room for its end. */
	if (kind == TRACE_BEGIN && idx + 1 >= limit) {
		tc->detail_dropped = true;
		atomic_store_relaxed(&tc->overflow, true);
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
	const struct trace_cpu *tc;

	*count = 0;
	if (overflowed)
		*overflowed = false;
	if (cpu >= atomic_load_acquire(&trace_cpus))
		return NULL;
	tc = trace_cpu(cpu);
	if (!tc)
		return NULL;
	*count = atomic_load_acquire(&tc->count);
	if (overflowed)
		*overflowed = atomic_load_relaxed(&tc->overflow);
	return *count ? tc->buf : NULL;
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
	const struct trace_cpu *tc;

	*out = (struct trace_summary){0};
	if (cpu >= atomic_load_acquire(&trace_cpus))
		return false;
	tc = trace_cpu(cpu);
	return tc && trace_summary_copy(&tc->sum, out);
}
/* CPUs with a buffer: every CPU of the boot unless a node found no RAM. */
unsigned int trace_cpus_recorded(void)
{
	unsigned int n = 0, cpus = atomic_load_acquire(&trace_cpus);

	for (unsigned int c = 0; c < cpus; c++)
		n += trace_cpu(c) != NULL;
	return n;
}

#else
unsigned int trace_cpus_recorded(void)
{
	return 0; /* CONFIG_TRACE off: nothing is recorded */
}

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

const struct enum_name trace_mode_names[] = {
	{TRACE_MODE_SUMMARY, "summary"},
	{TRACE_MODE_FULL, "full"},
	ENUM_NAMES_END,
};
