/* SPDX-License-Identifier: MIT */
/*
 * boot/acpi/acpi_bootinfo.c: parsed tables into struct bootinfo (CPUs,
 * distances, SRAT nodes onto RAM). Fixture: acpi_fixture.h.
 */
#include "acpi_fixture.h"

static void test_x86_bootinfo(void **state)
{
	BUILD(X86_2NODE);
	parse_expect(2, 0, NULL);
	assert_true(info.cpus[2].boot_cpu);

	assert_int_equal(acpi_fill_bootinfo(&bi, &info), 6);
	assert_int_equal(bi.cpu_count, 6);
	for (unsigned int i = 0; i < 6; i++) {
		assert_int_equal(bi.cpus[i].hwid, i);
		assert_int_equal(bi.cpus[i].node, i < 2 ? 0 : 1);
		assert_int_equal(bi.cpus[i].usable, i < 4);
		assert_int_equal(bi.cpus[i].boot_cpu, i == 2);
		assert_int_equal(bi.cpus[i].package, 0);
	}
	assert_true(bi.have_distance);
	assert_int_equal(bi.distance[0][1], 21);
	assert_int_equal(bi.distance[1][0], 21);
	assert_int_equal(pa_val(bi.acpi_rsdp), RSDP_SCAN_AT);

	/* e820-like RAM: the second range spans both nodes. */
	bootinfo_add_ram(&bi, pa(0), pa(0x9fc00), 0);
	bootinfo_add_ram(&bi, pa(MB), pa(0x3ffe0000), 0);
	bootinfo_add_ram(&bi, pa(4 * GB), pa(4 * GB + 512 * MB), 0);
	sandbox_console_clear();
	acpi_apply_numa(&bi, &info);
	assert_int_equal(test_console_warnings(), 0);
	assert_int_equal(bi.ram.count, 4);
	expect_ram(0, 0, 0x9fc00, 0);
	expect_ram(1, MB, 512 * MB, 0);
	expect_ram(2, 4 * GB, 4 * GB + 512 * MB, 1);
	expect_ram(3, 512 * MB, 0x3ffe0000, 1); /* split off, appended */
}

static void test_numa_below_srat(void **state)
{
	/* srat-gicc with its memory PXMs swapped: [1G, 2G) is node 1. */
	BUILD(ARM64);
	put32(tbl(1) + 48 + 5 * 18 + 2, 1);
	put32(tbl(1) + 48 + 5 * 18 + 40 + 2, 0);
	fix_checksum(tbl(1));
	parse_expect(0, 0, NULL);
	expect_memblk(0, GB, 2 * GB, 1, false);

	/* RAM below every SRAT range: the lowest range's node, not 0. */
	bootinfo_add_ram(&bi, pa(256 * MB), pa(3 * GB), 0);
	sandbox_console_clear();
	acpi_apply_numa(&bi, &info);
	assert_int_equal(test_console_warnings(), 1);
	assert_true(test_console_contains("[0x10000000, 0x40000000) is in no "
					  "memory affinity range, using node "
					  "1"));
	assert_int_equal(bi.ram.count, 3);
	expect_ram(0, 256 * MB, GB, 1);
	expect_ram(1, GB, 2 * GB, 1);
	expect_ram(2, 2 * GB, 3 * GB, 0);
}

/*
 * Issue 20 §2.4: memory the SRAT flags non-volatile is reserved as
 * "persistent" where the memory map calls it RAM; one info line, no
 * warning; volatile RAM is untouched.
 */
static void test_srat_nonvolatile(void **state)
{
	uint8_t *flags;

	BUILD(X86_2NODE);
	/* Memory entry 2 of srat-2node: [512M, 1G) on PXM 1. */
	flags = tbl(1) + 48 + 6 * 16 + 2 * 40 + 28;
	put32(flags, get32(flags) | 4);
	fix_checksum(tbl(1));
	parse_expect(0, 0, NULL);
	assert_true(info.memblk[2].flags & REGION_NONVOLATILE);
	assert_false(info.memblk[1].flags & REGION_NONVOLATILE);

	bootinfo_add_ram(&bi, pa(MB), pa(0x3ffe0000), 0);
	sandbox_console_clear();
	acpi_apply_numa(&bi, &info);
	assert_int_equal(test_console_warnings(), 0);
	assert_true(test_console_contains(
		"ACPI SRAT: 1 non-volatile memory range (512 MiB) left out "
		"of RAM, 511 MiB of the memory map reserved as persistent"));
	assert_int_equal(bi.reserved.count, 1);
	assert_string_equal(bi.reserved.regions[0].name, "persistent");
	assert_int_equal(pa_val(bi.reserved.regions[0].start), 512 * MB);
	assert_int_equal(pa_val(bi.reserved.regions[0].end), GB);

	/* Without RAM over it: the line, nothing reserved. */
	bootinfo_init(&bi, BOOT_MULTIBOOT2);
	bootinfo_add_ram(&bi, pa(MB), pa(512 * MB), 0);
	sandbox_console_clear();
	acpi_apply_numa(&bi, &info);
	assert_true(test_console_contains("(512 MiB) left out of RAM, 0 MiB"));
	assert_int_equal(bi.reserved.count, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_x86_bootinfo, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_numa_below_srat, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_srat_nonvolatile, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
