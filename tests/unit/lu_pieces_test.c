/* SPDX-License-Identifier: MIT */
/*
 * The handover's memory in pieces (common/liveupdate/lu_alloc.c,
 * lu_alloc_pieces()), from a real heap whose free memory is in 64 KiB
 * blocks (every other one of them held, so that none merge): pieces of
 * the largest order there is, as many as the bytes and the pieces record
 * need, ascending in piece 0's table (the lowest), aligned, zeroed; a
 * handover written into them (ho_writer_pieces() on that table in place)
 * reads back through a view; lu_free_pieces() gives every one back. Not
 * enough of them: smaller pieces; none fit, or a vCPU record larger than
 * a block: nothing kept.
 */
#include "common.h"
#include <keel/handover.h>
#include <keel/liveupdate.h>

#include "../../common/domain/domain_priv.h"
#include "../../common/liveupdate/lu_priv.h"

#define HELD_MAX 4096

static struct page_info *held[HELD_MAX];
static unsigned int held_count;

static uint64_t free_pages(void)
{
	struct heap_stats st;

	assert_int_equal(heap_stats(HEAP_ALL_NODES, 0, &st), 0);
	return st.free_pages;
}

/*
 * A 64 MiB machine whose free memory is in 64 KiB blocks: every block of
 * 16 pages taken, every other one given back (their buddies held), and
 * whatever smaller was left taken too. The free blocks hold 0xa5.
 */
static void fragment(void)
{
	struct test_machine_cfg cfg = {.nodes = 1, .node = {{64 * MiB, 1, 0}}};
	struct page_info *pg, *small[HELD_MAX];
	unsigned int n = 0, ns = 0;

	test_machine_boot(&cfg);
	held_count = 0;
	while (n < HELD_MAX && (pg = heap_alloc(4, HEAP_ANY_NODE, 0, 0, NULL)))
		held[n++] = pg;
	assert_true(n < HELD_MAX);
	for (unsigned int o = 4; o-- > 0;)
		while (ns < HELD_MAX &&
		       (pg = heap_alloc(o, HEAP_ANY_NODE, 0, 0, NULL)))
			small[ns++] = pg;
	for (unsigned int i = 0; i < n; i++) {
		if (page_to_pfn(held[i]).v & 16) {
			/* dirty: the pieces must be zeroed */
			memset(phys_to_virt(pfn_to_paddr(page_to_pfn(held[i]))),
			       0xa5, 64 * KiB);
			assert_int_equal(heap_free(held[i], 4, HEAP_FREE_DIRTY),
					 0);
		} else
			held[held_count++] = held[i];
	}
	(void)small; /* kept to the end of the test: a fresh boot next */
	assert_null(heap_alloc(5, HEAP_ANY_NODE, 0, 0, NULL));
	assert_true(free_pages() > 100 * 16);
}

static int cmp_pa(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/*
 * 300 KiB: five 64 KiB pieces and a bit; pieces ascending, aligned,
 * zeroed but the table; a handover written and read back; all given back.
 */
static void test_pieces_taken(void **state)
{
	const uint64_t bytes = 300 * KiB;
	struct lu_pieces p;
	struct handover_header hd = {.generation = 2}, h;
	struct handover_view v;
	struct ho_writer w;
	const uint64_t *t;
	uint64_t before, sorted[64], size;
	static uint8_t back[1 << 20];

	(void)state;
	fragment();
	before = free_pages();
	assert_int_equal(pa_val(lu_alloc(bytes, 0)), pa_val(INVALID_PADDR));
	assert_int_equal(lu_alloc_pieces(bytes, 512, 0, lu_order(bytes), &p),
			 0);
	assert_int_equal(p.shift, 16);
	assert_int_equal(p.count, 5); /* 5 x 65,528 >= 300 KiB + 16 */
	assert_int_equal(p.taken, p.count);
	assert_int_equal(free_pages(), before - 16 * p.count);
	t = lu_pieces_table(p.head);
	assert_int_equal(t[0], pa_val(p.head));
	memcpy(sorted, t, p.count * sizeof(*t));
	qsort(sorted, p.count, sizeof(*sorted), cmp_pa);
	assert_memory_equal(sorted, t, p.count * sizeof(*t));
	for (uint32_t k = 0; k < p.count; k++) {
		const uint8_t *b = phys_to_virt(pa(t[k]));

		assert_int_equal(t[k] & 0xffff, 0);
		assert_true(k == 0 || t[k] > t[k - 1]);
		for (uint64_t i = 0; i < 64 * KiB; i++)
			if (k || i < 144 || i >= 144 + 8 * p.count)
				assert_int_equal(b[i], 0);
	}

	/* The writer on the table in place: a pad to the last piece. */
	ho_writer_pieces(&w, phys_to_virt(p.head),
			 (uintptr_t)phys_to_virt(p.head) - pa_val(p.head),
			 p.shift, p.count, t);
	ho_preserved(&w);
	size = ho_finish(&w, &hd);
	assert_int_equal(size, (4ull << 16) + 8);
	memcpy(&h, phys_to_virt(p.head), sizeof(h));
	assert_int_equal(h.piece_count, 5);
	assert_int_equal(h.piece_shift, 16);
	v = (struct handover_view){
		.head = phys_to_virt(p.head),
		.size = size,
		.delta = (uintptr_t)phys_to_virt(p.head) - pa_val(p.head),
		.table_off = 144,
		.shift = 16,
		.count = 5,
	};
	handover_view_read(&v, 0, back, size);
	assert_int_equal(h.checksum, handover_checksum(back, size));

	lu_free_pieces(p.head, p.shift, p.count);
	assert_int_equal(free_pages(), before);
}

/*
 * More pieces than there are free blocks: smaller ones, until their
 * table does not fit one (-E2BIG); a vCPU record larger than the largest
 * block: -E2BIG. Nothing kept.
 */
static void test_pieces_refused(void **state)
{
	struct lu_pieces p;
	uint64_t before;

	(void)state;
	fragment();
	before = free_pages();
	/* ~500 blocks: each size one short, until 8 KiB: no table */
	assert_int_equal(before % 16, 0);
	assert_true(before / 16 > 400 && before / 16 < 1000);
	assert_int_equal(lu_alloc_pieces(before * PAGE_SIZE, 0, 0, 20, &p),
			 -E2BIG);
	assert_int_equal(p.largest, 16);
	assert_int_equal(p.shift, 13);
	assert_int_equal(pa_val(p.head), pa_val(INVALID_PADDR));
	assert_int_equal(free_pages(), before);
	assert_int_equal(lu_alloc_pieces(MiB, 65 * KiB, 0, 20, &p), -E2BIG);
	assert_int_equal(free_pages(), before);
	/* Below the one block's order only: order 4 is refused at 4. */
	assert_int_equal(lu_alloc_pieces(MiB, 0, 0, 4, &p), 0);
	assert_int_equal(p.shift, 15);
	lu_free_pieces(p.head, p.shift, p.count);
	assert_int_equal(free_pages(), before);
}

/*
 * Two 64 KiB blocks and one of 32 KiB free: 150 KiB needs three 64 KiB
 * pieces, so it takes five of 32 KiB; 300 KiB fits no size, down to
 * 4 KiB pieces (76 needed, 48 there): -ENOMEM, nothing kept.
 */
static void test_pieces_smaller(void **state)
{
	struct page_info *pg, *mine[HELD_MAX];
	unsigned int n = 0;
	struct lu_pieces p;
	uint64_t before;

	(void)state;
	fragment();
	while (free_pages() > 4 * 16)
		mine[n++] = heap_alloc(4, HEAP_ANY_NODE, 0, 0, NULL);
	pg = heap_alloc(3, HEAP_ANY_NODE, 0, 0, NULL); /* half of one */
	assert_non_null(pg);
	mine[n++] = heap_alloc(4, HEAP_ANY_NODE, 0, 0, NULL);
	assert_non_null(mine[n - 1]);
	before = free_pages();
	assert_int_equal(before, 2 * 16 + 8);
	assert_int_equal(lu_alloc_pieces(150 * KiB, 0, 0, 20, &p), 0);
	assert_int_equal(p.largest, 16);
	assert_int_equal(p.shift, 15);
	assert_int_equal(p.count, 5);
	assert_int_equal(free_pages(), 0);
	lu_free_pieces(p.head, p.shift, p.count);
	assert_int_equal(free_pages(), before);

	assert_int_equal(lu_alloc_pieces(300 * KiB, 0, 0, 20, &p), -ENOMEM);
	assert_int_equal(p.largest, 16);
	assert_int_equal(p.shift, 12);
	assert_int_equal(p.count, 76);
	assert_int_equal(p.taken, before);
	assert_int_equal(free_pages(), before);
}

/* One domain of @nx one-page extents, every other page from 0x10000000. */
#define RUN_NX 5000
static void one_domain(struct bi_handover *h, uint8_t *rec, size_t bytes)
{
	struct handover_range t = {0x0f000000, 0x0f001000};
	uint8_t *a = rec + sizeof(struct handover_domain);

	memcpy(a, &t, sizeof(t));
	a += sizeof(t);
	for (uint32_t k = 0; k < RUN_NX; k++) {
		struct handover_extent x = {(uint64_t)k << PAGE_SHIFT,
					    0x10000000 + k * 0x2000ull, 1};

		memcpy(a + k * sizeof(x), &x, sizeof(x));
	}
	memset(h, 0, sizeof(*h));
	h->domains[0] = (struct bi_handover_domain){
		.id = 1,
		.table_count = 1,
		.extent_count = RUN_NX,
		.view = {.head = rec, .size = bytes},
		.rec_bytes = (uint32_t)bytes,
	};
	strcpy(h->domains[0].name, "runs");
	h->domain_count = 1;
}

/*
 * The isolation check's scratch (domain_restore_check.c) on this heap:
 * 5,001 spans are 80 KiB, more than any block; it takes 64 KiB blocks and
 * merges their sorted runs, finds the spans apart, then an extent moved
 * onto the table page, and gives every block back either way.
 */
static void test_disjoint_in_runs(void **state)
{
	const size_t bytes = sizeof(struct handover_domain) + 16 + RUN_NX * 24;
	static struct bi_handover h;
	static uint8_t rec[sizeof(struct handover_domain) + 16 + RUN_NX * 24];
	struct handover_extent x = {0, 0x0f000000, 1};
	uint64_t before;
	char why[256];

	(void)state;
	fragment();
	one_domain(&h, rec, bytes);
	before = free_pages();
	assert_int_equal(domains_restore_disjoint(&h, why, sizeof(why)), 0);
	assert_int_equal(free_pages(), before);
	memcpy(rec + sizeof(struct handover_domain) + 16 + 4321 * sizeof(x), &x,
	       sizeof(x));
	assert_int_equal(domains_restore_disjoint(&h, why, sizeof(why)),
			 -EINVAL);
	assert_string_equal(why,
			    "handover: domains[0] (runs) memory "
			    "[0xf000000, 0xf001000) overlaps domains[0] "
			    "(runs) p2m table pages [0xf000000, 0xf001000)");
	assert_int_equal(free_pages(), before);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_pieces_taken, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_pieces_refused, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_pieces_smaller, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_disjoint_in_runs,
						test_setup, test_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
