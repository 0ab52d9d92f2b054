/* SPDX-License-Identifier: MIT */
/*
 * boot/fdt/fdt_cpus.c: /cpus, cpu-map topology (and its defects), MPIDR
 * topology, more CPUs than the build. Fixture: fdt_fixture.h.
 */
#include "fdt_fixture.h"

/*
 * dt-cpumap.dts: 2 sockets x 2 clusters x 2 cores x 2 threads. CPU k (DT
 * order) sits at socket k/8, cluster k/4%2, core k/2%2, thread k%2 and
 * has reg (socket*2 + cluster) << 8 | core*2 + thread (see the fixture).
 */
#define CM_CPUS 16

struct cm_pos {
	uint32_t socket, cluster, core, thread;
};

static struct cm_pos cm_pos(unsigned int k)
{
	return (struct cm_pos){k / 8, k / 4 % 2, k / 2 % 2, k % 2};
}

/* From the map: package = socket, core unique within it, thread. */
static void assert_cpumap_topology(void)
{
	assert_int_equal(bi.cpu_count, CM_CPUS);
	for (unsigned int k = 0; k < CM_CPUS; k++) {
		struct cm_pos p = cm_pos(k);

		assert_int_equal(bi.cpus[k].hwid,
				 (p.socket * 2 + p.cluster) << 8 |
					 (p.core * 2 + p.thread));
		assert_int_equal(bi.cpus[k].package, p.socket);
		assert_int_equal(bi.cpus[k].core, p.cluster * 2 + p.core);
		assert_int_equal(bi.cpus[k].thread, p.thread);
	}
}

/* The MPIDR fallback: Aff1 = package, Aff0 = core, no threads. */
static void assert_mpidr_topology(void)
{
	for (unsigned int k = 0; k < bi.cpu_count; k++) {
		uint64_t hwid = bi.cpus[k].hwid;

		assert_int_equal(bi.cpus[k].package, hwid >> 8);
		assert_int_equal(bi.cpus[k].core, hwid & 0xff);
		assert_int_equal(bi.cpus[k].thread, 0);
	}
}

static void test_cpu_map(void **state)
{
	assert_int_equal(parse_name("dt-cpumap"), 0);
	assert_int_equal(test_console_warnings(), 0);
	assert_int_equal(bi.fixups, 0);
	assert_true(ai.cpu_map);
	assert_cpumap_topology();
	/* Each (package, core) holds exactly the threads 0 and 1. */
	for (unsigned int a = 0; a < CM_CPUS; a++) {
		unsigned int same = 0;

		for (unsigned int b = 0; b < CM_CPUS; b++)
			same += bi.cpus[a].package == bi.cpus[b].package &&
				bi.cpus[a].core == bi.cpus[b].core;
		assert_int_equal(same, 2);
	}
}

static void test_cpu_map_bad_fixture(void **state)
{
	/* A dangling phandle, and a leaf without cpu: one warning. */
	assert_int_equal(parse_name("dt-cpumap-bad"), 0);
	assert_int_equal(test_console_warnings(), 1);
	assert_int_equal(bi.fixups, 1);
	assert_true(test_console_contains(
		"cpu-map thread0: cpu phandle names no CPU"));
	assert_false(ai.cpu_map);
	assert_int_equal(bi.cpu_count, 4);
	assert_mpidr_topology();
}

/* A writable copy of dt-cpumap with room for edits. */
static uint8_t *cpumap_copy(size_t *len)
{
	size_t n;
	uint8_t *good = load_dtb("dt-cpumap", &n);
	uint8_t *b = malloc(n + 1024);

	assert_non_null(b);
	assert_int_equal(fdt_open_into(good, b, (int)(n + 1024)), 0);
	free(good);
	*len = n + 1024;
	return b;
}

static int cm_node(const void *fdt, const char *path)
{
	int off = fdt_path_offset(fdt, path);

	assert_true(off >= 0);
	return off;
}

/*
 * One defect at a time in a copy of the good map: each is exactly one
 * warning naming it, and every CPU falls back to its MPIDR topology.
 */
/* test_cpu_map_defects(): break the cpu-map of @b as case @w says. */
static void cpu_map_break(uint8_t *b, const char *w, int off)
{
	if (!strcmp(w, "dangling")) {
		assert_int_equal(fdt_setprop_u32(b, off, "cpu", 0x999), 0);
	} else if (!strcmp(w, "no-cpu")) {
		assert_int_equal(fdt_delprop(b, off, "cpu"), 0);
	} else if (!strcmp(w, "short-cpu")) {
		assert_int_equal(fdt_setprop(b, off, "cpu", "", 1), 0);
	} else if (!strcmp(w, "twice")) {
		/* thread1 names thread0's CPU (placed just before). */
		int t0 = cm_node(b, "/cpus/cpu-map/socket1/cluster0/"
				    "core1/thread0");
		const void *ph = fdt_getprop(b, t0, "cpu", NULL);
		uint32_t v;

		memcpy(&v, ph, 4);
		assert_int_equal(fdt_setprop(b, off, "cpu", &v, 4), 0);
	} else if (!strcmp(w, "left-out")) {
		/* CPU 13 (reg 0x301) no longer in the map. */
		off = cm_node(b, "/cpus/cpu-map/socket1/cluster1/core0/"
				 "thread1");
		assert_int_equal(fdt_del_node(b, off), 0);
	} else if (!strcmp(w, "no-thread0")) {
		/* Without thread0 the core is the leaf: no cpu. */
		off = cm_node(b, "/cpus/cpu-map/socket1/cluster1/core1/"
				 "thread0");
		assert_int_equal(fdt_del_node(b, off), 0);
	} else if (!strcmp(w, "no-phandle")) {
		/* A 17th CPU, which no leaf can name. */
		int cpu = fdt_add_subnode(b, cm_node(b, "/cpus"), "cpu@400");

		assert_true(cpu >= 0);
		assert_int_equal(
			fdt_setprop_string(b, cpu, "device_type", "cpu"), 0);
		assert_int_equal(fdt_setprop_u32(b, cpu, "reg", 0x400), 0);
	} else {
		/* cluster2 of socket0 nests ten clusters deep. */
		int n = cm_node(b, "/cpus/cpu-map/socket0");

		for (int d = 0; d < 10; d++) {
			n = fdt_add_subnode(b, n, d ? "cluster0" : "cluster2");
			assert_true(n >= 0);
		}
	}
}

static void test_cpu_map_defects(void **state)
{
	static const char leaf[] =
		"/cpus/cpu-map/socket1/cluster0/core1/thread1";
	static const struct {
		const char *what, *warning;
	} cases[] = {
		{"dangling", "thread1: cpu phandle names no CPU"},
		{"no-cpu", "thread1: no cpu phandle"},
		{"short-cpu", "thread1: no cpu phandle"},
		{"twice", "thread1: cpu phandle names no CPU, or one placed"},
		{"left-out", "does not place the CPU with MPIDR 0x301"},
		{"no-thread0", "core1: no cpu phandle"},
		{"too-deep", "clusters nested too deep"},
		{"no-phandle", "does not place the CPU with MPIDR 0x400"},
	};

	for (unsigned int i = 0; i < ARRAY_SIZE(cases); i++) {
		size_t len;
		uint8_t *b = cpumap_copy(&len);
		const char *w = cases[i].what;
		int off = cm_node(b, leaf);

		cpu_map_break(b, w, off);
		sandbox_console_clear();
		assert_int_equal(parse_buf(b, len), 0);
		if (test_console_warnings() != 1 ||
		    !test_console_contains(cases[i].warning))
			fail_msg("%s: %u warnings, want 1 with \"%s\":\n%s", w,
				 test_console_warnings(), cases[i].warning,
				 sandbox_console_buffer());
		assert_int_equal(bi.fixups, 1);
		assert_false(ai.cpu_map);
		assert_int_equal(bi.cpu_count,
				 CM_CPUS + !strcmp(w, "no-phandle"));
		assert_mpidr_topology();
		free(b);
	}
}

/*
 * No socket level: each top cluster is a package, and a core leaf (no
 * threadN) is thread 0. Derived from dt-cpumap: socketN renamed
 * clusterN, and socket0's cluster0/core0 loses its threads, its leaf
 * naming CPU 0 (CPU 1 is then left out, so it is dropped from /cpus too).
 */
static void test_cpu_map_clusters_only(void **state)
{
	size_t len;
	uint8_t *b = cpumap_copy(&len);
	int core0, t;
	const void *ph;
	uint32_t v;

	assert_int_equal(fdt_set_name(b, cm_node(b, "/cpus/cpu-map/socket0"),
				      "cluster0"),
			 0);
	assert_int_equal(fdt_set_name(b, cm_node(b, "/cpus/cpu-map/socket1"),
				      "cluster1"),
			 0);
	core0 = cm_node(b, "/cpus/cpu-map/cluster0/cluster0/core0");
	t = cm_node(b, "/cpus/cpu-map/cluster0/cluster0/core0/thread0");
	ph = fdt_getprop(b, t, "cpu", NULL);
	memcpy(&v, ph, 4);
	assert_int_equal(fdt_setprop(b, core0, "cpu", &v, 4), 0);
	/* Offsets after core0 moved: look thread0 up again. */
	t = cm_node(b, "/cpus/cpu-map/cluster0/cluster0/core0/thread0");
	assert_int_equal(fdt_del_node(b, t), 0);
	assert_int_equal(
		fdt_del_node(b, cm_node(b, "/cpus/cpu-map/cluster0/cluster0/"
					   "core0/thread1")),
		0);
	assert_int_equal(fdt_del_node(b, cm_node(b, "/cpus/cpu@1")), 0);

	assert_int_equal(parse_buf(b, len), 0);
	assert_int_equal(test_console_warnings(), 0);
	assert_true(ai.cpu_map);
	assert_int_equal(bi.cpu_count, CM_CPUS - 1);
	for (unsigned int i = 0; i < bi.cpu_count; i++) {
		/* CPU k of the fixture, k = 1 removed. */
		struct cm_pos p = cm_pos(i ? i + 1 : 0);

		assert_int_equal(bi.cpus[i].package, p.socket);
		assert_int_equal(bi.cpus[i].core, p.cluster * 2 + p.core);
		assert_int_equal(bi.cpus[i].thread, p.thread);
	}
	free(b);
}

static void test_mpidr_topology(void **state)
{
	uint32_t p, c, t;

	dt_mpidr_topology(0x0000000102ULL, &p, &c, &t);
	assert_int_equal(p, 1);
	assert_int_equal(c, 2);
	assert_int_equal(t, 0);
	dt_mpidr_topology(0x8001030201ULL | MPIDR_MT, &p, &c, &t);
	assert_int_equal(t, 1);
	assert_int_equal(c, 2);
	assert_int_equal(p, 3 | 0x80 << 8);
	dt_mpidr_topology(0x8000000000ULL, &p, &c, &t);
	assert_int_equal(p, 0x80 << 16);
}

/*
 * A DT with @cpus cpu nodes (MPIDR Aff2.Aff1.Aff0 = k / 256, k / 16 % 16,
 * k % 16) and 1 GiB of RAM, built with libfdt's sequential writer.
 */
static void *many_cpus_dt(unsigned int cpus, size_t *len)
{
	size_t size = 256 + (size_t)cpus * 96;
	void *fdt = malloc(size);
	/* <0 0x40000000 0 0x40000000>: [1 GiB, 2 GiB) */
	const fdt32_t mem_reg[4] = {0, cpu_to_fdt32(0x40000000), 0,
				    cpu_to_fdt32(0x40000000)};
	char name[32];

	assert_non_null(fdt);
	assert_int_equal(fdt_create(fdt, (int)size), 0);
	assert_int_equal(fdt_finish_reservemap(fdt), 0);
	assert_int_equal(fdt_begin_node(fdt, ""), 0);
	assert_int_equal(fdt_property_u32(fdt, "#address-cells", 2), 0);
	assert_int_equal(fdt_property_u32(fdt, "#size-cells", 2), 0);
	assert_int_equal(fdt_begin_node(fdt, "cpus"), 0);
	assert_int_equal(fdt_property_u32(fdt, "#address-cells", 1), 0);
	assert_int_equal(fdt_property_u32(fdt, "#size-cells", 0), 0);
	for (unsigned int k = 0; k < cpus; k++) {
		uint32_t mpidr = (k / 256) << 16 | (k / 16 % 16) << 8 | k % 16;

		snprintf(name, sizeof(name), "cpu@%x", mpidr);
		assert_int_equal(fdt_begin_node(fdt, name), 0);
		assert_int_equal(fdt_property_string(fdt, "device_type", "cpu"),
				 0);
		assert_int_equal(fdt_property_u32(fdt, "reg", mpidr), 0);
		assert_int_equal(fdt_end_node(fdt), 0);
	}
	assert_int_equal(fdt_end_node(fdt), 0);
	assert_int_equal(fdt_begin_node(fdt, "memory@40000000"), 0);
	assert_int_equal(fdt_property_string(fdt, "device_type", "memory"), 0);
	assert_int_equal(fdt_property(fdt, "reg", mem_reg, sizeof(mem_reg)), 0);
	assert_int_equal(fdt_end_node(fdt), 0);
	assert_int_equal(fdt_end_node(fdt), 0);
	assert_int_equal(fdt_finish(fdt), 0);
	*len = fdt_totalsize(fdt);
	return fdt;
}

/*
 * More cpu nodes than CONFIG_NR_CPUS: the first NR_CPUS kept, the rest
 * counted in dropped_cpus, one warning for all of them (not one per CPU).
 */
static void test_too_many_cpus(void **state)
{
	const unsigned int extra = 5, cpus = CONFIG_NR_CPUS + extra;
	size_t len;
	void *fdt = many_cpus_dt(cpus, &len);
	char want[160];

	(void)state;
	assert_int_equal(parse_buf(fdt, len), 0);
	assert_int_equal(bi.cpu_count, CONFIG_NR_CPUS);
	assert_int_equal(bi.dropped_cpus, extra);
	assert_int_equal(bi.cpus[CONFIG_NR_CPUS - 1].hwid,
			 (CONFIG_NR_CPUS - 1) / 256 << 16 |
				 ((CONFIG_NR_CPUS - 1) / 16 % 16) << 8 |
				 (CONFIG_NR_CPUS - 1) % 16);
	bi.cpus[0].boot_cpu = true;
	bootinfo_sanitise(&bi);
	snprintf(want, sizeof(want),
		 "firmware describes %u CPUs, this build holds %u "
		 "(CONFIG_NR_CPUS): %u dropped",
		 cpus, (unsigned int)CONFIG_NR_CPUS, extra);
	if (test_console_warnings() != 1 || !test_console_contains(want))
		fail_msg("want one warning \"%s\", got:\n%s", want,
			 sandbox_console_buffer());
	free(fdt);
}

/*
 * Issue 20 §2.8: a cpu with status = "fail" (or "fail-sss") failed; it is
 * not a hot-plug slot ("disabled"). One warning for the tree; the CPU is
 * left out and marked failed, which its fail_reason then says.
 */
static void test_cpu_status_fail(void **state)
{
	static const uint32_t ids[4] = {0, 0, 0, 0};
	static const char *const status[4] = {"okay", "fail", "disabled",
					      "fail-overheat"};
	size_t len, big = 1 << 16;
	uint8_t *blob = numa_dt(ids, 4, NULL, 0, &len), *b = calloc(1, big);

	assert_non_null(b);
	assert_int_equal(fdt_open_into(blob, b, (int)big), 0);
	for (unsigned int i = 0; i < 4; i++) {
		char path[32];
		int off;

		snprintf(path, sizeof(path), "/cpus/cpu@%x", i);
		off = fdt_path_offset(b, path);
		assert_true(off >= 0);
		assert_int_equal(
			fdt_setprop_string(b, off, "status", status[i]), 0);
	}
	assert_int_equal(parse_buf(b, big), 0);
	assert_int_equal(test_console_warnings(), 1);
	assert_true(test_console_contains("dt: 2 CPUs with status \"fail\" "
					  "(first cpu@"));
	assert_int_equal(bi.cpu_count, 4);
	for (unsigned int i = 0; i < 4; i++) {
		unsigned int k = (unsigned int)bi.cpus[i].hwid;

		assert_int_equal(bi.cpus[i].usable, k == 0);
		assert_int_equal(bi.cpus[i].failed, k == 1 || k == 3);
	}
	free(b);
	free(blob);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_cpu_map, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_cpu_map_bad_fixture,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_cpu_map_defects,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_cpu_map_clusters_only,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_mpidr_topology, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_too_many_cpus, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_cpu_status_fail,
						test_setup, test_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
