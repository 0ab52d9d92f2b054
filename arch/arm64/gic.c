/* SPDX-License-Identifier: MIT */
/*
 * Just enough GICv3 for an idle secondary to sleep. It waits in WFI until
 * work is posted to it (SGI 1, sent by the poster through ICC_SGI1R_EL1:
 * gic_send_wake()) or, as a safety net, its EL1 virtual timer fires (PPI
 * 27, the number the Arm BSA gives that timer), with interrupts masked in
 * PSTATE: the interrupt is never taken, it only ends the WFI. After the
 * WFI the CPU acknowledges what is pending (ICC_IAR1_EL1, then
 * ICC_EOIR1_EL1): an SGI stays pending until then and would end every
 * later WFI at once. The boot CPU turns on its own CPU interface in
 * gic_init() so that it can send SGIs. Without this an
 * idle CPU can only yield, and under QEMU TCG (where WFE does not sleep)
 * hundreds of yielding vCPU threads on a few host cores starve the boot
 * CPU: a 256-CPU boot did not finish starting its CPUs in an hour.
 *
 * gic_map() on the boot CPU, in setup.c's mapping batch: the distributor
 * and each redistributor region, Device. gic_init() after the batch:
 * check the architecture revision, turn on affinity routing and Group 1
 * in the distributor. gic_cpu_init() on each CPU: find its
 * redistributor by MPIDR, wake it, make PPI 27 Group 1, enabled; turn on
 * the system-register CPU interface with Group 1 and the priority mask
 * open. What fails (no GICv3, no redistributor for this MPIDR, CPU
 * interface registers off) leaves that CPU yielding, with one warning for
 * the whole boot; nothing panics.
 *
 * The latency probe (irq.c) takes real interrupts: gic_enable_ppi() makes
 * one more PPI of the calling CPU Group 1 and enabled (its timer's: 26 at
 * EL2, 27 at EL1); irq.c acknowledges and ends them through ICC_IAR1_EL1 and
 * ICC_EOIR1_EL1. Only PPI enable and priority are touched here.
 *
 * Lock: none. gic_map()/gic_init() run on the boot CPU before the first
 * CPU_ON; each gic_cpu_init() touches its own redistributor only; the
 * one warning is claimed with an atomic or.
 */
#include <asm/arm64.h>
#include <keel/atomic.h>
#include <keel/errno.h>
#include <keel/printk.h>

#define GICD_CTLR	    0x0000
#define GICD_TYPER	    0x0004
#define GICD_TYPER_LINES(v) ((v)&0x1f) /* 32 INTIDs each, less one */
#define GICD_ICENABLER(n)   (0x0180 + 4 * (n))
#define GICD_CTLR_GRP1	    0x3 /* EnableGrp1 and EnableGrp1A, in every view */
#define GICD_CTLR_ARE	    (1u << 4)
#define GICD_CTLR_RWP	    (1u << 31)
#define GIC_PIDR2	    0xffe8 /* GICD_PIDR2, GICR_PIDR2 */
#define GIC_PIDR2_ARCH(v)   (((v) >> 4) & 0xf)

#define GICR_FRAME	    0x20000 /* RD_base + SGI_base */
#define GICR_FRAME_VLPI	    0x40000 /* plus VLPI_base + reserved (GICv4) */
#define GICR_TYPER	    0x0008
#define GICR_TYPER_VLPIS    (1ull << 1)
#define GICR_TYPER_LAST	    (1ull << 4)
#define GICR_WAKER	    0x0014
#define GICR_WAKER_SLEEP    (1u << 1)
#define GICR_WAKER_ASLEEP   (1u << 2)
#define GICR_SGI	    0x10000
#define GICR_IGROUPR0	    0x0080
#define GICR_ISENABLER0	    0x0100
#define GICR_ICENABLER0	    0x0180
#define GICR_IPRIORITYR(n)  (0x0400 + (n))

#define WAKE_PPI	    27		 /* EL1 virtual timer */
#define WAKE_SGI	    GIC_WAKE_SGI /* arch_cpu_wake() */
#define STRAY_SGI	    2		 /* inject=irq-unexpected */
#define INTID_SPURIOUS	    1020 /* IAR values from here on: nothing pending */
#define WAKE_PRIO	    0x80 /* any priority the mask lets through */
#define POLL_TRIES	    1000000
#define MAX_FRAMES	    8192 /* frames walked (and mapped) per region at most */
#define ICC_SRE_SRE	    (1u << 0)
#define ICC_SRE_EN	    (1u << 3) /* ICC_SRE_EL2: lower ELs may use SRE */
#define PFR0_GIC(v)	    (((v) >> 24) & 0xf)
#define CNTV_ENABLE	    1u
#define CNTV_IMASK	    2u

static struct dt_gicr gicr[DT_MAX_GICR];
/* The boot CPU's system-register interface is on: it may send SGIs. */
static bool boot_cpu_if;
static unsigned int gicr_count;
static uintptr_t gicd;
static uint32_t warned;

static uint32_t rd32(uintptr_t a)
{
	return *(volatile uint32_t *)a;
}

static uint64_t rd64(uintptr_t a)
{
	return *(volatile uint64_t *)a;
}

static void wr32(uintptr_t a, uint32_t v)
{
	*(volatile uint32_t *)a = v;
}

static bool poll_clear(uintptr_t a, uint32_t bits)
{
	for (unsigned int i = 0; i < POLL_TRIES; i++)
		if (!(rd32(a) & bits))
			return true;
	return false;
}

static void warn_once(const char *what, uint64_t mpidr)
{
	if (!atomic_fetch_or(&warned, 1))
		pr_warn("gic: %s (first: MPIDR %#llx): such CPUs spin when "
			"idle\n",
			what, (unsigned long long)mpidr);
}

/**
 * gic_map() - map the GICv3 the DT or the MADT describes, Device.
 * @ai: the firmware's description (gicd_base 0: none, nothing mapped).
 */
void gic_map(const struct dt_arch_info *ai)
{
	if (!pa_val(ai->gicd_base) || !ai->gicr_count)
		return;
	mm_map_device(ai->gicd_base, 0x10000);
	for (unsigned int i = 0; i < ai->gicr_count; i++) {
		struct dt_gicr r = ai->gicr[i];

		/* Less than one frame: its registers are not all there. */
		if (r.size < GICR_FRAME) {
			pr_warn("gic: redistributor region %#llx has %#llx "
				"bytes, less than a frame: ignored\n",
				(unsigned long long)pa_val(r.base),
				(unsigned long long)r.size);
			continue;
		}
		/* find_redist() walks no further than this. */
		if (r.size > (uint64_t)MAX_FRAMES * GICR_FRAME_VLPI)
			r.size = (uint64_t)MAX_FRAMES * GICR_FRAME_VLPI;
		mm_map_device(r.base, r.size);
		gicr[gicr_count++] = r;
	}
	if (gicr_count)
		gicd = (uintptr_t)pa_val(ai->gicd_base);
}

static bool cpu_if_init(void);

/**
 * gic_init() - affinity routing and Group 1 on in the distributor.
 * Runs after gic_map()'s batch is committed, before any CPU_ON.
 */
void gic_init(void)
{
	uint32_t ctlr, arch;

	if (!gicd)
		return;
	arch = GIC_PIDR2_ARCH(rd32(gicd + GIC_PIDR2));
	if (arch != 3 && arch != 4) {
		pr_warn("gic: distributor at %#llx reports architecture %u, "
			"not a GICv3/v4: idle CPUs spin\n",
			(unsigned long long)gicd, arch);
		gicd = 0;
		return;
	}
	ctlr = rd32(gicd + GICD_CTLR);
	if (!(ctlr & GICD_CTLR_ARE)) {
		/* ARE may only change with the groups off. */
		wr32(gicd + GICD_CTLR, 0);
		poll_clear(gicd + GICD_CTLR, GICD_CTLR_RWP);
		wr32(gicd + GICD_CTLR, GICD_CTLR_ARE);
		poll_clear(gicd + GICD_CTLR, GICD_CTLR_RWP);
		ctlr = GICD_CTLR_ARE;
	}
	/*
	 * keel asks for no shared interrupt: turn off every SPI a firmware
	 * left on, so that none reaches a CPU that runs with interrupts on
	 * (a level one would come back after every EOI). Secure ones ignore
	 * the write.
	 */
	for (unsigned int n = 1; n <= GICD_TYPER_LINES(rd32(gicd + GICD_TYPER));
	     n++)
		wr32(gicd + GICD_ICENABLER(n), ~0u);
	wr32(gicd + GICD_CTLR, ctlr | GICD_CTLR_GRP1);
	if (!poll_clear(gicd + GICD_CTLR, GICD_CTLR_RWP) ||
	    !(rd32(gicd + GICD_CTLR) & GICD_CTLR_ARE)) {
		pr_warn("gic: distributor at %#llx refused affinity routing: "
			"idle CPUs spin\n",
			(unsigned long long)gicd);
		gicd = 0;
		return;
	}
	boot_cpu_if = cpu_if_init();
	pr_info("gic: GICv%u, distributor at %#llx, %u redistributor "
		"region(s): idle CPUs sleep in WFI\n",
		arch, (unsigned long long)gicd, gicr_count);
}

/* The RD_base of the redistributor whose affinity is @aff, or 0. */
static uintptr_t find_redist(uint32_t aff)
{
	for (unsigned int r = 0; r < gicr_count; r++) {
		uintptr_t base = (uintptr_t)pa_val(gicr[r].base);
		uint64_t off = 0;
		unsigned int arch = GIC_PIDR2_ARCH(rd32(base + GIC_PIDR2));

		if (arch != 3 && arch != 4)
			continue;
		for (unsigned int n = 0; n < MAX_FRAMES; n++) {
			uint64_t typer;

			if (off + GICR_FRAME > gicr[r].size)
				break;
			typer = rd64(base + off + GICR_TYPER);
			if ((uint32_t)(typer >> 32) == aff)
				return base + off;
			if (typer & GICR_TYPER_LAST)
				break;
			off += typer & GICR_TYPER_VLPIS ? GICR_FRAME_VLPI
							: GICR_FRAME;
		}
	}
	return 0;
}

/* The system-register CPU interface, Group 1 on, mask open. */
static bool cpu_if_init(void)
{
	uint64_t sre;

	if (!PFR0_GIC(read_sysreg(id_aa64pfr0_el1)))
		return false;
	if (arm64_el == 2) {
		sre = read_sysreg(S3_4_C12_C9_5); /* ICC_SRE_EL2 */
		write_sysreg(sre | ICC_SRE_SRE | ICC_SRE_EN, S3_4_C12_C9_5);
		isb();
		sre = read_sysreg(S3_4_C12_C9_5);
	} else {
		sre = read_sysreg(S3_0_C12_C12_5); /* ICC_SRE_EL1 */
		write_sysreg(sre | ICC_SRE_SRE, S3_0_C12_C12_5);
		isb();
		sre = read_sysreg(S3_0_C12_C12_5);
	}
	if (!(sre & ICC_SRE_SRE))
		return false;
	write_sysreg(0xff, S3_0_C4_C6_0); /* ICC_PMR_EL1 */
	write_sysreg(1, S3_0_C12_C12_7);  /* ICC_IGRPEN1_EL1 */
	isb();
	return true;
}

/* The running CPU's redistributor, awake; 0 when there is none. */
static uintptr_t this_redist(void)
{
	uint64_t mpidr = read_sysreg(mpidr_el1);
	uint32_t aff =
		(uint32_t)((mpidr & 0xffffff) | ((mpidr >> 32) & 0xff) << 24);
	uintptr_t rd = gicd ? find_redist(aff) : 0;

	if (!rd)
		return 0;
	wr32(rd + GICR_WAKER, rd32(rd + GICR_WAKER) & ~GICR_WAKER_SLEEP);
	return poll_clear(rd + GICR_WAKER, GICR_WAKER_ASLEEP) ? rd : 0;
}

/*
 * SGI @sgi to the CPU of MPIDR @hwid (Aff3 at bits 39:32), through
 * ICC_SGI1R_EL1; the stores before it are seen by its target first.
 */
static void send_sgi(uint64_t hwid, unsigned int sgi)
{
	uint64_t aff0 = hwid & 0xff, aff1 = (hwid >> 8) & 0xff;
	uint64_t aff2 = (hwid >> 16) & 0xff, aff3 = (hwid >> 32) & 0xff;

	__asm__ __volatile__("dsb ishst" ::: "memory");
	write_sysreg(aff3 << 48 | (aff0 >> 4) << 44 | aff2 << 32 |
			     (uint64_t)sgi << 24 | aff1 << 16 |
			     1ull << (aff0 & 0xf),
		     S3_0_C12_C11_5); /* ICC_SGI1R_EL1 */
	isb();
}

/**
 * gic_enable_ppi() - make PPI (or SGI) @intid of the running CPU Group 1,
 * enabled, at WAKE_PRIO, and turn its CPU interface on.
 * @intid: 0..31
 *
 * Return: NULL, or why it cannot (no GICv3, no redistributor, ...).
 */
const char *gic_enable_ppi(unsigned int intid)
{
	uintptr_t rd, sgi;

	if (!gicd)
		return "no GICv3 (the probe needs GICv3; GICv2 is not "
		       "supported)";
	rd = this_redist();
	if (!rd)
		return "no awake GICv3 redistributor for this CPU";
	sgi = rd + GICR_SGI;
	wr32(sgi + GICR_IGROUPR0, rd32(sgi + GICR_IGROUPR0) | (1u << intid));
	*(volatile uint8_t *)(sgi + GICR_IPRIORITYR(intid)) = WAKE_PRIO;
	wr32(sgi + GICR_ISENABLER0, 1u << intid);
	if (!cpu_if_init())
		return "no GIC system-register interface";
	return NULL;
}

/**
 * gic_raise_stray_sgi() - inject=irq-unexpected: send SGI 2 to this CPU
 * (ICC_SGI1R_EL1, target list of its own Aff0), made Group 1 and enabled
 * by the first call only, as a firmware would have left it: once
 * arm64_irq() has turned it off, the next ones stay pending.
 * Return: 0, or -EOPNOTSUPP without a GICv3 or a redistributor.
 */
int gic_raise_stray_sgi(void)
{
	static bool enabled; /* the boot CPU only (inject=, keel_main()) */

	if (!enabled && gic_enable_ppi(STRAY_SGI))
		return -EOPNOTSUPP;
	enabled = true;
	send_sgi(read_sysreg(mpidr_el1), STRAY_SGI);
	return 0;
}

/**
 * gic_disable_intid() - turn off interrupt @intid, one keel never asked
 * for: at the distributor (an SPI) or at the running CPU's redistributor
 * (an SGI or PPI), so that it cannot come back (irq.c counts it).
 * @intid: 0..1019
 */
void gic_disable_intid(unsigned int intid)
{
	uintptr_t rd;

	if (!gicd || intid >= INTID_SPURIOUS)
		return;
	if (intid >= 32) {
		wr32(gicd + GICD_ICENABLER(intid / 32), 1u << (intid % 32));
		return;
	}
	rd = this_redist();
	if (rd)
		wr32(rd + GICR_SGI + GICR_ICENABLER0, 1u << intid);
}

/**
 * gic_cpu_init() - prepare this CPU (a secondary, or the boot CPU after
 * gic_init()) for gic_idle_wait().
 * Return: true when its timer can wake it from WFI.
 */
bool gic_cpu_init(void)
{
	uint64_t mpidr = read_sysreg(mpidr_el1);
	uint32_t aff =
		(uint32_t)((mpidr & 0xffffff) | ((mpidr >> 32) & 0xff) << 24);
	uintptr_t rd, sgi;

	if (!gicd)
		return false;
	rd = find_redist(aff);
	if (!rd) {
		warn_once("no redistributor for this CPU", mpidr);
		return false;
	}
	wr32(rd + GICR_WAKER, rd32(rd + GICR_WAKER) & ~GICR_WAKER_SLEEP);
	if (!poll_clear(rd + GICR_WAKER, GICR_WAKER_ASLEEP)) {
		warn_once("redistributor did not wake", mpidr);
		return false;
	}
	sgi = rd + GICR_SGI;
	wr32(sgi + GICR_IGROUPR0,
	     rd32(sgi + GICR_IGROUPR0) | (1u << WAKE_PPI) | (1u << WAKE_SGI));
	*(volatile uint8_t *)(sgi + GICR_IPRIORITYR(WAKE_PPI)) = WAKE_PRIO;
	*(volatile uint8_t *)(sgi + GICR_IPRIORITYR(WAKE_SGI)) = WAKE_PRIO;
	wr32(sgi + GICR_ISENABLER0, (1u << WAKE_PPI) | (1u << WAKE_SGI));
	if (!cpu_if_init()) {
		warn_once("no GIC system-register interface", mpidr);
		return false;
	}
	write_sysreg(CNTV_IMASK, cntv_ctl_el0);
	isb();
	return true;
}

/*
 * Acknowledge what is pending (the wake SGI; a timer PPI that fired): an
 * SGI stays pending until acknowledged, and with it pending every later
 * WFI would return at once. Bounded: a few interrupts at most.
 */
static void ack_pending(void)
{
	for (unsigned int i = 0; i < 4; i++) {
		uint64_t intid = read_sysreg(S3_0_C12_C12_0) & 0xffffff;

		if (intid >= INTID_SPURIOUS)
			break;
		write_sysreg(intid, S3_0_C12_C12_1); /* ICC_EOIR1_EL1 */
		isb();
	}
}

/**
 * gic_idle_wait() - WFI until the virtual timer fires @ticks from now or
 * the wake SGI arrives (gic_send_wake()); either is then acknowledged.
 * Interrupts stay masked in PSTATE: nothing is ever taken.
 * @ticks: timer ticks (CNTFRQ rate).
 */
void gic_idle_wait(uint64_t ticks)
{
	write_sysreg(ticks, cntv_tval_el0);
	write_sysreg(CNTV_ENABLE, cntv_ctl_el0);
	isb();
	__asm__ __volatile__("wfi" ::: "memory");
	write_sysreg(CNTV_IMASK, cntv_ctl_el0);
	isb();
	ack_pending(); /* ICC_IAR1_EL1 */
}

/**
 * gic_send_wake() - the wake SGI to the CPU of MPIDR @hwid, through
 * ICC_SGI1R_EL1; nothing when this CPU has no GIC interface to send it.
 * @hwid: MPIDR affinity (Aff3 at bits 39:32)
 * @can_send: the calling CPU's system-register interface is on
 */
void gic_send_wake(uint64_t hwid, bool can_send)
{
	if (!gicd || !can_send)
		return;
	send_sgi(hwid, WAKE_SGI);
}

/**
 * gic_boot_cpu_can_send() - Return: the boot CPU's GIC interface is on.
 */
bool gic_boot_cpu_can_send(void)
{
	return boot_cpu_if;
}
