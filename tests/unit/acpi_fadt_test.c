/* SPDX-License-Identifier: MIT */
/*
 * boot/acpi/acpi_fadt.c: FADT variants and the DSDT \_S5 scanner. Fixture:
 * acpi_fixture.h.
 */
#include "acpi_fixture.h"

static void test_fadt_variants(void **state)
{
	uint8_t *f;

	/* X_PM_TMR_BLK wins over PM_TMR_BLK; TMR_VAL_EXT gives 32 bits. */
	BUILD("facp-x86", "dsdt-s5");
	f = tbl(0);
	f[208] = ACPI_GAS_IO;
	f[209] = 32;
	put64(f + 212, 0xb008);
	put32(f + 112, get32(f + 112) | (1u << 8));
	fix_checksum(f);
	parse_expect(0, 0, NULL);
	assert_int_equal(info.pm_timer.address, 0xb008);
	assert_int_equal(info.pm_timer_bits, 32);

	/* A DSDT without \_S5: one warning, SLP_TYP 0. */
	BUILD("facp-x86", "dsdt-nos5");
	parse_expect(0, 1, "no \\_S5 package");
	assert_false(info.s5_found);
	assert_int_equal(info.s5_slp_typ, 0);
	assert_true(info.tables & ACPI_T_DSDT);

	/* A DSDT with a bad checksum: ignored, one warning. */
	BUILD("facp-x86", "dsdt-s5");
	at(DSDT_AT)[40] ^= 1;
	parse_expect(0, 1, "DSDT at 0x140000: bad checksum");
	assert_false(info.s5_found);
	assert_int_equal(info.pm1a_cnt.address, 0x604);
}

static void test_s5_scanner(void **state)
{
	static const uint8_t good[] = {0x08, '_',  'S',	 '5',  '_',  0x12, 0x08,
				       0x04, 0x0a, 0x07, 0x0a, 0x07, 0,	   0};
	static const uint8_t rooted[] = {0x08, '\\', '_',  'S', '5', '_', 0x12,
					 0x06, 0x04, 0x01, 0,	0,   0};
	static const uint8_t method[] = {0x14, '_',  'S',  '5', '_', 0x12,
					 0x06, 0x04, 0x01, 0,	0,   0};
	uint8_t typ = 0xee;

	assert_int_equal(acpi_find_s5(good, sizeof(good), &typ), 0);
	assert_int_equal(typ, 7);
	assert_int_equal(acpi_find_s5(rooted, sizeof(rooted), &typ), 0);
	assert_int_equal(typ, 1);
	assert_int_equal(acpi_find_s5(method, sizeof(method), &typ), -ENOENT);
	/* Every truncation: no match past the end (ASan watches). */
	for (size_t n = 0; n < 10; n++) {
		uint8_t *b = malloc(n ? n : 1);

		memcpy(b, good, n);
		assert_int_equal(acpi_find_s5(b, n, &typ), -ENOENT);
		free(b);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_fadt_variants, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_s5_scanner, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
