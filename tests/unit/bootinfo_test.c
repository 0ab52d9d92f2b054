/* SPDX-License-Identifier: MIT */
/*
 * boot/bootinfo.c: adders, bootinfo_sanitise() on malformed and
 * overlapping inputs, and a property test over random bootinfos. The
 * distance matrix has its own file (bootinfo_distance_test.c).
 */
#include <stdlib.h>
#include <unistd.h>

#include <keel/report.h>

#include "common.h"

static struct bootinfo bi;

#define MB (1ULL << 20)
#define GB (1ULL << 30)

static int setup(void **state)
{
	bootinfo_init(&bi, BOOT_SANDBOX);
	return test_setup(state);
}

static void ram(uint64_t s, uint64_t e, uint32_t node)
{
	bootinfo_add_ram(&bi, pa(s), pa(e), node);
}

static void cpu(uint64_t hwid, uint32_t node)
{
	bootinfo_add_cpu(&bi, hwid, node, 0, (uint32_t)hwid, 0, true);
}

static void expect_ram(unsigned int i, uint64_t s, uint64_t e, uint32_t node)
{
	assert_true(i < bi.ram.count);
	assert_int_equal(pa_val(bi.ram.regions[i].start), s);
	assert_int_equal(pa_val(bi.ram.regions[i].end), e);
	assert_int_equal(bi.ram.regions[i].node, node);
}

static void test_init_and_names(void **state)
{
	assert_int_equal(bi.protocol, BOOT_SANDBOX);
	assert_int_equal(bi.el, -1);
	assert_int_equal(bi.paddr_bits, 52);
	assert_int_equal(bi.ram.count + bi.reserved.count + bi.cpu_count, 0);
	assert_string_equal(boot_protocol_name(BOOT_MULTIBOOT1), "multiboot1");
	assert_string_equal(boot_protocol_name(BOOT_MULTIBOOT2), "multiboot2");
	assert_string_equal(boot_protocol_name(BOOT_DT), "dt");
	assert_string_equal(boot_protocol_name(BOOT_EFI), "efi");
	assert_string_equal(boot_protocol_name(BOOT_SANDBOX), "sandbox");
	assert_string_equal(boot_protocol_name(BOOT_UNKNOWN), "unknown");
	assert_string_equal(boot_protocol_name((enum boot_protocol)77),
			    "unknown");
}

static void test_adders(void **state)
{
	assert_int_equal(bootinfo_add_ram(&bi, pa(4096), pa(4096), 0), -EINVAL);
	assert_int_equal(bootinfo_add_ram(&bi, pa(8192), pa(4096), 0), -EINVAL);
	assert_int_equal(bi.dropped_ram, 2);
	/*
	 * A table at its limit (here a fixed one, as if the early pool were
	 * spent): separate ranges (a page apart) fill it...
	 */
	bi.ram.max = bi.ram.cap;
	bi.reserved.max = bi.reserved.cap;
	for (unsigned int i = 0; i < BOOTINFO_MAX_RAM; i++)
		assert_int_equal(bootinfo_add_ram(&bi, pa(i * 2 * MB),
						  pa(i * 2 * MB + MB), 0),
				 0);
	assert_int_equal(bootinfo_add_ram(&bi, pa(2 * GB), pa(3 * GB), 0),
			 -ENOSPC);
	assert_int_equal(bi.dropped_ram, 3);
	assert_int_equal(bi.dropped_ram_bytes, GB);
	assert_int_equal(bi.ram.count, BOOTINFO_MAX_RAM);
	/* ...but RAM touching a range of its node still goes in. */
	assert_int_equal(bootinfo_add_ram(&bi, pa(MB), pa(2 * MB), 0), 0);
	assert_int_equal(bi.ram.count, BOOTINFO_MAX_RAM - 1);
	expect_ram(0, 0, 3 * MB, 0);
	assert_int_equal(bi.dropped_ram, 3);
	assert_int_equal(bi.dropped_ram_bytes, GB);

	for (unsigned int i = 0; i < BOOTINFO_MAX_RESERVED; i++)
		assert_int_equal(
			bootinfo_add_reserved(&bi, pa(i), pa(i + 1), NULL), 0);
	/*
	 * Full: merged with the nearest (an eighth of the list at once),
	 * never dropped.
	 */
	assert_int_equal(bootinfo_add_reserved(&bi, pa(0), pa(1), "x"), 0);
	assert_int_equal(bi.merged_reserved, BOOTINFO_MAX_RESERVED / 8);
	assert_int_equal(bi.reserved.count,
			 BOOTINFO_MAX_RESERVED + 1 - BOOTINFO_MAX_RESERVED / 8);
	assert_int_equal(bootinfo_add_reserved(&bi, pa(2), pa(1), "x"),
			 -EINVAL);
	assert_int_equal(bi.dropped_reserved, 1);
	assert_string_equal(bi.reserved.regions[1].name, "reserved");

	bootinfo_init(&bi, BOOT_DT);
	assert_int_equal(
		bootinfo_add_reserved(
			&bi, pa(0), pa(1),
			"a-name-that-is-much-longer-than-the-table-allows"),
		0);
	assert_int_equal(strlen(bi.reserved.regions[0].name),
			 BOOTINFO_NAME_MAX - 1);
	for (unsigned int i = 0; i < CONFIG_NR_CPUS; i++)
		assert_int_equal(bootinfo_add_cpu(&bi, i, 0, 0, i, 0, true), 0);
	assert_int_equal(bootinfo_add_cpu(&bi, 999, 0, 0, 0, 0, true), -ENOSPC);
	assert_int_equal(bi.dropped_cpus, 1);
	assert_false(bi.cpus[0].boot_cpu);
}

static void test_clean_input_no_warnings(void **state)
{
	ram(0, GB, 0);
	ram(4 * GB, 5 * GB, 1);
	bootinfo_add_reserved(&bi, pa(0), pa(MB), "bios");
	cpu(0, 0);
	cpu(1, 1);
	bi.cpus[0].boot_cpu = true;
	bootinfo_set_distance(&bi, 0, 1, 20);
	bootinfo_set_distance(&bi, 1, 0, 20);
	bootinfo_sanitise(&bi);
	assert_int_equal(bi.fixups, 0);
	assert_string_equal(sandbox_console_buffer(), "");
	assert_int_equal(bi.node_count, 2);
	assert_true(bi.have_distance);
	assert_int_equal(bi.distance[0][0], 10);
	assert_int_equal(bi.distance[0][1], 20);
	assert_int_equal(bootinfo_ram_bytes(&bi), 2 * GB);
}

static void test_trim_merge_sort(void **state)
{
	ram(3 * GB, 4 * GB, 0);
	ram(0x100, 0x9fc00, 0); /* trimmed to [0x1000, 0x9f000) */
	ram(GB, 2 * GB, 0);
	ram(2 * GB, 3 * GB, 0);	      /* adjacent: merged silently */
	ram(0x800, 0xc00, 0);	      /* no whole page: dropped */
	ram(GB + MB, GB + 2 * MB, 0); /* inside another: merged */
	cpu(0, 0);
	bi.cpus[0].boot_cpu = true;
	bootinfo_sanitise(&bi);
	assert_int_equal(bi.ram.count, 2);
	expect_ram(0, 0x1000, 0x9f000, 0);
	expect_ram(1, GB, 4 * GB, 0);
	/* drop, duplicate: one warning each; the trim is an info line. */
	assert_int_equal(bi.fixups, 2);
	assert_int_equal(test_console_warnings(), 2);
	assert_int_equal(test_console_lines(), 3);
	assert_true(test_console_contains("ram [0x100, 0x9fc00) trimmed to "
					  "pages [0x1000, 0x9f000)"));
	assert_int_equal(bi.dropped_ram, 1);
}

static void test_cross_node_overlap(void **state)
{
	/* Node 1 claims a range covering node 0's middle: node 0 keeps. */
	ram(0, 4 * GB, 1);
	ram(GB, 2 * GB, 0);
	ram(3 * GB, 5 * GB, 2);
	cpu(0, 0);
	bi.cpus[0].boot_cpu = true;
	bootinfo_sanitise(&bi);
	assert_int_equal(bi.ram.count, 4);
	expect_ram(0, 0, GB, 1);
	expect_ram(1, GB, 2 * GB, 0);
	expect_ram(2, 2 * GB, 4 * GB, 1);
	expect_ram(3, 4 * GB, 5 * GB, 2);
	/* One warning for the disagreement, however many pieces. */
	assert_int_equal(bi.fixups, 1);
	assert_int_equal(bi.node_count, 3);
}

static void test_nodes_and_clamp(void **state)
{
	bi.paddr_bits = 40;
	ram(0, GB, NUMA_NO_NODE);
	ram(2 * GB, 3 * GB, MAX_NUMNODES); /* -> 0 */
	ram(GB, 2 * GB, 3);
	ram((1ULL << 40) - GB, (1ULL << 40) + GB, 3); /* clamped */
	ram(1ULL << 41, 1ULL << 42, 3);		      /* above: dropped */
	ram(~0ULL - 100, ~0ULL, 3);
	cpu(5, 7);
	cpu(6, 12345);
	bootinfo_sanitise(&bi);
	expect_ram(0, 0, GB, 0);
	expect_ram(1, GB, 2 * GB, 3);
	expect_ram(2, 2 * GB, 3 * GB, 0);
	expect_ram(3, (1ULL << 40) - GB, 1ULL << 40, 3);
	assert_int_equal(bi.ram.count, 4);
	assert_int_equal(bi.cpus[1].node, 0);
	/* Highest id in use + 1, holes included. */
	assert_int_equal(bi.node_count, 8);
	assert_true(bi.fixups >= 6);
	assert_int_equal(bi.fixups, test_console_lines());
}

static void test_cpus(void **state)
{
	/* No CPUs at all: one boot CPU appears. */
	bootinfo_sanitise(&bi);
	assert_int_equal(bi.cpu_count, 1);
	assert_true(bi.cpus[0].boot_cpu);
	assert_true(bi.cpus[0].usable);
	assert_int_equal(bi.node_count, 1);

	/* Duplicates dropped; the boot flag moves to index 0. */
	bootinfo_init(&bi, BOOT_DT);
	cpu(10, 0);
	cpu(11, 0);
	cpu(10, 0);
	cpu(12, 0);
	cpu(11, 0);
	bi.cpus[3].boot_cpu = true;
	bi.cpus[3].usable = false;
	bootinfo_sanitise(&bi);
	assert_int_equal(bi.cpu_count, 3);
	assert_int_equal(bi.dropped_cpus, 2);
	assert_int_equal(bi.cpus[0].hwid, 12);
	assert_true(bi.cpus[0].boot_cpu);
	assert_true(bi.cpus[0].usable);
	assert_int_equal(bi.cpus[1].hwid, 10);
	assert_int_equal(bi.cpus[2].hwid, 11);
	assert_false(bi.cpus[1].boot_cpu || bi.cpus[2].boot_cpu);

	/* Two boot CPUs: the first keeps it. None: the first gets it. */
	bootinfo_init(&bi, BOOT_DT);
	cpu(1, 0);
	cpu(2, 0);
	cpu(3, 0);
	bi.cpus[1].boot_cpu = bi.cpus[2].boot_cpu = true;
	bootinfo_sanitise(&bi);
	assert_int_equal(bi.cpus[0].hwid, 2);
	assert_true(bi.cpus[0].boot_cpu);
	assert_false(bi.cpus[2].boot_cpu);
	assert_int_equal(bi.fixups, 1);
	bootinfo_init(&bi, BOOT_DT);
	cpu(1, 0);
	cpu(2, 0);
	bootinfo_sanitise(&bi);
	assert_true(bi.cpus[0].boot_cpu);
	assert_int_equal(bi.cpus[0].hwid, 1);
}

static void test_reserved(void **state)
{
	ram(0, GB, 0);
	cpu(0, 0);
	bi.cpus[0].boot_cpu = true;
	bootinfo_add_reserved(&bi, pa(0x1234), pa(0x5678), "kernel");
	bootinfo_add_reserved(&bi, pa(0x100), pa(0x200), "mbi");
	bootinfo_add_reserved(&bi, pa(0), pa(2 * GB), "overlapping");
	bootinfo_add_reserved(&bi, pa(~0ULL - 10), pa(~0ULL), "top");
	bootinfo_sanitise(&bi);
	/* Rounded outwards, order kept, routine rounding is not a fixup. */
	assert_int_equal(bi.fixups, 0);
	assert_int_equal(bi.reserved.count, 3);
	assert_int_equal(pa_val(bi.reserved.regions[0].start), 0x1000);
	assert_int_equal(pa_val(bi.reserved.regions[0].end), 0x6000);
	assert_string_equal(bi.reserved.regions[0].name, "kernel");
	assert_int_equal(pa_val(bi.reserved.regions[1].start), 0);
	assert_int_equal(pa_val(bi.reserved.regions[1].end), 0x1000);
	assert_int_equal(pa_val(bi.reserved.regions[2].end), 2 * GB);
}

/* Is [s, e) inside one reserved range of bi? */
static bool reserved_covers(uint64_t s, uint64_t e)
{
	for (unsigned int i = 0; i < bi.reserved.count; i++)
		if (pa_val(bi.reserved.regions[i].start) <= s &&
		    e <= pa_val(bi.reserved.regions[i].end))
			return true;
	return false;
}

/*
 * Issue 12: more reserved ranges than the table holds. None may be lost:
 * the nearest ones merge (one warning), and the bytes between them become
 * reserved too, so nothing the firmware reserved can reach the heap.
 */
static void test_reserved_overflow_merges(void **state)
{
	const unsigned int n = BOOTINFO_MAX_RESERVED + 88;
	unsigned int warned = 0;
	uint64_t gaps = 0;
	const char *p;

	ram(0, 4 * GB, 0);
	cpu(0, 0);
	bi.cpus[0].boot_cpu = true;
	/* The table cannot grow (its limit reached, as if the pool were spent). */
	bi.reserved.max = bi.reserved.cap;
	/* Pages 2 apart at 1 GiB, then pages 5 apart at 2 GiB (added in
	 * reverse order, so the table is not sorted). */
	for (unsigned int i = 0; i < n; i++) {
		uint64_t a = i < 300 ? GB + (299 - i) * 2 * 4096ULL
				     : 2 * GB + (i - 300) * 5 * 4096ULL;

		assert_int_equal(
			bootinfo_add_reserved(&bi, pa(a), pa(a + 4096), "fw"),
			0);
	}
	bootinfo_sanitise(&bi);
	/* Merged an eighth of the list at a time: 2 x 64 of them. */
	assert_int_equal(bi.merged_reserved, 2 * (BOOTINFO_MAX_RESERVED / 8));
	assert_int_equal(bi.reserved.count, n - bi.merged_reserved);
	assert_int_equal(bi.dropped_reserved, 0);
	/* The smallest gaps (one page, in the first cluster) went first. */
	assert_int_equal(bi.merged_reserved_gap, bi.merged_reserved * 4096ULL);
	for (unsigned int i = 0; i < n; i++) {
		uint64_t a = i < 300 ? GB + (299 - i) * 2 * 4096ULL
				     : 2 * GB + (i - 300) * 5 * 4096ULL;

		assert_true(reserved_covers(a, a + 4096));
	}
	for (unsigned int i = 0; i < bi.reserved.count; i++)
		gaps += pa_val(bi.reserved.regions[i].end) -
			pa_val(bi.reserved.regions[i].start);
	assert_int_equal(gaps, n * 4096ULL + bi.merged_reserved_gap);
	for (p = sandbox_console_buffer(); (p = strstr(p, "reserved ranges"));
	     p++)
		warned++;
	assert_int_equal(warned, 1);
}

/*
 * Issue 36: a million reserved ranges (a live update's preserved ranges)
 * into a list at its limit, as when the early pool is spent (x86_64's
 * holds some 4000). Each add used to sort the whole list and merge one
 * pair: O(n * cap log cap), which did not finish in 900 s. Merging an
 * eighth at once sorts it n / (cap / 8) times. Quiet: about 1 s here
 * under ASan; the alarm (a safety net, 60x that) turns a hang into a
 * failure. Nothing reserved is lost: the gaps merged add up.
 */
static void test_reserved_million_into_full_list(void **state)
{
	const unsigned int n = 1000000, cap = 4096;
	uint64_t covered = 0;

	ram(0, 64 * GB, 0);
	cpu(0, 0);
	bi.cpus[0].boot_cpu = true;
	while (bi.reserved.cap < cap && range_table_double(&bi.reserved))
		;
	assert_true(bi.reserved.cap >= cap);
	bi.reserved.max = bi.reserved.cap;
	alarm(60);
	/* One page in every 2 to 9, climbing from 4 GiB. */
	for (unsigned int i = 0; i < n; i++) {
		uint64_t a = 4 * GB + i * 16 * 4096ULL + (i % 8) * 4096ULL;

		assert_int_equal(
			bootinfo_add_reserved(&bi, pa(a), pa(a + 4096), "p"),
			0);
	}
	bootinfo_sanitise(&bi);
	alarm(0);
	assert_true(bi.reserved.count < bi.reserved.cap);
	assert_int_equal(bi.merged_reserved, n - bi.reserved.count);
	for (unsigned int i = 0; i < bi.reserved.count; i++)
		covered += pa_val(bi.reserved.regions[i].end) -
			   pa_val(bi.reserved.regions[i].start);
	assert_int_equal(covered, n * 4096ULL + bi.merged_reserved_gap);
	assert_true(reserved_covers(4 * GB, 4 * GB + 4096));
	assert_true(
		reserved_covers(4 * GB + (n - 1) * 16 * 4096ULL + 7 * 4096ULL,
				4 * GB + (n - 1) * 16 * 4096ULL + 8 * 4096ULL));
}

/*
 * Issue 36: 100,000 separate RAM ranges listed in address order (a DT or
 * UEFI map that large) all kept, and RAM touching the last range of its
 * node still merged. Each add used to scan every range before it: O(n^2),
 * minutes under ASan. A list sorted so far is only searched at its tail.
 * Quiet: well under a second; the alarm is a safety net (60 s).
 */
static void test_ram_many_in_order(void **state)
{
	const unsigned int n = 100000;

	bootinfo_early_pool_reset();
	bootinfo_init(&bi, BOOT_SANDBOX);
	alarm(60);
	for (unsigned int i = 0; i < n; i++)
		assert_int_equal(bootinfo_add_ram(&bi, pa(4 * GB + i * 2 * MB),
						  pa(4 * GB + i * 2 * MB + MB),
						  i % 2),
				 0);
	/* Touching the last range of its node: merged, no slot. */
	assert_int_equal(bootinfo_add_ram(&bi,
					  pa(4 * GB + (n - 1) * 2 * MB + MB),
					  pa(4 * GB + n * 2 * MB), (n - 1) % 2),
			 0);
	/* Overlapping an earlier one (out of order): merged too. */
	assert_int_equal(bootinfo_add_ram(&bi, pa(4 * GB + MB / 2),
					  pa(4 * GB + MB + MB / 2), 0),
			 0);
	alarm(0);
	assert_int_equal(bi.ram.count, n);
	assert_int_equal(bi.dropped_ram, 0);
	assert_int_equal(pa_val(bi.ram.regions[n - 1].end),
			 4 * GB + n * 2 * MB);
	assert_int_equal(pa_val(bi.ram.regions[0].end), 4 * GB + MB + MB / 2);
	bootinfo_early_pool_reset();
}

/* CPUs past the table: one warning, even when sanitise runs twice. */
static void test_cpus_over_cap_said_once(void **state)
{
	unsigned int said = 0;
	const char *p;

	ram(0, GB, 0);
	for (unsigned int i = 0; i < CONFIG_NR_CPUS + 3; i++)
		cpu(i, 0);
	bi.cpus[0].boot_cpu = true;
	bootinfo_sanitise(&bi);
	bootinfo_sanitise(&bi);
	for (p = sandbox_console_buffer(); (p = strstr(p, "this build holds"));
	     p++)
		said++;
	assert_int_equal(said, 1);
	assert_int_equal(bi.dropped_cpus, 3);
	assert_int_equal(bi.cpu_count, CONFIG_NR_CPUS);
}

/* ---- property test ------------------------------------------------------ */

static uint64_t rnd(void)
{
	return ((uint64_t)rand() << 31) ^ (uint64_t)rand();
}

static uint64_t rnd_addr(void)
{
	switch (rand() % 4) {
	case 0:
		return rnd() % (64 * MB); /* dense, overlaps */
	case 1:
		return (rnd() % 64) * GB; /* round */
	case 2:
		return rnd() << (rand() % 30); /* anywhere */
	default:
		return (rnd() % 16) * MB + (uint64_t)(rand() % 3) * 0x800;
	}
}

static bool covered(const struct bootinfo *b, uint64_t addr)
{
	for (unsigned int i = 0; i < b->ram.count; i++)
		if (pa_val(b->ram.regions[i].start) <= addr &&
		    addr < pa_val(b->ram.regions[i].end))
			return true;
	return false;
}

static void random_bootinfo(struct bootinfo *b)
{
	unsigned int nram = (unsigned int)rand() % 40;
	unsigned int ncpu = (unsigned int)rand() % 12;

	bootinfo_init(b, BOOT_SANDBOX);
	if (rand() % 4 == 0)
		b->paddr_bits = (unsigned int)rand() % 70;
	for (unsigned int i = 0; i < nram; i++) {
		uint64_t s = rnd_addr(), e = s + rnd_addr() % (8 * GB);
		uint32_t node =
			rand() % 8 ? (uint32_t)rand() % 5 : (uint32_t)rnd();

		if (rand() % 10 == 0)
			e = rnd_addr();
		bootinfo_add_ram(b, pa(s), pa(e), node);
	}
	for (unsigned int i = 0; i < (unsigned int)rand() % 6; i++) {
		uint64_t s = rnd_addr();

		bootinfo_add_reserved(b, pa(s), pa(s + rnd() % GB), "r");
	}
	for (unsigned int i = 0; i < ncpu; i++) {
		bootinfo_add_cpu(b, (uint64_t)rand() % 8,
				 rand() % 6 ? (uint32_t)rand() % 6
					    : NUMA_NO_NODE,
				 0, i, 0, rand() % 4 != 0);
		b->cpus[b->cpu_count - 1].boot_cpu = rand() % 5 == 0;
	}
	for (unsigned int i = 0; i < (unsigned int)rand() % 10; i++)
		bootinfo_set_distance(b, (uint32_t)rand() % 6,
				      (uint32_t)rand() % 6,
				      (uint8_t)(rand() % 40));
}

static void check_invariants(const struct bootinfo *b)
{
	uint64_t limit = b->paddr_bits >= 64 ? ~0ULL : 1ULL << b->paddr_bits;
	unsigned int boots = 0;

	assert_true(b->paddr_bits >= 32 && b->paddr_bits <= 64);
	assert_true(b->node_count >= 1 && b->node_count <= MAX_NUMNODES);
	for (unsigned int i = 0; i < b->ram.count; i++) {
		uint64_t s = pa_val(b->ram.regions[i].start),
			 e = pa_val(b->ram.regions[i].end);

		assert_true(s < e);
		assert_true(IS_ALIGNED(s, PAGE_SIZE) &&
			    IS_ALIGNED(e, PAGE_SIZE));
		assert_true(e <= limit);
		assert_true(b->ram.regions[i].node < b->node_count);
		if (i) {
			const struct region *p = &b->ram.regions[i - 1];

			/* Sorted, disjoint, and merged when touching. */
			assert_true(pa_val(p->end) <= s);
			assert_false(pa_val(p->end) == s &&
				     p->node == b->ram.regions[i].node);
		}
	}
	for (unsigned int i = 0; i < b->reserved.count; i++) {
		assert_true(pa_val(b->reserved.regions[i].start) <
			    pa_val(b->reserved.regions[i].end));
		assert_true(IS_ALIGNED(pa_val(b->reserved.regions[i].start),
				       PAGE_SIZE));
		assert_true(IS_ALIGNED(pa_val(b->reserved.regions[i].end),
				       PAGE_SIZE));
	}
	assert_true(b->cpu_count >= 1);
	for (unsigned int i = 0; i < b->cpu_count; i++) {
		assert_true(b->cpus[i].node < b->node_count);
		boots += b->cpus[i].boot_cpu;
		for (unsigned int j = 0; j < i; j++)
			assert_true(b->cpus[i].hwid != b->cpus[j].hwid);
	}
	assert_int_equal(boots, 1);
	assert_true(b->cpus[0].boot_cpu && b->cpus[0].usable);
	for (unsigned int a = 0; a < b->node_count; a++) {
		for (unsigned int c = 0; c < b->node_count; c++) {
			if (a == c)
				assert_int_equal(b->distance[a][c], 10);
			else /* asymmetric allowed */
				assert_true(b->distance[a][c] > 10);
		}
	}
}

static struct bootinfo before, again;

static void test_property_random(void **state)
{
	srand(2026);
	for (int iter = 0; iter < 3000; iter++) {
		random_bootinfo(&bi);
		test_bootinfo_copy(&before, &bi);
		bootinfo_sanitise(&bi);
		check_invariants(&bi);

		/*
		 * Every page-aligned address inside some valid input RAM
		 * range (below the limit) is still RAM, and nothing new
		 * became RAM.
		 */
		uint64_t limit =
			bi.paddr_bits >= 64 ? ~0ULL : 1ULL << bi.paddr_bits;

		for (unsigned int i = 0; i < before.ram.count; i++) {
			uint64_t s = pa_val(before.ram.regions[i].start);
			uint64_t e = ALIGN_DOWN(
				pa_val(before.ram.regions[i].end), PAGE_SIZE);

			if (s > PAGE_MASK)
				continue;
			s = ALIGN_UP(s, PAGE_SIZE);
			if (e > ALIGN_DOWN(limit, PAGE_SIZE))
				e = ALIGN_DOWN(limit, PAGE_SIZE);
			if (s >= e)
				continue;
			assert_true(covered(&bi, s));
			assert_true(covered(&bi, e - PAGE_SIZE));
		}
		for (unsigned int i = 0; i < bi.ram.count; i++) {
			uint64_t s = pa_val(bi.ram.regions[i].start);
			bool found = false;

			for (unsigned int j = 0; j < before.ram.count; j++)
				found |= pa_val(before.ram.regions[j].start) <=
						 s &&
					 s < pa_val(before.ram.regions[j].end);
			assert_true(found);
		}

		/* Idempotent: a second pass changes and warns nothing. */
		test_bootinfo_copy(&again, &bi);
		again.fixups = 0;
		sandbox_console_clear();
		bootinfo_sanitise(&again);
		assert_int_equal(again.fixups, 0);
		again.fixups = bi.fixups;
		/* The tables by content, then everything else byte for byte. */
		assert_int_equal(again.ram.count, bi.ram.count);
		assert_memory_equal(again.ram.regions, bi.ram.regions,
				    bi.ram.count * sizeof(struct region));
		assert_int_equal(again.reserved.count, bi.reserved.count);
		assert_memory_equal(again.reserved.regions, bi.reserved.regions,
				    bi.reserved.count * sizeof(struct region));
		again.ram = bi.ram;
		again.reserved = bi.reserved;
		assert_memory_equal(&again, &bi, sizeof(bi));
		sandbox_console_clear();
	}
}

/* The reserved list's bytes, read range by range. */
static uint64_t reserved_walked(void)
{
	uint64_t sum = 0;

	for (unsigned int i = 0; i < bi.reserved.count; i++)
		sum += pa_val(bi.reserved.regions[i].end) -
		       pa_val(bi.reserved.regions[i].start);
	return sum;
}

/*
 * bootinfo_reserved_bytes(): kept by sanitise (its trim, unaligned ranges
 * rounded, empty ones dropped) and the adders after it, O(1), always the
 * sum of the list; once a full list merged, summed again. A handover's
 * carried ranges count in place.
 */
static void test_reserved_bytes_kept(void **state)
{
	(void)state;
	ram(0, 4 * GB, 0);
	cpu(0, 0);
	bi.cpus[0].boot_cpu = true;
	bootinfo_add_reserved(&bi, pa(0x1800), pa(0x2100), "fw");
	bootinfo_add_reserved(&bi, pa(GB), pa(GB + 5 * 4096), "fw");
	bootinfo_sanitise(&bi);
	assert_true(bi.reserved_bytes_known);
	assert_int_equal(bootinfo_reserved_bytes(&bi), 2 * 4096 + 5 * 4096);
	bootinfo_add_reserved(&bi, pa(2 * GB + 1), pa(2 * GB + 100), "late");
	assert_int_equal(bootinfo_reserved_bytes(&bi), reserved_walked());
	bi.reserved_bytes = 0; /* a stale count is read, not a walk */
	assert_int_equal(bootinfo_reserved_bytes(&bi), 0);
	bootinfo_sanitise(&bi);
	assert_int_equal(bootinfo_reserved_bytes(&bi), reserved_walked());
	bi.handover.bad_count = 3;
	bi.handover.bad_pages = 4;
	bi.carried = true;
	assert_int_equal(bootinfo_reserved_bytes(&bi),
			 reserved_walked() + 4 * 4096);
	bi.carried = false;
	/* A full list merges: no longer kept, the walk gives it. */
	bi.reserved.max = bi.reserved.cap;
	for (unsigned int i = 0; i < BOOTINFO_MAX_RESERVED + 8; i++)
		bootinfo_add_reserved(&bi, pa(3 * GB + i * 2 * 4096ULL),
				      pa(3 * GB + i * 2 * 4096ULL + 4096),
				      "fw");
	assert_true(bi.merged_reserved > 0);
	assert_false(bi.reserved_bytes_known);
	assert_int_equal(bootinfo_reserved_bytes(&bi), reserved_walked());
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup, test_teardown)
	const struct CMUnitTest tests[] = {
		T(test_init_and_names),
		T(test_adders),
		T(test_clean_input_no_warnings),
		T(test_trim_merge_sort),
		T(test_cross_node_overlap),
		T(test_nodes_and_clamp),
		T(test_cpus),
		T(test_reserved),
		T(test_reserved_overflow_merges),
		T(test_reserved_million_into_full_list),
		T(test_ram_many_in_order),
		T(test_cpus_over_cap_said_once),
		T(test_property_random),
		T(test_reserved_bytes_kept),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
