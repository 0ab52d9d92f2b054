/* SPDX-License-Identifier: MIT */
/*
 * boot/acpi_madt.c: MADT CPUs (x2APIC, GICC, GICR), generated big
 * machines and malformed entries. Fixture: acpi_fixture.h.
 */
#include "acpi_fixture.h"

static void test_x2apic_512_cpus_8_nodes(void **state)
{
	const unsigned int cpus = 512, nodes = 8;
	unsigned int x2 = 0;

	(void)state;
	_Static_assert(512 <= ACPI_MAX_CPUS, "the build holds 512 CPUs");
	gen_machine(cpus, nodes);
	parse_expect(0, 0, NULL);
	assert_int_equal(info.cpu_count, cpus);
	assert_int_equal(info.cpu_usable_count, cpus);
	assert_int_equal(info.cpu_dropped, 0);
	assert_true(info.numa_valid);
	assert_true(info.have_distance);
	assert_int_equal(info.node_count, nodes);
	for (unsigned int i = 0; i < cpus; i++) {
		expect_cpu(i, gen_apic_id(i), gen_node(i, cpus, nodes), true,
			   i == 0);
		x2 += info.cpus[i].kind == ACPI_CPU_X2APIC;
	}
	/* IDs 0, 2 .. 254 are xAPIC entries, the rest x2APIC. */
	assert_int_equal(x2, cpus - 128);

	sandbox_console_clear();
	gen_bootinfo(nodes);
	assert_int_equal(test_console_warnings(), 0);
	assert_int_equal(bi.cpu_count, cpus);
	assert_int_equal(bi.dropped_cpus, 0);
	assert_int_equal(bi.node_count, nodes);
	assert_true(bi.cpus[0].boot_cpu);
	assert_int_equal(bi.cpus[cpus - 1].hwid, gen_apic_id(cpus - 1));
	assert_int_equal(bi.cpus[cpus - 1].node, nodes - 1);
	for (unsigned int a = 0; a < nodes; a++)
		for (unsigned int b = 0; b < nodes; b++)
			assert_int_equal(bi.distance[a][b], gen_distance(a, b));
}

/*
 * More CPUs than the build holds: the first ACPI_MAX_CPUS kept, the rest
 * counted, and exactly one warning naming both counts and the option.
 */
static void test_madt_too_many_cpus(void **state)
{
	const unsigned int extra = 32, n = ACPI_MAX_CPUS + extra;
	char want[160];

	(void)state;
	gen_machine(n, 4);
	parse_expect(0, 0, NULL); /* the parser only counts */
	assert_int_equal(info.cpu_count, ACPI_MAX_CPUS);
	assert_int_equal(info.cpu_dropped, extra);
	assert_true(info.cpus[0].boot_cpu);
	assert_int_equal(info.cpus[ACPI_MAX_CPUS - 1].hwid,
			 gen_apic_id(ACPI_MAX_CPUS - 1));

	sandbox_console_clear();
	gen_bootinfo(4);
	snprintf(want, sizeof(want),
		 "firmware describes %u CPUs, this build holds %u "
		 "(CONFIG_NR_CPUS): %u dropped",
		 n, (unsigned int)CONFIG_NR_CPUS, extra);
	if (test_console_warnings() != 1 || !test_console_contains(want))
		fail_msg("want one warning \"%s\", got:\n%s", want,
			 sandbox_console_buffer());
	assert_int_equal(bi.cpu_count, CONFIG_NR_CPUS);
	assert_int_equal(bi.dropped_cpus, extra);
}

/*
 * GICR regions beyond ACPI_MAX_GICR: the first ones kept in table order,
 * the rest counted, one warning; a GICR entry too short is skipped.
 */
static void test_madt_gicr_many(void **state)
{
	uint8_t *m;

	(void)state;
	BUILD("madt-gicr-many", "facp-arm", "dsdt-qemu-s5");
	parse_expect(0, 1, "MADT: more than 16 GICR entries, the rest ignored");
	assert_int_equal(info.gicr_count, ACPI_MAX_GICR);
	assert_int_equal(info.gicr_dropped, 18 - ACPI_MAX_GICR);
	for (unsigned int i = 0; i < ACPI_MAX_GICR; i++) {
		assert_int_equal(info.gicr[i].base, 0x10000000 + i * 0x100000);
		assert_int_equal(info.gicr[i].length, 0x20000);
	}
	assert_int_equal(info.cpu_count, 1);

	/* The last GICR entry 12 bytes long (the table 4 bytes shorter). */
	BUILD("madt-gicr-many", "facp-arm", "dsdt-qemu-s5");
	m = tbl(0);
	assert_int_equal(get32(m + 4), 44 + 24 + 80 + 18 * 16);
	put32(m + 4, 44 + 24 + 80 + 18 * 16 - 4);
	m[44 + 24 + 80 + 17 * 16 + 1] = 12;
	fix_checksum(m);
	parse_expect(0, 2, "MADT: entry type 14 at offset 420 has length 12");
	assert_int_equal(info.gicr_count, ACPI_MAX_GICR);
	assert_int_equal(info.gicr_dropped, 1);
	assert_int_equal(info.gicr[0].base, 0x10000000);
}

static void test_madt_bad_entries(void **state)
{
	/* Third local APIC entry with length 0: entries before it kept. */
	BUILD(X86_2NODE);
	tbl(0)[44 + 2 * 8 + 1] = 0;
	fix_checksum(tbl(0));
	parse_expect(0, 1, "MADT: entry type 0 at offset 60 has length 0");
	assert_int_equal(info.cpu_count, 2);
	assert_true(info.numa_valid);

	/* Last entry running past the end. */
	BUILD(X86_2NODE);
	tbl(0)[get32(tbl(0) + 4) - 6 + 1] = 7;
	fix_checksum(tbl(0));
	parse_expect(0, 1, "has length 7 (table length 110)");
	assert_int_equal(info.cpu_count, 6);

	/* Duplicate APIC ID. */
	BUILD(X86_2NODE);
	tbl(0)[44 + 8 + 3] = 0;
	fix_checksum(tbl(0));
	parse_expect(1, 1, "CPU hwid 0 listed twice");
	assert_int_equal(info.cpu_count, 5);
	assert_false(info.boot_cpu_found);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_madt_gicr_many, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_madt_too_many_cpus, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_x2apic_512_cpus_8_nodes,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_madt_bad_entries, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
