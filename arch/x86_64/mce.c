// SPDX-License-Identifier: MIT
/*
 * Machine checks (Intel SDM vol. 3B ch. 16, AMD APM vol. 2 ch. 9): every
 * CPU enables its banks and CR4.MCE (x86_mce_init(), from traps_load()),
 * and #MC (vector 18) comes here from x86_trap() instead of being fatal.
 *
 * x86_mce() reads each bank's MCi_STATUS; a valid memory error (MCA error
 * code: memory controller 0000_0000_1MMM_CCCC or cache hierarchy
 * 0000_0001_RRRR_TTLL, bit 12 the filter flag) whose MCi_ADDR is valid has
 * its page queued as broken (keel/bad_queue.h: no lock is taken here; the
 * heap offlines it and logs one line at the next safe point), and its bank
 * is cleared. When the interrupted context can go on (MCG_STATUS.RIPV,
 * and no bank says PCC or AR/TCC: x86_mce()), MCIP is cleared and the
 * trap returns; otherwise the boot ends with KEEL: FAIL naming why and
 * the address (x86_trap() goes on to its fatal path).
 * An error with no valid address, or not a memory error, is queued with no
 * page (logged at the drain) and cleared; it offlines nothing.
 *
 * Corrected errors (MCi_STATUS.UC clear) raise no #MC: they wait in their
 * bank until software looks. x86_mce_poll() (arch_ras_poll(), run on
 * every CPU at each drain point) queues each one's page as corrected
 * (BAD_QUEUE_MCE_CORRECTED: counted, taken out as soft only at
 * ce_offline= of them, keel/ce_count.h) and clears the bank. A #MC that
 * finds a corrected error beside the uncorrected one treats it the same:
 * one corrected error never makes a page broken. CMCI (MCG_CAP bit 10,
 * an interrupt for corrected errors) is only named: the drain points
 * poll, which is soon enough to count.
 *
 * QEMU's monitor `mce CPU BANK STATUS MCG_STATUS ADDR MISC` raises exactly
 * this (its banks need MCi_CTL all ones, and CR4.MCE, or it triple-faults).
 */
#include <arch/cpu.h>
#include <asm/x86.h>
#include <keel/bad_queue.h>
#include <keel/printk.h>

#define MSR_MCG_CAP	 0x179
#define MSR_MCG_STATUS	 0x17a
#define MSR_MCG_CTL	 0x17b
#define MSR_MC_CTL(i)	 (0x400 + 4 * (i))
#define MSR_MC_STATUS(i) (0x401 + 4 * (i))
#define MSR_MC_ADDR(i)	 (0x402 + 4 * (i))

#define MCG_CAP_COUNT	 0xffu
#define MCG_CAP_CTL_P	 (1ULL << 8)
#define MCG_CAP_CMCI_P	 (1ULL << 10)
#define MCG_STATUS_RIPV	 (1ULL << 0)
#define MCG_STATUS_MCIP	 (1ULL << 2)

#define MCI_STATUS_VAL	 (1ULL << 63)
#define MCI_STATUS_UC	 (1ULL << 61)
#define MCI_STATUS_ADDRV (1ULL << 58)
#define MCI_STATUS_PCC	 (1ULL << 57)
/* Intel: AR (action required, with S); AMD: TCC (task context corrupt). */
#define MCI_STATUS_AR	(1ULL << 55)

#define CPUID_1_EDX_MCE (1u << 7)
#define CPUID_1_EDX_MCA (1u << 14)
#define CR4_MCE		(1ULL << 6)

static bool mca_present(void)
{
	struct cpuid_regs r = cpuid(1, 0);

	return (r.edx & (CPUID_1_EDX_MCE | CPUID_1_EDX_MCA)) ==
	       (CPUID_1_EDX_MCE | CPUID_1_EDX_MCA);
}

static unsigned int bank_count(void)
{
	return mca_present()
		       ? (unsigned int)(rdmsr(MSR_MCG_CAP) & MCG_CAP_COUNT)
		       : 0;
}

/*
 * Intel SDM vol. 3B, "IA32_MCi_CTL MSRs": on P6-family and Core CPUs
 * before DisplayFamily_DisplayModel 06_1AH, IA32_MC0_CTL is aliased to
 * EBL_CR_POWERON and belongs to the platform: software must not modify it
 * (its status is still software's to clear).
 */
static bool bank0_platform(void)
{
	struct x86_cpu_sig s = x86_cpu_sig();

	return s.intel && s.family == 6 && s.model < 0x1a;
}

/**
 * x86_mce_init() - on the calling CPU: every bank reports all errors (but
 * bank 0 where its control is the platform's), its status cleared, and
 * CR4.MCE on. Nothing when the CPU has no MCA.
 */
void x86_mce_init(void)
{
	unsigned int banks = bank_count();
	uint64_t cr4;

	if (!mca_present())
		return;
	if (rdmsr(MSR_MCG_CAP) & MCG_CAP_CTL_P)
		wrmsr(MSR_MCG_CTL, ~0ULL);
	for (unsigned int i = 0; i < banks; i++) {
		if (i || !bank0_platform())
			wrmsr(MSR_MC_CTL(i), ~0ULL);
		wrmsr(MSR_MC_STATUS(i), 0);
	}
	__asm__ __volatile__("mov %%cr4, %0" : "=r"(cr4));
	__asm__ __volatile__("mov %0, %%cr4" : : "r"(cr4 | CR4_MCE));
}

/**
 * x86_mce_describe() - one line: the banks the boot CPU turned on (and
 * CMCI, when the CPU has it: corrected errors are polled all the same).
 */
void x86_mce_describe(void)
{
	unsigned int banks = bank_count();
	struct x86_cpu_sig s = x86_cpu_sig();

	if (!mca_present()) {
		pr_info("x86_64: machine checks: no MCA on this CPU\n");
		return;
	}
	pr_info("x86_64: machine checks: %u banks on%s%s (%s family %#x model "
		"%#x)\n",
		banks,
		bank0_platform() ? ", IA32_MC0_CTL left to the platform" : "",
		rdmsr(MSR_MCG_CAP) & MCG_CAP_CMCI_P
			? ", CMCI present (corrected errors polled)"
			: "",
		s.intel ? "Intel"
		: s.amd ? "AMD"
			: "other",
		s.family, s.model);
}

/* The MCA error code names a memory access (controller or cache). */
static bool memory_error(uint64_t status)
{
	uint16_t code = status & 0xffff;

	return (code & 0xef80) == 0x0080 || (code & 0xef00) == 0x0100;
}

/*
 * A valid bank's error queued: its page when it is a memory error with
 * an address (@addr, ~0 when it gave none), else no page (the drain logs
 * both: nothing prints here, where the interrupted code may hold the
 * console lock); broken when uncorrected, corrected when MCi_STATUS.UC is
 * clear.
 */
static void queue_bank(uint64_t status, uint64_t addr)
{
	bad_queue_push(memory_error(status) ? addr : BAD_QUEUE_NO_ADDR,
		       status & MCI_STATUS_UC ? BAD_QUEUE_MCE
					      : BAD_QUEUE_MCE_CORRECTED,
		       status);
}

/*
 * One bank, in the #MC handler: its error queued, the bank cleared.
 * @status: set to its MCi_STATUS (0: nothing valid).
 * Return: the address of an uncorrected error (the one the #MC is
 * about), ~0 when it gave none or was corrected.
 */
static uint64_t one_bank(unsigned int i, uint64_t *status)
{
	uint64_t st = rdmsr(MSR_MC_STATUS(i)), addr = ~0ULL;

	*status = 0;
	if (!(st & MCI_STATUS_VAL))
		return ~0ULL;
	if (st & MCI_STATUS_ADDRV)
		addr = rdmsr(MSR_MC_ADDR(i));
	queue_bank(st, addr);
	wrmsr(MSR_MC_STATUS(i), 0);
	*status = st;
	return st & MCI_STATUS_UC ? addr : ~0ULL;
}

/**
 * x86_mce_poll() - on the calling CPU: each bank holding a corrected
 * error (VAL set, UC clear) queued and cleared; an uncorrected one is
 * left to the #MC it raises. Any context where a #MC may be taken: a
 * #MC between a bank's read and its clear queues that error twice (one
 * count too many, never a page broken). An error the bank logs between
 * the two is lost, as with any polling of MCA banks.
 * Return: the corrected errors queued.
 */
unsigned int x86_mce_poll(void)
{
	unsigned int banks = bank_count(), found = 0;

	for (unsigned int i = 0; i < banks; i++) {
		uint64_t status = rdmsr(MSR_MC_STATUS(i)), addr = ~0ULL;

		if ((status & (MCI_STATUS_VAL | MCI_STATUS_UC)) !=
		    MCI_STATUS_VAL)
			continue;
		if (status & MCI_STATUS_ADDRV)
			addr = rdmsr(MSR_MC_ADDR(i));
		queue_bank(status, addr);
		wrmsr(MSR_MC_STATUS(i), 0);
		found++;
	}
	return found;
}

/**
 * x86_mce() - handle a #MC: every bank read, logged and cleared, failed
 * memory pages queued (corrected ones as corrected).
 * @addr: set to the last address an uncorrected bank gave (~0 when none).
 *
 * Who may go on (Intel SDM vol. 3B 16.6, AMD APM vol. 2 9.3): an
 * uncorrected bank with PCC says the processor's own context is corrupt:
 * nothing on this CPU may; one with bit 55 (Intel AR, action required,
 * the interrupted instruction consumed the error; AMD TCC, the task's
 * context is corrupt) says the interrupted context may not, even with
 * RIPV (it would run the consuming instruction again), though the CPU
 * may; without RIPV the interrupted context may not either.
 * Return: X86_MCE_GO_ON (MCIP then cleared), else why the interrupted
 * context may not go on (MCIP left set).
 */
enum x86_mce_verdict x86_mce(uint64_t *addr)
{
	unsigned int banks = bank_count();
	uint64_t mcg = mca_present() ? rdmsr(MSR_MCG_STATUS) : 0, uc = 0;

	*addr = ~0ULL;
	for (unsigned int i = 0; i < banks; i++) {
		uint64_t st, a = one_bank(i, &st);

		if (a != ~0ULL)
			*addr = a;
		if (st & MCI_STATUS_UC)
			uc |= st;
	}
	if (uc & MCI_STATUS_PCC)
		return X86_MCE_CORRUPT;
	if (!(mcg & MCG_STATUS_RIPV))
		return X86_MCE_NO_RIPV;
	if (uc & MCI_STATUS_AR)
		return X86_MCE_ACTION_REQUIRED;
	wrmsr(MSR_MCG_STATUS, 0);
	return X86_MCE_GO_ON;
}

/** x86_mce_why() - Return: @v in the words of the FAIL line. */
const char *x86_mce_why(enum x86_mce_verdict v)
{
	return v == X86_MCE_CORRUPT	      ? "processor context corrupt, PCC"
	       : v == X86_MCE_NO_RIPV	      ? "no RIPV"
	       : v == X86_MCE_ACTION_REQUIRED ? "action required, AR/TCC"
					      : "it can";
}

/**
 * x86_mce_in_progress() - Return: MCG_STATUS.MCIP: a machine check was
 * signalled on this CPU and x86_mce() has not ended it (one taken while a
 * guest ran, guest.c).
 */
bool x86_mce_in_progress(void)
{
	return mca_present() && (rdmsr(MSR_MCG_STATUS) & MCG_STATUS_MCIP);
}

/**
 * x86_mce_end() - MCIP cleared after x86_mce() found that the interrupted
 * context may not go on, in a context keel gives up (a guest's): the host
 * goes on, and the next machine check is taken instead of shutting the
 * CPU down.
 */
void x86_mce_end(void)
{
	wrmsr(MSR_MCG_STATUS, 0);
}
