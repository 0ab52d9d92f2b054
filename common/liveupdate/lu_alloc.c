/* SPDX-License-Identifier: MIT */
/*
 * A live update's memory from the heap (lu_priv.h): the handover and the
 * stub's scratch, each one block of 2^order pages below the arch's bound,
 * and, when they do not fit, how large a block there was. A handover no
 * one block holds goes into pieces (version 7, include/keel/handover.h):
 * blocks of the largest order left (smaller ones when those are too
 * few), their addresses ascending in a table in the lowest (piece 0),
 * which is also how lu_free_pieces() finds them. lu_ho_take() chooses
 * between the two for lu_prepare(), lu_ho_free() gives either back. Boot
 * CPU, before the freeze (the heap's locks, heap_alloc()'s).
 */
#include <arch/mm.h>
#include <keel/compiler.h>
#include <keel/errno.h>
#include <keel/frametable.h>
#include <keel/handover.h>
#include <keel/bootinfo.h>
#include <keel/bootmem.h>
#include <keel/heap.h>
#include <keel/inject.h>
#include <keel/liveupdate.h>
#include <keel/string.h>

#include "lu_priv.h"

/* The order of the block lu_alloc() takes for @bytes. */
unsigned int lu_order(uint64_t bytes)
{
	uint64_t pages = ALIGN_UP(bytes, PAGE_SIZE) >> PAGE_SHIFT;
	unsigned int order = 0;

	while ((1ULL << order) < pages)
		order++;
	return order;
}

/* 2^order pages for @bytes, below 2^@max_bits. Return: pa or INVALID. */
paddr_t lu_alloc(uint64_t bytes, unsigned int max_bits)
{
	unsigned int order = lu_order(bytes);
	struct page_info *pg;

	if (order > MAX_ORDER)
		return INVALID_PADDR;
	pg = heap_alloc(order, HEAP_ANY_NODE, max_bits, 0, NULL);
	return pg ? pfn_to_paddr(page_to_pfn(pg)) : INVALID_PADDR;
}

/*
 * The largest block lu_alloc() could have had below 2^@max_bits, in
 * bytes (0: none), for the refusal: on a machine whose free memory is in
 * small pieces (a badram= pattern leaves 124 KiB between bad pages) the
 * handover, one block, may not fit. Taken and given back, order by order.
 */
uint64_t lu_largest(unsigned int max_bits)
{
	for (int order = MAX_ORDER; order >= 0; order--) {
		struct page_info *pg = heap_alloc(
			(unsigned int)order, HEAP_ANY_NODE, max_bits, 0, NULL);

		if (pg) {
			heap_free(pg, (unsigned int)order, HEAP_FREE_DIRTY);
			return (uint64_t)PAGE_SIZE << order;
		}
	}
	return 0;
}

/* Where piece 0 keeps the pieces' addresses (ho_writer_pieces()'s table). */
#define LU_PIECES_TABLE \
	(HANDOVER_HEADER_BYTES + sizeof(struct handover_preserved))

/* How many pieces of 2^@shift bytes hold @bytes and their own record. */
static uint32_t pieces_for(uint64_t bytes, unsigned int shift)
{
	uint64_t piece = 1ULL << shift;
	uint64_t n = (bytes + sizeof(struct handover_preserved) + piece - 9) /
		     (piece - 8); /* n pieces: n * piece >= bytes + 16 + 8 n */

	n = MAX(n, 2);
	return n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
}

static void free_block(uint64_t p, unsigned int order)
{
	heap_free(pfn_to_page(paddr_to_pfn(pa(p))), order, HEAP_FREE_DIRTY);
}

/*
 * The table of @count pieces of 2^@shift bytes, kept while they are
 * taken at the end of the first (@t, which the fit leaves clear of the
 * table's place in any piece): sorted, copied to its place in the lowest,
 * piece 0, and every other byte of every piece zeroed (each page written
 * once now, not first in the freeze).
 */
static paddr_t pieces_settle(uint64_t *t, uint64_t first, unsigned int shift,
			     uint32_t count)
{
	uint64_t piece = 1ULL << shift, bytes = (uint64_t)count * sizeof(*t);
	uint64_t head;
	uint8_t *h;

	sort(t, count, sizeof(*t), cmp_u64);
	head = t[0];
	h = phys_to_virt(pa(head));
	for (uint32_t k = 0; k < count; k++)
		if (t[k] != first)
			memset(phys_to_virt(pa(t[k])), 0, piece);
	memmove(h + LU_PIECES_TABLE, t, bytes);
	if (head != first)
		memset(phys_to_virt(pa(first)), 0, piece);
	else
		memset(h + LU_PIECES_TABLE + bytes, 0,
		       piece - LU_PIECES_TABLE - bytes);
	memset(h, 0, LU_PIECES_TABLE);
	return pa(head);
}

/*
 * lu_alloc_pieces() at the largest order below @below there is (the
 * first block found is kept: no take and give back per order). None:
 * -ENOMEM, @p as it was.
 */
static int pieces_below(uint64_t bytes, uint64_t min_piece,
			unsigned int max_bits, unsigned int below,
			struct lu_pieces *p)
{
	int order = (int)MIN(MIN(below, (unsigned int)MAX_ORDER + 1),
			     HANDOVER_PIECE_SHIFT_MAX - PAGE_SHIFT + 1);
	struct page_info *pg = NULL;
	uint64_t first, piece, *t;

	while (!pg && --order >= 0)
		pg = heap_alloc((unsigned int)order, HEAP_ANY_NODE, max_bits, 0,
				NULL);
	if (!pg)
		return -ENOMEM;
	p->taken = 0;
	p->shift = (unsigned int)order + PAGE_SHIFT;
	p->largest = p->largest ? p->largest : p->shift;
	p->count = pieces_for(bytes, p->shift);
	piece = 1ULL << p->shift;
	first = pa_val(pfn_to_paddr(page_to_pfn(pg)));
	if (piece < min_piece ||
	    LU_PIECES_TABLE + (uint64_t)p->count * sizeof(*t) > piece) {
		free_block(first, (unsigned int)order);
		return -E2BIG; /* its table, or a vCPU record, not in one */
	}
	t = (uint64_t *)((uint8_t *)phys_to_virt(pa(first)) + piece -
			 (uint64_t)p->count * sizeof(*t));
	t[0] = first;
	for (p->taken = 1; p->taken < p->count; p->taken++) {
		pg = heap_alloc((unsigned int)order, HEAP_ANY_NODE, max_bits, 0,
				NULL);
		if (!pg)
			break;
		t[p->taken] = pa_val(pfn_to_paddr(page_to_pfn(pg)));
	}
	if (p->taken < p->count) {
		for (uint32_t k = p->taken; k-- > 1;)
			free_block(t[k], (unsigned int)order);
		free_block(first, (unsigned int)order); /* the table's last */
		return -ENOMEM;
	}
	p->head = pieces_settle(t, first, p->shift, p->count);
	return 0;
}

int lu_alloc_pieces(uint64_t bytes, uint64_t min_piece, unsigned int max_bits,
		    unsigned int below, struct lu_pieces *p)
{
	memset(p, 0, sizeof(*p));
	p->head = INVALID_PADDR;
	/*
	 * Too few blocks of the largest order (one 256 KiB block among
	 * 64 KiB ones): smaller pieces, more of them, until the table or a
	 * vCPU record no longer fits one, or no smaller block is left.
	 */
	for (;;) {
		unsigned int was = p->shift;
		int err = pieces_below(bytes, min_piece, max_bits, below, p);

		if (err != -ENOMEM || p->shift == was || p->shift == PAGE_SHIFT)
			return err;
		below = p->shift - PAGE_SHIFT;
	}
}

void lu_free_pieces(paddr_t head, unsigned int shift, uint32_t count)
{
	const uint8_t *h = phys_to_virt(head);
	unsigned int order = shift - PAGE_SHIFT;

	for (uint32_t k = 1; k < count; k++) {
		uint64_t p;

		memcpy(&p, h + LU_PIECES_TABLE + k * sizeof(p), sizeof(p));
		free_block(p, order);
	}
	free_block(pa_val(head), order); /* the table's last */
}

const uint64_t *lu_pieces_table(paddr_t head)
{
	return (const uint64_t *)(const void *)((const uint8_t *)phys_to_virt(
							head) +
						LU_PIECES_TABLE);
}

struct handover_view lu_ho_view(const struct lu_ho *ho)
{
	const uint8_t *h = phys_to_virt(ho->head);

	return (struct handover_view){
		.head = h,
		.size = ho->cap,
		.delta = (uintptr_t)h - (uintptr_t)pa_val(ho->head),
		.table_off = LU_PIECES_TABLE,
		.shift = ho->shift,
		.count = ho->count,
	};
}

uint64_t lu_ho_passed(const struct lu_ho *ho, uint64_t size)
{
	return ho->count ? 1ULL << ho->shift : size;
}

int lu_ho_take(uint64_t bytes, const struct ho_writer *w, unsigned int max_bits,
	       struct lu_ho *ho, char *why, size_t n)
{
	unsigned int bits = max_bits ? max_bits : 64;
	bool forced = inject_has(INJECT_HO_PIECES, 0);
	struct lu_pieces pc;
	size_t k;
	int err;

	memset(ho, 0, sizeof(*ho));
	ho->cap = bytes;
	/* inject=handover-pieces: the smallest pieces, one block or not. */
	ho->head = forced ? INVALID_PADDR : lu_alloc(bytes, max_bits);
	if (pa_val(ho->head) != pa_val(INVALID_PADDR))
		return 0;
	/* A pad before each vCPU record at most; a piece holds the largest. */
	err = lu_alloc_pieces(bytes + w->vcpu_bytes, w->vcpu_max, max_bits,
			      forced ? 1 : lu_order(bytes), &pc);
	if (!err) {
		ho->head = pc.head;
		ho->shift = pc.shift;
		ho->count = pc.count;
		ho->cap = (uint64_t)pc.count << pc.shift;
		return 0;
	}
	k = (size_t)snprintf(why, n,
			     "no memory below 2^%u for the handover (%llu "
			     "bytes): ",
			     bits, (unsigned long long)bytes);
	why += MIN(k, n);
	n -= MIN(k, n);
	if (!pc.largest)
		snprintf(why, n, "not one free block");
	else if (err == -E2BIG)
		snprintf(why, n,
			 "the largest free block is %llu KiB; pieces of %llu "
			 "KiB are too small for the table of their %u or a "
			 "vCPU record of %u bytes",
			 (unsigned long long)(1ULL << pc.largest >> 10),
			 (unsigned long long)(1ULL << pc.shift >> 10), pc.count,
			 w->vcpu_max);
	else
		snprintf(why, n,
			 "the largest free block is %llu KiB; in pieces of "
			 "%llu KiB, %u of the %u needed were free",
			 (unsigned long long)(1ULL << pc.largest >> 10),
			 (unsigned long long)(1ULL << pc.shift >> 10), pc.taken,
			 pc.count);
	return -ENOMEM;
}

void lu_ho_free(const struct lu_ho *ho)
{
	if (pa_val(ho->head) == pa_val(INVALID_PADDR))
		return;
	if (ho->count)
		lu_free_pieces(ho->head, ho->shift, ho->count);
	else if (ho->cap)
		heap_free(pfn_to_page(paddr_to_pfn(ho->head)),
			  lu_order(ho->cap), HEAP_FREE_DIRTY);
}

/*
 * The old image's reservations the next image's list has again: all but
 * its own handover and the preserved memory of its domains (the next
 * image has the new handover's instead).
 */
static uint64_t kept_reserved(const struct bootinfo *bi)
{
	uint64_t n = 0;

	for (unsigned int i = 0; i < bi->reserved.count; i++)
		n += strcmp(bi->reserved.regions[i].name, "preserved") &&
		     strcmp(bi->reserved.regions[i].name, "handover");
	return n;
}

/*
 * Can the next image's bootmem hold the reserved regions of a handover
 * of @ho_bytes with @ranges table ranges and extents and @carried bad
 * ranges, each a region of its own, in one piece of boot memory? It
 * sizes its reserved table for its whole list before anything else
 * (bootmem_presize_need(), BOOTMEM_PRESIZE_TIGHT_SLACK at the least). On
 * a machine with a badram= pattern (a lattice) no piece is wider than
 * the pattern's gap: past it, bootmem merges preserved neighbours with
 * whatever lies between them, and a domain whose memory is named
 * "merged" is not restored after the jump. Checked before the freeze,
 * the guests running. (The heap's range tables come in pieces of their
 * own: common/mm/heap_ranges.c.) Return: 0, or -E2BIG with @why.
 */
int lu_tables_fit(const struct bootinfo *bi, uint64_t ranges, uint64_t carried,
		  uint64_t ho_bytes, char *why, size_t n)
{
	uint64_t gap = bootmem_lattice_gap_bytes();
	/*
	 * Each region a piece in RAM, one more where RAM ranges meet; the
	 * new handover's pieces a page each at most.
	 */
	uint64_t listed = ranges + kept_reserved(bi) + bi->ram.count +
			  ((ho_bytes + PAGE_SIZE - 1) >> PAGE_SHIFT);
	uint64_t need = bootmem_presize_need(listed, carried, bi->ram.count) +
			BOOTMEM_PRESIZE_TIGHT_SLACK;

	need = ALIGN_UP(need * sizeof(struct region), PAGE_SIZE);
	if (need <= gap)
		return 0;
	snprintf(why, n,
		 "the next image's reserved table: %llu ranges of the domains "
		 "and %llu more need %llu KiB in one piece, badram= leaves "
		 "%llu KiB at most",
		 (unsigned long long)ranges,
		 (unsigned long long)(listed - ranges + carried),
		 (unsigned long long)(need >> 10),
		 (unsigned long long)(gap >> 10));
	return -E2BIG;
}
