/* SPDX-License-Identifier: MIT */
/*
 * A page model of bootmem for its tests (bootmem_carried_test.c,
 * bootmem_lattice_test.c): @ram, the machine's RAM ranges, and @free(p),
 * whether page p is free to an allocation in the test's model. What a
 * top-down allocation must return, and the longest free run, found page
 * by page, to hold bootmem's own answers against.
 */
#ifndef TESTS_UNIT_BOOTMEM_MODEL_H
#define TESTS_UNIT_BOOTMEM_MODEL_H

#include "common.h"

struct bootmem_model {
	const struct test_ram *ram;
	unsigned int ram_count;
	uint64_t pages; /* pages modelled, from 0 */
	bool (*free)(uint64_t p);
};

static inline uint32_t model_rnd(uint32_t *x)
{
	*x = *x * 1103515245u + 12345u;
	return *x >> 8;
}

/* The node of page @p, -1 when no RAM range holds it. */
static inline int model_node(const struct bootmem_model *m, uint64_t p)
{
	for (unsigned int i = 0; i < m->ram_count; i++)
		if (p >= m->ram[i].start / 4096 && p < m->ram[i].end / 4096)
			return (int)m->ram[i].node;
	return -1;
}

/*
 * The longest run of free pages on @node (-1: any), split where RAM
 * ranges start.
 */
static inline uint64_t model_longest(const struct bootmem_model *m, int node)
{
	uint64_t best = 0, run = 0;

	for (uint64_t p = 0; p < m->pages; p++) {
		bool edge = false;

		for (unsigned int i = 0; i < m->ram_count; i++)
			edge |= p == m->ram[i].start / 4096;
		run = edge ? 0 : run;
		run = m->free(p) && (node < 0 || model_node(m, p) == node)
			      ? run + 1
			      : 0;
		best = MAX(best, run);
	}
	return best;
}

/* The highest place for @size pages aligned to @align on @node, or ~0. */
static inline uint64_t model_fit(const struct bootmem_model *m, uint32_t node,
				 uint64_t size, uint64_t align)
{
	for (unsigned int i = m->ram_count; i--;) {
		uint64_t rs = m->ram[i].start / 4096, re = m->ram[i].end / 4096;

		if (m->ram[i].node != node || re - rs < size)
			continue;
		for (uint64_t a = (re - size) / align * align; a >= rs;
		     a -= align) {
			uint64_t q = a;

			while (q < a + size && m->free(q))
				q++;
			if (q == a + size)
				return a;
			if (a < align)
				break;
		}
	}
	return ~0ULL;
}

#endif
