/* SPDX-License-Identifier: MIT */
/*
 * The reference model the heap model tests share (heap_model_test.c,
 * heap_owned_model_test.c): two machines (three nodes with holes and
 * reserved ranges; one of big chunks), a per-page reference of what is
 * free, allocated or reserved, a seeded generator, and the checks of the
 * heap's counters and of "no fitting block" against the reference.
 */
#ifndef HEAP_MODEL_FIXTURE_H
#define HEAP_MODEL_FIXTURE_H

#include "common.h"
#include "heap_model_machine.h"

enum { REF_NONE = 0, REF_FREE, REF_ALLOC };

/*
 * A machine whose free chunks are larger than a caller may allocate
 * (issue 13): node 0's 4 GiB at 2 GiB hand over with an order-19 chunk
 * (MAX_ORDER is 18), node 1 has a reserved page in its middle, node 2 is
 * small. Allocations split them, frees must merge them back past
 * MAX_ORDER, and the idle scrubber must only ever detach MAX_ORDER.
 */
static const struct test_ram big_ram[] = {
	{2 * GiB, 6 * GiB, 0},
	{6 * GiB, 7 * GiB, 1},
	{7 * GiB, 7 * GiB + 64 * MiB, 2},
};

static const struct test_rsv big_rsv[] = {
	{6 * GiB + 512 * MiB, 6 * GiB + 512 * MiB + 4096, "one-page"},
};

#define BIG_TOP_PFN ((7 * GiB + 64 * MiB) >> 12)

struct machine {
	const struct test_ram *ram;
	unsigned int ram_count;
	const struct test_rsv *rsv;
	unsigned int rsv_count;
	uint64_t top_pfn;
	unsigned int bits_lo; /* HEAP_BITS limits tried: bits_lo + 0..2 */
	bool big;	      /* orders up to MAX_ORDER, not 11 */
};

static const struct machine small_machine = {
	ram, ARRAY_SIZE(ram), rsv, ARRAY_SIZE(rsv), TOP_PFN, 25, false,
};
static const struct machine big_machine = {
	big_ram,     ARRAY_SIZE(big_ram),
	big_rsv,     ARRAY_SIZE(big_rsv),
	BIG_TOP_PFN, 32,
	true,
};

static const struct machine *mach = &small_machine;
static uint8_t *ref;
static uint8_t *ram_node; /* node + 1, 0 = not RAM */
static bool *reserved;

struct live {
	struct page_info *pg;
	unsigned int order;
};

static uint64_t rng;

static inline uint64_t rnd(void)
{
	return test_xorshift64(&rng);
}

static inline void build_reference(void)
{
	unsigned int n, i;
	uint64_t p;

	free(ref);
	free(ram_node);
	free(reserved);
	ref = calloc(mach->top_pfn, 1);
	ram_node = calloc(mach->top_pfn, 1);
	reserved = calloc(mach->top_pfn, sizeof(*reserved));
	assert_true(ref && ram_node && reserved);
	for (i = 0; i < mach->ram_count; i++)
		for (p = mach->ram[i].start >> 12; p < mach->ram[i].end >> 12;
		     p++)
			ram_node[p] = (uint8_t)(mach->ram[i].node + 1);
	for (i = 0; i < mach->rsv_count; i++)
		for (p = mach->rsv[i].start >> 12;
		     p < (mach->rsv[i].end + 4095) >> 12; p++)
			reserved[p] = true;
	for (n = 0; n < heap_node_count(); n++) {
		struct heap_range_pos pos = {0};
		const struct region *r;

		while ((r = heap_node_range_next(n, &pos)))
			for (p = pfn_val(region_start_pfn(r));
			     p < pfn_val(region_end_pfn(r)); p++) {
				assert_int_equal(ram_node[p], n + 1);
				assert_false(reserved[p]);
				ref[p] = REF_FREE;
			}
	}
}

/* Is there a free aligned 2^k block inside one heap range of @node? */
static inline bool fit_exists(uint32_t node, unsigned int k, uint64_t limit_pfn)
{
	struct heap_range_pos pos = {0};
	const struct region *r;
	uint64_t size = 1ULL << k, p, q;

	while ((r = heap_node_range_next(node, &pos))) {
		uint64_t s = ALIGN_UP(pfn_val(region_start_pfn(r)), size);

		for (p = s; p + size <= pfn_val(region_end_pfn(r)); p += size) {
			if (p + size > limit_pfn || (p == 0 && k))
				continue;
			for (q = p; q < p + size && ref[q] == REF_FREE; q++)
				;
			if (q == p + size)
				return true;
		}
	}
	return false;
}

static inline uint64_t ref_free_on(uint32_t node)
{
	uint64_t p, n = 0;

	for (p = 0; p < mach->top_pfn; p++)
		n += ref[p] == REF_FREE && ram_node[p] == node + 1;
	return n;
}

static inline void check_counters(void)
{
	uint64_t total = 0;
	unsigned int n;

	for (n = 0; n < 3; n++) {
		uint64_t f = ref_free_on(n);

		assert_int_equal(test_node_stats(n)->free_pages, f);
		total += f;
	}
	assert_int_equal(heap_stats_all(0).free_pages, total);
	assert_int_equal(heap_stats_all(0).allocated_pages,
			 heap_stats_all(0).total_pages - total);
}

#endif
