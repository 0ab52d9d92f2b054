// SPDX-License-Identifier: MIT
/*
 * The host side of tests/embed and of the runtime benchmark
 * (tests/bench/heap_runtime.c): the hooks of <keel/hooks.h>, implemented
 * by a plain Linux program that is not keel's sandbox arch. Each thread
 * is a CPU (host_cpu, 0 unless the thread sets it) with its own
 * "interrupts" flag; the heap's lock is the host's own, a pthread mutex,
 * which blocks instead of spinning: threads that the host's scheduler
 * preempts do not make each other wait in line (or, HOST_LOCK=ticket, a
 * ticket lock as keel's arches give, for the benchmark to compare). Each
 * acquisition is counted per thread and per kind of lock (embed.h).
 * "Physical" memory is one mmap()ed region seen at EMBED_PHYS_BASE; the
 * cache is coherent but the host says it is not, unless host.coherent,
 * so that every maintenance call reaches arch_clean_inval_dcache_range()
 * and is counted here, for the checks.
 */
#define _GNU_SOURCE /* memmem */
#include <keel/hooks.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "embed.h"

struct host_state host = {.name = "embed"};
__thread unsigned long host_irq_on = 1;
__thread unsigned int host_cpu;
__thread uint64_t host_lock_count[HOST_LOCK_KINDS];

/* Where the kind of a lock is kept: past the mutex, in the lock storage. */
#define KIND_WORD (ARCH_LOCK_BYTES / 8 - 1)
_Static_assert(sizeof(pthread_mutex_t) <= KIND_WORD * 8,
	       "a pthread mutex and its kind fit in keel's lock storage");

irqflags_t arch_irq_save(void)
{
	irqflags_t was = host_irq_on;

	host_irq_on = 0;
	return was;
}

void arch_irq_restore(irqflags_t flags)
{
	host_irq_on = flags;
}

bool arch_irq_flags_on(irqflags_t flags)
{
	return flags != 0;
}

unsigned int arch_cpu_id(void)
{
	return host_cpu;
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

/* keel's printk lines: kept quiet unless EMBED_VERBOSE is set. */
void arch_console_write(const char *s, size_t len)
{
	host.console_bytes += len;
	if (memmem(s, len, "warning:", 8))
		host.warnings++;
	if (host.verbose)
		fwrite(s, 1, len, stderr);
}

void arch_panic(const char *msg)
{
	if (host.panic_expected) {
		printf("embed: the debug host panicked, as it must: %s\n", msg);
		fflush(stdout);
		_exit(EMBED_PANIC_STATUS);
	}
	printf("%s: FAIL (keel panicked: %s)\n", host.name, msg);
	fflush(stdout);
	fprintf(stderr, "%s: keel panicked: %s\n", host.name, msg);
	exit(1);
}

void *arch_phys_to_virt(paddr_t p)
{
	uint64_t off = pa_val(p) - EMBED_PHYS_BASE;

	if (pa_val(p) < EMBED_PHYS_BASE || off >= host.bytes) {
		printf("%s: FAIL (phys_to_virt(%#llx) outside the region)\n",
		       host.name, (unsigned long long)pa_val(p));
		exit(1);
	}
	return host.base + off;
}

void arch_clean_inval_dcache_range(void *va, size_t len)
{
	(void)va;
	if (host.coherent) /* nothing to do, nothing to count */
		return;
	__atomic_fetch_add(&host.maint_ops, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&host.maint_bytes, len, __ATOMIC_RELAXED);
}

void arch_inval_icache_all(void)
{
	__atomic_fetch_add(&host.icache_ops, 1, __ATOMIC_RELAXED);
}

bool arch_dcache_coherent(void)
{
	return host.coherent;
}

void arch_scrub_range(void *va, size_t len)
{
	memset(va, 0, len);
}

/* 9. The heap's lock: the host's own, a pthread mutex (or a ticket lock). */
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

/* HOST_LOCK=ticket: every lock a ticket lock (read at the first lock). */
static int use_ticket = -1;

const char *host_lock_name(void)
{
	if (use_ticket < 0) {
		const char *e = getenv("HOST_LOCK");

		use_ticket = e && !strcmp(e, "ticket");
	}
	return use_ticket ? "ticket" : "mutex";
}

void arch_lock_init(arch_lock_t *l)
{
	host_lock_name();
	if (use_ticket) {
		*ticket(l) = (struct ticket){0, 0};
	} else if (pthread_mutex_init(mutex(l), NULL)) {
		printf("%s: FAIL (pthread_mutex_init)\n", host.name);
		exit(1);
	}
	l->words[KIND_WORD] = host.lock_kind;
	host.lock_inits[host.lock_kind % HOST_LOCK_KINDS]++;
}

void arch_lock(arch_lock_t *l)
{
	host_lock_count[l->words[KIND_WORD] % HOST_LOCK_KINDS]++;
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
