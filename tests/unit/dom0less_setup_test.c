/* SPDX-License-Identifier: MIT */
/*
 * Issue 28 §4: dom0less names of every length around the limit and with
 * control bytes, `cpus`, and how domains_setup(&ds, ) takes the DT's domains
 * (common/domain/domain_parse.c, common/domain/domain_static.c): the 4 KiB size
  * rule and warning shared with domain=, unique names, the placement refusals
 * of a static domain. The parse side of modules and static memory:
 * dom0less_test.c.
 */
#include "dom0less_fixture.h"

/* The domains of the test's boot (the flow holds one likewise). */
static struct domain_set ds;

/* ---- names and cpus ----------------------------------------------------- */

/*
 * Names are kept whole up to 63 bytes; a longer one is refused, never cut
 * (two nodes alike in their first bytes stay two names). A name with
 * control bytes is escaped in every line keel prints.
 */
static void test_names(void **state)
{
	char n62[63], n63[64], n64[65], twin[64];
	static const char ctl[] = "ev\x1b[2Jil\x7f\x01";

	memset(n62, 'a', 62);
	n62[62] = 0;
	memset(n63, 'b', 63);
	n63[63] = 0;
	memset(n64, 'c', 64);
	n64[64] = 0;
	memcpy(twin, n63, 64);
	twin[62] = 'x'; /* differs from n63 in its last byte only */
	b_begin();
	b_domain(n62, 4);
	b_end();
	b_domain(n63, 4);
	b_end();
	b_domain(twin, 4);
	b_end();
	b_domain(n64, 4);
	b_end();
	b_domain(ctl, 4);
	b_cells("cpus", 1, 0);
	b_end();
	assert_int_equal(b_parse(), 2);
	assert_int_equal(bi.domain_count, 4);
	assert_non_null(dom(n62));
	assert_non_null(dom(n63));
	assert_non_null(dom(twin));
	assert_null(dom(n64));
	assert_true(test_console_contains("is longer than 63: skipped"));
	assert_non_null(dom(ctl));
	assert_true(
		test_console_contains("dom0less ev\\x1b[2Jil\\x7f\\x01/cpus "
				      "= 0 is zero"));
	assert_false(test_console_contains("\x1b"));
	assert_false(test_console_contains("\x7f"));
}

static void test_vcpus(void **state)
{
	static const uint8_t two[] = {0, 2};

	b_begin();
	b_domain("one", 4);
	b_cells("cpus", 1, 1);
	b_end();
	b_domain("max", 4);
	b_cells("cpus", 1, 4096);
	b_end();
	b_domain("zero", 4);
	b_cells("cpus", 1, 0);
	b_end();
	b_domain("absurd", 4);
	b_cells("cpus", 1, 4097);
	b_end();
	b_domain("two-cells", 4);
	b_cells("cpus", 2, 0, 2);
	b_end();
	b_domain("two-bytes", 4);
	b_bytes("cpus", two, sizeof(two));
	b_end();
	b_domain("empty", 4);
	b_bytes("cpus", NULL, 0);
	b_end();
	assert_int_equal(b_parse(), 5);
	assert_int_equal(dom("one")->vcpus, 1);
	assert_int_equal(dom("max")->vcpus, 4096);
	assert_int_equal(dom("zero")->vcpus, 0);
	assert_true(test_console_contains("zero/cpus = 0 is zero"));
	assert_int_equal(dom("absurd")->vcpus, 0);
	assert_true(test_console_contains("absurd/cpus = 4097 is more than "
					  "4096"));
	assert_true(test_console_contains("two-cells/cpus has length 8, "
					  "expected one cell"));
	assert_true(test_console_contains("two-bytes/cpus has length 2"));
	assert_true(test_console_contains("empty/cpus has length 0"));
	assert_int_equal(dom("two-cells")->vcpus, 0);
}

/* ---- domains_setup(&ds, ): one size rule, unique names, placement ------------ */

static struct domain *setup_dom(const char *name)
{
	for (unsigned int i = 0; i < ds.stats.count; i++)
		if (!strcmp(ds.d[i].name, name))
			return &ds.d[i];
	return NULL;
}

/* A dom0less memory not a multiple of 4 KiB: domain='s rule and warning. */
static void test_setup_rounding(void **state)
{
	b_begin();
	b_domain("five", 5);
	b_end();
	b_parse();
	assert_int_equal(cmdline_parse(&o, "domain=5000", 11), 1);
	sandbox_console_clear();
	assert_int_equal(domains_setup(&ds, &o, &bi), 2);
	assert_int_equal(setup_dom("domain0")->spec.bytes, 8192);
	assert_int_equal(setup_dom("five")->spec.bytes, 8192);
	assert_true(test_console_contains("keel: warning: domains: dom0less "
					  "five/memory = 5 KiB is not a "
					  "multiple of 4K, rounded up to 8192 "
					  "bytes"));
	assert_int_equal(test_console_warnings(), 1);
}

/* No two domains show one name: the later one is skipped, counted. */
static void test_setup_unique_names(void **state)
{
	b_begin();
	b_domain("domain0", 4);
	b_end();
	b_domain("guest", 4);
	b_end();
	b_parse();
	assert_int_equal(cmdline_parse(&o, "domain=1M", 9), 0);
	sandbox_console_clear();
	assert_int_equal(domains_setup(&ds, &o, &bi), 2);
	assert_string_equal(ds.d[0].name, "domain0");
	assert_int_equal(ds.d[0].spec.bytes, MiB);
	assert_string_equal(ds.d[1].name, "guest");
	assert_int_equal(ds.stats.dropped, 1);
	assert_true(test_console_contains("dom0less domain0: another domain "
					  "has this name, skipped"));
}

/*
 * Where static ranges may lie: inside one RAM range, clear of every other
 * reservation and of the other domains' ranges. Each refusal names the
 * node and the problem; the ranges stay reserved; a good one is built
 * from its own node. The vCPUs and the kernel come along.
 */
/* The domains of the placement test, in a blob of QEMU virt's shape. */
static void placement_blob(void)
{
	b_begin();
	b_cells("#address-cells", 1, 1);
	b_cells("#size-cells", 1, 1);
	b_domain("good", 4096);
	b_cells("cpus", 1, 3);
	b_cells("xen,static-mem", 2, 0x60000000, 0x400000);
	b_node("module@0x52000000");
	b_bytes("compatible", "multiboot,kernel\0multiboot,module", 34);
	b_cells("reg", 2, 0x52000000, 0x1000);
	b_end();
	b_end();
	b_domain("on-kernel", 4096);
	b_cells("xen,static-mem", 2, 0x40000000, 0x400000);
	b_end();
	b_domain("on-module", 1024);
	b_cells("xen,static-mem", 2, 0x51000000, 0x100000);
	b_end();
	b_domain("left", 4096);
	b_cells("xen,static-mem", 2, 0x70000000, 0x400000);
	b_end();
	b_domain("right", 4096);
	b_cells("xen,static-mem", 2, 0x70200000, 0x400000);
	b_end();
	b_domain("outside", 4096);
	b_cells("xen,static-mem", 2, 0x90000000, 0x400000);
	b_end();
	b_domain("across", 4096);
	b_cells("xen,static-mem", 2, 0x7fe00000, 0x400000);
	b_end();
	b_domain("mismatch", 8);
	b_cells("xen,static-mem", 2, 0x68000000, 0x1000);
	b_end();
	b_node("module@0x51000000");
	b_str("compatible", "multiboot,module");
	b_cells("reg", 2, 0x51000000, 0x1000);
	b_end();
}

static void test_setup_static_placement(void **state)
{
	placement_blob();
	b_parse();
	bootinfo_add_reserved(&bi, pa(0x40200000), pa(0x40400000), "kernel");
	sandbox_console_clear();
	assert_int_equal(domains_setup(&ds, &o, &bi), 8);
	assert_false(setup_dom("good")->failed);
	assert_int_equal(setup_dom("good")->origin, DOMAIN_ORIGIN_STATIC);
	assert_int_equal(setup_dom("good")->vcpus, 3);
	assert_int_equal(setup_dom("good")->st.count, 1);
	assert_int_equal(setup_dom("good")->spec.node, 0);
	assert_string_equal(setup_dom("good")->kernel, "module@0x52000000");
	assert_string_equal(setup_dom("on-kernel")->fail_reason,
			    "xen,static-mem [0x40000000, 0x40400000) overlaps "
			    "kernel");
	assert_string_equal(setup_dom("on-module")->fail_reason,
			    "xen,static-mem [0x51000000, 0x51100000) overlaps "
			    "module");
	assert_string_equal(setup_dom("left")->fail_reason,
			    "xen,static-mem [0x70000000, 0x70400000) overlaps "
			    "right's");
	assert_string_equal(setup_dom("right")->fail_reason,
			    "xen,static-mem [0x70200000, 0x70600000) overlaps "
			    "left's");
	assert_non_null(strstr(setup_dom("outside")->fail_reason,
			       "is not inside one RAM range"));
	assert_non_null(strstr(setup_dom("across")->fail_reason,
			       "is not inside one RAM range"));
	assert_non_null(strstr(setup_dom("mismatch")->fail_reason,
			       "xen,static-mem totals 4 KiB, memory is 8 KiB"));
	assert_true(setup_dom("mismatch")->failed);
	/* One warning per refusal made here, naming the node. */
	assert_int_equal(test_console_warnings(), 6);
	assert_true(test_console_contains("domains: dom0less on-kernel: "
					  "xen,static-mem [0x40000000, "
					  "0x40400000) overlaps kernel: domain "
					  "refused (its memory stays "
					  "reserved)"));
	for (unsigned int i = 0; i < ds.stats.count; i++)
		assert_int_equal(ds.d[i].origin, DOMAIN_ORIGIN_STATIC);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup, test_teardown)
	const struct CMUnitTest tests[] = {
		T(test_names),
		T(test_vcpus),
		T(test_setup_rounding),
		T(test_setup_unique_names),
		T(test_setup_static_placement),
	};
#undef T

	return cmocka_run_group_tests(tests, NULL, NULL);
}
