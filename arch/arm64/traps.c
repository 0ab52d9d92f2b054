/* SPDX-License-Identifier: MIT */
/*
 * Exceptions. keel runs with DAIF masked and expects no exception, so a
 * vector entry is either a memory error or a bug, and both stop the boot.
 *
 * A memory error (arm64_ras_decode(), ras.c: a synchronous external abort
 * or parity/ECC error on a load, store or fetch, or an SError) has its
 * page queued as broken on the bad queue (keel/bad_queue.h, source MCE,
 * info the ESR; BAD_QUEUE_NO_ADDR when the syndrome names no page), then
 * the syndrome is printed and the boot ends with one line
 * "KEEL: FAIL <what> (memory error) at <address | no address>": keel's
 * own access cannot be retried (x86's #MC without RIPV does the same).
 * Anything else is a bug: the syndrome (ESR, FAR, ELR, SPSR of our EL),
 * the registers and a short frame-pointer backtrace, then panic().
 *
 * Printing takes no lock: each line is formatted on the stack and written
 * with arch_console_write() (as printk does, less its console lock), so
 * an exception taken while this CPU holds the console lock, or the heap's,
 * cannot deadlock here; a line may interleave with another CPU's. A fault
 * while printing (bad frame pointer) re-enters here; the second entry
 * stops at once.
 */
#include <arch/console.h>
#include <arch/cpu.h>
#include <asm/arm64.h>
#include <asm/ras.h>
#include <keel/bad_queue.h>
#include <keel/printk.h>
#include <keel/string.h>

struct arm64_regs {
	uint64_t x[31];
	uint64_t sp;
};

#define BACKTRACE_DEPTH 12

static const char *const kind_names[16] = {
	"Sync EL0t",	"IRQ EL0t",    "FIQ EL0t",    "SError EL0t",
	"Sync",		"IRQ",	       "FIQ",	      "SError",
	"Sync lower64", "IRQ lower64", "FIQ lower64", "SError lower64",
	"Sync lower32", "IRQ lower32", "FIQ lower32", "SError lower32",
};

static volatile int trap_depth;

/*
 * A memory error: its page queued (no lock taken, no allocation), the
 * syndrome said, the boot stopped as failed.
 */
static __noreturn void memory_error(const struct arm64_mem_error *me,
				    uint64_t esr, uint64_t elr)
{
	char at[24];

	bad_queue_push(me->pa, BAD_QUEUE_MCE, esr);
	console_printf_nolock(
		"keel: error: memory error on CPU %u at EL%d: %s, ESR "
		"%#llx, ELR %#llx\n",
		arch_cpu_id(), arm64_el, me->detail, (unsigned long long)esr,
		(unsigned long long)elr);
	if (me->pa == BAD_QUEUE_NO_ADDR)
		snprintf(at, sizeof(at), "no address");
	else
		snprintf(at, sizeof(at), "%#llx", (unsigned long long)me->pa);
	console_printf_nolock("KEEL: FAIL %s (memory error) at %s\n", me->what,
			      at);
	arch_panic(me->what);
}

static bool fp_plausible(uint64_t fp, uint64_t sp)
{
	/* Frame records are 16-byte aligned and live above the trap's sp. */
	return fp && !(fp & 0xf) && fp >= sp && fp - sp < (1ULL << 24);
}

/* The frame-pointer chain from @regs, only through plausible frames. */
static void backtrace(const struct arm64_regs *regs, uint64_t elr)
{
	uint64_t fp = regs->x[29];

	console_printf_nolock(
		"keel: error:   backtrace: %#llx (elr), %#llx (lr)\n",
		(unsigned long long)elr, (unsigned long long)regs->x[30]);
	for (unsigned int d = 0;
	     d < BACKTRACE_DEPTH && fp_plausible(fp, regs->sp); d++) {
		const uint64_t *rec = (const uint64_t *)(uintptr_t)fp;

		if (!rec[1])
			break;
		console_printf_nolock("keel: error:     %#llx\n",
				      (unsigned long long)rec[1]);
		if (rec[0] <= fp)
			break;
		fp = rec[0];
	}
}

/**
 * arm64_trap() - report an unexpected exception and stop.
 * @regs: the registers saved by the vector.
 * @kind: vector index 0..15.
 */
void arm64_trap(struct arm64_regs *regs, unsigned long kind)
{
	struct arm64_mem_error me;
	uint64_t esr, far, elr, spsr;

	if (trap_depth++) {
		static const char msg[] = "keel: nested exception, stopping\n";

		arch_console_write(msg, sizeof(msg) - 1);
		for (;;)
			__asm__ __volatile__("wfi");
	}
	if (arm64_el == 2) {
		esr = read_sysreg(esr_el2);
		far = read_sysreg(far_el2);
		elr = read_sysreg(elr_el2);
		spsr = read_sysreg(spsr_el2);
	} else {
		esr = read_sysreg(esr_el1);
		far = read_sysreg(far_el1);
		elr = read_sysreg(elr_el1);
		spsr = read_sysreg(spsr_el1);
	}
	if (arm64_ras_decode(esr, far, &me))
		memory_error(&me, esr, elr);
	console_printf_nolock("keel: error: exception: %s at EL%d on CPU %u\n",
			      kind_names[kind & 15], arm64_el, arch_cpu_id());
	console_printf_nolock(
		"keel: error:   ESR %#018llx (EC %#llx) FAR %#018llx\n",
		(unsigned long long)esr, (unsigned long long)(esr >> 26),
		(unsigned long long)far);
	console_printf_nolock(
		"keel: error:   ELR %#018llx SPSR %#018llx SP %#018llx\n",
		(unsigned long long)elr, (unsigned long long)spsr,
		(unsigned long long)regs->sp);
	for (unsigned int i = 0; i < 31; i += 2) {
		if (i == 30)
			console_printf_nolock("keel: error:   x30 %016llx\n",
					      (unsigned long long)regs->x[30]);
		else
			console_printf_nolock(
				"keel: error:   x%-2u %016llx x%-2u %016llx\n",
				i, (unsigned long long)regs->x[i], i + 1,
				(unsigned long long)regs->x[i + 1]);
	}
	backtrace(regs, elr);
	panic("unexpected exception %s, ESR %#llx, ELR %#llx",
	      kind_names[kind & 15], (unsigned long long)esr,
	      (unsigned long long)elr);
}
