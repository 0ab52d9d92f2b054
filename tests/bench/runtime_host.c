// SPDX-License-Identifier: MIT
/*
 * The host of tests/bench/heap_runtime: the hooks of <keel/hooks.h> for a
 * Linux program that links libkeel-heap.a as a hypervisor would. Each
 * thread is a CPU (rt_cpu) with its own "interrupts" flag. Memory is one
 * mmap()ed region at RT_PHYS_BASE. The cache is coherent (no
 * maintenance). The heap's lock is the host's own: a pthread mutex,
 * which blocks instead of spinning, so threads the host's scheduler
 * preempts do not wait in line behind each other (docs/embedding.md);
 * or, with RT_LOCK=ticket in the environment, a ticket lock as keel's
 * arches give (keel/spinlock.h: take a ticket, spin until it is served),
 * so that the benchmark compares the two on a busy host. Each acquisition
 * is counted per thread and per kind of lock (runtime.h), which is how
 * the benchmark counts node-lock acquisitions without asking the heap.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "runtime.h"

unsigned char *rt_base;
uint64_t rt_bytes;
__thread unsigned int rt_cpu;
static __thread unsigned long irq_on = 1;
enum rt_lock_kind rt_init_kind;
__thread uint64_t rt_lock_count[RT_LOCK_KINDS];
uint64_t rt_lock_inits[RT_LOCK_KINDS];

/* Where the kind of a lock is kept: past the mutex, in the lock storage. */
#define KIND_WORD (ARCH_LOCK_BYTES / 8 - 1)
_Static_assert(sizeof(pthread_mutex_t) <= KIND_WORD * 8,
	       "a pthread mutex and its kind fit in keel's lock storage");

irqflags_t arch_irq_save(void)
{
	irqflags_t was = irq_on;

	irq_on = 0;
	return was;
}

void arch_irq_restore(irqflags_t flags)
{
	irq_on = flags;
}

bool arch_irq_flags_on(irqflags_t flags)
{
	return flags != 0;
}

unsigned int arch_cpu_id(void)
{
	return rt_cpu;
}

/* A spinning waiter's pause (what keel's arches do), no yield. */
void arch_cpu_relax(void)
{
#if defined(__x86_64__)
	__asm__ volatile("pause" ::: "memory");
#elif defined(__aarch64__)
	__asm__ volatile("yield" ::: "memory");
#else
	__asm__ volatile("" ::: "memory");
#endif
}

uint64_t arch_ticks(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* keel's printk lines (warnings of misuse and bad input): shown. */
void arch_console_write(const char *s, size_t len)
{
	fwrite(s, 1, len, stderr);
}

void arch_panic(const char *msg)
{
	fprintf(stderr, "heap_runtime: keel panicked: %s\n", msg);
	exit(2);
}

void *arch_phys_to_virt(paddr_t p)
{
	uint64_t off = pa_val(p) - RT_PHYS_BASE;

	if (pa_val(p) < RT_PHYS_BASE || off >= rt_bytes) {
		fprintf(stderr, "heap_runtime: phys_to_virt(%#llx) outside\n",
			(unsigned long long)pa_val(p));
		exit(2);
	}
	return rt_base + off;
}

void arch_clean_inval_dcache_range(void *va, size_t len)
{
	(void)va;
	(void)len;
}

void arch_inval_icache_all(void)
{
}

bool arch_dcache_coherent(void)
{
	return true;
}

void arch_scrub_range(void *va, size_t len)
{
	memset(va, 0, len);
}

static pthread_mutex_t *mutex(arch_lock_t *l)
{
	return (pthread_mutex_t *)l->words;
}

/* A ticket lock in the same storage: next ticket, ticket served. */
struct ticket {
	uint32_t next, owner;
};

static struct ticket *ticket(arch_lock_t *l)
{
	return (struct ticket *)l->words;
}

/* RT_LOCK=ticket: every lock is a ticket lock (read once, at the first). */
static int use_ticket = -1;

const char *rt_lock_name(void)
{
	if (use_ticket < 0) {
		const char *e = getenv("RT_LOCK");

		use_ticket = e && !strcmp(e, "ticket");
	}
	return use_ticket ? "ticket" : "mutex";
}

void arch_lock_init(arch_lock_t *l)
{
	rt_lock_name();
	if (use_ticket)
		*ticket(l) = (struct ticket){0, 0};
	else if (pthread_mutex_init(mutex(l), NULL)) {
		fprintf(stderr, "heap_runtime: pthread_mutex_init failed\n");
		exit(2);
	}
	l->words[KIND_WORD] = rt_init_kind;
	rt_lock_inits[rt_init_kind % RT_LOCK_KINDS]++;
}

void arch_lock(arch_lock_t *l)
{
	rt_lock_count[l->words[KIND_WORD] % RT_LOCK_KINDS]++;
	if (use_ticket) {
		struct ticket *t = ticket(l);
		uint32_t mine =
			__atomic_fetch_add(&t->next, 1, __ATOMIC_RELAXED);

		while (__atomic_load_n(&t->owner, __ATOMIC_ACQUIRE) != mine)
			arch_cpu_relax(); /* as keel's spin_lock() */
		return;
	}
	pthread_mutex_lock(mutex(l));
}

void arch_unlock(arch_lock_t *l)
{
	if (use_ticket) {
		struct ticket *t = ticket(l);

		__atomic_store_n(&t->owner, t->owner + 1, __ATOMIC_RELEASE);
		return;
	}
	pthread_mutex_unlock(mutex(l));
}
