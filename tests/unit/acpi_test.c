/* SPDX-License-Identifier: MIT */
/*
 * boot/acpi/acpi.c: finding and checking the tables (RSDP scan, XSDT/RSDT,
 * checksums, truncation, hostile accessors) and whole parses of the
 * fixtures. Per-table parsers: acpi_madt_test.c, acpi_numa_test.c,
 * acpi_fadt_test.c; into bootinfo: acpi_bootinfo_test.c; arm64 DT+ACPI:
 * acpi_dt_test.c. Fixture: acpi_fixture.h.
 */
#include "acpi_fixture.h"

/* test_x86_2node(), continued: the FADT, DSDT and HPET of X86_2NODE. */
static void expect_x86_fadt_hpet(void)
{
	/* FADT + DSDT */
	assert_int_equal(info.fadt_revision, 3);
	assert_false(info.hw_reduced);
	assert_int_equal(info.pm_timer.space_id, ACPI_GAS_IO);
	assert_int_equal(info.pm_timer.address, 0x608);
	assert_int_equal(info.pm_timer_bits, 24);
	assert_int_equal(info.pm1a_cnt.space_id, ACPI_GAS_IO);
	assert_int_equal(info.pm1a_cnt.address, 0x604);
	assert_int_equal(info.pm1b_cnt.address, 0);
	assert_int_equal(info.sci_irq, 9);
	assert_int_equal(info.smi_cmd, 0xb2);
	assert_int_equal(info.acpi_enable, 0xf1);
	assert_int_equal(info.iapc_boot_arch, 2);
	assert_true(info.reset_supported);
	assert_int_equal(info.reset_reg.space_id, ACPI_GAS_IO);
	assert_int_equal(info.reset_reg.address, 0xcf9);
	assert_int_equal(info.reset_value, 6);
	assert_int_equal(pa_val(info.dsdt), DSDT_AT);
	assert_true(info.s5_found);
	assert_int_equal(info.s5_slp_typ, 5);
	assert_false(info.psci_compliant);

	assert_int_equal(info.hpet_base, 0xfed00000);
	assert_int_equal(info.spcr_reg.address, 0);
}

static void test_x86_2node(void **state)
{
	BUILD(X86_2NODE);
	parse_expect(0, 0, NULL);

	assert_int_equal(pa_val(info.rsdp), RSDP_SCAN_AT);
	assert_int_equal(pa_val(info.xsdt), XSDT_AT);
	assert_int_equal(info.rsdp_revision, 2);
	assert_string_equal(info.oem_id, "KEEL  ");
	assert_int_equal(info.tables, ACPI_T_XSDT | ACPI_T_MADT | ACPI_T_SRAT |
					      ACPI_T_SLIT | ACPI_T_FADT |
					      ACPI_T_DSDT | ACPI_T_HPET);
	assert_int_equal(info.table_count, 5);

	/* MADT: 4 enabled, 1 online-capable slot, 1 QEMU maxcpus slot. */
	assert_int_equal(info.lapic_base, 0xfee00000);
	assert_int_equal(info.madt_flags, 1);
	assert_int_equal(info.cpu_count, 6);
	assert_int_equal(info.cpu_usable_count, 4);
	assert_true(info.boot_cpu_found);
	expect_cpu(0, 0, 0, true, true);
	expect_cpu(1, 1, 0, true, false);
	expect_cpu(2, 2, 1, true, false);
	expect_cpu(3, 3, 1, true, false);
	expect_cpu(4, 4, 1, false, false);
	assert_true(info.cpus[4].online_capable);
	expect_cpu(5, 5, 1, false, false);
	assert_false(info.cpus[5].online_capable);
	for (unsigned int i = 0; i < 6; i++) {
		assert_int_equal(info.cpus[i].acpi_uid, i);
		assert_int_equal(info.cpus[i].kind, ACPI_CPU_LAPIC);
	}

	/* SRAT: the trailing disabled all-zero entry is skipped. */
	assert_true(info.numa_valid);
	assert_int_equal(info.node_count, 2);
	assert_int_equal(info.memblk_count, 4);
	expect_memblk(0, 0, 0xa0000, 0, false);
	expect_memblk(1, 0x100000, 0x20000000, 0, false);
	expect_memblk(2, 0x20000000, 0x40000000, 1, false);
	expect_memblk(3, 4 * GB, 5 * GB, 1, true);

	/* SLIT */
	assert_true(info.have_distance);
	assert_int_equal(info.slit_localities, 2);
	assert_int_equal(info.distance[0][0], 10);
	assert_int_equal(info.distance[0][1], 21);
	assert_int_equal(info.distance[1][0], 21);
	assert_int_equal(info.distance[1][1], 10);

	expect_x86_fadt_hpet();
}

static void test_x2apic_3node_rsdt(void **state)
{
	BUILD("madt-x2apic", "srat-3node", "slit-3node");
	/* ACPI 1.0 RSDP: only the RSDT. */
	write_rsdp(RSDP_SCAN_AT, 0, 0);
	parse_expect(0x100, 0, NULL);

	assert_int_equal(info.tables,
			 ACPI_T_RSDT | ACPI_T_MADT | ACPI_T_SRAT | ACPI_T_SLIT);
	assert_int_equal(pa_val(info.rsdt), RSDT_AT);
	assert_int_equal(pa_val(info.xsdt), 0);
	/* The APIC ID 0xFF local APIC entry is ignored. */
	assert_int_equal(info.cpu_count, 5);
	assert_int_equal(info.cpu_usable_count, 4);
	expect_cpu(0, 0, 0, true, false);
	expect_cpu(1, 1, 0, true, false);
	expect_cpu(2, 0x100, 1, true, true);
	expect_cpu(3, 0x101, 1, true, false);
	expect_cpu(4, 0x102, 1, false, false);
	assert_int_equal(info.cpus[3].acpi_uid, 3);
	assert_int_equal(info.cpus[3].kind, ACPI_CPU_X2APIC);

	assert_int_equal(info.node_count, 3);
	assert_int_equal(info.memblk_count, 3);
	expect_memblk(2, 4 * GB, 6 * GB, 2, false);
	assert_int_equal(info.distance[0][2], 30);
	assert_int_equal(info.distance[2][1], 25);
	assert_int_equal(info.distance[1][0], 20);

	/* RAM beyond the SRAT: nearest lower node, one warning. */
	bootinfo_add_ram(&bi, pa(0), pa(2 * GB), 0);
	bootinfo_add_ram(&bi, pa(4 * GB), pa(8 * GB), 0);
	sandbox_console_clear();
	acpi_apply_numa(&bi, &info);
	assert_int_equal(test_console_warnings(), 1);
	assert_true(test_console_contains("SRAT: RAM [0x180000000"));
	assert_int_equal(bi.ram.count, 4);
	expect_ram(0, 0, GB, 0);
	expect_ram(1, 4 * GB, 6 * GB, 2);
	expect_ram(2, GB, 2 * GB, 1);
	expect_ram(3, 6 * GB, 8 * GB, 2);
}

static void test_arm64(void **state)
{
	BUILD(ARM64);
	/* UEFI: the RSDP comes from the configuration table (a hint). */
	write_rsdp(0x1ff000, 2, XSDT_AT);
	sandbox_console_clear();
	assert_int_equal(pa_val(acpi_find_rsdp(&mem, pa(0x1ff000))), 0x1ff000);
	/* MPIDR_EL1 with its RES1 bit 31: only affinity bits compare. */
	assert_int_equal(acpi_parse(&mem, pa(0x1ff000), 0x80000101ULL, &info),
			 0);
	assert_int_equal(test_console_warnings(), 0);

	assert_int_equal(info.gicd_base, 0x08000000);
	assert_int_equal(info.gic_version, 3);
	assert_int_equal(info.gicr_count, 2);
	assert_int_equal(info.gicr[0].base, 0x080a0000);
	assert_int_equal(info.gicr[0].length, 0xf60000);
	assert_int_equal(info.gicr[1].base, 0x4000000000ULL);
	assert_int_equal(info.gicr[1].length, 0x4000000);
	assert_int_equal(info.cpu_count, 5);
	assert_int_equal(info.cpu_usable_count, 4);
	expect_cpu(0, 0, 0, true, false);
	expect_cpu(1, 1, 0, true, false);
	expect_cpu(2, 0x100, 1, true, false);
	expect_cpu(3, 0x101, 1, true, true);
	expect_cpu(4, 0x102, 1, false, false);
	assert_false(info.cpus[4].online_capable);
	for (unsigned int i = 0; i < 5; i++) {
		assert_int_equal(info.cpus[i].gicc_cpu_if, i);
		assert_int_equal(info.cpus[i].acpi_uid, i);
		assert_int_equal(info.cpus[i].kind, ACPI_CPU_GICC);
	}
	assert_int_equal(info.node_count, 2);
	expect_memblk(0, GB, 2 * GB, 0, false);
	expect_memblk(1, 2 * GB, 3 * GB, 1, false);
	assert_false(info.have_distance);

	assert_true(info.hw_reduced);
	assert_true(info.psci_compliant);
	assert_true(info.psci_use_hvc);
	assert_int_equal(info.fadt_revision, 6);
	assert_int_equal(info.pm_timer.address, 0);
	assert_int_equal(info.pm1a_cnt.address, 0);
	assert_int_equal(pa_val(info.dsdt), DSDT_AT); /* from X_DSDT */
	assert_true(info.s5_found);
	assert_int_equal(info.s5_slp_typ, 0);

	assert_int_equal(info.spcr_type, ACPI_SPCR_PL011);
	assert_int_equal(info.spcr_reg.space_id, ACPI_GAS_MEMORY);
	assert_int_equal(info.spcr_reg.address, 0x09000000);
	assert_int_equal(info.spcr_baud, 115200);
	assert_int_equal(info.hpet_base, 0);

	/* GICC online-capable is flags bit 3 (ACPI 6.5). */
	put32(tbl(0) + 44 + 24 + 4 * 80 + 12, 1u << 3);
	fix_checksum(tbl(0));
	assert_int_equal(acpi_parse(&mem, pa(0x1ff000), 0x101, &info), 0);
	assert_true(info.cpus[4].online_capable);
	assert_false(info.cpus[4].usable);
}

static void test_ebda_scan(void **state)
{
	BUILD("madt-2node");
	memset(at(RSDP_SCAN_AT), 0, 36);
	at(0x40e)[0] = 0xc0; /* segment 0x9fc0 -> 0x9fc00 */
	at(0x40f)[0] = 0x9f;
	write_rsdp(0x9fc00 + 0x40, 2, XSDT_AT);
	parse_expect(0, 0, NULL);
	assert_int_equal(info.cpu_count, 6);
	/* No ACPI at all. */
	memset(w.mem, 0, IMG_SIZE);
	assert_int_equal(pa_val(acpi_find_rsdp(&mem, pa(0))),
			 pa_val(INVALID_PADDR));
	assert_int_equal(acpi_parse(&mem, INVALID_PADDR, 0, &info), -ENOENT);
}

/* inject=bad-srat / bad-slit: the parser sees corrupted copies only. */
static void test_corrupting_accessor(void **state)
{
	struct acpi_mem bad;
	uint8_t before[64];
	paddr_t r;

	BUILD(X86_2NODE);
	memcpy(before, tbl(1), sizeof(before));
	bad = acpi_mem_corrupting(&mem, ACPI_CORRUPT_SRAT);
	sandbox_console_clear();
	r = acpi_find_rsdp(&bad, pa(0));
	assert_int_equal(acpi_parse(&bad, r, 0, &info), 0);
	assert_true(test_console_contains("acpi: inject: SRAT at"));
	assert_true(test_console_contains("SRAT at 0x102000: bad checksum"));
	assert_int_equal(acpi_mem_corrupted(), ACPI_CORRUPT_SRAT);
	assert_false(info.tables & ACPI_T_SRAT);
	assert_false(test_console_contains("inject: SLIT"));
	expect_single_node();
	/* The firmware's table is untouched. */
	assert_memory_equal(tbl(1), before, sizeof(before));

	bad = acpi_mem_corrupting(&mem, ACPI_CORRUPT_SLIT);
	sandbox_console_clear();
	assert_int_equal(acpi_parse(&bad, r, 0, &info), 0);
	assert_true(test_console_contains("acpi: inject: SLIT at"));
	assert_int_equal(acpi_mem_corrupted(), ACPI_CORRUPT_SLIT);
	assert_true(info.tables & ACPI_T_SRAT);
	assert_false(info.tables & ACPI_T_SLIT);
	assert_true(info.numa_valid);
	assert_int_equal(info.distance[0][1], 20);

	/* No bits: the accessor itself. */
	bad = acpi_mem_corrupting(&mem, 0);
	assert_ptr_equal(bad.map, mem.map);
	assert_ptr_equal(bad.ctx, mem.ctx);
}

static void test_truncated_tables(void **state)
{
	/* Length larger than memory: the SRAT moved to the image's end. */
	BUILD(X86_2NODE);
	w.addr[1] = IMG_SIZE - 0x100;
	memcpy(at(w.addr[1]), at(TABLES_AT + 0x1000), 0x100);
	write_roots();
	parse_expect(0, 1, "length 344 runs out of memory");
	expect_single_node();

	/* Length smaller than a header. */
	BUILD(X86_2NODE);
	put32(tbl(1) + 4, 20);
	parse_expect(0, 1, "SRAT at 0x102000: length 20 invalid");
	expect_single_node();

	/* Huge length. */
	BUILD(X86_2NODE);
	put32(tbl(0) + 4, 0x7fffffff);
	parse_expect(0, 1, "length 2147483647 invalid");
	assert_int_equal(info.cpu_count, 0);
}

static void test_rsdp_bad_checksum(void **state)
{
	BUILD("madt-2node");
	/* A broken RSDP first in the scan, the good one after it. */
	write_rsdp(0xe0000, 2, XSDT_AT);
	at(0xe0000)[8] ^= 1;
	write_rsdp(RSDP_SCAN_AT, 2, XSDT_AT);
	parse_expect(0, 1, "RSDP at 0xe0000: bad checksum");

	/* Only the broken one. */
	memset(at(RSDP_SCAN_AT), 0, 36);
	sandbox_console_clear();
	assert_int_equal(pa_val(acpi_find_rsdp(&mem, pa(0))),
			 pa_val(INVALID_PADDR));
	assert_int_equal(test_console_warnings(), 1);

	/* A bad extended checksum keeps the RSDT usable. */
	write_rsdp(RSDP_SCAN_AT, 2, XSDT_AT);
	at(RSDP_SCAN_AT)[32] ^= 1;
	memset(at(0xe0000), 0, 36);
	parse_expect(0, 1, "bad extended checksum, using the RSDT");
	assert_true(info.tables & ACPI_T_RSDT);
	assert_int_equal(info.cpu_count, 6);

	/* A wrong hint. */
	sandbox_console_clear();
	assert_int_equal(pa_val(acpi_find_rsdp(&mem, pa(0x1000))),
			 pa_val(INVALID_PADDR));
	assert_int_equal(test_console_warnings(), 1);
	assert_int_equal(acpi_parse(&mem, pa(0x1000), 0, &info), -ENOENT);
}

static void test_xsdt_outside_memory(void **state)
{
	/* XSDT beyond RAM: warning, the RSDT is used instead. */
	BUILD(X86_2NODE);
	write_rsdp(RSDP_SCAN_AT, 2, 0x10000000);
	parse_expect(0, 1, "RSDP: table at 0x10000000 is not in memory");
	assert_true(info.tables & ACPI_T_RSDT);
	assert_true(info.numa_valid);
	assert_int_equal(info.cpu_count, 6);

	/* XSDT entry pointing outside: that table is skipped. */
	BUILD(X86_2NODE);
	w.addr[2] = 0xffffffffffff0000ULL;
	write_roots();
	parse_expect(0, 1,
		     "XSDT: table at 0xffffffffffff0000 is not in "
		     "memory");
	assert_false(info.have_distance);
	assert_true(info.numa_valid);

	/* Neither root valid. */
	BUILD(X86_2NODE);
	at(XSDT_AT)[0] = 'Y';
	at(RSDT_AT)[0] = 'Q';
	sandbox_console_clear();
	assert_int_equal(acpi_parse(&mem, pa(RSDP_SCAN_AT), 0, &info), -ENOENT);
	assert_int_equal(test_console_warnings(), 2);
}

static void test_duplicate_tables(void **state)
{
	BUILD("madt-2node", "srat-2node", "srat-3node");
	parse_expect(0, 1, "SRAT listed twice (0x102000 and 0x103000)");
	/* The first one is used. */
	assert_int_equal(info.memblk_count, 4);
}

/* The acpi_tree fuzz seeds are whole, warning-free ACPI images. */
static void test_fuzz_seeds(void **state)
{
	static const char *const seeds[] = {"x86-2node", "x2apic-3node",
					    "arm64"};

	for (size_t k = 0; k < ARRAY_SIZE(seeds); k++) {
		char path[128];
		uint64_t rsdp;
		size_t len;
		char *buf;

		snprintf(path, sizeof(path), "tests/fuzz/corpus/acpi_tree/%s",
			 seeds[k]);
		buf = sandbox_read_file(path, &len);
		assert_non_null(buf);
		assert_true(len >= 8 && len <= IMG_SIZE);
		memset(w.mem, 0, IMG_SIZE);
		memcpy(w.mem, buf, len);
		memcpy(&rsdp, buf, 8);
		free(buf);
		sandbox_console_clear();
		assert_int_equal(acpi_parse(&mem, pa(rsdp), 0, &info), 0);
		if (test_console_warnings())
			fail_msg("%s: %s", seeds[k], sandbox_console_buffer());
		assert_true(info.numa_valid);
		assert_true(info.cpu_count == 5 || info.cpu_count == 6);
		assert_int_equal(info.boot_cpu_found, true);
		if (k != 1)
			assert_true(info.tables & ACPI_T_DSDT);
	}
}

/* Every parser on every prefix of every fixture: no read past @len. */
static void test_prefixes(void **state)
{
	static const char *const names[] = {
		"madt-2node", "madt-x2apic", "madt-gicc",  "srat-2node",
		"srat-3node", "srat-gicc",   "slit-2node", "slit-3node",
		"facp-x86",   "facp-arm",    "hpet",	   "spcr",
		"dsdt-s5",
	};

	for (size_t k = 0; k < ARRAY_SIZE(names); k++) {
		size_t full = load(names[k], 0x10000);

		for (size_t n = 0; n <= full; n++) {
			uint8_t *b = malloc(n ? n : 1);
			uint8_t typ;

			memcpy(b, at(0x10000), n);
			acpi_info_reset(&info);
			acpi_parse_madt(b, n, 0, &info);
			acpi_parse_srat(b, n, &info);
			acpi_parse_slit(b, n, &info);
			acpi_parse_fadt(b, n, &info);
			acpi_parse_hpet(b, n, &info);
			acpi_parse_spcr(b, n, &info);
			acpi_find_s5(b, n, &typ);
			free(b);
		}
		sandbox_console_clear();
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_x86_2node, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_x2apic_3node_rsdt, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_arm64, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ebda_scan, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_corrupting_accessor, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_truncated_tables, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_rsdp_bad_checksum, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_xsdt_outside_memory, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_duplicate_tables, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_fuzz_seeds, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_prefixes, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
