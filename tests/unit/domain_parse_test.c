/* SPDX-License-Identifier: MIT */
/*
 * Domains, what is asked: the domain= word (common/domain/domain_parse.c
  * through cmdline_parse()), the dom0less reader (boot/fdt/fdt_dom0less.c
   * through dt_parse(), on tests/data/dom0less.dts and on a blob with more
    * nodes than the table), and the plan (node choice, the out-of-memory
     * reason).
 */
#include <stdlib.h>

#include "common.h"
#include <keel/fdt.h>
#include <libfdt.h>

#include "../../common/domain/domain_priv.h"

/* The domains of the test's boot (the flow holds one likewise). */
static struct domain_set ds;

static struct keel_options o;
static struct bootinfo bi;
static struct dt_arch_info ai;

static unsigned int parse(const char *s)
{
	return cmdline_parse(&o, s, strlen(s));
}

static int setup(void **state)
{
	options_defaults(&o);
	return test_setup(state);
}

static void test_domain_words(void **state)
{
	assert_int_equal(parse("domain=1G domain=2M@1 domain=0x1000@0"), 0);
	assert_int_equal(o.domain_count, 3);
	assert_int_equal(o.domain[0].bytes, GiB);
	assert_int_equal(o.domain[0].node, DOMAIN_ANY_NODE);
	assert_string_equal(o.domain[0].name, "domain0");
	assert_int_equal(o.domain[1].bytes, 2 * MiB);
	assert_int_equal(o.domain[1].node, 1);
	assert_int_equal(o.domain[2].bytes, 4096);
	assert_int_equal(o.domain[2].node, 0);
	assert_string_equal(o.domain[2].name, "domain2");
}

static void test_domain_rounded(void **state)
{
	sandbox_console_clear();
	assert_int_equal(parse("domain=5000"), 1);
	assert_int_equal(o.domain_count, 1);
	assert_int_equal(o.domain[0].bytes, 8192);
	assert_true(test_console_contains("rounded up to 8192"));
	assert_int_equal(test_console_warnings(), 1);
}

/*
 * Refused words: one warning each, naming the word and saying it is
 * ignored; domain= words add up, so never "keeping the previous value".
 */
static void test_domain_bad(void **state)
{
	static const struct {
		const char *word, *says;
	} bad[] = {
		{"domain=", "SIZE is not a number"},
		{"domain=0", "domain=0: a zero-size domain, ignored"},
		{"domain=0M@1", "domain=0M@1: a zero-size domain, ignored"},
		{"domain=1G@", "domain=1G@: NODE is not a number"},
		{"domain=@1", "SIZE is not a number"},
		{"domain=1Q", "SIZE is not a number"},
		{"domain=1G@x", "domain=1G@x: NODE is not a number"},
		{"domain=1G@1@2", "NODE is not a number"},
		{"domain=1G@-1", "NODE is not a number"},
		{"domain=2P", "domain=2P: SIZE is not a number"},
		{"domain=1025T", "domain=1025T: SIZE is over 1 PiB"},
		{"domain=99999999999999999999", "SIZE does not fit in 64 bits"},
		{"domain=-1", "SIZE is not a number"},
		{"domain", "option domain needs a value"},
	};

	for (unsigned int i = 0; i < ARRAY_SIZE(bad); i++) {
		options_defaults(&o);
		sandbox_console_clear();
		assert_int_equal(parse(bad[i].word), 1);
		assert_int_equal(o.domain_count, 0);
		assert_int_equal(test_console_warnings(), 1);
		assert_true(test_console_contains(bad[i].says));
		assert_false(test_console_contains("previous value"));
	}
}

/*
 * Any number after @ is a node as asked: 5, 5000, 2^40 and one past
 * 64 bits are all kept for the plan, which warns the same way for each
 * (test_plan_unknown_nodes); only a non-number is refused.
 */
static void test_domain_node_numbers(void **state)
{
	static const struct {
		const char *word;
		int64_t node;
	} ok[] = {
		{"domain=1M@5", 5},
		{"domain=1M@5000", 5000},
		{"domain=1M@4096", 4096},
		{"domain=1M@0x10000000000", 1ll << 40},
		{"domain=1M@9223372036854775808", INT64_MAX},
		{"domain=1M@99999999999999999999999", INT64_MAX},
	};

	for (unsigned int i = 0; i < ARRAY_SIZE(ok); i++) {
		options_defaults(&o);
		sandbox_console_clear();
		assert_int_equal(parse(ok[i].word), 0);
		assert_int_equal(o.domain_count, 1);
		assert_true(o.domain[0].node == ok[i].node);
	}
}

/* 66 words: 64 kept, 2 counted, one warning for both. */
static void test_domain_too_many(void **state)
{
	char line[66 * 12];
	size_t n = 0;

	for (unsigned int i = 0; i < 66; i++)
		n += (size_t)snprintf(line + n, sizeof(line) - n, "domain=%uM ",
				      i + 1);
	sandbox_console_clear();
	assert_int_equal(parse(line), 1);
	assert_int_equal(o.domain_count, DOMAIN_MAX);
	assert_int_equal(o.domains_dropped, 2);
	assert_int_equal(o.domain[63].bytes, 64 * MiB);
	assert_true(test_console_contains("more than 64 domains: domain=65M"));
	/* The boot's one parse: the same count, the one warning. */
	sandbox_console_clear();
	options_parse(&o, line, strlen(line));
	assert_int_equal(o.domains_dropped, 2);
	assert_int_equal(test_console_warnings(), 1);
}

static void test_domains_destroy_flag(void **state)
{
	assert_false(o.domains_destroy);
	assert_int_equal(parse("domains_destroy"), 0);
	assert_true(o.domains_destroy);
	assert_int_equal(parse("domains_destroy=off"), 0);
	assert_false(o.domains_destroy);
}

static uint8_t *load_dtb(const char *name, size_t *len)
{
	char path[256];
	uint8_t *buf, *exact;

	snprintf(path, sizeof(path), "build/sandbox-asan/tests/data/%s.dtb",
		 name);
	buf = (uint8_t *)sandbox_read_file(path, len);
	if (!buf) {
		assert_int_equal(system("scripts/dtbs.sh"), 0);
		buf = (uint8_t *)sandbox_read_file(path, len);
	}
	assert_non_null(buf);
	exact = malloc(*len);
	assert_non_null(exact);
	memcpy(exact, buf, *len);
	free(buf);
	return exact;
}

static void test_dom0less_fixture(void **state)
{
	size_t len;
	uint8_t *blob = load_dtb("dom0less", &len);

	bootinfo_init(&bi, BOOT_DT);
	sandbox_console_clear();
	assert_int_equal(dt_parse(blob, len, pa(0x48000000), &bi, &ai), 0);
	assert_int_equal(bi.domain_count, 3);
	assert_string_equal(bi.domains[0].name, "domU1");
	assert_int_equal(bi.domains[0].bytes, 0x20000 * KiB);
	assert_int_equal(bi.domains[0].vcpus, 2);
	assert_string_equal(bi.domains[0].kernel, "module@4a000000");
	assert_string_equal(bi.domains[1].name, "rtos");
	assert_int_equal(bi.domains[1].bytes, 0x1000 * KiB);
	assert_int_equal(bi.domains[1].vcpus, 0);
	assert_string_equal(bi.domains[1].kernel, "");
	assert_string_equal(bi.domains[2].name, "bad-cpus");
	assert_int_equal(bi.domains[2].bytes, 0x400 * KiB);
	assert_int_equal(bi.domains[2].vcpus, 0);
	assert_int_equal(bi.dropped_domains, 0);
	/* Both modules reserved, named by their compatible. */
	assert_true(test_has_reserved(&bi, 0x4a000000, 0x4a000000 + 0xffffff,
				      "module:kernel"));
	assert_true(test_has_reserved(&bi, 0x4b000000, 0x4b001000, "module"));
	/* One warning per bad node, each naming it. */
	assert_true(test_console_contains("no-memory has no memory"));
	assert_true(test_console_contains("short-memory/memory has length 3"));
	assert_true(test_console_contains("zero/memory = 0 KiB is zero"));
	assert_true(test_console_contains("huge/memory"));
	assert_true(test_console_contains("bad-cpus/cpus has length 1"));
	/* The fixture's modules lie below its RAM (0x80000000): said. */
	assert_true(test_console_contains("module@4a000000 reg [0x4a000000, "
					  "0x4affffff) is outside RAM"));
	assert_true(test_console_contains("module@4b000000 reg [0x4b000000, "
					  "0x4b001000) is outside RAM"));
	assert_int_equal(test_console_warnings(), 7);
	free(blob);
}

/* A blob with @count xen,domain nodes of 1 MiB under /chosen. */
static void *make_blob(unsigned int count, size_t *len)
{
	size_t size = 4096 + count * 96;
	void *fdt = malloc(size);
	char name[32];

	assert_non_null(fdt);
	assert_int_equal(fdt_create(fdt, (int)size), 0);
	assert_int_equal(fdt_finish_reservemap(fdt), 0);
	assert_int_equal(fdt_begin_node(fdt, ""), 0);
	assert_int_equal(fdt_begin_node(fdt, "chosen"), 0);
	for (unsigned int i = 0; i < count; i++) {
		snprintf(name, sizeof(name), "dom%u", i);
		assert_int_equal(fdt_begin_node(fdt, name), 0);
		assert_int_equal(
			fdt_property_string(fdt, "compatible", "xen,domain"),
			0);
		assert_int_equal(fdt_property_u64(fdt, "memory", 1024), 0);
		assert_int_equal(fdt_end_node(fdt), 0);
	}
	assert_int_equal(fdt_end_node(fdt), 0);
	assert_int_equal(fdt_end_node(fdt), 0);
	assert_int_equal(fdt_finish(fdt), 0);
	*len = fdt_totalsize(fdt);
	return fdt;
}

static void test_dom0less_too_many(void **state)
{
	size_t len;
	void *blob = make_blob(BOOTINFO_MAX_DOMAINS + 5, &len);

	bootinfo_init(&bi, BOOT_DT);
	sandbox_console_clear();
	assert_int_equal(dt_parse(blob, len, pa(0x48000000), &bi, &ai), 0);
	assert_int_equal(bi.domain_count, BOOTINFO_MAX_DOMAINS);
	assert_int_equal(bi.dropped_domains, 5);
	assert_string_equal(bi.domains[63].name, "dom63");
	assert_true(test_console_contains("dom64 and later ones dropped"));
	assert_int_equal(bi.domains[0].bytes, MiB);
	free(blob);
}

/* Every truncation of the fixture: no read past it, no bad entry kept. */
static void test_dom0less_truncated(void **state)
{
	size_t len;
	uint8_t *blob = load_dtb("dom0less", &len);

	for (size_t cut = 0; cut < len; cut += 7) {
		uint8_t *part = malloc(cut ? cut : 1);

		memcpy(part, blob, cut);
		bootinfo_init(&bi, BOOT_DT);
		dt_parse(part, cut, pa(0x48000000), &bi, &ai);
		for (unsigned int i = 0; i < bi.domain_count; i++)
			assert_true(bi.domains[i].bytes > 0);
		free(part);
	}
	free(blob);
}

static void test_extents_and_sizes(void **state)
{
	uint64_t e[DOMAIN_EXTENT_KINDS];

	domain_expected_extents(3 * GiB + 5 * 2 * MiB + 3 * 4096, e);
	assert_int_equal(e[0], 3);
	assert_int_equal(e[1], 5);
	assert_int_equal(e[2], 3);
	domain_expected_extents(2 * MiB - 4096, e);
	assert_int_equal(e[0], 0);
	assert_int_equal(e[1], 0);
	assert_int_equal(e[2], 511);
}

/* Two nodes: unpinned domains go where the budget is, too big fails alone. */
static void test_plan(void **state)
{
	uint64_t free[2] = {GiB >> 12, 2 * GiB >> 12};

	bootinfo_init(&bi, BOOT_SANDBOX);
	bi.node_count = 2;
	bi.distance[0][0] = bi.distance[1][1] = 10;
	bi.distance[0][1] = bi.distance[1][0] = 20;
	numa_init(&bi);
	options_defaults(&o);
	assert_int_equal(parse("domain=1G domain=8G domain=512M@0 "
			       "domain=16M@7"),
			 0);
	bootinfo_init(&bi, BOOT_SANDBOX);
	assert_int_equal(domains_setup(&ds, &o, &bi), 4);
	sandbox_console_clear();
	domain_plan(&ds, free, 2);
	assert_int_equal(ds.d[0].node, 1); /* most free */
	assert_false(ds.d[0].failed);
	assert_true(ds.d[1].failed);
	/*
	 * 3 GiB less domain0's 1 GiB and 40 KiB of tables: 1.99996 GiB is
	 * free, which must not read as 2 GiB, and the tables are named.
	 */
	assert_string_equal(ds.d[1].fail_reason,
			    "out of memory: 8 GiB asked + 40 KiB of tables, "
			    "1.99 GiB free");
	assert_int_equal(ds.d[2].node, 0);
	assert_false(ds.d[2].failed);
	/* Unknown node 7: warned, the node with the most budget left. */
	assert_true(test_console_contains("domain3 asks for node 7"));
	assert_false(ds.d[3].failed);
	assert_int_equal(ds.d[0].id, 1);
	assert_int_equal(ds.d[3].id, 4);
}

/*
 * A node that is no node of the machine, whatever its value: the same
 * warning and the same fallback (the node with the most free memory).
 */
static void test_plan_unknown_nodes(void **state)
{
	static const char *const asked[] = {
		"2",
		"5",
		"4095",
		"4096",
		"5000",
		"0x10000000000",
		"99999999999999999999999",
	};
	char word[64], says[128];

	bootinfo_init(&bi, BOOT_SANDBOX);
	bi.node_count = 2;
	bi.distance[0][0] = bi.distance[1][1] = 10;
	bi.distance[0][1] = bi.distance[1][0] = 20;
	numa_init(&bi);
	for (unsigned int i = 0; i < ARRAY_SIZE(asked); i++) {
		uint64_t free[2] = {GiB >> 12, 2 * GiB >> 12};

		options_defaults(&o);
		snprintf(word, sizeof(word), "domain=16M@%s", asked[i]);
		assert_int_equal(parse(word), 0);
		assert_int_equal(domains_setup(&ds, &o, &bi), 1);
		sandbox_console_clear();
		domain_plan(&ds, free, 2);
		snprintf(says, sizeof(says),
			 "domain0 asks for node %lld, "
			 "there are 2 nodes: using node 1 (most free memory)",
			 (long long)o.domain[0].node);
		assert_true(test_console_contains(says));
		assert_int_equal(test_console_warnings(), 1);
		assert_int_equal(ds.d[0].node, 1);
		assert_false(ds.d[0].failed);
	}
}

/*
 * A domain as large as all free memory: its table pages do not fit, and
 * the reason says so; free memory never rounds up (1.98975 GiB free is
 * "1.98 GiB"), nor does a 4 KiB domain read as 0.
 */
static void test_plan_reason(void **state)
{
	uint64_t free[1] = {2 * GiB >> 12};
	uint64_t odd[1] = {(GiB * 198975 / 100000) >> 12};

	bootinfo_init(&bi, BOOT_SANDBOX);
	bi.node_count = 1;
	numa_init(&bi);
	options_defaults(&o);
	assert_int_equal(parse("domain=2G"), 0);
	assert_int_equal(domains_setup(&ds, &o, &bi), 1);
	domain_plan(&ds, free, 1);
	assert_true(ds.d[0].failed);
	assert_string_equal(ds.d[0].fail_reason,
			    "out of memory: 2 GiB asked + 40 KiB of tables, "
			    "2 GiB free");
	options_defaults(&o);
	assert_int_equal(parse("domain=2040M"), 0);
	assert_int_equal(domains_setup(&ds, &o, &bi), 1);
	domain_plan(&ds, odd, 1);
	assert_string_equal(ds.d[0].fail_reason,
			    "out of memory: 2.00 GiB asked + 40 KiB of "
			    "tables, 1.98 GiB free");
	options_defaults(&o);
	assert_int_equal(parse("domain=4K domain=2G"), 0);
	assert_int_equal(domains_setup(&ds, &o, &bi), 2);
	free[0] = 16;
	domain_plan(&ds, free, 1);
	assert_false(ds.d[0].failed);
	assert_string_equal(ds.d[1].fail_reason,
			    "out of memory: 2 GiB asked + 40 KiB of tables, "
			    "20 KiB free");
}

/*
 * A set sized to two domains (the flow sizes its own to the domains asked:
 * claim_domain_set()), in storage of exactly that size (ASan would name a
 * write past it): domains_setup() fills two slots and drops the third,
 * and keeps the set's size.
 */
static void test_set_cap(void **state)
{
	struct domain_set *s = calloc(1, domain_set_bytes(2));

	(void)state;
	assert_non_null(s);
	s->cap = 2;
	bootinfo_init(&bi, BOOT_SANDBOX);
	bi.node_count = 1;
	numa_init(&bi);
	assert_int_equal(parse("domain=16M domain=32M domain=64M"), 0);
	assert_int_equal(domains_setup(s, &o, &bi), 2);
	assert_int_equal(s->cap, 2);
	assert_int_equal(domain_set_stats(s)->count, 2);
	assert_int_equal(domain_set_stats(s)->dropped, 1);
	assert_int_equal(s->d[1].spec.bytes, 32 * MiB);
	assert_int_equal(domain_set_cap(s), 2);
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_domain_words, setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_domain_rounded, setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_domain_bad, setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_domain_node_numbers, setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_domain_too_many, setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_domains_destroy_flag,
						setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_dom0less_fixture, setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_dom0less_too_many, setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_dom0less_truncated, setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_extents_and_sizes, setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_plan_reason, setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_plan, setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_plan_unknown_nodes, setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_set_cap, setup,
						test_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
