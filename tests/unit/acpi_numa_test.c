/* SPDX-License-Identifier: MIT */
/*
 * boot/acpi/acpi_numa.c: the SRAT and the SLIT, malformed and folded.
 * Fixture: acpi_fixture.h.
 */
#include "acpi_fixture.h"

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
	assert_int_equal(bi.ram.count, 1);
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

/* test_srat_too_many_pxm(), continued: fewer domains in the same table. */
static void too_many_pxm_fewer(uint8_t *s, unsigned int n, uint32_t len)
{
	unsigned int i;
	char want[128];

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

	too_many_pxm_fewer(s, n, len);
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

/* test_slit_bad(), continued: matrices that are not trusted at all. */
static void slit_bad_untrusted(void)
{
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

	slit_bad_untrusted();
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

/*
 * Issue 20 §2.5: proximity domain 0xffffffff is NUMA_NO_NODE, refused
 * (one warning): its CPU is an orphan (lowest node, the orphan warning),
 * its memory is in no affinity range. No node has fw_id 0xffffffff.
 */
static void test_srat_pxm_no_node(void **state)
{
	uint8_t *cpu3, *mem3;

	BUILD(X86_2NODE);
	cpu3 = tbl(1) + 48 + 3 * 16;
	mem3 = tbl(1) + 48 + 6 * 16 + 3 * 40;
	cpu3[2] = cpu3[9] = cpu3[10] = cpu3[11] = 0xff;
	put32(mem3 + 2, 0xffffffff);
	fix_checksum(tbl(1));
	parse_expect(0, 2,
		     "SRAT: 2 entries with proximity domain 0xffffffff "
		     "(NUMA_NO_NODE) refused");
	assert_true(test_console_contains("without affinity entry (first "
					  "hwid 0x3), using node 0"));
	assert_true(info.numa_valid);
	assert_int_equal(info.node_count, 2);
	assert_int_equal(info.nodemap.count, 2);
	assert_int_equal(info.memblk_count, 3);
	expect_cpu(3, 3, 0, true, false);
	expect_cpu(2, 2, 1, true, false);
	for (unsigned int i = 0; i < info.nodemap.count; i++)
		assert_true(info.nodemap.fw[i] != 0xffffffff);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_bad_checksum_srat, setup,
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
		cmocka_unit_test_setup_teardown(test_srat_pxm_no_node, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
