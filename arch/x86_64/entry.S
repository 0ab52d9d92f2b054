/* SPDX-License-Identifier: MIT */
/*
 * Exception entry stubs. Every stub leaves the same frame (struct
 * trap_frame in traps.c): the general registers pushed by trap_common, then
 * the vector, the error code (0 when the CPU pushes none) and the frame the
 * CPU pushed (rip, cs, rflags, rsp, ss). Every exception is fatal but a
 * machine check the interrupted code survives: x86_trap() returns only
 * then, and the frame is restored and iretq'd. The interrupt stubs (the local
 * APIC timer and wake-up IPI; one per other vector, the spurious one
 * included) return with iretq.
 */
#include <asm/x86.h>

/* Vectors for which the CPU pushes an error code. */
#define HAS_ERR(v) ((v) == 8 || (v) == 10 || (v) == 11 || (v) == 12 || \
		    (v) == 13 || (v) == 14 || (v) == 17 || (v) == 21 || \
		    (v) == 29 || (v) == 30)

.macro TRAP_STUB v
	.align 16
trap_stub_\v:
	.if !HAS_ERR(\v)
	pushq $0
	.endif
	pushq $\v
	jmp trap_common
.endm

	.text
	.irp v, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31
	TRAP_STUB \v
	.endr

	/*
	 * An interrupt stub: the C calling convention's scratch registers
	 * are saved around the call of \fn; 5 + 9 quadwords keep %rsp
	 * 16-byte aligned at the call.
	 */
.macro IRQ_STUB name, fn
	.align 16
	.globl \name
\name:
	pushq %rax
	pushq %rcx
	pushq %rdx
	pushq %rsi
	pushq %rdi
	pushq %r8
	pushq %r9
	pushq %r10
	pushq %r11
	cld
	call \fn
	popq %r11
	popq %r10
	popq %r9
	popq %r8
	popq %rdi
	popq %rsi
	popq %rdx
	popq %rcx
	popq %rax
	iretq
.endm

	/*
	 * X86_WAKE_VEC: the wake-up IPI or the local APIC timer, ending an
	 * idle halt (cpu.c arch_cpu_idle_wait) or a latency probe deadline
	 * (irq.c). x86_timer_irq() reads the TSC first, calls the probe's
	 * handler and writes the EOI.
	 */
	IRQ_STUB x86_wake_stub, x86_timer_irq

	/*
	 * Every other vector 32..255, the APIC's spurious vector among them:
	 * one X86_VECTOR_STUB_SIZE-byte stub each, which pushes its vector
	 * for x86_other_irq(vector) (irq.c): an interrupt keel never asked
	 * for (firmware left a source on), counted and ended, not fatal,
	 * now that keel runs with interrupts on.
	 */
	.align X86_VECTOR_STUB_SIZE
	.globl x86_vector_stubs
x86_vector_stubs:
	vector = 32
	.rept 256 - 32
0:
	pushq $vector
	jmp vector_common
	/* Each stub X86_VECTOR_STUB_SIZE bytes (an error if it outgrew them). */
	.fill 0b + X86_VECTOR_STUB_SIZE - ., 1, 0xcc
	vector = vector + 1
	.endr

	/*
	 * The scratch registers saved around x86_other_irq(vector); with the
	 * CPU's 5 quadwords, the vector and these 9, one more keeps %rsp
	 * 16-byte aligned at the call.
	 */
vector_common:
	pushq %rax
	pushq %rcx
	pushq %rdx
	pushq %rsi
	pushq %rdi
	pushq %r8
	pushq %r9
	pushq %r10
	pushq %r11
	cld
	movq 72(%rsp), %rdi
	subq $8, %rsp
	call x86_other_irq
	addq $8, %rsp
	popq %r11
	popq %r10
	popq %r9
	popq %r8
	popq %rdi
	popq %rsi
	popq %rdx
	popq %rcx
	popq %rax
	addq $8, %rsp
	iretq

trap_common:
	pushq %rax
	pushq %rbx
	pushq %rcx
	pushq %rdx
	pushq %rsi
	pushq %rdi
	pushq %rbp
	pushq %r8
	pushq %r9
	pushq %r10
	pushq %r11
	pushq %r12
	pushq %r13
	pushq %r14
	pushq %r15
	cld
	movq %rsp, %rdi
	movq %rsp, %rbx		/* callee-saved: the frame, past the call */
	andq $-16, %rsp
	call x86_trap
	/* Only a machine check the code survives returns (mce.c). */
	movq %rbx, %rsp
	popq %r15
	popq %r14
	popq %r13
	popq %r12
	popq %r11
	popq %r10
	popq %r9
	popq %r8
	popq %rbp
	popq %rdi
	popq %rsi
	popq %rdx
	popq %rcx
	popq %rbx
	popq %rax
	addq $16, %rsp		/* the vector and the error code */
	iretq

	.section .rodata
	.align 8
	.globl trap_stub_table
trap_stub_table:
	.irp v, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31
	.quad trap_stub_\v
	.endr

	.section .note.GNU-stack, "", @progbits
