/* SPDX-License-Identifier: MIT */
/*
 * Owner: guest.
 * What the guest program (arch/<arch>/guest_prog.S) and keel agree on
 * (DESIGN §14): its entry arguments, its hypercalls and its pattern.
 * Plain numbers, so the assembly includes this file too.
 *
 * Entry: the vCPU starts at the image's entry with its own stage 1 off
 * (arm64: SCTLR_EL1.M = 0; x86_64: an identity map of its IPA space, so a
 * guest address is an IPA on both) and six arguments (arm64 x0-x5,
 * x86_64 rdi, rsi, rdx, rcx, r8, r9):
 *   0 bytes    its IPA range is [0, bytes), a multiple of 4 KiB
 *   1 stride   guest_touch=: bytes between two words it checks and writes
 *              (a power of two, 8 .. 4096)
 *   2 seed     its pattern: the word at IPA a is a ^ seed (guest_seed():
 *              the domain and the round are in its top 16 bits)
 *   3 expect   what each word must read before it is written
 *              (GUEST_EXPECT_ZERO, or GUEST_EXPECT_OWN: its own pattern,
 *              the check of a guest that resumes after a live update)
 *   4 flags    GUEST_FLAG_PAST_END: after the walk, read the first IPA past
 *              its range (the stage-2 fault test); its other bits
 *              (GUEST_SKIP_LIST_MASK) are the IPA of the skip list: the
 *              pages of its range the hypervisor took out of service
 *              (issue 38 §4: a read may raise another machine check),
 *              ascending page IPAs, then GUEST_SKIP_END; at most
 *              GUEST_SKIP_MAX, in one page of its image. The walk never
 *              touches a page it names and counts it as skipped
 *   5 loop     counter ticks its measuring loop runs
 *
 * Hypercalls (arm64 HVC #0, x86_64 VMMCALL): number in x0 / rax, values in
 * x1-x4 / rbx, rcx, rdx, rsi:
 *   GUEST_HC_WALK  pages walked, bad words, first bad IPA (GUEST_NO_IPA:
 *                  none), the first bad word's value
 *   GUEST_HC_DONE  largest gap between two loop iterations (counter
 *                  ticks), iterations, the walk's ticks (counter), pages
 *                  its walk skipped (the skip list's)
 *   GUEST_HC_EXC   the guest took an exception of its own: syndrome
 *                  (ESR_EL1; x86: its error code), address, pc, vector
 * After GUEST_HC_DONE or GUEST_HC_EXC the guest never runs again.
 */
#ifndef KEEL_GUEST_ABI_H
#define KEEL_GUEST_ABI_H

#define GUEST_HC_WALK	    1
#define GUEST_HC_DONE	    2
#define GUEST_HC_EXC	    3

#define GUEST_EXPECT_ZERO   0
#define GUEST_EXPECT_OWN    1

#define GUEST_FLAG_PAST_END 1
/* Flags take bits 2:0 of argument 4; the skip list's IPA the rest. */
#define GUEST_FLAG_MASK	     7
#define GUEST_SKIP_LIST_MASK (~7)
#define GUEST_SKIP_END	     (-1) /* after the last page of the list */
#define GUEST_SKIP_MAX	     511  /* a page of words, GUEST_SKIP_END too */

#define GUEST_ARGS	     6
#define GUEST_NO_IPA	     (-1)

/*
 * The pattern's top 16 bits (guest_seed()): 'K' ^ the round in bits
 * 63:56, the domain's id in bits 55:48; IPAs stay below 2^47.
 */
#define GUEST_SEED_BASE	 0x4b
#define GUEST_SEED_SHIFT 48

#endif
