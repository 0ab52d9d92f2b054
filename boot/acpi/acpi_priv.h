/* SPDX-License-Identifier: MIT */
/*
 * The private header of boot/acpi/: the accessors of acpi.c (the
 * dispatcher) and the ACPI single-table parsers, one file per table
 * family: acpi_madt.c (MADT), acpi_numa.c (SRAT, SLIT), acpi_fadt.c (FADT,
 * the DSDT's \_S5), acpi_devices.c (HPET, SPCR). Each parser takes the
 * bytes of one table whose checksum and length acpi.c already checked,
 * and trusts nothing inside it: every entry length and every field offset
 * is bounded by the table length before it is read, so arbitrary bytes
 * never cause a read outside @buf (the fuzzers in tests/fuzz/acpi_*_fuzz.c
 * call these directly). The parsers call nothing else of the room: the
 * calls of boot/acpi/ go one way, the dispatcher (acpi.c) down to them.
 *
 * Firmware tables are little-endian and fields are often misaligned (the
 * XSDT's 64-bit entries sit at offset 36), so every field is read byte by
 * byte.
 */
#ifndef BOOT_ACPI_PRIV_H
#define BOOT_ACPI_PRIV_H

#include <keel/acpi.h>
#include <keel/printk.h>

/* One warning line, counted in info->warnings for the tests and report. */
#define acpi_warn(info, fmt, ...)                         \
	do {                                              \
		(info)->warnings++;                       \
		pr_warn("ACPI " fmt "\n", ##__VA_ARGS__); \
	} while (0)

static inline uint16_t acpi_get16(const uint8_t *p)
{
	return (uint16_t)(p[0] | (p[1] << 8));
}

static inline uint32_t acpi_get32(const uint8_t *p)
{
	return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) |
	       ((uint32_t)p[3] << 24);
}

static inline uint64_t acpi_get64(const uint8_t *p)
{
	return (uint64_t)acpi_get32(p) | ((uint64_t)acpi_get32(p + 4) << 32);
}

static inline void acpi_get_gas(const uint8_t *p, struct acpi_gas *g)
{
	g->space_id = p[0];
	g->bit_width = p[1];
	g->bit_offset = p[2];
	g->access_size = p[3];
	g->address = acpi_get64(p + 4);
}

/*
 * acpi_table_len(): the usable length of a table in a @len-byte buffer:
 * its header's length field clamped to @len. Return: 0 when even the
 * header does not fit.
 */
static inline uint32_t acpi_table_len(const uint8_t *p, size_t len)
{
	uint32_t tlen;

	if (len < ACPI_HEADER_SIZE)
		return 0;
	tlen = acpi_get32(p + 4);
	return tlen > len ? (uint32_t)len : tlen;
}

/* acpi_numa.c: reserve SRAT non-volatile memory found in @bi's RAM. */
struct bootinfo;
void acpi_reserve_persistent(struct bootinfo *bi, const struct acpi_info *info);

#endif
