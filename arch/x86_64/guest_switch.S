/* SPDX-License-Identifier: MIT */
/*
 * The world switch of AMD SVM (guest.c): one VMRUN.
 *
 * void svm_guest_enter(uint64_t vmcb_pa, uint64_t *gprs): saves the
 * host's callee-saved registers, loads the guest's general registers but
 * rax and rsp (the VMCB holds those, with rip and rflags) from @gprs
 * (struct x86_vcpu's gprs[16], in the order rax rbx rcx rdx rsi rdi rbp
 * rsp r8 ... r15), and runs the guest: CLGI, STI, VMRUN. VMRUN saves the
 * host's rip, rsp, rax and rflags (IF set: with V_INTR_MASKING that lets
 * a physical interrupt end the guest, the slice's timer) in the host save
 * area; at #VMEXIT GIF is 0 and they are back. The guest's registers go
 * back to @gprs; CLI then STGI, so an interrupt that ended the guest
 * stays pending until guest.c restores the caller's IF.
 * AMD64 APM Vol. 2, 15.5 "VMRUN Instruction", 15.17 "Global Interrupt
 * Flag, STGI and CLGI Instructions", 15.21.1 "Physical (INTR) Interrupt
 * Masking in EFLAGS".
 */

	.text
	.globl	svm_guest_enter
svm_guest_enter:
	push	%rbp
	push	%rbx
	push	%r12
	push	%r13
	push	%r14
	push	%r15
	push	%rsi			/* 8(%rsp) after the next push: gprs */
	push	%rdi			/* (%rsp): the VMCB */
	mov	8 * 1(%rsi), %rbx
	mov	8 * 2(%rsi), %rcx
	mov	8 * 3(%rsi), %rdx
	mov	8 * 5(%rsi), %rdi
	mov	8 * 6(%rsi), %rbp
	mov	8 * 8(%rsi), %r8
	mov	8 * 9(%rsi), %r9
	mov	8 * 10(%rsi), %r10
	mov	8 * 11(%rsi), %r11
	mov	8 * 12(%rsi), %r12
	mov	8 * 13(%rsi), %r13
	mov	8 * 14(%rsi), %r14
	mov	8 * 15(%rsi), %r15
	mov	8 * 4(%rsi), %rsi
	mov	(%rsp), %rax
	clgi
	sti
	vmrun	%rax
	push	%rsi			/* the guest's rsi */
	mov	16(%rsp), %rsi		/* gprs */
	mov	%rbx, 8 * 1(%rsi)
	mov	%rcx, 8 * 2(%rsi)
	mov	%rdx, 8 * 3(%rsi)
	mov	%rdi, 8 * 5(%rsi)
	mov	%rbp, 8 * 6(%rsi)
	mov	%r8, 8 * 8(%rsi)
	mov	%r9, 8 * 9(%rsi)
	mov	%r10, 8 * 10(%rsi)
	mov	%r11, 8 * 11(%rsi)
	mov	%r12, 8 * 12(%rsi)
	mov	%r13, 8 * 13(%rsi)
	mov	%r14, 8 * 14(%rsi)
	mov	%r15, 8 * 15(%rsi)
	popq	8 * 4(%rsi)
	cli
	stgi
	add	$16, %rsp
	pop	%r15
	pop	%r14
	pop	%r13
	pop	%r12
	pop	%rbx
	pop	%rbp
	ret

	.section .note.GNU-stack, "", @progbits
