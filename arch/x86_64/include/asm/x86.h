/* SPDX-License-Identifier: MIT */
/*
 * x86_64 private helpers: port I/O, CPUID, MSRs, control registers, and the
 * memory layout constants shared by head.S, mm.c and setup.c. Only
 * arch/x86_64 includes this header.
 */
#ifndef ASM_X86_H
#define ASM_X86_H

/*
 * Layout (see the design comment in mm.c): the image is linked at
 * KERNEL_LOAD_PA and runs where its loader put it (there, unless GRUB's
 * multiboot2 relocated it), identity mapped by head.S together with the
 * rest of the first 4 GiB; every RAM range of the firmware map is also
 * mapped at DIRECT_MAP_BASE + pa.
 */
#define KERNEL_LOAD_PA	0x100000
#define DIRECT_MAP_BASE 0xffff800000000000
#define DIRECT_MAP_BITS 46 /* 64 TiB: PML4 slots 256..383 */
#define BOOT_STACK_SIZE 0x4000
#define IDENT_MAP_GIB	4

#define GDT_CODE64	0x08
#define GDT_DATA	0x10
#define GDT_CODE32	0x18 /* trampoline GDT only */

/*
 * entry.S: one stub per vector 32..255 (X86_WAKE_VEC has its own), each
 * X86_VECTOR_STUB_SIZE bytes from x86_vector_stubs (traps.c fills the IDT).
 */
#define X86_VECTOR_STUB_SIZE 16

/*
 * The SMP trampoline page (docs/booting.md): below 1 MiB (SIPI vector =
 * TRAMP_PA >> 12), inside the "low 1M" reservation, clear of QEMU's
 * multiboot information (0x9000-0x9fff) and the EBDA (0x9fc00-).
 */
#define TRAMP_PA 0x8000
/* keel's own reservation of the first MiB (setup.c), the trampoline's. */
#define X86_LOW_1M_NAME "low 1M bios/trampoline"

/*
 * One slot of the AP table (struct x86_ap_slot in smp.c), searched by
 * APIC ID in trampoline.S.
 */
#define X86_AP_SLOT_HWID    0
#define X86_AP_SLOT_CPU	    4
#define X86_AP_SLOT_PERCPU  8
#define X86_AP_SLOT_STARTED 16
#define X86_AP_SLOT_SIZE    24

#define MSR_APIC_BASE	    0x1b
#define APIC_BASE_BSP	    0x100
#define APIC_BASE_X2APIC    0x400
#define APIC_BASE_EN	    0x800
#define MSR_GS_BASE	    0xc0000101

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

/*
 * The CPU's vendor and its display family and model (Intel SDM vol. 2A,
 * CPUID leaf 1: the extended family added when the family is 0xf, the
 * extended model prepended when it is 6 or 0xf).
 */
struct x86_cpu_sig {
	bool intel, amd;
	uint32_t family, model;
};

static inline struct x86_cpu_sig x86_cpu_sig(void)
{
	struct cpuid_regs v = cpuid(0, 0);
	uint32_t eax = cpuid(1, 0).eax;
	struct x86_cpu_sig s = {
		.intel = v.ebx == 0x756e6547 && v.edx == 0x49656e69,
		.amd = v.ebx == 0x68747541 && v.edx == 0x69746e65,
		.family = (eax >> 8) & 0xf,
		.model = (eax >> 4) & 0xf,
	};

	if (s.family == 0xf)
		s.family += (eax >> 20) & 0xff;
	if (s.family == 6 || s.family >= 0xf)
		s.model |= ((eax >> 16) & 0xf) << 4;
	return s;
}

static inline uint64_t rdtsc(void)
{
	uint32_t lo, hi;

	__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

static inline uint64_t rdmsr(uint32_t msr)
{
	uint32_t lo, hi;

	__asm__ __volatile__("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
	return ((uint64_t)hi << 32) | lo;
}

static inline void wrmsr(uint32_t msr, uint64_t v)
{
	__asm__ __volatile__("wrmsr"
			     :
			     : "c"(msr), "a"((uint32_t)v),
			       "d"((uint32_t)(v >> 32))
			     : "memory");
}

/*
 * Per-CPU data, reached through the GS base (MSR_GS_BASE = this struct,
 * set first thing on every CPU): arch_cpu_id() is one %gs-relative load.
 */
struct x86_percpu {
	struct x86_percpu *self;
	uint32_t cpu;
	uint32_t apic_id;
} __attribute__((aligned(64)));

#define X86_PERCPU_CPU_OFFSET 8

void x86_percpu_init(struct x86_percpu *p, unsigned int cpu, uint32_t apic_id);

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
extern char _start[], _edata[], _end[], __bss_start[], __bss_end[];

/* head.S: the boot page tables (PML4 and the first PDPT). */
extern uint64_t boot_pml4[512];

/* setup.c / console.c / traps.c / mm.c / tsc.c */
void uart_init(void);
void uart_putc_raw(char c);
struct console_spec;
struct acpi_info;
void x86_console_cmdline(const struct console_spec *cs, const char *text);
void x86_console_firmware(const struct acpi_info *ai);
void traps_init(void);
void traps_load(void);

/* Machine checks (mce.c): banks on, the #MC handler, the corrected-error poll. */
#define X86_MC_VECTOR 18
void x86_mce_init(void);
void x86_mce_describe(void);
/* What a #MC leaves (mce.c x86_mce()): who may go on. */
enum x86_mce_verdict {
	X86_MCE_GO_ON,		 /* the interrupted context may go on */
	X86_MCE_NO_RIPV,	 /* it may not: MCG_STATUS.RIPV clear */
	X86_MCE_ACTION_REQUIRED, /* it may not: a bank says AR (AMD: TCC) */
	X86_MCE_CORRUPT,	 /* nothing on this CPU may: a bank says PCC */
};
enum x86_mce_verdict x86_mce(uint64_t *addr);
const char *x86_mce_why(enum x86_mce_verdict v);
bool x86_mce_in_progress(void);
void x86_mce_end(void);
unsigned int x86_mce_poll(void);
void *mm_map_uc(uint64_t pa, uint64_t len);
struct bootinfo;
void mm_init_direct_map(struct bootinfo *bi);
void mm_map_rest(struct bootinfo *bi);
bool mm_direct_mapped(uint64_t va, uint64_t len);
void tsc_init(struct bootinfo *bi);
extern uint64_t tsc_hz; /* calibrated TSC rate (cpu.c, set by tsc.c) */
/* lapic.c: the running CPU's APIC ID. */
uint32_t x86_apic_id(void);
/* cpu.c: spin @us microseconds on the TSC. */
void x86_udelay(uint64_t us);
/* smp.c: topology from CPUID, for setup.c. */
void x86_topology_fill(struct bootinfo *bi);
/*
 * smp.c: may the trampoline page be written? Checked once every claim on
 * RAM is read (after fwboot_finish()): RAM in the firmware's map, no
 * reservation but keel's own first MiB, no bad page. If not, no secondary
 * CPU is started (arch_smp_prepare() says why).
 */
void x86_tramp_check(const struct bootinfo *bi);
__attribute__((noreturn)) void x86_ap_entry(unsigned int cpu,
					    struct x86_percpu *pc);
/*
 * The interrupts keel asks for: X86_WAKE_VEC, which ends an idle CPU's
 * halt (arch_cpu_idle_wait): the IPI of arch_cpu_wake() or the local APIC
 * timer (the safety net, or the latency probe's deadline), and the APIC's
 * spurious vector. Any other vector is counted and ended (irq.c).
 */
#define X86_WAKE_VEC	 0xf0
#define X86_STRAY_VEC	 0x40 /* inject=irq-unexpected's self-IPIs */
#define X86_INJECT_VEC	 0xf8 /* inject=ioapic-unmask's line: class 15 */
#define X86_SPURIOUS_VEC 0xff
void x86_apic_eoi(void);
/* ioapic.c: every I/O APIC entry masked at boot; a stray's, when taken. */
void ioapic_init(const struct bootinfo *bi, bool inject);
unsigned int ioapic_mask_vector(uint8_t vec);
/* The ACPI tables as parsed by setup.c (NULL when there are none). */
struct acpi_info;
extern const struct acpi_info *x86_acpi;
/* cpu.c: QEMU detection (fw_cfg signature), probed once; after= default. */
bool x86_qemu(void);
void x86_qemu_init(void);
/* after= as the options say, for failures before keel_main(). */
extern int x86_early_after;
__attribute__((noreturn)) void x86_fail_stop(void);
__attribute__((noreturn)) void x86_entry(uint32_t magic, uint32_t info_pa);
/* liveupdate.c: the loader's magic and info, and a last image's handover. */
void x86_lu_found(struct bootinfo *bi, uint32_t magic, uint32_t info);
/*
 * x86_lu_ticks_hz() - started by a live update: the TSC rate the last
 * image measured (the handover header's ticks_hz; the TSC runs on across
 * the jump), so that tsc_init() need not measure it again inside the
 * downtime. 0: a loader's boot, or no usable header (then tsc_init()
 * measures). boot/handover.c checks the whole handover later; a refused
 * one stops the boot before the heap.
 */
uint64_t x86_lu_ticks_hz(void);
/* x86_lu_started() - the last image's stub entered us (ECX's magic). */
bool x86_lu_started(void);
/* cache.c: choose the maintenance instructions and print them. */
void x86_cache_setup(void);

#endif /* __ASSEMBLY__ */
#endif
