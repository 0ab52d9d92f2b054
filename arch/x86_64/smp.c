/* SPDX-License-Identifier: MIT */
/*
 * x86_64 secondary CPUs: per-CPU data, INIT-SIPI-SIPI and the CPU
 * topology (the local APIC itself is lapic.c's). common/smp/smp_boot.c
 * decides which CPUs to start (MADT-enabled ones; hot-plug slots are never
 * started), allocates each stack on the CPU's node and waits, bounded, for
 * each to check in.
 *
 * Per-CPU data: MSR_GS_BASE = the CPU's struct x86_percpu, written first
 * thing on every CPU (x86_entry on the boot CPU, x86_ap_entry on the
 * others), so arch_cpu_id() (cpu.c) is one %gs-relative load. The boot
 * CPU's is static; a secondary's sits at the top of its own stack
 * (node-local, from bootmem), so no table is sized by NR_CPUS.
 *
 * Starts, any number at once: arch_smp_prepare() writes the trampoline's
 * parameter block once (CR3, entry, the AP table). arch_cpu_start() fills
 * the CPU's per-CPU block and its slot of the AP table (APIC ID, logical
 * id, per-CPU block), publishes the slot, then sends INIT (assert,
 * deassert). arch_cpu_start_commit() waits the INIT delay once for all of
 * them (pick_init_delay(): none on the CPU families that need none, as
 * Linux does; init_delay_us= overrides), sends one STARTUP (vector
 * TRAMP_PA >> 12) to each, and after 1 ms a second one only to the CPUs
 * that have not marked their slot started. Each AP runs trampoline.S,
 * finds its slot by its own APIC ID, then runs x86_ap_entry().
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
#include <keel/smp.h>
#include <keel/string.h>

#define INIT_DELAY_US 10000 /* the MP spec's, for CPUs that need it */
#define SIPI_WAIT_US  1000

/* Same layout as the parameter block at the end of trampoline.S. */
struct x86_tramp_params {
	uint64_t cr3, entry, apic_va, table;
	uint32_t count, x2apic;
};

/* One AP of the table trampoline.S searches by APIC ID (X86_AP_SLOT_*). */
struct x86_ap_slot {
	uint32_t hwid;
	uint32_t cpu;
	uint64_t percpu;  /* its struct x86_percpu, the stack right below */
	uint32_t started; /* written by the AP once it found its slot */
	uint32_t pad;
};

_Static_assert(sizeof(struct x86_ap_slot) == X86_AP_SLOT_SIZE &&
		       offsetof(struct x86_ap_slot, cpu) == X86_AP_SLOT_CPU &&
		       offsetof(struct x86_ap_slot, percpu) ==
			       X86_AP_SLOT_PERCPU &&
		       offsetof(struct x86_ap_slot, started) ==
			       X86_AP_SLOT_STARTED,
	       "trampoline.S reads struct x86_ap_slot by X86_AP_SLOT_*");
_Static_assert(offsetof(struct x86_percpu, cpu) == X86_PERCPU_CPU_OFFSET,
	       "arch_cpu_id() reads %gs:X86_PERCPU_CPU_OFFSET");

extern const char x86_tramp_start[], x86_tramp_params[], x86_tramp_end[];
extern const uint8_t gdt_ptr[];

static struct x86_percpu boot_percpu;

static struct x86_tramp_params *tramp;
/* Why the trampoline page may not be written (x86_tramp_check()); NULL: it may. */
static const char *tramp_claim;
/* cpu_count slots from bootmem; [committed, used) await their STARTUP. */
static struct x86_ap_slot *slots;
static unsigned int slots_used, slots_committed;
static uint32_t init_delay;

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

/* CPUs that need no INIT delay: Intel family 6 and later, AMD 0xF and later. */
static bool init_delay_needed(void)
{
	struct x86_cpu_sig s = x86_cpu_sig();

	if (s.intel)
		return s.family < 6;
	if (s.amd)
		return s.family < 0xf;
	return true;
}

/*
 * The INIT-to-STARTUP delay: init_delay_us= when given; else the 10 ms of
 * the MP spec for smp_start=serial (today's start, the baseline) and for
 * CPUs the family rule does not clear; else none.
 */
static uint32_t pick_init_delay(const struct arch_smp_params *p)
{
	const char *why = "init_delay_us=";
	uint32_t us = INIT_DELAY_US;

	if (p->init_delay_us != INIT_DELAY_AUTO)
		us = (uint32_t)p->init_delay_us;
	else if (p->serial)
		why = "smp_start=serial";
	else if (init_delay_needed())
		why = "CPU family before Intel 6 / AMD 0xf, or another vendor";
	else
		us = 0, why = "Intel family 6+ / AMD 0xf+ need none";
	pr_info("x86_64: INIT delay %u us (%s)\n", us, why);
	return us;
}

void x86_tramp_check(const struct bootinfo *bi)
{
	uint64_t skip;

	tramp_claim = "no RAM in the firmware's map";
	for (unsigned int i = 0; i < bi->ram.count; i++)
		if (pa_val(bi->ram.regions[i].start) <= TRAMP_PA &&
		    TRAMP_PA + PAGE_SIZE <= pa_val(bi->ram.regions[i].end))
			tramp_claim = bootinfo_claim(bi, TRAMP_PA,
						     TRAMP_PA + PAGE_SIZE,
						     X86_LOW_1M_NAME, &skip);
}

/**
 * arch_smp_prepare() - local APIC on (on every boot path), trampoline
 * copied to TRAMP_PA, the AP table allocated, the INIT delay chosen.
 * Return: 0, or -ENODEV (acpi=off, no MADT, no usable local APIC): the
 * boot CPU then runs alone.
 */
int arch_smp_prepare(const struct arch_smp_params *p)
{
	size_t len = (size_t)(x86_tramp_end - x86_tramp_start);
	int err;

	/*
	 * The boot CPU's local APIC first, on every boot path: without a
	 * MADT (acpi=off, no RSDP) the boot CPU runs alone, but its timer
	 * still ends idle waits and guests' slices, and a live update's
	 * freeze turns it off (arch/x86_64/liveupdate.c).
	 */
	err = lapic_init();
	if (err)
		return err;
	lapic_timer_setup_ap(); /* the boot CPU halts in smp_wait() too */
	if (!x86_acpi || !(x86_acpi->tables & ACPI_T_MADT))
		return -ENODEV;
	/* A page of the firmware's, or a bad one: never written. */
	if (tramp_claim) {
		pr_warn("x86_64: the SMP trampoline page [%#x, %#x) holds %s: "
			"no secondary CPU is started, the boot CPU runs "
			"alone\n",
			TRAMP_PA, (unsigned int)(TRAMP_PA + PAGE_SIZE),
			tramp_claim);
		return -ENODEV;
	}
	if ((size_t)(x86_tramp_end - x86_tramp_params) !=
		    sizeof(struct x86_tramp_params) ||
	    len > PAGE_SIZE) {
		pr_err("x86_64: trampoline.S and struct x86_tramp_params "
		       "disagree\n");
		return -EINVAL;
	}
	slots = smp_percpu_alloc(sizeof(*slots), "x86 AP table");
	slots_used = slots_committed = 0;
	init_delay = pick_init_delay(p);
	/* Identity mapped; inside the "low 1M" reservation (setup.c). */
	memcpy((void *)(uintptr_t)TRAMP_PA, x86_tramp_start, len);
	tramp = (struct x86_tramp_params *)(uintptr_t)(TRAMP_PA +
						       (x86_tramp_params -
							x86_tramp_start));
	tramp->cr3 = read_cr3();
	tramp->entry = (uint64_t)(uintptr_t)x86_ap_entry;
	tramp->apic_va = (uint64_t)(uintptr_t)lapic_mmio();
	tramp->table = (uint64_t)(uintptr_t)slots;
	tramp->x2apic = lapic_x2apic();
	atomic_store_release(&tramp->count, 0);
	return 0;
}

/**
 * arch_cpu_start() - a slot for @hwid in the AP table, then INIT to it;
 * the STARTUP waits for arch_cpu_start_commit().
 * @cpu: logical id
 * @hwid: APIC ID
 * @stack_top: the CPU's stack (direct-map address)
 * Return: 0 once INIT was sent; -ENODEV without a local APIC, -EINVAL for
 * an APIC ID xAPIC cannot address, -EIO when the ICR hangs.
 */
int arch_cpu_start(unsigned int cpu, uint64_t hwid, uintptr_t stack_top)
{
	struct x86_percpu *pc;
	struct x86_ap_slot *s;
	int err;

	if (!tramp)
		return -ENODEV;
	if (cpu >= NR_CPUS || slots_used >= cpu_count ||
	    stack_top < sizeof(*pc) || (!lapic_x2apic() && hwid > 0xfe) ||
	    hwid > 0xffffffffULL)
		return -EINVAL;
	/* Its per-CPU data at the top of its stack; the stack below it. */
	pc = (struct x86_percpu *)((stack_top - sizeof(*pc)) &
				   ~(uintptr_t)(_Alignof(struct x86_percpu) -
						1));
	memset(pc, 0, sizeof(*pc));
	pc->cpu = cpu;
	pc->apic_id = (uint32_t)hwid;
	s = &slots[slots_used];
	s->hwid = (uint32_t)hwid;
	s->cpu = cpu;
	s->percpu = (uint64_t)(uintptr_t)pc;
	s->started = 0;
	/* The slot is in the table before the CPU can look for it. */
	atomic_store_release(&tramp->count, ++slots_used);

	err = lapic_send_ipi((uint32_t)hwid, ICR_INIT | ICR_ASSERT | ICR_LEVEL);
	if (!err && !lapic_x2apic()) /* deassert: not defined for x2APIC */
		err = lapic_send_ipi((uint32_t)hwid, ICR_INIT | ICR_LEVEL);
	if (err) {
		pr_warn("x86_64: cpu %u (APIC ID %llu): the ICR stays busy\n",
			cpu, (unsigned long long)hwid);
		s->hwid = UINT32_MAX; /* no AP takes it */
	}
	return err;
}

/* STARTUP to the slots of [@from, slots_used) not started yet. */
static void send_startup(unsigned int from)
{
	for (unsigned int i = from; i < slots_used; i++) {
		struct x86_ap_slot *s = &slots[i];

		if (s->hwid == UINT32_MAX || atomic_load_acquire(&s->started))
			continue;
		if (lapic_send_ipi(s->hwid, ICR_STARTUP | (TRAMP_PA >> 12)))
			pr_warn("x86_64: cpu %u (APIC ID %u): the ICR stays "
				"busy\n",
				s->cpu, s->hwid);
	}
}

/* Have all the slots of [@from, slots_used) started? */
static bool all_started(unsigned int from)
{
	for (unsigned int i = from; i < slots_used; i++)
		if (slots[i].hwid != UINT32_MAX &&
		    !atomic_load_acquire(&slots[i].started))
			return false;
	return true;
}

/**
 * arch_cpu_start_commit() - the INIT delay once for all CPUs INIT was
 * sent to since the last commit, one STARTUP to each, and after 1 ms a
 * second STARTUP only to those that have not found their slot yet.
 */
void arch_cpu_start_commit(void)
{
	unsigned int from = slots_committed;
	uint64_t end;

	if (from == slots_used)
		return;
	slots_committed = slots_used;
	x86_udelay(init_delay);
	send_startup(from);
	end = rdtsc() +
	      (tsc_hz ? tsc_hz : 1000000000ULL) / 1000000 * SIPI_WAIT_US;
	while (!all_started(from) && rdtsc() < end)
		arch_cpu_relax();
	send_startup(from);
}

/**
 * arch_cpu_clock_start() - a CPU's check-in clock starts at its STARTUP.
 * @cpu: unused
 * Return: 0.
 */
uint64_t arch_cpu_clock_start(unsigned int cpu)
{
	(void)cpu;
	return 0;
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
