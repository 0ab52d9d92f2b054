/* SPDX-License-Identifier: MIT */
/*
 * arm64 entry: the Linux Image header (with the PE/COFF header of the EFI
 * stub layout), the boot CPU's first instructions (Image entry and the
 * UEFI entry efi_entry) and the secondary CPUs' entry from PSCI CPU_ON.
 *
 * UEFI path: efi_entry relocates, zeroes .bss and calls efi_main() (efi.c)
 * with the MMU on (UEFI's identity map); after ExitBootServices() efi.c
 * calls efi_enter_kernel, which cleans the image to the PoC, turns the MMU
 * off and joins the Image path at common_entry, keeping .bss. From there
 * both paths are the same: keel never keeps UEFI's page tables.
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
 * 2 MiB aligned address, QEMU -kernel loads us at 0x40200000; UEFI and
 * GRUB place the PE image on any 4 KiB boundary, which works as well.
 *
 * Until mm.c turns the MMU on, every data access is Device memory, so head.S
 * and the early C only do aligned accesses (-mstrict-align).
 */
#include <asm/arm64.h>

/* "KEELNEED" read as a little-endian quad (include/keel/handover.h). */
#define LU_NEED_MAGIC64 0x4445454e4c45454b

	.section .head.text, "ax"
	.globl	_head
_head:
	/*
	 * code0: "MZ" (the PE/COFF DOS magic) encoded as a harmless
	 * instruction, add x13, x18, #0x16, so the same first word serves
	 * Linux Image loaders (QEMU -kernel, U-Boot booti) and PE loaders
	 * (UEFI LoadImage, GRUB's linux/xen_hypervisor).
	 */
	.long	0x91005a4d		/* code0: "MZ" */
	b	primary_entry		/* code1 */
	.quad	0			/* text_offset: base is 2 MiB aligned */
	.quad	_kernel_size		/* image_size, bss and page tables included */
	.quad	0xa			/* flags: LE, 4K pages (bit 1), anywhere (bit 3) */
	.quad	_need_size		/* res2: keel's need (= image_size; older images kept a room) */
	.quad	LU_NEED_MAGIC64		/* res3: says res2 is keel's need */
	.quad	0			/* res4 */
	.ascii	"ARM\x64"		/* magic */
	.long	pe_header - _head	/* res5: PE header offset (0x3C) */

/*
 * PE/COFF header (PE32+, EFI application) so UEFI firmware and GRUB can
 * start the same file through efi_entry. ImageBase 0 and no base
 * relocation directory (as Linux does): the image relocates itself in
 * head.S, so a loader may place it anywhere; IMAGE_FILE_RELOCS_STRIPPED is
 * clear, which tells EDK2 that loading elsewhere than ImageBase is fine.
 * Headers fill the first 4 KiB (SizeOfHeaders); one section ".text"
 * covers the rest of the file and, through VirtualSize, .bss and the
 * page-table pool (zero-filled by the loader; head.S zeroes .bss again).
 */
	.balign	8
pe_header:
	.ascii	"PE\0\0"
	.short	0xaa64			/* Machine: ARM64 */
	.short	1			/* NumberOfSections */
	.long	0			/* TimeDateStamp */
	.long	0			/* PointerToSymbolTable */
	.long	0			/* NumberOfSymbols */
	.short	section_table - optional_header	/* SizeOfOptionalHeader */
	.short	0x0226			/* EXECUTABLE_IMAGE | LINE_NUMS_STRIPPED |
					   LARGE_ADDRESS_AWARE | DEBUG_STRIPPED */
optional_header:
	.short	0x20b			/* PE32+ */
	.byte	2, 0			/* linker version */
	.long	_pe_code_size		/* SizeOfCode */
	.long	0			/* SizeOfInitializedData */
	.long	_pe_bss_size		/* SizeOfUninitializedData */
	.long	_pe_entry		/* AddressOfEntryPoint */
	.long	_pe_text_off		/* BaseOfCode */
	.quad	0			/* ImageBase */
	.long	4096			/* SectionAlignment */
	.long	4096			/* FileAlignment */
	.short	0, 0			/* OS version */
	.short	0, 0			/* image version */
	.short	0, 0			/* subsystem version */
	.long	0			/* Win32VersionValue */
	.long	_pe_image_size		/* SizeOfImage (4 KiB multiple) */
	.long	_pe_text_off		/* SizeOfHeaders */
	.long	0			/* CheckSum */
	.short	10			/* Subsystem: EFI application */
	.short	0			/* DllCharacteristics */
	.quad	0, 0, 0, 0		/* stack/heap reserve and commit */
	.long	0			/* LoaderFlags */
	.long	6			/* NumberOfRvaAndSizes */
	.quad	0			/* export table */
	.quad	0			/* import table */
	.quad	0			/* resource table */
	.quad	0			/* exception table */
	.quad	0			/* certificate table */
	.quad	0			/* base relocation table: none */
section_table:
	.ascii	".text\0\0\0"
	.long	_pe_virt_size		/* VirtualSize: up to the end of bss */
	.long	_pe_text_off		/* VirtualAddress */
	.long	_pe_code_size		/* SizeOfRawData (4 KiB multiple) */
	.long	_pe_text_off		/* PointerToRawData */
	.long	0, 0			/* relocations, line numbers */
	.short	0, 0
	.long	0xe00000e0		/* code | data | bss | X | R | W */
	.balign	4096			/* end of headers = start of .text */

	.text
primary_entry:
	msr	daifset, #0xf		/* U-Boot leaves SError unmasked */
	mov	x21, x0			/* DTB */
	mov	x24, #0			/* zero .bss */
	b	common_entry

/*
 * efi_enter_kernel(dtb): called by efi.c after ExitBootServices, on the
 * firmware's stack, MMU and caches on with UEFI's identity map. We keep
 * none of UEFI's translation state: clean+invalidate the whole image
 * (code, .data, .bss with what efi.c saved, page-table pool) to the PoC,
 * turn MMU and caches off and take the normal boot path, which builds
 * keel's own tables exactly as for a DT boot. .bss is not zeroed again:
 * it holds what efi.c copied out of boot-services memory.
 * x0 = DTB from the configuration table, or 0. Does not return.
 */
	.globl	efi_enter_kernel
efi_enter_kernel:
	msr	daifset, #0xf
	mov	x21, x0
	adr	x0, _head
	adrp	x1, _end
	add	x1, x1, :lo12:_end
	mrs	x2, ctr_el0
	ubfx	x2, x2, #16, #4		/* DminLine: log2(words) */
	mov	x3, #4
	lsl	x2, x3, x2		/* line size in bytes */
	sub	x3, x2, #1
	bic	x0, x0, x3
1:	dc	civac, x0
	add	x0, x0, x2
	cmp	x0, x1
	b.lo	1b
	dsb	sy
	mrs	x0, CurrentEL
	ubfx	x0, x0, #2, #2
	cmp	x0, #2
	b.eq	2f
	mrs	x1, sctlr_el1
	bic	x1, x1, #SCTLR_M
	bic	x1, x1, #SCTLR_C
	bic	x1, x1, #SCTLR_I
	msr	sctlr_el1, x1
	b	3f
2:	mrs	x1, sctlr_el2
	bic	x1, x1, #SCTLR_M
	bic	x1, x1, #SCTLR_C
	bic	x1, x1, #SCTLR_I
	msr	sctlr_el2, x1
3:	isb
	ic	iallu
	dsb	nsh
	isb
	mov	x24, #1			/* keep .bss */

common_entry:
	bl	el_setup		/* x0 = EL; zeroes CNTVOFF_EL2 at EL2 */
	isb
	mrs	x20, cntvct_el0		/* entry ticks, as early as they are valid */
	mov	x22, x0
	bl	apply_relocs
	cbnz	x24, 4f
	bl	zero_bss
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
 * efi_entry: the PE/COFF entry point. x0 = EFI ImageHandle, x1 = EFI
 * SystemTable; AAPCS64 is the UEFI calling convention on arm64, so this
 * is a plain C call on the firmware's stack once the image is relocated
 * and its .bss zeroed. efi_main() only returns on failure, with an EFI
 * status for the firmware (callee-saved registers restored).
 */
	.globl	efi_entry
efi_entry:
	stp	x29, x30, [sp, #-32]!
	mov	x29, sp
	stp	x19, x20, [sp, #16]
	mov	x19, x0
	mov	x20, x1
	bl	apply_relocs
	bl	zero_bss
	mov	x0, x19
	mov	x1, x20
	bl	efi_main
	ldp	x19, x20, [sp, #16]
	ldp	x29, x30, [sp], #32
	ret

/*
 * apply_relocs: *(base + off) = base + addend for every R_AARCH64_RELATIVE
 * entry. Idempotent (the addend, not the old value, is used), so the EFI
 * path may run it twice. Clobbers x9-x14.
 */
apply_relocs:
	adr	x14, _head
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
	add	x13, x13, x14
	str	x13, [x11, x14]
	b	1b
2:	ret

/* zero_bss: .bss is 16-byte aligned by keel.lds. Clobbers x9, x10. */
zero_bss:
	adrp	x9, __bss_start
	add	x9, x9, :lo12:__bss_start
	adrp	x10, __bss_end
	add	x10, x10, :lo12:__bss_end
1:	cmp	x9, x10
	b.hs	2f
	stp	xzr, xzr, [x9], #16
	b	1b
2:	ret

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
	/*
	 * HCR_EL2.RW: EL1 is AArch64; IMO/FMO: physical IRQs and FIQs go to
	 * EL2, keel's own level, so that the idle CPUs' timer interrupt
	 * (gic.c), pending but masked by PSTATE, is one that ends their WFI
	 * rather than one routed to an EL1 that does not run. Nothing else
	 * is trapped.
	 */
1:	mov	x1, #(1 << 31)
	orr	x1, x1, #(3 << 3)
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
