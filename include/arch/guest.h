/* SPDX-License-Identifier: MIT */
/*
 * Arch hooks of the guests that run in their domains (DESIGN §14,
 * common/guest/): whether this machine can run one, the guest program,
 * and one vCPU's entry, run and exit. Implemented in arch/{arm64,x86_64,sandbox}/guest.c.
 *
 *   arm64    at EL2: HCR_EL2 for a guest, VTTBR_EL2 (the domain's VMID) and
 *            VTCR_EL2 from its table, EL1 with its MMU off, entered with
 *            ERET; exits through the lower-EL vectors (entry.S); each
 *            slice ends on the EL2 physical timer (CNTHP, PPI 26). At EL1:
 *            unsupported.
 *   x86_64   AMD SVM with nested paging (CPUID 8000_0001h ECX bit 2,
 *            8000_000Ah EDX bit 0): a VMCB per vCPU, its ASID the
 *            domain's, VMRUN; #VMEXIT on VMMCALL, #NPF, the slice's local
 *            APIC timer interrupt. Elsewhere (Intel VMX): unsupported.
 *   sandbox  unsupported (no MMU).
 *
 * The vCPU's state is one struct arch_vcpu per vCPU: plain words, the
 * arch's own layout (registers, EL1 system registers or the VMCB's save
 * area, the counter offset), documented in the arch's guest.c, so that a
 * live update can carry it. Nothing in it points into keel's image.
 *
 * arch_vcpu_init() and arch_vcpu_destroy() run on the boot CPU; a vCPU's
 * runs on its own CPU only, after arch_guest_cpu_init() there.
 */
#ifndef ARCH_GUEST_H
#define ARCH_GUEST_H

#include <keel/guest_abi.h>
#include <keel/types.h>

struct p2m;

#define ARCH_VCPU_WORDS 128

struct arch_vcpu {
	uint64_t w[ARCH_VCPU_WORDS];
} __attribute__((aligned(16)));

/* How a vCPU's run ended (arch_vcpu_run()). */
enum vcpu_exit_reason {
	VCPU_EXIT_HYPERCALL, /* arg[0]: the number, arg[1..4]: its values */
	VCPU_EXIT_STAGE2,    /* ipa: an address its stage 2 does not map */
	VCPU_EXIT_PREEMPT,   /* its slice ended */
	VCPU_EXIT_IRQ,	     /* another interrupt came: run it again */
	VCPU_EXIT_TRAP,	     /* it did what keel traps (syndrome) */
	VCPU_EXIT_FAILED,    /* the CPU refused to enter it (syndrome) */
};

struct vcpu_exit {
	enum vcpu_exit_reason reason;
	uint64_t arg[5];
	uint64_t ipa;	   /* VCPU_EXIT_STAGE2 */
	bool write;	   /* VCPU_EXIT_STAGE2: the access was a write */
	uint64_t syndrome; /* ESR_EL2, or the SVM exit code */
	uint64_t pc;	   /* the guest's pc at the exit */
};

/* How a vCPU starts (arch_vcpu_init()). */
struct vcpu_setup {
	const struct p2m *stage2; /* the table it runs on (root, VMID) */
	uint64_t image_ipa;	  /* the guest image: GUEST_IMAGE_PAGES pages */
	uint64_t entry;		  /* the pc (an IPA) */
	uint64_t arg[GUEST_ARGS];
	uint64_t counter_offset; /* its counter = keel's + this (mod 2^64) */
};

/*
 * Pages of the guest image (read-only to the guest, at image_ipa); the
 * arch fills those below GUEST_SKIP_PAGE, common/guest/ that one (the
 * walk's skip list, <keel/guest_abi.h>).
 */
#define GUEST_IMAGE_PAGES 8
#define GUEST_SKIP_PAGE	  4

/*
 * Return: NULL when guests can run here, else why not (a static string
 * for guests_info.unsupported). Boot CPU.
 */
const char *arch_guest_supported(void);

/*
 * Fill the guest image, @pages (GUEST_IMAGE_PAGES zeroed pages, keel's
 * view) that the guest sees at @image_ipa: the program, and what else the
 * arch's guest needs there (x86_64: its identity page tables). *@writable:
 * the image pages (a bit each) its stage 2 must let the guest write; the
 * others are read-only (x86_64: its page tables, which QEMU's nested
 * walker writes; arm64: none).
 * Return: the entry's offset in the image.
 */
uint64_t arch_guest_image(void *pages, uint64_t image_ipa,
			  unsigned int *writable);

/*
 * The calling CPU gets ready to run vCPUs (arm64: the timer PPI; x86_64:
 * EFER.SVME and the host save area) / stops. Return: 0, or -errno with
 * *@why saying why (a static string).
 */
int arch_guest_cpu_init(const char **why);
void arch_guest_cpu_fini(void);

/*
 * A vCPU in its initial state (registers, EL1 system registers or VMCB),
 * the TLB entries of its VMID/ASID dropped. Return: 0, -ENOMEM.
 */
int arch_vcpu_init(struct arch_vcpu *v, const struct vcpu_setup *s);

/*
 * Run @v on the calling CPU until it exits or counter value @slice_end
 * comes; *@e says why it stopped. Interrupts are masked meanwhile; one
 * that came is taken after the return.
 */
void arch_vcpu_run(struct arch_vcpu *v, uint64_t slice_end,
		   struct vcpu_exit *e);

/*
 * Return: true when @v's pc (after its last exit) lies in the measuring
 * loop of the guest program at @image_ipa (<keel/guest_abi.h>): the only
 * place a live update may stop it (arch_vcpu_resume() accepts no other).
 */
bool arch_vcpu_in_loop(const struct arch_vcpu *v, uint64_t image_ipa);

/*
 * Return: NULL when a timer ends every vCPU's slice on every CPU (a held
 * vCPU's loop would otherwise never give its CPU back), else why not.
 */
const char *arch_guest_slice_timer(void);

/* The vCPU is gone: its VMID/ASID's TLB entries dropped, its pages freed. */
void arch_vcpu_destroy(struct arch_vcpu *v);

/*
 * Across a live update (common/guest/guest_carry.c): what of a vCPU the
 * handover carries. Return: its tag (HANDOVER_VCPU_*), *@bytes the first
 * bytes of struct arch_vcpu that are its state; HANDOVER_VCPU_NONE, with
 * *@why (a static string): this arch does not carry its vCPUs.
 */
unsigned int arch_vcpu_state(uint32_t *bytes, const char **why);

/*
 * arch_vcpu_resume() - @v from @state (@bytes, as arch_vcpu_state() says,
 * saved by the image before a live update) on the table and image of @s,
 * its TLB entries dropped; its measuring loop (<keel/guest_abi.h>) ends
 * @s->arg[5] counter ticks from now. Boot CPU.
 * Return: 0, or -EINVAL when the state is not a vCPU in its loop.
 */
int arch_vcpu_resume(struct arch_vcpu *v, const void *state, uint32_t bytes,
		     const struct vcpu_setup *s);

#endif
