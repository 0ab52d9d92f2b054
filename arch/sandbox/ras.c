// SPDX-License-Identifier: MIT
/*
 * Memory errors in the sandbox (include/arch/ras.h). No read of a Linux
 * process raises one: inject=sea is warned, nothing done; inject=poison
 * stands in for a machine check.
 *
 * Corrected errors: each CPU has SANDBOX_CE_BANKS simulated banks, as an
 * x86 CPU has machine-check banks; inject=ce logs one in a free bank of
 * the calling CPU (arch_ras_log_corrected(), the boot CPU once the heap is
 * open), and that CPU's arch_ras_poll() queues it as corrected and
 * clears the bank, as x86_64's poll does (arch/x86_64/mce.c). A bank is
 * published and cleared by atomic operations: CPUs poll at once.
 */
#include <arch/cpu.h>
#include <arch/ras.h>
#include <keel/atomic.h>
#include <keel/bad_queue.h>
#include <keel/errno.h>

#define SANDBOX_CE_BANKS 10 /* QEMU's x86 CPUs have 10 */

struct ce_bank {
	uint64_t addr1; /* the error's address + 1; 0: the bank is empty */
	unsigned int cpu;
};

static struct ce_bank banks[SANDBOX_CE_BANKS];

int arch_ras_raise_sea(uint64_t *pa)
{
	*pa = ~0ULL;
	return -EOPNOTSUPP;
}

/*
 * inject=ce: a free bank, tagged with this CPU (one logger: the boot CPU
 * at a safe point; a poll empties a bank only after reading its tag).
 */
int arch_ras_log_corrected(uint64_t pa)
{
	for (unsigned int i = 0; i < SANDBOX_CE_BANKS; i++) {
		uint64_t empty = 0;

		if (atomic_load_acquire(&banks[i].addr1))
			continue;
		banks[i].cpu = arch_cpu_id();
		if (atomic_cmpxchg(&banks[i].addr1, &empty, pa + 1))
			return 0;
	}
	return -ENOSPC;
}

/* This CPU's logged corrected errors queued, their banks cleared. */
void arch_ras_poll(void)
{
	unsigned int self = arch_cpu_id();

	for (unsigned int i = 0; i < SANDBOX_CE_BANKS; i++) {
		uint64_t a = atomic_load_acquire(&banks[i].addr1);

		if (!a || banks[i].cpu != self ||
		    !atomic_cmpxchg(&banks[i].addr1, &a, 0))
			continue;
		/* MCi_STATUS of a corrected memory read error, for the log. */
		bad_queue_push(a - 1, BAD_QUEUE_MCE_CORRECTED,
			       0x9c0000000000009fULL);
	}
}
