/* SPDX-License-Identifier: MIT */
/*
 * Unexpected exceptions. keel runs with DAIF masked and takes no
 * exceptions by design, so any vector entry is a bug: print the syndrome
 * (ESR, FAR, ELR, SPSR of our EL), the registers and a short frame-pointer
 * backtrace, then stop as a failed boot. A fault while printing (bad frame
 * pointer) re-enters here; the second entry stops at once.
 */
#include <arch/console.h>
#include <arch/cpu.h>
#include <asm/arm64.h>
#include <keel/printk.h>

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

static bool fp_plausible(uint64_t fp, uint64_t sp)
{
	/* Frame records are 16-byte aligned and live above the trap's sp. */
	return fp && !(fp & 0xf) && fp >= sp && fp - sp < (1ULL << 24);
}

/**
 * arm64_trap() - report an unexpected exception and stop.
 * @regs: the registers saved by the vector.
 * @kind: vector index 0..15.
 */
void arm64_trap(struct arm64_regs *regs, unsigned long kind)
{
	uint64_t esr, far, elr, spsr, fp;

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
	pr_err("exception: %s at EL%d on CPU %u\n", kind_names[kind & 15],
	       arm64_el, arch_cpu_id());
	pr_err("  ESR %#018llx (EC %#llx) FAR %#018llx\n",
	       (unsigned long long)esr, (unsigned long long)(esr >> 26),
	       (unsigned long long)far);
	pr_err("  ELR %#018llx SPSR %#018llx SP %#018llx\n",
	       (unsigned long long)elr, (unsigned long long)spsr,
	       (unsigned long long)regs->sp);
	for (unsigned int i = 0; i < 31; i += 2) {
		if (i == 30)
			pr_err("  x30 %016llx\n",
			       (unsigned long long)regs->x[30]);
		else
			pr_err("  x%-2u %016llx x%-2u %016llx\n", i,
			       (unsigned long long)regs->x[i], i + 1,
			       (unsigned long long)regs->x[i + 1]);
	}
	pr_err("  backtrace: %#llx (elr), %#llx (lr)\n",
	       (unsigned long long)elr, (unsigned long long)regs->x[30]);
	fp = regs->x[29];
	for (unsigned int d = 0;
	     d < BACKTRACE_DEPTH && fp_plausible(fp, regs->sp); d++) {
		const uint64_t *rec = (const uint64_t *)(uintptr_t)fp;

		if (!rec[1])
			break;
		pr_err("    %#llx\n", (unsigned long long)rec[1]);
		if (rec[0] <= fp)
			break;
		fp = rec[0];
	}
	panic("unexpected exception %s, ESR %#llx, ELR %#llx",
	      kind_names[kind & 15], (unsigned long long)esr,
	      (unsigned long long)elr);
}
