/* SPDX-License-Identifier: MIT */
/*
 * The small x86_64 arch hooks: time, stopping the machine, cache
 * maintenance and the scrub primitive (CPU identity and SMP: smp.c).
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
 *
 * Cache: x86 is coherent; the maintenance hooks still do the real thing
 * for cachemaint=clflush, which the common code selects; it never calls
 * them otherwise. Per line, with one fence per range (issue 6):
 *   clean         CLWB when CPUID.7.0:EBX[24] (the line may stay cached),
 *                 else CLFLUSHOPT (EBX[23]), else CLFLUSH;
 *   clean+inval   CLFLUSHOPT, else CLFLUSH.
 * CLWB and CLFLUSHOPT are only ordered by fences, so such a range ends in
 * SFENCE (orders them before any later store, which is what "the data is
 * at the point of coherency before the caller hands the memory out"
 * needs); CLFLUSH ranges end in MFENCE as before. The choice is made once
 * by x86_cache_init() (boot CPU, from arch_scrub_init(), before any
 * allocation path can run) and printed.
 *
 * The scrub primitive is chosen once on the boot CPU (arch_scrub_init)
 * before any worker runs; arch_scrub_range() then only reads that choice
 * and touches registers and the range it was given, so every CPU may call
 * it concurrently.
 */
#include <arch/cache.h>
#include <arch/cpu.h>
#include <arch/scrub.h>
#include <asm/x86.h>
#include <keel/acpi.h>
#include <keel/errno.h>
#include <keel/options.h>
#include <keel/printk.h>

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
 * Failures before keel_main() parsed the options (early exceptions, a bad
 * memory map) still honour after=exit/poweroff: setup.c scans the raw
 * command line for it.
 */
int x86_early_after = AFTER_DEFAULT;

/**
 * x86_fail_stop() - stop as a failed boot, by opts.after once parsed, else
 * by the early scan of the command line.
 */
void x86_fail_stop(void)
{
	arch_stop(opts.after != AFTER_DEFAULT
			  ? opts.after
			  : (enum after_action)x86_early_after,
		  false);
}

/**
 * arch_panic() - stop after panic() printed its lines: a failed boot.
 */
void arch_panic(const char *msg)
{
	x86_fail_stop();
}

enum x86_flush_insn { FLUSH_CLFLUSH = 0, FLUSH_CLFLUSHOPT, FLUSH_CLWB };

static const char *const flush_insn_name[] = {"clflush", "clflushopt", "clwb"};

/* Set once by x86_cache_init(); read-only afterwards (every CPU). */
static struct {
	bool ready;
	unsigned int line;
	enum x86_flush_insn clean, inval;
} x86_cache;

static void x86_cache_init(void)
{
	struct cpuid_regs l7 = {0};
	unsigned int line = ((cpuid(1, 0).ebx >> 8) & 0xff) * 8;

	if (cpuid(0, 0).eax >= 7)
		l7 = cpuid(7, 0);
	x86_cache.line = line ? line : 64;
	x86_cache.inval =
		l7.ebx & (1u << 23) ? FLUSH_CLFLUSHOPT : FLUSH_CLFLUSH;
	x86_cache.clean = l7.ebx & (1u << 24) ? FLUSH_CLWB : x86_cache.inval;
	/* x86 keeps store order; stop the compiler reordering them. */
	__asm__ __volatile__("" ::: "memory");
	x86_cache.ready = true;
}

/**
 * arch_dcache_line_size() - CLFLUSH line size from CPUID 1 EBX[15:8].
 * Return: bytes (64 when CPUID gives 0).
 */
unsigned int arch_dcache_line_size(void)
{
	if (!x86_cache.ready)
		x86_cache_init();
	return x86_cache.line;
}

static void flush_range(void *va, size_t len, enum x86_flush_insn insn)
{
	uintptr_t line = arch_dcache_line_size();
	uintptr_t p = (uintptr_t)va & ~(line - 1);
	uintptr_t end = (uintptr_t)va + len;

	switch (insn) {
	case FLUSH_CLWB:
		for (; p < end; p += line)
			__asm__ __volatile__("clwb (%0)" : : "r"(p) : "memory");
		__asm__ __volatile__("sfence" ::: "memory");
		break;
	case FLUSH_CLFLUSHOPT:
		for (; p < end; p += line)
			__asm__ __volatile__("clflushopt (%0)"
					     :
					     : "r"(p)
					     : "memory");
		__asm__ __volatile__("sfence" ::: "memory");
		break;
	case FLUSH_CLFLUSH:
		for (; p < end; p += line)
			__asm__ __volatile__("clflush (%0)"
					     :
					     : "r"(p)
					     : "memory");
		__asm__ __volatile__("mfence" ::: "memory");
		break;
	}
}

/**
 * arch_clean_dcache_range() - write back [va, va+len) (CLWB, CLFLUSHOPT or
 * CLFLUSH per line, one fence).
 */
void arch_clean_dcache_range(void *va, size_t len)
{
	if (!x86_cache.ready)
		x86_cache_init();
	flush_range(va, len, x86_cache.clean);
}

/**
 * arch_clean_inval_dcache_range() - write back and invalidate [va, va+len)
 * (CLFLUSHOPT or CLFLUSH per line, one fence).
 */
void arch_clean_inval_dcache_range(void *va, size_t len)
{
	if (!x86_cache.ready)
		x86_cache_init();
	flush_range(va, len, x86_cache.inval);
}

/**
 * arch_inval_icache_all() - x86 keeps instruction fetch coherent; a
 * serialising instruction is all that self-modifying code needs.
 */
void arch_inval_icache_all(void)
{
	(void)cpuid(0, 0);
}

/**
 * arch_dcache_coherent() - x86 caches are coherent with DMA.
 * Return: true.
 */
bool arch_dcache_coherent(void)
{
	return true;
}

/*
 * Scrub primitive, picked by measurement in arch_scrub_init(): `rep stosb`
 * (one instruction; with ERMS/FSRM the fastest clear on current cores) or a
 * movnti loop (non-temporal 8-byte stores, one SFENCE). Under QEMU TCG the
 * movnti loop is about 10x faster (rep stosb is emulated byte by byte), so
 * neither can be assumed. The probe clears a 256 KiB bss buffer three times
 * with each and keeps the faster; being cache-resident it slightly favours
 * rep stosb, which is also what large clears on ERMS hardware favour.
 */
#define SCRUB_PROBE_BYTES (256 * 1024)
#define SCRUB_PROBE_RUNS  3

static uint8_t scrub_probe[SCRUB_PROBE_BYTES] __aligned(4096);
static bool scrub_use_movnti;

static void zero_movnti(void *va, size_t len)
{
	uint64_t *p = va;

	for (size_t i = 0; i < len / 8; i += 4) {
		__asm__ __volatile__("movnti %1, (%0)\n\t"
				     "movnti %1, 8(%0)\n\t"
				     "movnti %1, 16(%0)\n\t"
				     "movnti %1, 24(%0)"
				     :
				     : "r"(p + i), "r"(0ULL)
				     : "memory");
	}
	__asm__ __volatile__("sfence" ::: "memory");
}

static void zero_rep_stosb(void *va, size_t len)
{
	__asm__ __volatile__("rep stosb"
			     : "+D"(va), "+c"(len)
			     : "a"(0)
			     : "memory");
}

static uint64_t scrub_probe_ticks(void (*zero)(void *, size_t))
{
	uint64_t best = ~0ULL;

	for (int i = 0; i < SCRUB_PROBE_RUNS; i++) {
		uint64_t t0 = rdtsc();

		zero(scrub_probe, sizeof(scrub_probe));
		best = MIN(best, rdtsc() - t0);
	}
	return best;
}

/**
 * arch_scrub_init() - time rep stosb against movnti and keep the faster.
 */
void arch_scrub_init(void)
{
	uint64_t rep = scrub_probe_ticks(zero_rep_stosb);
	uint64_t nt = scrub_probe_ticks(zero_movnti);

	scrub_use_movnti = nt < rep;
	pr_info("scrub: 256 KiB clear: rep stosb %llu, movnti %llu ticks: "
		"using %s\n",
		(unsigned long long)rep, (unsigned long long)nt,
		arch_scrub_primitive());
	x86_cache_init();
	pr_info("cache: %u-byte lines; cachemaint=clflush cleans with %s, "
		"cleans+invalidates with %s\n",
		x86_cache.line, flush_insn_name[x86_cache.clean],
		flush_insn_name[x86_cache.inval]);
}

/**
 * arch_scrub_range() - zero [va, va+len), page aligned, with the primitive
 * arch_scrub_init() chose.
 */
void arch_scrub_range(void *va, size_t len)
{
	if (scrub_use_movnti)
		zero_movnti(va, len);
	else
		zero_rep_stosb(va, len);
}

/**
 * arch_scrub_clean_range() - zero; coherent, so clean to PoC already.
 * Return: true.
 */
bool arch_scrub_clean_range(void *va, size_t len)
{
	arch_scrub_range(va, len);
	return true;
}

/**
 * arch_scrub_primitive() - name for the report.
 * Return: "rep stosb" or "movnti".
 */
const char *arch_scrub_primitive(void)
{
	return scrub_use_movnti ? "movnti" : "rep stosb";
}
