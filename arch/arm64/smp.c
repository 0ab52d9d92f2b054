/* SPDX-License-Identifier: MIT */
/*
 * Starting secondary CPUs with PSCI CPU_ON (common/smp/smp.c decides
 * which and waits for them). The new CPU enters head.S secondary_entry at
 * our EL with its MMU off and x0 = its struct arm64_secondary_boot, which
 * sits at the top of its own stack (so nothing here is sized by NR_CPUS);
 * it reads that and arm64_mmu_cfg from memory, so both are cleaned to PoC
 * before the call. It then shares the boot CPU's page tables (read-only
 * from here on), sets TPIDR_ELx to its logical id (arch_cpu_id()) and
 * calls smp_secondary_main().
 *
 * Idle secondaries sleep in WFI until their virtual timer fires (cpu.c,
 * gic.c).
 *
 * Lock: none; a CPU's boot block is written only by the boot CPU before
 * it starts that CPU.
 */
#include <arch/cache.h>
#include <arch/cpu.h>
#include <arch/mm.h>
#include <arch/smp.h>
#include <asm/arm64.h>
#include <keel/compiler.h>
#include <keel/cpumask.h>
#include <keel/errno.h>

/**
 * arch_smp_prepare() - nothing to prepare beyond what setup.c did.
 * Return: 0.
 */
int arch_smp_prepare(const struct arch_smp_params *p)
{
	arch_clean_dcache_range(&arm64_mmu_cfg, sizeof(arm64_mmu_cfg));
	return 0;
}

/**
 * arch_cpu_start() - PSCI CPU_ON for @hwid at secondary_entry.
 * @cpu: logical id.
 * @hwid: MPIDR affinity.
 * @stack_top: the CPU's stack (virtual == physical).
 * Return: 0 or the negative errno of the PSCI error.
 */
int arch_cpu_start(unsigned int cpu, uint64_t hwid, uintptr_t stack_top)
{
	struct arm64_secondary_boot *b;

	if (cpu >= NR_CPUS || stack_top < 64 + sizeof(*b))
		return -EINVAL;
	/* The block in the top cache lines of the stack, the stack below. */
	b = (struct arm64_secondary_boot *)((stack_top - sizeof(*b)) &
					    ~(uintptr_t)63);
	b->stack_top = (uintptr_t)b;
	b->cpu = cpu;
	arch_clean_dcache_range(b, sizeof(*b));
	arch_clean_dcache_range(&arm64_mmu_cfg, sizeof(arm64_mmu_cfg));
	return psci_cpu_on(hwid, virt_to_phys((const void *)secondary_entry),
			   pa_val(virt_to_phys(b)));
}

/**
 * arm64_secondary_start() - C entry of a secondary, MMU on, own stack.
 * @cpu: logical id (already in TPIDR).
 */
void arm64_secondary_start(unsigned int cpu)
{
	write_sysreg(gic_cpu_init() ? 1 : 0, tpidrro_el0);
	smp_secondary_main(cpu);
}

/**
 * arch_cpu_start_commit() - nothing: CPU_ON has started each CPU already.
 */
void arch_cpu_start_commit(void)
{
}

/**
 * arch_cpu_clock_start() - a CPU's check-in clock starts at its CPU_ON.
 * @cpu: unused
 * Return: 0.
 */
uint64_t arch_cpu_clock_start(unsigned int cpu)
{
	(void)cpu;
	return 0;
}
