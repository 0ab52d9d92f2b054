// SPDX-License-Identifier: MIT
/*
 * The bad-page records of a handover (version 4 on, include/keel/handover.h;
 * version 6 on also packed, 8 bytes a range, HANDOVER_REC_BAD_PACKED):
 * each checked as firmware input as the reader meets it
 * (handover_bad_parse(), from boot/handover.c walk_records()), all of
 * them apart once read (handover_bad_apart()), then reserved by the new
 * image (handover_bad_reserve(), from handover_apply()): left where they
 * are, bootmem reads them in place (struct bootinfo's @carried), each
 * range under the name of the source it carries ("bad handover mce", ...:
 * the report counts the page under its first source). The checks are pure: they
 * read the record and the RAM table and write only @h's bad fields,
 * O(B + R) a record for B ranges and R RAM ranges, both sorted: one
 * merge-like walk; apart: O(B x records), records at most 8.
 */
#include <keel/badmem.h>
#include <keel/bootinfo.h>
#include <keel/errno.h>
#include <keel/handover.h>
#include <keel/printk.h>
#include <keel/range_table.h>

#include "handover_bad.h"

_Static_assert(HANDOVER_BAD_FIRMWARE == BADMEM_FIRMWARE &&
		       HANDOVER_BAD_OPTION == BADMEM_OPTION &&
		       HANDOVER_BAD_MCE == BADMEM_MCE &&
		       HANDOVER_BAD_INJECTION == BADMEM_INJECTION &&
		       HANDOVER_BAD_UNKNOWN == BADMEM_HANDOVER,
	       "a handover's bad-page source is the report's by_source class");

/*
 * Is [s, e) inside RAM? @i: the RAM range to start from, moved on (the
 * bad ranges come sorted). Return: the first address not RAM, or @e.
 */
static uint64_t ram_up_to(const struct range_table *ram, unsigned int *i,
			  uint64_t s, uint64_t e)
{
	for (; *i < ram->count && s < e; (*i)++) {
		uint64_t rs = pa_val(ram->regions[*i].start);
		uint64_t re = pa_val(ram->regions[*i].end);

		if (re <= s)
			continue;
		if (rs > s)
			return s;
		s = re;
		if (s >= e)
			break; /* this RAM range may hold the next bad range */
	}
	return s < e ? s : e;
}

/* Where a walk of one record's ranges stands (ranges_walk()). */
struct ranges_walk {
	const struct range_table *ram;
	uint64_t prev_end, in_s, in_e, pages, hole;
	unsigned int at; /* the RAM range the last range ended in */
	unsigned int i;	 /* the ranges walked and taken */
};

enum { RANGE_OK, RANGE_EMPTY, RANGE_ORDER, RANGE_OUTSIDE };

/*
 * Ranges [@w->i, @w->i + @n) of the record's array, the first at @at
 * (8-byte entries when @packed, else 16): aligned, sorted and apart, in
 * RAM; their pages added to @w->pages. One pass in locals (a live
 * update's 100,000 ranges): a range inside the RAM range the last one
 * ended in is checked by two compares, ram_up_to() only when it is not.
 * Inlined for each entry size (ranges_walk()): a packed entry is a load,
 * a mask and two shifts, never empty nor unaligned. Return: RANGE_OK, or why range @w->i is
 * refused (RANGE_OUTSIDE: @w->hole is the first address not RAM).
 */
static inline __attribute__((always_inline)) int
ranges_walk_as(struct ranges_walk *w, const uint8_t *at, unsigned int n,
	       bool packed)
{
	uint64_t prev_end = w->prev_end, in_s = w->in_s, in_e = w->in_e;
	unsigned int i, end = w->i + n;
	uint64_t sum = 0;
	int why = RANGE_OK;

	for (i = w->i; i < end; i++) {
		struct handover_range r;
		uint64_t v;

		if (packed) {
			memcpy(&v, at + (size_t)(i - w->i) * sizeof(v),
			       sizeof(v));
			r = handover_unpack(v);
		} else {
			memcpy(&r, at + (size_t)(i - w->i) * sizeof(r),
			       sizeof(r));
			if ((r.start | r.end) & (PAGE_SIZE - 1) ||
			    r.start >= r.end) {
				why = RANGE_EMPTY;
				break;
			}
		}
		if (i && r.start <= prev_end) {
			why = RANGE_ORDER;
			break;
		}
		if (r.start < in_s || r.end > in_e) {
			w->hole = ram_up_to(w->ram, &w->at, r.start, r.end);
			if (w->hole != r.end) {
				why = RANGE_OUTSIDE;
				break;
			}
			/* RAM range @at holds its end: the next ones too? */
			if (w->at < w->ram->count) {
				in_s = pa_val(w->ram->regions[w->at].start);
				in_e = pa_val(w->ram->regions[w->at].end);
			}
		}
		prev_end = r.end;
		sum += (r.end - r.start) / PAGE_SIZE;
	}
	w->prev_end = prev_end;
	w->in_s = in_s;
	w->in_e = in_e;
	w->pages += sum;
	w->i = i;
	return why;
}

/*
 * Packed ranges [@w->i, @w->i + @n), the first at @at, taken at once
 * when all pass: sorted and apart by a loop with no branch a range (a
 * live update's 100,000 ranges in the sandbox: 97 us, where
 * ranges_walk_as() took 161), inside RAM because the span from the
 * first start to the last end is (sorted: every range lies in it).
 * Return: true, @w moved on past them; false, @w unchanged, when any is
 * refused or the span is not all RAM (a hole between two ranges
 * is no fault of theirs): ranges_walk_as() then walks them one by one
 * and names the range.
 */
static bool packed_at_once(struct ranges_walk *w, const uint8_t *at,
			   unsigned int n)
{
	const unsigned int shift = HANDOVER_PACKED_PAGE_SHIFT;
	unsigned int i = w->i, end = w->i + n, ram_at = w->at;
	uint64_t v, first, prev, sum, late = 0;

	if (!n || PAGE_SIZE != 1ULL << shift)
		return false;
	memcpy(&v, at, sizeof(v));
	first = v & HANDOVER_PACKED_PFN_MASK;
	/* In pages: the last end before (none before range 0), then each. */
	if (i)
		late = first <= w->prev_end >> shift;
	sum = (v >> HANDOVER_PACKED_PFN_BITS) + 1;
	prev = first + sum;
	for (i++; i < end; i++) {
		uint64_t s, len;

		memcpy(&v, at + (size_t)(i - w->i) * sizeof(v), sizeof(v));
		s = v & HANDOVER_PACKED_PFN_MASK;
		len = (v >> HANDOVER_PACKED_PFN_BITS) + 1;
		late |= s <= prev;
		prev = s + len;
		sum += len;
	}
	if (late)
		return false;
	if ((first << shift) < w->in_s || (prev << shift) > w->in_e) {
		if (ram_up_to(w->ram, &ram_at, first << shift, prev << shift) !=
		    prev << shift)
			return false;
		w->at = ram_at;
		if (w->at < w->ram->count) {
			w->in_s = pa_val(w->ram->regions[w->at].start);
			w->in_e = pa_val(w->ram->regions[w->at].end);
		}
	}
	w->prev_end = prev << shift;
	w->pages += sum;
	w->i = end;
	return true;
}

static int ranges_walk(struct ranges_walk *w, const uint8_t *at, unsigned int n,
		       bool packed)
{
	if (packed && packed_at_once(w, at, n))
		return RANGE_OK;
	return packed ? ranges_walk_as(w, at, n, true)
		      : ranges_walk_as(w, at, n, false);
}

/*
 * Record @rec (@b)'s ranges (ranges_walk()); their pages (of those before
 * the first refused) added to *@pages. Return: 0, or -EINVAL with @why.
 */
static int check_ranges(const struct bi_handover_bad *b, unsigned int rec,
			const struct range_table *ram, uint64_t *pages,
			char *why, size_t n)
{
	struct ranges_walk w = {.ram = ram, .in_s = 1};
	const size_t entry =
		b->packed ? sizeof(uint64_t) : sizeof(struct handover_range);
	struct handover_range x;
	unsigned int i;
	int r = RANGE_OK;

	/* A piece's run at a time; an entry across two pieces copied. */
	while (r == RANGE_OK && w.i < b->count) {
		uint64_t off = b->ranges + (uint64_t)w.i * entry, run = 0;
		const uint8_t *at =
			b->count ? handover_view_at(&b->view, off, &run) : NULL;
		unsigned int m = (unsigned int)MIN(run / entry,
						   (uint64_t)b->count - w.i);
		uint8_t one[sizeof(struct handover_range)];

		if (!m) {
			handover_view_read(&b->view, off, one, entry);
			at = one;
			m = 1;
		}
		r = ranges_walk(&w, at, m, b->packed);
	}
	i = w.i;

	*pages += w.pages;
	if (r == RANGE_OK)
		return 0;
	x = handover_bad_range(b, i);
	if (r == RANGE_EMPTY)
		snprintf(why, n,
			 "bad[%u][%u] [%#llx, %#llx) empty or not page aligned",
			 rec, i, U64(x.start), U64(x.end));
	else if (r == RANGE_ORDER)
		snprintf(why, n,
			 "bad[%u][%u] [%#llx, %#llx) touches or precedes "
			 "bad[%u][%u] (sorted ranges, apart)",
			 rec, i, U64(x.start), U64(x.end), rec, i - 1);
	else
		snprintf(why, n,
			 "bad[%u][%u] [%#llx, %#llx) lies outside RAM at %#llx",
			 rec, i, U64(x.start), U64(x.end), U64(w.hole));
	return -EINVAL;
}

/*
 * Bytes a CRC step and a check step take at a time in
 * handover_checksum_checked(): 16 KiB (1024 ranges, 2048 packed), read
 * once from memory, then again from the first-level cache.
 */
#define CHECK_CHUNK_BYTES 16384u

/*
 * @count ranges of @entry bytes (8: packed) at @at: their CRC after
 * @crc, and their walk into @pre.
 */
static uint32_t crc_and_walk(uint32_t crc, const uint8_t *at,
			     unsigned int count, size_t entry,
			     const struct range_table *ram,
			     struct ho_bad_pre *pre)
{
	struct ranges_walk w = {.ram = ram, .in_s = 1};
	const unsigned int chunk = CHECK_CHUNK_BYTES / entry;
	const bool packed = entry == sizeof(uint64_t);
	bool ok = true;

	for (unsigned int k = 0; k < count; k += chunk) {
		unsigned int m = MIN(chunk, count - k);

		crc = crc32(crc, at + (size_t)k * entry, (size_t)m * entry);
		ok = ok && ranges_walk(&w, at + (size_t)k * entry, m, packed) ==
				   RANGE_OK;
	}
	pre->ok = ok;
	pre->pages = w.pages;
	return crc;
}

/*
 * The entry size of a bad-page record of @type in a handover of
 * @version: 16 (HANDOVER_REC_BAD, version 4 on), 8 (PACKED, version 6
 * on), or 0 (not a bad-page record, or not in @version).
 */
static size_t bad_entry_bytes(uint32_t type, uint32_t version)
{
	if (type == HANDOVER_REC_BAD && version >= 4)
		return sizeof(struct handover_range);
	if (type == HANDOVER_REC_BAD_PACKED && version >= 6)
		return sizeof(uint64_t);
	return 0;
}

uint32_t handover_checksum_checked(const struct handover_view *v,
				   uint32_t records, uint32_t version,
				   const struct range_table *ram,
				   struct ho_bad_pres *pre)
{
	const uint8_t *buf = v->head;
	uint64_t off = HANDOVER_HEADER_BYTES, done = off, size = v->size;
	uint32_t crc = handover_checksum(buf, off);

	pre->n = 0;
	if (v->count > 1) /* in pieces: the records check their ranges */
		return handover_view_checksum(v);
	for (uint32_t i = 0;
	     i < records && size - off >= sizeof(struct handover_preserved);
	     i++) {
		struct handover_preserved p;
		size_t entry;

		memcpy(&p, buf + off, sizeof(p));
		if (p.head.bytes < sizeof(p.head) || p.head.bytes % 8 ||
		    p.head.bytes > size - off)
			break; /* the reader refuses it: plain from here */
		entry = bad_entry_bytes(p.head.type, version);
		if (entry && pre->n < HANDOVER_BAD_RECS_MAX &&
		    p.head.bytes >= sizeof(p) &&
		    (uint64_t)p.count * entry == p.head.bytes - sizeof(p)) {
			crc = crc32(crc, buf + done, off + sizeof(p) - done);
			crc = crc_and_walk(crc, buf + off + sizeof(p), p.count,
					   entry, ram, &pre->rec[pre->n]);
			pre->rec[pre->n++].off = off;
			done = off + p.head.bytes;
		}
		off += p.head.bytes;
	}
	return crc32(crc, buf + done, size - done);
}

const struct ho_bad_pre *handover_bad_pre_at(const struct ho_bad_pres *pre,
					     uint64_t off)
{
	for (unsigned int i = 0; i < pre->n; i++)
		if (pre->rec[i].off == off)
			return &pre->rec[i];
	return NULL;
}

int handover_bad_parse(struct bi_handover *h, const struct range_table *ram,
		       const uint8_t *rec, uint32_t bytes, uint32_t version,
		       char *why, size_t n)
{
	struct handover_view v = {.head = rec, .size = bytes};

	return handover_bad_parse_pre(h, ram, &v, 0, bytes, version, why, n,
				      NULL);
}

int handover_bad_parse_pre(struct bi_handover *h, const struct range_table *ram,
			   const struct handover_view *v, uint64_t off,
			   uint32_t bytes, uint32_t version, char *why,
			   size_t n, const struct ho_bad_pre *pre)
{
	struct handover_preserved p;
	struct bi_handover_bad *b = &h->bad[h->bad_recs];
	uint32_t src;
	size_t entry;

	if (bytes < sizeof(p)) {
		snprintf(why, n, "bad-page record of %u bytes", bytes);
		return -EINVAL;
	}
	handover_view_read(v, off, &p, sizeof(p));
	entry = p.head.type == HANDOVER_REC_BAD_PACKED
			? sizeof(uint64_t)
			: sizeof(struct handover_range);
	if (entry == sizeof(uint64_t) && version < 6) {
		snprintf(why, n,
			 "type %u (packed bad pages) not in version %u "
			 "(version 6 on)",
			 p.head.type, version);
		return -EINVAL;
	}
	src = version < 5 ? HANDOVER_BAD_UNKNOWN : p.pad;
	if ((uint64_t)p.count * entry != bytes - sizeof(p)) {
		snprintf(why, n,
			 "bad count %u does not fill its %u bytes (%zu a "
			 "range)",
			 p.count, bytes, entry);
		return -EINVAL;
	}
	if (h->bad_recs &&
	    (version < 5 || src <= h->bad[h->bad_recs - 1].source)) {
		snprintf(why, n,
			 "bad[%u]: source %u after source %u (version %u: %s)",
			 h->bad_recs, src, h->bad[h->bad_recs - 1].source,
			 version,
			 version < 5 ? "one record"
				     : "one record a source, ascending");
		return -EINVAL;
	}
	if (h->bad_recs == HANDOVER_BAD_RECS_MAX) {
		snprintf(why, n, "more than %u bad-page records",
			 HANDOVER_BAD_RECS_MAX);
		return -EINVAL;
	}
	b->view = *v;
	b->ranges = off + sizeof(p);
	b->count = p.count;
	b->source = src;
	b->packed = entry == sizeof(uint64_t);
	if (pre && pre->ok) /* walked with the checksum, all taken */
		h->bad_pages += pre->pages;
	else if (check_ranges(b, h->bad_recs, ram, &h->bad_pages, why, n))
		return -EINVAL;
	if (src > HANDOVER_BAD_UNKNOWN && !h->bad_unknown++)
		h->bad_unknown_first = src;
	h->bad_count += p.count;
	h->bad_recs++;
	return 0;
}

int handover_bad_apart(const struct bi_handover *h, char *why, size_t n)
{
	unsigned int at[HANDOVER_BAD_RECS_MAX] = {0}, last = 0;
	uint64_t prev_end = 0;

	/* One record: apart already (check_ranges()), no walk of it again. */
	if (h->bad_recs < 2)
		return 0;
	for (unsigned int k = 0; k < h->bad_count; k++) {
		struct handover_range lo = {UINT64_MAX, 0}, r;
		unsigned int rec = 0;

		for (unsigned int j = 0; j < h->bad_recs; j++) {
			if (at[j] == h->bad[j].count)
				continue;
			r = handover_bad_range(&h->bad[j], at[j]);
			if (r.start < lo.start) {
				lo = r;
				rec = j;
			}
		}
		if (k && lo.start < prev_end) {
			snprintf(why, n,
				 "bad[%u][%u] [%#llx, %#llx) overlaps a range "
				 "of bad[%u] (records apart)",
				 rec, at[rec], U64(lo.start), U64(lo.end),
				 last);
			return -EINVAL;
		}
		prev_end = lo.end;
		last = rec;
		at[rec]++;
	}
	return 0;
}

void handover_bad_reserve(struct bootinfo *bi)
{
	const struct bi_handover *h = &bi->handover;

	/* Read in place by bootmem (struct bootinfo's @carried): no copy. */
	bi->carried = h->bad_count > 0;
	bi->carried_at = bi->reserved.count;
	if (h->bad_unknown)
		pr_warn("handover: bad-page source %u unknown (%u records): "
			"their pages reserved as bad all the same, source "
			"handover\n",
			h->bad_unknown_first, h->bad_unknown);
}
