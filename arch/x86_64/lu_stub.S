/* SPDX-License-Identifier: MIT */
/*
 * The live-update stub (arch/x86_64/liveupdate.c copies it into a page of
 * its own, below 4 GiB, identity mapped, outside both images): leave long
 * mode, copy the new image's file over the old image as multiboot1's
 * a.out kludge says (its head.S zeroes its bss), and enter it as a multiboot loader
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
#define X86_CR0_EM  0x4
#define X86_CR0_TS  0x8
#define X86_CR4_PAE 0x20
#define X86_CR4_OSFXSR 0x200
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
	andl $~(X86_CR0_PG | X86_CR0_EM | X86_CR0_TS), %eax
	movl %eax, %cr0
	movl $MSR_EFER, %ecx
	rdmsr
	andl $~EFER_LME, %eax
	wrmsr
	movl %cr4, %eax
	andl $~X86_CR4_PAE, %eax
	orl $X86_CR4_OSFXSR, %eax
	movl %eax, %cr4

	/*
	 * The file over the old image, 64 bytes a step through four SSE
	 * registers (QEMU's TCG runs REP MOVS an element at a time), the last
	 * 0-63 bytes one by one. A step whose 64 bytes are already there is
	 * not written: under TCG every store into a page that holds translated
	 * code takes a slow path (about 1 us), so writing the old text over
	 * itself, as an update to the same build does, was 21 ms of a 2 GiB
	 * update's downtime; comparing first is 0.5 ms, and costs hardware a
	 * read of 300 KiB. The module lies outside [load_addr,
	 * bss_end_addr) (liveupdate.c checks), so the copy never reads what it
	 * wrote. The bss is left as it is: every keel image zeroes its own in
	 * head.S before anything lives there (it trusts no loader to), and
	 * zeroing its 4.9 MiB here too was half of a 2 GiB update's downtime
	 * under TCG.
	 */
	movl (LU_STUB_PARAM + LU_P_SRC)(%ebp), %esi
	movl (LU_STUB_PARAM + LU_P_DST)(%ebp), %edi
	movl (LU_STUB_PARAM + LU_P_LEN)(%ebp), %ecx
2:	cmpl $64, %ecx
	jb 3f
	movups (%esi), %xmm0
	movups 16(%esi), %xmm1
	movups 32(%esi), %xmm2
	movups 48(%esi), %xmm3
	movups (%edi), %xmm4
	movups 16(%edi), %xmm5
	movups 32(%edi), %xmm6
	movups 48(%edi), %xmm7
	pcmpeqb %xmm0, %xmm4
	pcmpeqb %xmm1, %xmm5
	pcmpeqb %xmm2, %xmm6
	pcmpeqb %xmm3, %xmm7
	pand %xmm5, %xmm4
	pand %xmm7, %xmm6
	pand %xmm6, %xmm4
	pmovmskb %xmm4, %eax
	cmpl $0xffff, %eax
	je 8f
	movups %xmm0, (%edi)
	movups %xmm1, 16(%edi)
	movups %xmm2, 32(%edi)
	movups %xmm3, 48(%edi)
8:	addl $64, %esi
	addl $64, %edi
	subl $64, %ecx
	jmp 2b
3:	testl %ecx, %ecx
	jz 4f
	movb (%esi), %al
	movb %al, (%edi)
	incl %esi
	incl %edi
	decl %ecx
	jmp 3b
4:

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
