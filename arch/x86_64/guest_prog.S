/* SPDX-License-Identifier: MIT */
/*
 * The guest program, x86_64 (DESIGN §14, the ABI in <keel/guest_abi.h>).
 * Never run in place: guest.c copies [x86_guest_prog, x86_guest_prog_end)
 * into the first page of each vCPU's guest image, which the guest sees
 * read-only at its image IPA; the vCPU starts at its first byte in 64-bit
 * mode, CPL 0, interrupts off, on an identity map of its IPA space (the
 * image's other pages, 1 GiB pages, accessed and dirty preset): a guest
 * address is an IPA. It has no stack and no IDT: every exception it could
 * take is intercepted (a #VMEXIT), so it never pushes or calls.
 * Position independent: relative jumps only.
 *
 * The same walk and loop as arm64's guest_prog.S: every stride bytes of
 * [0, bytes) checked (zero, or its own pattern) and its pattern a ^ seed
 * written, but for the pages of the skip list (never touched, counted); GUEST_HC_WALK; with GUEST_FLAG_PAST_END a read at IPA bytes
 * (a #NPF); the loop on the TSC for loop ticks, the largest gap kept;
 * GUEST_HC_DONE. Hypercalls are VMMCALL: rax the number, rbx, rcx, rdx,
 * rsi its values.
 *
 * Registers: r12 bytes, r13 stride (then the walk's ticks), r14 seed
 * (then iterations), r15 expect, rbp flags and the skip list's next entry
 * (then the pages skipped), r11 loop ticks; walk: r8
 * IPA, r9 pages, r10 bad words, rbx first bad IPA, rdi its value, rsi
 * start, rcx page end.
 */
#include <keel/guest_abi.h>

	.section .rodata.guest_prog, "a"
	.balign	16
	.globl	x86_guest_prog
x86_guest_prog:
	mov	%rdi, %r12
	mov	%rsi, %r13
	mov	%rdx, %r14
	mov	%rcx, %r15
	mov	%r8, %rbp
	mov	%r9, %r11
	xor	%r8d, %r8d
	xor	%r9d, %r9d
	xor	%r10d, %r10d
	mov	$GUEST_NO_IPA, %rbx
	xor	%edi, %edi
	lfence
	rdtsc
	shl	$32, %rdx
	or	%rdx, %rax
	mov	%rax, %rsi
	test	%r12, %r12
	jz	walked
page:
	mov	%rbp, %rax		/* the next bad page of the list */
	and	$GUEST_SKIP_LIST_MASK, %rax
	cmp	(%rax), %r8
	jne	6f
	add	$8, %rbp		/* skipped: never touched */
	add	$4096, %r8
	cmp	%r12, %r8
	jb	page
	jmp	walked
6:	lea	4096(%r8), %rcx
word:
	mov	(%r8), %rax
	mov	%r8, %rdx
	xor	%r14, %rdx		/* its own pattern */
	cmp	$GUEST_EXPECT_OWN, %r15
	je	1f
	test	%rax, %rax		/* GUEST_EXPECT_ZERO */
	jz	3f
	jmp	2f
1:	cmp	%rdx, %rax
	je	3f
2:	inc	%r10
	cmp	$GUEST_NO_IPA, %rbx	/* the first bad one? */
	jne	3f
	mov	%r8, %rbx
	mov	%rax, %rdi
3:	mov	%rdx, (%r8)
	add	%r13, %r8
	cmp	%rcx, %r8
	jb	word
	inc	%r9
	cmp	%r12, %r8
	jb	page
walked:
	lfence
	rdtsc
	shl	$32, %rdx
	or	%rdx, %rax
	sub	%rsi, %rax
	mov	%rax, %r13		/* the walk's ticks */
	mov	%rbx, %rdx
	mov	%rdi, %rsi
	mov	%r9, %rbx
	mov	%r10, %rcx
	mov	$GUEST_HC_WALK, %eax
	vmmcall
	test	$GUEST_FLAG_PAST_END, %rbp
	jz	measure
	mov	(%r12), %rax		/* one page past its range */
measure:
	and	$0xff8, %rbp		/* the list's index: pages skipped */
	shr	$3, %rbp
	lfence
	rdtsc
	shl	$32, %rdx
	or	%rdx, %rax
	mov	%rax, %r8		/* the last read */
	lea	(%rax, %r11), %r9	/* the loop's end */
	xor	%r10d, %r10d		/* largest gap */
	xor	%r14d, %r14d		/* iterations */
	.globl	x86_guest_loop
x86_guest_loop:
4:	lfence
	rdtsc
	shl	$32, %rdx
	or	%rdx, %rax
	mov	%rax, %rdx
	sub	%r8, %rdx
	cmp	%r10, %rdx
	cmova	%rdx, %r10
	mov	%rax, %r8
	inc	%r14
	cmp	%r9, %rax
	jb	4b
	.globl	x86_guest_loop_end
x86_guest_loop_end:
	mov	%r10, %rbx
	mov	%r14, %rcx
	mov	%r13, %rdx
	mov	%rbp, %rsi
	mov	$GUEST_HC_DONE, %eax
	vmmcall
5:	jmp	5b			/* never run again */
	.globl	x86_guest_prog_end
x86_guest_prog_end:

	.section .note.GNU-stack, "", @progbits
