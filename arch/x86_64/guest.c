/* SPDX-License-Identifier: MIT */
/*
 * x86_64 arch hooks of <arch/guest.h>: a vCPU under AMD SVM with nested
 * paging (AMD64 APM Vol. 2, rev. 3.40, chapter 15; the VMCB layout is its
 * appendix B). Intel VMX is not supported: the report says so.
 *
 * The vCPU's state, struct x86_vcpu in the words of struct arch_vcpu
 * (a live update carries its first 160 bytes, gprs to rflags: the rest of
 * the VMCB is rebuilt from the setup by arch_vcpu_resume()):
 *   gprs[16]    rax .. r15 but rax and rsp, which live in the VMCB
 *   rip, rsp, rax, rflags  the save area's, copied after every exit
 *   vmcb        the physical address of its VMCB (a heap page): the save
 *               area holds rip, rsp, rax, rflags, the control and segment
 *               registers; TSC_OFFSET is its counter offset
 *   flush       1 until its first VMRUN (TLB_CONTROL flushes then)
 * It starts in 64-bit mode at CPL 0 with paging on through the image's
 * identity map (the guest's "stage 1 off": CR3 = the image's PML4, 1 GiB
 * pages for [0, 512 GiB) and for the image's GiB), CR0.EM and TS set and
 * CR4.OSFXSR clear (no x87 or SSE: they fault, and faults exit),
 * interrupts off, no IDT.
 *
 * Intercepts: every exception vector; INTR, NMI, SMI, INIT, INVD, HLT,
 * I/O and MSR accesses (both permission maps all ones), shutdown;
 * VMRUN (required), VMMCALL (the hypercall), VMLOAD, VMSAVE, STGI, CLGI,
 * SKINIT, WBINVD, MONITOR, MWAIT, XSETBV. V_INTR_MASKING: the host's
 * RFLAGS.IF at VMRUN masks physical interrupts, so the local APIC
 * timer's one-shot (X86_WAKE_VEC, counted as an idle wake when taken
 * after the exit) ends the slice. Without a calibrated timer (lapic.c
 * found none, and warned) nothing ends a slice: each vCPU runs until it
 * exits, the vCPUs of a CPU one after the other, and no vCPU is held for
 * a live update (arch_guest_slice_timer()). ASID: the table's VMID (1..255). NPT:
 * N_CR3 = npt_ncr3() of the vCPU's table.
 *
 * Exits: VMMCALL (0x81) a hypercall (rip + 3: no NRIPS under TCG); #NPF
 * (0x400) a stage-2 fault, EXITINFO2 the guest physical address,
 * EXITINFO1 bit 1 a write; INTR (0x60) the slice's end when the TSC
 * passed it, else another interrupt; VMEXIT_INVALID (-1) a failed entry;
 * a machine check (below); anything else a trap (syndrome: the exit code).
 *
 * A machine check while the guest runs is the host's: on hardware the #MC
 * intercept exits (0x52); QEMU's TCG checks no intercept for it and
 * delivers it through the guest's IDT, which has none, so the exit is the
 * #GP that delivery raised, EXITINTINFO naming vector 18. (The guest has
 * CR4.MCE, as any OS guest: QEMU shuts the machine down on an #MC into a
 * CPU whose current CR4 lacks it.) Either way MCG_STATUS.MCIP is set on
 * this CPU: x86_mce() reads and clears the banks, the page is queued
 * (taken out of service at the next drain, marked in its domain), and
 * when the guest's context survives (x86_mce(): RIPV, no AR/TCC), the
 * vCPU runs on as after an interrupt; else it stops (a trap, syndrome
 * 0x52) and the host goes on, but for a processor context corrupt (PCC),
 * which ends the boot as in the host.
 *
 * Per CPU, while its vCPUs run: EFER.SVME and VM_HSAVE_PA, a host save
 * area page from the heap (arch_guest_cpu_init() to arch_guest_cpu_fini():
 * every page the guests took is given back after them). Lock: none; each
 * CPU runs its own vCPUs.
 */
#include <arch/cpu.h>
#include <arch/guest.h>
#include <arch/irq.h>
#include <arch/mm.h>
#include <asm/lapic.h>
#include <asm/x86.h>
#include <keel/errno.h>
#include <keel/handover.h>
#include <keel/frametable.h>
#include <keel/heap.h>
#include <keel/p2m.h>
#include <keel/p2m_format.h>
#include <keel/printk.h>
#include <keel/string.h>

#define MSR_EFER     0xc0000080
#define EFER_SVME    (1ULL << 12)
#define MSR_VM_CR    0xc0010114
#define VM_CR_SVMDIS (1ULL << 4)
#define MSR_VM_HSAVE 0xc0010117
#define CPUID_SVM    (1u << 2) /* 8000_0001h ECX */
#define CPUID_SVM_NP (1u << 0) /* 8000_000Ah EDX */

/* VMCB control area (APM Vol. 2, table B-1). */
#define VMCB_ICPT_EXC	 0x008
#define VMCB_ICPT_MISC1	 0x00c
#define VMCB_ICPT_MISC2	 0x010
#define VMCB_IOPM	 0x040
#define VMCB_MSRPM	 0x048
#define VMCB_TSC_OFF	 0x050
#define VMCB_ASID	 0x058
#define VMCB_TLB_CTL	 0x05c
#define VMCB_INT_CTL	 0x060
#define VMCB_EXITCODE	 0x070
#define VMCB_EXITINFO1	 0x078
#define VMCB_EXITINFO2	 0x080
#define VMCB_EXITINTINFO 0x088
#define VMCB_NP_ENABLE	 0x090
#define VMCB_NCR3	 0x0b0
/* State save area (table B-2). */
#define VMCB_ES	    0x400
#define VMCB_CS	    0x410
#define VMCB_SS	    0x420
#define VMCB_DS	    0x430
#define VMCB_CPL    0x4cb
#define VMCB_EFER   0x4d0
#define VMCB_CR4    0x548
#define VMCB_CR3    0x550
#define VMCB_CR0    0x558
#define VMCB_DR7    0x560
#define VMCB_DR6    0x568
#define VMCB_RFLAGS 0x570
#define VMCB_RIP    0x578
#define VMCB_RSP    0x5d8
#define VMCB_RAX    0x5f8
#define VMCB_GPAT   0x668

/* Intercept bits: misc1 (offset 0x0c) and misc2 (0x10). */
#define I1_INTR	       (1u << 0)
#define I1_NMI	       (1u << 1)
#define I1_SMI	       (1u << 2)
#define I1_INIT	       (1u << 3)
#define I1_INVD	       (1u << 22)
#define I1_HLT	       (1u << 24)
#define I1_IOIO	       (1u << 27)
#define I1_MSR	       (1u << 28)
#define I1_SHUT	       (1u << 31)
#define I2_ALL	       0x3e7fu /* VMRUN .. SKINIT, WBINVD, MONITOR, MWAIT, XSETBV */
#define V_INTR_MASKING (1u << 24)

#define EXIT_INTR      0x060
#define EXIT_VMMCALL   0x081
#define EXIT_NPF       0x400
#define EXIT_MC	       (0x040 + X86_MC_VECTOR)
#define INTINFO_VALID  (1ULL << 31)
#define EXIT_INVALID   (~0ULL)
#define NPF_WRITE      (1ULL << 1)
#define VMMCALL_LEN    3

/* Guest control registers: paging, long mode, no FPU. */
#define CR0_GUEST  0x8000003dULL /* PG | NE | ET | TS | EM | PE */
#define CR4_GUEST  0x60ULL	 /* PAE | MCE (the file comment) */
#define EFER_GUEST 0x1500ULL	 /* SVME | LMA | LME */
#define SEG_CODE64 0xa9bu	 /* G L P S type 0xb */
#define SEG_DATA   0xc93u	 /* G D/B P S type 3 */
#define PAT_RESET  0x0007040600070406ULL

/* The guest's identity map: PML4, PDPT of [0, 512 GiB), PDPT of the image. */
#define PT_TABLE   0x23ULL /* P RW A */
#define PT_1G	   0xe3ULL /* P RW A D PS: write-back */
#define IMAGE_PML4 1
#define IMAGE_LOW  2
#define IMAGE_HIGH 3

/*
 * gprs and the four save-area words after them are what a live update
 * carries (arch_vcpu_state()): the words before vmcb. rip, rsp, rax and
 * rflags are copied from the VMCB after every exit.
 */
struct x86_vcpu {
	uint64_t gprs[16];
	uint64_t rip, rsp, rax, rflags;
	uint64_t vmcb;
	uint64_t flush;
};

#define X86_VCPU_STATE __builtin_offsetof(struct x86_vcpu, vmcb)
#define GPR_LOOP_END   9 /* r9: the loop's end (guest_prog.S) */
_Static_assert(
	X86_VCPU_STATE == 160,
	"the state block of a handover vCPU record (docs/liveupdate.md)");
extern const char x86_guest_loop[], x86_guest_loop_end[];

_Static_assert(sizeof(struct x86_vcpu) <= sizeof(struct arch_vcpu),
	       "struct x86_vcpu fits struct arch_vcpu");

void svm_guest_enter(uint64_t vmcb_pa, uint64_t *gprs);
extern const char x86_guest_prog[], x86_guest_prog_end[];

/*
 * The I/O and MSR permission maps: all ones (every access intercepted),
 * shared by the vCPUs: made by the first arch_vcpu_init(), given back by
 * the last arch_vcpu_destroy() (both on the boot CPU); 0 when none.
 */
static uint64_t iopm, msrpm;
static unsigned int vcpus_made;

static struct x86_vcpu *vcpu_of(struct arch_vcpu *av)
{
	return (struct x86_vcpu *)av->w;
}

static void put64(uint8_t *vmcb, unsigned int off, uint64_t v)
{
	memcpy(vmcb + off, &v, sizeof(v));
}

static uint64_t get64(const uint8_t *vmcb, unsigned int off)
{
	uint64_t v;

	memcpy(&v, vmcb + off, sizeof(v));
	return v;
}

static void put32(uint8_t *vmcb, unsigned int off, uint32_t v)
{
	memcpy(vmcb + off, &v, sizeof(v));
}

/* A segment: selector, attributes, limit, base (16 bytes, table B-2). */
static void put_seg(uint8_t *vmcb, unsigned int off, uint16_t sel,
		    uint16_t attrib)
{
	memcpy(vmcb + off, &sel, 2);
	memcpy(vmcb + off + 2, &attrib, 2);
	put32(vmcb, off + 4, 0xffffffffu);
	put64(vmcb, off + 8, 0);
}

/** arch_guest_supported() - Return: NULL with SVM and nested paging. */
const char *arch_guest_supported(void)
{
	if (cpuid(0x80000000, 0).eax < 0x8000000a ||
	    !(cpuid(0x80000001, 0).ecx & CPUID_SVM))
		return "no AMD SVM (CPUID 8000_0001h ECX bit 2): guests need "
		       "SVM with nested paging (Intel VMX is not supported)";
	if (!(cpuid(0x8000000a, 0).edx & CPUID_SVM_NP))
		return "SVM without nested paging (CPUID 8000_000Ah EDX bit 0)";
	if (rdmsr(MSR_VM_CR) & VM_CR_SVMDIS)
		return "SVM is disabled by the firmware (VM_CR.SVMDIS)";
	return NULL;
}

/*
 * The image: the program in page 0, the identity map in pages 1-3 at
 * @image_ipa (its page table entries are IPAs). The tables' accessed and
 * dirty bits are set, so a hardware walk never writes them; QEMU's
 * nested walker (7.2) still probes every guest table page for a write,
 * so the tables' pages are writable in stage 2 (*@writable), the
 * program's is not.
 */
uint64_t arch_guest_image(void *pages, uint64_t image_ipa,
			  unsigned int *writable)
{
	uint8_t *p = pages;
	uint64_t *pml4 = (uint64_t *)(p + IMAGE_PML4 * PAGE_SIZE);
	uint64_t *low = (uint64_t *)(p + IMAGE_LOW * PAGE_SIZE);
	uint64_t *high = (uint64_t *)(p + IMAGE_HIGH * PAGE_SIZE);
	size_t len = (size_t)(x86_guest_prog_end - x86_guest_prog);
	uint64_t gib = image_ipa & ~((1ULL << 30) - 1);

	memcpy(p, x86_guest_prog, len < PAGE_SIZE ? len : PAGE_SIZE);
	for (unsigned int i = 0; i < 512; i++)
		low[i] = ((uint64_t)i << 30) | PT_1G;
	pml4[0] = (image_ipa + IMAGE_LOW * PAGE_SIZE) | PT_TABLE;
	/* Below 512 GiB (a MAXPHYADDR under 40), the low table maps it. */
	if (gib >> 39) {
		pml4[(gib >> 39) & 511] =
			(image_ipa + IMAGE_HIGH * PAGE_SIZE) | PT_TABLE;
		high[(gib >> 30) & 511] = gib | PT_1G;
	}
	*writable = 1u << IMAGE_PML4 | 1u << IMAGE_LOW | 1u << IMAGE_HIGH;
	return 0;
}

/* 2^@order pages of @byte (the permission maps). */
static paddr_t filled_pages(unsigned int order, int byte)
{
	struct page_info *pg = heap_alloc(order, HEAP_ANY_NODE, 0, 0, NULL);
	paddr_t t;

	if (!pg)
		return INVALID_PADDR;
	t = pfn_to_paddr(page_to_pfn(pg));
	memset(phys_to_virt(t), byte, PAGE_SIZE << order);
	return t;
}

/* filled_pages(), as an address; 0 when there is no memory. */
static uint64_t maybe_pages(unsigned int order, int byte)
{
	paddr_t t = filled_pages(order, byte);

	return pa_val(t) == pa_val(INVALID_PADDR) ? 0 : pa_val(t);
}

/*
 * Set by arch_vcpu_resume(): this image resumes guests before its boot
 * scrub, so the pages they take go back dirty, for the scrub to zero and
 * count them; otherwise they are zeroed here and go back clean (a clean
 * free page reads zero: audit=full samples it).
 */
static bool free_dirty;

static void pages_free(uint64_t pa_, unsigned int order)
{
	if (!free_dirty)
		memset(phys_to_virt(pa(pa_)), 0, PAGE_SIZE << order);
	heap_free(pfn_to_page(paddr_to_pfn(pa(pa_))), order, free_dirty);
}

/**
 * arch_guest_cpu_init() - SVM on for this CPU: EFER.SVME, a host save
 * area page in VM_HSAVE_PA.
 * @why: out: the reason when it cannot
 *
 * Return: 0, -ENOMEM.
 */
int arch_guest_cpu_init(const char **why)
{
	uint64_t hsave = maybe_pages(0, 0);

	if (!hsave) {
		*why = "no memory for the SVM host save area";
		return -ENOMEM;
	}
	wrmsr(MSR_VM_HSAVE, hsave);
	wrmsr(MSR_EFER, rdmsr(MSR_EFER) | EFER_SVME);
	return 0;
}

/** arch_guest_cpu_fini() - SVM off again, the host save area given back. */
void arch_guest_cpu_fini(void)
{
	uint64_t hsave = rdmsr(MSR_VM_HSAVE);

	lapic_timer_oneshot(0);
	wrmsr(MSR_EFER, rdmsr(MSR_EFER) & ~EFER_SVME);
	wrmsr(MSR_VM_HSAVE, 0);
	if (hsave)
		pages_free(hsave, 0);
}

/* Intercepts, maps, ASID, nested paging (the file comment). */
static void vmcb_controls(uint8_t *vmcb, const struct vcpu_setup *s)
{
	put32(vmcb, VMCB_ICPT_EXC, 0xffffffffu);
	put32(vmcb, VMCB_ICPT_MISC1,
	      I1_INTR | I1_NMI | I1_SMI | I1_INIT | I1_INVD | I1_HLT | I1_IOIO |
		      I1_MSR | I1_SHUT);
	put32(vmcb, VMCB_ICPT_MISC2, I2_ALL);
	put64(vmcb, VMCB_IOPM, iopm);
	put64(vmcb, VMCB_MSRPM, msrpm);
	put64(vmcb, VMCB_TSC_OFF, s->counter_offset);
	put32(vmcb, VMCB_ASID, s->stage2->vmid);
	put32(vmcb, VMCB_INT_CTL, V_INTR_MASKING);
	put64(vmcb, VMCB_NP_ENABLE, 1);
	put64(vmcb, VMCB_NCR3, npt_ncr3(s->stage2->root));
}

/* 64-bit mode on the image's identity map, at the entry. */
static void vmcb_state(uint8_t *vmcb, const struct vcpu_setup *s)
{
	put_seg(vmcb, VMCB_CS, 0x08, SEG_CODE64);
	put_seg(vmcb, VMCB_SS, 0x10, SEG_DATA);
	put_seg(vmcb, VMCB_DS, 0x10, SEG_DATA);
	put_seg(vmcb, VMCB_ES, 0x10, SEG_DATA);
	vmcb[VMCB_CPL] = 0;
	put64(vmcb, VMCB_EFER, EFER_GUEST);
	put64(vmcb, VMCB_CR0, CR0_GUEST);
	put64(vmcb, VMCB_CR3, s->image_ipa + IMAGE_PML4 * PAGE_SIZE);
	put64(vmcb, VMCB_CR4, CR4_GUEST);
	put64(vmcb, VMCB_DR6, 0xffff0ff0);
	put64(vmcb, VMCB_DR7, 0x400);
	put64(vmcb, VMCB_RFLAGS, 2);
	put64(vmcb, VMCB_RIP, s->entry);
	put64(vmcb, VMCB_RSP, 0);
	put64(vmcb, VMCB_GPAT, PAT_RESET);
}

/**
 * arch_vcpu_init() - a VMCB for @av (see the file comment).
 * @av: the vCPU's state
 * @s: its table (NPT), image, entry, arguments and counter offset
 *
 * Return: 0, -ENOMEM.
 */
int arch_vcpu_init(struct arch_vcpu *av, const struct vcpu_setup *s)
{
	struct x86_vcpu *v = vcpu_of(av);
	static const unsigned int arg_reg[GUEST_ARGS] = {5, 4, 3, 2, 8, 9};
	paddr_t vmcb;

	memset(av, 0, sizeof(*av));
	if (!iopm)
		iopm = maybe_pages(2, 0xff);
	if (!msrpm)
		msrpm = maybe_pages(1, 0xff);
	vmcb = filled_pages(0, 0);
	if (!iopm || !msrpm || pa_val(vmcb) == pa_val(INVALID_PADDR)) {
		if (pa_val(vmcb) != pa_val(INVALID_PADDR))
			pages_free(pa_val(vmcb), 0);
		if (!vcpus_made && iopm)
			pages_free(iopm, 2);
		if (!vcpus_made && msrpm)
			pages_free(msrpm, 1);
		if (!vcpus_made)
			iopm = msrpm = 0;
		return -ENOMEM;
	}
	v->vmcb = pa_val(vmcb);
	v->flush = 1;
	vcpus_made++;
	for (unsigned int i = 0; i < GUEST_ARGS; i++)
		v->gprs[arg_reg[i]] = s->arg[i];
	vmcb_controls(phys_to_virt(vmcb), s);
	vmcb_state(phys_to_virt(vmcb), s);
	return 0;
}

/* Why the guest stopped (the exit code and its information). */
static void decode_exit(struct x86_vcpu *v, uint8_t *vmcb, uint64_t slice_end,
			struct vcpu_exit *e)
{
	uint64_t code = get64(vmcb, VMCB_EXITCODE);

	memset(e, 0, sizeof(*e));
	e->syndrome = code;
	e->pc = get64(vmcb, VMCB_RIP);
	switch ((uint32_t)code == (uint32_t)EXIT_INVALID ? EXIT_INVALID
							 : code) {
	case EXIT_VMMCALL:
		e->reason = VCPU_EXIT_HYPERCALL;
		e->arg[0] = get64(vmcb, VMCB_RAX);
		for (unsigned int i = 1; i < 5; i++)
			e->arg[i] = v->gprs[i];
		put64(vmcb, VMCB_RIP, e->pc + VMMCALL_LEN);
		break;
	case EXIT_NPF:
		e->reason = VCPU_EXIT_STAGE2;
		e->ipa = get64(vmcb, VMCB_EXITINFO2);
		e->write = get64(vmcb, VMCB_EXITINFO1) & NPF_WRITE;
		break;
	case EXIT_INTR:
		e->reason = rdtsc() >= slice_end ? VCPU_EXIT_PREEMPT
						 : VCPU_EXIT_IRQ;
		break;
	case EXIT_INVALID:
		e->reason = VCPU_EXIT_FAILED;
		break;
	default:
		e->reason = VCPU_EXIT_TRAP;
		break;
	}
}

/*
 * A machine check taken while the guest ran (the file comment), handled:
 * the vCPU runs on, or stops when its context cannot (*@v says why); a
 * processor context corrupt (PCC) stops the boot as the host's would.
 * Return: the exit's code when it was one, else 0.
 */
static uint64_t guest_machine_check(uint8_t *vmcb, struct vcpu_exit *e,
				    enum x86_mce_verdict *v)
{
	uint64_t code = get64(vmcb, VMCB_EXITCODE);
	uint64_t info = get64(vmcb, VMCB_EXITINTINFO), addr;
	bool delivering =
		(info & INTINFO_VALID) && (info & 0xff) == X86_MC_VECTOR;

	if ((code != EXIT_MC && !delivering) || !x86_mce_in_progress())
		return 0;
	*v = x86_mce(&addr);
	if (*v == X86_MCE_CORRUPT) {
		console_printf_nolock("KEEL: FAIL machine check while a guest "
				      "ran on CPU %u: this CPU cannot go on "
				      "(%s), memory error at %#llx\n",
				      arch_cpu_id(), x86_mce_why(*v),
				      (unsigned long long)addr);
		x86_fail_stop();
	}
	if (*v == X86_MCE_GO_ON) {
		e->reason = VCPU_EXIT_IRQ;
	} else {
		x86_mce_end();
		e->reason = VCPU_EXIT_TRAP;
		e->syndrome = EXIT_MC;
	}
	return code;
}

/**
 * arch_vcpu_run() - one VMRUN of @av, the local APIC timer ending it at
 * TSC @slice_end; interrupts masked until it has exited.
 * @av: the vCPU
 * @slice_end: TSC value
 * @e: out: why it stopped
 */
void arch_vcpu_run(struct arch_vcpu *av, uint64_t slice_end,
		   struct vcpu_exit *e)
{
	struct x86_vcpu *v = vcpu_of(av);
	uint8_t *vmcb = phys_to_virt(pa(v->vmcb));
	irqflags_t f;
	uint64_t now = rdtsc(), us = 1, mce;
	enum x86_mce_verdict verdict = X86_MCE_GO_ON;

	if (now >= slice_end) { /* its slice is over before it began */
		memset(e, 0, sizeof(*e));
		e->reason = VCPU_EXIT_PREEMPT;
		e->pc = v->rip;
		return;
	}
	f = arch_irq_save();

	if (slice_end > now && tsc_hz)
		us = (slice_end - now) /
		     (tsc_hz / 1000000 ? tsc_hz / 1000000 : 1);
	lapic_timer_oneshot((uint32_t)(us ? us : 1));
	vmcb[VMCB_TLB_CTL] = v->flush ? 1 : 0;
	v->flush = 0;
	svm_guest_enter(v->vmcb, v->gprs);
	lapic_timer_oneshot(0);
	decode_exit(v, vmcb, slice_end, e);
	mce = guest_machine_check(vmcb, e, &verdict);
	v->rip = get64(vmcb, VMCB_RIP);
	v->rsp = get64(vmcb, VMCB_RSP);
	v->rax = get64(vmcb, VMCB_RAX);
	v->rflags = get64(vmcb, VMCB_RFLAGS);
	arch_irq_restore(f);
	if (mce && verdict == X86_MCE_GO_ON)
		pr_warn("x86_64: cpu %u: a machine check while its guest ran "
			"(exit %#llx): taken by the host, the guest runs on\n",
			arch_cpu_id(), (unsigned long long)mce);
	else if (mce)
		pr_warn("x86_64: cpu %u: a machine check while its guest ran "
			"(exit %#llx): taken by the host, the guest cannot go "
			"on (%s): stopped\n",
			arch_cpu_id(), (unsigned long long)mce,
			x86_mce_why(verdict));
}

/** arch_vcpu_in_loop() - Return: @v's rip is in its loop (arch/guest.h). */
bool arch_vcpu_in_loop(const struct arch_vcpu *av, uint64_t image_ipa)
{
	const struct x86_vcpu *v = (const struct x86_vcpu *)av->w;
	uint64_t lo = image_ipa + (uint64_t)(x86_guest_loop - x86_guest_prog);
	uint64_t hi =
		image_ipa + (uint64_t)(x86_guest_loop_end - x86_guest_prog);

	return v->rip >= lo && v->rip < hi;
}

/**
 * arch_guest_slice_timer() - Return: NULL when the local APIC timer is
 * calibrated (lapic.c), else why not: nothing would end a slice.
 */
const char *arch_guest_slice_timer(void)
{
	return lapic_timer_calibrated() ? NULL
					: "the local APIC timer is not "
					  "calibrated: nothing ends a vCPU's "
					  "slice";
}

/**
 * arch_vcpu_destroy() - its VMCB back to the heap; the permission maps
 * too after the last vCPU.
 */
void arch_vcpu_destroy(struct arch_vcpu *av)
{
	struct x86_vcpu *v = vcpu_of(av);

	if (!v->vmcb)
		return;
	pages_free(v->vmcb, 0);
	v->vmcb = 0;
	if (--vcpus_made)
		return;
	pages_free(iopm, 2);
	pages_free(msrpm, 1);
	iopm = msrpm = 0;
}

/**
 * arch_vcpu_state() - a live update carries the general registers and
 * the save area's rip, rsp, rax and rflags (the rest of the VMCB is
 * rebuilt from the setup: the program never changes it).
 * @bytes: out: X86_VCPU_STATE
 * @why: unused
 *
 * Return: HANDOVER_VCPU_SVM.
 */
unsigned int arch_vcpu_state(uint32_t *bytes, const char **why)
{
	(void)why;
	*bytes = X86_VCPU_STATE;
	return HANDOVER_VCPU_SVM;
}

/**
 * arch_vcpu_resume() - a new VMCB for @av from @s (arch_vcpu_init()),
 * then the older image's registers from @state; r9, its loop's end,
 * @s->arg[5] ticks past its TSC now. Its rip must lie in the loop of the
 * program at @s->image_ipa.
 * @av: the vCPU
 * @state: X86_VCPU_STATE bytes of struct x86_vcpu
 * @bytes: X86_VCPU_STATE
 * @s: this image's table and image, arg[5] the loop's length
 *
 * Return: 0, -ENOMEM, or -EINVAL.
 */
int arch_vcpu_resume(struct arch_vcpu *av, const void *state, uint32_t bytes,
		     const struct vcpu_setup *s)
{
	struct x86_vcpu *v = vcpu_of(av);
	uint64_t lo =
		s->image_ipa + (uint64_t)(x86_guest_loop - x86_guest_prog);
	uint64_t hi =
		s->image_ipa + (uint64_t)(x86_guest_loop_end - x86_guest_prog);
	uint8_t *vmcb;
	int err;

	if (bytes != X86_VCPU_STATE)
		return -EINVAL;
	free_dirty = true;
	err = arch_vcpu_init(av, s);
	if (err)
		return err;
	memcpy(v, state, X86_VCPU_STATE);
	if (v->rip < lo || v->rip >= hi) {
		arch_vcpu_destroy(av);
		return -EINVAL;
	}
	v->gprs[GPR_LOOP_END] = rdtsc() + s->counter_offset + s->arg[5];
	vmcb = phys_to_virt(pa(v->vmcb));
	put64(vmcb, VMCB_RIP, v->rip);
	put64(vmcb, VMCB_RSP, v->rsp);
	put64(vmcb, VMCB_RAX, v->rax);
	put64(vmcb, VMCB_RFLAGS, v->rflags);
	return 0;
}
