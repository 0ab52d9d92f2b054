/* SPDX-License-Identifier: MIT */
/*
 * The device tables keel reads (ACPI single-table parsers: see
 * boot/acpi/acpi_priv.h): the HPET's base address, and the SPCR's serial
 * console, turned into a console_spec by acpi_spcr_console().
 */
#include <keel/console_spec.h>
#include <keel/errno.h>
#include <keel/string.h>

#include "acpi_priv.h"

/* ---- HPET, SPCR --------------------------------------------------- */

/**
 * acpi_parse_hpet() - the HPET's MMIO base.
 *
 * Return: 0, or -EINVAL (too short, not in memory space, or 0).
 */
int acpi_parse_hpet(const void *buf, size_t len, struct acpi_info *info)
{
	const uint8_t *p = buf;
	uint32_t tlen = acpi_table_len(p, len);
	struct acpi_gas g;

	if (tlen < 52) {
		acpi_warn(info, "HPET: length %u too short, ignored", tlen);
		return -EINVAL;
	}
	acpi_get_gas(p + 40, &g);
	if (g.space_id != ACPI_GAS_MEMORY || !g.address) {
		acpi_warn(info, "HPET: base address %#llx in space %u, ignored",
			  (unsigned long long)g.address, g.space_id);
		return -EINVAL;
	}
	info->hpet_base = g.address;
	info->tables |= ACPI_T_HPET;
	return 0;
}

/**
 * acpi_parse_spcr() - the firmware's console UART: interface type,
 * register block, baud rate.
 *
 * Return: 0, or -EINVAL (too short or no address).
 */
int acpi_parse_spcr(const void *buf, size_t len, struct acpi_info *info)
{
	static const uint32_t baud[8] = {0,	0, 0,	  9600,
					 19200, 0, 57600, 115200};
	const uint8_t *p = buf;
	uint32_t tlen = acpi_table_len(p, len);

	if (tlen < 52) {
		acpi_warn(info, "SPCR: length %u too short, ignored", tlen);
		return -EINVAL;
	}
	acpi_get_gas(p + 40, &info->spcr_reg);
	info->spcr_type = p[36];
	if (!info->spcr_reg.address) {
		/* Firmware with console redirection switched off: not an error. */
		pr_info("ACPI SPCR: base address 0 (no console redirection), "
			"ignored\n");
		return -EINVAL;
	}
	if (tlen >= 59)
		info->spcr_baud = p[58] < 8 ? baud[p[58]] : 0;
	info->tables |= ACPI_T_SPCR;
	return 0;
}

/**
 * acpi_spcr_console() - the SPCR's UART as a console choice; see
 * keel/console_spec.h.
 * @ai: parsed tables.
 * @out: the result.
 *
 * Return: 0, -ENOENT or -EINVAL.
 */
int acpi_spcr_console(const struct acpi_info *ai, struct console_spec *out)
{
	const struct acpi_gas *g = &ai->spcr_reg;
	bool wide =
		g->access_size == 3 || (!g->access_size && g->bit_width == 32);

	memset(out, 0, sizeof(*out));
	if (!(ai->tables & ACPI_T_SPCR) || !g->address)
		return -ENOENT;
	out->addr = g->address;
	out->baud = ai->spcr_baud;
	switch (ai->spcr_type) {
	case ACPI_SPCR_16550:
	case ACPI_SPCR_16450:
	case ACPI_SPCR_16550_GAS:
		if (g->space_id == ACPI_GAS_IO && g->address <= 0xfff8) {
			out->kind = CONSOLE_8250_IO;
		} else if (g->space_id == ACPI_GAS_MEMORY) {
			out->kind = CONSOLE_8250_MMIO;
			out->reg_shift = wide ? 2 : 0;
		}
		break;
	case ACPI_SPCR_PL011:
	case ACPI_SPCR_SBSA:
	case ACPI_SPCR_SBSA32:
		if (g->space_id == ACPI_GAS_MEMORY)
			out->kind = CONSOLE_PL011;
		break;
	default:
		break;
	}
	return out->kind == CONSOLE_DEFAULT ? -EINVAL : 0;
}
