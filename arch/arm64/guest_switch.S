/* SPDX-License-Identifier: MIT */
/*
 * The world switch at EL2 (guest.c): enter a vCPU at EL1 and come back on
 * its first exception to EL2.
 *
 * unsigned long arm64_guest_enter(struct arm64_guest_regs *r): saves the
 * host's callee-saved registers and @r on the host's stack (SP_EL2),
 * loads the guest's x0-x30, ELR_EL2 (its pc) and SPSR_EL2 (its PSTATE)
 * from @r and ERETs. The guest runs on SP_EL1, so SP_EL2 still points at
 * that frame when an exception from the guest arrives: entry.S's lower-EL
 * vectors push the guest's x0 and x1, put the vector's number (8 sync, 9
 * IRQ, 10 FIQ, 11 SError) in x1 and branch to arm64_guest_exit, which
 * stores every guest register back into @r, restores the host's and
 * returns that number from arm64_guest_enter(). PSTATE.DAIF is then all
 * masked (the exception entry set it); guest.c restores the host's.
 *
 * struct arm64_guest_regs (guest.c): x[31] at 0, pc at 248, pstate at 256.
 */

#define GREG_PC	    248
#define HOST_FRAME  112	/* x19-x30, the regs pointer, padding */
#define HOST_REGS   96

	.text
	.globl	arm64_guest_enter
arm64_guest_enter:
	sub	sp, sp, #HOST_FRAME
	stp	x19, x20, [sp, #0]
	stp	x21, x22, [sp, #16]
	stp	x23, x24, [sp, #32]
	stp	x25, x26, [sp, #48]
	stp	x27, x28, [sp, #64]
	stp	x29, x30, [sp, #80]
	str	x0, [sp, #HOST_REGS]
	ldp	x1, x2, [x0, #GREG_PC]
	msr	elr_el2, x1
	msr	spsr_el2, x2
	ldp	x2, x3, [x0, #16 * 1]
	ldp	x4, x5, [x0, #16 * 2]
	ldp	x6, x7, [x0, #16 * 3]
	ldp	x8, x9, [x0, #16 * 4]
	ldp	x10, x11, [x0, #16 * 5]
	ldp	x12, x13, [x0, #16 * 6]
	ldp	x14, x15, [x0, #16 * 7]
	ldp	x16, x17, [x0, #16 * 8]
	ldp	x18, x19, [x0, #16 * 9]
	ldp	x20, x21, [x0, #16 * 10]
	ldp	x22, x23, [x0, #16 * 11]
	ldp	x24, x25, [x0, #16 * 12]
	ldp	x26, x27, [x0, #16 * 13]
	ldp	x28, x29, [x0, #16 * 14]
	ldr	x30, [x0, #16 * 15]
	ldp	x0, x1, [x0, #0]
	eret
	dsb	nsh			/* no speculation past the ERET */
	isb

/* From entry.S: guest x0, x1 at [sp], x1 = the vector's number. */
	.globl	arm64_guest_exit
arm64_guest_exit:
	ldr	x0, [sp, #16 + HOST_REGS]
	stp	x2, x3, [x0, #16 * 1]
	stp	x4, x5, [x0, #16 * 2]
	stp	x6, x7, [x0, #16 * 3]
	stp	x8, x9, [x0, #16 * 4]
	stp	x10, x11, [x0, #16 * 5]
	stp	x12, x13, [x0, #16 * 6]
	stp	x14, x15, [x0, #16 * 7]
	stp	x16, x17, [x0, #16 * 8]
	stp	x18, x19, [x0, #16 * 9]
	stp	x20, x21, [x0, #16 * 10]
	stp	x22, x23, [x0, #16 * 11]
	stp	x24, x25, [x0, #16 * 12]
	stp	x26, x27, [x0, #16 * 13]
	stp	x28, x29, [x0, #16 * 14]
	str	x30, [x0, #16 * 15]
	ldp	x2, x3, [sp], #16	/* the guest's x0, x1 */
	stp	x2, x3, [x0, #0]
	mrs	x2, elr_el2
	mrs	x3, spsr_el2
	stp	x2, x3, [x0, #GREG_PC]
	mov	x0, x1
	ldp	x19, x20, [sp, #0]
	ldp	x21, x22, [sp, #16]
	ldp	x23, x24, [sp, #32]
	ldp	x25, x26, [sp, #48]
	ldp	x27, x28, [sp, #64]
	ldp	x29, x30, [sp, #80]
	add	sp, sp, #HOST_FRAME
	ret
