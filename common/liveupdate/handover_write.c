/* SPDX-License-Identifier: MIT */
/*
 * The handover writer (include/keel/liveupdate.h, struct ho_writer): the
 * bytes of include/keel/handover.h, version 7, written in one pass into a
 * buffer the caller sized with a counting pass (buf NULL) first: one
 * block, or pieces (ho_writer_pieces(): a machine whose free memory is in
 * small blocks), every offset then reached through the view w->v. An
 * entry (a range, an extent, a packed bad range) or a record may span two
 * pieces, except a vCPU record (its state is read in place).
 *
 * Invariants: nothing is written past cap (a too small buffer sets
 * overflow and ho_finish() returns 0); records are whole multiples of 8;
 * the preserved ranges are derived from the domain records already in the
 * buffer, never passed in twice, so an extent outside them can only be a
 * corruption (inject=handover-extent), not a writer's slip.
 *
 * Costs: O(extents + table ranges) to write, O(n log n) to sort the
 * preserved and bad ranges (O(n) when they come sorted), O(size) for the
 * checksum. One block keeps its contiguous fast paths (a quicksort and a
 * pack in place: 100,000 bad ranges are in a live update's downtime);
 * pieces sort by a heapsort through the view. No lock: the boot CPU
 * writes while every other CPU is stopped.
 */
#include <keel/compiler.h>
#include <keel/handover.h>
#include <keel/liveupdate.h>
#include <keel/string.h>

void ho_writer_init(struct ho_writer *w, void *buf, uint64_t cap)
{
	memset(w, 0, sizeof(*w));
	w->buf = buf;
	w->cap = cap;
	w->off = HANDOVER_HEADER_BYTES;
	w->overflow = buf && cap < HANDOVER_HEADER_BYTES;
	w->v.head = buf;
	w->v.size = cap;
}

static bool pieced(const struct ho_writer *w)
{
	return w->v.count >= 2;
}

/*
 * Where offset @off (< cap) lies, writable (the view's bytes are this
 * writer's), and in *@run how many bytes from there are in its piece.
 */
static uint8_t *ho_at(const struct ho_writer *w, uint64_t off, uint64_t *run)
{
	return (uint8_t *)(uintptr_t)handover_view_at(&w->v, off, run);
}

/* @n bytes at offset @off into @dst (within cap). */
static void ho_get(const struct ho_writer *w, uint64_t off, void *dst, size_t n)
{
	handover_view_read(&w->v, off, dst, n);
}

/* [src, src + len) at @off, within cap, across pieces (@src NULL: zeros). */
static void ho_set(struct ho_writer *w, uint64_t off, const void *src,
		   uint64_t len)
{
	const uint8_t *s = src;

	if (!pieced(w)) {
		if (s)
			memcpy(w->buf + off, s, len);
		else
			memset(w->buf + off, 0, len);
		return;
	}
	while (len) {
		uint64_t run;
		uint8_t *p = ho_at(w, off, &run);
		uint64_t k = MIN(run, len);

		if (s) {
			memcpy(p, s, k);
			s += k;
		} else {
			memset(p, 0, k);
		}
		off += k;
		len -= k;
	}
}

/* Write [src, src + len) at @off (counting: only room is checked). */
static void put_at(struct ho_writer *w, uint64_t off, const void *src,
		   uint64_t len)
{
	if (!w->buf)
		return;
	if (off > w->cap || len > w->cap - off) {
		w->overflow = true;
		return;
	}
	ho_set(w, off, src, len);
}

static void put(struct ho_writer *w, const void *src, uint64_t len)
{
	put_at(w, w->off, src, len);
	w->off += len;
}

void ho_writer_pieces(struct ho_writer *w, void *head, uintptr_t delta,
		      unsigned int shift, uint32_t count, const uint64_t *pa)
{
	struct handover_preserved p = {
		{HANDOVER_REC_PIECES, (uint32_t)HO_PIECES_REC_BYTES(count)},
		count,
		0};
	uint64_t table = HANDOVER_HEADER_BYTES + sizeof(p);
	bool ok = head && count >= 2 && shift >= PAGE_SHIFT &&
		  shift <= HANDOVER_PIECE_SHIFT_MAX &&
		  table + (uint64_t)count * sizeof(*pa) <= 1ULL << shift;

	ho_writer_init(w, head, ok ? (uint64_t)count << shift : 0);
	if (!ok) {
		w->overflow = true;
		return;
	}
	w->v.delta = delta;
	w->v.table_off = table;
	w->v.shift = shift;
	w->v.count = count;
	/* Piece 0 is plain memory: the table may already be in place. */
	memcpy(w->buf + HANDOVER_HEADER_BYTES, &p, sizeof(p));
	memmove(w->buf + table, pa, (size_t)count * sizeof(*pa));
	w->off = HANDOVER_HEADER_BYTES + p.head.bytes;
	w->records = 1;
}

/*
 * A pad record (HANDOVER_REC_PAD) of @len bytes (a multiple of 8, at
 * least 8), zero filled: records may be at most 4 GiB, so more is more
 * than one.
 */
static void put_pad(struct ho_writer *w, uint64_t len)
{
	while (len) {
		uint64_t k = MIN(len, 1ULL << 31);
		struct handover_rec r = {HANDOVER_REC_PAD, (uint32_t)k};

		put(w, &r, sizeof(r));
		put(w, NULL, k - sizeof(r));
		w->records++;
		len -= k;
	}
}

void ho_domain_begin(struct ho_writer *w, const struct handover_domain *d)
{
	w->dom = *d;
	w->dom.table_count = 0;
	w->dom.extent_count = 0;
	w->dom.kernel_bytes = 0;
	w->dom.bytes = 0;
	w->dom_off = w->off;
	w->off += sizeof(w->dom);
}

/* The last entry of @size bytes written, into @out. Return: false: none. */
static bool last_entry(const struct ho_writer *w, uint32_t count, void *out,
		       size_t size)
{
	if (!w->buf || !count || w->off > w->cap)
		return false;
	ho_get(w, w->off - size, out, size);
	return true;
}

void ho_domain_table(struct ho_writer *w, uint64_t start, uint64_t end)
{
	struct handover_range r = {start, end}, last;

	if (w->dom.extent_count || w->dom.kernel_bytes) {
		w->overflow = true; /* tables come before extents */
		return;
	}
	if (last_entry(w, w->dom.table_count, &last, sizeof(last)) &&
	    last.end == start) {
		last.end = end;
		put_at(w, w->off - sizeof(last), &last, sizeof(last));
		return;
	}
	put(w, &r, sizeof(r));
	w->dom.table_count++;
	w->ranges_max++;
}

void ho_domain_extent(struct ho_writer *w, uint64_t gpa, uint64_t pa,
		      uint64_t pages)
{
	struct handover_extent x = {gpa, pa, pages}, last;
	uint64_t bytes = pages << PAGE_SHIFT;

	if (w->dom.kernel_bytes) {
		w->overflow = true; /* the kernel's name comes last */
		return;
	}
	w->dom.bytes += bytes;
	if (last_entry(w, w->dom.extent_count, &last, sizeof(last)) &&
	    last.gpa + (last.pages << PAGE_SHIFT) == gpa &&
	    last.pa + (last.pages << PAGE_SHIFT) == pa) {
		last.pages += pages;
		put_at(w, w->off - sizeof(last), &last, sizeof(last));
		return;
	}
	put(w, &x, sizeof(x));
	w->dom.extent_count++;
	w->ranges_max++;
}

void ho_domain_kernel(struct ho_writer *w, const char *kernel)
{
	char name[HANDOVER_NAME_MAX] = {0};

	if (!kernel || !*kernel || w->dom.kernel_bytes)
		return;
	strlcpy(name, kernel, sizeof(name));
	put(w, name, sizeof(name));
	w->dom.kernel_bytes = sizeof(name);
}

void ho_domain_end(struct ho_writer *w)
{
	w->dom.head.type = HANDOVER_REC_DOMAIN;
	w->dom.head.bytes = (uint32_t)(w->off - w->dom_off);
	put_at(w, w->dom_off, &w->dom, sizeof(w->dom));
	w->records++;
}

void ho_domain_copy(struct ho_writer *w, const struct handover_view *src,
		    uint64_t off, uint32_t bytes)
{
	struct handover_domain d;
	uint64_t left = bytes;

	if (bytes < sizeof(d)) {
		w->overflow = true;
		return;
	}
	handover_view_read(src, off, &d, sizeof(d));
	while (left && w->buf) { /* a run of the source's piece at a time */
		uint64_t run;
		const uint8_t *p = handover_view_at(src, off, &run);
		uint64_t k = MIN(run, left);

		put(w, p, k);
		off += k;
		left -= k;
	}
	w->off += left; /* counting */
	w->records++;
	w->ranges_max += (uint64_t)d.table_count + d.extent_count;
}

void ho_vcpu(struct ho_writer *w, const struct handover_vcpu *v,
	     const void *state)
{
	static const uint8_t zero[8];
	struct handover_vcpu h = *v;
	uint32_t pad = (uint32_t)(ALIGN_UP(v->state_bytes, 8) - v->state_bytes);

	if (v->state_bytes > HANDOVER_VCPU_STATE_MAX) {
		w->overflow = true;
		return;
	}
	h.head.type = HANDOVER_REC_VCPU;
	h.head.bytes = (uint32_t)sizeof(h) + v->state_bytes + pad;
	w->vcpu_bytes += h.head.bytes;
	w->vcpu_max = MAX(w->vcpu_max, h.head.bytes);
	if (pieced(w)) { /* the reader reads the state in place */
		uint64_t piece = 1ULL << w->v.shift;
		uint64_t room = piece - (w->off & (piece - 1));

		if (h.head.bytes > piece) {
			w->overflow = true;
			return;
		}
		if (h.head.bytes > room)
			put_pad(w, room);
	}
	put(w, &h, sizeof(h));
	put(w, state, v->state_bytes);
	put(w, zero, pad);
	w->records++;
}

void ho_ft_place(struct ho_writer *w, const struct handover_ft_piece *f,
		 uint32_t n)
{
	struct handover_preserved p = {
		{HANDOVER_REC_FT_PLACE, 0}, MIN(n, HANDOVER_FT_PIECES_MAX), 0};

	if (!n)
		return;
	p.head.bytes = (uint32_t)(sizeof(p) + p.count * sizeof(*f));
	put(w, &p, sizeof(p));
	put(w, f, p.count * sizeof(*f));
	w->records++;
}

static int cmp_range(const void *a, const void *b)
{
	const struct handover_range *x = a, *y = b;

	return (x->start > y->start) - (x->start < y->start);
}

static void swap_ranges(struct handover_range *a, struct handover_range *b)
{
	struct handover_range t = *a;

	*a = *b;
	*b = t;
}

/*
 * @r[0..n) by start, in place: a quicksort on the start (median of three,
 * the smaller side first by recursion, the larger by the loop), insertion
 * below 16, and past @depth levels the generic sort() (heapsort: O(n log
 * n) whatever the input). The heap's bad pages come in the order they
 * went bad: 100,000 of them took the generic sort, a call and a byte-wise
 * swap a step, 23 ms of a live update's downtime.
 */
static void sort_ranges(struct handover_range *r, int64_t n, unsigned int depth)
{
	while (n > 16) {
		int64_t i = -1, j = n, m = n / 2;
		uint64_t p;

		if (!depth--) {
			sort(r, (size_t)n, sizeof(*r), cmp_range);
			return;
		}
		if (r[m].start < r[0].start)
			swap_ranges(&r[m], &r[0]);
		if (r[n - 1].start < r[0].start)
			swap_ranges(&r[n - 1], &r[0]);
		if (r[n - 1].start < r[m].start)
			swap_ranges(&r[n - 1], &r[m]);
		p = r[m].start;
		for (;;) { /* Hoare: [0, j] <= p <= [j + 1, n) */
			do
				i++;
			while (r[i].start < p);
			do
				j--;
			while (r[j].start > p);
			if (i >= j)
				break;
			swap_ranges(&r[i], &r[j]);
		}
		if (j + 1 < n - j - 1) {
			sort_ranges(r, j + 1, depth);
			r += j + 1;
			n -= j + 1;
		} else {
			sort_ranges(r + j + 1, n - j - 1, depth);
			n = j + 1;
		}
	}
	for (int64_t i = 1; i < n; i++) {
		struct handover_range x = r[i];
		int64_t k = i;

		for (; k && r[k - 1].start > x.start; k--)
			r[k] = r[k - 1];
		r[k] = x;
	}
}

/*
 * @r[0..n) sorted, touching or overlapping ranges made one. A list that
 * comes sorted (the heap's bad pages, walked in address order) is only
 * checked, O(n), not sorted again. Return: how many.
 */
static uint64_t sort_join(struct handover_range *r, uint64_t n)
{
	uint64_t m = 0, i = 1;

	while (i < n && r[i - 1].start <= r[i].start)
		i++;
	if (i < n) {
		unsigned int depth = 0; /* 2 log2(n) levels of quicksort */

		for (uint64_t k = n; k > 1; k >>= 1)
			depth += 2;
		sort_ranges(r, (int64_t)n, depth);
	}
	for (i = 0; i < n; i++) {
		if (m && r[i].start <= r[m - 1].end)
			r[m - 1].end = MAX(r[m - 1].end, r[i].end);
		else
			r[m++] = r[i];
	}
	return m;
}

/* ---- the same through the view, for pieces ------------------------------ */

/* Range @i of the array at offset @base. */
static struct handover_range range_at(const struct ho_writer *w, uint64_t base,
				      uint64_t i)
{
	struct handover_range r;

	ho_get(w, base + i * sizeof(r), &r, sizeof(r));
	return r;
}

static void set_range(struct ho_writer *w, uint64_t base, uint64_t i,
		      struct handover_range r)
{
	ho_set(w, base + i * sizeof(r), &r, sizeof(r));
}

/* The heap of ranges [0, @n) at @base from @root down (a max-heap by start). */
static void sift_ranges(struct ho_writer *w, uint64_t base, uint64_t root,
			uint64_t n)
{
	struct handover_range x = range_at(w, base, root);

	for (;;) {
		uint64_t c = 2 * root + 1;
		struct handover_range cr, cr2;

		if (c >= n)
			break;
		cr = range_at(w, base, c);
		if (c + 1 < n) {
			cr2 = range_at(w, base, c + 1);
			if (cr2.start > cr.start) {
				c++;
				cr = cr2;
			}
		}
		if (cr.start <= x.start)
			break;
		set_range(w, base, root, cr);
		root = c;
	}
	set_range(w, base, root, x);
}

/*
 * sort_join() through the view: sorted by a heapsort (O(n log n), no
 * room besides) when not already, then joined in place (entry m - 1 is
 * written only once entry i >= m is read).
 */
static uint64_t sort_join_at(struct ho_writer *w, uint64_t base, uint64_t n)
{
	struct handover_range last = {0, 0}, r;
	uint64_t i = 1, m = 0;

	if (!n)
		return 0;
	for (last = range_at(w, base, 0); i < n; i++) {
		r = range_at(w, base, i);
		if (r.start < last.start)
			break;
		last = r;
	}
	if (i < n) {
		for (uint64_t k = n / 2; k-- > 0;)
			sift_ranges(w, base, k, n);
		for (uint64_t end = n - 1; end > 0; end--) {
			struct handover_range top = range_at(w, base, 0);

			set_range(w, base, 0, range_at(w, base, end));
			set_range(w, base, end, top);
			sift_ranges(w, base, 0, end);
		}
	}
	for (i = 0; i < n; i++) {
		r = range_at(w, base, i);
		if (m && r.start <= last.end) {
			last.end = MAX(last.end, r.end);
			continue;
		}
		if (m)
			set_range(w, base, m - 1, last);
		last = r;
		m++;
	}
	set_range(w, base, m - 1, last);
	return m;
}

/* Can @r be a packed entry (HANDOVER_REC_BAD_PACKED)? */
static bool packs(struct handover_range r)
{
	const unsigned int sh = HANDOVER_PACKED_PAGE_SHIFT;

	return !((r.start | r.end) & ((1ULL << sh) - 1)) && r.end > r.start &&
	       r.start >> sh <= HANDOVER_PACKED_PFN_MASK &&
	       (r.end - r.start) >> sh <= HANDOVER_PACKED_PAGES_MAX;
}

static uint64_t pack_one(struct handover_range r)
{
	const unsigned int sh = HANDOVER_PACKED_PAGE_SHIFT;

	return r.start >> sh | (((r.end - r.start) >> sh) - 1)
				       << HANDOVER_PACKED_PFN_BITS;
}

/* pack_ranges() through the view (the same front-to-back order). */
static bool pack_at(struct ho_writer *w, uint64_t base, uint64_t n)
{
	for (uint64_t k = 0; k < n; k++)
		if (!packs(range_at(w, base, k)))
			return false;
	for (uint64_t k = 0; k < n; k++) {
		uint64_t v = pack_one(range_at(w, base, k));

		ho_set(w, base + k * sizeof(v), &v, sizeof(v));
	}
	return true;
}

/*
 * Every table range and extent of the domain records, appended at offset
 * @out (after them all).
 */
static uint64_t gather(struct ho_writer *w, uint64_t out)
{
	uint64_t off = HANDOVER_HEADER_BYTES, n = 0;

	while (off < w->off) {
		struct handover_domain d;
		struct handover_rec head;
		uint64_t a;

		ho_get(w, off, &head, sizeof(head));
		if (head.type != HANDOVER_REC_DOMAIN) {
			off += head.bytes; /* bad pages, a vCPU: not kept */
			continue;
		}
		ho_get(w, off, &d, sizeof(d));
		a = off + sizeof(d);
		for (uint32_t k = 0; k < d.table_count; k++, n++)
			set_range(w, out, n, range_at(w, a, k));
		a += (uint64_t)d.table_count * sizeof(struct handover_range);
		for (uint32_t k = 0; k < d.extent_count; k++, n++) {
			struct handover_extent x;

			ho_get(w, a + (uint64_t)k * sizeof(x), &x, sizeof(x));
			set_range(
				w, out, n,
				(struct handover_range){
					x.pa, x.pa + (x.pages << PAGE_SHIFT)});
		}
		off += d.head.bytes;
	}
	return n;
}

void ho_preserved(struct ho_writer *w)
{
	struct handover_preserved p = {{HANDOVER_REC_PRESERVED, 0}, 0, 0};
	uint64_t need =
		sizeof(p) + w->ranges_max * sizeof(struct handover_range);
	uint64_t first = w->off + sizeof(p), n, m;

	w->records++;
	if (!w->buf || w->overflow || w->off + need > w->cap) {
		w->overflow |= w->buf != NULL;
		w->off += need;
		return;
	}
	n = gather(w, first);
	/* 8-byte aligned: records are multiples of 8, the buffer a page. */
	m = pieced(w) ? sort_join_at(w, first, n)
		      : sort_join((struct handover_range *)(void *)(w->buf +
								    first),
				  n);
	p.count = (uint32_t)m;
	p.head.bytes =
		(uint32_t)(sizeof(p) + m * sizeof(struct handover_range));
	put_at(w, w->off, &p, sizeof(p));
	w->off += p.head.bytes;
}

void ho_bad_begin(struct ho_writer *w, uint32_t source)
{
	w->bad_off = w->off;
	w->bad_source = source;
	w->off += sizeof(struct handover_preserved);
}

void ho_bad_keep(struct ho_writer *w, uint64_t len, uint32_t records,
		 uint32_t crc)
{
	if (w->buf && (w->off > w->cap || len > w->cap - w->off)) {
		w->overflow = true;
		return;
	}
	if (!w->known_len) {
		w->known_off = w->off;
		w->known_len = len;
		w->known_crc = crc;
	}
	w->off += len;
	w->records += records;
}

void ho_bad_range(struct ho_writer *w, uint64_t start, uint64_t end)
{
	struct handover_range r = {start, end};

	put(w, &r, sizeof(r));
}

/*
 * Ranges @r[0, @n) (sorted, joined) packed in place, front to back, as
 * HANDOVER_REC_BAD_PACKED's 8-byte entries (entry k overwrites only
 * ranges read before it: k * 8 < (k + 1) * 16), when every one fits: 4 KiB
 * aligned, its start below 2^52, at most 2^24 pages. Return: packed (else untouched).
 */
static bool pack_ranges(struct handover_range *r, uint64_t n)
{
	uint8_t *out = (uint8_t *)r;

	for (uint64_t k = 0; k < n; k++)
		if (!packs(r[k]))
			return false;
	for (uint64_t k = 0; k < n; k++) {
		uint64_t v = pack_one(r[k]);

		memcpy(out + k * sizeof(v), &v, sizeof(v));
	}
	return true;
}

void ho_bad_end(struct ho_writer *w)
{
	struct handover_preserved p = {{HANDOVER_REC_BAD, 0}, 0, w->bad_source};
	uint64_t first = w->bad_off + sizeof(p);
	uint64_t n = (w->off - first) / sizeof(struct handover_range), m;
	struct handover_range *r;
	size_t entry = sizeof(*r);
	bool packed;

	if (!n) { /* none: no record */
		w->off = w->bad_off;
		return;
	}
	w->records++;
	if (!w->buf || w->overflow)
		return; /* counting: 16 bytes a range, an upper bound */
	if (pieced(w)) {
		m = sort_join_at(w, first, n);
		packed = pack_at(w, first, m);
	} else {
		r = (struct handover_range *)(void *)(w->buf + first);
		m = sort_join(r, n);
		packed = pack_ranges(r, m);
	}
	if (packed) {
		p.head.type = HANDOVER_REC_BAD_PACKED;
		entry = sizeof(uint64_t);
	}
	p.count = (uint32_t)m;
	p.head.bytes = (uint32_t)(sizeof(p) + m * entry);
	put_at(w, w->bad_off, &p, sizeof(p));
	w->off = w->bad_off + p.head.bytes;
}

/*
 * The handover's checksum (handover_checksum()) without reading the span
 * whose CRC the writer was given: the bytes before it, its CRC combined,
 * the bytes after it. 100,000 bad pages are a 1.6 MB span, which the old
 * image wrote in place and took the CRC of before the freeze
 * (lu_stage_bad()).
 */
static uint32_t checksum_around_known(const struct ho_writer *w)
{
	uint64_t end = w->known_off + w->known_len;
	uint32_t crc;

	if (pieced(w)) {
		struct handover_view v = w->v;

		v.size = w->off;
		return handover_view_checksum(&v);
	}
	if (!w->known_len || w->known_off < HANDOVER_HEADER_BYTES ||
	    end > w->off)
		return handover_checksum(w->buf, w->off);
	crc = handover_checksum(w->buf, w->known_off);
	crc = crc32_combine(crc, w->known_crc, w->known_len);
	return crc32(crc, w->buf + end, w->off - end);
}

uint64_t ho_finish(struct ho_writer *w, const struct handover_header *hd)
{
	struct handover_header h = *hd;

	if (!w->buf)
		return w->off;
	/*
	 * Pieces: the last one not empty (the reader's rule), however short
	 * the records came out of the sizing's bound.
	 */
	if (pieced(w) && !w->overflow &&
	    w->off <= (uint64_t)(w->v.count - 1) << w->v.shift)
		put_pad(w, ((uint64_t)(w->v.count - 1) << w->v.shift) +
				   sizeof(struct handover_rec) - w->off);
	if (w->overflow)
		return 0;
	h.magic = HANDOVER_MAGIC;
	h.version = HANDOVER_VERSION;
	h.header_bytes = HANDOVER_HEADER_BYTES;
	h.piece_shift = pieced(w) ? w->v.shift : 0;
	h.piece_count = pieced(w) ? w->v.count : 0;
	h.size = w->off;
	h.record_count = w->records;
	h.checksum = 0;
	put_at(w, 0, &h, sizeof(h));
	h.checksum = checksum_around_known(w);
	put_at(w, 0, &h, sizeof(h));
	return w->off;
}
