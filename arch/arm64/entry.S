/* SPDX-License-Identifier: MIT */
/*
 * Exception vectors (VBAR_EL1 or VBAR_EL2, whichever EL keel runs at).
 * One is expected: an IRQ at the current EL with SP_ELx (vector 5), taken
 * wherever a CPU runs with PSTATE.I clear (outside keel's critical
 * sections: <arch/irq.h>). It saves
 * the registers the C calling convention lets a callee clobber (x0-x18,
 * x29, x30; ELR and SPSR stay live: nothing nests, the handler runs with
 * I set and takes no exception), calls arm64_irq() and returns with eret.
 * An exception from a lower EL, AArch64, is a guest's exit (keel at EL2
 * runs guests at EL1: guest_switch.S): the vector saves the guest's x0
 * and x1 on SP_EL2, which still holds the host's frame of
 * arm64_guest_enter(), and branches to arm64_guest_exit with the
 * vector's number in x1. Any other entry is a bug: the vector saves the
 * registers into a struct arm64_regs on the current stack and calls
 * arm64_trap(), which prints and stops.
 *
 * Frame layout (struct arm64_regs in traps.c): x0..x30, sp at entry.
 */
#include <asm/arm64.h>

#define FRAME_SIZE (32 * 8)
#define IRQ_FRAME  (22 * 8)	/* x0-x18, x29, x30, pad: 16-byte aligned */

/* Store (stp) or load (ldp) x2-x17 in frame slots 1-8, as both frames keep them. */
.macro	x2_to_x17 op
	\op	x2, x3, [sp, #16 * 1]
	\op	x4, x5, [sp, #16 * 2]
	\op	x6, x7, [sp, #16 * 3]
	\op	x8, x9, [sp, #16 * 4]
	\op	x10, x11, [sp, #16 * 5]
	\op	x12, x13, [sp, #16 * 6]
	\op	x14, x15, [sp, #16 * 7]
	\op	x16, x17, [sp, #16 * 8]
.endm

.macro	ventry	kind
	.balign	0x80
	stp	x0, x1, [sp, #-FRAME_SIZE]!
	mov	x1, #\kind
	b	trap_common
.endm

.macro	guest_ventry kind
	.balign	0x80
	stp	x0, x1, [sp, #-16]!
	mov	x1, #\kind
	b	arm64_guest_exit
.endm

	.text
	.balign	0x800
	.globl	arm64_vectors
arm64_vectors:
	/* current EL, SP0 */
	ventry	0
	ventry	1
	ventry	2
	ventry	3
	/* current EL, SPx (where keel runs) */
	ventry	4
	.balign	0x80
	sub	sp, sp, #IRQ_FRAME
	stp	x0, x1, [sp]
	b	irq_common
	ventry	6
	ventry	7
	/* lower EL, AArch64: a guest's exit */
	guest_ventry 8
	guest_ventry 9
	guest_ventry 10
	guest_ventry 11
	/* lower EL, AArch32 */
	ventry	12
	ventry	13
	ventry	14
	ventry	15

irq_common:
	x2_to_x17 stp
	stp	x18, x29, [sp, #16 * 9]
	str	x30, [sp, #16 * 10]
	bl	arm64_irq
	x2_to_x17 ldp
	ldp	x18, x29, [sp, #16 * 9]
	ldr	x30, [sp, #16 * 10]
	ldp	x0, x1, [sp]
	add	sp, sp, #IRQ_FRAME
	eret

trap_common:
	x2_to_x17 stp
	stp	x18, x19, [sp, #16 * 9]
	stp	x20, x21, [sp, #16 * 10]
	stp	x22, x23, [sp, #16 * 11]
	stp	x24, x25, [sp, #16 * 12]
	stp	x26, x27, [sp, #16 * 13]
	stp	x28, x29, [sp, #16 * 14]
	add	x2, sp, #FRAME_SIZE
	stp	x30, x2, [sp, #16 * 15]
	mov	x0, sp
	mov	x29, xzr		/* the trap frame ends the backtrace */
	bl	arm64_trap
1:	wfi
	b	1b
