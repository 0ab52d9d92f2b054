/* SPDX-License-Identifier: MIT */
/*
 * The FADT parser and the DSDT's \_S5 scanner (ACPI single-table parsers:
 * see boot/acpi/acpi_priv.h): PM timer, PM1 control and reset registers, the
 * hardware-reduced and ARM boot flags (PSCI), and the SLP_TYP for power
 * off.
 */
#include <keel/errno.h>
#include <keel/string.h>

#include "acpi_priv.h"

#define FADT_MIN_LEN	   116 /* ACPI 1.0 FADT */
#define FADT_TMR_VAL_EXT   (1u << 8)
#define FADT_RESET_REG_SUP (1u << 10)
#define FADT_HW_REDUCED	   (1u << 20)

/* ---- FADT and \_S5 ------------------------------------------------ */

/**
 * acpi_parse_fadt() - PM timer, PM1 control, reset register, boot flags,
 * the DSDT address. Fields past the table's length (older revisions) are
 * left 0.
 *
 * Return: 0, or -EINVAL when shorter than an ACPI 1.0 FADT.
 */
int acpi_parse_fadt(const void *buf, size_t len, struct acpi_info *info)
{
	const uint8_t *p = buf;
	uint32_t tlen = acpi_table_len(p, len);
	uint32_t blk;

	if (tlen < FADT_MIN_LEN) {
		acpi_warn(info, "FACP: length %u < %u, ignored", tlen,
			  FADT_MIN_LEN);
		return -EINVAL;
	}
	info->fadt_revision = p[8];
	info->fadt_flags = acpi_get32(p + 112);
	info->hw_reduced = info->fadt_flags & FADT_HW_REDUCED;
	info->sci_irq = acpi_get16(p + 46);
	info->smi_cmd = acpi_get32(p + 48);
	info->acpi_enable = p[52];
	info->iapc_boot_arch = acpi_get16(p + 109);
	info->dsdt = pa(acpi_get32(p + 40));
	if (tlen >= 148 && acpi_get64(p + 140))
		info->dsdt = pa(acpi_get64(p + 140));

	/* PM timer: X_PM_TMR_BLK when present, else the I/O port. */
	if (tlen >= 220 && acpi_get64(p + 212)) {
		acpi_get_gas(p + 208, &info->pm_timer);
	} else if ((blk = acpi_get32(p + 76)) != 0) {
		if (p[91] == 4) {
			info->pm_timer =
				(struct acpi_gas){.space_id = ACPI_GAS_IO,
						  .bit_width = 32,
						  .address = blk};
		} else {
			acpi_warn(info,
				  "FACP: PM_TMR_LEN %u != 4, no PM "
				  "timer",
				  p[91]);
		}
	}
	info->pm_timer_bits = info->fadt_flags & FADT_TMR_VAL_EXT ? 32 : 24;

	/* PM1 control blocks (S5 power-off). */
	if (tlen >= 196 && acpi_get64(p + 176))
		acpi_get_gas(p + 172, &info->pm1a_cnt);
	else if ((blk = acpi_get32(p + 64)) != 0)
		info->pm1a_cnt = (struct acpi_gas){.space_id = ACPI_GAS_IO,
						   .bit_width = 16,
						   .address = blk};
	if (tlen >= 196 && acpi_get64(p + 188))
		acpi_get_gas(p + 184, &info->pm1b_cnt);
	else if ((blk = acpi_get32(p + 68)) != 0)
		info->pm1b_cnt = (struct acpi_gas){.space_id = ACPI_GAS_IO,
						   .bit_width = 16,
						   .address = blk};

	/* ACPI 2.0+ fields. */
	if (tlen >= 129) {
		acpi_get_gas(p + 116, &info->reset_reg);
		info->reset_value = p[128];
		info->reset_supported =
			(info->fadt_flags & FADT_RESET_REG_SUP) &&
			info->reset_reg.address;
	}
	if (tlen >= 131) {
		info->arm_boot_arch = acpi_get16(p + 129);
		info->psci_compliant = info->arm_boot_arch & 1;
		info->psci_use_hvc = info->arm_boot_arch & 2;
	}
	info->tables |= ACPI_T_FADT;
	return 0;
}

/* AML package length: bits 7:6 of the lead byte count the extra bytes. */
static bool aml_pkg_length(const uint8_t *p, size_t len, size_t *pos)
{
	size_t extra;

	if (*pos >= len)
		return false;
	extra = p[*pos] >> 6;
	*pos += 1 + extra;
	return *pos < len;
}

/**
 * acpi_find_s5() - find "Name (_S5_, Package () { SLP_TYPa, ... })".
 * The scan is bounded by @len; only a NameOp (0x08, optionally followed by
 * the root prefix '\') followed by "_S5_" and a PackageOp counts.
 *
 * Return: 0 with *slp_typ set, or -ENOENT.
 */
int acpi_find_s5(const void *aml, size_t len, uint8_t *slp_typ)
{
	const uint8_t *p = aml;
	size_t i, j;

	for (i = 1; i + 4 <= len; i++) {
		if (memcmp(p + i, "_S5_", 4))
			continue;
		if (p[i - 1] != 0x08 &&
		    !(p[i - 1] == '\\' && i >= 2 && p[i - 2] == 0x08))
			continue;
		j = i + 4;
		if (j >= len || p[j] != 0x12) /* PackageOp */
			continue;
		j++;
		if (!aml_pkg_length(p, len, &j))
			continue;
		j++; /* NumElements */
		if (j >= len)
			continue;
		switch (p[j]) {
		case 0x00: /* ZeroOp */
		case 0x01: /* OneOp */
			*slp_typ = p[j];
			return 0;
		case 0x0a: /* BytePrefix */
		case 0x0b: /* WordPrefix: SLP_TYP is 3 bits anyway */
		case 0x0c: /* DWordPrefix */
			if (j + 1 >= len)
				continue;
			*slp_typ = p[j + 1];
			return 0;
		default:
			continue;
		}
	}
	return -ENOENT;
}
