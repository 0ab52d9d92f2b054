/* SPDX-License-Identifier: MIT */
/*
 * What the dom0less unit tests share (dom0less_test.c,
 * dom0less_setup_test.c): a bootinfo parsed from a blob built with
 * libfdt's sequential writer in QEMU virt's shape (2+2 root cells, 1 GiB
 * of RAM at 0x40000000, one CPU), the compiled fixtures of tests/data,
 * and lookups of what the parse produced.
 */
#ifndef TEST_DOM0LESS_FIXTURE_H
#define TEST_DOM0LESS_FIXTURE_H

#include <stdlib.h>

#include "common.h"
#include <keel/fdt.h>
#include <libfdt.h>

#include "../../common/domain/domain_priv.h"

#define BLOB_SIZE (64 * 1024)

static struct keel_options o;
static struct bootinfo bi;
static struct dt_arch_info ai;
static char blob[BLOB_SIZE];

static inline int setup(void **state)
{
	options_defaults(&o);
	return test_setup(state);
}

static inline uint8_t *load_dtb(const char *name, size_t *len)
{
	char path[256];
	uint8_t *buf;

	snprintf(path, sizeof(path), "build/sandbox-asan/tests/data/%s.dtb",
		 name);
	buf = (uint8_t *)sandbox_read_file(path, len);
	if (!buf) {
		assert_int_equal(system("scripts/dtbs.sh"), 0);
		buf = (uint8_t *)sandbox_read_file(path, len);
	}
	assert_non_null(buf);
	return buf;
}

/* ---- a blob: QEMU virt's shape (2+2 root cells, 1 GiB of RAM) ----------- */

static inline void b_begin(void)
{
	assert_int_equal(fdt_create(blob, BLOB_SIZE), 0);
	assert_int_equal(fdt_finish_reservemap(blob), 0);
	assert_int_equal(fdt_begin_node(blob, ""), 0);
	assert_int_equal(fdt_property_u32(blob, "#address-cells", 2), 0);
	assert_int_equal(fdt_property_u32(blob, "#size-cells", 2), 0);
	assert_int_equal(fdt_begin_node(blob, "memory@40000000"), 0);
	assert_int_equal(fdt_property_string(blob, "device_type", "memory"), 0);
	{
		fdt32_t reg[4] = {0, cpu_to_fdt32(0x40000000), 0,
				  cpu_to_fdt32(0x40000000)};

		assert_int_equal(fdt_property(blob, "reg", reg, sizeof(reg)),
				 0);
	}
	assert_int_equal(fdt_end_node(blob), 0);
	assert_int_equal(fdt_begin_node(blob, "cpus"), 0);
	assert_int_equal(fdt_property_u32(blob, "#address-cells", 1), 0);
	assert_int_equal(fdt_property_u32(blob, "#size-cells", 0), 0);
	assert_int_equal(fdt_begin_node(blob, "cpu@0"), 0);
	assert_int_equal(fdt_property_string(blob, "device_type", "cpu"), 0);
	assert_int_equal(fdt_property_u32(blob, "reg", 0), 0);
	assert_int_equal(fdt_end_node(blob), 0);
	assert_int_equal(fdt_end_node(blob), 0);
	assert_int_equal(fdt_begin_node(blob, "chosen"), 0);
}

static inline void b_node(const char *name)
{
	assert_int_equal(fdt_begin_node(blob, name), 0);
}

static inline void b_end(void)
{
	assert_int_equal(fdt_end_node(blob), 0);
}

/* A property of @n big-endian cells. */
static inline void b_cells(const char *prop, unsigned int n, ...)
{
	fdt32_t v[32];
	va_list ap;

	assert_true(n <= 32);
	va_start(ap, n);
	for (unsigned int i = 0; i < n; i++)
		v[i] = cpu_to_fdt32(va_arg(ap, uint32_t));
	va_end(ap);
	assert_int_equal(fdt_property(blob, prop, v, (int)(n * 4)), 0);
}

static inline void b_bytes(const char *prop, const void *v, int len)
{
	assert_int_equal(fdt_property(blob, prop, v, len), 0);
}

static inline void b_str(const char *prop, const char *s)
{
	assert_int_equal(fdt_property_string(blob, prop, s), 0);
}

/* A xen,domain node of @kib KiB (memory = <0 kib>), left open. */
static inline void b_domain(const char *name, uint32_t kib)
{
	b_node(name);
	b_str("compatible", "xen,domain");
	b_cells("memory", 2, 0, kib);
}

/* Close /chosen and /, parse into bi (console captured). Return: warnings. */
static inline unsigned int b_parse(void)
{
	b_end();
	b_end();
	assert_int_equal(fdt_finish(blob), 0);
	bootinfo_init(&bi, BOOT_DT);
	sandbox_console_clear();
	assert_int_equal(
		dt_parse(blob, fdt_totalsize(blob), pa(0x48000000), &bi, &ai),
		0);
	if (getenv("DOM0LESS_TEST_DUMP"))
		fprintf(stderr, "%s", sandbox_console_buffer());
	return test_console_warnings();
}

static inline const struct bi_domain *dom(const char *name)
{
	for (unsigned int i = 0; i < bi.domain_count; i++)
		if (!strcmp(bi.domains[i].name, name))
			return &bi.domains[i];
	return NULL;
}

/* Reserved bytes of @bi named @name that lie in [s, e). */
static inline uint64_t reserved_in(uint64_t s, uint64_t e, const char *name)
{
	uint64_t sum = 0;

	for (unsigned int i = 0; i < bi.reserved.count; i++) {
		uint64_t rs = pa_val(bi.reserved.regions[i].start);
		uint64_t re = pa_val(bi.reserved.regions[i].end);

		if (!strcmp(bi.reserved.regions[i].name, name) && rs >= s &&
		    re <= e)
			sum += re - rs;
	}
	return sum;
}

#endif
