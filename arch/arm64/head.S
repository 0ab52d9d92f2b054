/* SPDX-License-Identifier: MIT */
/*
 * arm64 entry: the Linux Image header, the boot CPU's first instructions
 * and the secondary CPUs' entry from PSCI CPU_ON.
 *
 * Boot protocol (Documentation/arch/arm64/booting.rst): x0 = DTB physical
 * address, MMU and D-cache off, at EL2 or EL1. We do not drop from EL2 to
 * EL1: a hypervisor stays at EL2, so keel does too (HCR_EL2.E2H = 0, the
 * classic non-VHE EL2 translation regime) and reports which EL it ran at.
 *
 * Position independence: the image is linked at 0 as a PIE. Code only uses
 * PC-relative addressing (adrp/adr), so it runs wherever it is loaded; the
 * absolute pointers in data (R_AARCH64_RELATIVE entries of .rela.dyn:
 * function pointers, string tables, libfdt's GOT) are fixed up here by
 * adding the load address, before any C runs. After that VA == PA: the MMU
 * identity-maps RAM (mm.c). The "anywhere" flag lets U-Boot load us at any
 * 2 MiB aligned address, QEMU -kernel loads us at 0x40200000.
 *
 * Until mm.c turns the MMU on, every data access is Device memory, so head.S
 * and the early C only do aligned accesses (-mstrict-align).
 */
#include <asm/arm64.h>

	.section .head.text, "ax"
	.globl	_head
_head:
	b	primary_entry		/* code0 */
	.long	0			/* code1 */
	.quad	0			/* text_offset: base is 2 MiB aligned */
	.quad	_kernel_size		/* image_size, bss and page tables included */
	.quad	0xa			/* flags: LE, 4K pages (bit 1), anywhere (bit 3) */
	.quad	0			/* res2 */
	.quad	0			/* res3 */
	.quad	0			/* res4 */
	.ascii	"ARM\x64"		/* magic */
	.long	0			/* res5: no PE header */

	.text
primary_entry:
	msr	daifset, #0xf		/* U-Boot leaves SError unmasked */
	mov	x21, x0			/* DTB */
	bl	el_setup		/* x0 = EL; zeroes CNTVOFF_EL2 at EL2 */
	isb
	mrs	x20, cntvct_el0		/* entry ticks, as early as they are valid */
	mov	x22, x0

	/* Apply R_AARCH64_RELATIVE relocations: *(base + off) = base + addend */
	adr	x23, _head
	adrp	x9, __rela_start
	add	x9, x9, :lo12:__rela_start
	adrp	x10, __rela_end
	add	x10, x10, :lo12:__rela_end
1:	cmp	x9, x10
	b.hs	2f
	ldp	x11, x12, [x9]		/* r_offset, r_info */
	ldr	x13, [x9, #16]		/* r_addend */
	add	x9, x9, #24
	cmp	w12, #1027		/* R_AARCH64_RELATIVE */
	b.ne	1b
	add	x13, x13, x23
	str	x13, [x11, x23]
	b	1b
2:
	/* Zero .bss (16-byte aligned by keel.lds) */
	adrp	x0, __bss_start
	add	x0, x0, :lo12:__bss_start
	adrp	x1, __bss_end
	add	x1, x1, :lo12:__bss_end
3:	cmp	x0, x1
	b.hs	4f
	stp	xzr, xzr, [x0], #16
	b	3b
4:
	adrp	x0, boot_stack_top
	add	x0, x0, :lo12:boot_stack_top
	mov	sp, x0
	mov	x0, x22
	bl	set_vbar
	mov	x29, xzr
	mov	x30, xzr
	mov	x0, x21
	mov	x1, x20
	mov	x2, x22
	bl	arm64_start
5:	wfi
	b	5b

/*
 * el_setup: known-safe system control state for the EL we entered at,
 * MMU and caches off, FP/SIMD accessible (libfdt is built with them).
 * Return: x0 = current EL. Clobbers x1.
 */
el_setup:
	mrs	x0, CurrentEL
	ubfx	x0, x0, #2, #2
	cmp	x0, #2
	b.eq	1f
	ldr	x1, =SCTLR_EL1_RES1
	msr	sctlr_el1, x1
	mov	x1, #(3 << 20)		/* CPACR_EL1.FPEN: no FP traps */
	msr	cpacr_el1, x1
	isb
	ret
1:	mov	x1, #(1 << 31)		/* HCR_EL2.RW: EL1 is AArch64; nothing trapped */
	msr	hcr_el2, x1
	ldr	x1, =0x33ff		/* CPTR_EL2 RES1 bits, TFP = 0 */
	msr	cptr_el2, x1
	ldr	x1, =SCTLR_EL2_RES1
	msr	sctlr_el2, x1
	msr	cntvoff_el2, xzr	/* CNTVCT == CNTPCT: one clock for all CPUs */
	isb
	ret

/* set_vbar: x0 = EL. Clobbers x1. */
set_vbar:
	adrp	x1, arm64_vectors
	add	x1, x1, :lo12:arm64_vectors
	cmp	x0, #2
	b.eq	1f
	msr	vbar_el1, x1
	isb
	ret
1:	msr	vbar_el2, x1
	isb
	ret

/*
 * secondary_entry: PSCI CPU_ON lands here at the boot CPU's EL with the MMU
 * off and x0 = physical address of a struct arm64_secondary_boot, cleaned
 * to PoC by the boot CPU (as is arm64_mmu_cfg). Turn on the MMU with the
 * boot CPU's tables, take the stack, set TPIDR to the logical id, go to C.
 */
	.globl	secondary_entry
secondary_entry:
	msr	daifset, #0xf
	mov	x19, x0
	bl	el_setup
	mov	x22, x0
	adrp	x1, arm64_mmu_cfg
	add	x1, x1, :lo12:arm64_mmu_cfg
	ldr	x2, [x1, #MMU_CFG_MAIR]
	ldr	x3, [x1, #MMU_CFG_TCR]
	ldr	x4, [x1, #MMU_CFG_TTBR]
	ldr	x5, [x1, #MMU_CFG_SCTLR]
	ldp	x6, x7, [x19]		/* stack_top, cpu */
	cmp	x22, #2
	b.eq	1f
	msr	mair_el1, x2
	msr	tcr_el1, x3
	msr	ttbr0_el1, x4
	isb
	tlbi	vmalle1
	dsb	nsh
	isb
	msr	sctlr_el1, x5
	isb
	ic	iallu
	dsb	nsh
	isb
	msr	tpidr_el1, x7
	b	2f
1:	msr	mair_el2, x2
	msr	tcr_el2, x3
	msr	ttbr0_el2, x4
	isb
	tlbi	alle2
	dsb	nsh
	isb
	msr	sctlr_el2, x5
	isb
	ic	iallu
	dsb	nsh
	isb
	msr	tpidr_el2, x7
2:	mov	sp, x6
	mov	x0, x22
	bl	set_vbar
	mov	x29, xzr
	mov	x30, xzr
	mov	x0, x7
	bl	arm64_secondary_start
3:	wfi
	b	3b

	.bss
	.balign	16
boot_stack:
	.space	64 * 1024
boot_stack_top:
