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
 * Ticks stay raw until the report converts them with ticks_to_ns*().
 *
 * Sizing: the boot CPU traces from kernel entry, before any allocator, so
 * its buffer is static; trace_init_cpus() (from smp_init(), once the CPU
 * count is known) takes the buffers of CPUs 1..count-1 from bootmem.
 * Before that, and for ids >= trace_cpus, events are not recorded.
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

#ifdef CONFIG_TRACE
struct trace_cpu {
	struct trace_event buf[TRACE_EVENTS_PER_CPU];
	uint32_t count;
	bool overflow;
	/* A detail begin was dropped: drop its end as well (own CPU only). */
	bool detail_dropped;
};

static struct trace_cpu trace_boot_cpu;
static struct trace_cpu *trace_other; /* CPUs 1 .. trace_cpus - 1 */
static unsigned int trace_cpus = 1;

static struct trace_cpu *trace_cpu(unsigned int cpu)
{
	if (cpu == 0)
		return &trace_boot_cpu;
	return cpu < trace_cpus ? &trace_other[cpu - 1] : NULL;
}

/**
 * trace_init_cpus() - buffers for CPUs 1 .. @count - 1 from bootmem.
 * @count: CPUs of this boot (cpu_count)
 *
 * The boot CPU's buffer (static) keeps what it recorded so far.
 */
void trace_init_cpus(unsigned int count)
{
	uint64_t bytes;
	paddr_t at;

	trace_cpus = 1;
	trace_other = NULL;
	if (count <= 1)
		return;
	bytes = ALIGN_UP((uint64_t)(count - 1) * sizeof(struct trace_cpu),
			 PAGE_SIZE);
	at = bootmem_alloc_try(bytes, PAGE_SIZE, BOOTMEM_ANY_NODE,
			       "trace buffers");
	if (pa_val(at) == pa_val(INVALID_PADDR)) {
		pr_warn("trace: no free RAM for %u CPUs' buffers, only the "
			"boot CPU is traced\n",
			count - 1);
		return;
	}
	trace_other = phys_to_virt(at);
	memset(trace_other, 0, bytes);
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
	*count = atomic_load_acquire(&tc->count);
	if (overflowed)
		*overflowed = atomic_load_relaxed(&tc->overflow);
	return *count ? tc->buf : NULL;
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
