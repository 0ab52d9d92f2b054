// SPDX-License-Identifier: MIT
/*
 * badram= patterns kept as lattices (include/keel/lattice.h,
 * common/mm/bootmem_lattice.c, common/mm/bad_lattice.c):
 * - the arithmetic against a brute force: the next and previous match of
 *   random patterns, and the runs they make, at every page of a space;
 * - bootmem with two lattices (1 page in 32, and runs of 4 pages in 512)
 *   over RAM of two nodes with reservations, against a model page by
 *   page: the free ranges still hold the lattices' pages (the heap takes
 *   them); allocations land where the model's top-down walk puts them,
 *   never on one; the largest free piece and a node's are the model's;
 *   pieces of one name across the gaps are one region, not one a gap;
 * - the heap after the handoff: every lattice page in RAM is out of
 *   service or inside a reservation, the audit counts each bad once and
 *   balances, heap_check() is clean, and allocating all of the heap
 *   never returns one.
 */
#include <stdlib.h>

#include "bootmem_model.h"
#include "common.h"
#include <keel/audit.h>
#include <keel/heap_check.h>
#include <keel/lattice.h>

#include "../../common/mm/bootmem_priv.h"

#define PG    4096ULL
#define TOP   (256 * MiB)
#define PAGES (TOP / PG)

static const struct test_ram ram[] = {
	{16 * MiB, 96 * MiB, 0},
	{96 * MiB, 160 * MiB, 1},
	{192 * MiB, 256 * MiB, 1},
};
static const struct test_rsv rsv[] = {
	{20 * MiB, 21 * MiB + 3 * PG, "firmware"},
	{100 * MiB + 5 * PG, 100 * MiB + 6 * PG, "bad firmware"},
	{200 * MiB, 200 * MiB + 40 * PG, "initrd"},
};
/* badram= 0x5000,0x1f000 (a page in 32), and runs of 4 pages in 512. */
static const struct lattice lat[] = {
	{0x1f, 0x05},
	{0x1fc, 0x0c4 & 0x1fc},
};

static int8_t node_of[PAGES];
static bool table_at[PAGES], lat_at[PAGES];

static bool match(const struct lattice *l, uint64_t y)
{
	return (y & l->mask) == l->value;
}

/*
 * The longest run of pages between two matches of @l in [0, 4096): four
 * of its periods at least (masks of 10 bits).
 */
static uint64_t gap_most(const struct lattice *l)
{
	uint64_t most = 0;

	for (uint64_t q = 0, last = UINT64_MAX; q < 4096; q++)
		if (match(l, q)) {
			if (last != UINT64_MAX)
				most = MAX(most, q - last - 1);
			last = q;
		}
	return most;
}

static void test_arithmetic(void **state)
{
	uint32_t x = 38;

	(void)state;
	for (unsigned int t = 0; t < 400; t++) {
		struct lattice l = {model_rnd(&x) & 0x3ff & ~(t % 3 ? 0 : 1u),
				    0};
		uint64_t p = model_rnd(&x) % 2048, got, s, e;

		l.value = model_rnd(&x) & l.mask;
		for (uint64_t q = 0; q < 2048; q++) {
			uint64_t y = q, z = q;
			bool ny = lattice_next_match(q, l.mask, l.value, &got);

			while (!match(&l, y))
				y++;
			assert_true(ny && got == y);
			while (z && !match(&l, z))
				z--;
			if (match(&l, z)) {
				assert_true(lattice_prev_match(q, l.mask,
							       l.value, &got));
				assert_int_equal(got, z);
			} else {
				assert_false(lattice_prev_match(q, l.mask,
								l.value, &got));
			}
		}
		/* The run holding @p or above, and the one at or below. */
		if (lattice_run_after(&l, p, &s, &e)) {
			uint64_t y = p;

			while (!match(&l, y))
				y++;
			assert_true(s <= y && y < e && e > p);
			for (uint64_t q = s; q < e; q++)
				assert_true(match(&l, q));
			assert_false(s && match(&l, s - 1));
			assert_false(match(&l, e));
		}
		if (lattice_run_below(&l, p, &s, &e)) {
			assert_true(s <= p);
			for (uint64_t q = s; q < e; q++)
				assert_true(match(&l, q));
			for (uint64_t q = e; q <= p; q++)
				assert_false(match(&l, q));
		} else {
			for (uint64_t q = 0; q <= p; q++)
				assert_false(match(&l, q));
		}
		assert_true(gap_most(&l) <= lattice_gap_most(&l));
	}
	/* A failing column (a page in 32): 31 pages, exactly. */
	assert_int_equal(lattice_gap_most(&(struct lattice){0x1f, 5}), 31);
	assert_int_equal(lattice_gap_most(&(struct lattice){0, 0}), 0);
	assert_int_equal(lattice_gap_most(&(struct lattice){1ULL << 51, 0}),
			 LATTICE_PAGES);
}

static void give_lattices(struct bootinfo *bi)
{
	for (unsigned int i = 0; i < ARRAY_SIZE(lat); i++)
		bi->lattice[i] = lat[i];
	bi->lattice_count = ARRAY_SIZE(lat);
}

static void make_model(void)
{
	memset(node_of, -1, sizeof(node_of));
	for (unsigned int i = 0; i < ARRAY_SIZE(ram); i++)
		for (uint64_t p = ram[i].start / PG; p < ram[i].end / PG; p++)
			node_of[p] = (int8_t)ram[i].node;
	for (uint64_t p = 0; p < PAGES; p++)
		lat_at[p] = match(&lat[0], p) || match(&lat[1], p);
}

static void read_table(void)
{
	unsigned int count;
	const struct region *r = bootmem_reserved_table(&count);

	memset(table_at, 0, sizeof(table_at));
	for (unsigned int i = 0; i < count; i++)
		for (uint64_t p = pa_val(r[i].start) / PG;
		     p < pa_val(r[i].end) / PG && p < PAGES; p++)
			table_at[p] = true;
}

/* Free to an allocation: RAM, not reserved, no lattice's. */
static bool model_free(uint64_t p)
{
	return node_of[p] >= 0 && !table_at[p] && !lat_at[p];
}

static const struct bootmem_model model = {ram, ARRAY_SIZE(ram), PAGES,
					   model_free};

static void boot_machine(bool heap)
{
	struct test_machine_cfg c = {
		.ram = ram,
		.ram_count = ARRAY_SIZE(ram),
		.rsv = rsv,
		.rsv_count = ARRAY_SIZE(rsv),
		.bootmem_only = !heap,
		.before_bootmem = give_lattices,
	};

	make_model();
	test_machine_boot(&c);
	read_table();
}

/* The free ranges are RAM minus the table: the lattices' pages in them. */
static void check_free(void)
{
	uint64_t idx, p = 0, lattice = 0;
	paddr_t s, e;
	uint32_t node;

	for_each_free_range (idx, &s, &e, &node) {
		for (; p < pa_val(s) / PG; p++)
			assert_true(node_of[p] < 0 || table_at[p]);
		for (; p < pa_val(e) / PG; p++) {
			assert_true(node_of[p] == (int)node && !table_at[p]);
			lattice += lat_at[p];
		}
	}
	assert_true(lattice > 1000);
}

static void check_sizes(void)
{
	uint64_t l = model_longest(&model, -1);

	assert_true(l >= 16 && l < 32);
	assert_int_equal(bootmem_largest_free(), l * PG);
	assert_true(bootmem_free_at_least(l * PG));
	assert_false(bootmem_free_at_least((l + 1) * PG));
	for (int n = 0; n < 2; n++) {
		l = model_longest(&model, (int)n);
		assert_true(bootmem_node_free_at_least((uint32_t)n, l * PG));
		assert_false(
			bootmem_node_free_at_least((uint32_t)n, (l + 1) * PG));
	}
}

/* Regions named @name in the table. */
static unsigned int regions_named(const char *name)
{
	unsigned int count, n = 0;
	const struct region *r = bootmem_reserved_table(&count);

	for (unsigned int i = 0; i < count; i++)
		n += !strcmp(r[i].name, name);
	return n;
}

static void test_bootmem(void **state)
{
	uint32_t x = 7;
	unsigned int placed = 0;

	(void)state;
	boot_machine(false);
	check_free();
	check_sizes();
	for (unsigned int i = 0; i < 300; i++) {
		uint32_t node = model_rnd(&x) % 2;
		uint64_t size = 1 + model_rnd(&x) % 12,
			 align = 1ULL << (model_rnd(&x) % 3);
		uint64_t want = model_fit(&model, node, size, align);
		paddr_t got = bootmem_alloc_try(size * PG, align * PG, node,
						i % 2 ? "test a" : "test b");

		if (want == ~0ULL) /* the node is full: another's, or none */
			continue;
		if (pa_val(got) != want * PG)
			fail_msg("alloc %llu pages /%llu on node %u: %#llx, "
				 "want %#llx",
				 (unsigned long long)size,
				 (unsigned long long)align, node,
				 (unsigned long long)pa_val(got),
				 (unsigned long long)(want * PG));
		placed++;
		read_table();
	}
	assert_true(placed > 250);
	check_free();
	check_sizes();
	assert_int_equal(bootmem_merged_regions(NULL), 0);
}

/*
 * 4-page pieces of one name, top-down through the gaps a lattice leaves:
 * one region across the lattice's runs and the few free pages beside
 * them (fewer than a piece), not one a gap; each piece clear of the
 * lattices. The pages the region holds beyond its pieces: a lattice's,
 * or fewer than a piece free at each run.
 */
static void test_joined(void **state)
{
	uint64_t lo = ~0ULL, hi = 0, pieces = 0, held;
	unsigned int count;
	const struct region *r;

	(void)state;
	boot_machine(false);
	for (unsigned int i = 0; i < 400; i++) {
		paddr_t p = bootmem_alloc_try(4 * PG, PG, 1, "test pieces");

		assert_true(pa_val(p) != pa_val(INVALID_PADDR));
		for (uint64_t q = pa_val(p) / PG; q < pa_val(p) / PG + 4; q++)
			assert_true(model_free(q));
		lo = MIN(lo, pa_val(p));
		hi = MAX(hi, pa_val(p) + 4 * PG);
		pieces += 4;
		read_table();
	}
	assert_int_equal(regions_named("test pieces"), 1);
	r = bootmem_reserved_table(&count);
	for (unsigned int i = 0; i < count; i++) {
		if (strcmp(r[i].name, "test pieces"))
			continue;
		assert_int_equal(pa_val(r[i].start), lo);
		assert_int_equal(pa_val(r[i].end), hi);
	}
	held = (hi - lo) / PG;
	assert_true(held > pieces + 40); /* runs crossed */
	assert_true(held - pieces < 2 * 40 * 4);
}

static bool free_at[PAGES];

static void mark_free(struct page_info *head, unsigned int order,
		      unsigned int zone, void *arg)
{
	uint64_t h = pfn_val(page_to_pfn(head));

	(void)zone;
	(void)arg;
	for (uint64_t p = h; p < h + (1ULL << order); p++) {
		assert_false(lat_at[p] || free_at[p]);
		free_at[p] = true;
	}
}

/*
 * Every free chunk is the largest aligned one there (Xen's 2026 bugs: a
 * misaligned buddy, a tail that no longer merges): the block of twice its
 * order holding it has a page that is not free (a lattice's, reserved,
 * no RAM).
 */
static void check_largest(void)
{
	unsigned int heads = 0;

	memset(free_at, 0, sizeof(free_at));
	for (unsigned int n = 0; n < 2; n++)
		heap_for_each_free(n, mark_free, NULL);
	for (uint64_t p = 0; p < PAGES; p++) {
		pfn_t head = pfn(0);
		unsigned int k = 0;
		uint64_t up;
		bool whole = true;

		if (!free_at[p] ||
		    heap_owner_of(pfn(p), &head, &k) != HEAP_OWNER_FREE)
			continue;
		if (pfn_val(head) != p || k >= 18)
			continue; /* not its head, or the largest order */
		heads++;
		up = p & ~((2ULL << k) - 1);
		for (uint64_t q = up; q < up + (2ULL << k) && whole; q++)
			whole = q < PAGES && free_at[q];
		if (whole)
			fail_msg("free chunk %#llx order %u: its buddy is free",
				 (unsigned long long)p, k);
	}
	assert_true(heads > 1000);
}

static void test_heap(void **state)
{
	struct audit_result a;
	uint64_t want = 0, in_rsv = 0, free, got = 0;
	struct page_info *pg;

	(void)state;
	boot_machine(true);
	for (uint64_t p = 0; p < PAGES; p++) {
		int who;

		if (node_of[p] < 0 || !lat_at[p])
			continue;
		want++;
		who = heap_owner_of(pfn(p), NULL, NULL);
		if (who == HEAP_OWNER_NONE)
			in_rsv++;
		else if (who != HEAP_OWNER_BAD)
			fail_msg("lattice page %#llx: owner %d",
				 (unsigned long long)p, who);
	}
	assert_true(in_rsv > 0 && in_rsv < want / 4);
	assert_int_equal(heap_check(), 0);
	check_largest();
	audit_run(&a, false);
	assert_true(a.ok);
	assert_int_equal(a.lost_pages, 0);
	assert_int_equal(a.bad_pages, want);
	free = heap_stats_all(0).free_pages;
	while ((pg = heap_alloc(0, 0, 0, HEAP_NO_SCRUB, NULL))) {
		uint64_t p = pfn_val(page_to_pfn(pg));

		if (lat_at[p])
			fail_msg("lattice page %#llx handed out",
				 (unsigned long long)p);
		got++;
	}
	assert_int_equal(got, free);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_arithmetic),
		cmocka_unit_test(test_bootmem),
		cmocka_unit_test(test_joined),
		cmocka_unit_test(test_heap),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
