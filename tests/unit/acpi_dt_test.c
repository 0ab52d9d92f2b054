/* SPDX-License-Identifier: MIT */
/*
 * boot/fdt/acpi_dt.c: the ACPI facts an arm64 boot on a DT needs, and DT
 * RAM as SRAT-like blocks. Fixture: acpi_fixture.h.
 */
#include "acpi_fixture.h"

/*
 * An arm64 UEFI boot on ACPI: the arch's DT facts from the tables
 * (boot/fdt/acpi_dt.c). Expected values from madt-gicc, facp-arm and spcr.
 */
/* test_arm64_dt_info(), continued: a FADT, SPCR and MADT that differ. */
static void arm64_dt_info_variants(struct dt_arch_info *dt,
				   struct console_spec *s8250)
{
	/*
	 * Not PSCI compliant (FADT arm_boot_arch 0), a 16550 SPCR (type 0)
	 * in memory, a GICv2 distributor, QEMU's OEM id.
	 */
	BUILD("madt-gicc", "facp-arm", "spcr", "dsdt-qemu-s5");
	tbl(1)[129] = 0;
	fix_checksum(tbl(1));
	tbl(2)[36] = 0;
	fix_checksum(tbl(2));
	tbl(0)[44 + 20] = 2;
	fix_checksum(tbl(0));
	memcpy(at(w.rsdp) + 9, "BOCHS ", 6);
	at(w.rsdp)[8] = 0;
	at(w.rsdp)[8] = (uint8_t)-acpi_checksum(at(w.rsdp), 20);
	at(w.rsdp)[32] = 0;
	at(w.rsdp)[32] = (uint8_t)-acpi_checksum(at(w.rsdp), 36);
	parse_expect(0, 0, NULL);
	bootinfo_init(&bi, BOOT_EFI);
	acpi_fill_bootinfo(&bi, &info);
	sandbox_console_clear();
	dt_info_from_acpi(&bi, &info, pa(0x1234000), dt, s8250);
	assert_int_equal(test_console_warnings(), 1);
	assert_true(test_console_contains("not PSCI compliant"));
	assert_int_equal(dt->psci_method, DT_PSCI_NONE);
	assert_false(dt->psci_v0_2);
	assert_false(dt->uart_is_pl011);
	assert_int_equal(pa_val(dt->uart_base), 0);
	assert_int_equal(s8250->kind, CONSOLE_8250_MMIO);
	assert_int_equal(s8250->addr, 0x09000000);
	assert_int_equal(pa_val(dt->gicd_base), 0);
	assert_int_equal(dt->gicr_count, 0);
	assert_true(dt->qemu_virt);

	/* An SPCR type keel cannot drive: warned, naming the kept UART. */
	BUILD("madt-gicc", "facp-arm", "spcr", "dsdt-qemu-s5");
	tbl(2)[36] = 0x7f;
	fix_checksum(tbl(2));
	parse_expect(0, 0, NULL);
	sandbox_console_clear();
	dt_info_from_acpi(&bi, &info, pa(0x1234000), dt, s8250);
	assert_int_equal(test_console_warnings(), 1);
	assert_true(test_console_contains("keeping 0x1234000"));
	assert_false(dt->uart_is_pl011);
	assert_int_equal(s8250->kind, CONSOLE_DEFAULT);
}

static void test_arm64_dt_info(void **state)
{
	struct dt_arch_info dt;
	struct console_spec s8250 = {CONSOLE_PL011, 1, 1, 1};

	BUILD(ARM64);
	parse_expect(0x101, 0, NULL);
	acpi_fill_bootinfo(&bi, &info);
	memset(&dt, 0xa5, sizeof(dt));
	dt_info_from_acpi(&bi, &info, pa(0x1234000), &dt, &s8250);
	assert_int_equal(test_console_warnings(), 0);
	/* facp-arm: arm_boot_arch PSCI compliant, use HVC. */
	assert_int_equal(dt.psci_method, DT_PSCI_HVC);
	assert_true(dt.psci_v0_2);
	/* spcr: a PL011 at 0x09000000. */
	assert_true(dt.uart_is_pl011);
	assert_int_equal(pa_val(dt.uart_base), 0x09000000);
	assert_int_equal(dt.uart_path[0], 0);
	assert_int_equal(s8250.kind, CONSOLE_DEFAULT);
	/* madt-gicc: GICD v3 and virt's two redistributor regions. */
	assert_int_equal(pa_val(dt.gicd_base), 0x08000000);
	assert_int_equal(dt.gicr_count, 2);
	assert_int_equal(pa_val(dt.gicr[0].base), 0x080a0000);
	assert_int_equal(dt.gicr[0].size, 0xf60000);
	assert_int_equal(pa_val(dt.gicr[1].base), 0x4000000000ULL);
	assert_int_equal(dt.gicr[1].size, 0x4000000);
	assert_int_equal(dt.timer_freq, 0);
	assert_false(dt.cpu_map);
	assert_false(dt.qemu_virt); /* OEM "KEEL", not QEMU's "BOCHS" */
	/* MPIDR without MT: Aff0 the core, Aff1 the package. */
	assert_int_equal(bi.cpu_count, 5);
	assert_int_equal(bi.cpus[3].hwid, 0x101);
	assert_int_equal(bi.cpus[3].package, 1);
	assert_int_equal(bi.cpus[3].core, 1);
	assert_int_equal(bi.cpus[3].thread, 0);
	assert_int_equal(bi.cpus[1].package, 0);
	assert_int_equal(bi.cpus[1].core, 1);

	arm64_dt_info_variants(&dt, &s8250);
}

/* A UEFI boot on a DT: its RAM ranges label the UEFI map's RAM. */
static void test_dt_ram_to_numa(void **state)
{
	bootinfo_init(&bi, BOOT_EFI);
	bootinfo_add_ram(&bi, pa(4 * GB), pa(6 * GB), 1);
	bootinfo_add_ram(&bi, pa(GB), pa(2 * GB), 0);
	bootinfo_add_ram(&bi, pa(2 * GB), pa(3 * GB), 2);
	dt_ram_to_numa(&bi, &info);
	assert_int_equal(bi.ram.count, 0);
	assert_true(info.numa_valid);
	assert_int_equal(info.memblk_count, 3);
	expect_memblk(0, GB, 2 * GB, 0, false);
	expect_memblk(1, 2 * GB, 3 * GB, 2, false);
	expect_memblk(2, 4 * GB, 6 * GB, 1, false);

	/* No RAM: no blocks, not valid. */
	dt_ram_to_numa(&bi, &info);
	assert_int_equal(info.memblk_count, 0);
	assert_false(info.numa_valid);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_arm64_dt_info, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_dt_ram_to_numa, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
