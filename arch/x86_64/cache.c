/* SPDX-License-Identifier: MIT */
/*
 * x86_64 arch hooks of <arch/cache.h>.
 *
 * Cache: x86 is coherent; the maintenance hooks still do the real thing
 * for cachemaint=clflush, which the common code selects; it never calls
 * them otherwise. Per line, with one fence per range (issue 6):
 *   clean         CLWB when CPUID.7.0:EBX[24] (the line may stay cached),
 *                 else CLFLUSHOPT (EBX[23]), else CLFLUSH;
 *   clean+inval   CLFLUSHOPT, else CLFLUSH.
 * CLWB and CLFLUSHOPT are only ordered by fences, so such a range ends in
 * SFENCE (orders them before any later store, which is what "the data is
 * at the point of coherency before the caller hands the memory out"
 * needs); CLFLUSH ranges end in MFENCE as before. The choice is made once
 * by x86_cache_init() (boot CPU, from arch_scrub_init() through
 * x86_cache_setup(), before any allocation path can run) and printed.
 */
#include <arch/cache.h>
#include <asm/x86.h>
#include <keel/printk.h>

enum x86_flush_insn { FLUSH_CLFLUSH = 0, FLUSH_CLFLUSHOPT, FLUSH_CLWB };

static const char *const flush_insn_name[] = {"clflush", "clflushopt", "clwb"};

/* Set once by x86_cache_init(); read-only afterwards (every CPU). */
static struct {
	bool ready;
	unsigned int line;
	enum x86_flush_insn clean, inval;
} x86_cache;

static void x86_cache_init(void)
{
	struct cpuid_regs l7 = {0};
	unsigned int line = ((cpuid(1, 0).ebx >> 8) & 0xff) * 8;

	if (cpuid(0, 0).eax >= 7)
		l7 = cpuid(7, 0);
	x86_cache.line = line ? line : 64;
	x86_cache.inval =
		l7.ebx & (1u << 23) ? FLUSH_CLFLUSHOPT : FLUSH_CLFLUSH;
	x86_cache.clean = l7.ebx & (1u << 24) ? FLUSH_CLWB : x86_cache.inval;
	/* x86 keeps store order; stop the compiler reordering them. */
	__asm__ __volatile__("" ::: "memory");
	x86_cache.ready = true;
}

/**
 * arch_dcache_line_size() - CLFLUSH line size from CPUID 1 EBX[15:8].
 * Return: bytes (64 when CPUID gives 0).
 */
unsigned int arch_dcache_line_size(void)
{
	if (!x86_cache.ready)
		x86_cache_init();
	return x86_cache.line;
}

static void flush_range(void *va, size_t len, enum x86_flush_insn insn)
{
	uintptr_t line = arch_dcache_line_size();
	uintptr_t p = (uintptr_t)va & ~(line - 1);
	uintptr_t end = (uintptr_t)va + len;

	switch (insn) {
	case FLUSH_CLWB:
		for (; p < end; p += line)
			__asm__ __volatile__("clwb (%0)" : : "r"(p) : "memory");
		__asm__ __volatile__("sfence" ::: "memory");
		break;
	case FLUSH_CLFLUSHOPT:
		for (; p < end; p += line)
			__asm__ __volatile__("clflushopt (%0)"
					     :
					     : "r"(p)
					     : "memory");
		__asm__ __volatile__("sfence" ::: "memory");
		break;
	case FLUSH_CLFLUSH:
		for (; p < end; p += line)
			__asm__ __volatile__("clflush (%0)"
					     :
					     : "r"(p)
					     : "memory");
		__asm__ __volatile__("mfence" ::: "memory");
		break;
	}
}

/**
 * arch_clean_dcache_range() - write back [va, va+len) (CLWB, CLFLUSHOPT or
 * CLFLUSH per line, one fence).
 */
void arch_clean_dcache_range(void *va, size_t len)
{
	if (!x86_cache.ready)
		x86_cache_init();
	flush_range(va, len, x86_cache.clean);
}

/**
 * arch_clean_inval_dcache_range() - write back and invalidate [va, va+len)
 * (CLFLUSHOPT or CLFLUSH per line, one fence).
 */
void arch_clean_inval_dcache_range(void *va, size_t len)
{
	if (!x86_cache.ready)
		x86_cache_init();
	flush_range(va, len, x86_cache.inval);
}

/**
 * arch_inval_icache_all() - x86 keeps instruction fetch coherent; a
 * serialising instruction is all that self-modifying code needs.
 */
void arch_inval_icache_all(void)
{
	(void)cpuid(0, 0);
}

/**
 * arch_dcache_coherent() - x86 caches are coherent with DMA.
 * Return: true.
 */
bool arch_dcache_coherent(void)
{
	return true;
}

/**
 * x86_cache_setup() - choose the maintenance instructions and print them
 * (boot CPU, from arch_scrub_init()).
 */
void x86_cache_setup(void)
{
	x86_cache_init();
	pr_info("cache: %u-byte lines; cachemaint=clflush cleans with %s, "
		"cleans+invalidates with %s\n",
		x86_cache.line, flush_insn_name[x86_cache.clean],
		flush_insn_name[x86_cache.inval]);
}
