/* SPDX-License-Identifier: MIT */
/*
 * x86_64 private helpers: port I/O, CPUID, MSRs, control registers, and the
 * memory layout constants shared by head.S, mm.c and setup.c. Only
 * arch/x86_64 includes this header.
 */
#ifndef ASM_X86_H
#define ASM_X86_H

/*
 * Layout (see the design comment in mm.c): the image is linked and run at
 * KERNEL_LOAD_PA, identity mapped by head.S together with the rest of the
 * first 4 GiB; every RAM range of the firmware map is also mapped at
 * DIRECT_MAP_BASE + pa.
 */
#define KERNEL_LOAD_PA	0x100000
#define DIRECT_MAP_BASE 0xffff800000000000
#define DIRECT_MAP_BITS 46 /* 64 TiB: PML4 slots 256..383 */
#define BOOT_STACK_SIZE 0x4000
#define IDENT_MAP_GIB	4

#define GDT_CODE64	0x08
#define GDT_DATA	0x10

#ifndef __ASSEMBLY__

#include <keel/types.h>

static inline void outb(uint16_t port, uint8_t v)
{
	__asm__ __volatile__("outb %0, %1" : : "a"(v), "Nd"(port));
}

static inline void outw(uint16_t port, uint16_t v)
{
	__asm__ __volatile__("outw %0, %1" : : "a"(v), "Nd"(port));
}

static inline uint16_t inw(uint16_t port)
{
	uint16_t v;

	__asm__ __volatile__("inw %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

static inline uint32_t inl(uint16_t port)
{
	uint32_t v;

	__asm__ __volatile__("inl %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

static inline uint8_t inb(uint16_t port)
{
	uint8_t v;

	__asm__ __volatile__("inb %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

struct cpuid_regs {
	uint32_t eax, ebx, ecx, edx;
};

static inline struct cpuid_regs cpuid(uint32_t leaf, uint32_t sub)
{
	struct cpuid_regs r;

	__asm__ __volatile__("cpuid"
			     : "=a"(r.eax), "=b"(r.ebx), "=c"(r.ecx),
			       "=d"(r.edx)
			     : "a"(leaf), "c"(sub));
	return r;
}

static inline uint64_t rdtsc(void)
{
	uint32_t lo, hi;

	__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

static inline uint64_t read_cr2(void)
{
	uint64_t v;

	__asm__ __volatile__("mov %%cr2, %0" : "=r"(v));
	return v;
}

static inline uint64_t read_cr3(void)
{
	uint64_t v;

	__asm__ __volatile__("mov %%cr3, %0" : "=r"(v));
	return v;
}

static inline void write_cr3(uint64_t v)
{
	__asm__ __volatile__("mov %0, %%cr3" : : "r"(v) : "memory");
}

static inline void cpu_halt_forever(void)
{
	for (;;)
		__asm__ __volatile__("cli; hlt");
}

/* Linker symbols (keel.lds). */
extern char _start[], _edata[], _end[], __bss_start[];

/* head.S: the boot page tables (PML4 and the first PDPT). */
extern uint64_t boot_pml4[512];

/* setup.c / uart16550.c / traps.c / mm.c / tsc.c */
void uart_init(void);
void uart_putc_raw(char c);
void traps_init(void);
struct bootinfo;
void mm_init_direct_map(struct bootinfo *bi);
bool mm_direct_mapped(uint64_t va, uint64_t len);
void tsc_init(struct bootinfo *bi);
extern uint64_t tsc_hz; /* calibrated TSC rate (cpu.c, set by tsc.c) */
/* The ACPI tables as parsed by setup.c (NULL when there are none). */
struct acpi_info;
extern const struct acpi_info *x86_acpi;
/* after= as the raw command line says, for failures before keel_main(). */
extern int x86_early_after;
__attribute__((noreturn)) void x86_fail_stop(void);
__attribute__((noreturn)) void x86_entry(uint32_t magic, uint32_t info_pa);

#endif /* __ASSEMBLY__ */
#endif
