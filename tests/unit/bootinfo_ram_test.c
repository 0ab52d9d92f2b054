/* SPDX-License-Identifier: MIT */
/*
 * RAM past the 512-entry bootinfo table (issue 20 §2.2), through every
 * reader: adjacent or overlapping RAM of one node is merged as it is added
 * (bootinfo_add_ram()), so it never needs a slot; only separate ranges
 * beyond the table are dropped, with one warning for the whole boot and
 * memmap.dropped_ram_bytes. The table grows (issue 30 §3): 1000 separate
 * DT memory banks are all kept, and bootmem takes the table over. Also
 * the warning when three nodes claim the same RAM (issue 20 §2.8): it
 * names the node that keeps it.
 *
 * The inputs are built here: a .fw text, a DTB written with libfdt's
 * sequential-write API, multiboot1 and multiboot2 memory maps.
 */
#include <libfdt.h>

#include <keel/acpi.h>
#include <keel/bootmem.h>
#include <keel/fdt.h>
#include <keel/fwdesc.h>
#include <keel/multiboot.h>
#include <keel/report.h>

#include "common.h"

#define MB (1ULL << 20)
#define GB (1ULL << 30)

/* More ranges than the table holds: 1000 one-MiB banks. */
#define BANKS 1000

static struct bootinfo bi;

static unsigned int count(const char *needle)
{
	unsigned int n = 0;

	for (const char *p = sandbox_console_buffer(); (p = strstr(p, needle));
	     p++)
		n++;
	return n;
}

static void expect_one_range(uint64_t s, uint64_t e, uint32_t node)
{
	bootinfo_sanitise(&bi);
	assert_int_equal(bi.ram.count, 1);
	assert_int_equal(pa_val(bi.ram.regions[0].start), s);
	assert_int_equal(pa_val(bi.ram.regions[0].end), e);
	assert_int_equal(bi.ram.regions[0].node, node);
	assert_int_equal(bi.dropped_ram, 0);
	assert_int_equal(bi.dropped_ram_bytes, 0);
	assert_int_equal(count("separate RAM ranges"), 0);
	assert_int_equal(count("listed twice"), 0);
}

/* 600 adjacent 1 MiB `ram` lines are one 600 MiB range, no warning. */
static void test_fwdesc_600_adjacent(void **state)
{
	static char text[600 * 40];
	size_t len = 0;

	for (unsigned int i = 0; i < 600; i++)
		len += (size_t)snprintf(text + len, sizeof(text) - len,
					"ram %uM %uM node=0\n", 1024 + i,
					1025 + i);
	bootinfo_init(&bi, BOOT_SANDBOX);
	assert_int_equal(fwdesc_parse(&bi, text, len), 0);
	assert_int_equal(test_console_warnings(), 0);
	expect_one_range(GB, GB + 600 * MB, 0);
}

/* The same lines in reverse and overlapping by half: still one range. */
static void test_fwdesc_overlapping_reverse(void **state)
{
	static char text[600 * 40];
	size_t len = 0;

	for (unsigned int i = 600; i-- > 0;)
		len += (size_t)snprintf(text + len, sizeof(text) - len,
					"ram %uM %uM node=1\n", 1024 + 2 * i,
					1028 + 2 * i);
	bootinfo_init(&bi, BOOT_SANDBOX);
	fwdesc_parse(&bi, text, len);
	bootinfo_sanitise(&bi);
	assert_int_equal(bi.ram.count, 1);
	assert_int_equal(pa_val(bi.ram.regions[0].start), GB);
	assert_int_equal(pa_val(bi.ram.regions[0].end), GB + 1202 * MB);
	assert_int_equal(bi.dropped_ram_bytes, 0);
}

/*
 * Separate ranges beyond a table at its limit (one that cannot grow, as
 * if the early pool were spent): dropped, one warning, counted.
 */
static void test_separate_overflow_one_warning(void **state)
{
	bootinfo_init(&bi, BOOT_SANDBOX);
	bi.ram.max = bi.ram.cap;
	for (unsigned int i = 0; i < 600; i++)
		bootinfo_add_ram(&bi, pa(GB + 2 * i * MB),
				 pa(GB + 2 * i * MB + MB), 0);
	bootinfo_sanitise(&bi);
	assert_int_equal(bi.ram.count, BOOTINFO_MAX_RAM);
	assert_int_equal(bi.dropped_ram, 600 - BOOTINFO_MAX_RAM);
	assert_int_equal(bi.dropped_ram_bytes, (600 - BOOTINFO_MAX_RAM) * MB);
	assert_int_equal(count("separate RAM ranges"), 1);
	assert_int_equal(bootinfo_ram_bytes(&bi) + bi.dropped_ram_bytes,
			 600 * MB);
}

/* ---- device tree --------------------------------------------------------- */

static uint8_t dtb[256 * 1024];

static void fdt_ok(int err)
{
	assert_int_equal(err, 0);
}

static void fdt_reg(uint64_t s, uint64_t size, fdt64_t *cells)
{
	cells[0] = cpu_to_fdt64(s);
	cells[1] = cpu_to_fdt64(size);
}

static void dt_begin(void)
{
	fdt_ok(fdt_create(dtb, sizeof(dtb)));
	fdt_ok(fdt_finish_reservemap(dtb));
	fdt_ok(fdt_begin_node(dtb, ""));
	fdt_ok(fdt_property_u32(dtb, "#address-cells", 2));
	fdt_ok(fdt_property_u32(dtb, "#size-cells", 2));
}

static void dt_finish_and_parse(void)
{
	struct dt_arch_info ai;

	fdt_ok(fdt_end_node(dtb));
	fdt_ok(fdt_finish(dtb));
	bootinfo_init(&bi, BOOT_DT);
	assert_int_equal(dt_parse(dtb, sizeof(dtb), pa(0), &bi, &ai), 0);
}

/* 1000 memory nodes of 1 MiB each, adjacent: one 1000 MiB range. */
static void test_dt_1000_memory_nodes(void **state)
{
	dt_begin();
	for (unsigned int i = 0; i < BANKS; i++) {
		char name[32];
		fdt64_t reg[2];

		snprintf(name, sizeof(name), "memory@%llx",
			 (unsigned long long)(GB + i * MB));
		fdt_reg(GB + i * MB, MB, reg);
		fdt_ok(fdt_begin_node(dtb, name));
		fdt_ok(fdt_property_string(dtb, "device_type", "memory"));
		fdt_ok(fdt_property(dtb, "reg", reg, sizeof(reg)));
		fdt_ok(fdt_end_node(dtb));
	}
	dt_finish_and_parse();
	expect_one_range(GB, GB + BANKS * MB, 0);
}

/*
 * 1000 separate banks (1 MiB apart), each its own /memory node: the table
 * grows past its 512 static slots and keeps them all, nothing dropped,
 * and bootmem's RAM table is that table, not a copy of it.
 */
static void test_dt_1000_separate_banks_kept(void **state)
{
	unsigned int count_bm;

	dt_begin();
	for (unsigned int i = 0; i < BANKS; i++) {
		char name[32];
		fdt64_t reg[2];

		snprintf(name, sizeof(name), "memory@%llx",
			 (unsigned long long)(GB + 2 * i * MB));
		fdt_reg(GB + 2 * i * MB, MB, reg);
		fdt_ok(fdt_begin_node(dtb, name));
		fdt_ok(fdt_property_string(dtb, "device_type", "memory"));
		fdt_ok(fdt_property(dtb, "reg", reg, sizeof(reg)));
		fdt_ok(fdt_end_node(dtb));
	}
	dt_finish_and_parse();
	bootinfo_sanitise(&bi);
	assert_int_equal(bi.ram.count, BANKS);
	assert_true(bi.ram.cap >= BANKS);
	assert_int_equal(bi.dropped_ram, 0);
	assert_int_equal(bi.dropped_ram_bytes, 0);
	assert_int_equal(count("separate RAM ranges"), 0);
	for (unsigned int i = 0; i < BANKS; i++) {
		assert_int_equal(pa_val(bi.ram.regions[i].start),
				 GB + 2 * i * MB);
		assert_int_equal(pa_val(bi.ram.regions[i].end),
				 GB + 2 * i * MB + MB);
	}
	assert_int_equal(bootinfo_ram_bytes(&bi), BANKS * MB);
	/* Sanitise again, and again: nothing more of the pool, nothing lost. */
	for (unsigned int k = 0; k < 8; k++)
		bootinfo_sanitise(&bi);
	assert_int_equal(bi.ram.count, BANKS);
	assert_int_equal(bi.dropped_ram, 0);
	bootmem_init();
	bootmem_init_from_bootinfo(&bi);
	assert_ptr_equal(bootmem_ram_regions(&count_bm), bi.ram.regions);
	assert_int_equal(count_bm, BANKS);
	bootmem_init();
}

/* One memory node whose reg lists 1000 adjacent banks (highest first). */
static void test_dt_1000_reg_entries(void **state)
{
	static fdt64_t reg[2 * BANKS];

	dt_begin();
	for (unsigned int i = 0; i < BANKS; i++)
		fdt_reg(GB + (BANKS - 1 - i) * MB, MB, &reg[2 * i]);
	fdt_ok(fdt_begin_node(dtb, "memory@40000000"));
	fdt_ok(fdt_property_string(dtb, "device_type", "memory"));
	fdt_ok(fdt_property(dtb, "reg", reg, sizeof(reg)));
	fdt_ok(fdt_end_node(dtb));
	dt_finish_and_parse();
	expect_one_range(GB, GB + BANKS * MB, 0);
}

/* ---- multiboot ----------------------------------------------------------- */

#define MB1_INFO 0x1000
#define MB1_MMAP 0x2000
static uint8_t img[MB1_MMAP + BANKS * 24];

static const void *img_read(uint64_t p, size_t len, void *ctx)
{
	(void)ctx;
	if (p > sizeof(img) || len > sizeof(img) - p)
		return NULL;
	return img + p;
}

static void put32(uint8_t *b, size_t off, uint32_t v)
{
	memcpy(b + off, &v, 4);
}

static void put64(uint8_t *b, size_t off, uint64_t v)
{
	memcpy(b + off, &v, 8);
}

/* A multiboot1 e820 map of 1000 adjacent 1 MiB RAM entries. */
static void test_multiboot1_1000_entries(void **state)
{
	memset(img, 0, sizeof(img));
	put32(img, MB1_INFO, 1u << 6); /* mmap_* valid */
	put32(img, MB1_INFO + 44, BANKS * 24);
	put32(img, MB1_INFO + 48, MB1_MMAP);
	for (unsigned int i = 0; i < BANKS; i++) {
		size_t e = MB1_MMAP + i * 24;

		put32(img, e, 20);
		put64(img, e + 4, GB + i * MB);
		put64(img, e + 12, MB);
		put32(img, e + 20, 1);
	}
	bootinfo_init(&bi, BOOT_MULTIBOOT1);
	assert_int_equal(multiboot1_parse(&bi, MB1_INFO, img_read, NULL), 0);
	expect_one_range(GB, GB + BANKS * MB, 0);
}

/* The same as a multiboot2 memory map tag (type 6). */
static void test_multiboot2_1000_entries(void **state)
{
	static uint8_t info[8 + 16 + BANKS * 24 + 8];
	size_t tag = 8, len = 16 + BANKS * 24;

	memset(info, 0, sizeof(info));
	put32(info, tag, 6);
	put32(info, tag + 4, (uint32_t)len);
	put32(info, tag + 8, 24);
	for (unsigned int i = 0; i < BANKS; i++) {
		size_t e = tag + 16 + i * 24;

		put64(info, e, GB + (uint64_t)i * MB);
		put64(info, e + 8, MB);
		put32(info, e + 16, 1);
	}
	put32(info, tag + len, 0); /* end tag */
	put32(info, tag + len + 4, 8);
	put32(info, 0, (uint32_t)sizeof(info));
	bootinfo_init(&bi, BOOT_MULTIBOOT2);
	assert_int_equal(multiboot2_parse(&bi, info, sizeof(info), 0x100000),
			 0);
	expect_one_range(GB, GB + BANKS * MB, 0);
}

/* ---- three nodes claiming the same RAM (issue 20 §2.8) -------------------- */

static void test_three_nodes_name_the_keeper(void **state)
{
	bootinfo_init(&bi, BOOT_SANDBOX);
	/* Listed highest node first, as QEMU's DT lists memory nodes. */
	bootinfo_add_ram(&bi, pa(0), pa(GB), 2);
	bootinfo_add_ram(&bi, pa(0), pa(GB), 1);
	bootinfo_add_ram(&bi, pa(0), pa(GB), 0);
	bootinfo_sanitise(&bi);
	assert_int_equal(bi.ram.count, 1);
	assert_int_equal(bi.ram.regions[0].node, 0);
	assert_int_equal(count("claimed by"), 1);
	/* The pair named holds the keeper: not "nodes 2 and 1". */
	assert_true(test_console_contains(
		"ram [0, 0x40000000) claimed by nodes 0 and 1, node 0 keeps "
		"it"));
}

/*
 * RAM of one node meeting inside a page stays two ranges: that page is
 * kept out, as when each range is trimmed alone (a page is RAM only when
 * one range covers it).
 */
static void test_meeting_inside_a_page(void **state)
{
	bootinfo_init(&bi, BOOT_SANDBOX);
	bootinfo_add_ram(&bi, pa(0x10000), pa(0x20800), 3);
	bootinfo_add_ram(&bi, pa(0x20800), pa(0x40000), 3);
	assert_int_equal(bi.ram.count, 2);
	bootinfo_sanitise(&bi);
	assert_int_equal(bi.ram.count, 2);
	assert_int_equal(pa_val(bi.ram.regions[0].end), 0x20000);
	assert_int_equal(pa_val(bi.ram.regions[1].start), 0x21000);
}

/*
 * acpi_apply_numa() splits RAM at SRAT boundaries by adding the remainder:
 * that must not merge back into the piece it was cut from.
 */
static void test_srat_split_not_merged_back(void **state)
{
	static struct acpi_info ai;

	acpi_info_reset(&ai);
	ai.memblk[0] =
		(struct region){.start = pa(0), .end = pa(2 * GB), .node = 0};
	ai.memblk[1] = (struct region){
		.start = pa(2 * GB), .end = pa(4 * GB), .node = 1};
	ai.memblk_count = 2;
	ai.numa_valid = true;
	bootinfo_init(&bi, BOOT_MULTIBOOT1);
	bootinfo_add_ram(&bi, pa(0), pa(4 * GB), 0);
	acpi_apply_numa(&bi, &ai);
	bootinfo_sanitise(&bi);
	assert_int_equal(bi.ram.count, 2);
	assert_int_equal(pa_val(bi.ram.regions[0].end), 2 * GB);
	assert_int_equal(bi.ram.regions[0].node, 0);
	assert_int_equal(pa_val(bi.ram.regions[1].start), 2 * GB);
	assert_int_equal(bi.ram.regions[1].node, 1);
}

/* ---- resolving RAM in its own table (issue 36 §7) ------------------------ */

#define PG 4096ULL

/* The regions the early pool holds. */
#define POOL_REGIONS (BOOTINFO_EARLY_POOL_BYTES / sizeof(struct region))

/* The largest table the RAM table reaches by doubling within the pool. */
static unsigned int pool_doubling_cap(void)
{
	unsigned int c = BOOTINFO_MAX_RAM;

	while (2ULL * c <= POOL_REGIONS)
		c *= 2;
	return c;
}

/* @n one-page ranges of @node, two pages apart from 4 GiB. */
static void add_pages(unsigned int n, uint32_t node)
{
	for (unsigned int i = 0; i < n; i++)
		assert_int_equal(bootinfo_add_ram(&bi, pa(4 * GB + 2 * i * PG),
						  pa(4 * GB + 2 * i * PG + PG),
						  node),
				 0);
}

static void expect_pages_kept(unsigned int n)
{
	assert_int_equal(bi.ram.count, n);
	assert_int_equal(bi.dropped_ram, 0);
	assert_int_equal(bi.dropped_ram_bytes, 0);
	assert_int_equal(count("separate RAM ranges"), 0);
	assert_int_equal(bootinfo_ram_bytes(&bi), n * PG);
	for (unsigned int i = 0; i < n; i += n / 7)
		assert_int_equal(pa_val(bi.ram.regions[i].start),
				 4 * GB + 2 * i * PG);
}

/*
 * As many separate ranges as the pool holds by doubling (3/4 of its
 * largest doubling: 98,304 in the sandbox), then sanitise. Its overlap
 * resolution used to fill a second table of them from the same pool, so
 * past half the pool RAM was dropped ("more than 131072 separate RAM
 * ranges", 32,768 ranges lost); now it resolves in the table itself.
 */
static void test_sanitise_keeps_what_the_pool_holds(void **state)
{
	unsigned int n = pool_doubling_cap() / 4 * 3;

	bootinfo_early_pool_reset();
	bootinfo_init(&bi, BOOT_SANDBOX);
	bootinfo_add_cpu(&bi, 0, 0, 0, 0, 0, true);
	bi.cpus[0].boot_cpu = true;
	add_pages(n, 0);
	bootinfo_sanitise(&bi);
	expect_pages_kept(n);
	bootinfo_sanitise(&bi);
	expect_pages_kept(n);
	assert_int_equal(test_console_warnings(), 0);
}

/*
 * More ranges than a doubling of the RAM table can hold, fewer than the
 * pool: the table takes the rest of the pool instead of dropping RAM
 * (it used to drop all past the last doubling).
 */
static void test_add_takes_the_rest_of_the_pool(void **state)
{
	unsigned int c = pool_doubling_cap();
	unsigned int n = c + (unsigned int)(POOL_REGIONS - c) / 2;

	bootinfo_early_pool_reset();
	bootinfo_init(&bi, BOOT_SANDBOX);
	add_pages(n, 0);
	bootinfo_sanitise(&bi);
	expect_pages_kept(n);
}

/*
 * Two nodes interleaved: node 1 lists [4 GiB, +2n pages), node 0 every
 * other page of it. Node 0 keeps its pages, node 1 the pages between:
 * 2n pieces from n + 1 ranges (the table grows for them), one warning.
 */
static void test_two_nodes_interleaved(void **state)
{
	const unsigned int n = 3000;

	bootinfo_early_pool_reset();
	bootinfo_init(&bi, BOOT_SANDBOX);
	bootinfo_add_ram(&bi, pa(4 * GB), pa(4 * GB + 2 * n * PG), 1);
	add_pages(n, 0);
	bootinfo_sanitise(&bi);
	assert_int_equal(bi.ram.count, 2 * n);
	assert_int_equal(bi.dropped_ram_bytes, 0);
	assert_int_equal(bootinfo_ram_bytes(&bi), 2 * n * PG);
	for (unsigned int i = 0; i < 2 * n; i++) {
		assert_int_equal(pa_val(bi.ram.regions[i].start),
				 4 * GB + i * PG);
		assert_int_equal(pa_val(bi.ram.regions[i].end),
				 4 * GB + (i + 1) * PG);
		assert_int_equal(bi.ram.regions[i].node, i % 2);
	}
	assert_int_equal(count("claimed by"), 1);
	assert_true(test_console_contains("ram [0x100000000, 0x100001000) "
					  "claimed by nodes 0 and 1, node 0 "
					  "keeps it"));
	bootinfo_sanitise(&bi);
	assert_int_equal(bi.ram.count, 2 * n);
	assert_int_equal(count("claimed by"), 1);
}

/*
 * A node's RAM listed entirely under a lower node's adds nothing; RAM of
 * three nodes over one another keeps each byte once, on the lowest.
 */
static void test_hidden_and_stacked(void **state)
{
	bootinfo_init(&bi, BOOT_SANDBOX);
	bootinfo_add_ram(&bi, pa(GB), pa(2 * GB), 0);
	bootinfo_add_ram(&bi, pa(GB + MB), pa(GB + 2 * MB), 2); /* hidden */
	bootinfo_add_ram(&bi, pa(GB + 512 * MB), pa(3 * GB), 1);
	bootinfo_add_ram(&bi, pa(2 * GB + MB), pa(4 * GB), 2);
	bootinfo_sanitise(&bi);
	assert_int_equal(bi.ram.count, 3);
	assert_int_equal(pa_val(bi.ram.regions[0].start), GB);
	assert_int_equal(pa_val(bi.ram.regions[0].end), 2 * GB);
	assert_int_equal(bi.ram.regions[0].node, 0);
	assert_int_equal(pa_val(bi.ram.regions[1].end), 3 * GB);
	assert_int_equal(bi.ram.regions[1].node, 1);
	assert_int_equal(pa_val(bi.ram.regions[2].start), 3 * GB);
	assert_int_equal(pa_val(bi.ram.regions[2].end), 4 * GB);
	assert_int_equal(bi.ram.regions[2].node, 2);
	assert_int_equal(bootinfo_ram_bytes(&bi), 3 * GB);
}

/*
 * Resolving overlaps at the table's limit (it cannot grow): two node-1
 * stretches 4 MiB apart, node 0 every other page in each, need 2 pieces
 * per node-0 page, more than the 512 slots. Pieces are joined to the RAM
 * of the other node they touch, never across the hole between the
 * stretches, and nothing is dropped (it used to drop 289 pages); the
 * warning names the true limit.
 */
static void test_resolve_at_the_limit_joins_never_drops(void **state)
{
	const unsigned int per = 200;
	const uint64_t second = 4 * GB + 2 * per * PG + 4 * MB;

	bootinfo_init(&bi, BOOT_SANDBOX);
	bi.ram.max = bi.ram.cap;
	bootinfo_add_ram(&bi, pa(4 * GB), pa(4 * GB + 2 * per * PG), 1);
	bootinfo_add_ram(&bi, pa(second), pa(second + 2 * per * PG), 1);
	for (unsigned int i = 0; i < per; i++) {
		bootinfo_add_ram(&bi, pa(4 * GB + 2 * i * PG),
				 pa(4 * GB + 2 * i * PG + PG), 0);
		bootinfo_add_ram(&bi, pa(second + 2 * i * PG),
				 pa(second + 2 * i * PG + PG), 0);
	}
	bootinfo_sanitise(&bi);
	assert_int_equal(bi.dropped_ram, 0);
	assert_int_equal(bi.dropped_ram_bytes, 0);
	assert_true(bi.ram.count <= BOOTINFO_MAX_RAM);
	assert_true(bi.ram.count >= BOOTINFO_MAX_RAM - 1);
	assert_int_equal(bootinfo_ram_bytes(&bi), 4 * per * PG);
	for (unsigned int i = 0; i < bi.ram.count; i++) {
		const struct region *r = &bi.ram.regions[i];
		uint64_t s = pa_val(r->start), e = pa_val(r->end);

		assert_true((s >= 4 * GB && e <= 4 * GB + 2 * per * PG) ||
			    (s >= second && e <= second + 2 * per * PG));
		/* Sorted, disjoint, and in bootmem's shape: RAM of one
		 * node touching RAM of the same node is one range. */
		if (i)
			assert_true(pa_val(r[-1].end) < s ||
				    (pa_val(r[-1].end) == s &&
				     r[-1].node != r->node));
	}
	/* Each join of another node's page lets the next page of the
	 * first node's join too: 288 fewer ranges, 144 pages moved. */
	assert_true(test_console_contains(
		"resolved it takes 800 ranges, the RAM table holds 512 (its "
		"limit): 144 pieces joined to RAM of another node they touch "
		"(0x90000 bytes counted on that node), none dropped"));
	assert_int_equal(count("separate RAM ranges"), 0);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, test_setup, test_teardown)
	const struct CMUnitTest tests[] = {
		T(test_fwdesc_600_adjacent),
		T(test_fwdesc_overlapping_reverse),
		T(test_separate_overflow_one_warning),
		T(test_dt_1000_memory_nodes),
		T(test_dt_1000_reg_entries),
		T(test_dt_1000_separate_banks_kept),
		T(test_multiboot1_1000_entries),
		T(test_multiboot2_1000_entries),
		T(test_three_nodes_name_the_keeper),
		T(test_meeting_inside_a_page),
		T(test_srat_split_not_merged_back),
		T(test_sanitise_keeps_what_the_pool_holds),
		T(test_add_takes_the_rest_of_the_pool),
		T(test_two_nodes_interleaved),
		T(test_hidden_and_stacked),
		T(test_resolve_at_the_limit_joins_never_drops),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
