/* SPDX-License-Identifier: MIT */
/*
 * boot/fwboot.c and boot/fdt/fdt_inject.c: what every arch's setup asks of
 * boot/ before keel_main() (the firmware faults of the options, loglevel=,
 * the boot-CPU fix-up, the address width, inject=bad-dt-distance on a copy
 * of the DT).
 */
#include <stdio.h>
#include <stdlib.h>

#include "common.h"
#include <keel/fdt.h>
#include <keel/fwboot.h>

#define DTB_DIR "build/sandbox-asan/tests/data/"

static struct bootinfo bi;
static struct keel_options o;
static struct dt_arch_info ai;

/* A two-CPU, one-node machine whose command line is @cmdline. */
static void finish_machine(const char *cmdline)
{
	bootinfo_init(&bi, BOOT_SANDBOX);
	bootinfo_add_ram(&bi, pa(0), pa(256ull << 20), 0);
	bootinfo_add_cpu(&bi, 0, 0, 0, 0, 0, true);
	bi.cpus[0].boot_cpu = true;
	snprintf(bi.cmdline, sizeof(bi.cmdline), "%s", cmdline);
	options_parse(&o, bi.cmdline, sizeof(bi.cmdline));
	sandbox_console_clear();
	fwboot_finish(&bi, &o);
}

/*
 * loglevel= takes effect in fwboot_finish(), before the sanitiser's lines,
 * and nowhere before: the parse leaves the console alone.
 */
static void test_finish_loglevel(void **state)
{
	bootinfo_init(&bi, BOOT_SANDBOX);
	options_parse(&o, "loglevel=0", 10);
	assert_int_equal(printk_get_level(), LOG_INFO);
	/* RAM twice, on two nodes: the sanitiser warns, at loglevel 0 unseen. */
	bootinfo_add_ram(&bi, pa(0), pa(64ull << 20), 0);
	bootinfo_add_ram(&bi, pa(32ull << 20), pa(96ull << 20), 1);
	bootinfo_add_cpu(&bi, 0, 0, 0, 0, 0, true);
	sandbox_console_clear();
	fwboot_finish(&bi, &o);
	assert_int_equal(printk_get_level(), LOG_ERR);
	assert_int_equal(test_console_warnings(), 0);
	assert_true(bi.fixups > 0);
}

/*
 * The firmware-table faults where no such table was corrupted: one
 * warning each, naming the word; none for one the arch acted on. The
 * record is per boot: the next fwboot_finish() starts afresh.
 */
static void test_finish_tables_not_met(void **state)
{
	static const char all[] = "inject=bad-srat inject=bad-slit "
				  "inject=bad-dt-distance";

	finish_machine(all);
	assert_int_equal(test_console_warnings(), 3);
	assert_true(test_console_contains("inject=bad-srat: no ACPI SRAT to "
					  "corrupt on this boot, nothing "
					  "injected"));
	assert_true(test_console_contains("inject=bad-slit: no ACPI SLIT"));
	assert_true(test_console_contains("inject=bad-dt-distance: no device "
					  "tree distance-map"));

	fwboot_inject_done(INJECT_FW_BAD_SRAT | INJECT_FW_BAD_DT_DIST);
	finish_machine(all);
	assert_int_equal(test_console_warnings(), 1);
	assert_true(test_console_contains("inject=bad-slit: no ACPI SLIT"));

	finish_machine("inject=bad-srat");
	assert_int_equal(test_console_warnings(), 1);
	finish_machine("inject=bad-map:1");
	assert_false(test_console_contains("nothing injected"));
}

static void test_paddr_bits(void **state)
{
	/* A CPU that does not say: 36 bits, within what the arch maps. */
	assert_int_equal(fwboot_paddr_bits(0, 46), FWBOOT_PADDR_BITS_UNKNOWN);
	assert_int_equal(fwboot_paddr_bits(0, 32), 32);
	assert_int_equal(fwboot_paddr_bits(40, 46), 40);
	assert_int_equal(fwboot_paddr_bits(52, 48), 48);
}

static void test_boot_cpu_listed(void **state)
{
	struct bi_cpu me = {.hwid = 0x101, .node = NUMA_NO_NODE};

	bootinfo_init(&bi, BOOT_DT);
	bootinfo_add_cpu(&bi, 0x100, 0, 0, 0, 0, true);
	/* Listed with a bit the mask leaves out (MPIDR.MT, say). */
	bootinfo_add_cpu(&bi, 0x1000101, 0, 0, 1, 0, true);
	assert_int_equal(fwboot_boot_cpu(&bi, &me, 0xffff, "dt", "MPIDR"), 1);
	assert_int_equal(bi.cpu_count, 2);
	assert_false(bi.cpus[0].boot_cpu);
	assert_true(bi.cpus[1].boot_cpu);
	assert_int_equal(test_console_warnings(), 0);
}

static void test_boot_cpu_missing(void **state)
{
	struct bi_cpu me = {.hwid = 7, .node = 0, .core = 3};

	bootinfo_init(&bi, BOOT_MULTIBOOT2);
	bootinfo_add_cpu(&bi, 0, 0, 0, 0, 0, true);
	assert_int_equal(
		fwboot_boot_cpu(&bi, &me, ~0ull, "ACPI MADT", "APIC ID"), 1);
	assert_int_equal(bi.cpu_count, 2);
	assert_int_equal(bi.cpus[1].hwid, 7);
	assert_int_equal(bi.cpus[1].core, 3);
	assert_true(bi.cpus[1].boot_cpu);
	assert_int_equal(test_console_warnings(), 1);
	assert_true(test_console_contains("ACPI MADT: boot CPU APIC ID 0x7"));

	/* No CPU list at all (acpi=off): added without a warning. */
	sandbox_console_clear();
	bootinfo_init(&bi, BOOT_MULTIBOOT1);
	assert_int_equal(fwboot_boot_cpu(&bi, &me, ~0ull, NULL, NULL), 0);
	assert_true(bi.cpus[0].boot_cpu);
	assert_int_equal(test_console_warnings(), 0);
}

static void test_boot_cpu_unknown_hwid(void **state)
{
	bootinfo_init(&bi, BOOT_SANDBOX);
	assert_int_equal(fwboot_boot_cpu_first(&bi, 0), -1);
	bootinfo_add_cpu(&bi, 5, 0, 0, 0, 0, true);
	bootinfo_add_cpu(&bi, 6, 0, 0, 1, 0, true);
	assert_int_equal(fwboot_boot_cpu_first(&bi, 0), 0);
	assert_true(bi.cpus[0].boot_cpu);
	/* One marked already: it stays the only one. */
	bi.cpus[0].boot_cpu = false;
	bi.cpus[1].boot_cpu = true;
	assert_int_equal(fwboot_boot_cpu_first(&bi, 0), 1);
	assert_false(bi.cpus[0].boot_cpu);
	/* None marked: the first usable one from @from on. */
	bi.cpus[1].boot_cpu = false;
	bootinfo_add_cpu(&bi, 7, 0, 0, 2, 0, false);
	bootinfo_add_cpu(&bi, 8, 0, 0, 3, 0, true);
	assert_int_equal(fwboot_boot_cpu_first(&bi, 2), 3);
	assert_true(bi.cpus[3].boot_cpu);
	assert_false(bi.cpus[2].boot_cpu);
}

static uint8_t *load_dtb(const char *name, size_t *len)
{
	char path[256];
	uint8_t *buf;

	snprintf(path, sizeof(path), DTB_DIR "%s.dtb", name);
	buf = (uint8_t *)sandbox_read_file(path, len);
	if (!buf) {
		assert_int_equal(system("scripts/dtbs.sh"), 0);
		buf = (uint8_t *)sandbox_read_file(path, len);
	}
	assert_non_null(buf);
	return buf;
}

static void test_bad_dt_distance(void **state)
{
	size_t len;
	uint8_t *blob = load_dtb("dt-virt-2node", &len);
	const paddr_t at = pa(0x48000000);

	bootinfo_init(&bi, BOOT_DT);
	assert_int_equal(dt_parse(blob, len, at, &bi, &ai), 0);
	/* The fixture: <0 1 20>, <1 0 20>. */
	assert_int_equal(bi.distance[0][1], 20);
	assert_int_equal(bi.fixups, 0);

	assert_int_equal(dt_parse_bad_distance(blob, len, at, &bi, &ai), 1);
	assert_true(test_console_contains("inject: DT distance-matrix entry "
					  "0 1 changed from 20 to 10"));
	/* 0 -> 1 = 10 is forbidden: skipped, the reverse entry stands. */
	assert_int_equal(bi.fixups, 1);
	assert_int_equal(bi.distance[0][1], 20);
	assert_int_equal(bi.ram.count, 2);
	for (unsigned int i = 0; i < bi.reserved.count; i++)
		if (!strcmp(bi.reserved.regions[i].name, "dtb"))
			assert_int_equal(pa_val(bi.reserved.regions[i].end),
					 pa_val(at) + len);
	/* The firmware's blob is not written: it parses clean again. */
	bootinfo_init(&bi, BOOT_DT);
	assert_int_equal(dt_parse(blob, len, at, &bi, &ai), 0);
	assert_int_equal(bi.fixups, 0);
	free(blob);
}

static void test_bad_dt_distance_none(void **state)
{
	size_t len;
	uint8_t *blob = load_dtb("dt-single", &len);

	bootinfo_init(&bi, BOOT_DT);
	assert_int_equal(dt_parse(blob, len, pa(0x48000000), &bi, &ai), 0);
	bi.loader[0] = 'X'; /* untouched when nothing is injected */
	assert_int_equal(
		dt_parse_bad_distance(blob, len, pa(0x48000000), &bi, &ai), 0);
	assert_int_equal(bi.loader[0], 'X');
	assert_true(test_console_contains("no distance-matrix entry between "
					  "two nodes, nothing injected"));
	free(blob);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_finish_loglevel,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_finish_tables_not_met,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_paddr_bits, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_boot_cpu_listed,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_boot_cpu_missing,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_boot_cpu_unknown_hwid,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_bad_dt_distance,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_bad_dt_distance_none,
						test_setup, test_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
