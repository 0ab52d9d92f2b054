/* SPDX-License-Identifier: MIT */
/*
 * The handover's own memory (include/keel/handover.h): its one block, or
 * (version 7) its pieces, checked against the new image's RAM and
 * reserved ranges before any byte past piece 0 is read, and reserved as
 * "handover" once taken; and the lookups of RAM and reserved ranges the
 * reader's other checks share (boot/handover_priv.h). Pure but
 * ho_reserve_self(): reads the handover's head and @bi, writes @v and
 * @why. Boot CPU, before bootmem: no lock.
 */
#include <keel/bootinfo.h>
#include <keel/compiler.h>
#include <keel/errno.h>
#include <keel/handover.h>
#include <keel/printk.h>
#include <keel/string.h>

#include "boot_priv.h"
#include "handover_priv.h"

/* The first address of [s, e) no RAM range holds, or @e: RAM is sorted. */
uint64_t ho_first_not_ram(const struct bootinfo *bi, uint64_t s, uint64_t e)
{
	for (unsigned int i = 0; i < bi->ram.count && s < e; i++) {
		uint64_t rs = pa_val(bi->ram.regions[i].start);
		uint64_t re = pa_val(bi->ram.regions[i].end);

		if (re <= s)
			continue;
		if (rs > s)
			return s;
		s = re;
	}
	return s < e ? s : e;
}

/*
 * The first reserved range (static-mem aside) overlapping [s, e), or -1.
 * The reserved ranges are read in place, never reordered: bootmem loads
 * them in their order and the first to cover a byte names it (a module
 * inside xen,static-mem keeps its name), so the reader must not sort them.
 */
static int reserved_hit(const struct bootinfo *bi, uint64_t s, uint64_t e)
{
	for (unsigned int i = 0; i < bi->reserved.count; i++) {
		const struct region *r = &bi->reserved.regions[i];

		/* The name only of a range that overlaps: one look each. */
		if (pa_val(r->start) < e && s < pa_val(r->end) &&
		    strncmp(r->name, STATIC_MEM_NAME, sizeof(r->name)))
			return (int)i;
	}
	return -1;
}

/* What a reserved range is, for the error: the new image has a name. */
const char *ho_reserved_what(const struct region *r)
{
	return !strncmp(r->name, "kernel", sizeof(r->name))
		       ? "the new image"
		       : "firmware-reserved";
}

/* Block @what [s, e) of the handover: aligned, RAM, clear of reserved. */
static int check_block(const struct bootinfo *bi, const char *what, uint64_t s,
		       uint64_t e, char *why, size_t n)
{
	int r;

	if (!IS_ALIGNED(s, PAGE_SIZE) || e < s)
		return boot_refuse(why, n, "%s address %#llx not page aligned",
				   what, U64(s));
	if (ho_first_not_ram(bi, s, e) != e)
		return boot_refuse(why, n, "%s [%#llx, %#llx) lies outside RAM",
				   what, U64(s), U64(e));
	r = reserved_hit(bi, s, e);
	if (r >= 0)
		return boot_refuse(why, n,
				   "%s [%#llx, %#llx) overlaps %s [%#llx, "
				   "%#llx) (%.*s)",
				   what, U64(s), U64(e),
				   ho_reserved_what(&bi->reserved.regions[r]),
				   U64(pa_val(bi->reserved.regions[r].start)),
				   U64(pa_val(bi->reserved.regions[r].end)),
				   (int)sizeof(bi->reserved.regions[r].name),
				   bi->reserved.regions[r].name);
	return 0;
}

/* Piece @k's address (k < count: the table is in piece 0, checked). */
static uint64_t piece_pa(const struct handover_view *v, uint32_t k)
{
	uint64_t p;

	memcpy(&p, v->head + v->table_off + (size_t)k * sizeof(p), sizeof(p));
	return p;
}

/* Piece @k's bytes of offsets, rounded up to whole pages. */
static uint64_t piece_bytes(const struct handover_view *v, uint32_t k)
{
	uint64_t full = 1ULL << v->shift;

	if (k + 1 < v->count)
		return full;
	return ALIGN_UP(v->size - ((uint64_t)k << v->shift), PAGE_SIZE);
}

/* Each piece of @v (piece 0 at @pa): ascending, aligned, RAM, clear. */
static int check_table(const struct bootinfo *bi, const struct handover_view *v,
		       uint64_t pa, char *why, size_t wn)
{
	uint64_t prev = 0;
	char what[32];

	for (uint32_t k = 0; k < v->count; k++) {
		uint64_t s = piece_pa(v, k);
		int err;

		if (k ? s <= prev : s != pa)
			return boot_refuse(
				why, wn,
				"piece %u at %#llx (piece 0 where the "
				"handover was said to be, %#llx; the "
				"rest ascending)",
				k, U64(s), U64(pa));
		if (!IS_ALIGNED(s, 1ULL << v->shift))
			return boot_refuse(
				why, wn,
				"piece %u at %#llx not aligned to its "
				"2^%u bytes",
				k, U64(s), v->shift);
		snprintf(what, sizeof(what), "piece %u", k);
		err = check_block(bi, what, s, s + piece_bytes(v, k), why, wn);
		if (err)
			return err;
		prev = s;
	}
	return 0;
}

/*
 * Version 7's pieces (HANDOVER_REC_PIECES), before any byte past piece 0
 * is read: the record in piece 0, piece 0 where the arch said, every
 * piece aligned, ascending (so apart), in RAM, clear of reserved memory.
 * One block (piece_count 0, every older version): the size given holds
 * it, and it is checked as the one piece. O(pieces x RAM ranges).
 */
int ho_pieces_check(const struct bootinfo *bi, const struct handover_header *hd,
		    uint64_t len, uint64_t pa, struct handover_view *v,
		    char *why, size_t wn)
{
	struct handover_preserved p;
	uint32_t n = hd->piece_count, sh = hd->piece_shift;

	if (hd->version < 7 && (n || sh))
		return boot_refuse(
			why, wn,
			"piece_count %u, piece_shift %u in version %u "
			"(reserved: 0)",
			n, sh, hd->version);
	if (!n) {
		if (sh)
			return boot_refuse(why, wn,
					   "piece_shift %u with no pieces", sh);
		if (v->size > len)
			return boot_refuse(
				why, wn,
				"truncated: size %llu, %llu bytes given",
				U64(v->size), U64(len));
		return check_block(bi, "itself", pa,
				   ALIGN_UP(pa + v->size, PAGE_SIZE), why, wn);
	}
	if (n < 2 || sh < PAGE_SHIFT || sh > HANDOVER_PIECE_SHIFT_MAX ||
	    v->size <= (uint64_t)(n - 1) << sh || v->size > (uint64_t)n << sh)
		return boot_refuse(
			why, wn,
			"piece_count %u of 2^%u bytes for size %llu (2 "
			"or more, 2^%u to 2^%u bytes, the last not "
			"empty)",
			n, sh, U64(v->size), PAGE_SHIFT,
			HANDOVER_PIECE_SHIFT_MAX);
	if (len < 1ULL << sh)
		return boot_refuse(
			why, wn, "truncated: piece 0 of %llu bytes, %llu given",
			U64(1ULL << sh), U64(len));
	memcpy(&p, v->head + HANDOVER_HEADER_BYTES, sizeof(p));
	if (p.head.type != HANDOVER_REC_PIECES || p.count != n || p.pad ||
	    p.head.bytes != sizeof(p) + (uint64_t)n * sizeof(uint64_t) ||
	    HANDOVER_HEADER_BYTES + (uint64_t)p.head.bytes > 1ULL << sh)
		return boot_refuse(
			why, wn,
			"record 0: type %#x count %u bytes %u is not "
			"the pieces record of %u pieces in piece 0",
			p.head.type, p.count, p.head.bytes, n);
	v->table_off = HANDOVER_HEADER_BYTES + sizeof(p);
	v->shift = sh;
	v->count = n;
	return check_table(bi, v, pa, why, wn);
}

/* Does [s, e) overlap a block of the handover? (Pieces ascending.) */
bool ho_on_handover(const struct handover_view *v, uint64_t pa, uint64_t s,
		    uint64_t e)
{
	uint32_t lo = 0, hi = v->count;

	if (v->count <= 1)
		return s < ALIGN_UP(pa + v->size, PAGE_SIZE) && pa < e;
	while (lo < hi) { /* the first piece ending above s */
		uint32_t mid = lo + (hi - lo) / 2;

		if (piece_pa(v, mid) + piece_bytes(v, mid) <= s)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < v->count && piece_pa(v, lo) < e;
}

/* The handover's own pages, "handover": its one block, or each piece. */
void ho_reserve_self(struct bootinfo *bi)
{
	const struct bi_handover *h = &bi->handover;
	const struct handover_view *v = &h->view;

	if (v->count <= 1) {
		bootinfo_add_reserved(
			bi, h->pa,
			pa(ALIGN_UP(pa_val(h->pa) + h->hdr.size, PAGE_SIZE)),
			"handover");
		return;
	}
	for (uint32_t k = 0; k < v->count; k++) {
		uint64_t s, n = 1ULL << v->shift;

		memcpy(&s, v->head + v->table_off + (size_t)k * sizeof(s),
		       sizeof(s));
		if (k + 1 == v->count)
			n = ALIGN_UP(h->hdr.size - ((uint64_t)k << v->shift),
				     PAGE_SIZE);
		bootinfo_add_reserved(bi, pa(s), pa(s + n), "handover");
	}
}
