// SPDX-License-Identifier: MIT
/*
 * The host side of tests/embed: the hooks of <keel/hooks.h>, implemented
 * by a plain Linux program that is not keel's sandbox arch. One thread,
 * so the CPU is always 0 and "interrupts" are a flag; "physical" memory
 * is one mmap()ed region seen at EMBED_PHYS_BASE; the cache is coherent
 * but the host says it is not, so that every maintenance call reaches
 * arch_clean_inval_dcache_range() and is counted here, for the checks.
 */
#include <keel/hooks.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "embed.h"

struct host_state host;

irqflags_t arch_irq_save(void)
{
	irqflags_t was = host.irq_on;

	host.irq_on = 0;
	return was;
}

void arch_irq_restore(irqflags_t flags)
{
	host.irq_on = flags;
}

bool arch_irq_flags_on(irqflags_t flags)
{
	return flags != 0;
}

unsigned int arch_cpu_id(void)
{
	return 0;
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
	if (host.verbose)
		fwrite(s, 1, len, stderr);
}

void arch_panic(const char *msg)
{
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
	host.maint_ops++;
	host.maint_bytes += len;
}

void arch_inval_icache_all(void)
{
	host.icache_ops++;
}

bool arch_dcache_coherent(void)
{
	return false;
}

void arch_scrub_range(void *va, size_t len)
{
	memset(va, 0, len);
}
