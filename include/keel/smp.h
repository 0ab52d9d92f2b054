/* SPDX-License-Identifier: MIT */
/*
 * Owner: smp.
 * CPUs and work dispatch. Secondary CPUs park in smp_secondary_main(),
 * sleeping until work is posted to their own mailbox (the poster wakes
 * them: arch_cpu_wake()). smp_run_on() posts a function to a set of CPUs
 * (the caller included when it is in the set), runs it and waits for all
 * of them.
 *
 * Logical CPU ids: 0 is the boot CPU, then the usable bootinfo CPUs in
 * bootinfo order.
 */
#ifndef KEEL_SMP_H
#define KEEL_SMP_H

#include <keel/bootinfo.h>
#include <keel/cpumask.h>
#include <keel/enum_names.h>
#include <keel/types.h>

struct jw;

/* smp_start=: every CPU at once, or one after another (the baseline). */
enum smp_start_mode { SMP_START_PARALLEL = 0, SMP_START_SERIAL };
/* smp_start= words and smp.start (common/smp/smp.c). */
extern const struct enum_name smp_start_names[];
/* The start mode smp_boot_cpus() used (the report's smp.start). */
enum smp_start_mode smp_start_used(void);

/*
 * The bring-up's numbers, for the report (common/smp/smp_boot.c): how
 * long starting every CPU took, when CPU @cpu checked in, the hardware id
 * it read at check-in. Return: false when the CPU never checked in.
 */
uint64_t smp_bringup_ns(void);
bool smp_cpu_up_ns(unsigned int cpu, uint64_t *ns);
bool smp_cpu_hwid_seen(unsigned int cpu, uint64_t *hwid);

struct cpu_info {
	uint64_t hwid;
	uint32_t node, package, core, thread;
	bool present;		 /* usable in firmware, we tried to start it */
	bool online;		 /* checked in */
	bool smt_sibling;	 /* not the first thread of its core */
	const char *fail_reason; /* why it is not online, or NULL */
	int64_t tsc_skew_ticks; /* against the boot CPU, measured at check-in */
	uint32_t node_slot;	/* its index among its node's CPUs (percpu) */
	/* mailbox */
	void (*volatile fn)(void *);
	void *volatile arg;
	volatile uint32_t seq, done_seq;
} __attribute__((aligned(128)));

/* cpu_count entries, from bootmem (smp_init()); NULL before. */
extern struct cpu_info *cpu_table;
extern unsigned int cpu_count; /* entries in cpu_table, <= NR_CPUS */

/*
 * smp_init(): allocate cpu_table for the CPUs bootinfo describes (bootmem
 * must be ready), fill it (boot CPU first), mark SMT siblings (same
 * node/package/core, thread != lowest) and size the per-CPU trace buffers.
 */
void smp_init(const struct bootinfo *bi);

/*
 * smp_percpu_alloc(): a zeroed array of cpu_count entries of @size bytes
 * from bootmem, reserved as @why. For per-CPU state that must not be a
 * static NR_CPUS-sized array. Call after smp_init(), before the handoff.
 */
void *smp_percpu_alloc(size_t size, const char *why);

/*
 * Per-CPU objects near their CPUs (struct smp_percpu, filled by
 * smp_percpu_alloc_local()): the objects of a node's CPUs lie in one
 * bootmem piece on that node, object by object in cpu_table order, each
 * a whole number of cache lines. A machine of many small nodes then needs
 * one node's share per node, never one piece for all its CPUs.
 */
#define SMP_PERCPU_ALIGN 128 /* no two CPUs' objects share a cache line */

struct smp_percpu {
	size_t size;		     /* bytes per object, cache-line multiple */
	uint8_t *base[MAX_NUMNODES]; /* each node's piece; NULL: none */
};

/*
 * smp_percpu_alloc_local(): one zeroed object of @size bytes per CPU of
 * cpu_table, for each node with CPUs one bootmem allocation reserved as
 * @why on that node, or the nearest node with room (bootmem's fallback).
 * Call after smp_init(), before the handoff.
 * Return: how many CPUs got no object (their node's piece found no free
 * RAM anywhere); smp_percpu_ptr() is NULL for them.
 */
unsigned int smp_percpu_alloc_local(struct smp_percpu *pc, size_t size,
				    const char *why);

/* The node whose piece holds @c's object (node ids are < MAX_NUMNODES). */
static inline uint32_t smp_percpu_node(const struct cpu_info *c)
{
	return c->node < MAX_NUMNODES ? c->node : 0;
}

/* @cpu's object in @pc (cpu < cpu_count). Return: it, or NULL. */
static inline void *smp_percpu_ptr(const struct smp_percpu *pc,
				   unsigned int cpu)
{
	const struct cpu_info *c = &cpu_table[cpu];
	uint8_t *base = pc->base[smp_percpu_node(c)];

	return base ? base + (size_t)c->node_slot * pc->size : NULL;
}

/*
 * smp_boot_cpus(): start every present CPU through arch_cpu_start(), each
 * with a stack allocated from bootmem on its own node: all at once, then
 * wait at most @timeout_ms for all of them (smp_start=parallel), or one
 * after another, @timeout_ms each (smp_start=serial). CPUs that miss it
 * are reported and left out. Return: number of CPUs online (boot CPU
 * included).
 */
unsigned int smp_boot_cpus(unsigned int timeout_ms, enum smp_start_mode start);
/*
 * smp_measure_skews(): each online secondary's timer skew against the
 * boot CPU (cpu_table's tsc_skew_ticks), probed one at a time through its
 * mailbox within min(@timeout_ms, 500 ms); informative only, so a live
 * update's new image runs it after the downtime.
 */
void smp_measure_skews(unsigned int timeout_ms);

/* Run fn(arg) on every online CPU of @mask (caller included) and wait. */
void smp_run_on(const cpumask_t *mask, void (*fn)(void *), void *arg);
/* Post without waiting (caller excluded); smp_wait() waits for them. */
void smp_post(const cpumask_t *mask, void (*fn)(void *), void *arg);
void smp_wait(const cpumask_t *mask);
/*
 * smp_wait() until arch_ticks() reaches @deadline. Return: true when every
 * CPU of @mask finished its work; false: *@busy (may be NULL) names the
 * first that did not.
 */
bool smp_wait_until(const cpumask_t *mask, uint64_t deadline,
		    unsigned int *busy);
/* Return: CPU @cpu has no work posted that it has not finished. */
bool smp_cpu_idle(unsigned int cpu);

void smp_online_mask(cpumask_t *out);
unsigned int smp_online_count(void);
/*
 * smp_cpu_lost() - online @cpu is gone for @reason (a live update's stop
 * that failed after the CPU was told to stop): out of the online set, so
 * that no work is posted to it and no wait counts it.
 */
void smp_cpu_lost(unsigned int cpu, const char *reason);

/* Stack size per secondary CPU. */
#define SMP_STACK_SIZE (64 * 1024)

#endif
