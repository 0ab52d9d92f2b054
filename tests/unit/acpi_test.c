/* SPDX-License-Identifier: MIT */
/*
 * boot/acpi.c and boot/acpi_*.c on a fake physical memory image.
 *
 * The tables are the iasl-compiled .dsl fixtures of tests/data/acpi
 * (scripts/acpi-fixtures.sh puts them in build/sandbox-asan/tests/data/acpi);
 * the RSDP, XSDT and RSDT are written here. Image layout (physical):
 *   0x40e        EBDA segment pointer (0 unless a test sets it)
 *   0xe0000...   RSDP (scanned) unless a test passes it as a hint
 *   0x100000     XSDT, 0x100800 RSDT
 *   0x101000+    one table per 4 KiB, in the order given
 *   0x140000     DSDT (the FADT fixtures point there)
 * Expected values come from the .dsl sources, never from the parser.
 * Every malformed case must print exactly one warning and fall back.
 */
#include <stdlib.h>

#include "common.h"

#include <keel/acpi.h>
#include <keel/console_spec.h>
#include <keel/fdt.h>

#define IMG_SIZE     0x200000ULL
#define XSDT_AT	     0x100000ULL
#define RSDT_AT	     0x100800ULL
#define TABLES_AT    0x101000ULL
#define DSDT_AT	     0x140000ULL
#define RSDP_SCAN_AT 0xf0010ULL
#define FIXTURES     "build/sandbox-asan/tests/data/acpi/"
#define MAX_T	     8

#define STR_(x)	     #x
#define STR(x)	     STR_(x)
#define MB	     (1ULL << 20)
#define GB	     (1ULL << 30)

struct world {
	uint8_t *mem;
	uint64_t addr[MAX_T];
	unsigned int count;
	uint64_t rsdp;
};

static struct world w;
static struct acpi_info info;
static struct bootinfo bi;

static const void *img_map(uint64_t addr, size_t len, void *ctx)
{
	struct world *wd = ctx;

	if (addr > IMG_SIZE || len > IMG_SIZE - addr)
		return NULL;
	return wd->mem + addr;
}

static const struct acpi_mem mem = {img_map, &w};

static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void put64(uint8_t *p, uint64_t v)
{
	put32(p, (uint32_t)v);
	put32(p + 4, (uint32_t)(v >> 32));
}

static uint32_t get32(const uint8_t *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

static void fix_checksum(uint8_t *t)
{
	t[9] = 0;
	t[9] = (uint8_t)-acpi_checksum(t, get32(t + 4));
}

static uint8_t *at(uint64_t addr)
{
	return w.mem + addr;
}

/* Table i of the world (in the order given to build()). */
static uint8_t *tbl(unsigned int i)
{
	return at(w.addr[i]);
}

static size_t load(const char *name, uint64_t addr)
{
	char path[256];
	size_t len;
	char *buf;

	snprintf(path, sizeof(path), FIXTURES "%s.aml", name);
	buf = sandbox_read_file(path, &len);
	if (!buf)
		fail_msg("cannot read %s: run scripts/acpi-fixtures.sh", path);
	assert_true(addr + len <= IMG_SIZE);
	memcpy(at(addr), buf, len);
	free(buf);
	return len;
}

static void write_header(uint8_t *t, const char *sig, uint32_t len, uint8_t rev)
{
	memcpy(t, sig, 4);
	put32(t + 4, len);
	t[8] = rev;
	memcpy(t + 10, "KEEL  ", 6);
	memcpy(t + 16, "KEELTEST", 8);
}

/* Rewrite the XSDT/RSDT from w.addr[] (after a test changed addresses). */
static void write_roots(void)
{
	uint8_t *x = at(XSDT_AT), *r = at(RSDT_AT);
	unsigned int i;

	write_header(x, "XSDT", 36 + 8 * w.count, 1);
	write_header(r, "RSDT", 36 + 4 * w.count, 1);
	for (i = 0; i < w.count; i++) {
		put64(x + 36 + 8 * i, w.addr[i]);
		put32(r + 36 + 4 * i, (uint32_t)w.addr[i]);
	}
	fix_checksum(x);
	fix_checksum(r);
}

static void write_rsdp(uint64_t where, uint8_t rev, uint64_t xsdt)
{
	uint8_t *p = at(where);

	memset(p, 0, 36);
	memcpy(p, "RSD PTR ", 8);
	memcpy(p + 9, "KEEL  ", 6);
	p[15] = rev;
	put32(p + 16, RSDT_AT);
	p[8] = (uint8_t)-acpi_checksum(p, 20);
	if (rev >= 2) {
		put32(p + 20, 36);
		put64(p + 24, xsdt);
		p[32] = (uint8_t)-acpi_checksum(p, 36);
	}
	w.rsdp = where;
}

/*
 * Build the image: the named fixtures as tables (names starting with
 * "dsdt" go to DSDT_AT and are not listed), roots, a v2 RSDP at
 * RSDP_SCAN_AT.
 */
static void build(const char *const *names)
{
	uint64_t next = TABLES_AT;

	memset(w.mem, 0, IMG_SIZE);
	w.count = 0;
	for (; *names; names++) {
		if (!strncmp(*names, "dsdt", 4)) {
			load(*names, DSDT_AT);
			continue;
		}
		assert_true(w.count < MAX_T);
		w.addr[w.count++] = next;
		load(*names, next);
		next += 0x1000;
	}
	write_roots();
	write_rsdp(RSDP_SCAN_AT, 2, XSDT_AT);
}

#define BUILD(...)                                                   \
	do {                                                         \
		static const char *const n_[] = {__VA_ARGS__, NULL}; \
		build(n_);                                           \
	} while (0)

/* Parse via the scan; require @nwarn warnings and @must in the log. */
static void parse_expect(uint64_t hwid_boot, unsigned int nwarn,
			 const char *must)
{
	unsigned int scan_warnings;
	paddr_t r;

	sandbox_console_clear();
	r = acpi_find_rsdp(&mem, pa(0));
	assert_int_equal(pa_val(r), w.rsdp);
	scan_warnings = test_console_warnings();
	assert_int_equal(acpi_parse(&mem, r, hwid_boot, &info), 0);
	if (test_console_warnings() != nwarn ||
	    info.warnings != nwarn - scan_warnings)
		fail_msg("expected %u warnings, got %u (info %u):\n%s", nwarn,
			 test_console_warnings(), info.warnings,
			 sandbox_console_buffer());
	if (must && !test_console_contains(must))
		fail_msg("no \"%s\" in:\n%s", must, sandbox_console_buffer());
}

static int setup(void **state)
{
	w.mem = calloc(1, IMG_SIZE);
	assert_non_null(w.mem);
	bootinfo_init(&bi, BOOT_MULTIBOOT2);
	return test_setup(state);
}

static int teardown(void **state)
{
	free(w.mem);
	return test_teardown(state);
}

static void expect_cpu(unsigned int i, uint64_t hwid, uint32_t node,
		       bool usable, bool boot)
{
	const struct acpi_cpu *c = &info.cpus[i];

	assert_true(i < info.cpu_count);
	assert_int_equal(c->hwid, hwid);
	assert_int_equal(c->node, node);
	assert_int_equal(c->usable, usable);
	assert_int_equal(c->boot_cpu, boot);
}

static void expect_memblk(unsigned int i, uint64_t s, uint64_t e, uint32_t node,
			  bool hotplug)
{
	assert_true(i < info.memblk_count);
	assert_int_equal(pa_val(info.memblk[i].start), s);
	assert_int_equal(pa_val(info.memblk[i].end), e);
	assert_int_equal(info.memblk[i].node, node);
	assert_int_equal(info.memblk[i].hotplug, hotplug);
}

static void expect_ram(unsigned int i, uint64_t s, uint64_t e, uint32_t node)
{
	assert_true(i < bi.ram_count);
	assert_int_equal(pa_val(bi.ram[i].start), s);
	assert_int_equal(pa_val(bi.ram[i].end), e);
	assert_int_equal(bi.ram[i].node, node);
}

static void expect_single_node(void)
{
	assert_false(info.numa_valid);
	assert_int_equal(info.node_count, 1);
	assert_int_equal(info.memblk_count, 0);
	for (unsigned int i = 0; i < info.cpu_count; i++)
		assert_int_equal(info.cpus[i].node, 0);
	assert_false(info.have_distance);
	assert_int_equal(info.distance[0][1], 20);
}

/* ---- good tables ---------------------------------------------------- */

#define X86_2NODE \
	"madt-2node", "srat-2node", "slit-2node", "facp-x86", "hpet", "dsdt-s5"

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
	assert_int_equal(bi.ram_count, 4);
	expect_ram(0, 0, 0x9fc00, 0);
	expect_ram(1, MB, 512 * MB, 0);
	expect_ram(2, 4 * GB, 4 * GB + 512 * MB, 1);
	expect_ram(3, 512 * MB, 0x3ffe0000, 1); /* split off, appended */
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
	assert_int_equal(bi.ram_count, 4);
	expect_ram(0, 0, GB, 0);
	expect_ram(1, 4 * GB, 6 * GB, 2);
	expect_ram(2, GB, 2 * GB, 1);
	expect_ram(3, 6 * GB, 8 * GB, 2);
}

#define ARM64 "madt-gicc", "srat-gicc", "facp-arm", "spcr", "dsdt-qemu-s5"

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

/*
 * An arm64 UEFI boot on ACPI: the arch's DT facts from the tables
 * (boot/acpi_dt.c). Expected values from madt-gicc, facp-arm and spcr.
 */
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
	dt_info_from_acpi(&bi, &info, pa(0x1234000), &dt, &s8250);
	assert_int_equal(test_console_warnings(), 1);
	assert_true(test_console_contains("not PSCI compliant"));
	assert_int_equal(dt.psci_method, DT_PSCI_NONE);
	assert_false(dt.psci_v0_2);
	assert_false(dt.uart_is_pl011);
	assert_int_equal(pa_val(dt.uart_base), 0);
	assert_int_equal(s8250.kind, CONSOLE_8250_MMIO);
	assert_int_equal(s8250.addr, 0x09000000);
	assert_int_equal(pa_val(dt.gicd_base), 0);
	assert_int_equal(dt.gicr_count, 0);
	assert_true(dt.qemu_virt);

	/* An SPCR type keel cannot drive: warned, naming the kept UART. */
	BUILD("madt-gicc", "facp-arm", "spcr", "dsdt-qemu-s5");
	tbl(2)[36] = 0x7f;
	fix_checksum(tbl(2));
	parse_expect(0, 0, NULL);
	sandbox_console_clear();
	dt_info_from_acpi(&bi, &info, pa(0x1234000), &dt, &s8250);
	assert_int_equal(test_console_warnings(), 1);
	assert_true(test_console_contains("keeping 0x1234000"));
	assert_false(dt.uart_is_pl011);
	assert_int_equal(s8250.kind, CONSOLE_DEFAULT);
}

/* A UEFI boot on a DT: its RAM ranges label the UEFI map's RAM. */
static void test_dt_ram_to_numa(void **state)
{
	bootinfo_init(&bi, BOOT_EFI);
	bootinfo_add_ram(&bi, pa(4 * GB), pa(6 * GB), 1);
	bootinfo_add_ram(&bi, pa(GB), pa(2 * GB), 0);
	bootinfo_add_ram(&bi, pa(2 * GB), pa(3 * GB), 2);
	dt_ram_to_numa(&bi, &info);
	assert_int_equal(bi.ram_count, 0);
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
	assert_int_equal(bi.ram_count, 3);
	expect_ram(0, 256 * MB, GB, 1);
	expect_ram(1, GB, 2 * GB, 1);
	expect_ram(2, 2 * GB, 3 * GB, 0);
}

/* ---- generated big machines (x2APIC, more CPUs than the build) ------ */

/* Generated tables live past the fixtures: up to 16K MADT CPU entries. */
#define GEN_MADT_AT 0x150000ULL
#define GEN_SRAT_AT 0x190000ULL
#define GEN_SLIT_AT 0x1f0000ULL

/*
 * The APIC ID of generated CPU @i: every other ID (gaps, as with cores
 * that are not a power of two), so 512 CPUs reach ID 1022.
 */
static uint32_t gen_apic_id(unsigned int i)
{
	return 2 * i;
}

/* Node of generated CPU @i: @cpus spread evenly over @nodes. */
static uint32_t gen_node(unsigned int i, unsigned int cpus, unsigned int nodes)
{
	return i / ((cpus + nodes - 1) / nodes);
}

/* Distance between generated nodes: 10 local, 20 + 2 * |a - b|. */
static uint8_t gen_distance(unsigned int a, unsigned int b)
{
	return a == b ? 10 : (uint8_t)(20 + 2 * (a > b ? a - b : b - a));
}

/*
 * A machine of @cpus CPUs on @nodes nodes (1 GiB of RAM each at n GiB)
 * as firmware of a big server lists it: MADT type 0 (xAPIC) entries for
 * APIC IDs below 255 and type 9 (x2APIC) entries above, SRAT type 0 / type
 * 2 affinity entries likewise, and a SLIT. The boot CPU is APIC ID 0.
 */
static void gen_machine(unsigned int cpus, unsigned int nodes)
{
	uint32_t madt_len = 44, srat_len = 48, slit_len = 44 + nodes * nodes;
	uint8_t *m = at(GEN_MADT_AT), *s = at(GEN_SRAT_AT),
		*l = at(GEN_SLIT_AT);

	memset(w.mem, 0, IMG_SIZE);
	for (unsigned int i = 0; i < cpus; i++) {
		uint32_t id = gen_apic_id(i), node = gen_node(i, cpus, nodes);
		uint8_t *e = m + madt_len, *a = s + srat_len;

		if (id < 0xff) {
			e[0] = 0, e[1] = 8, e[2] = (uint8_t)i,
			e[3] = (uint8_t)id;
			put32(e + 4, 1);
			a[0] = 0, a[1] = 16, a[2] = (uint8_t)node;
			a[3] = (uint8_t)id;
			put32(a + 4, 1);
		} else {
			e[0] = 9, e[1] = 16;
			put32(e + 4, id);
			put32(e + 8, 1);
			put32(e + 12, i);
			a[0] = 2, a[1] = 24;
			put32(a + 4, node);
			put32(a + 8, id);
			put32(a + 12, 1);
		}
		madt_len += e[1];
		srat_len += a[1];
		assert_true(GEN_MADT_AT + madt_len <= GEN_SRAT_AT);
	}
	for (unsigned int n = 0; n < nodes; n++) {
		uint8_t *a = s + srat_len;

		a[0] = 1, a[1] = 40;
		put32(a + 2, n);
		put64(a + 8, (n + 1) * GB);
		put64(a + 16, GB);
		put32(a + 28, 1);
		srat_len += 40;
	}
	assert_true(GEN_SRAT_AT + srat_len <= GEN_SLIT_AT);
	write_header(m, "APIC", madt_len, 5);
	put32(m + 36, 0xfee00000);
	write_header(s, "SRAT", srat_len, 3);
	put32(s + 36, 1);
	write_header(l, "SLIT", slit_len, 1);
	put64(l + 36, nodes);
	for (unsigned int a = 0; a < nodes; a++)
		for (unsigned int b = 0; b < nodes; b++)
			l[44 + a * nodes + b] = gen_distance(a, b);
	fix_checksum(m);
	fix_checksum(s);
	fix_checksum(l);
	w.count = 3;
	w.addr[0] = GEN_MADT_AT;
	w.addr[1] = GEN_SRAT_AT;
	w.addr[2] = GEN_SLIT_AT;
	write_roots();
	write_rsdp(RSDP_SCAN_AT, 2, XSDT_AT);
}

/* The generated machine through acpi_fill_bootinfo() and sanitise. */
static void gen_bootinfo(unsigned int nodes)
{
	bootinfo_init(&bi, BOOT_MULTIBOOT2);
	for (unsigned int n = 0; n < nodes; n++)
		bootinfo_add_ram(&bi, pa((n + 1) * GB), pa((n + 2) * GB), 0);
	acpi_fill_bootinfo(&bi, &info);
	acpi_apply_numa(&bi, &info);
	bootinfo_sanitise(&bi);
}

/* 512 CPUs, APIC IDs up to 1022, 8 nodes: x2APIC entries and affinity. */
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

/* ---- malformed tables: one warning, documented fallback ------------- */

static void test_bad_checksum_srat(void **state)
{
	BUILD(X86_2NODE);
	tbl(1)[60] ^= 0x40;
	parse_expect(0, 1, "SRAT at 0x102000: bad checksum");
	assert_false(info.tables & ACPI_T_SRAT);
	expect_single_node();
	assert_int_equal(info.cpu_count, 6);
	/* RAM goes to node 0 without SRAT. */
	bootinfo_add_ram(&bi, pa(MB), pa(GB), 7);
	acpi_apply_numa(&bi, &info);
	expect_ram(0, MB, GB, 0);
	assert_int_equal(bi.ram_count, 1);
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
	assert_false(info.tables & ACPI_T_SRAT);
	assert_false(test_console_contains("inject: SLIT"));
	expect_single_node();
	/* The firmware's table is untouched. */
	assert_memory_equal(tbl(1), before, sizeof(before));

	bad = acpi_mem_corrupting(&mem, ACPI_CORRUPT_SLIT);
	sandbox_console_clear();
	assert_int_equal(acpi_parse(&bad, r, 0, &info), 0);
	assert_true(test_console_contains("acpi: inject: SLIT at"));
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

static void test_srat_entry_past_end(void **state)
{
	BUILD(X86_2NODE);
	tbl(1)[get32(tbl(1) + 4) - 40 + 1] = 0xff;
	fix_checksum(tbl(1));
	parse_expect(0, 1, "SRAT: entry type 1 at offset 304 has length 255");
	expect_single_node();
	assert_false(info.tables & ACPI_T_SLIT);
}

static void test_srat_overlap(void **state)
{
	/* Memory entry 3 (PXM 1) moved to start inside node 0's range. */
	BUILD(X86_2NODE);
	put64(tbl(1) + 48 + 6 * 16 + 2 * 40 + 8, 0x10000000);
	fix_checksum(tbl(1));
	parse_expect(0, 1, "overlaps [0x100000, 0x20000000)");
	expect_single_node();
}

static void test_srat_pxm_remap(void **state)
{
	uint8_t copy[344]; /* srat-2node.aml's length */
	uint8_t *s;
	unsigned int i;

	/* PXM 1 -> 0x101 everywhere: node 1, nothing lost (no warning). */
	BUILD("madt-2node", "srat-2node");
	s = tbl(1);
	for (i = 2; i < 6; i++)
		s[48 + i * 16 + 9] = 1; /* PXM high bits: 0x101 */
	for (i = 2; i < 4; i++)
		put32(s + 48 + 6 * 16 + i * 40 + 2, 0x101);
	fix_checksum(s);
	parse_expect(0, 0,
		     "ACPI SRAT: firmware node ids 0..257 are keel nodes 0..1");
	assert_true(info.numa_valid);
	assert_int_equal(info.node_count, 2);
	assert_int_equal(info.pxm[1], 0x101);
	expect_cpu(3, 3, 1, true, false);
	expect_memblk(3, 4 * GB, 5 * GB, 1, true);

	/* With the 2-locality SLIT, which cannot cover PXM 0x101. */
	memcpy(copy, s, sizeof(copy));
	BUILD("madt-2node", "srat-2node", "slit-2node");
	memcpy(tbl(1), copy, sizeof(copy));
	parse_expect(0, 1,
		     "locality count 2 does not cover proximity "
		     "domain 257");
	assert_true(info.numa_valid);
	assert_false(info.have_distance);
}

static void test_srat_too_many_pxm(void **state)
{
	uint8_t *s;
	unsigned int i, n = MAX_NUMNODES + 1;
	uint32_t len = 48 + n * 40;
	char want[128];

	BUILD("madt-2node", "srat-2node");
	s = tbl(1);
	memset(s, 0, 0x1000);
	write_header(s, "SRAT", len, 3);
	for (i = 0; i < n; i++) {
		uint8_t *e = s + 48 + i * 40;

		e[0] = 1;
		e[1] = 40;
		put32(e + 2, i);
		put64(e + 8, i * GB);
		put64(e + 16, GB);
		put32(e + 28, 1);
	}
	fix_checksum(s);
	/*
	 * One domain too many: folded into node 0 (no SLIT: the lowest kept
	 * node), one warning with the counts, the rest kept. The CPUs have
	 * no affinity entries: the second warning.
	 */
	snprintf(want, sizeof(want),
		 "ACPI SRAT: %u proximity domains, %u kept (MAX_NUMNODES=%u), "
		 "1 folded into their nearest node",
		 n, n - 1, n - 1);
	parse_expect(0, 2, want);
	assert_true(info.numa_valid);
	assert_int_equal(info.node_count, MAX_NUMNODES);
	assert_int_equal(info.dropped_nodes, 1);
	expect_memblk(MAX_NUMNODES, MAX_NUMNODES * GB, (MAX_NUMNODES + 1) * GB,
		      0, false);
	expect_memblk(MAX_NUMNODES - 1, (MAX_NUMNODES - 1) * GB,
		      MAX_NUMNODES * GB, MAX_NUMNODES - 1, false);
	acpi_fill_bootinfo(&bi, &info);
	assert_int_equal(bi.dropped_nodes, 1);

	/*
	 * One domain fewer is fine: the full node range. The MADT's CPUs
	 * have no affinity entries here: one warning, lowest node.
	 */
	put32(s + 4, len - 40);
	fix_checksum(s);
	parse_expect(0, 1,
		     "SRAT: 4 usable CPU(s) without affinity entry "
		     "(first hwid 0), using node 0");
	assert_true(info.numa_valid);
	assert_int_equal(info.node_count, MAX_NUMNODES);
	assert_int_equal(info.cpus[5].node, 0);

	/*
	 * PXMs 1..n-2: keel nodes 0..n-3 (dense, no empty node 0), the CPUs
	 * without affinity go to node 0, which is PXM 1.
	 */
	for (i = 0; i < n; i++)
		put32(s + 48 + i * 40 + 2, i + 1);
	put32(s + 4, len - 80);
	fix_checksum(s);
	parse_expect(0, 1, "using node 0");
	assert_true(info.node_used[0]);
	assert_int_equal(info.pxm[0], 1);
	assert_true(info.node_used[n - 3]);
	assert_false(info.node_used[n - 2]);
	assert_int_equal(info.cpus[0].node, 0);
	snprintf(want, sizeof(want),
		 "firmware node ids 1..%u are keel nodes 0..%u", n - 2, n - 3);
	assert_true(test_console_contains(want));
}

static void test_srat_all_disabled(void **state)
{
	uint8_t *s;
	unsigned int i;

	BUILD(X86_2NODE);
	s = tbl(1);
	for (i = 0; i < 6; i++)
		s[48 + i * 16 + 4] = 0;
	for (i = 0; i < 5; i++)
		s[48 + 6 * 16 + i * 40 + 28] = 0;
	fix_checksum(s);
	parse_expect(0, 1, "SRAT: no enabled memory affinity entry");
	expect_single_node();
}

static void test_slit_bad(void **state)
{
	uint8_t *m;

	/* Not symmetric: ACPI allows it, kept as given, no warning. */
	BUILD(X86_2NODE);
	m = tbl(2) + 44;
	m[1] = 22;
	fix_checksum(tbl(2));
	parse_expect(0, 0, NULL);
	assert_true(info.numa_valid);
	assert_true(info.have_distance);
	assert_int_equal(info.distance[0][1], 22);
	assert_int_equal(info.distance[1][0], 21);
	acpi_fill_bootinfo(&bi, &info);
	assert_true(bi.have_distance);
	assert_int_equal(bi.distance[0][1], 22);
	assert_int_equal(bi.distance[1][0], 21);

	/* One bad diagonal entry: mended alone, one warning. */
	BUILD(X86_2NODE);
	tbl(2)[44 + 3] = 11;
	fix_checksum(tbl(2));
	parse_expect(0, 1,
		     "SLIT: distance[1][1] = 11: a local distance must be "
		     "10, using 10");
	assert_true(info.have_distance);
	assert_int_equal(info.distance[1][1], 10);
	assert_int_equal(info.distance[0][1], 21);

	/* One remote entry of 10: it takes the reverse, 21. */
	BUILD(X86_2NODE);
	tbl(2)[44 + 2] = 10;
	fix_checksum(tbl(2));
	parse_expect(0, 1,
		     "SLIT: distance[1][0] = 10: a remote distance must be "
		     "above 10, using 21");
	assert_true(info.have_distance);
	assert_int_equal(info.distance[1][0], 21);

	/* Two bad entries: the table is not trusted, 10/20. */
	BUILD(X86_2NODE);
	tbl(2)[44 + 1] = 10;
	tbl(2)[44 + 2] = 10;
	fix_checksum(tbl(2));
	parse_expect(0, 1,
		     "SLIT: distance[0][1] = 10: a remote distance must be "
		     "above 10 (2 bad entries), using 10/20");
	assert_false(info.have_distance);
	assert_int_equal(info.distance[0][1], 20);
	assert_int_equal(info.distance[1][1], 10);

	/* Locality count larger than the matrix. */
	BUILD(X86_2NODE);
	put64(tbl(2) + 36, 3);
	fix_checksum(tbl(2));
	parse_expect(0, 1, "locality count 3 does not fit");
	assert_false(info.have_distance);

	/* Count smaller than the SRAT's domains: 2 localities, 3 nodes. */
	BUILD("madt-x2apic", "srat-3node", "slit-2node");
	parse_expect(0, 1,
		     "locality count 2 does not cover proximity "
		     "domain 2");
	assert_true(info.numa_valid);
	assert_false(info.have_distance);
	assert_int_equal(info.distance[0][1], 20);
}

/*
 * An asymmetric SLIT with an unreachable entry is kept; the memory-only
 * node 2 is nearest to node 1's CPUs (distance[1][2] = 15) although its own
 * row says node 0 (distance[2][0] = 12): the scrub helper direction.
 */
static void test_slit_asymmetric(void **state)
{
	/* slit-3node-asym.dsl, row by row. */
	static const uint8_t want[3][3] = {
		{10, 20, 40},
		{21, 10, 15},
		{12, 255, 10},
	};
	uint32_t order[MAX_NUMNODES];

	BUILD("madt-x2apic", "srat-3node", "slit-3node-asym");
	parse_expect(0x100, 0, NULL);
	assert_true(info.have_distance);
	assert_true(info.tables & ACPI_T_SLIT);
	for (unsigned int a = 0; a < 3; a++)
		for (unsigned int b = 0; b < 3; b++)
			assert_int_equal(info.distance[a][b], want[a][b]);

	acpi_fill_bootinfo(&bi, &info);
	bootinfo_add_ram(&bi, pa(0), pa(2 * GB), 0);
	bootinfo_add_ram(&bi, pa(4 * GB), pa(6 * GB), 0);
	acpi_apply_numa(&bi, &info);
	sandbox_console_clear();
	bootinfo_sanitise(&bi);
	assert_int_equal(test_console_warnings(), 0);
	assert_int_equal(bi.node_count, 3);
	for (unsigned int a = 0; a < 3; a++)
		for (unsigned int b = 0; b < 3; b++)
			assert_int_equal(bi.distance[a][b], want[a][b]);

	numa_init(&bi);
	/* Nodes 0 and 1 have CPUs: node 2's helper by distance[h][2]. */
	assert_int_equal(numa_nearest_to(2, 0x3), 1);
	/* Node 2's allocations fall back by its row: 0 (12), 1 (255). */
	assert_int_equal(numa_fallback_order(2, order), 3);
	assert_int_equal(order[0], 2);
	assert_int_equal(order[1], 0);
	assert_int_equal(order[2], 1);
}

/*
 * MAX_NUMNODES + 4 proximity domains, one CPU and 1 GiB each (generated,
 * so it holds for any MAX_NUMNODES): the lowest MAX_NUMNODES are kept as
 * nodes 0.., the four others X+k fold into the kept node nearest in their
 * SLIT row: X -> 3, X+1 -> 9, X+2 (every entry unreachable) -> 0, X+3 ->
 * 7, with one warning; CPUs and memory follow; the kept nodes' distances
 * are the SLIT's (asymmetric after the edit below).
 */
static void test_srat_fold(void **state)
{
	static const uint32_t fold[4] = {3, 9, 0, 7};
	const unsigned int x = MAX_NUMNODES, n = MAX_NUMNODES + 4;
	uint8_t *l = at(GEN_SLIT_AT);
	char want[128];

	(void)state;
	gen_machine(n, n);
	/* Folded rows: far from everyone, but near their target. */
	for (unsigned int k = 0; k < 4; k++)
		for (unsigned int b = 0; b < n; b++)
			if (b != x + k)
				l[44 + (x + k) * n + b] = k == 2 ? 255 : 200;
	l[44 + (x + 0) * n + 3] = 11;
	l[44 + (x + 1) * n + 9] = 12;
	l[44 + (x + 3) * n + 7] = 13;
	l[44 + 1 * n + 0] = 23; /* asymmetric: [1][0] 23, [0][1] 22 */
	fix_checksum(l);
	snprintf(want, sizeof(want),
		 "ACPI SRAT: %u proximity domains, %u kept (MAX_NUMNODES=%u), "
		 "4 folded into their nearest node",
		 n, x, x);
	parse_expect(0, 1, want);
	assert_true(info.numa_valid);
	assert_int_equal(info.node_count, x);
	assert_int_equal(info.dropped_nodes, 4);
	assert_true(info.have_distance);
	/* Memory: PXM i owns [i + 1 GiB, i + 2 GiB). */
	assert_int_equal(info.memblk_count, n);
	for (unsigned int i = 0; i < n; i++)
		expect_memblk(i, (i + 1) * GB, (i + 2) * GB,
			      i < x ? i : fold[i - x], false);
	for (unsigned int i = 0; i < n; i++)
		expect_cpu(i, gen_apic_id(i), i < x ? i : fold[i - x], true,
			   i == 0);
	for (unsigned int a = 0; a < x; a++)
		for (unsigned int b = 0; b < x; b++)
			assert_int_equal(info.distance[a][b],
					 a == 1 && b == 0 ? 23
							  : gen_distance(a, b));

	acpi_fill_bootinfo(&bi, &info);
	assert_int_equal(bi.dropped_nodes, 4);
	assert_int_equal(bi.cpus[x + 1].node, 9);
	assert_int_equal(bi.distance[1][0], 23);
	assert_int_equal(bi.distance[0][1], 22);

	/* The same SRAT parsed alone (no SLIT): every fold goes to node 0. */
	acpi_info_reset(&info);
	sandbox_console_clear();
	assert_int_equal(acpi_parse_srat(at(GEN_SRAT_AT), 0x10000, &info), 0);
	assert_int_equal(test_console_warnings(), 1);
	for (unsigned int i = x; i < n; i++)
		expect_memblk(i, (i + 1) * GB, (i + 2) * GB, 0, false);
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
		cmocka_unit_test_setup_teardown(test_x86_bootinfo, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_x2apic_3node_rsdt, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_arm64, setup, teardown),
		cmocka_unit_test_setup_teardown(test_numa_below_srat, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_madt_gicr_many, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_madt_too_many_cpus, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_x2apic_512_cpus_8_nodes,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_ebda_scan, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_fadt_variants, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_s5_scanner, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_bad_checksum_srat, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_corrupting_accessor, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_truncated_tables, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_madt_bad_entries, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_srat_entry_past_end, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_srat_overlap, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_srat_pxm_remap, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_srat_too_many_pxm, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_srat_all_disabled, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_slit_bad, setup, teardown),
		cmocka_unit_test_setup_teardown(test_slit_asymmetric, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_srat_fold, setup,
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
		cmocka_unit_test_setup_teardown(test_arm64_dt_info, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_dt_ram_to_numa, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
