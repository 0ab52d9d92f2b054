/* SPDX-License-Identifier: MIT */
/*
 * x86_64 entry: the multiboot1 and multiboot2 headers, the 32-bit entry
 * both loaders jump to, the long-mode check, the boot page tables and the
 * switch to 64-bit mode, then x86_entry(magic, info) in setup.c.
 *
 * Loaders: QEMU -kernel reads the multiboot1 header and, because flags
 * bit 16 (a.out kludge) is set, copies the file by the address fields
 * (the image is one PT_LOAD whose file layout equals its memory layout, see
 * keel.lds) to the link address, KERNEL_LOAD_PA. GRUB 2.06 `multiboot2`
 * loads the ELF64 itself and, honouring the relocatable tag (type 10), may
 * put it at any page-aligned address in [1 MiB, 4 GiB) that its memory map
 * says is free, lowest first (so at KERNEL_LOAD_PA whenever that is free);
 * it adds the load offset to the entry address and says the base in the
 * information's tag 21. Both enter in 32-bit protected mode, paging off,
 * EAX = magic, EBX = physical address of the boot information.
 *
 * Running anywhere (docs/booting.md): the image is a static PIE linked at
 * KERNEL_LOAD_PA. The 32-bit code finds where it runs with call/pop and
 * reaches every symbol relative to that (EBP); the 64-bit code applies the
 * image's R_X86_64_RELATIVE relocations (the pointers in its data) before
 * any C runs, then uses RIP-relative addresses only. The image runs
 * identity mapped wherever it is: va == pa for every image symbol, as
 * before.
 *
 * Boot page tables (bss): the first IDENT_MAP_GIB GiB identity mapped,
 * 2 MiB pages except the first 2 MiB, mapped with 4 KiB pages and page 0
 * left out so that NULL dereferences fault. The direct map of all RAM is
 * added later by mm.c in the same PML4.
 *
 * Invariants: .bss is zeroed here (not trusted to the loader) before the
 * stack or the page tables live there; EAX/EBX (and a live update's
 * ECX/EDX/ESI) are saved to .data first.
 */
#include <generated/autoconf.h>
#include <asm/x86.h>

#define MB1_MAGIC 0x1BADB002
/* bit 0: modules page aligned, bit 1: memory info, bit 16: address fields */
#define MB1_FLAGS 0x00010003
#define MB2_MAGIC 0xE85250D6
#define LU_NEED_MAGIC 0x4b45454e	/* "NEEK": include/keel/handover.h */

#define X86_CR0_PE (1 << 0)
#define X86_CR0_MP (1 << 1)
#define X86_CR0_EM (1 << 2)
#define X86_CR0_TS (1 << 3)
#define X86_CR0_PG (1 << 31)
#define X86_CR4_PAE (1 << 5)
#define X86_CR4_OSFXSR (1 << 9)
#define X86_CR4_OSXMMEXCPT (1 << 10)
#define MSR_EFER 0xC0000080
#define EFER_LME (1 << 8)

#define PTE_P 0x1
#define PTE_RW 0x2
#define PTE_PS 0x80

#define UART_DIVISOR (115200 / CONFIG_SERIAL_BAUD)

/*
 * A link-time address written as a constant: x86_head is the image's first
 * byte, linked at KERNEL_LOAD_PA (keel.lds checks), and a difference from
 * it needs no load-time relocation. The loaders' header fields use it.
 */
#define LINKED(x) (KERNEL_LOAD_PA + ((x) - x86_head))
/* The running address of x, in 32-bit code once EBP holds that of .Lbase. */
#define HERE(x) ((x) - .Lbase)(%ebp)

#define R_X86_64_RELATIVE 8
#define ELF64_RELA_SIZE 24

	.section .head.text, "ax"
	.code32

	/* Multiboot1 (QEMU -kernel): within the first 8 KiB, 4-byte aligned. */
	.globl x86_head
x86_head:
	.align 8
mb1_header:
	.long MB1_MAGIC
	.long MB1_FLAGS
	.long -(MB1_MAGIC + MB1_FLAGS)
	.long LINKED(mb1_header)	/* header_addr */
	.long LINKED(x86_head)		/* load_addr */
	.long LINKED(_edata)		/* load_end_addr */
	.long LINKED(_end)		/* bss_end_addr */
	.long LINKED(_start32)		/* entry_addr */
	/*
	 * keel's own: where the image really ends, its .bss (= bss_end_addr
	 * now that keel.lds keeps no room past it; an older image's room was
	 * inside bss_end_addr). A live update's old image reads it
	 * (boot/handover_image.c) and finds the memory a bigger image needs
	 * past its own end at update time.
	 */
	.long LU_NEED_MAGIC
	.long LINKED(__bss_end)		/* need_end */

	/* Multiboot2 (GRUB): within the first 32 KiB, 8-byte aligned. */
	.align 8
mb2_header:
	.long MB2_MAGIC
	.long 0				/* architecture: i386 protected mode */
	.long mb2_header_end - mb2_header
	.long -(MB2_MAGIC + (mb2_header_end - mb2_header))
	/* entry address tag (type 3), padded to 8 bytes */
	.short 3, 0
	.long 12
	.long LINKED(_start32)
	.long 0
	/*
	 * Relocatable tag (type 10), optional (flags bit 0: a loader that
	 * does not know it loads at the link address): min_addr 1 MiB,
	 * max_addr 4 GiB - 1 (the boot map's identity range; the image's end
	 * stays below it), align 4 KiB (the bss page tables' alignment; the
	 * boot map does not depend on where the image is), preference 1:
	 * lowest, so the link address whenever it is free.
	 */
	.short 10, 1
	.long 24
	.long 0x100000
	.long 0xffffffff
	.long 0x1000
	.long 1
	/* end tag */
	.short 0, 0
	.long 8
mb2_header_end:

	.globl _start32
_start32:
	cli
	cld
	/*
	 * Where are we? call/pop needs 4 bytes of stack and the loader gave
	 * none: borrow the word at EBX + 4 of its information (multiboot2's
	 * reserved field, multiboot1's mem_lower), kept in EDI and put back.
	 * From here on EBP holds the running address of .Lbase and every
	 * symbol is reached as HERE(sym) (a PC-relative link-time constant).
	 */
	movl 4(%ebx), %edi
	leal 8(%ebx), %esp
	call .Lbase
.Lbase:
	popl %ebp
	movl %edi, 4(%ebx)
	movl %eax, HERE(boot_magic)
	movl %ebx, HERE(boot_info)
	/*
	 * A live update's stub (lu_stub.S) also passes ECX = X86_LU_MAGIC,
	 * EDX = the handover's address, ESI = its size; a loader leaves
	 * them undefined, so ECX is only believed when it holds the magic.
	 */
	movl %ecx, HERE(x86_lu_magic)
	movl %edx, HERE(x86_lu_handover)
	movl %esi, HERE(x86_lu_handover_size)

	/*
	 * Zero .bss before the stack and page tables live there: 32 bytes a
	 * step (keel.lds keeps its size a multiple of 4096). Not REP STOSB:
	 * QEMU's TCG runs it a byte at a time, and a live update's relocation
	 * (the stub's copy and this) took 8.0 ms with it, 2.8 ms with this
	 * loop, for the 4.9 MiB bss. No SSE: the long-mode check is below.
	 */
	leal HERE(__bss_start), %edi
	leal HERE(__bss_end), %ecx
	xorl %eax, %eax
2:	cmpl %ecx, %edi
	jae 3f
	movl %eax, (%edi)
	movl %eax, 4(%edi)
	movl %eax, 8(%edi)
	movl %eax, 12(%edi)
	movl %eax, 16(%edi)
	movl %eax, 20(%edi)
	movl %eax, 24(%edi)
	movl %eax, 28(%edi)
	addl $32, %edi
	jmp 2b
3:
	leal HERE(boot_stack_top), %esp

	/* CPUID present (EFLAGS.ID writable)? */
	pushfl
	popl %eax
	movl %eax, %ecx
	xorl $(1 << 21), %eax
	pushl %eax
	popfl
	pushfl
	popl %eax
	pushl %ecx
	popfl
	cmpl %eax, %ecx
	je no_long_mode
	/* Long mode: CPUID 0x80000001 EDX bit 29. */
	movl $0x80000000, %eax
	cpuid
	cmpl $0x80000001, %eax
	jb no_long_mode
	movl $0x80000001, %eax
	cpuid
	testl $(1 << 29), %edx
	jz no_long_mode

	/* Every long-mode CPU has a TSC: time zero of the report. */
	rdtsc
	movl %eax, HERE(arch_entry_ticks)
	movl %edx, HERE(arch_entry_ticks + 4)

	/*
	 * The boot map is the same wherever the image runs: only the tables'
	 * own addresses are the image's. PML4[0] -> PDPT,
	 * PDPT[0..IDENT_MAP_GIB) -> PDs.
	 */
	leal HERE(boot_pdpt), %edi
	leal (PTE_P | PTE_RW)(%edi), %eax
	movl %eax, HERE(boot_pml4)
	leal HERE(boot_pd + (PTE_P | PTE_RW)), %eax
	xorl %ecx, %ecx
1:	movl %eax, (%edi, %ecx, 8)
	addl $4096, %eax
	incl %ecx
	cmpl $IDENT_MAP_GIB, %ecx
	jb 1b
	/* PDs: 2 MiB pages for [2 MiB, IDENT_MAP_GIB GiB). */
	leal HERE(boot_pd), %edi
	movl $(0x200000 | PTE_P | PTE_RW | PTE_PS), %eax
	movl $1, %ecx
2:	movl %eax, (%edi, %ecx, 8)
	addl $0x200000, %eax
	incl %ecx
	cmpl $(512 * IDENT_MAP_GIB), %ecx
	jb 2b
	/* PD[0] -> PT0: 4 KiB pages for [4 KiB, 2 MiB); page 0 not present. */
	leal HERE(boot_pt0), %edi
	leal (PTE_P | PTE_RW)(%edi), %eax
	movl %eax, HERE(boot_pd)
	movl $(0x1000 | PTE_P | PTE_RW), %eax
	movl $1, %ecx
3:	movl %eax, (%edi, %ecx, 8)
	addl $0x1000, %eax
	incl %ecx
	cmpl $512, %ecx
	jb 3b

	/* PAE (+ SSE state enabled so that a stray SSE use does not #UD). */
	movl %cr4, %eax
	orl $(X86_CR4_PAE | X86_CR4_OSFXSR | X86_CR4_OSXMMEXCPT), %eax
	movl %eax, %cr4
	leal HERE(boot_pml4), %eax
	movl %eax, %cr3
	movl $MSR_EFER, %ecx
	rdmsr
	orl $EFER_LME, %eax
	wrmsr
	movl %cr0, %eax
	andl $~(X86_CR0_EM | X86_CR0_TS), %eax
	orl $(X86_CR0_PG | X86_CR0_PE | X86_CR0_MP), %eax
	movl %eax, %cr0
	/* The GDT's running address into gdt_ptr (below 4 GiB: 4 bytes). */
	leal HERE(gdt), %eax
	movl %eax, HERE(gdt_ptr + 2)
	lgdt HERE(gdt_ptr)
	/* A far return: a far jump's target would be a link-time address. */
	leal HERE(long_entry), %eax
	pushl $GDT_CODE64
	pushl %eax
	lret

no_long_mode:
	call uart32_init
	leal HERE(msg_no_long_mode), %esi
	call uart32_puts
4:	cli
	hlt
	jmp 4b

/* Polled 16550 at CONFIG_SERIAL_PORT, 8n1; clobbers eax, edx. */
uart32_init:
	movw $(CONFIG_SERIAL_PORT + 1), %dx
	movb $0x00, %al			/* no interrupts */
	outb %al, %dx
	movw $(CONFIG_SERIAL_PORT + 3), %dx
	movb $0x80, %al			/* DLAB */
	outb %al, %dx
	movw $(CONFIG_SERIAL_PORT + 0), %dx
	movb $(UART_DIVISOR & 0xff), %al
	outb %al, %dx
	movw $(CONFIG_SERIAL_PORT + 1), %dx
	movb $(UART_DIVISOR >> 8), %al
	outb %al, %dx
	movw $(CONFIG_SERIAL_PORT + 3), %dx
	movb $0x03, %al			/* 8n1 */
	outb %al, %dx
	movw $(CONFIG_SERIAL_PORT + 2), %dx
	movb $0xc7, %al			/* FIFO on, cleared */
	outb %al, %dx
	movw $(CONFIG_SERIAL_PORT + 4), %dx
	movb $0x03, %al			/* DTR, RTS */
	outb %al, %dx
	ret

/* Print the NUL-terminated string at %esi; clobbers eax, ecx, edx, esi. */
uart32_puts:
	lodsb
	testb %al, %al
	jz 7f
	movb %al, %ah
	movl $100000, %ecx		/* bounded wait for THR empty */
	movw $(CONFIG_SERIAL_PORT + 5), %dx
5:	inb %dx, %al
	testb $0x20, %al
	jnz 6f
	loop 5b
6:	movb %ah, %al
	movw $CONFIG_SERIAL_PORT, %dx
	outb %al, %dx
	jmp uart32_puts
7:	ret

	.code64
long_entry:
	movl $GDT_DATA, %eax
	movl %eax, %ds
	movl %eax, %es
	movl %eax, %ss
	xorl %eax, %eax
	movl %eax, %fs
	movl %eax, %gs
	leaq boot_stack_top(%rip), %rsp
	xorl %ebp, %ebp			/* ends the frame-pointer chain */
	call relocate
	movl boot_magic(%rip), %edi
	movl boot_info(%rip), %esi
	call x86_entry
8:	cli
	hlt
	jmp 8b

/*
 * The image's R_X86_64_RELATIVE relocations (keel.lds keeps them in the
 * image, between __rela_start and __rela_end; arch.mk fails the build on
 * any other type): each 8-byte pointer at r_offset becomes r_addend plus
 * the load offset (running x86_head - KERNEL_LOAD_PA; 0 under multiboot1,
 * which rewrites the values the linker wrote). Before any C runs: a pointer
 * in data (a function table, a string in a struct) is read only after.
 * Another type cannot occur; it would stop here, in HLT.
 */
relocate:
	leaq x86_head(%rip), %rdx
	subq $KERNEL_LOAD_PA, %rdx
	leaq __rela_start(%rip), %rsi
	leaq __rela_end(%rip), %rdi
1:	cmpq %rdi, %rsi
	jae 2f
	cmpl $R_X86_64_RELATIVE, 8(%rsi)
	jne 8b
	movq (%rsi), %rax
	movq 16(%rsi), %rcx
	addq %rdx, %rcx
	movq %rcx, (%rax, %rdx)
	addq $ELF64_RELA_SIZE, %rsi
	jmp 1b
2:	ret

	.section .rodata
msg_no_long_mode:
	.asciz "\r\nkeel: error: this CPU has no long mode (x86_64): keel cannot run; halting\r\n"

	.section .data
	.align 16
gdt:
	.quad 0
	.quad 0x00af9a000000ffff	/* 0x08: 64-bit code, DPL 0 */
	.quad 0x00cf92000000ffff	/* 0x10: data, DPL 0 */
gdt_end:
	.align 8
	.globl gdt_ptr
gdt_ptr:
	.short gdt_end - gdt - 1
	.quad 0				/* gdt's running address: _start32 */

	.align 8
	.globl arch_entry_ticks
arch_entry_ticks:
	.quad 0
boot_magic:
	.long 0
boot_info:
	.long 0
	.globl x86_lu_magic, x86_lu_handover, x86_lu_handover_size
x86_lu_magic:
	.long 0
x86_lu_handover:
	.long 0
x86_lu_handover_size:
	.long 0

	.section .bss
	.align 4096
	.globl boot_pml4
boot_pml4:
	.skip 4096
boot_pdpt:
	.skip 4096
boot_pd:
	.skip 4096 * IDENT_MAP_GIB
boot_pt0:
	.skip 4096
	.align 16
	.globl boot_stack
boot_stack:
	.skip BOOT_STACK_SIZE
	.globl boot_stack_top
boot_stack_top:

	.section .note.GNU-stack, "", @progbits
