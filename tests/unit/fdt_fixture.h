/* SPDX-License-Identifier: MIT */
/*
 * The fixture of the device tree unit tests (fdt*_test.c): dt_parse() on
 * the DT fixtures tests/data/dt-*.dts (compiled
 * by scripts/dtbs.sh into build/sandbox-asan/tests/data/) and on blobs
 * corrupted here. Blobs are copied into exactly-sized heap buffers so that
 * ASan catches any read past the length dt_parse() was given.
 */
#ifndef TEST_FDT_FIXTURE_H
#define TEST_FDT_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>

#include "common.h"
#include <keel/fdt.h>
#include <libfdt.h>

#define DTB_DIR "build/sandbox-asan/tests/data/"
#define MB	(1ULL << 20)

static struct bootinfo bi;
static struct dt_arch_info ai;

static inline uint8_t *load_dtb(const char *name, size_t *len)
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
static inline uint8_t *copy_exact(const uint8_t *src, size_t len)
{
	uint8_t *p = malloc(len ? len : 1);

	assert_non_null(p);
	memcpy(p, src, len);
	return p;
}

static inline int parse_buf(const void *blob, size_t len)
{
	bootinfo_init(&bi, BOOT_DT);
	return dt_parse(blob, len, pa(0x48000000), &bi, &ai);
}

static inline int parse_name(const char *name)
{
	size_t len;
	uint8_t *blob = load_dtb(name, &len);
	uint8_t *exact = copy_exact(blob, len);
	int r = parse_buf(exact, len);

	free(exact);
	free(blob);
	return r;
}

static inline const struct region *find_reserved(const char *name)
{
	for (unsigned int i = 0; i < bi.reserved.count; i++)
		if (!strcmp(bi.reserved.regions[i].name, name))
			return &bi.reserved.regions[i];
	return NULL;
}

#define GB (1ULL << 30)

/*
 * Memory [i GiB, i+1 GiB) and CPU MPIDR i for each ids[i], listed in the
 * given order, and a distance-map of @count (a, b, v) triplets.
 * Return: a malloc'ed exact-size blob, its length in *@len.
 */
static inline uint8_t *numa_dt(const uint32_t *ids, unsigned int n,
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

static inline void parse_numa_dt(const uint32_t *ids, unsigned int n,
				 const uint32_t (*trip)[3], unsigned int count)
{
	size_t len;
	uint8_t *blob = numa_dt(ids, n, trip, count, &len);

	sandbox_console_clear();
	assert_int_equal(parse_buf(blob, len), 0);
	free(blob);
}

#endif
