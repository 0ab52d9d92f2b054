/* SPDX-License-Identifier: MIT */
/*
 * Exceptions and interrupt vectors. The local APIC timer's and wake-up
 * IPI's X86_WAKE_VEC goes to x86_wake_stub (entry.S, x86_timer_irq());
 * every other vector 32-255, the spurious one too, to its own stub of
 * x86_vector_stubs, which calls x86_other_irq(vector) (irq.c). The
 * legacy 8259 PICs are remapped to vectors 0x20-0x2f and masked, so that
 * the PIT's IRQ 0 never arrives as vector 8 (a "double fault") once
 * interrupts are on. keel expects no exception but a machine check it
 * survives (mce.c): every other one is fatal. x86_trap() prints the vector, error code,
 * RIP, CR2, the registers and a short frame-pointer stack trace (the kernel
 * is built with -fno-omit-frame-pointer), then stops the machine as a failed
 * boot. The IDT is static (one per system; every secondary loads the same
 * one with traps_load()).
 *
 * Invariant: the trace only follows frame pointers that lie inside the
 * kernel image (the boot stack) or the direct map, are 8-byte aligned and
 * strictly increasing, so a corrupt chain cannot fault again. A trap taken
 * while already reporting one halts at once.
 * Limitation: no IST stack yet, so a kernel stack overflow triple-faults
 * (QEMU -no-reboot then exits).
 */
#include <arch/console.h>
#include <arch/cpu.h>
#include <asm/x86.h>
#include <keel/printk.h>

struct trap_frame {
	uint64_t r15, r14, r13, r12, r11, r10, r9, r8;
	uint64_t rbp, rdi, rsi, rdx, rcx, rbx, rax;
	uint64_t vector, error;
	uint64_t rip, cs, rflags, rsp, ss;
};

struct idt_entry {
	uint16_t off_lo;
	uint16_t sel;
	uint8_t ist;
	uint8_t type;
	uint16_t off_mid;
	uint32_t off_hi;
	uint32_t zero;
} __packed;

struct idt_ptr {
	uint16_t limit;
	uint64_t base;
} __packed;

extern const uint64_t trap_stub_table[32];
extern const char x86_wake_stub[], x86_vector_stubs[];

static struct idt_entry idt[256] __aligned(16);
static volatile int in_trap;

static const char *const trap_names[32] = {
	"divide error",
	"debug",
	"NMI",
	"breakpoint",
	"overflow",
	"bound range",
	"invalid opcode",
	"device not available",
	"double fault",
	"coprocessor overrun",
	"invalid TSS",
	"segment not present",
	"stack fault",
	"general protection",
	"page fault",
	"reserved",
	"x87 FP error",
	"alignment check",
	"machine check",
	"SIMD FP error",
	"virtualization",
	"control protection",
	"reserved",
	"reserved",
	"reserved",
	"reserved",
	"reserved",
	"reserved",
	"hypervisor injection",
	"VMM communication",
	"security",
	"reserved",
};

static void idt_set(unsigned int vec, uint64_t handler)
{
	idt[vec] = (struct idt_entry){
		.off_lo = handler & 0xffff,
		.sel = GDT_CODE64,
		.ist = 0,
		.type = 0x8e, /* present, DPL 0, 64-bit interrupt gate */
		.off_mid = (handler >> 16) & 0xffff,
		.off_hi = handler >> 32,
	};
}

/* ICW1-4 to both 8259s (vectors 0x20 and 0x28, cascade on IRQ 2), all masked. */
static void pic_mask_all(void)
{
	static const uint8_t icw[2][4] = {{0x11, 0x20, 0x04, 0x01},
					  {0x11, 0x28, 0x02, 0x01}};
	static const uint16_t port[2] = {0x20, 0xa0};

	for (unsigned int p = 0; p < 2; p++) {
		outb(port[p], icw[p][0]);
		for (unsigned int i = 1; i < 4; i++)
			outb(port[p] + 1, icw[p][i]);
		outb(port[p] + 1, 0xff);
	}
}

/**
 * traps_init() - fill the IDT and load it on this CPU; mask the 8259s.
 */
void traps_init(void)
{
	pic_mask_all();
	for (unsigned int v = 0; v < 32; v++)
		idt_set(v, trap_stub_table[v]);
	for (unsigned int v = 32; v < 256; v++)
		idt_set(v, (uint64_t)(uintptr_t)x86_vector_stubs +
				   (v - 32) * X86_VECTOR_STUB_SIZE);
	idt_set(X86_WAKE_VEC, (uint64_t)(uintptr_t)x86_wake_stub);
	traps_load();
}

/**
 * traps_load() - load the (already filled) IDT on the calling CPU; the
 * secondaries call it first thing.
 */
void traps_load(void)
{
	struct idt_ptr p = {sizeof(idt) - 1, (uint64_t)(uintptr_t)idt};

	__asm__ __volatile__("lidt %0" : : "m"(p));
	x86_mce_init();
}

/* The general registers of @f, three a line (no console lock). */
static void print_gprs(const struct trap_frame *f)
{
	const struct {
		const char *name;
		uint64_t v;
	} r[] = {
		{"RAX", f->rax}, {"RBX", f->rbx}, {"RCX", f->rcx},
		{"RDX", f->rdx}, {"RSI", f->rsi}, {"RDI", f->rdi},
		{"RBP", f->rbp}, {"R8 ", f->r8},  {"R9 ", f->r9},
		{"R10", f->r10}, {"R11", f->r11}, {"R12", f->r12},
		{"R13", f->r13}, {"R14", f->r14}, {"R15", f->r15},
	};

	for (unsigned int i = 0; i + 2 < ARRAY_SIZE(r); i += 3)
		console_printf_nolock(
			"keel: error: %s %016llx %s %016llx %s %016llx\n",
			r[i].name, (unsigned long long)r[i].v, r[i + 1].name,
			(unsigned long long)r[i + 1].v, r[i + 2].name,
			(unsigned long long)r[i + 2].v);
}

static bool frame_ok(uint64_t fp)
{
	if (!fp || (fp & 7))
		return false;
	if (fp >= (uint64_t)(uintptr_t)_start &&
	    fp + 16 <= (uint64_t)(uintptr_t)_end)
		return true;
	return mm_direct_mapped(fp, 16);
}

static void print_stack_trace(uint64_t rip, uint64_t rbp)
{
	console_printf_nolock("keel: error: stack trace (frame pointers):\n");
	console_printf_nolock("keel: error:   #0 %016llx\n",
			      (unsigned long long)rip);
	for (unsigned int depth = 1; depth < 16 && frame_ok(rbp); depth++) {
		const uint64_t *f = (const uint64_t *)(uintptr_t)rbp;
		uint64_t ret = f[1];

		if (!ret)
			break;
		console_printf_nolock("keel: error:   #%u %016llx\n", depth,
				      (unsigned long long)ret);
		if (f[0] <= rbp)
			break;
		rbp = f[0];
	}
}

/**
 * x86_trap() - a machine check the interrupted code survives returns
 * (mce.c); anything else is reported and stops the machine (called from
 * entry.S, which returns with iretq when this does).
 */
void x86_trap(struct trap_frame *f);
void x86_trap(struct trap_frame *f)
{
	const char *name =
		f->vector < 32 ? trap_names[f->vector] : "unexpected interrupt";
	enum x86_mce_verdict mce = X86_MCE_GO_ON;
	uint64_t mce_addr = ~0ULL;

	if (f->vector == X86_MC_VECTOR &&
	    (mce = x86_mce(&mce_addr)) == X86_MCE_GO_ON)
		return;

	if (in_trap++) {
		static const char msg[] = "keel: error: nested exception\n";

		arch_console_write(msg, sizeof(msg) - 1);
		arch_stop(AFTER_HALT, false);
	}
	console_printf_nolock(
		"keel: error: exception %llu (%s) error 0x%llx on CPU %u\n",
		(unsigned long long)f->vector, name,
		(unsigned long long)f->error, arch_cpu_id());
	console_printf_nolock(
		"keel: error: RIP %04llx:%016llx RFLAGS %016llx CR2 %016llx\n",
		(unsigned long long)f->cs, (unsigned long long)f->rip,
		(unsigned long long)f->rflags, (unsigned long long)read_cr2());
	console_printf_nolock("keel: error: RSP %04llx:%016llx CR3 %016llx\n",
			      (unsigned long long)f->ss,
			      (unsigned long long)f->rsp,
			      (unsigned long long)read_cr3());
	print_gprs(f);
	print_stack_trace(f->rip, f->rbp);
	if (f->vector == X86_MC_VECTOR && mce_addr != ~0ULL)
		console_printf_nolock(
			"KEEL: FAIL machine check the interrupted code "
			"cannot survive (%s), memory error at %#llx\n",
			x86_mce_why(mce), (unsigned long long)mce_addr);
	console_printf_nolock("KEEL: FAIL exception %llu (%s) at %016llx\n",
			      (unsigned long long)f->vector, name,
			      (unsigned long long)f->rip);
	x86_fail_stop();
}
