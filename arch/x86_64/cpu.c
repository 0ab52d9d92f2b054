/* SPDX-License-Identifier: MIT */
/*
 * x86_64 arch hooks of <arch/cpu.h>: the CPU identity, the idle wait,
 * time and stopping the machine.
 *
 * Identity: arch_cpu_id() is one load from the running CPU's struct
 * x86_percpu through the GS base (smp.c sets it up).
 *
 * Idle CPUs halt (arch_cpu_idle_wait; common/smp/smp_boot.c picks how long,
 * and the boot CPU halts in smp_wait()): a pause loop costs a whole core
 * under QEMU TCG, where hundreds of vCPU threads share a few host cores
 * and starve the boot CPU, and each pause there takes QEMU's global lock,
 * which delays every other vCPU's interrupts. Each halt is ended by the
 * wake-up IPI or the one-shot local APIC timer (lapic.c), the caller's
 * check and the halt under cli (sti shadows hlt). Without a calibrated
 * timer the wait is a pause.
 *
 * Stopping (cmdline after=):
 *   default   exit under QEMU, halt elsewhere (x86_qemu_init() decides:
 *             CPUID's hypervisor bit, then QEMU's fw_cfg signature "QEMU"
 *             at selector port 0x510 / data port 0x511; hardware never
 *             sees a write to those ports).
 *   halt      cli; hlt forever.
 *   poweroff  ACPI S5: SLP_TYP from the DSDT's \_S5 | SLP_EN written to the
 *             FADT's PM1a/PM1b control ports (enabling ACPI mode through
 *             SMI_CMD first if needed); then, under QEMU, its fixed PM1a
 *             port 0x604 (0x2000: PIIX4 and ICH9 PM both at 0x600, for
 *             acpi=off or missing tables). QEMU exits with status 0.
 *             Halt when that did not switch the machine off.
 *   exit      isa-debug-exit at port 0xf4: QEMU exits with (v << 1) | 1.
 *             PASS writes 0x10 (exit status 33), FAIL writes 0x11 (35).
 *             Without the device the write is ignored and exit goes on as
 *             poweroff, so that QEMU still stops (status 0).
 *   QEMU's ports are only written under QEMU; elsewhere exit halts and
 *   poweroff uses ACPI only.
 *   reset     keyboard controller pulse, then a triple fault.
 */
#include <arch/cpu.h>
#include <asm/lapic.h>
#include <asm/x86.h>
#include <keel/acpi.h>
#include <keel/errno.h>
#include <keel/printk.h>
#include <keel/smp.h>

#define DEBUG_EXIT_PORT	 0xf4
#define DEBUG_EXIT_PASS	 0x10 /* QEMU exit status 33 */
#define DEBUG_EXIT_FAIL	 0x11 /* QEMU exit status 35 */
#define QEMU_PM1A_CNT	 0x604
#define FW_CFG_PORT_SEL	 0x510
#define FW_CFG_PORT_DATA 0x511
#define FW_CFG_SIGNATURE 0x0000
#define ACPI_S5_SLP_EN	 0x2000

const char arch_name[] = "x86_64";

uint64_t tsc_hz; /* tsc.c calibrates it before keel_main() */

/**
 * arch_cpu_relax() - spin-wait hint.
 */
void arch_cpu_relax(void)
{
	__asm__ __volatile__("pause" ::: "memory");
}

/**
 * arch_cpu_id() - logical index of the running CPU, from the GS base.
 * Return: 0 for the boot CPU.
 */
unsigned int arch_cpu_id(void)
{
	uint32_t id;

	__asm__ __volatile__("movl %%gs:%c1, %0"
			     : "=r"(id)
			     : "i"(X86_PERCPU_CPU_OFFSET));
	return id;
}

/**
 * arch_cpu_idle_wait() - a halt that the one-shot local APIC timer ends
 * after @max_us; a pause without a calibrated timer. Called with
 * interrupts masked (the caller's check and the halt are one step: a
 * wake-up IPI taken in between would be lost); returns with them masked.
 * @max_us: at most IDLE_MAX_US (longer waits are cut to it).
 */
void arch_cpu_idle_wait(uint32_t max_us)
{
	if (!lapic_timer_oneshot(max_us)) {
		arch_cpu_relax();
		return;
	}
	/* sti shadows hlt: an interrupt already pending ends the halt. */
	__asm__ __volatile__("sti; hlt; cli" ::: "memory");
}

/**
 * arch_cpu_hwid() - the running CPU's APIC ID, from CPUID.
 * Return: the APIC ID.
 */
uint64_t arch_cpu_hwid(void)
{
	return x86_apic_id();
}

/**
 * arch_cpu_wake() - a fixed-vector IPI (X86_WAKE_VEC) to @hwid: it ends
 * the halt of arch_cpu_idle_wait(), or stays pending in the IRR until the
 * next sti; hlt when the CPU is not halted.
 * @cpu: logical id (unused)
 * @hwid: its APIC ID
 */
void arch_cpu_wake(unsigned int cpu, uint64_t hwid)
{
	(void)cpu;
	lapic_send_ipi((uint32_t)hwid, ICR_FIXED | X86_WAKE_VEC);
}

/**
 * x86_udelay() - spin for @us microseconds of TSC (1 GHz assumed before
 * the TSC is calibrated).
 * @us: the delay
 */
void x86_udelay(uint64_t us)
{
	uint64_t hz = tsc_hz ? tsc_hz : 1000000000ULL;
	uint64_t end = rdtsc() + hz / 1000000 * us;

	while (rdtsc() < end)
		arch_cpu_relax();
}

/**
 * arch_ticks() - the TSC.
 * Return: raw TSC value.
 */
uint64_t arch_ticks(void)
{
	return rdtsc();
}

/**
 * arch_ticks_hz() - TSC rate found by tsc_init().
 * Return: ticks per second.
 */
uint64_t arch_ticks_hz(void)
{
	return tsc_hz;
}

/* ACPI S5 from the FADT's PM1 control blocks and the DSDT's \_S5. */
static void acpi_poweroff(void)
{
	const struct acpi_info *ai = x86_acpi;
	uint16_t val;

	if (!ai || !ai->s5_found || ai->pm1a_cnt.space_id != ACPI_GAS_IO ||
	    !ai->pm1a_cnt.address || ai->pm1a_cnt.address > 0xffff)
		return;
	/* Firmware left ACPI mode off (SCI_EN clear): ask SMM to enable it. */
	if (!(inw(ai->pm1a_cnt.address) & 1) && ai->smi_cmd &&
	    ai->smi_cmd <= 0xffff && ai->acpi_enable) {
		outb(ai->smi_cmd, ai->acpi_enable);
		for (unsigned int i = 0; i < 1000000; i++)
			if (inw(ai->pm1a_cnt.address) & 1)
				break;
	}
	val = (uint16_t)((ai->s5_slp_typ & 7) << 10) | ACPI_S5_SLP_EN;
	outw(ai->pm1a_cnt.address, val);
	if (ai->pm1b_cnt.space_id == ACPI_GAS_IO && ai->pm1b_cnt.address &&
	    ai->pm1b_cnt.address <= 0xffff)
		outw(ai->pm1b_cnt.address, val);
}

static bool in_vm(void)
{
	return cpuid(1, 0).ecx & (1u << 31);
}

/* -1: not probed yet; else whether fw_cfg said "QEMU". */
static int qemu_found = -1;

static bool qemu_probe(void)
{
	static const char sig[4] = {'Q', 'E', 'M', 'U'};

	/* Ports 0x510/0x511 may be anything on hardware: VMs only. */
	if (!in_vm())
		return false;
	outw(FW_CFG_PORT_SEL, FW_CFG_SIGNATURE);
	for (unsigned int i = 0; i < sizeof(sig); i++)
		if (inb(FW_CFG_PORT_DATA) != (uint8_t)sig[i])
			return false;
	return true;
}

/**
 * x86_qemu() - are we running under QEMU (TCG or KVM)? Probed once.
 * Return: true when fw_cfg carries QEMU's signature.
 */
bool x86_qemu(void)
{
	if (qemu_found < 0)
		qemu_found = qemu_probe();
	return qemu_found;
}

/**
 * x86_qemu_init() - probe for QEMU on the boot CPU and say what after=
 * defaults to (the probe would otherwise run quietly in arch_stop()).
 */
void x86_qemu_init(void)
{
	if (x86_qemu())
		pr_info("x86_64: QEMU (fw_cfg signature \"QEMU\"): after= "
			"defaults to exit\n");
	else
		pr_info("x86_64: not QEMU: after= defaults to halt\n");
}

/**
 * arch_stop() - end the boot as @how says; see the file comment.
 */
void arch_stop(enum after_action how, bool pass)
{
	/* QEMU's ports mean nothing elsewhere: only poke them under QEMU. */
	bool qemu = x86_qemu();

	__asm__ __volatile__("cli");
	if (how == AFTER_DEFAULT)
		how = qemu ? AFTER_EXIT : AFTER_HALT;
	switch (how) {
	case AFTER_EXIT:
		if (!qemu)
			break;
		outb(DEBUG_EXIT_PORT, pass ? DEBUG_EXIT_PASS : DEBUG_EXIT_FAIL);
		/* Still here: no isa-debug-exit device. Power off instead. */
		__attribute__((__fallthrough__));
	case AFTER_POWEROFF:
		acpi_poweroff();
		if (qemu)
			outw(QEMU_PM1A_CNT, ACPI_S5_SLP_EN);
		break;
	case AFTER_RESET: {
		static const uint64_t null_idt[2];

		outb(0x64, 0xfe);
		__asm__ __volatile__("lidt (%0); int3" : : "r"(null_idt));
		break;
	}
	case AFTER_HALT:
	default:
		break;
	}
	cpu_halt_forever();
	__builtin_unreachable();
}

/*
 * Failures before keel_main() (early exceptions, a bad memory map) still
 * honour after=exit/poweroff: setup.c sets it once the options are parsed.
 */
int x86_early_after = AFTER_DEFAULT;

/**
 * x86_fail_stop() - stop as a failed boot, by after= as the options say
 * (the default before they are parsed).
 */
void x86_fail_stop(void)
{
	arch_stop((enum after_action)x86_early_after, false);
}

/**
 * arch_panic() - stop after panic() printed its lines: a failed boot.
 */
void arch_panic(const char *msg)
{
	x86_fail_stop();
}
