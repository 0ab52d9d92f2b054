/* SPDX-License-Identifier: MIT */
/*
 * Starting secondary CPUs with PSCI CPU_ON (common/smp.c decides which and
 * waits for them). The new CPU enters head.S secondary_entry at our EL with
 * its MMU off and x0 = &boot_args[cpu]; it reads that and arm64_mmu_cfg
 * from memory, so both are cleaned to PoC before the call. It then shares
 * the boot CPU's page tables (read-only from here on), sets TPIDR_ELx to
 * its logical id (arch_cpu_id()) and calls smp_secondary_main().
 *
 * Lock: none; boot_args[cpu] is written only by the boot CPU before it
 * starts @cpu.
 */
#include <arch/cache.h>
#include <arch/cpu.h>
#include <arch/mm.h>
#include <arch/smp.h>
#include <asm/arm64.h>
#include <keel/compiler.h>
#include <keel/cpumask.h>
#include <keel/errno.h>

static struct arm64_secondary_boot boot_args[NR_CPUS] __aligned(64);

/**
 * arch_cpu_id() - logical id of this CPU, kept in TPIDR_EL2/TPIDR_EL1.
 * Return: 0 for the boot CPU.
 */
unsigned int arch_cpu_id(void)
{
	if (arm64_el == 2)
		return (unsigned int)read_sysreg(tpidr_el2);
	return (unsigned int)read_sysreg(tpidr_el1);
}

/**
 * arch_cpu_relax() - spin-wait hint.
 */
void arch_cpu_relax(void)
{
	__asm__ __volatile__("yield" ::: "memory");
}

/**
 * arch_smp_prepare() - nothing to prepare beyond what setup.c did.
 * Return: 0.
 */
int arch_smp_prepare(void)
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

	if (cpu >= NR_CPUS || !stack_top)
		return -EINVAL;
	b = &boot_args[cpu];
	b->stack_top = stack_top;
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
	smp_secondary_main(cpu);
}
