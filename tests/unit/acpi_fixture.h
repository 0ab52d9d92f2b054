/* SPDX-License-Identifier: MIT */
/*
 * The fixture of the ACPI unit tests (acpi*_test.c, acpi_dt_test.c):
 * boot/acpi/acpi.c and boot/acpi/acpi_*.c on a fake physical memory image. Each
 * test file includes it once (its helpers are static inline, its state
 * static: one copy per test binary).
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
#ifndef TEST_ACPI_FIXTURE_H
#define TEST_ACPI_FIXTURE_H

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

static inline const void *img_map(uint64_t addr, size_t len, void *ctx)
{
	struct world *wd = ctx;

	if (addr > IMG_SIZE || len > IMG_SIZE - addr)
		return NULL;
	return wd->mem + addr;
}

static const struct acpi_mem mem = {img_map, &w};

static inline void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static inline void put64(uint8_t *p, uint64_t v)
{
	put32(p, (uint32_t)v);
	put32(p + 4, (uint32_t)(v >> 32));
}

static inline uint32_t get32(const uint8_t *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline void fix_checksum(uint8_t *t)
{
	t[9] = 0;
	t[9] = (uint8_t)-acpi_checksum(t, get32(t + 4));
}

static inline uint8_t *at(uint64_t addr)
{
	return w.mem + addr;
}

/* Table i of the world (in the order given to build()). */
static inline uint8_t *tbl(unsigned int i)
{
	return at(w.addr[i]);
}

static inline size_t load(const char *name, uint64_t addr)
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

static inline void write_header(uint8_t *t, const char *sig, uint32_t len,
				uint8_t rev)
{
	memcpy(t, sig, 4);
	put32(t + 4, len);
	t[8] = rev;
	memcpy(t + 10, "KEEL  ", 6);
	memcpy(t + 16, "KEELTEST", 8);
}

/* Rewrite the XSDT/RSDT from w.addr[] (after a test changed addresses). */
static inline void write_roots(void)
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

static inline void write_rsdp(uint64_t where, uint8_t rev, uint64_t xsdt)
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
static inline void build(const char *const *names)
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
static inline void parse_expect(uint64_t hwid_boot, unsigned int nwarn,
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

static inline int setup(void **state)
{
	w.mem = calloc(1, IMG_SIZE);
	assert_non_null(w.mem);
	bootinfo_init(&bi, BOOT_MULTIBOOT2);
	return test_setup(state);
}

static inline int teardown(void **state)
{
	free(w.mem);
	return test_teardown(state);
}

static inline void expect_cpu(unsigned int i, uint64_t hwid, uint32_t node,
			      bool usable, bool boot)
{
	const struct acpi_cpu *c = &info.cpus[i];

	assert_true(i < info.cpu_count);
	assert_int_equal(c->hwid, hwid);
	assert_int_equal(c->node, node);
	assert_int_equal(c->usable, usable);
	assert_int_equal(c->boot_cpu, boot);
}

static inline void expect_memblk(unsigned int i, uint64_t s, uint64_t e,
				 uint32_t node, bool hotplug)
{
	assert_true(i < info.memblk_count);
	assert_int_equal(pa_val(info.memblk[i].start), s);
	assert_int_equal(pa_val(info.memblk[i].end), e);
	assert_int_equal(info.memblk[i].node, node);
	assert_int_equal(!!(info.memblk[i].flags & REGION_HOTPLUG), hotplug);
}

static inline void expect_ram(unsigned int i, uint64_t s, uint64_t e,
			      uint32_t node)
{
	assert_true(i < bi.ram.count);
	assert_int_equal(pa_val(bi.ram.regions[i].start), s);
	assert_int_equal(pa_val(bi.ram.regions[i].end), e);
	assert_int_equal(bi.ram.regions[i].node, node);
}

static inline void expect_single_node(void)
{
	assert_false(info.numa_valid);
	assert_int_equal(info.node_count, 1);
	assert_int_equal(info.memblk_count, 0);
	for (unsigned int i = 0; i < info.cpu_count; i++)
		assert_int_equal(info.cpus[i].node, 0);
	assert_false(info.have_distance);
	assert_int_equal(info.distance[0][1], 20);
}

#define X86_2NODE \
	"madt-2node", "srat-2node", "slit-2node", "facp-x86", "hpet", "dsdt-s5"
#define ARM64 "madt-gicc", "srat-gicc", "facp-arm", "spcr", "dsdt-qemu-s5"

/* ---- generated big machines (x2APIC, more CPUs than the build) ------ */

/* Generated tables live past the fixtures: up to 16K MADT CPU entries. */
#define GEN_MADT_AT 0x150000ULL
#define GEN_SRAT_AT 0x190000ULL
#define GEN_SLIT_AT 0x1f0000ULL

/*
 * The APIC ID of generated CPU @i: every other ID (gaps, as with cores
 * that are not a power of two), so 512 CPUs reach ID 1022.
 */
static inline uint32_t gen_apic_id(unsigned int i)
{
	return 2 * i;
}

/* Node of generated CPU @i: @cpus spread evenly over @nodes. */
static inline uint32_t gen_node(unsigned int i, unsigned int cpus,
				unsigned int nodes)
{
	return i / ((cpus + nodes - 1) / nodes);
}

/* Distance between generated nodes: 10 local, 20 + 2 * |a - b|. */
static inline uint8_t gen_distance(unsigned int a, unsigned int b)
{
	return a == b ? 10 : (uint8_t)(20 + 2 * (a > b ? a - b : b - a));
}

/*
 * A machine of @cpus CPUs on @nodes nodes (1 GiB of RAM each at n GiB)
 * as firmware of a big server lists it: MADT type 0 (xAPIC) entries for
 * APIC IDs below 255 and type 9 (x2APIC) entries above, SRAT type 0 / type
 * 2 affinity entries likewise, and a SLIT. The boot CPU is APIC ID 0.
 */
static inline void gen_machine(unsigned int cpus, unsigned int nodes)
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
static inline void gen_bootinfo(unsigned int nodes)
{
	bootinfo_init(&bi, BOOT_MULTIBOOT2);
	for (unsigned int n = 0; n < nodes; n++)
		bootinfo_add_ram(&bi, pa((n + 1) * GB), pa((n + 2) * GB), 0);
	acpi_fill_bootinfo(&bi, &info);
	acpi_apply_numa(&bi, &info);
	bootinfo_sanitise(&bi);
}

/* 512 CPUs, APIC IDs up to 1022, 8 nodes: x2APIC entries and affinity. */

#endif
