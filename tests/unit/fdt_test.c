/* SPDX-License-Identifier: MIT */
/*
 * boot/fdt.c: dt_parse() on the DT fixtures tests/data/dt-*.dts (compiled
 * by scripts/dtbs.sh into build/sandbox-asan/tests/data/) and on blobs
 * corrupted here. Blobs are copied into exactly-sized heap buffers so that
 * ASan catches any read past the length dt_parse() was given.
 */
#include <stdio.h>
#include <stdlib.h>

#include "common.h"
#include <keel/fdt.h>
#include <libfdt.h>

#define DTB_DIR "build/sandbox-asan/tests/data/"
#define MB	(1ULL << 20)

static struct bootinfo bi;
static struct dt_arch_info ai;

static uint8_t *load_dtb(const char *name, size_t *len)
{
	char path[256];
	size_t n;
	uint8_t *buf;

	snprintf(path, sizeof(path), DTB_DIR "%s.dtb", name);
	buf = (uint8_t *)sandbox_read_file(path, &n);
	if (!buf) {
		/* Not built yet (no tests.mk rule): build the fixtures now. */
		assert_int_equal(system("scripts/dtbs.sh"), 0);
		buf = (uint8_t *)sandbox_read_file(path, &n);
	}
	assert_non_null(buf);
	*len = n;
	return buf;
}

/* A private copy of exactly @len bytes (ASan-checked bounds). */
static uint8_t *copy_exact(const uint8_t *src, size_t len)
{
	uint8_t *p = malloc(len ? len : 1);

	assert_non_null(p);
	memcpy(p, src, len);
	return p;
}

static int parse_buf(const void *blob, size_t len)
{
	bootinfo_init(&bi, BOOT_DT);
	return dt_parse(blob, len, pa(0x48000000), &bi, &ai);
}

static int parse_name(const char *name)
{
	size_t len;
	uint8_t *blob = load_dtb(name, &len);
	uint8_t *exact = copy_exact(blob, len);
	int r = parse_buf(exact, len);

	free(exact);
	free(blob);
	return r;
}

static const struct bi_reserved *find_reserved(const char *name)
{
	for (unsigned int i = 0; i < bi.reserved_count; i++)
		if (!strcmp(bi.reserved[i].name, name))
			return &bi.reserved[i];
	return NULL;
}

static void test_virt_2node(void **state)
{
	const struct bi_reserved *r;

	assert_int_equal(parse_name("dt-virt-2node"), 0);
	assert_int_equal(test_console_warnings(), 0);
	assert_int_equal(bi.fixups, 0);
	assert_string_equal(bi.loader, "qemu");
	assert_true(ai.qemu_virt);
	assert_string_equal(bi.cmdline, "after=poweroff bootscrub=off");

	/* Memory in DT order (node 1 first), each with its node. */
	assert_int_equal(bi.ram_count, 2);
	assert_int_equal(pa_val(bi.ram[0].start), 0x60000000);
	assert_int_equal(pa_val(bi.ram[0].end), 0x80000000);
	assert_int_equal(bi.ram[0].node, 1);
	assert_int_equal(pa_val(bi.ram[1].start), 0x40000000);
	assert_int_equal(pa_val(bi.ram[1].end), 0x60000000);
	assert_int_equal(bi.ram[1].node, 0);

	r = find_reserved("dtb");
	assert_non_null(r);
	assert_int_equal(pa_val(r->start), 0x48000000);
	assert_true(pa_val(r->end) > pa_val(r->start));
	assert_int_equal(pa_val(r->end) - pa_val(r->start), ai.totalsize);
	r = find_reserved("initrd");
	assert_non_null(r);
	assert_int_equal(pa_val(r->start), 0x48200000);
	assert_int_equal(pa_val(r->end), 0x48300000);
	assert_int_equal(pa_val(ai.initrd_start), 0x48200000);
	r = find_reserved("memreserve");
	assert_non_null(r);
	assert_int_equal(pa_val(r->start), 0x40000000);
	assert_int_equal(pa_val(r->end), 0x40010000);
	r = find_reserved("fw@5f000000");
	assert_non_null(r);
	assert_int_equal(pa_val(r->start), 0x5f000000);
	assert_int_equal(pa_val(r->end), 0x5f100000);
	/* size-only and disabled children are not reservations */
	assert_null(find_reserved("pool"));
	assert_null(find_reserved("off@5e000000"));
	assert_int_equal(bi.reserved_count, 4);

	assert_int_equal(bi.cpu_count, 4);
	assert_true(ai.cpu_map); /* QEMU's: socket0 and socket1, 2 cores */
	assert_int_equal(bi.cpus[0].hwid, 0);
	assert_int_equal(bi.cpus[2].hwid, 0x100);
	assert_int_equal(bi.cpus[2].node, 1);
	assert_int_equal(bi.cpus[2].package, 1);
	assert_int_equal(bi.cpus[3].core, 1);
	assert_int_equal(bi.cpus[3].thread, 0);
	for (unsigned int i = 0; i < 4; i++)
		assert_true(bi.cpus[i].usable);

	assert_int_equal(ai.psci_method, DT_PSCI_HVC);
	assert_true(ai.psci_v0_2);
	assert_int_equal(ai.psci_cpu_on, PSCI_FN_CPU_ON);
	assert_true(ai.uart_is_pl011);
	assert_int_equal(pa_val(ai.uart_base), 0x9000000);
	assert_int_equal(ai.timer_freq, 0);
	assert_int_equal(pa_val(ai.gicd_base), 0x8000000);
	assert_int_equal(ai.gicr_count, 2);
	assert_int_equal(pa_val(ai.gicr[0].base), 0x80a0000);
	assert_int_equal(ai.gicr[0].size, 0xf60000);
	assert_int_equal(pa_val(ai.gicr[1].base), 0x4000000000ULL);
	assert_int_equal(ai.gicr[1].size, 0x4000000);

	assert_true(bi.have_distance);
	assert_int_equal(bi.distance[0][1], 20);
	assert_int_equal(bi.distance[1][0], 20);
	assert_int_equal(bi.distance[1][1], 10);
}

/* Parse dt-virt-2node with the GIC's #redistributor-regions set to @n. */
static int parse_gic_regions(uint32_t n, bool v2)
{
	size_t len;
	uint8_t *blob = load_dtb("dt-virt-2node", &len);
	size_t big = len + 256;
	uint8_t *b = malloc(big);
	int node, r;

	assert_non_null(b);
	assert_int_equal(fdt_open_into(blob, b, (int)big), 0);
	node = fdt_node_offset_by_compatible(b, -1, "arm,gic-v3");
	assert_true(node >= 0);
	assert_int_equal(fdt_setprop_u32(b, node, "#redistributor-regions", n),
			 0);
	if (v2)
		assert_int_equal(fdt_setprop_string(b, node, "compatible",
						    "arm,gic-400"),
				 0);
	sandbox_console_clear();
	memset(&ai, 0, sizeof(ai));
	r = parse_buf(b, big);
	free(b);
	free(blob);
	return r;
}

/*
 * #redistributor-regions must leave the distributor its reg entry: with
 * 3 entries, 1 and 2 regions are fine, 0 and 3 give one warning and no
 * GIC (idle CPUs then spin); a GICv2 is not looked at.
 */
static void test_gic_regions(void **state)
{
	assert_int_equal(parse_gic_regions(1, false), 0);
	assert_int_equal(test_console_warnings(), 0);
	assert_int_equal(ai.gicr_count, 1);
	assert_int_equal(pa_val(ai.gicr[0].base), 0x80a0000);

	for (uint32_t n = 0; n <= 3; n += 3) {
		assert_int_equal(parse_gic_regions(n, false), 0);
		assert_int_equal(test_console_warnings(), 1);
		assert_true(test_console_contains("with 3 reg entries"));
		assert_int_equal(pa_val(ai.gicd_base), 0);
		assert_int_equal(ai.gicr_count, 0);
	}

	assert_int_equal(parse_gic_regions(2, true), 0);
	assert_int_equal(test_console_warnings(), 0);
	assert_int_equal(pa_val(ai.gicd_base), 0);
}

static void test_3node(void **state)
{
	assert_int_equal(parse_name("dt-3node"), 0);
	assert_int_equal(test_console_warnings(), 0);
	assert_int_equal(bi.ram_count, 2);
	assert_int_equal(bi.cpu_count, 3);
	/* 64-bit reg: Aff0 core, Aff1 | Aff2 << 8 | Aff3 << 16 package */
	assert_int_equal(bi.cpus[2].hwid, 0x100000100ULL);
	assert_int_equal(bi.cpus[2].thread, 0);
	assert_int_equal(bi.cpus[2].core, 0);
	assert_int_equal(bi.cpus[2].package, 1 | 1 << 16);
	assert_int_equal(bi.cpus[1].core, 1);
	assert_int_equal(bi.cpus[2].node, 2);
	assert_int_equal(ai.psci_method, DT_PSCI_SMC);
	assert_int_equal(ai.timer_freq, 100000000);
	/* stdout-path through an alias, options after ':' ignored */
	assert_true(ai.uart_is_pl011);
	assert_int_equal(pa_val(ai.uart_base), 0x9000000);
	/* 32-bit initrd properties */
	assert_int_equal(pa_val(ai.initrd_start), 0x48200000);
	assert_int_equal(pa_val(ai.initrd_end), 0x48280000);

	/* One-direction distances are mirrored. */
	assert_int_equal(bi.distance[2][0], 30);
	assert_int_equal(bi.distance[0][2], 30);
	assert_int_equal(bi.distance[2][1], 25);

	bootinfo_sanitise(&bi);
	assert_int_equal(bi.node_count, 3);
	assert_true(bi.have_distance);
	assert_int_equal(bi.distance[1][2], 25);
	assert_int_equal(bootinfo_ram_bytes(&bi), 768 * MB);
}

static void test_single_node_is_quiet(void **state)
{
	assert_int_equal(parse_name("dt-single"), 0);
	assert_int_equal(test_console_warnings(), 0);
	assert_int_equal(bi.fixups, 0);
	assert_int_equal(bi.ram_count, 1); /* the 0-size entry is skipped */
	assert_int_equal(pa_val(bi.ram[0].start), 0x80000000);
	assert_int_equal(pa_val(bi.ram[0].end), 0x88000000);
	assert_int_equal(bi.ram[0].node, 0);
	assert_int_equal(bi.cpu_count, 1);
	assert_true(bi.cpus[0].usable);
	assert_false(bi.have_distance);
	/* PSCI 0.1: ids from the node, no SYSTEM_OFF */
	assert_false(ai.psci_v0_2);
	assert_int_equal(ai.psci_cpu_on, 0x95c1ba60);
	assert_int_equal(ai.psci_method, DT_PSCI_HVC);
	assert_int_equal(pa_val(ai.uart_base), 0);
	assert_string_equal(bi.loader, "");
	assert_false(ai.qemu_virt);
}

static void test_quirks(void **state)
{
	assert_int_equal(parse_name("dt-quirks"), 0);
	assert_true(test_console_contains("/ has no #size-cells, assuming 1"));
	assert_true(
		test_console_contains("memory@50000000 has no numa-node-id"));
	/* Node id 999: only 3 ids, nothing folds; it becomes node 2. */
	assert_true(test_console_contains(
		"dt: firmware node ids 0..999 are keel nodes 0..2"));
	assert_true(test_console_contains(
		"memory@60000000 reg length 20 is not a multiple of 12"));
	assert_true(test_console_contains("enable-method \"spin-table\""));
	assert_true(test_console_contains("psci method \"foo\""));
	assert_int_equal(test_console_warnings(), 5);
	assert_int_equal(bi.fixups, 5);

	/* Fallbacks */
	assert_int_equal(bi.ram_count, 3);
	assert_int_equal(bi.ram[0].node, 1);
	assert_int_equal(bi.ram[1].node, 0);
	assert_int_equal(bi.ram[2].node, 2);
	assert_int_equal(pa_val(bi.ram[2].end), 0x70000000);
	assert_int_equal(bi.cpu_count, 3);
	assert_true(bi.cpus[0].usable);
	assert_false(bi.cpus[1].usable); /* spin-table */
	assert_false(bi.cpus[2].usable); /* disabled */
	assert_int_equal(ai.psci_method, DT_PSCI_NONE);
	/* The asymmetric matrix is valid (ACPI semantics): kept. */
	assert_true(bi.have_distance);
	assert_int_equal(bi.distance[0][1], 20);
	assert_int_equal(bi.distance[1][0], 30);
	assert_false(ai.uart_is_pl011);
	assert_int_equal(pa_val(ai.uart_base), 0x9000000);
	assert_string_equal(bi.cmdline, "loglevel=3");
}

static void test_bad_headers(void **state)
{
	size_t len;
	uint8_t *good = load_dtb("dt-virt-2node", &len);
	uint8_t *b;

	/* Too small for a header. */
	b = copy_exact(good, 16);
	assert_int_equal(parse_buf(b, 16), -EINVAL);
	free(b);
	assert_true(test_console_contains("smaller than a header"));
	assert_int_equal(bi.ram_count, 0);

	/* Bad magic. */
	sandbox_console_clear();
	b = copy_exact(good, len);
	b[0] ^= 0xff;
	assert_int_equal(parse_buf(b, len), -EINVAL);
	assert_true(test_console_contains("bad magic"));
	assert_int_equal(test_console_warnings(), 1);
	free(b);

	/* Truncated: totalsize says more than we have. */
	sandbox_console_clear();
	b = copy_exact(good, len / 2);
	assert_int_equal(parse_buf(b, len / 2), -EINVAL);
	assert_true(test_console_contains("exceeds the"));
	assert_int_equal(test_console_warnings(), 1);
	assert_int_equal(bi.reserved_count, 0);
	free(b);

	/* totalsize field larger than the buffer, full buffer given. */
	sandbox_console_clear();
	b = copy_exact(good, len);
	b[4] = 0x7f;
	assert_int_equal(parse_buf(b, len), -EINVAL);
	assert_int_equal(test_console_warnings(), 1);
	free(b);

	/* Structure block offset pointing outside the blob. */
	sandbox_console_clear();
	b = copy_exact(good, len);
	b[8] = 0x7f;
	assert_int_equal(parse_buf(b, len), -EINVAL);
	assert_true(test_console_contains("malformed"));
	assert_int_equal(test_console_warnings(), 1);
	free(b);

	/* NULL blob. */
	sandbox_console_clear();
	assert_int_equal(parse_buf(NULL, 0), -EINVAL);
	assert_int_equal(test_console_warnings(), 1);
	free(good);
}

/*
 * Every single-byte corruption of every fixture: dt_parse() must neither
 * crash nor read outside the buffer (ASan), and what it returns must be
 * within bounds.
 */
static void test_corruptions(void **state)
{
	static const char *const names[] = {"dt-virt-2node", "dt-3node",
					    "dt-quirks",     "dt-single",
					    "dt-cpumap",     "dt-cpumap-bad"};
	static const uint8_t values[] = {0x00, 0xff, 0x01, 0x80};

	for (unsigned int f = 0; f < ARRAY_SIZE(names); f++) {
		size_t len;
		uint8_t *good = load_dtb(names[f], &len);

		for (size_t i = 0; i < len; i++) {
			for (unsigned int v = 0; v < ARRAY_SIZE(values); v++) {
				uint8_t *b = copy_exact(good, len);

				b[i] = values[v];
				sandbox_console_clear();
				parse_buf(b, len);
				assert_true(bi.ram_count <= BOOTINFO_MAX_RAM);
				assert_true(bi.cpu_count <= NR_CPUS);
				assert_int_equal(
					bi.cmdline[sizeof(bi.cmdline) - 1], 0);
				for (unsigned int c = 0; c < bi.cpu_count; c++)
					assert_true(bi.cpus[c].node <
						    MAX_NUMNODES);
				for (unsigned int r = 0; r < bi.ram_count; r++)
					assert_true(bi.ram[r].node <
						    MAX_NUMNODES);
				free(b);
			}
		}
		/* Every truncation, too. */
		for (size_t n = 0; n < len; n += 7) {
			uint8_t *b = copy_exact(good, n);

			assert_int_equal(parse_buf(b, n), -EINVAL);
			free(b);
		}
		free(good);
	}
}

/* ---- NUMA: a blob built here, one memory node and one CPU per id ---- */

#define GB (1ULL << 30)

/*
 * Memory [i GiB, i+1 GiB) and CPU MPIDR i for each ids[i], listed in the
 * given order, and a distance-map of @count (a, b, v) triplets.
 * Return: a malloc'ed exact-size blob, its length in *@len.
 */
static uint8_t *numa_dt(const uint32_t *ids, unsigned int n,
			const uint32_t (*trip)[3], unsigned int count,
			size_t *len)
{
	size_t size = 1 << 16;
	uint8_t *b = calloc(1, size), *exact;
	fdt32_t cells[3 * 64];
	int cpus, off;

	assert_non_null(b);
	assert_int_equal(fdt_create_empty_tree(b, (int)size), 0);
	assert_int_equal(fdt_setprop_u32(b, 0, "#address-cells", 2), 0);
	assert_int_equal(fdt_setprop_u32(b, 0, "#size-cells", 2), 0);
	cpus = fdt_add_subnode(b, 0, "cpus");
	assert_true(cpus >= 0);
	assert_int_equal(fdt_setprop_u32(b, cpus, "#address-cells", 1), 0);
	assert_int_equal(fdt_setprop_u32(b, cpus, "#size-cells", 0), 0);
	for (unsigned int i = 0; i < n; i++) {
		char name[32];

		snprintf(name, sizeof(name), "memory@%llx",
			 (unsigned long long)(i * GB));
		off = fdt_add_subnode(b, 0, name);
		assert_true(off >= 0);
		assert_int_equal(
			fdt_setprop_string(b, off, "device_type", "memory"), 0);
		assert_int_equal(fdt_appendprop_u64(b, off, "reg", i * GB), 0);
		assert_int_equal(fdt_appendprop_u64(b, off, "reg", GB), 0);
		assert_int_equal(
			fdt_setprop_u32(b, off, "numa-node-id", ids[i]), 0);
		snprintf(name, sizeof(name), "cpu@%x", i);
		cpus = fdt_path_offset(b, "/cpus"); /* offsets moved */
		off = fdt_add_subnode(b, cpus, name);
		assert_true(off >= 0);
		assert_int_equal(
			fdt_setprop_string(b, off, "device_type", "cpu"), 0);
		assert_int_equal(fdt_setprop_u32(b, off, "reg", i), 0);
		assert_int_equal(
			fdt_setprop_u32(b, off, "numa-node-id", ids[i]), 0);
	}
	if (count) {
		assert_true(count <= 64);
		off = fdt_add_subnode(b, 0, "distance-map");
		assert_true(off >= 0);
		assert_int_equal(fdt_setprop_string(b, off, "compatible",
						    "numa-distance-map-v1"),
				 0);
		for (unsigned int i = 0; i < 3 * count; i++)
			cells[i] = cpu_to_fdt32(trip[i / 3][i % 3]);
		assert_int_equal(fdt_setprop(b, off, "distance-matrix", cells,
					     (int)(12 * count)),
				 0);
	}
	assert_int_equal(fdt_pack(b), 0);
	*len = fdt_totalsize(b);
	exact = copy_exact(b, *len);
	free(b);
	return exact;
}

static void parse_numa_dt(const uint32_t *ids, unsigned int n,
			  const uint32_t (*trip)[3], unsigned int count)
{
	size_t len;
	uint8_t *blob = numa_dt(ids, n, trip, count, &len);

	sandbox_console_clear();
	assert_int_equal(parse_buf(blob, len), 0);
	free(blob);
}

/*
 * An asymmetric distance-map with an unreachable (255) entry is kept as
 * given (it was replaced by the defaults before); a one-way entry is
 * mirrored; an entry naming a node without memory or CPU: one warning.
 */
static void test_distance_asymmetric(void **state)
{
	static const uint32_t ids[3] = {0, 1, 2};
	static const uint32_t trip[][3] = {
		{0, 1, 20}, {1, 0, 21},	 {0, 2, 40}, {2, 0, 12},
		{1, 2, 15}, {2, 1, 255}, {0, 7, 30}, {7, 1, 30},
	};
	static const uint8_t want[3][3] = {
		{10, 20, 40},
		{21, 10, 15},
		{12, 255, 10},
	};

	parse_numa_dt(ids, 3, trip, ARRAY_SIZE(trip));
	assert_int_equal(test_console_warnings(), 1);
	assert_true(test_console_contains(
		"distance-matrix entry 0 7 names node 7, which has no memory "
		"and no CPU: ignored (2 such entries)"));
	bootinfo_sanitise(&bi);
	assert_int_equal(bi.node_count, 3);
	assert_true(bi.have_distance);
	for (unsigned int a = 0; a < 3; a++)
		for (unsigned int b = 0; b < 3; b++)
			assert_int_equal(bi.distance[a][b], want[a][b]);
}

/* One bad triplet is skipped (the reverse stands in); two drop the map. */
static void test_distance_bad_entries(void **state)
{
	static const uint32_t ids[2] = {0, 1};
	static const uint32_t one[][3] = {{0, 0, 10}, {0, 1, 10}, {1, 0, 30}};
	static const uint32_t two[][3] = {{0, 0, 11}, {0, 1, 10}, {1, 0, 30}};

	parse_numa_dt(ids, 2, one, ARRAY_SIZE(one));
	assert_int_equal(test_console_warnings(), 1);
	assert_true(test_console_contains(
		"distance-matrix entry 0 1 = 10: a remote distance must be "
		"above 10, entry skipped"));
	bootinfo_sanitise(&bi);
	assert_true(bi.have_distance);
	assert_int_equal(bi.distance[0][1], 30);
	assert_int_equal(bi.distance[1][0], 30);

	parse_numa_dt(ids, 2, two, ARRAY_SIZE(two));
	assert_int_equal(test_console_warnings(), 1);
	assert_true(test_console_contains(
		"distance-matrix entry 0 0 = 11: a local distance must be 10 "
		"(2 bad entries), using defaults"));
	bootinfo_sanitise(&bi);
	assert_false(bi.have_distance);
	assert_int_equal(bi.distance[1][0], 20);
}

/*
 * A /distance-map under another compatible (numa,distance-map-v1, as in
 * Cavium's first two-socket ThunderX device tree) or none: ignored as
 * Linux ignores it, with one warning instead of silence, and the default
 * distances, not the map's 30.
 */
static void test_distance_map_other_compatible(void **state)
{
	static const uint32_t ids[2] = {0, 1};
	static const uint32_t trip[][3] = {{0, 0, 10}, {0, 1, 30}, {1, 1, 10}};
	static const char *const compat[] = {"numa,distance-map-v1", NULL};
	static const char *const said[] = {
		"distance-map is \"numa,distance-map-v1\", not "
		"numa-distance-map-v1: ignored, using default distances",
		"distance-map has no compatible: ignored, using default "
		"distances",
	};

	for (unsigned int i = 0; i < ARRAY_SIZE(compat); i++) {
		size_t len;
		uint8_t *blob = numa_dt(ids, 2, trip, ARRAY_SIZE(trip), &len);
		uint8_t *b = malloc(len + 256), *exact;
		int off;

		assert_non_null(b);
		assert_int_equal(fdt_open_into(blob, b, (int)len + 256), 0);
		off = fdt_path_offset(b, "/distance-map");
		assert_true(off >= 0);
		if (compat[i])
			assert_int_equal(fdt_setprop_string(b, off,
							    "compatible",
							    compat[i]),
					 0);
		else
			assert_int_equal(fdt_delprop(b, off, "compatible"), 0);
		assert_int_equal(fdt_pack(b), 0);
		exact = copy_exact(b, fdt_totalsize(b));
		sandbox_console_clear();
		assert_int_equal(parse_buf(exact, fdt_totalsize(b)), 0);
		assert_int_equal(test_console_warnings(), 1);
		assert_true(test_console_contains(said[i]));
		bootinfo_sanitise(&bi);
		assert_int_equal(bi.node_count, 2);
		assert_false(bi.have_distance);
		assert_int_equal(bi.distance[0][1], 20);
		assert_int_equal(bi.distance[1][0], 20);
		free(exact);
		free(b);
		free(blob);
	}
}

/*
 * 20 numa-node-ids, in the blob in ascending and then in descending order:
 * either way the lowest MAX_NUMNODES (0-15) are kept, 16-19 fold into the
 * kept node nearest by their own row (16 -> 3, 17 -> 9, 18 unreachable
 * everywhere -> 0, 19 ties 5 and 7 at 13, the reverse 7 -> 19 = 14 <
 * 5 -> 19 = 30 picks 7); one warning, counted.
 */
static void test_node_fold(void **state)
{
	/*
	 * MAX_NUMNODES + 4 ids: the extra four are X = MAX_NUMNODES + 0..3.
	 * X+0 -> 3 (11 beats 30), X+1 -> 9 (12 beats 13), X+2 -> 0 (only
	 * unreachable entries: the lowest kept node), X+3 -> 7 (a tie at 13
	 * broken by the reverse distance, 14 beats 30).
	 */
	const uint32_t x = MAX_NUMNODES, n = MAX_NUMNODES + 4;
	const uint32_t trip[][3] = {
		{x, 3, 11},	{x, 4, 30},	 {x + 1, 9, 12},
		{x + 1, 8, 13}, {x + 2, 0, 255}, {x + 2, 1, 255},
		{x + 3, 5, 13}, {x + 3, 7, 13},	 {5, x + 3, 30},
		{7, x + 3, 14}, {3, 5, 25},	 {5, 3, 35},
		{3, x, 12},
	};
	static const uint32_t fold[4] = {3, 9, 0, 7};
	static uint32_t ids[MAX_NUMNODES + 4];
	char want[128];

	snprintf(want, sizeof(want),
		 "dt: %u proximity domains, %u kept (MAX_NUMNODES=%u), 4 "
		 "folded into their nearest node",
		 n, x, x);
	for (unsigned int order = 0; order < 2; order++) {
		for (unsigned int i = 0; i < n; i++)
			ids[i] = order ? n - 1 - i : i;
		parse_numa_dt(ids, n, trip, ARRAY_SIZE(trip));
		assert_int_equal(test_console_warnings(), 1);
		assert_true(test_console_contains(want));
		assert_int_equal(bi.fixups, 1);
		assert_int_equal(bi.dropped_nodes, 4);
		assert_int_equal(bi.ram_count, n);
		assert_int_equal(bi.cpu_count, n);
		/* RAM [i GiB, i+1 GiB) and MPIDR i belong to ids[i]. */
		for (unsigned int r = 0; r < n; r++) {
			uint32_t id = ids[pa_val(bi.ram[r].start) / GB];

			assert_int_equal(bi.ram[r].node,
					 id < x ? id : fold[id - x]);
			id = ids[bi.cpus[r].hwid];
			assert_int_equal(bi.cpus[r].node,
					 id < x ? id : fold[id - x]);
		}
		bootinfo_sanitise(&bi);
		assert_int_equal(bi.node_count, x);
		assert_int_equal(bi.distance[3][5], 25);
		assert_int_equal(bi.distance[5][3], 35);
		assert_int_equal(bi.distance[3][4], 20); /* not given */
	}
}

/* GRUB's stand-in DT (only /chosen) has no CPUs; QEMU's has. */
static void test_has_cpus(void **state)
{
	size_t len;
	uint8_t *good = load_dtb("dt-single", &len);
	uint8_t *exact = copy_exact(good, len);
	uint8_t empty[512];

	assert_true(dt_has_cpus(exact, len));
	assert_false(dt_has_cpus(exact, len - 1)); /* totalsize > len */
	assert_false(dt_has_cpus(exact, 8));
	assert_false(dt_has_cpus(NULL, 0));
	exact[0] ^= 0xff; /* bad magic */
	assert_false(dt_has_cpus(exact, len));

	assert_int_equal(fdt_create_empty_tree(empty, sizeof(empty)), 0);
	assert_true(fdt_add_subnode(empty, 0, "chosen") >= 0);
	assert_false(dt_has_cpus(empty, sizeof(empty)));
	assert_true(fdt_add_subnode(empty, 0, "cpus") >= 0);
	assert_false(dt_has_cpus(empty, sizeof(empty))); /* no cpu child */
	assert_int_equal(test_console_warnings(), 0);
	free(exact);
	free(good);
}

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

		if (!strcmp(w, "dangling")) {
			assert_int_equal(fdt_setprop_u32(b, off, "cpu", 0x999),
					 0);
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
			int cpu = fdt_add_subnode(b, cm_node(b, "/cpus"),
						  "cpu@400");

			assert_true(cpu >= 0);
			assert_int_equal(fdt_setprop_string(
						 b, cpu, "device_type", "cpu"),
					 0);
			assert_int_equal(fdt_setprop_u32(b, cpu, "reg", 0x400),
					 0);
		} else {
			/* cluster2 of socket0 nests ten clusters deep. */
			int n = cm_node(b, "/cpus/cpu-map/socket0");

			for (int d = 0; d < 10; d++) {
				n = fdt_add_subnode(
					b, n, d ? "cluster0" : "cluster2");
				assert_true(n >= 0);
			}
		}
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_virt_2node, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_gic_regions, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_3node, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_single_node_is_quiet,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_quirks, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_bad_headers, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_corruptions, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_has_cpus, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_cpu_map, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_cpu_map_bad_fixture,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_cpu_map_defects,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_cpu_map_clusters_only,
						test_setup, test_teardown),
		cmocka_unit_test(test_mpidr_topology),
		cmocka_unit_test_setup_teardown(test_distance_asymmetric,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_distance_bad_entries,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(
			test_distance_map_other_compatible, test_setup,
			test_teardown),
		cmocka_unit_test_setup_teardown(test_node_fold, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_too_many_cpus, test_setup,
						test_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
