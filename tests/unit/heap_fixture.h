/* SPDX-License-Identifier: MIT */
/*
 * A machine for the bootmem / frame table / heap / cachemaint tests, set up
 * the way common/boot.c does it but without SMP: RAM arena, bootinfo (RAM
 * ranges with nodes, reserved ranges, distances), sanitise, NUMA, bootmem,
 * frame table, heap, cache maintenance, handoff.
 *
 * Also: a snapshot of every free chunk (sorted) so that tests can compare
 * heaps built in different ways, and panic catching with a message check.
 */
#ifndef HEAP_FIXTURE_H
#define HEAP_FIXTURE_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <arch/mm.h>
#include <asm/sandbox.h>
#include <keel/bootinfo.h>
#include <keel/bootmem.h>
#include <keel/cachemaint.h>
#include <keel/errno.h>
#include <keel/frametable.h>
#include <keel/heap.h>
#include <keel/numa.h>
#include <keel/printk.h>

#define MiB (1ULL << 20)
#define GiB (1ULL << 30)

struct hf_ram {
	uint64_t start, end; /* bytes */
	uint32_t node;
};

struct hf_rsv {
	uint64_t start, end; /* bytes */
	const char *name;
};

struct hf_cfg {
	const struct hf_ram *ram;
	unsigned int ram_count;
	const struct hf_rsv *rsv;
	unsigned int rsv_count;
	enum heap_init_mode mode;
	bool dirty;	    /* hand memory over dirty */
	bool no_handoff;    /* stop before bootmem_handoff() */
	bool bootmem_only;  /* no frame table, no heap, no handoff */
	uint64_t mem_limit; /* bootmem_limit() when non-zero */
	/* distance[a][b] when non-zero (else 10/20) */
	uint8_t distance[MAX_NUMNODES][MAX_NUMNODES];
	enum cachemaint_mode cachemaint;
};

static struct bootinfo hf_bi __attribute__((unused));

/* ---- panics ---------------------------------------------------------- */

static jmp_buf hf_jmp __attribute__((unused));
static char hf_panic_msg[512] __attribute__((unused));

static inline void hf_panic_hook(const char *msg)
{
	snprintf(hf_panic_msg, sizeof(hf_panic_msg), "%s", msg);
	longjmp(hf_jmp, 1);
}

/* Run @stmt; require a panic whose message contains @substr. */
#define HF_EXPECT_PANIC(stmt, substr)                                       \
	do {                                                                \
		hf_panic_msg[0] = '\0';                                     \
		hf_quiet(true);                                             \
		sandbox_set_panic_hook(hf_panic_hook);                      \
		if (setjmp(hf_jmp) == 0) {                                  \
			stmt;                                               \
			sandbox_set_panic_hook(NULL);                       \
			hf_quiet(false);                                    \
			fail_msg("no panic from: %s", #stmt);               \
		}                                                           \
		sandbox_set_panic_hook(NULL);                               \
		hf_quiet(false);                                            \
		if (!strstr(hf_panic_msg, (substr)))                        \
			fail_msg("panic \"%s\" lacks \"%s\"", hf_panic_msg, \
				 (substr));                                 \
	} while (0)

static inline void hf_quiet(bool on)
{
	if (on) {
		sandbox_console_clear();
		sandbox_console_capture(true, true);
	} else {
		sandbox_console_capture(false, false);
	}
}

/* ---- machine --------------------------------------------------------- */

static inline void hf_setup(const struct hf_cfg *c)
{
	struct bootinfo *bi = &hf_bi;
	uint64_t top = 0;
	unsigned int i, a, b;

	hf_quiet(true);
	for (i = 0; i < c->ram_count; i++)
		if (c->ram[i].end > top)
			top = c->ram[i].end;
	assert_int_equal(sandbox_ram_init(top), 0);

	bootinfo_init(bi, BOOT_SANDBOX);
	bi->paddr_bits = 48;
	for (i = 0; i < c->ram_count; i++)
		bootinfo_add_ram(bi, pa(c->ram[i].start), pa(c->ram[i].end),
				 c->ram[i].node);
	for (i = 0; i < c->rsv_count; i++)
		bootinfo_add_reserved(bi, pa(c->rsv[i].start),
				      pa(c->rsv[i].end), c->rsv[i].name);
	bootinfo_add_cpu(bi, 0, 0, 0, 0, 0, true);
	bi->cpus[0].boot_cpu = true;
	for (a = 0; a < MAX_NUMNODES; a++)
		for (b = 0; b < MAX_NUMNODES; b++)
			if (c->distance[a][b])
				bootinfo_set_distance(bi, a, b,
						      c->distance[a][b]);
	bootinfo_sanitise(bi);

	numa_init(bi);
	bootmem_init();
	bootmem_init_from_bootinfo(bi);
	if (c->mem_limit)
		bootmem_limit(c->mem_limit, 0);
	if (c->bootmem_only) {
		hf_quiet(false);
		return;
	}
	frametable_init(bi->node_count);
	heap_init(c->mode, bi->node_count,
		  (const uint8_t(*)[MAX_NUMNODES])bi->distance);
	cachemaint_init(c->cachemaint);
	bootmem_set_handoff_dirty(c->dirty);
	if (!c->no_handoff)
		bootmem_handoff();
	hf_quiet(false);
}

/* ---- free chunk snapshots -------------------------------------------- */

struct hf_chunk {
	uint64_t pfn;
	uint32_t first_dirty;
	uint8_t order, node, flags;
};

struct hf_snap {
	struct hf_chunk *c;
	size_t n, cap;
};

static inline void hf_snap_cb(struct page_info *head, unsigned int order,
			      unsigned int zone, void *arg)
{
	struct hf_snap *s = arg;

	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 256;
		s->c = realloc(s->c, s->cap * sizeof(*s->c));
		assert_non_null(s->c);
	}
	s->c[s->n].pfn = head->pfn;
	s->c[s->n].order = (uint8_t)order;
	s->c[s->n].node = head->node;
	s->c[s->n].first_dirty = head->first_dirty;
	s->c[s->n].flags = head->flags;
	s->n++;
}

static inline int hf_chunk_cmp(const void *a, const void *b)
{
	const struct hf_chunk *x = a, *y = b;

	return x->pfn < y->pfn ? -1 : x->pfn > y->pfn;
}

/* Every free chunk of every node, sorted by pfn. free() s.c when done. */
static inline struct hf_snap hf_snapshot(void)
{
	struct hf_snap s = {0};
	unsigned int n;

	for (n = 0; n < heap_node_count(); n++)
		heap_for_each_free(n, hf_snap_cb, &s);
	if (s.n)
		qsort(s.c, s.n, sizeof(*s.c), hf_chunk_cmp);
	return s;
}

static inline void hf_snap_equal(const struct hf_snap *a,
				 const struct hf_snap *b)
{
	size_t i;

	assert_int_equal(a->n, b->n);
	for (i = 0; i < a->n; i++) {
		if (memcmp(&a->c[i], &b->c[i], sizeof(a->c[i])) &&
		    (a->c[i].pfn != b->c[i].pfn ||
		     a->c[i].order != b->c[i].order ||
		     a->c[i].node != b->c[i].node ||
		     a->c[i].first_dirty != b->c[i].first_dirty ||
		     a->c[i].flags != b->c[i].flags))
			fail_msg("chunk %zu: pfn %#llx/o%u/n%u/fd%u vs pfn "
				 "%#llx/o%u/n%u/fd%u",
				 i, (unsigned long long)a->c[i].pfn,
				 a->c[i].order, a->c[i].node,
				 a->c[i].first_dirty,
				 (unsigned long long)b->c[i].pfn, b->c[i].order,
				 b->c[i].node, b->c[i].first_dirty);
	}
}

/* A run of heap_check() that must find nothing (output captured). */
static inline void hf_check_clean(void)
{
	unsigned int bad;

	hf_quiet(true);
	bad = heap_check();
	hf_quiet(false);
	if (bad)
		fail_msg("heap_check: %u problems:\n%s", bad,
			 sandbox_console_buffer());
}

#endif
