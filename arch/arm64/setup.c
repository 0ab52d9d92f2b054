/* SPDX-License-Identifier: MIT */
/*
 * arm64 C entry (from head.S, MMU off, on the boot stack): console, MMU,
 * DT, reservations, timer, then keel_main().
 *
 * Order matters: the DT is only parsed once the MMU maps RAM as Normal
 * memory (libfdt does unaligned and exclusive-free byte accesses that
 * Device memory would fault or slow down), and the full RAM map is built
 * from the DT afterwards in one batch with one TLB invalidate.
 */
#include <arch/cpu.h>
#include <arch/mm.h>
#include <asm/arm64.h>
#include <keel/boot.h>
#include <keel/bootinfo.h>
#include <keel/compiler.h>
#include <keel/errno.h>
#include <keel/fdt.h>
#include <keel/options.h>
#include <keel/printk.h>
#include <keel/string.h>

#define DTB_MAX_SIZE (2u << 20) /* booting.rst: the DTB is at most 2 MiB */
#define FDT_MAGIC_BE 0xd00dfeedu

const char arch_name[] = "arm64";
int arm64_el;

static struct bootinfo boot_info;
static struct dt_arch_info dt_info;

/* Stack protector for Debian's libfdt.a (built with -fstack-protector). */
uintptr_t __stack_chk_guard = 0x4b45454c2d534b47ULL;
__noreturn void __stack_chk_fail(void);

/**
 * __stack_chk_fail() - a libfdt stack canary was overwritten.
 */
void __stack_chk_fail(void)
{
	panic("stack protector: stack corrupted in libfdt");
}

static uint32_t be32(const void *p)
{
	const uint8_t *b = p;

	return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 |
	       (uint32_t)b[2] << 8 | b[3];
}

/*
 * The DT cpu reg holds only the affinity fields; whether Aff0 counts
 * threads (MPIDR.MT) is known from our own MPIDR. Assume a homogeneous
 * system and redo the topology with it.
 */
static void apply_mt_bit(struct bootinfo *bi)
{
	if (!(read_sysreg(mpidr_el1) & MPIDR_MT))
		return;
	for (unsigned int i = 0; i < bi->cpu_count; i++) {
		struct bi_cpu *c = &bi->cpus[i];

		dt_mpidr_topology(c->hwid | MPIDR_MT, &c->package, &c->core,
				  &c->thread);
	}
}

static void mark_boot_cpu(struct bootinfo *bi)
{
	uint64_t me = read_sysreg(mpidr_el1) & MPIDR_HWID_MASK;

	for (unsigned int i = 0; i < bi->cpu_count; i++) {
		if ((bi->cpus[i].hwid & MPIDR_HWID_MASK) == me) {
			bi->cpus[i].boot_cpu = true;
			bi->cpus[i].usable = true;
			return;
		}
	}
	/* Not in the DT (or no DT): describe ourselves so the boot goes on. */
	{
		uint32_t pkg, core, thread;

		pr_warn("dt: boot CPU MPIDR %#llx not in /cpus, adding it\n",
			(unsigned long long)me);
		dt_mpidr_topology(me, &pkg, &core, &thread);
		if (!bootinfo_add_cpu(bi, me, NUMA_NO_NODE, pkg, core, thread,
				      true))
			bi->cpus[bi->cpu_count - 1].boot_cpu = true;
	}
}

/**
 * arm64_start() - the boot CPU's C entry.
 * @dtb: physical address of the DTB (x0 at entry).
 * @entry_ticks: CNTVCT_EL0 read first thing in head.S.
 * @el: the exception level we run at (1 or 2).
 */
void arm64_start(uint64_t dtb, uint64_t entry_ticks, uint64_t el)
{
	struct bootinfo *bi = &boot_info;
	paddr_t image_start = virt_to_phys(_head_start);
	paddr_t image_end = virt_to_phys(_end);
	size_t dt_len = 0;
	int err;

	arch_entry_ticks = entry_ticks;
	arm64_el = (int)el;
	if (el == 2)
		write_sysreg(0, tpidr_el2);
	else
		write_sysreg(0, tpidr_el1);

	mm_early_init(image_start, image_end, pa(dtb));
	pr_info("arm64: entered at EL%d, image [%#llx, %#llx), DTB at %#llx\n",
		arm64_el, (unsigned long long)pa_val(image_start),
		(unsigned long long)pa_val(image_end), (unsigned long long)dtb);

	bootinfo_init(bi, BOOT_DT);
	err = -EINVAL;
	if (dtb && IS_ALIGNED(dtb, 8) &&
	    be32((const void *)(uintptr_t)dtb) == FDT_MAGIC_BE) {
		dt_len = be32((const uint8_t *)(uintptr_t)dtb + 4);
		if (dt_len > DTB_MAX_SIZE) {
			pr_warn("dt: totalsize %zu exceeds the 2 MiB boot "
				"protocol limit, reading only 2 MiB\n",
				dt_len);
			dt_len = DTB_MAX_SIZE;
		}
		err = dt_parse((const void *)(uintptr_t)dtb, dt_len, pa(dtb),
			       bi, &dt_info);
	} else {
		pr_warn("dt: no device tree at x0 = %#llx (bad address or "
			"magic)\n",
			(unsigned long long)dtb);
	}
	if (err || !bi->ram_count)
		panic("arm64: no usable device tree memory map (DTB at %#llx)",
		      (unsigned long long)dtb);

	/* All RAM, and the DT's console, in one batch. */
	for (unsigned int i = 0; i < bi->ram_count; i++)
		mm_map_normal(bi->ram[i].start, bi->ram[i].end);
	if (dt_info.uart_is_pl011 && pa_val(dt_info.uart_base) &&
	    pa_val(dt_info.uart_base) != pa_val(pl011_base()))
		mm_map_device(dt_info.uart_base, PAGE_SIZE);
	mm_commit();
	if (dt_info.uart_is_pl011 && pa_val(dt_info.uart_base)) {
		pl011_set_base(dt_info.uart_base);
	} else if (dt_info.uart_path[0]) {
		pr_warn("dt: stdout-path \"%s\" is not a PL011, keeping "
			"%#llx\n",
			dt_info.uart_path,
			(unsigned long long)pa_val(pl011_base()));
	}

	bootinfo_add_reserved(bi, image_start, virt_to_phys(__pgtables_start),
			      "kernel");
	bootinfo_add_reserved(bi, virt_to_phys(__pgtables_start),
			      virt_to_phys(__pgtables_end), "page tables");
	mark_boot_cpu(bi);
	apply_mt_bit(bi);

	timer_init(dt_info.timer_freq);
	psci_init(&dt_info);
	bi->el = arm64_el;
	bi->paddr_bits = mm_pa_bits() > 48 ? 48 : mm_pa_bits();
	bi->timer_source = "cntvct";
	bi->timer_calibrated_by = dt_info.timer_freq ? "dt" : "cntfrq";
	bi->timer_hz = arch_ticks_hz();

	keel_main(bi);
}

/**
 * arch_stop() - end the boot: PSCI SYSTEM_OFF for poweroff/exit (QEMU then
 * exits 0; PASS/FAIL is in the log), SYSTEM_RESET for reset, else halt;
 * the default is poweroff on QEMU virt and halt elsewhere.
 * @how: the after= action.
 * @pass: verdict (already printed).
 */
void arch_stop(enum after_action how, bool pass)
{
	(void)pass;
	/* The arch's choice: exit QEMU (the log has the verdict), halt on HW. */
	if (how == AFTER_DEFAULT && dt_info.qemu_virt)
		how = AFTER_POWEROFF;
	switch (how) {
	case AFTER_POWEROFF:
	case AFTER_EXIT:
		psci_system_off();
	case AFTER_RESET:
		psci_system_reset();
	default:
		break;
	}
	__asm__ __volatile__("msr daifset, #0xf");
	for (;;)
		__asm__ __volatile__("wfi");
}

/**
 * arch_panic() - after panic() printed: stop as a failed boot, honouring
 * after= like arch_stop() (so QEMU tests do not wait for their timeout).
 * @msg: the panic message (already printed).
 */
void arch_panic(const char *msg)
{
	(void)msg;
	arch_stop(opts.after, false);
}
