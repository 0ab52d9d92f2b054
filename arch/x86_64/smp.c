/* SPDX-License-Identifier: MIT */
/*
 * x86_64 secondary CPUs: per-CPU data, INIT-SIPI-SIPI and the CPU
 * topology (the local APIC itself is lapic.c's). common/smp_boot.c decides
 * which CPUs to start (MADT-enabled ones; hot-plug slots are never
 * started), allocates each stack on the CPU's node and waits, bounded, for
 * each to check in.
 *
 * Per-CPU data: MSR_GS_BASE = the CPU's struct x86_percpu, written first
 * thing on every CPU (x86_entry on the boot CPU, x86_ap_entry on the
 * others), so arch_cpu_id() (cpu.c) is one %gs-relative load. The boot
 * CPU's is static; a secondary's sits at the top of its own stack
 * (node-local, from bootmem), so no table is sized by NR_CPUS.
 *
 * Start of one CPU (arch_cpu_start): the trampoline's parameter block gets
 * the CR3 of the boot CPU, the stack, the logical id and the expected APIC
 * ID; then INIT (assert, deassert), 10 ms, STARTUP with vector TRAMP_PA >>
 * 12, and a second STARTUP only when the AP has not marked the trampoline
 * `started` within 1 ms. The AP runs trampoline.S, then x86_ap_entry().
 *
 * Topology: the boot CPU's CPUID leaf 0x1F or 0xB (else leaf 1 + leaf 4 on
 * Intel, 0x80000008/0x8000001E on AMD) gives the APIC ID bit fields of
 * thread and core; x86_topology_fill() applies them to every MADT APIC ID.
 *
 * Lock: none. Everything here runs on the boot CPU before or between CPU
 * starts, except x86_ap_entry(), which touches only its own per-CPU data.
 */
#include <arch/cpu.h>
#include <arch/smp.h>
#include <asm/lapic.h>
#include <asm/x86.h>
#include <keel/acpi.h>
#include <keel/atomic.h>
#include <keel/bootinfo.h>
#include <keel/cpumask.h>
#include <keel/errno.h>
#include <keel/printk.h>
#include <keel/string.h>

#define INIT_DELAY_US	    10000
#define SIPI_WAIT_US	    1000
#define TRAMP_REUSE_WAIT_US 100000

/* Same layout as the parameter block at the end of trampoline.S. */
struct x86_tramp_params {
	uint64_t cr3, stack, entry, apic_va;
	uint32_t cpu, hwid, x2apic, started, taken;
};

_Static_assert(offsetof(struct x86_percpu, cpu) == X86_PERCPU_CPU_OFFSET,
	       "arch_cpu_id() reads %gs:X86_PERCPU_CPU_OFFSET");

extern const char x86_tramp_start[], x86_tramp_params[], x86_tramp_end[];
extern const uint8_t gdt_ptr[];

static struct x86_percpu boot_percpu;

static struct x86_tramp_params *tramp;

/**
 * x86_percpu_init() - point this CPU's GS base at its per-CPU data.
 * @p: the data (NULL: the boot CPU's)
 * @cpu: logical id
 * @apic_id: its APIC ID
 */
void x86_percpu_init(struct x86_percpu *p, unsigned int cpu, uint32_t apic_id)
{
	if (!p)
		p = &boot_percpu;
	p->self = p;
	p->cpu = cpu;
	p->apic_id = apic_id;
	wrmsr(MSR_GS_BASE, (uint64_t)(uintptr_t)p);
}

/**
 * arch_smp_prepare() - local APIC on, trampoline copied to TRAMP_PA.
 * Return: 0, or -ENODEV (acpi=off, no MADT, no usable local APIC): the
 * boot CPU then runs alone.
 */
int arch_smp_prepare(void)
{
	size_t len = (size_t)(x86_tramp_end - x86_tramp_start);
	int err;

	if (x86_acpi_off || !x86_acpi || !(x86_acpi->tables & ACPI_T_MADT))
		return -ENODEV;
	if ((size_t)(x86_tramp_end - x86_tramp_params) !=
		    sizeof(struct x86_tramp_params) ||
	    len > PAGE_SIZE) {
		pr_err("x86_64: trampoline.S and struct x86_tramp_params "
		       "disagree\n");
		return -EINVAL;
	}
	err = lapic_init();
	if (err)
		return err;
	/* Identity mapped; inside the "low 1M" reservation (setup.c). */
	memcpy((void *)(uintptr_t)TRAMP_PA, x86_tramp_start, len);
	tramp = (struct x86_tramp_params *)(uintptr_t)(TRAMP_PA +
						       (x86_tramp_params -
							x86_tramp_start));
	tramp->taken = 1; /* nobody is using it */
	return 0;
}

/**
 * arch_cpu_start() - INIT-SIPI-SIPI @hwid into the trampoline.
 * @cpu: logical id
 * @hwid: APIC ID
 * @stack_top: the CPU's stack (direct-map address)
 * Return: 0 once the STARTUP IPIs were sent; -ENODEV without a local APIC,
 * -EINVAL for an APIC ID xAPIC cannot address, -EIO when the ICR hangs.
 */
int arch_cpu_start(unsigned int cpu, uint64_t hwid, uintptr_t stack_top)
{
	uint64_t hz = tsc_hz ? tsc_hz : 1000000000ULL;
	struct x86_percpu *pc;
	uint64_t end;
	int err;

	if (!tramp)
		return -ENODEV;
	if (cpu >= NR_CPUS || stack_top < sizeof(*pc) ||
	    (!lapic_x2apic() && hwid > 0xfe) || hwid > 0xffffffffULL)
		return -EINVAL;
	/* Its per-CPU data at the top of its stack; the stack below it. */
	pc = (struct x86_percpu *)((stack_top - sizeof(*pc)) &
				   ~(uintptr_t)(_Alignof(struct x86_percpu) -
						1));
	/* A previous CPU that started but has not read its block yet. */
	end = rdtsc() + hz / 1000000 * TRAMP_REUSE_WAIT_US;
	while (atomic_load_acquire(&tramp->started) &&
	       !atomic_load_acquire(&tramp->taken) && rdtsc() < end)
		arch_cpu_relax();

	memset(pc, 0, sizeof(*pc));
	pc->cpu = cpu;
	pc->apic_id = (uint32_t)hwid;
	tramp->cr3 = read_cr3();
	tramp->stack = (uintptr_t)pc;
	tramp->entry = (uint64_t)(uintptr_t)x86_ap_entry;
	tramp->apic_va = (uint64_t)(uintptr_t)lapic_mmio();
	tramp->cpu = cpu;
	tramp->hwid = (uint32_t)hwid;
	tramp->x2apic = lapic_x2apic();
	tramp->taken = 0;
	atomic_store_release(&tramp->started, 0);

	err = lapic_send_ipi((uint32_t)hwid, ICR_INIT | ICR_ASSERT | ICR_LEVEL);
	if (!err && !lapic_x2apic()) /* deassert: not defined for x2APIC */
		err = lapic_send_ipi((uint32_t)hwid, ICR_INIT | ICR_LEVEL);
	if (err)
		goto fail;
	x86_udelay(INIT_DELAY_US);
	for (int sipi = 0; sipi < 2; sipi++) {
		err = lapic_send_ipi((uint32_t)hwid,
				     ICR_STARTUP | (TRAMP_PA >> 12));
		if (err)
			goto fail;
		end = rdtsc() + hz / 1000000 * SIPI_WAIT_US;
		while (!atomic_load_acquire(&tramp->started) && rdtsc() < end)
			arch_cpu_relax();
		if (atomic_load_acquire(&tramp->started))
			break;
	}
	return 0;
fail:
	pr_warn("x86_64: cpu %u (APIC ID %llu): the ICR stays busy\n", cpu,
		(unsigned long long)hwid);
	return err;
}

/**
 * x86_ap_entry() - C entry of a secondary (trampoline.S), own stack.
 * @cpu: logical id
 * @pc: its per-CPU data, right above the stack (arch_cpu_start)
 */
void x86_ap_entry(unsigned int cpu, struct x86_percpu *pc)
{
	x86_percpu_init(pc, cpu, pc->apic_id);
	__asm__ __volatile__("lgdt (%0)" : : "r"(gdt_ptr) : "memory");
	traps_load();
	lapic_enable_local();
	lapic_timer_setup_ap();
	smp_secondary_main(cpu);
}

/* ---- topology ------------------------------------------------------------ */

static unsigned int order_of(uint32_t n)
{
	unsigned int b = 0;

	while (b < 32 && (1ull << b) < n)
		b++;
	return b;
}

/* Leaf 0x1F / 0xB: shifts of the thread field and of the package. */
static bool topo_ext_leaf(uint32_t leaf, unsigned int *smt, unsigned int *pkg)
{
	bool seen = false;

	if (cpuid(0, 0).eax < leaf || !cpuid(leaf, 0).ebx)
		return false;
	*smt = 0;
	for (uint32_t sub = 0; sub < 8; sub++) {
		struct cpuid_regs r = cpuid(leaf, sub);
		unsigned int type = (r.ecx >> 8) & 0xff;

		if (!type)
			break;
		if (type == 1)
			*smt = r.eax & 0x1f;
		*pkg = r.eax & 0x1f;
		seen = true;
	}
	return seen;
}

/* Leaf 1 + 4 (Intel) or 0x80000008 / 0x8000001E (AMD). */
static void topo_legacy(unsigned int *smt, unsigned int *pkg)
{
	struct cpuid_regs v = cpuid(0, 0), l1 = cpuid(1, 0);
	uint32_t ext = cpuid(0x80000000, 0).eax;
	bool amd = v.ebx == 0x68747541; /* "Auth" */

	*smt = *pkg = 0;
	if (!(l1.edx & (1u << 28))) /* no HTT: one CPU per package */
		return;
	*pkg = order_of((l1.ebx >> 16) & 0xff);
	if (!amd && v.eax >= 4) {
		unsigned int cores = ((cpuid(4, 0).eax >> 26) & 0x3f) + 1;

		*smt = *pkg > order_of(cores) ? *pkg - order_of(cores) : 0;
	} else if (amd && ext >= 0x80000008) {
		struct cpuid_regs r = cpuid(0x80000008, 0);
		unsigned int size = (r.ecx >> 12) & 0xf;

		*pkg = size ? size : order_of((r.ecx & 0xff) + 1);
		if (ext >= 0x8000001e &&
		    (cpuid(0x80000001, 0).ecx & (1u << 22)))
			*smt = order_of(
				((cpuid(0x8000001e, 0).ebx >> 8) & 0xff) + 1);
	}
	if (*smt > *pkg)
		*smt = *pkg;
}

/**
 * x86_topology_fill() - package, core and thread of every bootinfo CPU
 * from its APIC ID and the boot CPU's CPUID bit fields.
 * @bi: CPUs added from the MADT (or the boot CPU alone)
 */
void x86_topology_fill(struct bootinfo *bi)
{
	unsigned int smt = 0, pkg = 0;
	const char *how = "leaf 0x1f";

	if (!topo_ext_leaf(0x1f, &smt, &pkg)) {
		how = "leaf 0xb";
		if (!topo_ext_leaf(0xb, &smt, &pkg)) {
			how = "legacy leaves";
			topo_legacy(&smt, &pkg);
		}
	}
	if (pkg < smt || pkg > 31)
		pkg = smt = 0;
	for (unsigned int i = 0; i < bi->cpu_count; i++) {
		struct bi_cpu *c = &bi->cpus[i];
		uint32_t id = (uint32_t)c->hwid;

		c->package = id >> pkg;
		c->core = (id >> smt) & ((1u << (pkg - smt)) - 1);
		c->thread = id & ((1u << smt) - 1);
	}
	pr_info("x86_64: topology from CPUID %s: APIC ID = package << %u | "
		"core << %u | thread\n",
		how, pkg, smt);
}
