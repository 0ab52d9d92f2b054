/* SPDX-License-Identifier: MIT */
/*
 * The arch facts a device tree gives (struct dt_arch_info, keel/fdt.h),
 * taken from ACPI instead, for a UEFI boot on ACPI tables: the PSCI
 * conduit from the FADT, the console from the SPCR, the GICv3
 * distributor and redistributors from the MADT, the CPU topology from the
 * MADT's MPIDRs. And the reverse seam of a UEFI boot on a device tree:
 * the DT's RAM ranges as the NUMA blocks that label the UEFI map's RAM
 * (acpi_apply_numa()).
 *
 * Pure functions over parsed tables: no hardware, unit-tested on the host
 * (tests/unit/acpi_test.c).
 */
#include <keel/acpi.h>
#include <keel/console_spec.h>
#include <keel/errno.h>
#include <keel/fdt.h>
#include <keel/printk.h>
#include <keel/string.h>

#include "../boot_priv.h"

static void psci_from_fadt(const struct acpi_info *ai, struct dt_arch_info *dt)
{
	if (ai->psci_compliant) {
		dt->psci_method = ai->psci_use_hvc ? DT_PSCI_HVC : DT_PSCI_SMC;
		dt->psci_v0_2 = true;
		return;
	}
	pr_warn("acpi: FADT arm_boot_arch %#x is not PSCI compliant: "
		"secondary CPUs cannot start\n",
		ai->arm_boot_arch);
}

static void console_from_spcr(const struct acpi_info *ai, paddr_t uart_kept,
			      struct dt_arch_info *dt,
			      struct console_spec *spcr_8250)
{
	struct console_spec spcr;
	int rc = acpi_spcr_console(ai, &spcr);

	spcr_8250->kind = CONSOLE_DEFAULT;
	if (!rc && spcr.kind == CONSOLE_PL011) {
		dt->uart_base = pa(spcr.addr);
		dt->uart_is_pl011 = true;
	} else if (!rc && spcr.kind == CONSOLE_8250_MMIO) {
		*spcr_8250 = spcr;
	} else if (rc != -ENOENT) {
		pr_warn("acpi: SPCR interface type %#x in address space %u at "
			"%#llx is not a PL011 or 16550 in memory, keeping "
			"%#llx\n",
			ai->spcr_type, ai->spcr_reg.space_id,
			U64(ai->spcr_reg.address), U64(pa_val(uart_kept)));
	}
}

static void gic_from_madt(const struct acpi_info *ai, struct dt_arch_info *dt)
{
	if (!ai->gicd_base || (ai->gic_version != 0 && ai->gic_version < 3))
		return;
	dt->gicd_base = pa(ai->gicd_base);
	dt->gicr_count = ai->gicr_count;
	for (unsigned int i = 0; i < ai->gicr_count; i++) {
		dt->gicr[i].base = pa(ai->gicr[i].base);
		dt->gicr[i].size = ai->gicr[i].length;
	}
}

/**
 * dt_info_from_acpi() - fill @dt from ACPI tables, as dt_parse() would
 * from a device tree; give @bi's CPUs their topology from their MPIDR.
 * @bi: bootinfo holding the MADT's CPUs (fwboot_acpi())
 * @ai: the parsed tables
 * @uart_kept: the console kept when the SPCR's cannot drive it (named in
 *	the warning)
 * @dt: out: PSCI, PL011 console, GICv3, QEMU virt
 * @spcr_8250: out: the SPCR's 16550 in memory space (kind CONSOLE_DEFAULT
 *	when the SPCR names none)
 */
void dt_info_from_acpi(struct bootinfo *bi, const struct acpi_info *ai,
		       paddr_t uart_kept, struct dt_arch_info *dt,
		       struct console_spec *spcr_8250)
{
	for (unsigned int i = 0; i < bi->cpu_count; i++) {
		struct bi_cpu *c = &bi->cpus[i];

		dt_mpidr_topology(c->hwid, &c->package, &c->core, &c->thread);
	}
	memset(dt, 0, sizeof(*dt));
	psci_from_fadt(ai, dt);
	console_from_spcr(ai, uart_kept, dt, spcr_8250);
	gic_from_madt(ai, dt);
	/* QEMU's tables: power off at the end as with its DT. */
	dt->qemu_virt = !strncmp(ai->oem_id, "BOCHS", 5);
}

/**
 * dt_ram_to_numa() - a device tree's RAM as the NUMA blocks of @ai.
 * @bi: bootinfo from dt_parse(); its RAM is moved out (ram_count 0)
 * @ai: out: reset, then one memory affinity block per RAM range, sorted
 *	by start as acpi_apply_numa() expects
 *
 * Under UEFI the DT's /memory nodes describe all RAM, firmware runtime
 * regions included: RAM comes from the UEFI map, and the DT's ranges only
 * give each piece its node.
 */
void dt_ram_to_numa(struct bootinfo *bi, struct acpi_info *ai)
{
	acpi_info_reset(ai);
	for (unsigned int i = 0; i < bi->ram.count; i++) {
		struct region m = {
			.start = bi->ram.regions[i].start,
			.end = bi->ram.regions[i].end,
			.node = bi->ram.regions[i].node,
		};
		unsigned int j = ai->memblk_count;

		if (j >= ACPI_MAX_MEMBLKS) {
			pr_warn("dt: more than %u memory ranges, the rest "
				"take the node of the range below\n",
				ACPI_MAX_MEMBLKS);
			break;
		}
		while (j && pa_val(ai->memblk[j - 1].start) > pa_val(m.start)) {
			ai->memblk[j] = ai->memblk[j - 1];
			j--;
		}
		ai->memblk[j] = m;
		ai->memblk_count++;
	}
	ai->numa_valid = ai->memblk_count > 0;
	bi->ram.count = 0;
}
