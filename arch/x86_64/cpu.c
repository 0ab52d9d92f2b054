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
 * The scrub primitive is chosen once on the boot CPU (arch_scrub_select,
 * from the calibration in common/scrub.c) before any worker runs;
 * arch_scrub_range() then only reads that choice
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
 * Scrub primitives: every zeroing instruction this CPU has, timed by the
 * boot-time calibration (common/scrub.c), which selects one:
 *   movnti     8-byte non-temporal stores (every x86_64 CPU)
 *   movntdq    16-byte non-temporal stores (SSE2: every x86_64 CPU)
 *   vmovntdq   32-byte non-temporal stores (AVX: CPUID.1:ECX[28] with
 *              XSAVE, [26]; arch_scrub_init() sets CR4.OSXSAVE and XCR0's
 *              SSE and AVX bits on every online CPU first)
 *   clzero     AMD's zero-a-line (CPUID 0x80000008:EBX[0])
 *   rep stosb  one instruction; fast with ERMS (CPUID.7:EBX[9]) / FSRM
 *              (CPUID.7:EDX[4]), emulated byte by byte under QEMU TCG
 * Non-temporal ones and clzero are weakly ordered: each range ends in
 * SFENCE. keel is built without SSE (-mno-sse), so no compiler-generated
 * code uses the vector registers these loops clobber.
 */
typedef void (*zero_fn)(void *va, size_t len);

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

static void zero_movntdq(void *va, size_t len)
{
	char *p = va;

	__asm__ __volatile__("pxor %%xmm0, %%xmm0" ::: "memory");
	for (size_t i = 0; i < len; i += 64)
		__asm__ __volatile__("movntdq %%xmm0, (%0)\n\t"
				     "movntdq %%xmm0, 16(%0)\n\t"
				     "movntdq %%xmm0, 32(%0)\n\t"
				     "movntdq %%xmm0, 48(%0)"
				     :
				     : "r"(p + i)
				     : "memory");
	__asm__ __volatile__("sfence" ::: "memory");
}

static void zero_vmovntdq(void *va, size_t len)
{
	char *p = va;

	__asm__ __volatile__("vpxor %%xmm0, %%xmm0, %%xmm0" ::: "memory");
	for (size_t i = 0; i < len; i += 128)
		__asm__ __volatile__("vmovntdq %%ymm0, (%0)\n\t"
				     "vmovntdq %%ymm0, 32(%0)\n\t"
				     "vmovntdq %%ymm0, 64(%0)\n\t"
				     "vmovntdq %%ymm0, 96(%0)"
				     :
				     : "r"(p + i)
				     : "memory");
	__asm__ __volatile__("sfence\n\tvzeroupper" ::: "memory");
}

static void zero_clzero(void *va, size_t len)
{
	char *p = va;

	/* clzero zeroes the 64-byte line rAX points into. */
	for (size_t i = 0; i < len; i += 64)
		__asm__ __volatile__(".byte 0x0f, 0x01, 0xfc"
				     :
				     : "a"(p + i)
				     : "memory");
	__asm__ __volatile__("sfence" ::: "memory");
}

static void zero_rep_stosb(void *va, size_t len)
{
	__asm__ __volatile__("rep stosb"
			     : "+D"(va), "+c"(len)
			     : "a"(0)
			     : "memory");
}

static struct {
	const char *name;
	zero_fn fn;
} scrub_prims[ARCH_SCRUB_MAX_PRIMITIVES];
static unsigned int scrub_prim_count;
static unsigned int scrub_prim_cur;

static void add_prim(const char *name, zero_fn fn)
{
	if (scrub_prim_count < ARCH_SCRUB_MAX_PRIMITIVES) {
		scrub_prims[scrub_prim_count].name = name;
		scrub_prims[scrub_prim_count].fn = fn;
		scrub_prim_count++;
	}
}

#define X86_CR4_OSXSAVE	 (1ul << 18)
#define XCR0_X87_SSE_AVX 0x7u

/* AVX usable once XCR0 allows it: the CPU has AVX, XSAVE and YMM state. */
static bool avx_possible(void)
{
	struct cpuid_regs l1 = cpuid(1, 0);

	if (!(l1.ecx & (1u << 26)) || !(l1.ecx & (1u << 28)) ||
	    cpuid(0, 0).eax < 0xd)
		return false;
	return (cpuid(0xd, 0).eax & 0x6) == 0x6;
}

/* On every online CPU: CR4.OSXSAVE, then XCR0 |= x87 | SSE | AVX. */
static void avx_enable_cpu(void *arg)
{
	unsigned long cr4;
	uint32_t lo, hi;

	(void)arg;
	__asm__ __volatile__("mov %%cr4, %0" : "=r"(cr4));
	if (!(cr4 & X86_CR4_OSXSAVE))
		__asm__ __volatile__(
			"mov %0, %%cr4" ::"r"(cr4 | X86_CR4_OSXSAVE));
	__asm__ __volatile__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	lo |= XCR0_X87_SSE_AVX;
	__asm__ __volatile__("xsetbv" ::"a"(lo), "d"(hi), "c"(0));
}

/* After avx_enable_cpu(): does this CPU run AVX now? */
static bool avx_enabled(void)
{
	uint32_t lo, hi;

	if (!(cpuid(1, 0).ecx & (1u << 27)))
		return false;
	__asm__ __volatile__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	return (lo & 0x6) == 0x6;
}

static bool have_clzero(void)
{
	return cpuid(0x80000000, 0).eax >= 0x80000008 &&
	       (cpuid(0x80000008, 0).ebx & 1);
}

/**
 * arch_scrub_init() - list the primitives this CPU has (enabling AVX state
 * on every online CPU when it has AVX), and choose the cache maintenance
 * instructions.
 */
void arch_scrub_init(void)
{
	struct cpuid_regs l7 = {0};
	cpumask_t online;

	if (cpuid(0, 0).eax >= 7)
		l7 = cpuid(7, 0);
	scrub_prim_count = 0;
	scrub_prim_cur = 0;
	add_prim("movnti", zero_movnti);
	add_prim("movntdq", zero_movntdq);
	if (avx_possible()) {
		smp_online_mask(&online);
		smp_run_on(&online, avx_enable_cpu, NULL);
		if (avx_enabled())
			add_prim("vmovntdq", zero_vmovntdq);
	}
	if (have_clzero())
		add_prim("clzero", zero_clzero);
	add_prim("rep stosb", zero_rep_stosb);
	pr_info("scrub: this CPU has movnti, movntdq%s%s, rep stosb "
		"(ERMS %s, FSRM %s)\n",
		scrub_prim_count > 3 && scrub_prims[2].fn == zero_vmovntdq
			? ", vmovntdq"
			: "",
		have_clzero() ? ", clzero" : "",
		l7.ebx & (1u << 9) ? "yes" : "no",
		l7.edx & (1u << 4) ? "yes" : "no");
	x86_cache_init();
	pr_info("cache: %u-byte lines; cachemaint=clflush cleans with %s, "
		"cleans+invalidates with %s\n",
		x86_cache.line, flush_insn_name[x86_cache.clean],
		flush_insn_name[x86_cache.inval]);
}

/**
 * arch_scrub_candidates() - the primitives arch_scrub_init() found, the
 * default (movnti) first.
 * @names: out: their names
 * @max: room in @names
 *
 * Return: how many were stored.
 */
unsigned int arch_scrub_candidates(const char **names, unsigned int max)
{
	unsigned int n;

	if (!scrub_prim_count)
		add_prim("movnti", zero_movnti);
	n = MIN(scrub_prim_count, max);
	for (unsigned int i = 0; i < n; i++)
		names[i] = scrub_prims[i].name;
	return n;
}

/**
 * arch_scrub_probe() - zero [va, va+len) with candidate @idx.
 * @idx: index into arch_scrub_candidates() (out of range: the default)
 * @va: page aligned
 * @len: page multiple
 */
void arch_scrub_probe(unsigned int idx, void *va, size_t len)
{
	if (!scrub_prim_count)
		add_prim("movnti", zero_movnti);
	scrub_prims[idx < scrub_prim_count ? idx : 0].fn(va, len);
}

/**
 * arch_scrub_select() - use candidate @idx from now on.
 * @idx: index into arch_scrub_candidates() (out of range: the default)
 */
void arch_scrub_select(unsigned int idx)
{
	scrub_prim_cur = idx < scrub_prim_count ? idx : 0;
}

/**
 * arch_scrub_range() - zero [va, va+len), page aligned, with the primitive
 * arch_scrub_select() chose.
 */
void arch_scrub_range(void *va, size_t len)
{
	arch_scrub_probe(scrub_prim_cur, va, len);
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
 * Return: the selected primitive ("movnti", "rep stosb", ...).
 */
const char *arch_scrub_primitive(void)
{
	return scrub_prim_count ? scrub_prims[scrub_prim_cur].name : "movnti";
}
