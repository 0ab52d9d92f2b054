/* SPDX-License-Identifier: MIT */
/*
 * common/mm/frametable.c: every RAM pfn has its own entry, holes at section
 * edges have none, a section shared by two nodes lives on the node of its
 * lowest RAM page, each node's storage is node-local and accounted.
 */
#include <stdlib.h>

#include "common.h"

static const struct test_ram ram[] = {
	{16 * MiB, 100 * MiB, 0},
	{100 * MiB, 300 * MiB, 1},
	{1 * GiB, 1 * GiB + 64 * MiB, 2},
};

static uint32_t node_of_paddr(uint64_t a)
{
	for (unsigned int i = 0; i < ARRAY_SIZE(ram); i++)
		if (a >= ram[i].start && a < ram[i].end)
			return ram[i].node;
	return 0xffffffffu;
}

static void setup(void)
{
	struct test_machine_cfg c = {
		.ram = ram,
		.ram_count = ARRAY_SIZE(ram),
		.no_handoff = true,
	};

	test_machine_boot(&c);
}

static void test_every_ram_pfn_has_an_entry(void **state)
{
	uint64_t p;

	setup();
	assert_null(pfn_to_page_or_null(pfn(0)));
	assert_null(pfn_to_page_or_null(pfn((16 * MiB >> 12) - 1)));
	assert_null(pfn_to_page_or_null(pfn(300 * MiB >> 12)));
	assert_null(pfn_to_page_or_null(pfn(512 * MiB >> 12)));
	assert_null(pfn_to_page_or_null(pfn((GiB + 64 * MiB) >> 12)));
	assert_null(pfn_to_page_or_null(pfn(1ULL << 40)));
	/* Distinct entries: write each pfn, read all back. */
	for (unsigned int i = 0; i < ARRAY_SIZE(ram); i++)
		for (p = ram[i].start >> 12; p < ram[i].end >> 12; p += 7)
			pfn_to_page(pfn(p))->pfn = p;
	for (unsigned int i = 0; i < ARRAY_SIZE(ram); i++)
		for (p = ram[i].start >> 12; p < ram[i].end >> 12; p += 7)
			assert_int_equal(pfn_to_page(pfn(p))->pfn, p);
	TEST_EXPECT_PANIC(pfn_to_page(pfn(0)), "no frame table entry");
}

static void test_node_local_storage(void **state)
{
	const struct region *r;
	unsigned int count, i;
	uint64_t ft = 0, sec1 = (128 * MiB) >> 12;

	setup();
	/* Section 0 holds node 0 and node 1 pages: stored on node 0. */
	assert_int_equal(node_of_paddr(pa_val(virt_to_phys(
				 pfn_to_page(pfn(99 * MiB >> 12))))),
			 0);
	assert_int_equal(node_of_paddr(pa_val(virt_to_phys(
				 pfn_to_page(pfn(101 * MiB >> 12))))),
			 0);
	/* Sections 1 and 2 are node 1's: contiguous, on node 1. */
	assert_int_equal(
		node_of_paddr(pa_val(virt_to_phys(pfn_to_page(pfn(sec1))))), 1);
	assert_ptr_equal(pfn_to_page(pfn(2 * sec1)),
			 pfn_to_page(pfn(2 * sec1 - 1)) + 1);
	assert_int_equal(node_of_paddr(pa_val(
				 virt_to_phys(pfn_to_page(pfn(GiB >> 12))))),
			 2);
	/* All of it is reserved as "frametable" and accounted. */
	r = bootmem_reserved_regions(&count);
	for (i = 0; i < count; i++)
		if (!strcmp(r[i].name, "frametable"))
			ft += pa_val(r[i].end) - pa_val(r[i].start);
	assert_int_equal(ft, frametable_bytes());
	/* entries: (128M - 16M) + (300M - 128M) + 64M of pages, 32 B each */
	assert_true(frametable_bytes() >=
		    ((112 + 172 + 64) * MiB >> 12) * sizeof(struct page_info));
	assert_true(frametable_bytes() <=
		    ((112 + 172 + 64) * MiB >> 12) * sizeof(struct page_info) +
			    16 * 4096);
}

/*
 * Build a one-node machine of @n RAM ranges of @len bytes every @stride
 * bytes from @base, hand it to the heap, and check every RAM pfn has its
 * own entry, consecutive entries agree with pfn_to_page_next(), and the
 * audit's sum balances (nothing lost to the heap's range table).
 */
static void check_fragmented(unsigned int n, uint64_t base, uint64_t len,
			     uint64_t stride)
{
	struct test_ram *r = calloc(n, sizeof(*r));
	struct test_machine_cfg c = {.ram = r, .ram_count = n};
	uint64_t idx, free_bytes = 0, p;
	paddr_t s, e;
	uint32_t node;

	assert_non_null(r);
	for (unsigned int i = 0; i < n; i++) {
		r[i].start = base + i * stride;
		r[i].end = r[i].start + len;
	}
	c.no_handoff = true;
	test_machine_boot(&c);
	for_each_free_range (idx, &s, &e, &node)
		free_bytes += pa_val(e) - pa_val(s);
	for (unsigned int i = 0; i < n; i++) {
		struct page_info *prev = NULL;

		for (p = r[i].start >> 12; p < r[i].end >> 12; p++) {
			struct page_info *pg = pfn_to_page_or_null(pfn(p));

			assert_non_null(pg);
			if (prev)
				assert_ptr_equal(pfn_to_page_next(prev, p), pg);
			pg->pfn = p;
			prev = pg;
		}
	}
	for (unsigned int i = 0; i < n; i++)
		for (p = r[i].start >> 12; p < r[i].end >> 12; p += 5)
			assert_int_equal(pfn_to_page(pfn(p))->pfn, p);
	test_quiet_begin();
	heap_handoff(true);
	test_quiet_end();
	/* Free before, minus what the handoff took for range tables. */
	assert_true(heap_stats_all(0).free_pages <= free_bytes >> 12);
	assert_int_equal(heap_stats_all(0).free_pages * 4096 +
				 bootmem_reserved_ram_bytes(),
			 n * len);
	test_heap_check_clean();
	free(r);
}

/* Issue 12: 100 ranges of 4 MiB every 8 MiB: no 6 MiB piece anywhere. */
static void test_fragmented_node(void **state)
{
	check_fragmented(100, 0, 4 * MiB, 8 * MiB);
	/* One piece per section, not one for the node. */
	assert_true(frametable_pieces() > 2);
}

/*
 * 512 KiB every 1 MiB: no free piece holds a whole section's 1 MiB of
 * entries, so sections are stored in 512-page blocks. 300 ranges is also
 * more than a heap range table holds by default.
 */
static void test_fragmented_blocks(void **state)
{
	check_fragmented(300, 64 * MiB, 512 * 1024, 1 * MiB);
	assert_true(frametable_pieces() > 100);
}

/*
 * 64 ranges of 2 pages every 2 MiB: no 16 KiB piece anywhere, so most RAM
 * cannot get entries. That RAM must be reserved ("no frametable") rather
 * than handed to the heap or make the boot panic, and the pages still
 * balance: free + reserved = RAM.
 */
static void test_no_room_left_out(void **state)
{
	struct test_ram r[64];
	struct test_machine_cfg c = {
		.ram = r, .ram_count = 64, .no_handoff = true};
	const struct region *rsv;
	unsigned int count, i;
	uint64_t left = 0;

	for (i = 0; i < 64; i++) {
		r[i].start = 64 * MiB + i * 2 * MiB;
		r[i].end = r[i].start + 2 * 4096;
		r[i].node = 0;
	}
	test_machine_boot(&c);
	assert_true(frametable_left_out_bytes() > 0);
	rsv = bootmem_reserved_regions(&count);
	for (i = 0; i < count; i++) {
		bool in_ram = false;

		if (strcmp(rsv[i].name, "no frametable"))
			continue;
		left += pa_val(rsv[i].end) - pa_val(rsv[i].start);
		/* Only RAM is reserved, never the holes around it. */
		for (unsigned int j = 0; j < 64; j++)
			in_ram |= r[j].start <= pa_val(rsv[i].start) &&
				  pa_val(rsv[i].end) <= r[j].end;
		assert_true(in_ram);
	}
	/* Left out: RAM only, all of it under "no frametable" (its region
	 * may also cover holes, and skips pages reserved before). */
	assert_true(frametable_left_out_bytes() <= 64 * 2 * 4096ULL);
	assert_true(left > 0);
	/*
	 * Every RAM page has an entry or is reserved (left out, or holding
	 * the frame table's own pieces), never neither.
	 */
	for (i = 0; i < 64; i++)
		for (uint64_t p = r[i].start >> 12; p < r[i].end >> 12; p++) {
			bool out = false;

			for (unsigned int j = 0; j < count; j++)
				out |= pa_val(rsv[j].start) <= p << 12 &&
				       p << 12 < pa_val(rsv[j].end);
			assert_true(out || pfn_to_page_or_null(pfn(p)));
		}
	test_quiet_begin();
	heap_handoff(true);
	test_quiet_end();
	assert_int_equal(heap_stats_all(0).free_pages * 4096 +
				 bootmem_reserved_ram_bytes(),
			 64 * 2 * 4096ULL);
	test_heap_check_clean();
}

/*
 * A node whose free memory is cut every 4 MiB by a reserved page (bad
 * pages) has no range for its whole frame table: level 1 is not tried
 * by a search that steps over every gap (bootmem_walk_steps()), the
 * sections still get their entries.
 */
static void test_no_whole_piece_no_search(void **state)
{
	static const struct test_ram big[] = {
		{16 * MiB, 16 * MiB + 2 * GiB, 0}};
	enum { N = 2 * 256 };
	struct test_rsv *rsv = calloc(N, sizeof(*rsv));
	struct test_machine_cfg c = {
		.ram = big,
		.ram_count = 1,
		.rsv = rsv,
		.rsv_count = N,
		.no_handoff = true,
	};

	(void)state;
	assert_non_null(rsv);
	for (unsigned int i = 0; i < N; i++) {
		uint64_t a = 16 * MiB + (uint64_t)i * 4 * MiB + 2 * MiB;

		rsv[i] = (struct test_rsv){a, a + 4096, "bad firmware"};
	}
	test_machine_boot(&c);
	assert_true(frametable_pieces() > 1);
	assert_true(bootmem_walk_steps() < N / 2);
	for (uint64_t a = 16 * MiB; a < 16 * MiB + 2 * GiB; a += 64 * MiB)
		assert_non_null(pfn_to_page_or_null(paddr_to_pfn(pa(a))));
	free(rsv);
}

/*
 * Two nodes of 1 GiB each cut every MiB by a reserved page but for one
 * gap of 64 MiB in the middle: each node's whole frame table fits there,
 * one piece each (after the section table's). bootmem_node_free_at_least()
 * looks a frame table's size down at a time; it must never step over the
 * gap that fits (nor read node 0's regions for node 1).
 */
static void test_whole_piece_in_one_gap(void **state)
{
	static const struct test_ram two[] = {
		{16 * MiB, 16 * MiB + GiB, 0},
		{16 * MiB + GiB, 16 * MiB + 2 * GiB, 1},
	};
	enum { N = 2 * 1024 };
	struct test_rsv *rsv = calloc(N, sizeof(*rsv));
	struct test_machine_cfg c = {
		.ram = two,
		.ram_count = 2,
		.rsv = rsv,
		.no_handoff = true,
	};

	(void)state;
	assert_non_null(rsv);
	for (unsigned int i = 0; i < N; i++) {
		uint64_t off = (uint64_t)(i % 1024) * MiB;

		if (off >= 480 * MiB && off < 544 * MiB)
			continue; /* the gap of each node */
		off += 16 * MiB + (i / 1024) * GiB + 4096;
		rsv[c.rsv_count++] = (struct test_rsv){off, off + 4096, "bad"};
	}
	test_machine_boot(&c);
	/* The section table, then one piece a node. */
	assert_int_equal(frametable_pieces(), 3);
	free(rsv);
}

/* The piece of @pl[0..n) for @node, or NULL. */
static const struct frametable_piece *
piece_of(const struct frametable_piece *pl, unsigned int n, uint32_t node)
{
	for (unsigned int i = 0; i < n; i++)
		if (pl[i].node == node)
			return &pl[i];
	return NULL;
}

/*
 * frametable_hint(): a live update's last placement, taken where it is
 * the same size and free: the section table and node 1's entries moved
 * to free places of their own choosing (not where top-down would put
 * them), the entries read back there; node 2's hint of the wrong size
 * and node 0's on reserved memory ignored (placed top-down); the
 * next boot without a hint places all of it as the first did.
 */
static void test_hint(void **state)
{
	struct test_machine_cfg c = {
		.ram = ram,
		.ram_count = ARRAY_SIZE(ram),
		.bootmem_only = true,
	};
	struct frametable_piece first[8], got[8], hint[4];
	const struct frametable_piece *p;
	unsigned int n, m;

	(void)state;
	test_machine_boot(&c);
	frametable_init(3);
	n = frametable_placement(first, ARRAY_SIZE(first));
	assert_int_equal(n, 4); /* the section table, then nodes 0 to 2 */
	assert_int_equal(first[0].node, FRAMETABLE_SECTIONS);

	test_machine_boot(&c);
	p = piece_of(first, n, FRAMETABLE_SECTIONS);
	hint[0] = (struct frametable_piece){20 * MiB,
					    20 * MiB + (p->end - p->start),
					    FRAMETABLE_SECTIONS, 0};
	p = piece_of(first, n, 1);
	hint[1] = (struct frametable_piece){
		200 * MiB, 200 * MiB + (p->end - p->start), 1, 0};
	p = piece_of(first, n, 2);
	hint[2] = (struct frametable_piece){GiB, GiB + (p->end - p->start) / 2,
					    2, 0};
	p = piece_of(first, n, 0);
	hint[3] = (struct frametable_piece){
		16 * MiB, 16 * MiB + (p->end - p->start), 0, 0};
	assert_int_equal(
		pa_val(bootmem_alloc_at(pa(16 * MiB + 65536), 4096, 0, "fw")),
		16 * MiB + 65536); /* inside node 0's hint */
	frametable_hint(hint, 4);
	frametable_init(3);
	m = frametable_placement(got, ARRAY_SIZE(got));
	assert_int_equal(m, 4);
	assert_int_equal(piece_of(got, m, FRAMETABLE_SECTIONS)->start,
			 20 * MiB);
	assert_int_equal(piece_of(got, m, 1)->start, 200 * MiB);
	assert_ptr_equal(pfn_to_page(pfn((128 * MiB) >> 12)),
			 phys_to_virt(pa(200 * MiB)));
	/* Node 2's top-down, as before, at the top the section table left. */
	assert_int_equal(piece_of(got, m, 2)->end, GiB + 64 * MiB);
	assert_int_equal(piece_of(got, m, 0)->start,
			 piece_of(first, n, 0)->start);
	assert_int_equal(frametable_pieces(), 4);
	/* Used once: the next table is placed afresh. */
	test_machine_boot(&c);
	frametable_init(3);
	m = frametable_placement(got, ARRAY_SIZE(got));
	assert_int_equal(m, n);
	assert_memory_equal(got, first, n * sizeof(*got));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_whole_piece_in_one_gap,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_hint, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_every_ram_pfn_has_an_entry,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_node_local_storage,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_fragmented_node,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_fragmented_blocks,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_no_room_left_out,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_no_whole_piece_no_search,
						test_setup, test_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
