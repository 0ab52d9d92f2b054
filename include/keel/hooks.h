/* SPDX-License-Identifier: MIT */
/*
 * Owner: mm.
 * What a host must provide to link libkeel-heap.a (`make lib`, the mm
 * room and the lib code it calls; docs/embedding.md): 16 functions in 9
 * groups. keel's own arches implement them in arch/<arch>/ behind
 * the headers of include/arch/, which declare the same functions, types
 * (tests/embed/hooks_match.c has the compiler check it); a host that is
 * not keel (tests/embed/host.c) includes only this header.
 *
 * Which calls need which hook:
 *  1. interrupt mask: every node lock is taken with interrupts masked
 *     (spin_lock_irqsave()): arch_irq_save/restore/flags_on. A host whose
 *     heap users never run in interrupt context may make them a flag.
 *  2. the CPU: arch_cpu_id() (the tracer's and printk's slot, < the CPU
 *     count), arch_cpu_relax() (the ticket lock's spin).
 *  3. time: arch_ticks(), monotonic; lock hold times and init times are
 *     kept in its units.
 *  4. console: arch_console_write(), the warnings of misuse and bad input.
 *  5. panic: arch_panic(), after the message (heap_strict misuse, a
 *     broken invariant, bootmem_alloc() with nothing that fits).
 *  6. memory: arch_phys_to_virt(), every page the heap writes or zeroes
 *     (frame table, free heads, the memory itself).
 *  7. range cache maintenance: arch_clean_inval_dcache_range() (by range,
 *     never per line), arch_inval_icache_all() (HEAP_ICACHE),
 *     arch_dcache_coherent() (deferred becomes none when true).
 *  8. zeroing: arch_scrub_range(), the host's fastest way to zero a range
 *     (memset will do).
 *  9. the heap's lock: arch_lock_init/arch_lock/arch_unlock on an
 *     arch_lock_t (64 bytes the heap keeps, keel/lock_type.h): every node
 *     lock and every per-CPU cache's lock. The heap masks interrupts
 *     around each hold itself. keel's arches use keel's ticket lock; a
 *     host whose CPUs can be preempted (vCPUs, user threads) gives a lock
 *     that does not hand itself to a waiter that is not running (a mutex,
 *     or a spin that yields): see docs/embedding.md for what it must
 *     guarantee.
 */
#ifndef KEEL_HOOKS_H
#define KEEL_HOOKS_H

#include <keel/lock_type.h>
#include <keel/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/* 1. The interrupt mask of the running CPU. */
typedef unsigned long irqflags_t;
/* Mask interrupts. Return: the state before, for arch_irq_restore(). */
irqflags_t arch_irq_save(void);
void arch_irq_restore(irqflags_t flags);
/* Were interrupts on in @flags? */
bool arch_irq_flags_on(irqflags_t flags);

/* 2. The running CPU: its index (0 = the first), a spin-wait hint. */
unsigned int arch_cpu_id(void);
void arch_cpu_relax(void);

/* 3. A monotonic clock (any rate). */
uint64_t arch_ticks(void);

/* 4. The console: @len bytes of text (no NUL needed). */
void arch_console_write(const char *s, size_t len);

/* 5. Stop after a fatal error; the message was printed. */
__attribute__((noreturn)) void arch_panic(const char *msg);

/* 6. The host's address of physical address @pa (RAM given to bootmem). */
void *arch_phys_to_virt(paddr_t pa);

/* 7. Cache maintenance to the point of coherency, by range. */
void arch_clean_inval_dcache_range(void *va, size_t len);
void arch_inval_icache_all(void);
bool arch_dcache_coherent(void);

/* 8. Zero [va, va + len): page-aligned, a multiple of pages. */
void arch_scrub_range(void *va, size_t len);

/*
 * 9. The heap's lock: make @l unlocked; take it (acquire ordering, waits
 * as long as needed); drop it (release ordering). Called with interrupts
 * masked; must not call the heap.
 */
void arch_lock_init(arch_lock_t *l);
void arch_lock(arch_lock_t *l);
void arch_unlock(arch_lock_t *l);

#ifdef __cplusplus
}
#endif

#endif
