/* SPDX-License-Identifier: MIT */
/*
 * Issue 28: what keel reads from a dom0less DT (boot/fdt/fdt_modules.c,
 * boot/fdt/fdt_dom0less.c through dt_parse()): Xen's own examples
 * (tests/data/xen-*.dts, as its documentation writes them), QEMU's
 * guest-loader module, every module kind, malformed module and
 * xen,static-mem properties (reserved when readable, refused, warned).
 * Names, cpus and domains_setup(): dom0less_setup_test.c.
 */
#include "dom0less_fixture.h"

/* ---- Xen's examples, as written ---------------------------------------- */

static void test_xen_example(void **state)
{
	static const struct {
		uint64_t at;
		const char *name;
	} mods[] = {{0x4a000000, "module:kernel"},
		    {0x4b000000, "module:ramdisk"},
		    {0x4c000000, "module:kernel"},
		    {0x4d000000, "module:ramdisk"}};
	size_t len;
	uint8_t *b = load_dtb("xen-dom0less", &len);

	bootinfo_init(&bi, BOOT_DT);
	sandbox_console_clear();
	assert_int_equal(dt_parse(b, len, pa(0x48000000), &bi, &ai), 0);
	assert_int_equal(test_console_warnings(), 0);
	assert_int_equal(bi.domain_count, 2);
	assert_string_equal(bi.domains[0].name, "domU1");
	assert_int_equal(bi.domains[0].bytes, 131072 * KiB);
	assert_int_equal(bi.domains[0].vcpus, 2);
	assert_string_equal(bi.domains[0].kernel, "module@0x4a000000");
	assert_false(bi.domains[0].is_static);
	assert_string_equal(bi.domains[1].name, "domU2");
	assert_int_equal(bi.domains[1].bytes, 65536 * KiB);
	assert_int_equal(bi.domains[1].vcpus, 1);
	assert_string_equal(bi.domains[1].kernel, "module@0x4c000000");
	/* reg = <0x0 ADDR 0xffffff>: the domain node's 2+1 cells. */
	for (unsigned int i = 0; i < ARRAY_SIZE(mods); i++)
		assert_true(test_has_reserved(
			&bi, mods[i].at, mods[i].at + 0xffffff, mods[i].name));
	free(b);
}

/* Both bindings of static memory: Xen 4.17 on, and Xen 4.16's. */
static void test_xen_static_example(void **state)
{
	static const char *const names[] = {"xen-static-mem",
					    "xen-static-mem-4.16"};

	for (unsigned int i = 0; i < ARRAY_SIZE(names); i++) {
		size_t len;
		uint8_t *b = load_dtb(names[i], &len);
		const struct bi_domain *d;

		bootinfo_init(&bi, BOOT_DT);
		sandbox_console_clear();
		assert_int_equal(dt_parse(b, len, pa(0x48000000), &bi, &ai), 0);
		assert_int_equal(test_console_warnings(), 0);
		assert_int_equal(bi.domain_count, 1);
		d = &bi.domains[0];
		assert_string_equal(d->name, "domU1");
		assert_true(d->is_static);
		assert_string_equal(d->refused, "");
		assert_int_equal(d->bytes, 0x80000 * KiB);
		assert_int_equal(d->vcpus, 2);
		assert_int_equal(d->static_count, 1);
		assert_int_equal(pa_val(d->static_mem[0].start), 0x30000000);
		assert_int_equal(pa_val(d->static_mem[0].end), 0x50000000);
		assert_true(test_has_reserved(&bi, 0x30000000, 0x50000000,
					      "static-mem"));
		free(b);
	}
}

/* ---- modules ------------------------------------------------------------ */

/*
 * QEMU's -device guest-loader,addr=0x50000000,kernel=FILE: a module under
 * a /chosen with no cells of its own (the root's 2+2 apply), compatible
 * in the order QEMU writes it.
 */
static void test_guest_loader_module(void **state)
{
	static const char compat[] = "multiboot,module\0multiboot,kernel";

	b_begin();
	b_node("module@0x50000000");
	b_bytes("compatible", compat, sizeof(compat));
	b_cells("reg", 4, 0, 0x50000000, 0, 0x2000);
	b_end();
	assert_int_equal(b_parse(), 0);
	assert_true(test_has_reserved(&bi, 0x50000000, 0x50002000,
				      "module:kernel"));
	assert_int_equal(bi.domain_count, 0);
}

static void test_module_kinds(void **state)
{
	static const struct {
		const char *compat, *name;
	} k[] = {
		{"multiboot,ramdisk", "module:ramdisk"},
		{"multiboot,device-tree", "module:device-tree"},
		{"xen,xsm-policy", "module:xsm-policy"},
		{"xen,linux-zimage", "module:kernel"},
		{"xen,linux-initrd", "module:ramdisk"},
		{"something,else", "module"},
	};
	char name[32], compat[64];
	int n;

	b_begin();
	b_cells("#address-cells", 1, 1);
	b_cells("#size-cells", 1, 1);
	for (unsigned int i = 0; i < ARRAY_SIZE(k); i++) {
		snprintf(name, sizeof(name), "m%u", i);
		b_node(name);
		n = snprintf(compat, sizeof(compat), "%s%cmultiboot,module",
			     k[i].compat, 0);
		b_bytes("compatible", compat, n + 1);
		b_cells("reg", 2, 0x50000000 + i * 0x100000, 0x1000);
		b_end();
	}
	/* Xen 4.4's generic name, inside a /chosen child that is no domain. */
	b_node("other");
	b_node("deep");
	b_str("compatible", "xen,multiboot-module");
	b_cells("reg", 2, 0x51000000, 0x3000);
	b_node("too-deep"); /* a great-grandchild of /chosen: not a module */
	b_str("compatible", "multiboot,module");
	b_cells("reg", 2, 0x52000000, 0x1000);
	b_end();
	b_end();
	b_end();
	assert_int_equal(b_parse(), 0);
	for (unsigned int i = 0; i < ARRAY_SIZE(k); i++)
		assert_true(test_has_reserved(&bi, 0x50000000 + i * 0x100000,
					      0x50001000 + i * 0x100000,
					      k[i].name));
	assert_true(test_has_reserved(&bi, 0x51000000, 0x51003000, "module"));
	assert_int_equal(reserved_in(0x52000000, 0x53000000, "module"), 0);
}

/*
 * Malformed modules: each one warning naming the node; what can be read
 * is reserved (fail closed), what cannot is said to be not reserved.
 */
/* One module per problem, each named after it. */
static void malformed_modules_blob(void)
{
	static const uint8_t odd[] = {0, 0, 0, 0, 0x50, 0x10, 0, 0,    0,
				      0, 0, 0, 0, 0,	0x10, 0, 0xde, 0xad};

	b_begin();
	b_node("no-reg");
	b_str("compatible", "multiboot,module");
	b_end();
	b_node("short-reg");
	b_str("compatible", "multiboot,module");
	b_cells("reg", 3, 0, 0x50000000, 0);
	b_end();
	b_node("trailing"); /* one whole 2+2 entry and two stray bytes */
	b_str("compatible", "multiboot,module");
	b_bytes("reg", odd, sizeof(odd));
	b_end();
	b_node("empty");
	b_str("compatible", "multiboot,module");
	b_cells("reg", 4, 0, 0x50200000, 0, 0);
	b_end();
	b_node("wraps");
	b_str("compatible", "multiboot,module");
	b_cells("reg", 4, 0xffffffff, 0xffffe000, 0, 0x3000);
	b_end();
	b_node("outside");
	b_str("compatible", "multiboot,module");
	b_cells("reg", 4, 0, 0x1000, 0, 0x1000);
	b_end();
	b_node("across"); /* the last page of RAM and the one after it */
	b_str("compatible", "multiboot,module");
	b_cells("reg", 4, 0, 0x7ffff000, 0, 0x2000);
	b_end();
	b_node("zero-size-cells");
	b_cells("#size-cells", 1, 0);
	b_node("inner");
	b_str("compatible", "multiboot,module");
	b_cells("reg", 2, 0, 0x50300000);
	b_end();
	b_end();
	/* One each; "wraps" is outside RAM as well. */
}

static void test_module_malformed(void **state)
{
	malformed_modules_blob();
	assert_int_equal(b_parse(), 9);
	assert_true(test_console_contains("module no-reg has no reg: nothing "
					  "reserved"));
	assert_true(test_console_contains("module short-reg reg of 12 bytes "
					  "cannot be read with 2+2 cells"));
	assert_true(test_console_contains("module trailing reg length 18 is "
					  "not a multiple of 16"));
	assert_true(test_has_reserved(&bi, 0x50100000, 0x50101000, "module"));
	assert_true(test_console_contains("module empty reg entry at "
					  "0x50200000 is empty"));
	assert_true(test_console_contains("module wraps reg "
					  "[0xffffffffffffe000 + 0x3000] "
					  "wraps, reserved to the top"));
	assert_true(test_has_reserved(&bi, 0xffffffffffffe000ull,
				      0xfffffffffffff000ull, "module"));
	assert_true(test_console_contains("module outside reg [0x1000, 0x2000) "
					  "is outside RAM"));
	assert_true(test_has_reserved(&bi, 0x1000, 0x2000, "module"));
	assert_true(test_console_contains("module across reg [0x7ffff000, "
					  "0x80001000) is partly outside RAM"));
	assert_true(test_has_reserved(&bi, 0x7ffff000, 0x80001000, "module"));
	assert_true(test_console_contains("module inner reg of 8 bytes cannot "
					  "be read with 2+0 cells"));
}

/* ---- xen,static-mem ----------------------------------------------------- */

/*
 * Malformed static memory: every readable pair reserved whatever else is
 * wrong, the domain refused with its reason (a failed row later), one
 * warning per problem naming the node and the property.
 */
/* One static domain per problem, each named after it. */
static void malformed_static_blob(void)
{
	b_begin();
	b_cells("#address-cells", 1, 1);
	b_cells("#size-cells", 1, 1);
	b_domain("total", 0x2000); /* 8 MiB asked, 4 MiB given */
	b_cells("xen,static-mem", 2, 0x50000000, 0x400000);
	b_end();
	b_domain("unaligned", 4);
	b_cells("xen,static-mem", 2, 0x50400800, 0x1000);
	b_end();
	b_domain("wraps", 4); /* Xen 4.16's binding: 2+2 cells of its own */
	b_cells("#xen,static-mem-address-cells", 1, 2);
	b_cells("#xen,static-mem-size-cells", 1, 2);
	b_cells("xen,static-mem", 4, 0xffffffff, 0xfffff000, 0, 0x2000);
	b_end();
	b_domain("nine", 9 * 4); /* past BOOTINFO_DOMAIN_STATIC_MAX */
	b_cells("xen,static-mem", 18, 0x50500000, 0x1000, 0x50501000, 0x1000,
		0x50502000, 0x1000, 0x50503000, 0x1000, 0x50504000, 0x1000,
		0x50505000, 0x1000, 0x50506000, 0x1000, 0x50507000, 0x1000,
		0x50508000, 0x1000);
	b_end();
	b_domain("bad-cells", 4); /* Xen 4.16's binding, cells unusable */
	b_cells("#xen,static-mem-address-cells", 1, 3);
	b_cells("#xen,static-mem-size-cells", 1, 1);
	b_cells("xen,static-mem", 2, 0x50600000, 0x1000);
	b_end();
	b_node("no-memory"); /* skipped, but its memory stays reserved */
	b_str("compatible", "xen,domain");
	b_cells("xen,static-mem", 2, 0x50700000, 0x1000);
	b_end();
	b_domain("empty-pair", 4); /* a size-0 pair is ignored, warned */
	b_cells("xen,static-mem", 4, 0x50800000, 0, 0x50801000, 0x1000);
	b_end();
}

static void test_static_malformed(void **state)
{
	const struct bi_domain *d;

	malformed_static_blob();
	b_parse();
	d = dom("total");
	assert_non_null(d);
	assert_true(d->is_static);
	assert_string_equal(
		d->refused,
		"xen,static-mem totals 4096 KiB, memory is 8192 KiB");
	assert_true(
		test_has_reserved(&bi, 0x50000000, 0x50400000, "static-mem"));
	assert_non_null(strstr(dom("unaligned")->refused, "not page aligned"));
	assert_true(
		test_has_reserved(&bi, 0x50400800, 0x50401800, "static-mem"));
	assert_non_null(strstr(dom("wraps")->refused, "wraps"));
	/* From the last page: nothing left to reserve, nothing recorded. */
	assert_int_equal(dom("wraps")->static_count, 0);
	assert_non_null(strstr(dom("nine")->refused, "more than 8 ranges"));
	assert_int_equal(reserved_in(0x50500000, 0x50509000, "static-mem"),
			 9 * 0x1000);
	assert_non_null(strstr(dom("bad-cells")->refused, "cells unusable"));
	assert_true(test_console_contains("bad-cells "
					  "#xen,static-mem-address-cells = 3 "
					  "is not supported"));
	assert_true(test_console_contains("bad-cells/xen,static-mem cannot be "
					  "read (unusable cells): NOT "
					  "reserved"));
	assert_null(dom("no-memory"));
	assert_true(
		test_has_reserved(&bi, 0x50700000, 0x50701000, "static-mem"));
	assert_string_equal(dom("empty-pair")->refused, "");
	assert_int_equal(dom("empty-pair")->static_count, 1);
	assert_true(test_console_contains("empty-pair/xen,static-mem entry at "
					  "0x50800000 is empty, ignored"));
	/* Every refusal is a warning naming the node. */
	assert_true(test_console_contains("dom0less total: xen,static-mem "
					  "totals 4096 KiB"));
	assert_true(test_console_contains("dom0less nine: xen,static-mem has "
					  "more than 8 ranges"));
}

/* One whole pair and two stray bytes: the pair reserved, the domain refused. */
static void test_static_odd_length(void **state)
{
	static const uint8_t v[] = {0x50, 0, 0, 0, 0, 0, 0x10, 0, 0xab, 0xcd};

	b_begin();
	b_cells("#address-cells", 1, 1);
	b_cells("#size-cells", 1, 1);
	b_domain("odd", 4);
	b_bytes("xen,static-mem", v, sizeof(v));
	b_end();
	b_parse();
	assert_non_null(dom("odd"));
	assert_string_equal(dom("odd")->refused,
			    "xen,static-mem length 10 is not a multiple of 8");
	assert_true(
		test_has_reserved(&bi, 0x50000000, 0x50001000, "static-mem"));
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup, test_teardown)
	const struct CMUnitTest tests[] = {
		T(test_xen_example),	     T(test_xen_static_example),
		T(test_guest_loader_module), T(test_module_kinds),
		T(test_module_malformed),    T(test_static_malformed),
		T(test_static_odd_length),
	};
#undef T

	return cmocka_run_group_tests(tests, NULL, NULL);
}
