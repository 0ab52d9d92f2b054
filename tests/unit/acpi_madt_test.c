/* SPDX-License-Identifier: MIT */
/*
 * boot/acpi/acpi_madt.c: MADT CPUs (x2APIC, GICC, GICR), generated big
 * machines and malformed entries; the I/O APICs and ISA overrides, well
 * formed and not. Fixture: acpi_fixture.h.
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

/* ---- I/O APICs and interrupt source overrides (type 1, type 2) ------ */

/* A MADT built entry by entry at GEN_MADT_AT (header, APIC 0 at 0). */
static uint32_t madt_len;

static uint8_t *madt_begin(void)
{
	uint8_t *m = at(GEN_MADT_AT);

	memset(w.mem, 0, IMG_SIZE);
	madt_len = 44;
	m[44] = 0, m[45] = 8, m[46] = 0, m[47] = 0;
	put32(m + 48, 1); /* one enabled local APIC, ID 0 */
	madt_len += 8;
	return m;
}

static void madt_ioapic(uint8_t len, uint8_t id, uint32_t base, uint32_t gsi)
{
	uint8_t *e = at(GEN_MADT_AT) + madt_len;

	e[0] = 1, e[1] = len, e[2] = id, e[3] = 0;
	put32(e + 4, base);
	put32(e + 8, gsi);
	madt_len += len;
}

static void madt_override(uint8_t len, uint8_t bus, uint8_t irq, uint32_t gsi,
			  uint16_t flags)
{
	uint8_t *e = at(GEN_MADT_AT) + madt_len;

	e[0] = 2, e[1] = len, e[2] = bus, e[3] = irq;
	put32(e + 4, gsi);
	e[8] = (uint8_t)flags, e[9] = (uint8_t)(flags >> 8);
	madt_len += len;
}

/* acpi_parse_madt() on the built table; @nwarn warnings, @must among them. */
static int madt_parse(unsigned int nwarn, const char *must)
{
	uint8_t *m = at(GEN_MADT_AT);
	int rc;

	write_header(m, "APIC", madt_len, 5);
	put32(m + 36, 0xfee00000);
	acpi_info_reset(&info);
	sandbox_console_clear();
	rc = acpi_parse_madt(m, madt_len, 0, &info);
	if (test_console_warnings() != nwarn || info.warnings != nwarn)
		fail_msg("expected %u warnings, got %u (info %u):\n%s", nwarn,
			 test_console_warnings(), info.warnings,
			 sandbox_console_buffer());
	if (must && !test_console_contains(must))
		fail_msg("no \"%s\" in:\n%s", must, sandbox_console_buffer());
	return rc;
}

/*
 * QEMU pc's interrupt entries (dumped from QEMU 7.2): one I/O APIC, ID 0 at
 * 0xfec00000 from GSI 0; ISA IRQ 0 on GSI 2, IRQs 5, 9-11 level active high.
 */
static void test_madt_ioapic_qemu(void **state)
{
	static const uint8_t level[] = {5, 9, 10, 11};
	uint16_t flags;

	(void)state;
	madt_begin();
	madt_ioapic(12, 0, 0xfec00000, 0);
	madt_override(10, 0, 0, 2, 0);
	for (unsigned int i = 0; i < sizeof(level); i++)
		madt_override(10, 0, level[i], level[i], 0xd);
	assert_int_equal(madt_parse(0, NULL), 0);
	assert_int_equal(info.cpu_count, 1);
	assert_int_equal(info.ioapic_count, 1);
	assert_int_equal(info.ioapic_dropped, 0);
	assert_int_equal(info.ioapic[0].base, 0xfec00000);
	assert_int_equal(info.ioapic[0].gsi_base, 0);
	assert_int_equal(info.ioapic[0].id, 0);
	assert_int_equal(acpi_isa_irq_gsi(&info, 0, &flags), 2);
	assert_int_equal(flags, 0);
	assert_int_equal(acpi_isa_irq_gsi(&info, 8, &flags), 8);
	assert_int_equal(flags, 0);
	assert_int_equal(acpi_isa_irq_gsi(&info, 9, &flags), 9);
	assert_int_equal(flags, 0xd);
	/* Out of range asks: the IRQ itself, no flags, nothing read past. */
	assert_int_equal(acpi_isa_irq_gsi(&info, 200, &flags), 200);
	assert_int_equal(flags, 0);
}

/* The fixture's I/O APIC (madt-2node.dsl), among the CPU entries. */
static void test_madt_ioapic_fixture(void **state)
{
	(void)state;
	BUILD(X86_2NODE);
	parse_expect(0, 0, NULL);
	assert_int_equal(info.ioapic_count, 1);
	assert_int_equal(info.ioapic[0].base, 0xfec00000);
	assert_int_equal(info.ioapic[0].gsi_base, 0);
	assert_int_equal(info.cpu_count, 6);
}

/* Each malformed entry: one warning naming it, skipped, the rest kept. */
static void test_madt_ioapic_malformed(void **state)
{
	uint16_t flags;

	(void)state;
	madt_begin();
	madt_ioapic(11, 1, 0xfec01000, 24); /* too short for its fields */
	madt_ioapic(12, 2, 0xfec00000, 0);
	assert_int_equal(madt_parse(1, "entry type 1 at offset 52 has length "
				       "11 < 12, skipped"),
			 0);
	assert_int_equal(info.ioapic_count, 1);
	assert_int_equal(info.ioapic[0].id, 2);

	madt_begin();
	madt_ioapic(12, 3, 0, 24);
	madt_ioapic(12, 0, 0xfec00000, 0);
	assert_int_equal(madt_parse(1, "I/O APIC ID 3 at address 0, skipped"),
			 0);
	assert_int_equal(info.ioapic_count, 1);
	assert_int_equal(info.ioapic[0].base, 0xfec00000);

	madt_begin();
	madt_ioapic(12, 0, 0xfec00000, 0);
	madt_ioapic(12, 1, 0xfec00000, 24);
	assert_int_equal(madt_parse(1, "I/O APIC at 0xfec00000 listed twice"),
			 0);
	assert_int_equal(info.ioapic_count, 1);
	assert_int_equal(info.ioapic[0].gsi_base, 0);

	/* Overrides: another bus, an IRQ past ISA's, twice, too short. */
	madt_begin();
	madt_override(10, 1, 4, 20, 0);
	madt_override(10, 0, 16, 16, 0);
	madt_override(10, 0, 0, 2, 0);
	madt_override(10, 0, 0, 7, 0xf);
	madt_override(9, 0, 8, 18, 0);
	assert_int_equal(madt_parse(4, "ISA IRQ 0 overridden twice (GSI 2, "
				       "then 7), keeping the first"),
			 0);
	assert_true(test_console_contains("override of bus 1 IRQ 4"));
	assert_true(test_console_contains("override of bus 0 IRQ 16"));
	assert_true(test_console_contains("has length 9 < 10, skipped"));
	assert_int_equal(acpi_isa_irq_gsi(&info, 0, &flags), 2);
	assert_int_equal(flags, 0);
	assert_int_equal(acpi_isa_irq_gsi(&info, 4, &flags), 4);
	assert_int_equal(acpi_isa_irq_gsi(&info, 8, &flags), 8);
	assert_int_equal(flags, 0);
}

/* More I/O APICs than the table holds: the first kept, one warning. */
static void test_madt_ioapic_many(void **state)
{
	const unsigned int n = ACPI_MAX_IOAPICS + 3;

	(void)state;
	madt_begin();
	for (unsigned int i = 0; i < n; i++)
		madt_ioapic(12, (uint8_t)i, 0xfec00000 + i * 0x1000, i * 24);
	assert_int_equal(madt_parse(1, "more than 64 I/O APIC entries"), 0);
	assert_int_equal(info.ioapic_count, ACPI_MAX_IOAPICS);
	assert_int_equal(info.ioapic_dropped, 3);
	assert_int_equal(info.ioapic[ACPI_MAX_IOAPICS - 1].gsi_base,
			 (ACPI_MAX_IOAPICS - 1) * 24);
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
		cmocka_unit_test_setup_teardown(test_madt_ioapic_qemu, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_madt_ioapic_fixture, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_madt_ioapic_malformed,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_madt_ioapic_many, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
