/* SPDX-License-Identifier: MIT */
/*
 * The live-update stub (arch/arm64/liveupdate.c copies it into a page of
 * its own, outside both images; VA == PA there as everywhere): copy the
 * new Image over this one, clean and invalidate to the PoC what the new
 * image reads or writes with its MMU off (all of its image_size: file,
 * bss, page tables; the DTB; the handover), turn MMU and caches off as
 * efi_enter_kernel does, and enter it as booting.rst says: x0 = DTB,
 * x1-x3 = 0, MMU and D-cache off, interrupts masked, at this EL.
 * Position independent; x0 = its parameter block (asm/lu_stub.h).
 */
#include <asm/arm64.h>
#include <asm/lu_stub.h>

	.section .rodata, "a"
	.balign 8
	.globl arm64_lu_stub_start
arm64_lu_stub_start:
	msr	daifset, #0xf
	mov	x19, x0
	ldr	x1, [x19, #LU_P_SRC]
	ldr	x2, [x19, #LU_P_DST]
	ldr	x3, [x19, #LU_P_LEN]
	/*
	 * 16 bytes a step, a step whose bytes are already there not written:
	 * under QEMU's TCG every store into a page that holds translated code
	 * takes a slow path, so writing the old text over itself (an update
	 * to the same build) cost most of the relocation. The length is a
	 * multiple of 8: the last 8 bytes, if any, on their own.
	 */
1:	cmp	x3, #16
	b.lo	8f
	ldp	x4, x7, [x1], #16
	ldp	x8, x9, [x2]
	cmp	x4, x8
	ccmp	x7, x9, #0, eq
	b.eq	9f
	stp	x4, x7, [x2]
9:	add	x2, x2, #16
	sub	x3, x3, #16
	b	1b
8:	cbz	x3, 2f
	ldr	x4, [x1], #8
	str	x4, [x2], #8

2:	mrs	x5, ctr_el0
	ubfx	x5, x5, #16, #4		/* DminLine: log2(words) */
	mov	x6, #4
	lsl	x5, x6, x5		/* line size in bytes */
	ldr	x0, [x19, #LU_P_DST]
	ldr	x1, [x19, #LU_P_MEM]
	bl	3f
	ldr	x0, [x19, #LU_P_DTB]
	ldr	x1, [x19, #LU_P_DTBLEN]
	bl	3f
	ldr	x0, [x19, #LU_P_HO]
	ldr	x1, [x19, #LU_P_HOLEN]
	bl	3f
	dsb	sy

	mrs	x0, CurrentEL
	ubfx	x0, x0, #2, #2
	cmp	x0, #2
	b.eq	5f
	mrs	x1, sctlr_el1
	bic	x1, x1, #SCTLR_M
	bic	x1, x1, #SCTLR_C
	bic	x1, x1, #SCTLR_I
	msr	sctlr_el1, x1
	b	6f
5:	mrs	x1, sctlr_el2
	bic	x1, x1, #SCTLR_M
	bic	x1, x1, #SCTLR_C
	bic	x1, x1, #SCTLR_I
	msr	sctlr_el2, x1
6:	isb
	ic	iallu
	dsb	nsh
	isb
	ldr	x0, [x19, #LU_P_DTB]
	ldr	x4, [x19, #LU_P_ENTRY]
	mov	x1, xzr
	mov	x2, xzr
	mov	x3, xzr
	br	x4

	/* DC CIVAC over [x0, x0 + x1), x5 = line size; clobbers x0, x1, x6. */
3:	add	x1, x0, x1
	sub	x6, x5, #1
	bic	x0, x0, x6
4:	cmp	x0, x1
	b.hs	7f
	dc	civac, x0
	add	x0, x0, x5
	b	4b
7:	ret
	.globl arm64_lu_stub_end
arm64_lu_stub_end:
