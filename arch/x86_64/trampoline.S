/* SPDX-License-Identifier: MIT */
/*
 * The SMP trampoline: copied to TRAMP_PA (0x8000) by smp.c and entered by
 * every secondary CPU on a STARTUP IPI in real mode with CS = TRAMP_PA >>
 * 4, IP = 0, any number of them at once. It climbs real mode -> 32-bit
 * protected mode -> long mode on the boot CPU's page tables (tramp_cr3),
 * reads its own APIC ID, finds the slot of that APIC ID in the AP table
 * (struct x86_ap_slot in smp.c), marks the slot started (the boot CPU then
 * sends it no second STARTUP), switches to the slot's stack and calls
 * x86_ap_entry(cpu, percpu).
 *
 * Safe with every AP in it at once: the parameter block is only read
 * (written by the boot CPU before the first STARTUP), nothing is pushed
 * before the switch to the CPU's own stack, and each AP writes only its
 * own slot. An APIC ID that has no slot halts.
 *
 * The code runs at TRAMP_PA, not where it is linked, so every absolute
 * address is T(label). struct x86_tramp_params in smp.c has the layout of
 * the parameter block at the end.
 */
#include <asm/x86.h>

#define T(x) (TRAMP_PA + ((x) - x86_tramp_start))

#define X86_CR0_PE (1 << 0)
#define X86_CR0_MP (1 << 1)
#define X86_CR0_EM (1 << 2)
#define X86_CR0_TS (1 << 3)
#define X86_CR0_PG (1 << 31)
#define X86_CR4_PAE (1 << 5)
#define X86_CR4_OSFXSR (1 << 9)
#define X86_CR4_OSXMMEXCPT (1 << 10)
#define MSR_EFER 0xC0000080
#define EFER_LME (1 << 8)

	/* Only ever copied, never executed where it is linked. */
	.section .rodata
	.balign 16
	.globl x86_tramp_start
x86_tramp_start:
	.code16
	cli
	cld
	movw %cs, %ax
	movw %ax, %ds
	lgdtl tramp_gdtr - x86_tramp_start
	movl %cr0, %eax
	orl $X86_CR0_PE, %eax
	movl %eax, %cr0
	ljmpl $GDT_CODE32, $T(tramp32)

	.code32
tramp32:
	movl $GDT_DATA, %eax
	movl %eax, %ds
	movl %eax, %es
	movl %eax, %ss
	movl %cr4, %eax
	orl $(X86_CR4_PAE | X86_CR4_OSFXSR | X86_CR4_OSXMMEXCPT), %eax
	movl %eax, %cr4
	movl T(tramp_cr3), %eax
	movl %eax, %cr3
	movl $MSR_EFER, %ecx
	rdmsr
	orl $EFER_LME, %eax
	wrmsr
	movl %cr0, %eax
	andl $~(X86_CR0_EM | X86_CR0_TS), %eax
	orl $(X86_CR0_PG | X86_CR0_PE | X86_CR0_MP), %eax
	movl %eax, %cr0
	ljmp $GDT_CODE64, $T(tramp64)

	.code64
tramp64:
	movl $GDT_DATA, %eax
	movl %eax, %ds
	movl %eax, %es
	movl %eax, %ss
	xorl %eax, %eax
	movl %eax, %fs
	movl %eax, %gs
	/* Who am I? x2APIC: enable it here (INIT left it off), MSR 0x802. */
	cmpl $0, T(tramp_x2apic)
	je 1f
	movl $MSR_APIC_BASE, %ecx
	rdmsr
	orl $(APIC_BASE_EN | APIC_BASE_X2APIC), %eax
	wrmsr
	movl $0x802, %ecx
	rdmsr
	jmp 2f
1:	movq T(tramp_apic_va), %rdx
	movl 0x20(%rdx), %eax
	shrl $24, %eax
	/* Find the slot of APIC ID %eax; none: halt. */
2:	movq T(tramp_table), %rbx
	movl T(tramp_count), %ecx
4:	testl %ecx, %ecx
	jz 3f
	cmpl X86_AP_SLOT_HWID(%rbx), %eax
	je 5f
	addq $X86_AP_SLOT_SIZE, %rbx
	decl %ecx
	jmp 4b
5:	movl $1, X86_AP_SLOT_STARTED(%rbx)
	movq X86_AP_SLOT_PERCPU(%rbx), %rsp
	movq %rsp, %rsi			/* its struct x86_percpu, above the stack */
	movl X86_AP_SLOT_CPU(%rbx), %edi
	movq T(tramp_entry), %rax
	xorl %ebp, %ebp
	callq *%rax
3:	cli
	hlt
	jmp 3b

	.balign 8
tramp_gdt:
	.quad 0
	.quad 0x00af9a000000ffff	/* 0x08: 64-bit code */
	.quad 0x00cf92000000ffff	/* 0x10: data */
	.quad 0x00cf9a000000ffff	/* 0x18: 32-bit code */
tramp_gdt_end:
tramp_gdtr:
	.short tramp_gdt_end - tramp_gdt - 1
	.long T(tramp_gdt)

	/* struct x86_tramp_params */
	.balign 8
	.globl x86_tramp_params
x86_tramp_params:
tramp_cr3:	.quad 0
tramp_entry:	.quad 0
tramp_apic_va:	.quad 0
tramp_table:	.quad 0
tramp_count:	.long 0
tramp_x2apic:	.long 0
	.balign 8
	.globl x86_tramp_end
x86_tramp_end:

	.section .note.GNU-stack, "", @progbits
