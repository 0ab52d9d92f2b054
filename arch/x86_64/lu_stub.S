/* SPDX-License-Identifier: MIT */
/*
 * The live-update stub (arch/x86_64/liveupdate.c copies it into a page of
 * its own, below 4 GiB, identity mapped, outside both images): leave long
 * mode, copy the new image's file over the old image as multiboot1's
 * a.out kludge says, zero its bss, and enter it as a multiboot loader
 * would: 32-bit protected mode, paging off, flat segments, interrupts
 * off, EAX = the loader's magic, EBX = the loader's information (both as
 * the old image got them), plus ECX = X86_LU_MAGIC, EDX and ESI the
 * handover's address and size.
 *
 * Leaving long mode (Intel SDM Vol. 3A 10.8.5.4): to compatibility mode
 * through a far return to a 32-bit code segment, paging off while running
 * from an identity-mapped page, then EFER.LME off. Position independent:
 * entered with RDI = the page's address (the 32-bit part keeps it in
 * EBP). Nothing here uses the stack after the far return.
 */
#include <asm/lu_stub.h>

#define X86_CR0_PG  0x80000000
#define X86_CR4_PAE 0x20
#define MSR_EFER    0xC0000080
#define EFER_LME    0x100

	.section .rodata, "a"
	.code64
	.globl x86_lu_stub_start
x86_lu_stub_start:
	cli
	movq %rdi, %rbp
	lgdt LU_STUB_GDTR(%rbp)
	leaq (1f - x86_lu_stub_start)(%rbp), %rax
	pushq $0x08
	pushq %rax
	lretq

	.code32
1:	movl $0x10, %eax
	movl %eax, %ds
	movl %eax, %es
	movl %eax, %fs
	movl %eax, %gs
	movl %eax, %ss
	movl %cr0, %eax
	andl $~X86_CR0_PG, %eax
	movl %eax, %cr0
	movl $MSR_EFER, %ecx
	rdmsr
	andl $~EFER_LME, %eax
	wrmsr
	movl %cr4, %eax
	andl $~X86_CR4_PAE, %eax
	movl %eax, %cr4

	/*
	 * The file over the old image, then its bss: 4 bytes a step, in a
	 * plain loop (QEMU's TCG runs REP MOVS/STOS an element at a time,
	 * 30 times slower), the last 0-3 bytes one by one. The module lies
	 * outside [load_addr, bss_end_addr) (liveupdate.c checks), so the
	 * copy never reads what it wrote.
	 */
	movl (LU_STUB_PARAM + LU_P_SRC)(%ebp), %esi
	movl (LU_STUB_PARAM + LU_P_DST)(%ebp), %edi
	movl (LU_STUB_PARAM + LU_P_LEN)(%ebp), %ecx
2:	cmpl $4, %ecx
	jb 3f
	movl (%esi), %eax
	movl %eax, (%edi)
	addl $4, %esi
	addl $4, %edi
	subl $4, %ecx
	jmp 2b
3:	testl %ecx, %ecx
	jz 4f
	movb (%esi), %al
	movb %al, (%edi)
	incl %esi
	incl %edi
	decl %ecx
	jmp 3b
4:	movl (LU_STUB_PARAM + LU_P_BSS)(%ebp), %ecx
	xorl %eax, %eax
5:	cmpl $4, %ecx
	jb 6f
	movl %eax, (%edi)
	addl $4, %edi
	subl $4, %ecx
	jmp 5b
6:	testl %ecx, %ecx
	jz 7f
	movb %al, (%edi)
	incl %edi
	decl %ecx
	jmp 6b
7:

	/* Enter it as its loader did. */
	movl (LU_STUB_PARAM + LU_P_MAGIC)(%ebp), %eax
	movl (LU_STUB_PARAM + LU_P_INFO)(%ebp), %ebx
	movl $X86_LU_MAGIC, %ecx
	movl (LU_STUB_PARAM + LU_P_HO)(%ebp), %edx
	movl (LU_STUB_PARAM + LU_P_HO_SIZE)(%ebp), %esi
	jmp *(LU_STUB_PARAM + LU_P_ENTRY)(%ebp)
	.globl x86_lu_stub_end
x86_lu_stub_end:

	.section .note.GNU-stack, "", @progbits
