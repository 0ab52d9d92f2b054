/* SPDX-License-Identifier: MIT */
/*
 * The MADT parser (ACPI single-table parsers: see boot/acpi/acpi_priv.h): the
 * CPUs (local APIC, x2APIC, GICC entries) with their hwid, enabled and
 * online-capable flags, the boot CPU; the I/O APICs and the ISA interrupt
 * source overrides (x86 masks every I/O APIC input at boot); the GICv3
 * distributor and redistributor regions.
 */
#include <keel/errno.h>
#include <keel/string.h>

#include "acpi_priv.h"

#define MADT_ENTRIES		  44
#define MADT_ENABLED		  (1u << 0)
#define MADT_LAPIC_ONLINE_CAPABLE (1u << 1)
#define MADT_GICC_ONLINE_CAPABLE  (1u << 3)
#define MPIDR_AFF_MASK		  0xff00ffffffULL
#define MADT_BUS_ISA		  0

/* ---- MADT --------------------------------------------------------- */

static void madt_add_cpu(struct acpi_info *info, uint8_t kind, uint64_t hwid,
			 uint32_t uid, uint32_t flags, bool online_capable,
			 uint64_t hwid_boot)
{
	struct acpi_cpu *c;
	unsigned int i;

	for (i = 0; i < info->cpu_count; i++) {
		if (info->cpus[i].hwid == hwid) {
			acpi_warn(info,
				  "MADT: CPU hwid %#llx listed twice, "
				  "ignoring the second entry",
				  (unsigned long long)hwid);
			return;
		}
	}
	if (info->cpu_count >= ACPI_MAX_CPUS) {
		/*
		 * Counted only: acpi_fill_bootinfo() passes the count on and
		 * bootinfo_sanitise() prints the one line for all of them.
		 */
		info->cpu_dropped++;
		return;
	}
	c = &info->cpus[info->cpu_count++];
	memset(c, 0, sizeof(*c));
	c->kind = kind;
	c->hwid = hwid;
	c->acpi_uid = uid;
	c->usable = flags & MADT_ENABLED;
	c->online_capable = !c->usable && online_capable;
	if (c->usable)
		info->cpu_usable_count++;
	if (hwid == hwid_boot && !info->boot_cpu_found) {
		c->boot_cpu = true;
		info->boot_cpu_found = true;
	}
}

/*
 * MADT type 1: an I/O APIC. One at address 0 or at the address of one
 * already listed is no I/O APIC the arch could mask: skipped, warned.
 */
static void madt_add_ioapic(struct acpi_info *info, const uint8_t *e)
{
	uint64_t base = acpi_get32(e + 4);
	struct acpi_ioapic *io;

	if (!base) {
		acpi_warn(info, "MADT: I/O APIC ID %u at address 0, skipped",
			  e[2]);
		return;
	}
	for (unsigned int i = 0; i < info->ioapic_count; i++) {
		if (info->ioapic[i].base == base) {
			acpi_warn(info,
				  "MADT: I/O APIC at %#llx listed twice, "
				  "ignoring the second entry",
				  (unsigned long long)base);
			return;
		}
	}
	if (info->ioapic_count >= ACPI_MAX_IOAPICS) {
		if (!info->ioapic_dropped++)
			acpi_warn(info,
				  "MADT: more than %u I/O APIC entries, the "
				  "rest ignored (not masked)",
				  ACPI_MAX_IOAPICS);
		return;
	}
	io = &info->ioapic[info->ioapic_count++];
	io->base = base;
	io->gsi_base = acpi_get32(e + 8);
	io->id = e[2];
}

/*
 * MADT type 2: an interrupt source override. Only the ISA bus (0) has
 * them; an IRQ overridden twice keeps the first.
 */
static void madt_add_override(struct acpi_info *info, const uint8_t *e)
{
	struct acpi_irq_override *o;

	if (e[2] != MADT_BUS_ISA || e[3] >= ACPI_ISA_IRQS) {
		acpi_warn(info,
			  "MADT: interrupt source override of bus %u IRQ %u "
			  "(only ISA IRQs 0-%u exist), skipped",
			  e[2], e[3], ACPI_ISA_IRQS - 1);
		return;
	}
	o = &info->isa_irq[e[3]];
	if (o->present) {
		acpi_warn(info,
			  "MADT: ISA IRQ %u overridden twice (GSI %u, then "
			  "%u), keeping the first",
			  e[3], o->gsi, acpi_get32(e + 4));
		return;
	}
	o->gsi = acpi_get32(e + 4);
	o->flags = (uint16_t)(e[8] | e[9] << 8);
	o->present = true;
}

/**
 * acpi_isa_irq_gsi() - ISA IRQ @irq after the MADT's overrides.
 * @info: the parsed tables
 * @irq: the ISA IRQ, below ACPI_ISA_IRQS
 * @flags: out: the override's MPS INTI flags, 0 without one
 *
 * Return: its GSI (@irq itself without an override).
 */
uint32_t acpi_isa_irq_gsi(const struct acpi_info *info, unsigned int irq,
			  uint16_t *flags)
{
	const struct acpi_irq_override *o;

	*flags = 0;
	if (irq >= ACPI_ISA_IRQS || !info->isa_irq[irq].present)
		return irq;
	o = &info->isa_irq[irq];
	*flags = o->flags;
	return o->gsi;
}

/* Minimum length of each MADT entry type we read (0: not read). */
static uint8_t madt_min_len(uint8_t type)
{
	switch (type) {
	case 0:
		return 8;
	case 1:
		return 12;
	case 2:
		return 10;
	case 5:
		return 12;
	case 9:
		return 16;
	case 0xb:
		return 76; /* ACPI 5.1 GICC; 6.x adds fields we ignore */
	case 0xc:
		return 24;
	case 0xe:
		return 16;
	default:
		return 0;
	}
}

/**
 * acpi_parse_madt() - CPUs and interrupt controller bases from the MADT.
 * Entries before a broken one (length 0 or past the table end) are kept.
 *
 * Return: 0, or -EINVAL when the table is too short or an entry is broken.
 */
int acpi_parse_madt(const void *buf, size_t len, uint64_t hwid_boot,
		    struct acpi_info *info)
{
	const uint8_t *p = buf;
	uint32_t tlen = acpi_table_len(p, len);
	uint32_t off;

	if (tlen < MADT_ENTRIES) {
		acpi_warn(info, "MADT: length %u too short, ignored", tlen);
		return -EINVAL;
	}
	info->lapic_base = acpi_get32(p + 36);
	info->madt_flags = acpi_get32(p + 40);

	for (off = MADT_ENTRIES; off + 2 <= tlen; off += p[off + 1]) {
		const uint8_t *e = p + off;
		uint8_t type = e[0], elen = e[1];

		if (elen < 2 || elen > tlen - off) {
			acpi_warn(info,
				  "MADT: entry type %u at offset %u has "
				  "length %u (table length %u), stopping",
				  type, off, elen, tlen);
			return -EINVAL;
		}
		if (elen < madt_min_len(type)) {
			acpi_warn(info,
				  "MADT: entry type %u at offset %u has "
				  "length %u < %u, skipped",
				  type, off, elen, madt_min_len(type));
			continue;
		}
		switch (type) {
		case 0:			  /* processor local APIC */
			if (e[3] == 0xff) /* listed as x2APIC instead */
				break;
			madt_add_cpu(info, ACPI_CPU_LAPIC, e[3], e[2],
				     acpi_get32(e + 4),
				     acpi_get32(e + 4) &
					     MADT_LAPIC_ONLINE_CAPABLE,
				     hwid_boot);
			break;
		case 1: /* I/O APIC */
			madt_add_ioapic(info, e);
			break;
		case 2: /* interrupt source override */
			madt_add_override(info, e);
			break;
		case 5: /* local APIC address override */
			info->lapic_base = acpi_get64(e + 4);
			break;
		case 9: /* processor local x2APIC */
			if (acpi_get32(e + 4) == 0xffffffffu)
				break;
			madt_add_cpu(info, ACPI_CPU_X2APIC, acpi_get32(e + 4),
				     acpi_get32(e + 12), acpi_get32(e + 8),
				     acpi_get32(e + 8) &
					     MADT_LAPIC_ONLINE_CAPABLE,
				     hwid_boot);
			break;
		case 0xb: { /* GICC */
			uint64_t mpidr = acpi_get64(e + 68) & MPIDR_AFF_MASK;
			unsigned int before = info->cpu_count;

			madt_add_cpu(info, ACPI_CPU_GICC, mpidr,
				     acpi_get32(e + 8), acpi_get32(e + 12),
				     acpi_get32(e + 12) &
					     MADT_GICC_ONLINE_CAPABLE,
				     hwid_boot & MPIDR_AFF_MASK);
			if (info->cpu_count > before)
				info->cpus[before].gicc_cpu_if =
					acpi_get32(e + 4);
			break;
		}
		case 0xc: /* GIC distributor */
			info->gicd_base = acpi_get64(e + 8);
			info->gic_version = e[20];
			break;
		case 0xe: /* GIC redistributor region */
			if (info->gicr_count >= ACPI_MAX_GICR) {
				if (!info->gicr_dropped++)
					acpi_warn(info,
						  "MADT: more than %u GICR "
						  "entries, the rest ignored",
						  ACPI_MAX_GICR);
				break;
			}
			info->gicr[info->gicr_count].base = acpi_get64(e + 4);
			info->gicr[info->gicr_count].length =
				acpi_get32(e + 12);
			info->gicr_count++;
			break;
		default: /* NMI sources, NMIs, ITS...: not ours */
			break;
		}
	}
	info->tables |= ACPI_T_MADT;
	return 0;
}
