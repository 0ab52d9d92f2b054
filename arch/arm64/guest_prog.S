/* SPDX-License-Identifier: MIT */
/*
 * The guest program, arm64 (DESIGN §14, the ABI in <keel/guest_abi.h>).
 * Never run in place: common/guest/ copies [arm64_guest_prog,
 * arm64_guest_prog_end) into the first page of each vCPU's guest image,
 * which the guest sees read-only at its image IPA, and the vCPU enters at
 * offset GUEST_PROG_ENTRY at EL1h with its MMU off (a guest address is an
 * IPA; data accesses are Device-nGnRnE, so every access is an aligned
 * 64-bit word). Position independent: branches only, no literal pool.
 *
 * Layout: 0x000-0x7ff, its EL1 vector table (VBAR_EL1 = the image): any
 * exception the guest takes itself (an alignment fault, an undefined
 * instruction) ends it with GUEST_HC_EXC; 0x800, the program.
 *
 * The walk: for every page of [0, bytes) but those of the skip list
 * (flags' upper bits: never touched, counted), for every stride bytes of it,
 * the word at a must read 0 (GUEST_EXPECT_ZERO) or a ^ seed
 * (GUEST_EXPECT_OWN); each one that does not is counted, the first kept
 * (its IPA and value); then a ^ seed is written there. GUEST_HC_WALK
 * reports. With GUEST_FLAG_PAST_END it then reads IPA bytes (one page
 * past its range: a stage-2 fault, keel stops it). Then the loop: read
 * CNTVCT_EL0 until loop ticks have passed, keeping the largest gap
 * between two reads, the time it was not running; GUEST_HC_DONE reports.
 *
 * Registers: x19 bytes, x20 stride, x21 seed, x22 expect, x23 flags and
 * the skip list's next entry, x26 pages skipped,
 * x24 loop ticks; walk: x9 IPA, x10 pages, x11 bad words, x12 first bad
 * IPA, x13 its value, x14 start, x15 page end, x25 walk ticks.
 */
#include <keel/guest_abi.h>

#define GUEST_PROG_ENTRY 0x800

	.section .rodata.guest_prog, "a"
	.balign	2048
	.globl	arm64_guest_prog
arm64_guest_prog:
	.irp	vec, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15
	.balign	0x80
	mov	x4, #\vec
	b	guest_exception
	.endr

	.balign	2048
guest_entry:				/* GUEST_PROG_ENTRY */
	mov	x19, x0
	mov	x20, x1
	mov	x21, x2
	mov	x22, x3
	mov	x23, x4
	mov	x24, x5
	mov	x9, #0
	mov	x10, #0
	mov	x11, #0
	mov	x12, #GUEST_NO_IPA
	mov	x13, #0
	isb
	mrs	x14, cntvct_el0
	cbz	x19, walked
page:
	and	x16, x23, #GUEST_SKIP_LIST_MASK	/* the next bad page */
	ldr	x17, [x16]
	cmp	x17, x9
	b.ne	6f
	add	x23, x23, #8		/* skipped: never touched */
	add	x9, x9, #4096
	cmp	x9, x19
	b.lo	page
	b	walked
6:	add	x15, x9, #4096
word:
	ldr	x16, [x9]
	eor	x17, x9, x21		/* its own pattern */
	cmp	x22, #GUEST_EXPECT_OWN
	csel	x18, x17, xzr, eq	/* what the word must be */
	cmp	x16, x18
	b.eq	1f
	add	x11, x11, #1
	cmn	x12, #1			/* the first bad one? */
	b.ne	1f
	mov	x12, x9
	mov	x13, x16
1:	str	x17, [x9]
	add	x9, x9, x20
	cmp	x9, x15
	b.lo	word
	add	x10, x10, #1
	cmp	x9, x19
	b.lo	page
walked:
	isb
	mrs	x25, cntvct_el0
	sub	x25, x25, x14
	mov	x0, #GUEST_HC_WALK
	mov	x1, x10
	mov	x2, x11
	mov	x3, x12
	mov	x4, x13
	hvc	#0
	tbz	x23, #0, measure	/* GUEST_FLAG_PAST_END */
	ldr	x16, [x19]		/* one page past its range */
measure:
	ubfx	x26, x23, #3, #9	/* the list's index: pages skipped */
	isb
	mrs	x14, cntvct_el0
	add	x15, x14, x24		/* the loop's end */
	mov	x16, #0			/* largest gap */
	mov	x17, #0			/* iterations */
	.globl	arm64_guest_loop
arm64_guest_loop:
2:	isb
	mrs	x18, cntvct_el0
	sub	x9, x18, x14
	cmp	x9, x16
	csel	x16, x9, x16, hi
	mov	x14, x18
	add	x17, x17, #1
	cmp	x18, x15
	b.lo	2b
	.globl	arm64_guest_loop_end
arm64_guest_loop_end:
	mov	x0, #GUEST_HC_DONE
	mov	x1, x16
	mov	x2, x17
	mov	x3, x25
	mov	x4, x26
	hvc	#0
3:	b	3b			/* never run again */

guest_exception:
	mov	x0, #GUEST_HC_EXC
	mrs	x1, esr_el1
	mrs	x2, far_el1
	mrs	x3, elr_el1
	hvc	#0
4:	b	4b
	.globl	arm64_guest_prog_end
arm64_guest_prog_end:
