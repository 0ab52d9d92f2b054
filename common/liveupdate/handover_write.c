/* SPDX-License-Identifier: MIT */
/*
 * The handover writer (include/keel/liveupdate.h, struct ho_writer): the
 * bytes of include/keel/handover.h, version 6, written in one pass into a
 * buffer the caller sized with a counting pass (buf NULL) first.
 *
 * Invariants: nothing is written past cap (a too small buffer sets
 * overflow and ho_finish() returns 0); records are whole multiples of 8;
 * the preserved ranges are derived from the domain records already in the
 * buffer, never passed in twice, so an extent outside them can only be a
 * corruption (inject=handover-extent), not a writer's slip.
 *
 * Costs: O(extents + table ranges) to write, O(n log n) to sort the
 * preserved and bad ranges (O(n) when they come sorted), O(size) for the checksum. No lock: the boot CPU
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
	memcpy(w->buf + off, src, len);
}

static void put(struct ho_writer *w, const void *src, uint64_t len)
{
	put_at(w, w->off, src, len);
	w->off += len;
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
	memcpy(out, w->buf + w->off - size, size);
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

void ho_domain_copy(struct ho_writer *w, const uint8_t *rec, uint32_t bytes)
{
	struct handover_domain d;

	if (bytes < sizeof(d)) {
		w->overflow = true;
		return;
	}
	memcpy(&d, rec, sizeof(d));
	put(w, rec, bytes);
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

/* Every table range and extent of the domain records, appended at @out. */
static uint64_t gather(const struct ho_writer *w, struct handover_range *out)
{
	uint64_t off = HANDOVER_HEADER_BYTES, n = 0;

	while (off < w->off) {
		struct handover_domain d;
		struct handover_rec head;
		const uint8_t *a;

		memcpy(&head, w->buf + off, sizeof(head));
		if (head.type != HANDOVER_REC_DOMAIN) {
			off += head.bytes; /* bad pages, a vCPU: not kept */
			continue;
		}
		memcpy(&d, w->buf + off, sizeof(d));
		a = w->buf + off + sizeof(d);
		for (uint32_t k = 0; k < d.table_count; k++, n++)
			memcpy(&out[n], a + (size_t)k * sizeof(out[n]),
			       sizeof(out[n]));
		a += (size_t)d.table_count * sizeof(struct handover_range);
		for (uint32_t k = 0; k < d.extent_count; k++, n++) {
			struct handover_extent x;

			memcpy(&x, a + (size_t)k * sizeof(x), sizeof(x));
			out[n].start = x.pa;
			out[n].end = x.pa + (x.pages << PAGE_SHIFT);
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
	struct handover_range *r;
	uint64_t n, m;

	w->records++;
	if (!w->buf || w->overflow || w->off + need > w->cap) {
		w->overflow |= w->buf != NULL;
		w->off += need;
		return;
	}
	/* 8-byte aligned: records are multiples of 8, the buffer a page. */
	r = (struct handover_range *)(void *)(w->buf + w->off + sizeof(p));
	n = gather(w, r);
	m = sort_join(r, n);
	p.count = (uint32_t)m;
	p.head.bytes = (uint32_t)(sizeof(p) + m * sizeof(*r));
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
	const unsigned int sh = HANDOVER_PACKED_PAGE_SHIFT;
	uint8_t *out = (uint8_t *)r;

	for (uint64_t k = 0; k < n; k++)
		if ((r[k].start | r[k].end) & ((1ULL << sh) - 1) ||
		    r[k].end <= r[k].start ||
		    r[k].start >> sh > HANDOVER_PACKED_PFN_MASK ||
		    (r[k].end - r[k].start) >> sh > HANDOVER_PACKED_PAGES_MAX)
			return false;
	for (uint64_t k = 0; k < n; k++) {
		struct handover_range x = r[k];
		uint64_t v = x.start >> sh | (((x.end - x.start) >> sh) -
					      1) << HANDOVER_PACKED_PFN_BITS;

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

	if (!n) { /* none: no record */
		w->off = w->bad_off;
		return;
	}
	w->records++;
	if (!w->buf || w->overflow)
		return; /* counting: 16 bytes a range, an upper bound */
	r = (struct handover_range *)(void *)(w->buf + first);
	m = sort_join(r, n);
	if (pack_ranges(r, m)) {
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
	if (w->overflow)
		return 0;
	h.magic = HANDOVER_MAGIC;
	h.version = HANDOVER_VERSION;
	h.header_bytes = HANDOVER_HEADER_BYTES;
	h.size = w->off;
	h.record_count = w->records;
	h.checksum = 0;
	put_at(w, 0, &h, sizeof(h));
	h.checksum = checksum_around_known(w);
	put_at(w, 0, &h, sizeof(h));
	return w->off;
}
