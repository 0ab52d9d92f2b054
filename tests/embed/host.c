// SPDX-License-Identifier: MIT
/*
 * The host side of tests/embed: the hooks of <keel/hooks.h>, implemented
 * by a plain Linux program that is not keel's sandbox arch. Each thread
 * is a CPU (host_cpu, 0 unless the thread sets it) with its own
 * "interrupts" flag; the heap's lock is the host's own, a pthread mutex,
 * which blocks instead of spinning: threads that the host's scheduler
 * preempts do not make each other wait in line. "Physical" memory
 * is one mmap()ed region seen at EMBED_PHYS_BASE; the cache is coherent
 * but the host says it is not, so that every maintenance call reaches
 * arch_clean_inval_dcache_range() and is counted here, for the checks.
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

struct host_state host;
__thread unsigned long host_irq_on = 1;
__thread unsigned int host_cpu;

_Static_assert(sizeof(pthread_mutex_t) <= sizeof(arch_lock_t),
	       "a pthread mutex fits in keel's lock storage");

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

void arch_cpu_relax(void)
{
	__asm__ volatile("" ::: "memory");
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
	printf("embed: FAIL (keel panicked: %s)\n", msg);
	exit(1);
}

void *arch_phys_to_virt(paddr_t p)
{
	uint64_t off = pa_val(p) - EMBED_PHYS_BASE;

	if (pa_val(p) < EMBED_PHYS_BASE || off >= host.bytes) {
		printf("embed: FAIL (phys_to_virt(%#llx) outside the region)\n",
		       (unsigned long long)pa_val(p));
		exit(1);
	}
	return host.base + off;
}

void arch_clean_inval_dcache_range(void *va, size_t len)
{
	(void)va;
	__atomic_fetch_add(&host.maint_ops, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&host.maint_bytes, len, __ATOMIC_RELAXED);
}

void arch_inval_icache_all(void)
{
	__atomic_fetch_add(&host.icache_ops, 1, __ATOMIC_RELAXED);
}

bool arch_dcache_coherent(void)
{
	return false;
}

void arch_scrub_range(void *va, size_t len)
{
	memset(va, 0, len);
}

/* 9. The heap's lock: the host's own, a pthread mutex. */
static pthread_mutex_t *mutex(arch_lock_t *l)
{
	return (pthread_mutex_t *)l->words;
}

void arch_lock_init(arch_lock_t *l)
{
	if (pthread_mutex_init(mutex(l), NULL)) {
		printf("embed: FAIL (pthread_mutex_init)\n");
		exit(1);
	}
}

void arch_lock(arch_lock_t *l)
{
	__atomic_fetch_add(&host.lock_calls, 1, __ATOMIC_RELAXED);
	pthread_mutex_lock(mutex(l));
}

void arch_unlock(arch_lock_t *l)
{
	pthread_mutex_unlock(mutex(l));
}
