/* SPDX-License-Identifier: MIT */
/*
 * x86_crc32_fold(reg, p, n, out): the CRC-32 register @reg (edi) over
 * @n (rdx, a multiple of 64, at least 64) bytes at @p (rsi) folded by
 * carry-less multiplication into 16 bytes at @out (rcx) whose register
 * from 0 is the same: the caller (arch/x86_64/crc.c; arch/sandbox/crc.c
 * on an x86-64 host) reduces them with the tables. Four lanes of 16
 * bytes, the register xored into the first: each step replaces a lane L
 * by one whose CRC contribution 64 bytes on is the same, L_lo x k(544)
 * xor L_hi x k(480), plus the 16 bytes found there; at the end the lanes
 * fold into one, 16 bytes apart (k(160), k(96)). k(n) is x^n modulo the
 * polynomial (0x104C11DB7), bit-reflected in 32 bits and shifted left one
 * (a reflected product of two 64-bit halves comes out one bit low),
 * derived by shift and reduce; tests/unit/lib_test.c runs this code
 * against the bitwise CRC at every length and alignment (through the
 * sandbox). keel's C is built without SSE registers: only this and the
 * scrub's stores (arch/x86_64/scrub.c) use them, xmm0..xmm5 here, with
 * interrupts on or off; no handler of keel touches them (CR4.OSFXSR is
 * set by head.S, lu_stub.S and trampoline.S before any C runs).
 */
/* Lane @from folded 128 bits on (xmm4's constants) into lane @to. */
	.macro	fold_into from, to
	movdqa	%xmm\from, %xmm5
	pclmulqdq $0x00, %xmm4, %xmm\from
	pclmulqdq $0x11, %xmm4, %xmm5
	pxor	%xmm5, %xmm\from
	pxor	%xmm\from, %xmm\to
	.endm

	.text
	.globl	x86_crc32_fold
	.type	x86_crc32_fold, @function
x86_crc32_fold:
	movdqu	0(%rsi), %xmm0
	movdqu	16(%rsi), %xmm1
	movdqu	32(%rsi), %xmm2
	movdqu	48(%rsi), %xmm3
	movd	%edi, %xmm4
	pxor	%xmm4, %xmm0
	movabsq	$0x154442bd4, %rax	/* k(544) */
	movq	%rax, %xmm4
	movabsq	$0x1c6e41596, %rax	/* k(480) */
	movq	%rax, %xmm5
	punpcklqdq %xmm5, %xmm4
	addq	$64, %rsi
	subq	$64, %rdx
1:	testq	%rdx, %rdx
	jz	2f
	.irp	lane, 0, 1, 2, 3
	movdqa	%xmm\lane, %xmm5
	pclmulqdq $0x00, %xmm4, %xmm\lane
	pclmulqdq $0x11, %xmm4, %xmm5
	pxor	%xmm5, %xmm\lane
	movdqu	\lane*16(%rsi), %xmm5
	pxor	%xmm5, %xmm\lane
	.endr
	addq	$64, %rsi
	subq	$64, %rdx
	jmp	1b
2:	movabsq	$0x1751997d0, %rax	/* k(160) */
	movq	%rax, %xmm4
	movabsq	$0x0ccaa009e, %rax	/* k(96) */
	movq	%rax, %xmm5
	punpcklqdq %xmm5, %xmm4
	fold_into 0, 1
	fold_into 1, 2
	fold_into 2, 3
	movdqu	%xmm3, (%rcx)
	ret
	.size	x86_crc32_fold, . - x86_crc32_fold

	.section .note.GNU-stack, "", @progbits
