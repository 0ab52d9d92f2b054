/* SPDX-License-Identifier: MIT */
/*
 * arm64 arch hooks of <arch/guest.h>: a vCPU at EL1 under keel at EL2
 * (non-VHE: HCR_EL2.E2H = 0), its MMU off.
 *
 * The vCPU's state, struct arm64_vcpu in the words of struct arch_vcpu
 * (what a live update carries; nothing in it points into keel):
 *   regs         x0-x30, pc (ELR_EL2), PSTATE (SPSR_EL2): guest_switch.S
 *   el1          the EL1 system registers and its virtual timer
 *                (struct arm64_el1: SCTLR_EL1 ... CNTV_CVAL_EL0)
 *   cntvoff      CNTVOFF_EL2: its virtual counter is keel's minus this
 *   vtcr, vttbr  its stage 2: VTCR_EL2 from the table's geometry, VTTBR_EL2
 *                with the table's root and VMID (one per domain)
 * It starts at the image's entry in EL1h, DAIF masked, SCTLR_EL1 its
 * RES1 bits only (M = C = I = 0), VBAR_EL1 the image (its vector table).
 *
 * A run (interrupts masked): EL1 state, CNTVOFF_EL2, VTCR/VTTBR_EL2 in;
 * CNTHCTL_EL2 without EL1PCTEN/EL1PCEN (CNTPCT and the EL1 physical timer
 * trap); CPTR_EL2.TFP (FP/SIMD traps: keel's FP state is never the
 * guest's); CNTHP_CVAL_EL2 = the slice's end, CNTHP on (PPI 26, made
 * Group 1 on every CPU that runs vCPUs); HCR_EL2 for a guest: VM (stage
 * 2), SWIO, FMO, IMO, AMO (physical interrupts and SErrors come to EL2:
 * the slice's end is an exit), TWI, TWE, TSC (WFI, WFE, SMC trap), TIDCP,
 * TACR, TSW, TPCP, TPU, TTLB, TVM (implementation-defined registers,
 * ACTLR, cache and TLB maintenance, writes to its translation registers
 * trap), RW (EL1 is AArch64). Then arm64_guest_enter() until its first
 * exception to EL2, and everything back as it was, CNTHP off (its
 * level-sensitive PPI drops), CNTV masked, CNTVOFF_EL2 0.
 *
 * Exits (Arm ARM DDI 0487 J.a, D17.2 "ESR_EL2", "HPFAR_EL2"): HVC64 (EC
 * 0x16) is a hypercall, x0-x4 its number and values; a data or
 * instruction abort from a lower EL (EC 0x24, 0x20) is a stage-2 fault:
 * the IPA from HPFAR_EL2.FIPA and FAR_EL2's page offset for an address
 * size, translation or access flag fault, else FAR_EL2 (stage 1 is off:
 * the VA is the IPA); an IRQ ends the slice when the counter passed its
 * end, else it is another interrupt; anything else is a trap.
 *
 * TLB: VMIDs tag stage-1+2 entries; arch_vcpu_init() and
 * arch_vcpu_destroy() drop the VMID's (TLBI VMALLS12E1IS with VTTBR_EL2
 * holding it, DSB ISH), so a VMID reused by a later domain, or a table
 * page freed, leaves nothing behind.
 *
 * Lock: none; every register touched is the running CPU's.
 */
#include <arch/guest.h>
#include <asm/arm64.h>
#include <keel/errno.h>
#include <keel/handover.h>
#include <keel/p2m.h>
#include <keel/p2m_format.h>
#include <keel/string.h>

#define HCR_VM	  (1ULL << 0)
#define HCR_SWIO  (1ULL << 1)
#define HCR_FMO	  (1ULL << 3)
#define HCR_IMO	  (1ULL << 4)
#define HCR_AMO	  (1ULL << 5)
#define HCR_TWI	  (1ULL << 13)
#define HCR_TWE	  (1ULL << 14)
#define HCR_TSC	  (1ULL << 19)
#define HCR_TIDCP (1ULL << 20)
#define HCR_TACR  (1ULL << 21)
#define HCR_TSW	  (1ULL << 22)
#define HCR_TPCP  (1ULL << 23)
#define HCR_TPU	  (1ULL << 24)
#define HCR_TTLB  (1ULL << 25)
#define HCR_TVM	  (1ULL << 26)
#define HCR_RW	  (1ULL << 31)
#define HCR_GUEST                                                              \
	(HCR_VM | HCR_SWIO | HCR_FMO | HCR_IMO | HCR_AMO | HCR_TWI | HCR_TWE | \
	 HCR_TSC | HCR_TIDCP | HCR_TACR | HCR_TSW | HCR_TPCP | HCR_TPU |       \
	 HCR_TTLB | HCR_TVM | HCR_RW)

#define CPTR_TFP	 (1ULL << 10)
#define CNTHCTL_EL1PCTEN (1ULL << 0)
#define CNTHCTL_EL1PCEN	 (1ULL << 1)
#define TIMER_ENABLE	 1u
#define TIMER_IMASK	 2u
#define PPI_CNTHP	 26
#define PSR_EL1H_DAIF	 0x3c5 /* EL1h, D A I F masked */

#define EC_HVC64	 0x16
#define EC_IABT_LOW	 0x20
#define EC_DABT_LOW	 0x24
#define ESR_WNR		 (1ULL << 6)
#define FSC_PERMISSION	 0x0c /* below: address size, translation, AF */
#define HPFAR_FIPA	 0x00000ffffffffff0ULL

#define VEC_SYNC	 8
#define VEC_IRQ		 9

#define cnthp_ctl_el2	 S3_4_C14_C2_1
#define cnthp_cval_el2	 S3_4_C14_C2_2

/* The EL1 registers a vCPU owns, and its virtual timer. */
struct arm64_el1 {
	uint64_t sctlr, vbar, sp, elr, spsr, esr, far;
	uint64_t ttbr0, ttbr1, tcr, mair, amair, cpacr, contextidr;
	uint64_t tpidr, tpidr_el0, tpidrro_el0, sp_el0, cntkctl, par;
	uint64_t afsr0, afsr1, csselr, cntv_ctl, cntv_cval;
};

struct arm64_guest_regs {
	uint64_t x[31];
	uint64_t pc, pstate;
};

struct arm64_vcpu {
	struct arm64_guest_regs regs;
	struct arm64_el1 el1;
	uint64_t cntvoff;
	uint64_t vtcr, vttbr;
};

_Static_assert(sizeof(struct arm64_vcpu) <= sizeof(struct arch_vcpu),
	       "struct arm64_vcpu fits struct arch_vcpu");
_Static_assert(
	sizeof(struct arm64_vcpu) == 488,
	"the state block of a handover vCPU record (docs/liveupdate.md)");
_Static_assert(__builtin_offsetof(struct arm64_guest_regs, pc) == 248,
	       "guest_switch.S GREG_PC");

unsigned long arm64_guest_enter(struct arm64_guest_regs *r);
extern const char arm64_guest_prog[], arm64_guest_prog_end[];
/* guest_prog.S: its measuring loop, [loop, loop_end) (the resume's check). */
extern const char arm64_guest_loop[], arm64_guest_loop_end[];
#define GREG_LOOP_END	 15    /* x15: the loop's end (guest_prog.S) */
#define GUEST_PROG_ENTRY 0x800 /* guest_prog.S */

static struct arm64_vcpu *vcpu_of(struct arch_vcpu *av)
{
	return (struct arm64_vcpu *)av->w;
}

static void el1_load(const struct arm64_el1 *r)
{
	write_sysreg(r->sctlr, sctlr_el1);
	write_sysreg(r->vbar, vbar_el1);
	write_sysreg(r->sp, sp_el1);
	write_sysreg(r->elr, elr_el1);
	write_sysreg(r->spsr, spsr_el1);
	write_sysreg(r->esr, esr_el1);
	write_sysreg(r->far, far_el1);
	write_sysreg(r->ttbr0, ttbr0_el1);
	write_sysreg(r->ttbr1, ttbr1_el1);
	write_sysreg(r->tcr, tcr_el1);
	write_sysreg(r->mair, mair_el1);
	write_sysreg(r->amair, amair_el1);
	write_sysreg(r->cpacr, cpacr_el1);
	write_sysreg(r->contextidr, contextidr_el1);
	write_sysreg(r->tpidr, tpidr_el1);
	write_sysreg(r->tpidr_el0, tpidr_el0);
	write_sysreg(r->tpidrro_el0, tpidrro_el0);
	write_sysreg(r->sp_el0, sp_el0);
	write_sysreg(r->cntkctl, cntkctl_el1);
	write_sysreg(r->par, par_el1);
	write_sysreg(r->afsr0, afsr0_el1);
	write_sysreg(r->afsr1, afsr1_el1);
	write_sysreg(r->csselr, csselr_el1);
	write_sysreg(r->cntv_cval, cntv_cval_el0);
	write_sysreg(r->cntv_ctl, cntv_ctl_el0);
}

static void el1_save(struct arm64_el1 *r)
{
	r->sctlr = read_sysreg(sctlr_el1);
	r->vbar = read_sysreg(vbar_el1);
	r->sp = read_sysreg(sp_el1);
	r->elr = read_sysreg(elr_el1);
	r->spsr = read_sysreg(spsr_el1);
	r->esr = read_sysreg(esr_el1);
	r->far = read_sysreg(far_el1);
	r->ttbr0 = read_sysreg(ttbr0_el1);
	r->ttbr1 = read_sysreg(ttbr1_el1);
	r->tcr = read_sysreg(tcr_el1);
	r->mair = read_sysreg(mair_el1);
	r->amair = read_sysreg(amair_el1);
	r->cpacr = read_sysreg(cpacr_el1);
	r->contextidr = read_sysreg(contextidr_el1);
	r->tpidr = read_sysreg(tpidr_el1);
	r->tpidr_el0 = read_sysreg(tpidr_el0);
	r->tpidrro_el0 = read_sysreg(tpidrro_el0);
	r->sp_el0 = read_sysreg(sp_el0);
	r->cntkctl = read_sysreg(cntkctl_el1);
	r->par = read_sysreg(par_el1);
	r->afsr0 = read_sysreg(afsr0_el1);
	r->afsr1 = read_sysreg(afsr1_el1);
	r->csselr = read_sysreg(csselr_el1);
	r->cntv_ctl = read_sysreg(cntv_ctl_el0);
	r->cntv_cval = read_sysreg(cntv_cval_el0);
}

/** arch_guest_supported() - Return: NULL at EL2 with a GICv3, else why not. */
const char *arch_guest_supported(void)
{
	if (arm64_el != 2)
		return "keel runs at EL1 (QEMU without virtualization=on): "
		       "guests need EL2";
	if (!gic_boot_cpu_can_send())
		return "no GICv3: the EL2 timer that shares a CPU between "
		       "vCPUs needs one";
	return NULL;
}

/**
 * arch_guest_image() - the program at the image's start (guest_prog.S).
 * @pages: the image, keel's view (zeroed)
 * @image_ipa: where the guest sees it (unused: the program is PIC)
 * @writable: out: none of it (the guest writes nothing there)
 *
 * Return: the entry's offset.
 */
uint64_t arch_guest_image(void *pages, uint64_t image_ipa,
			  unsigned int *writable)
{
	size_t len = (size_t)(arm64_guest_prog_end - arm64_guest_prog);

	(void)image_ipa;
	*writable = 0;
	memcpy(pages, arm64_guest_prog, len < PAGE_SIZE ? len : PAGE_SIZE);
	return GUEST_PROG_ENTRY;
}

/**
 * arch_guest_cpu_init() - the slice timer's PPI on this CPU, its I-cache
 * clean of older images.
 * @why: out: the reason when it cannot
 *
 * Return: 0, or -ENODEV.
 */
int arch_guest_cpu_init(const char **why)
{
	const char *err;

	write_sysreg(TIMER_IMASK, cnthp_ctl_el2);
	isb();
	err = gic_enable_ppi(PPI_CNTHP);
	if (err) {
		*why = err;
		return -ENODEV;
	}
	__asm__ __volatile__("ic iallu" ::: "memory");
	dsb(nsh);
	isb();
	return 0;
}

/** arch_guest_cpu_fini() - CNTHP left masked, as the latency probe expects. */
void arch_guest_cpu_fini(void)
{
	write_sysreg(TIMER_IMASK, cnthp_ctl_el2);
	isb();
}

/* Drop every stage-1+2 TLB entry tagged with @vttbr's VMID, on every CPU. */
static void tlb_drop_vmid(uint64_t vttbr)
{
	uint64_t daif = read_sysreg(daif), old;

	__asm__ __volatile__("msr daifset, #0xf" ::: "memory");
	old = read_sysreg(vttbr_el2);
	dsb(ishst);
	write_sysreg(vttbr, vttbr_el2);
	isb();
	__asm__ __volatile__("tlbi vmalls12e1is" ::: "memory");
	dsb(ish);
	write_sysreg(old, vttbr_el2);
	isb();
	write_sysreg(daif, daif);
}

/**
 * arch_vcpu_init() - @av at its entry (see the file comment).
 * @av: the vCPU's state
 * @s: its table, image, entry, arguments and counter offset
 *
 * Return: 0.
 */
int arch_vcpu_init(struct arch_vcpu *av, const struct vcpu_setup *s)
{
	struct arm64_vcpu *v = vcpu_of(av);
	const struct p2m *p = s->stage2;

	memset(av, 0, sizeof(*av));
	for (unsigned int i = 0; i < GUEST_ARGS; i++)
		v->regs.x[i] = s->arg[i];
	v->regs.pc = s->entry;
	v->regs.pstate = PSR_EL1H_DAIF;
	v->el1.sctlr = SCTLR_EL1_RES1;
	v->el1.vbar = s->image_ipa;
	v->cntvoff = 0 - s->counter_offset;
	v->vtcr = vmsa_s2_vtcr(p->ipa_bits, p->start_level, p->pa_bits);
	v->vttbr = vmsa_s2_vttbr(p->root, p->vmid);
	tlb_drop_vmid(v->vttbr);
	return 0;
}

/* Why @v stopped: vector @kind, the syndrome registers read at the exit. */
static void decode_exit(const struct arm64_vcpu *v, unsigned long kind,
			uint64_t slice_end, uint64_t far, uint64_t hpfar,
			struct vcpu_exit *e)
{
	uint64_t ec = e->syndrome >> 26, fsc = e->syndrome & 0x3f;

	e->pc = v->regs.pc;
	if (kind == VEC_IRQ) {
		e->reason = arch_ticks() >= slice_end ? VCPU_EXIT_PREEMPT
						      : VCPU_EXIT_IRQ;
		return;
	}
	e->reason = VCPU_EXIT_TRAP;
	if (kind != VEC_SYNC)
		return;
	if (ec == EC_HVC64) {
		e->reason = VCPU_EXIT_HYPERCALL;
		for (unsigned int i = 0; i < 5; i++)
			e->arg[i] = v->regs.x[i];
	} else if (ec == EC_DABT_LOW || ec == EC_IABT_LOW) {
		e->reason = VCPU_EXIT_STAGE2;
		e->write = ec == EC_DABT_LOW && (e->syndrome & ESR_WNR);
		e->ipa = fsc < FSC_PERMISSION ? ((hpfar & HPFAR_FIPA) << 8) |
							(far & (PAGE_SIZE - 1))
					      : far;
	}
}

/**
 * arch_vcpu_run() - one turn of @av on this CPU (see the file comment).
 * @av: the vCPU
 * @slice_end: counter value at which CNTHP ends the turn
 * @e: out: why it stopped
 */
void arch_vcpu_run(struct arch_vcpu *av, uint64_t slice_end,
		   struct vcpu_exit *e)
{
	struct arm64_vcpu *v = vcpu_of(av);
	uint64_t daif = read_sysreg(daif), hcr, cptr, cnthctl, vtcr, vttbr;
	uint64_t far, hpfar;
	unsigned long kind;

	__asm__ __volatile__("msr daifset, #0xf" ::: "memory");
	hcr = read_sysreg(hcr_el2);
	cptr = read_sysreg(cptr_el2);
	cnthctl = read_sysreg(cnthctl_el2);
	vtcr = read_sysreg(vtcr_el2);
	vttbr = read_sysreg(vttbr_el2);
	el1_load(&v->el1);
	write_sysreg(v->cntvoff, cntvoff_el2);
	write_sysreg(v->vtcr, vtcr_el2);
	write_sysreg(v->vttbr, vttbr_el2);
	write_sysreg(cnthctl & ~(CNTHCTL_EL1PCTEN | CNTHCTL_EL1PCEN),
		     cnthctl_el2);
	write_sysreg(cptr | CPTR_TFP, cptr_el2);
	write_sysreg(slice_end, cnthp_cval_el2);
	write_sysreg(TIMER_ENABLE, cnthp_ctl_el2);
	write_sysreg(HCR_GUEST, hcr_el2);
	isb();
	kind = arm64_guest_enter(&v->regs);
	write_sysreg(0, cnthp_ctl_el2);
	memset(e, 0, sizeof(*e));
	e->syndrome = read_sysreg(esr_el2);
	far = read_sysreg(far_el2);
	hpfar = read_sysreg(hpfar_el2);
	el1_save(&v->el1);
	write_sysreg(TIMER_IMASK, cntv_ctl_el0);
	write_sysreg(hcr, hcr_el2);
	write_sysreg(cptr, cptr_el2);
	write_sysreg(cnthctl, cnthctl_el2);
	write_sysreg(vttbr, vttbr_el2);
	write_sysreg(vtcr, vtcr_el2);
	write_sysreg(0, cntvoff_el2);
	isb();
	write_sysreg(daif, daif);
	decode_exit(v, kind, slice_end, far, hpfar, e);
}

/** arch_vcpu_in_loop() - Return: @v's pc is in its loop (arch/guest.h). */
bool arch_vcpu_in_loop(const struct arch_vcpu *av, uint64_t image_ipa)
{
	const struct arm64_vcpu *v = (const struct arm64_vcpu *)av->w;
	uint64_t lo =
		image_ipa + (uint64_t)(arm64_guest_loop - arm64_guest_prog);
	uint64_t hi =
		image_ipa + (uint64_t)(arm64_guest_loop_end - arm64_guest_prog);

	return v->regs.pc >= lo && v->regs.pc < hi;
}

/** arch_guest_slice_timer() - Return: NULL: CNTHP ends every slice. */
const char *arch_guest_slice_timer(void)
{
	return NULL;
}

/** arch_vcpu_destroy() - its VMID's TLB entries dropped. */
void arch_vcpu_destroy(struct arch_vcpu *av)
{
	tlb_drop_vmid(vcpu_of(av)->vttbr);
}

/**
 * arch_vcpu_state() - a live update carries struct arm64_vcpu whole.
 * @bytes: out: its size
 * @why: unused
 *
 * Return: HANDOVER_VCPU_ARM64.
 */
unsigned int arch_vcpu_state(uint32_t *bytes, const char **why)
{
	(void)why;
	*bytes = sizeof(struct arm64_vcpu);
	return HANDOVER_VCPU_ARM64;
}

/**
 * arch_vcpu_resume() - @av from an older image's @state: its registers,
 * EL1 state and counter offset as they were; its stage 2 this image's
 * (@s: VTCR_EL2, VTTBR_EL2 with the new root and VMID); x15, its loop's
 * end, @s->arg[5] ticks past its counter now. The pc must lie in the
 * loop of the program at @s->image_ipa.
 * @av: the vCPU
 * @state: struct arm64_vcpu, @bytes long
 * @bytes: sizeof(struct arm64_vcpu)
 * @s: this image's table and image, arg[5] the loop's length
 *
 * Return: 0, or -EINVAL.
 */
int arch_vcpu_resume(struct arch_vcpu *av, const void *state, uint32_t bytes,
		     const struct vcpu_setup *s)
{
	struct arm64_vcpu *v = vcpu_of(av);
	const struct p2m *p = s->stage2;
	uint64_t lo =
		s->image_ipa + (uint64_t)(arm64_guest_loop - arm64_guest_prog);
	uint64_t hi = s->image_ipa +
		      (uint64_t)(arm64_guest_loop_end - arm64_guest_prog);

	if (bytes != sizeof(*v))
		return -EINVAL;
	memset(av, 0, sizeof(*av));
	memcpy(v, state, sizeof(*v));
	if (v->regs.pc < lo || v->regs.pc >= hi)
		return -EINVAL;
	v->regs.x[GREG_LOOP_END] = arch_ticks() - v->cntvoff + s->arg[5];
	v->vtcr = vmsa_s2_vtcr(p->ipa_bits, p->start_level, p->pa_bits);
	v->vttbr = vmsa_s2_vttbr(p->root, p->vmid);
	tlb_drop_vmid(v->vttbr);
	return 0;
}
