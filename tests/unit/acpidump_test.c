/* SPDX-License-Identifier: MIT */
/*
 * boot/acpi/acpidump.c (acpidump text -> tables) and boot/acpi/acpi_replay.c (the
 * tables -> bootinfo through the hardware parsers). The dumps are printed
 * here from hand-made tables in acpidump's own layout, so every expected
 * value comes from the bytes the test wrote.
 */
#include <stdio.h>
#include <stdlib.h>

#include "common.h"
#include <keel/acpi.h>
#include <keel/acpidump.h>
#include <keel/fwdesc.h>

#define GB (1ULL << 30)

static struct acpidump d;
static uint8_t dbuf[1 << 16];
static char text[1 << 18];
static size_t tlen;
static struct bootinfo bi;

static int setup(void **state)
{
	tlen = 0;
	text[0] = '\0';
	memset(&d, 0, sizeof(d));
	d.buf = dbuf;
	d.size = sizeof(dbuf);
	return test_setup(state);
}

static void emit(const char *s)
{
	size_t n = strlen(s);

	assert_true(tlen + n < sizeof(text));
	memcpy(text + tlen, s, n + 1);
	tlen += n;
}

/* @len bytes of @p as acpidump prints a table named @sig at @addr. */
static void dump_table(const char *sig, uint64_t addr, const uint8_t *p,
		       size_t len)
{
	char line[128];

	snprintf(line, sizeof(line), "%s @ 0x%016llx\n", sig,
		 (unsigned long long)addr);
	emit(line);
	for (size_t off = 0; off < len; off += 16) {
		size_t n = len - off < 16 ? len - off : 16, o;

		o = (size_t)snprintf(line, sizeof(line), "    %04zX:", off);
		for (size_t i = 0; i < 16; i++)
			o += (size_t)snprintf(line + o, sizeof(line) - o,
					      i < n ? " %02X" : "   ",
					      p[off + (i < n ? i : 0)]);
		o += (size_t)snprintf(line + o, sizeof(line) - o, "  ");
		for (size_t i = 0; i < n; i++)
			line[o++] = p[off + i] >= 0x20 && p[off + i] < 0x7f
					    ? (char)p[off + i]
					    : '.';
		line[o++] = '\n';
		line[o] = '\0';
		emit(line);
	}
	emit("\n");
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, (uint16_t)v);
	put16(p + 2, (uint16_t)(v >> 16));
}

static void put64(uint8_t *p, uint64_t v)
{
	put32(p, (uint32_t)v);
	put32(p + 4, (uint32_t)(v >> 32));
}

static void header(uint8_t *t, const char *sig, uint32_t len)
{
	memset(t, 0, len);
	memcpy(t, sig, 4);
	put32(t + 4, len);
	t[8] = 1;
	memcpy(t + 10, "KEEL  ", 6);
}

static void fix_checksum(uint8_t *t, uint32_t len)
{
	t[9] = 0;
	t[9] = (uint8_t)-acpi_checksum(t, len);
}

/* ---- acpidump_parse() ---------------------------------------------------- */

static void test_parse_tables(void **state)
{
	uint8_t a[50], b[36];

	(void)state;
	for (unsigned int i = 0; i < sizeof(a); i++)
		a[i] = (uint8_t)(i * 7);
	header(a, "APIC", sizeof(a));
	/* Bytes whose ASCII column reads like hex ("41 42"). */
	memcpy(a + 40, "41 42 43 4", 10);
	header(b, "SLIT", sizeof(b));
	emit("Intel ACPI Component Architecture\nsome banner: 12 34\n\n");
	dump_table("APIC", 0xbf79e000, a, sizeof(a));
	dump_table("SLIT", 0, b, sizeof(b));
	assert_int_equal(acpidump_parse(text, tlen, &d), 2);
	assert_int_equal(d.warnings, 0);
	assert_string_equal(d.table[0].sig, "APIC");
	assert_int_equal(d.table[0].addr, 0xbf79e000);
	assert_int_equal(d.table[0].length, sizeof(a));
	assert_memory_equal(d.buf + d.table[0].offset, a, sizeof(a));
	assert_string_equal(d.table[1].sig, "SLIT");
	assert_int_equal(d.table[1].length, sizeof(b));
	assert_memory_equal(d.buf + d.table[1].offset, b, sizeof(b));
	assert_ptr_equal(acpidump_find(&d, "SLIT", 0), &d.table[1]);
	assert_null(acpidump_find(&d, "SLIT", 1));
	assert_string_equal(sandbox_console_buffer(), "");
}

/*
 * A NUL byte is not the end of the dump (issue 20 §2.1, as for the .fw
 * description): a NUL in a banner line is read past, one inside a table's
 * hex lines ends that table (dropped, naming the line); later tables count.
 */
static void test_parse_nul_byte(void **state)
{
	uint8_t a[36], b[36], c[36];
	char *hex;

	(void)state;
	header(a, "APIC", sizeof(a));
	header(b, "SRAT", sizeof(b));
	header(c, "SLIT", sizeof(c));
	emit("banner ");
	text[tlen++] = '\0';
	emit(" more\n");
	dump_table("APIC", 0, a, sizeof(a));
	hex = text + tlen;
	dump_table("SRAT", 0, b, sizeof(b));
	hex = strstr(hex, "0010:");
	assert_non_null(hex);
	hex[8] = '\0'; /* inside the second line's hex bytes */
	dump_table("SLIT", 0, c, sizeof(c));
	assert_int_equal(acpidump_parse(text, tlen, &d), 2);
	assert_string_equal(d.table[0].sig, "APIC");
	assert_string_equal(d.table[1].sig, "SLIT");
	assert_memory_equal(d.buf + d.table[1].offset, c, sizeof(c));
	assert_int_equal(d.warnings, 1);
	assert_true(test_console_contains("SRAT: 16 bytes dumped, its header "
					  "says 36, dropped"));
}

static void test_parse_rsdp_and_crlf(void **state)
{
	uint8_t r[20] = "RSD PTR ";

	(void)state;
	dump_table("RSD PTR", 0xf0490, r, sizeof(r));
	for (char *p = text; (p = strchr(p, '\n')) != NULL; p += 2) {
		memmove(p + 1, p, strlen(p) + 1);
		*p = '\r';
		tlen++;
	}
	assert_int_equal(acpidump_parse(text, tlen, &d), 1);
	assert_string_equal(d.table[0].sig, "RSD PTR");
	assert_int_equal(d.table[0].length, 20);
}

static void test_parse_malformed(void **state)
{
	uint8_t a[48];

	(void)state;
	header(a, "APIC", sizeof(a));
	/* A gap: the line at 0x10 is missing. */
	emit("APIC @ 0x0\n    0000: 41 50 49 43 30 00 00 00 00 00 00 00 00 "
	     "00 00 00  APIC\n    0020: 00 00  ..\n\n");
	/* Header says 48 bytes, 32 dumped: cut off. */
	dump_table("SRAT", 0, a, 32);
	/* A header and no bytes. */
	emit("FACP @ 0x0\n\n");
	/* Bytes and a header length below 36. */
	put32(a + 4, 20);
	dump_table("HPET", 0, a, 20);
	/* Too long a signature, a bad address: not headers, skipped. */
	emit("TOOLONGSIG @ 0x0\nAPIC @ 0xZZ\nAPIC @ 0x12345678901234567\n");
	/* Good one last, without a final newline. */
	header(a, "SLIT", sizeof(a));
	dump_table("SLIT", 0, a, sizeof(a));
	text[--tlen] = '\0';
	text[--tlen] = '\0';
	assert_int_equal(acpidump_parse(text, tlen, &d), 1);
	assert_string_equal(d.table[0].sig, "SLIT");
	assert_int_equal(d.table[0].offset, 0); /* dropped bytes reused */
	assert_int_equal(d.warnings, 4);
	assert_int_equal(test_console_warnings(), 4);
	assert_true(test_console_contains("APIC: offset 0x20 where 0x10"));
	assert_true(test_console_contains("SRAT: 32 bytes dumped, its "
					  "header says 48"));
	assert_true(test_console_contains("FACP has no bytes"));
	assert_true(test_console_contains("HPET: 20 bytes dumped, its "
					  "header says 20"));
}

static void test_parse_bounds(void **state)
{
	uint8_t a[64];

	(void)state;
	header(a, "APIC", sizeof(a));
	dump_table("APIC", 0, a, sizeof(a));
	/* A buffer too small: the table is dropped, nothing overflows. */
	d.size = 40;
	assert_int_equal(acpidump_parse(text, tlen, &d), 0);
	assert_int_equal(d.warnings, 1);
	assert_true(test_console_contains("no room"));
	/* A NUL in the header line: no header, so no table. */
	d.size = sizeof(dbuf);
	text[20] = '\0';
	assert_int_equal(acpidump_parse(text, tlen, &d), 0);
	assert_int_equal(acpidump_parse(NULL, 10, &d), 0);
}

static void test_parse_too_many(void **state)
{
	uint8_t a[36];

	(void)state;
	header(a, "SSDT", sizeof(a));
	for (unsigned int i = 0; i < ACPIDUMP_MAX_TABLES + 2; i++)
		dump_table("SSDT", 0, a, sizeof(a));
	assert_int_equal(acpidump_parse(text, tlen, &d), ACPIDUMP_MAX_TABLES);
	assert_int_equal(d.warnings, 2);
	assert_true(d.used <= ACPIDUMP_MAX_TABLES * sizeof(a));
}

static void test_parse_random(void **state)
{
	static const char alphabet[] = "0123456789ABCDEFx@: \n\r.APICSRT";

	(void)state;
	srand(15);
	for (int round = 0; round < 300; round++) {
		size_t n = (size_t)(rand() % 4000);

		for (size_t i = 0; i < n; i++)
			text[i] = alphabet[rand() % (sizeof(alphabet) - 1)];
		if (round % 3 == 0)
			memcpy(text, "APIC @ 0x0\n    0000:", 20 < n ? 20 : n);
		acpidump_parse(text, n, &d);
		assert_true(d.used <= d.size);
		for (unsigned int i = 0; i < d.table_count; i++)
			assert_true(d.table[i].offset + d.table[i].length <=
				    d.used);
		sandbox_console_clear();
	}
}

/* ---- acpi_replay() ------------------------------------------------------- */

static uint32_t srat_flags_4g = 1; /* [4G, 6G): 5 makes it non-volatile */

/* build_machine()'s SRAT (see there) in @srat, @len bytes. */
static void build_srat(uint8_t *srat, uint32_t len)
{
	uint8_t *e;

	header(srat, "SRAT", len);
	e = srat + 48;
	/* Memory: PXM 1 [0, 2G), PXM 1 [4G, 6G), PXM 1 hot-plug [8G, 9G). */
	for (int i = 0; i < 3; i++, e += 40) {
		static const uint64_t base[] = {0, 4 * GB, 8 * GB};
		static const uint64_t size[] = {2 * GB, 2 * GB, GB};

		e[0] = 1;
		e[1] = 40;
		put32(e + 2, 1);
		put64(e + 8, base[i]);
		put64(e + 16, size[i]);
		put32(e + 28, i == 2 ? 3 : i == 1 ? srat_flags_4g : 1);
	}
	/* CPUs: APIC 0 on PXM 1, APIC 2 on PXM 2. */
	for (int i = 0; i < 2; i++, e += 16) {
		e[0] = 0;
		e[1] = 16;
		e[2] = (uint8_t)(i + 1);
		e[3] = (uint8_t)(i * 2);
		put32(e + 4, 1);
	}
	/* x2APIC 0x100 on PXM 2. */
	e[0] = 2;
	e[1] = 24;
	put32(e + 4, 2);
	put32(e + 8, 0x100);
	put32(e + 12, 1);
	fix_checksum(srat, len);
}

/*
 * A 2-socket machine as real servers print it: proximity domains 1 and 2
 * (none is 0), domain 2 has a CPU and no memory, a 3-locality SLIT (one
 * more than the SRAT's domains), an absent CPU, an x2APIC CPU, an SPCR
 * with address 0, a hot-pluggable memory range and an OEM table with a
 * bad checksum. Tables at address 0, no RSDP or XSDT.
 */
static void build_machine(void)
{
	uint8_t madt[44 + 8 * 3 + 16], srat[48 + 40 * 3 + 16 * 2 + 24];
	uint8_t slit[44 + 9], spcr[80], oemb[40];
	uint8_t *e;

	header(madt, "APIC", sizeof(madt));
	e = madt + 44;
	for (int i = 0; i < 3; i++, e += 8) {
		e[0] = 0;
		e[1] = 8;
		e[2] = (uint8_t)i;
		e[3] = (uint8_t)(i * 2);      /* APIC ids 0, 2, 4 */
		put32(e + 4, i == 2 ? 0 : 1); /* 4: absent */
	}
	e[0] = 9;
	e[1] = 16;
	put32(e + 4, 0x100); /* x2APIC 0x100 */
	put32(e + 8, 1);
	fix_checksum(madt, sizeof(madt));

	build_srat(srat, sizeof(srat));

	header(slit, "SLIT", sizeof(slit));
	put64(slit + 36, 3);
	memcpy(slit + 44, (uint8_t[]){10, 17, 28, 17, 10, 21, 28, 21, 10}, 9);
	fix_checksum(slit, sizeof(slit));

	header(spcr, "SPCR", sizeof(spcr));
	fix_checksum(spcr, sizeof(spcr));

	header(oemb, "OEMB", sizeof(oemb));
	oemb[9] = 1; /* wrong on purpose, as AMI ships it */

	dump_table("OEMB", 0, oemb, sizeof(oemb));
	dump_table("APIC", 0, madt, sizeof(madt));
	dump_table("SPCR", 0, spcr, sizeof(spcr));
	dump_table("SRAT", 0, srat, sizeof(srat));
	dump_table("SLIT", 0, slit, sizeof(slit));
}

static const struct bi_cpu *cpu_by_hwid(uint64_t hwid)
{
	for (unsigned int i = 0; i < bi.cpu_count; i++)
		if (bi.cpus[i].hwid == hwid)
			return &bi.cpus[i];
	fail_msg("no CPU %#llx", (unsigned long long)hwid);
	return NULL;
}

static void test_replay_machine(void **state)
{
	(void)state;
	build_machine();
	bootinfo_init(&bi, BOOT_SANDBOX);
	assert_int_equal(acpi_replay(&bi, text, tlen, dbuf, sizeof(dbuf)), 0);
	/* One warning: RAM from the SRAT. No SPCR, OEMB, orphan warning. */
	assert_int_equal(test_console_warnings(), 1);
	assert_true(test_console_contains("no ram lines: RAM is the SRAT's 2 "
					  "enabled, non-hot-pluggable memory "
					  "ranges (4096 MiB, 1 hot-pluggable"));
	assert_int_equal(bi.fixups, 1);

	/* CPUs: all four MADT entries, the absent one not usable. */
	assert_int_equal(bi.cpu_count, 4);
	assert_true(cpu_by_hwid(0)->boot_cpu);
	assert_false(cpu_by_hwid(2)->boot_cpu);
	assert_false(cpu_by_hwid(4)->usable);
	assert_true(cpu_by_hwid(0x100)->usable);
	/* PXMs 1 and 2 are keel nodes 0 and 1; fw_id gives the PXM back. */
	assert_int_equal(cpu_by_hwid(0)->node, 0);
	assert_int_equal(cpu_by_hwid(2)->node, 1);
	assert_int_equal(cpu_by_hwid(0x100)->node, 1);
	assert_int_equal(bi.node_fw_id[0], 1);
	assert_int_equal(bi.node_fw_id[1], 2);
	assert_int_equal(bi.node_fw_id[2], NODE_FW_ID_NONE);

	/* RAM: the two non-hot-pluggable ranges, on PXM 1's node. */
	assert_int_equal(bi.ram.count, 2);
	assert_int_equal(pa_val(bi.ram.regions[0].end), 2 * GB);
	assert_int_equal(pa_val(bi.ram.regions[1].start), 4 * GB);
	assert_int_equal(bi.ram.regions[0].node, 0);
	assert_int_equal(bi.ram.regions[1].node, 0);

	/* Distances by PXM from the 3x3 SLIT: rows 1 and 2. */
	assert_true(bi.have_distance);
	assert_int_equal(bi.distance[0][0], 10);
	assert_int_equal(bi.distance[0][1], 21);
	assert_int_equal(bi.distance[1][0], 21);
	assert_int_equal(bi.distance[1][1], 10);

	/* Two nodes, not an empty node 0 for the unused PXM 0. */
	bootinfo_sanitise(&bi);
	assert_int_equal(bi.node_count, 2);
	assert_int_equal(bi.node_fw_id[1], 2);
}

/* ram and cpu lines stand for the e820 map and the MADT. */
static void test_replay_with_lines(void **state)
{
	(void)state;
	build_machine();
	bootinfo_init(&bi, BOOT_SANDBOX);
	bootinfo_add_ram(&bi, pa(GB), pa(5 * GB), NUMA_NO_NODE);
	bootinfo_add_cpu(&bi, 7, 0, 0, 0, 0, true);
	bi.cpus[0].boot_cpu = true;
	assert_int_equal(acpi_replay(&bi, text, tlen, dbuf, sizeof(dbuf)), 0);
	assert_int_equal(test_console_warnings(), 1); /* RAM in SRAT's gap */
	assert_true(test_console_contains("is in no memory affinity range"));
	assert_int_equal(bi.cpu_count, 1);
	assert_int_equal(bi.cpus[0].hwid, 7);
	/* [1G, 2G) and [2G, 4G) split at the SRAT boundary, [4G, 5G). */
	assert_int_equal(bi.ram.count, 3);
	for (unsigned int i = 0; i < bi.ram.count; i++)
		assert_int_equal(bi.ram.regions[i].node, 0); /* PXM 1 */
	assert_int_equal(bi.distance[0][1], 21);
}

/*
 * Issue 20 §2.4: SRAT memory with the non-volatile flag is persistent
 * memory, never RAM: left out of the SRAT's RAM, reserved as "persistent"
 * where ram lines cover it; one info line.
 */
static void test_replay_nonvolatile(void **state)
{
	(void)state;
	srat_flags_4g = 5;
	build_machine();
	srat_flags_4g = 1;
	bootinfo_init(&bi, BOOT_SANDBOX);
	assert_int_equal(acpi_replay(&bi, text, tlen, dbuf, sizeof(dbuf)), 0);
	assert_int_equal(test_console_warnings(), 1); /* RAM from the SRAT */
	assert_true(test_console_contains("SRAT's 1 enabled"));
	assert_true(test_console_contains("1 non-volatile memory range (2048 "
					  "MiB) left out of RAM, 0 MiB"));
	assert_int_equal(bi.ram.count, 1);
	assert_int_equal(pa_val(bi.ram.regions[0].end), 2 * GB);
	assert_int_equal(bi.reserved.count, 0);

	/* ram lines over it: the non-volatile part is reserved. */
	sandbox_console_clear();
	srat_flags_4g = 5;
	build_machine();
	srat_flags_4g = 1;
	bootinfo_init(&bi, BOOT_SANDBOX);
	bootinfo_add_ram(&bi, pa(0), pa(2 * GB), NUMA_NO_NODE);
	bootinfo_add_ram(&bi, pa(4 * GB), pa(5 * GB), NUMA_NO_NODE);
	assert_int_equal(acpi_replay(&bi, text, tlen, dbuf, sizeof(dbuf)), 0);
	assert_true(test_console_contains("(2048 MiB) left out of RAM, 1024 "
					  "MiB of the memory map reserved"));
	assert_int_equal(bi.reserved.count, 1);
	assert_string_equal(bi.reserved.regions[0].name, "persistent");
	assert_int_equal(pa_val(bi.reserved.regions[0].start), 4 * GB);
	assert_int_equal(pa_val(bi.reserved.regions[0].end), 6 * GB);
}

static void test_replay_nothing(void **state)
{
	(void)state;
	emit("just some text\n");
	bootinfo_init(&bi, BOOT_SANDBOX);
	assert_int_equal(acpi_replay(&bi, text, tlen, dbuf, sizeof(dbuf)),
			 -ENOENT);
	assert_int_equal(test_console_warnings(), 1);
	assert_int_equal(bi.cpu_count, 0);
}

/* A table keel reads keeps its checksum check in a replay. */
static void test_replay_bad_checksum(void **state)
{
	uint8_t slit[44 + 4];

	(void)state;
	build_machine();
	header(slit, "SLIT", sizeof(slit));
	put64(slit + 36, 2);
	slit[9] = 0x55;
	tlen = 0;
	dump_table("SLIT", 0, slit, sizeof(slit));
	bootinfo_init(&bi, BOOT_SANDBOX);
	assert_int_equal(acpi_replay(&bi, text, tlen, dbuf, sizeof(dbuf)),
			 -ENOENT);
	assert_true(test_console_contains("SLIT at 0x100000000000: bad "
					  "checksum"));
}

/* Printed addresses, when usable, are the ones warnings name. */
static void test_replay_real_addresses(void **state)
{
	uint8_t slit[44 + 4];

	(void)state;
	header(slit, "SLIT", sizeof(slit));
	put64(slit + 36, 2);
	slit[9] = 0x55;
	dump_table("SLIT", 0xbf7a0000, slit, sizeof(slit));
	bootinfo_init(&bi, BOOT_SANDBOX);
	acpi_replay(&bi, text, tlen, dbuf, sizeof(dbuf));
	assert_true(test_console_contains("SLIT at 0xbf7a0000: bad checksum"));
}

/* ---- the description's lines --------------------------------------------- */

static void test_fwdesc_files(void **state)
{
	static const char desc[] = "acpidump box.txt\n"
				   "dtb /abs/board.dtb\n"
				   "acpidump other.txt\n"
				   "dtb\n";
	struct fwdesc_files f = {0};

	(void)state;
	bootinfo_init(&bi, BOOT_SANDBOX);
	assert_int_equal(fwdesc_parse_files(&bi, desc, strlen(desc), &f), 2);
	assert_string_equal(f.acpidump, "box.txt");
	assert_string_equal(f.dtb, "/abs/board.dtb");
	assert_true(test_console_contains("line 3: a second acpidump line"));
	assert_true(test_console_contains("line 4: dtb needs FILE"));
	/* Where no loader reads files, the lines are refused. */
	sandbox_console_clear();
	bootinfo_init(&bi, BOOT_SANDBOX);
	assert_int_equal(fwdesc_parse(&bi, desc, 17), 1);
	assert_true(test_console_contains("no firmware replay here"));
}

static void test_fwdesc_fw_id(void **state)
{
	static const char desc[] = "ram 0 1G node=3\ncpu 0 node=9\n";

	(void)state;
	bootinfo_init(&bi, BOOT_SANDBOX);
	fwdesc_parse(&bi, desc, strlen(desc));
	/* Ids 3 and 9 are keel nodes 0 and 1. */
	assert_int_equal(bi.node_fw_id[0], 3);
	assert_int_equal(bi.node_fw_id[1], 9);
	assert_int_equal(bi.node_fw_id[2], NODE_FW_ID_NONE);
	assert_int_equal(bi.ram.regions[0].node, 0);
	assert_int_equal(bi.cpus[0].node, 1);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup, test_teardown)
	const struct CMUnitTest tests[] = {
		T(test_parse_tables),	     T(test_parse_nul_byte),
		T(test_parse_rsdp_and_crlf), T(test_parse_malformed),
		T(test_parse_bounds),	     T(test_parse_too_many),
		T(test_parse_random),	     T(test_replay_machine),
		T(test_replay_with_lines),   T(test_replay_nothing),
		T(test_replay_bad_checksum), T(test_replay_real_addresses),
		T(test_replay_nonvolatile),  T(test_fwdesc_files),
		T(test_fwdesc_fw_id),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
