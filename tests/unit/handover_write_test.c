/* SPDX-License-Identifier: MIT */
/*
 * The handover writer's bad-page record (common/liveupdate/handover_write.c,
 * ho_bad_end()): a list that comes sorted (the heap's bad pages, in address
 * order) is joined without a sort; one out of order only at its end (the
 * sortedness check must look at every pair) is still sorted; touching and
 * overlapping ranges are joined either way. And the records a live update
 * writes before its freeze (lu_stage_bad()): the handover's first
 * records, kept in place by the freeze's writer (ho_bad_keep()), whose
 * checksum combines their CRC without reading them, and which the reader
 * takes as any other handover. And the handover in pieces (version 7,
 * ho_writer_pieces()): the same records as one block, byte for byte, with
 * entries and records cut by piece boundaries, no vCPU record across one,
 * the last piece not empty, the checksum that of the bytes read back.
 */
#include "common.h"
#include <keel/handover.h>
#include <keel/liveupdate.h>
#include <stdlib.h>

static uint8_t buf[1 << 17] __attribute__((aligned(8)));

/*
 * The first bad record of @b, its type in *@type: its count, ranges in
 * @out (at most @max), a packed one decoded here by hand.
 */
static uint32_t bad_record_of(const uint8_t *b, struct handover_range *out,
			      unsigned int max, uint32_t *type)
{
	struct handover_header h;
	uint64_t off = HANDOVER_HEADER_BYTES;

	memcpy(&h, b, sizeof(h));
	while (off < h.size) {
		struct handover_preserved p;

		memcpy(&p, b + off, sizeof(p));
		*type = p.head.type;
		assert_true(p.count <= max || !p.count);
		if (p.head.type == HANDOVER_REC_BAD) {
			assert_int_equal(p.head.bytes, 16 + p.count * 16);
			memcpy(out, b + off + sizeof(p),
			       p.count * sizeof(*out));
			return p.count;
		}
		if (p.head.type == HANDOVER_REC_BAD_PACKED) {
			assert_int_equal(p.head.bytes, 16 + p.count * 8);
			for (uint32_t i = 0; i < p.count; i++) {
				uint64_t v;

				memcpy(&v, b + off + sizeof(p) + i * 8, 8);
				out[i].start = (v & ((1ull << 40) - 1)) << 12;
				out[i].end =
					out[i].start + (((v >> 40) + 1) << 12);
			}
			return p.count;
		}
		off += p.head.bytes;
	}
	fail_msg("no bad-page record");
	return 0;
}

/* The bad record's count, ranges in @out: packed (all fit). */
static uint32_t bad_record(struct handover_range *out, unsigned int max)
{
	uint32_t type, n = bad_record_of(buf, out, max, &type);

	assert_int_equal(type, HANDOVER_REC_BAD_PACKED);
	return n;
}

/* Ranges of two pages at @starts, written in that order. */
static void write_list(const uint64_t *starts, unsigned int n)
{
	struct handover_header hd = {.generation = 1};
	struct ho_writer w;

	memset(buf, 0, sizeof(buf));
	ho_writer_init(&w, buf, sizeof(buf));
	ho_bad_begin(&w, HANDOVER_BAD_MCE);
	for (unsigned int i = 0; i < n; i++)
		ho_bad_range(&w, starts[i], starts[i] + 0x2000);
	ho_bad_end(&w);
	assert_true(ho_finish(&w, &hd) > 0);
}

static void test_sorted_joined(void **state)
{
	static const uint64_t sorted[] = {0x1000, 0x3000, 0x3000, 0x9000};
	struct handover_range r[4];

	(void)state;
	write_list(sorted, ARRAY_SIZE(sorted));
	assert_int_equal(bad_record(r, 4), 2);
	assert_int_equal(r[0].start, 0x1000); /* touching, overlapping: one */
	assert_int_equal(r[0].end, 0x5000);
	assert_int_equal(r[1].start, 0x9000);
	assert_int_equal(r[1].end, 0xb000);
}

static void test_unsorted_tail(void **state)
{
	static const uint64_t tail[] = {0x10000, 0x20000, 0x30000, 0x4000};
	static const uint64_t head[] = {0x30000, 0x10000, 0x20000, 0x40000};
	struct handover_range r[4];

	(void)state;
	write_list(tail, ARRAY_SIZE(tail));
	assert_int_equal(bad_record(r, 4), 4);
	for (unsigned int i = 0; i < 4; i++)
		assert_int_equal(r[i].start, i ? tail[i - 1] : tail[3]);
	write_list(head, ARRAY_SIZE(head));
	assert_int_equal(bad_record(r, 4), 4);
	for (unsigned int i = 0; i < 4; i++)
		assert_int_equal(r[i].start, 0x10000 * (i + 1));
}

static int cmp_u64s(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/*
 * The record against a plain sort and join of the same starts: 5,000
 * ranges at random, descending (the heap's list is in the order pages
 * went bad), all on few starts (equal keys), all equal, and sorted but
 * for runs reversed: the quicksort's cases, and its depth-bound fallback.
 */
static void test_many_orders(void **state)
{
	enum { N = 5000 };
	static uint64_t starts[N], want[N];
	static struct handover_range r[N];
	uint32_t x = 38;

	(void)state;
	for (unsigned int kind = 0; kind < 5; kind++) {
		unsigned int m = 0;

		for (unsigned int i = 0; i < N; i++) {
			x = x * 1103515245u + 12345u;
			starts[i] = kind == 0	? (uint64_t)(x >> 4) << 12
				    : kind == 1 ? (uint64_t)(N - i) << 14
				    : kind == 2 ? (uint64_t)(x % 7) << 16
				    : kind == 3 ? 0x5000
						: (uint64_t)(i ^ 7) << 14;
		}
		write_list(starts, N);
		memcpy(want, starts, sizeof(starts));
		qsort(want, N, sizeof(*want), cmp_u64s);
		for (unsigned int i = 0; i < N; i++) {
			if (m && want[i] <= r[m - 1].end) {
				r[m - 1].end =
					MAX(r[m - 1].end, want[i] + 0x2000);
				continue;
			}
			r[m].start = want[i];
			r[m++].end = want[i] + 0x2000;
		}
		{
			static struct handover_range got[N];

			assert_int_equal(bad_record(got, N), m);
			assert_memory_equal(got, r, m * sizeof(*r));
		}
	}
}

/* The bad records of kept_handover(): mce (two ranges), injection (one). */
static void stage_bad(struct ho_writer *w)
{
	ho_bad_begin(w, HANDOVER_BAD_MCE);
	ho_bad_range(w, 0x3000000, 0x3001000);
	ho_bad_range(w, 0x1000000, 0x1002000);
	ho_bad_end(w);
	ho_bad_begin(w, HANDOVER_BAD_INJECTION);
	ho_bad_range(w, 0x2000000, 0x2001000);
	ho_bad_end(w);
}

/*
 * A handover of no domain whose bad records were staged in place, in a
 * buffer of exactly its size (what the sizing pass says): the freeze's
 * writer keeps them (the staged bytes are never written again, so a byte
 * changed after the staging shows in the checksum), the preserved
 * record's gathering skips them without reading past their end (it read
 * a whole domain record's 128 bytes at every record), and the checksum
 * is that of all the bytes.
 */
static void test_kept_first(void **state)
{
	struct handover_header hd = {.generation = 1}, h;
	struct ho_writer w;
	struct handover_preserved p;
	struct bootinfo *bi = calloc(1, sizeof(*bi));
	uint64_t size, len;
	uint32_t crc, records;
	uint8_t *b;

	(void)state;
	ho_writer_init(&w, NULL, 0);
	stage_bad(&w);
	ho_preserved(&w);
	size = ho_finish(&w, &hd);
	b = malloc(size);
	assert_non_null(b);
	memset(b, 0xa5, size);
	ho_writer_init(&w, b, size); /* lu_stage_bad() */
	stage_bad(&w);
	len = w.off - HANDOVER_HEADER_BYTES;
	records = w.records;
	crc = crc32(0, b + HANDOVER_HEADER_BYTES, len);
	ho_writer_init(&w, b, size); /* the freeze: lu_put_bad() */
	ho_bad_keep(&w, len, records, crc);
	ho_preserved(&w);
	/* Sized at 16 bytes a range (an upper bound), written at 8. */
	assert_int_equal(ho_finish(&w, &hd), size - 3 * 8);
	size -= 3 * 8;
	memcpy(&h, b, sizeof(h));
	assert_int_equal(h.record_count, 3);
	assert_int_equal(h.size, size);
	assert_int_equal(h.checksum, handover_checksum(b, size));
	memcpy(&p, b + HANDOVER_HEADER_BYTES, sizeof(p));
	assert_int_equal(p.head.type, HANDOVER_REC_BAD_PACKED);
	assert_int_equal(p.head.bytes, 16 + 2 * 8);
	assert_int_equal(p.pad, HANDOVER_BAD_MCE);
	assert_int_equal(p.count, 2);
	memcpy(&p, b + size - sizeof(p), sizeof(p));
	assert_int_equal(p.head.type, HANDOVER_REC_PRESERVED);
	assert_int_equal(p.count, 0);

	bootinfo_init(bi, BOOT_SANDBOX);
	bootinfo_add_ram(bi, pa(0), pa(1ull << 30), 0);
	bootinfo_add_cpu(bi, 0, 0, 0, 0, 0, true);
	bi->cpus[0].boot_cpu = true;
	bootinfo_sanitise(bi);
	assert_int_equal(handover_parse(bi, b, size, pa(0x20000000)), 0);
	assert_int_equal(bi->handover.bad_recs, 2);
	assert_int_equal(bi->handover.bad_pages, 4);

	/* Kept, not written: a staged byte changed shows. */
	b[HANDOVER_HEADER_BYTES + sizeof(p)] ^= 0x10;
	ho_writer_init(&w, b, size);
	ho_bad_keep(&w, len, records, crc);
	ho_preserved(&w);
	assert_int_equal(ho_finish(&w, &hd), size);
	memcpy(&h, b, sizeof(h));
	assert_int_not_equal(h.checksum, handover_checksum(b, size));
	free(b);
	free(bi);
}

/* A record of @n ranges @r (of any size), the preserved one (empty). */
static uint64_t write_ranges(const struct handover_range *r, unsigned int n)
{
	struct handover_header hd = {.generation = 1};
	struct ho_writer w;
	uint64_t size;

	memset(buf, 0, sizeof(buf));
	ho_writer_init(&w, buf, sizeof(buf));
	ho_bad_begin(&w, HANDOVER_BAD_MCE);
	for (unsigned int i = n; i-- > 0;)
		ho_bad_range(&w, r[i].start, r[i].end);
	ho_bad_end(&w);
	ho_preserved(&w); /* none: the reader wants the record */
	size = ho_finish(&w, &hd);
	assert_true(size > 0);
	return size;
}

/* The reader's ranges of @size bytes at buf (RAM: [0, 2^52)). */
static void parse_back(uint64_t size, const struct handover_range *want,
		       unsigned int n, bool packed)
{
	struct bootinfo *bi = calloc(1, sizeof(*bi));
	const struct bi_handover_bad *b;

	assert_non_null(bi);
	bootinfo_init(bi, BOOT_SANDBOX);
	bootinfo_add_ram(bi, pa(0), pa(1ull << 52), 0);
	bootinfo_add_cpu(bi, 0, 0, 0, 0, 0, true);
	bi->cpus[0].boot_cpu = true;
	bootinfo_sanitise(bi);
	if (handover_parse(bi, buf, size, pa(0x20000000)))
		fail_msg("refused: %s", bi->handover.why);
	assert_int_equal(bi->handover.bad_recs, 1);
	b = &bi->handover.bad[0];
	assert_int_equal(b->packed, packed);
	assert_int_equal(b->count, n);
	for (unsigned int i = 0; i < n; i++) {
		struct handover_range r = handover_bad_range(b, i);

		assert_int_equal(r.start, want[i].start);
		assert_int_equal(r.end, want[i].end);
	}
	free(bi);
}

/*
 * Every range fits (a pfn of 2^40 - 1, 2^24 pages): packed, 8 bytes a
 * range; one range of 2^24 + 1 pages, or one at 2^52: 16 bytes a range,
 * as version 5 wrote them. Each read back by the reader as written.
 */
static void test_packed_or_not(void **state)
{
	const uint64_t top = 1ull << 52, g64 = 64ull << 30;
	const struct handover_range fit[] = {
		{0x1000, 0x3000},
		{0x100000000, 0x100000000 + g64}, /* 2^24 pages */
		{top - 0x1000, top},		  /* pfn 2^40 - 1 */
	};
	struct handover_range big[3], high[2], r[3];
	uint32_t type;
	uint64_t size;

	(void)state;
	size = write_ranges(fit, 3);
	assert_int_equal(bad_record_of(buf, r, 3, &type), 3);
	assert_int_equal(type, HANDOVER_REC_BAD_PACKED);
	assert_memory_equal(r, fit, sizeof(fit));
	assert_int_equal(size, HANDOVER_HEADER_BYTES + 16 + 3 * 8 + 16);
	parse_back(size, fit, 3, true);

	memcpy(big, fit, sizeof(fit));
	big[1].end += 0x1000; /* 2^24 + 1 pages */
	size = write_ranges(big, 3);
	assert_int_equal(bad_record_of(buf, r, 3, &type), 3);
	assert_int_equal(type, HANDOVER_REC_BAD);
	assert_memory_equal(r, big, sizeof(big));
	assert_int_equal(size, HANDOVER_HEADER_BYTES + 16 + 3 * 16 + 16);
	parse_back(size, big, 3, false);

	high[0] = fit[0];
	high[1] = (struct handover_range){top, top + 0x1000}; /* pfn 2^40 */
	size = write_ranges(high, 2);
	assert_int_equal(bad_record_of(buf, r, 2, &type), 2);
	assert_int_equal(type, HANDOVER_REC_BAD);
	assert_memory_equal(r, high, sizeof(high));
}

/* ---- pieces (version 7) ------------------------------------------------- */

#define P_BASE	0x40000000ull /* the pieces' "physical" addresses */
#define P_ARENA (4u << 20)
#define P_MAX	200u
#define FLAT_SZ (256u << 10)

static uint8_t flat[FLAT_SZ] __attribute__((aligned(8)));
static uint8_t logical[P_ARENA];

/* A vCPU state of @n bytes, recognisable. */
static uint8_t vstate[HANDOVER_VCPU_STATE_MAX];

/*
 * The records of both writes: bad pages of three sources (one record
 * not packable, one unsorted, one sorted), @ndom domains of @nx extents
 * and more (pa apart: none merge) after a few table ranges, a kernel name,
 * the frame table's place, a vCPU a domain (states of 488, 160 and 100
 * bytes), then the preserved ranges.
 */
static void write_records(struct ho_writer *w, unsigned int ndom,
			  unsigned int nx)
{
	static const uint32_t sbytes[] = {488, 160, 100};
	const struct handover_ft_piece ft[2] = {{0x1000000, 0x1200000, 0, 0},
						{0x2000000, 0x2001000, 1, 0}};
	uint32_t x = 7;

	ho_bad_begin(w, HANDOVER_BAD_OPTION); /* 2^24 + 1 pages: 16 bytes */
	ho_bad_range(w, 0x900000000ull, 0x900000000ull + (64ull << 30) + 4096);
	ho_bad_range(w, 0x5000, 0x6000);
	ho_bad_end(w);
	ho_bad_begin(w, HANDOVER_BAD_MCE); /* unsorted, some joined */
	for (unsigned int i = 0; i < 700; i++) {
		x = x * 1103515245u + 12345u;
		ho_bad_range(w, (uint64_t)(x >> 12) << 12,
			     ((uint64_t)(x >> 12) << 12) + 0x2000);
	}
	ho_bad_end(w);
	ho_bad_begin(w, HANDOVER_BAD_INJECTION); /* sorted */
	for (unsigned int i = 0; i < 60; i++)
		ho_bad_range(w, 0x800000000ull + i * 0x3000,
			     0x800000000ull + i * 0x3000 + 0x1000);
	ho_bad_end(w);
	for (unsigned int d = 0; d < ndom; d++) {
		struct handover_domain hd;

		memset(&hd, 0, sizeof(hd));
		hd.id = (uint16_t)(d + 1);
		hd.node = d & 1;
		snprintf(hd.name, sizeof(hd.name), "dom%u", d + 1);
		hd.p2m_root = 0x10000000ull * (d + 1);
		hd.p2m_format = HANDOVER_P2M_VMSA;
		hd.vcpus = 2;
		ho_domain_begin(w, &hd);
		for (unsigned int t = 0; t < 3 + d; t++)
			ho_domain_table(w, hd.p2m_root + t * 0x10000,
					hd.p2m_root + t * 0x10000 + 0x3000);
		for (unsigned int i = 0; i < nx + 7 * d; i++) {
			x = x * 1103515245u + 12345u;
			ho_domain_extent(w, (uint64_t)i << 21,
					 0x100000000ull * (d + 1) +
						 ((uint64_t)(x >> 8) << 21),
					 1 + (x & 3));
		}
		ho_domain_kernel(w, d == 1 ? "linux-6.9" : NULL);
		ho_domain_end(w);
	}
	ho_ft_place(w, ft, 2);
	for (unsigned int d = 0; d < ndom; d++) {
		struct handover_vcpu v = {.domain = (uint16_t)(d + 1),
					  .arch = HANDOVER_VCPU_ARM64,
					  .cpu = d,
					  .state_bytes = sbytes[d % 3],
					  .stop_ticks = 1000 + d};

		ho_vcpu(w, &v, vstate);
	}
	ho_preserved(w);
}

/* The pieces of one write: where they lie, in one arena. */
struct pieces {
	uint8_t *arena; /* P_BASE's */
	unsigned int shift;
	uint32_t count;
	uint64_t pa[P_MAX];
	uint64_t size; /* as written */
};

static uint8_t *piece_va(const struct pieces *p, uint32_t k)
{
	return p->arena + (p->pa[k] - P_BASE);
}

/*
 * The pieces for what the counting pass says (lu_alloc_pieces()'s sum:
 * records, a pad a vCPU, and the pieces record) and @extra more, at
 * ascending addresses a seeded number of pieces apart, filled with 0xee
 * (the writer must write every byte it counts).
 */
static void place_pieces(struct pieces *p, unsigned int shift, uint64_t bytes,
			 uint32_t extra, uint32_t seed)
{
	uint64_t piece = 1ull << shift, at = 0;
	uint32_t n = (uint32_t)((bytes + 16 + piece - 9) / (piece - 8));

	p->shift = shift;
	p->count = MAX(n, 2u) + extra;
	assert_true(p->count <= P_MAX);
	for (uint32_t k = 0; k < p->count; k++) {
		seed = seed * 1103515245u + 12345u;
		at += ((seed >> 16) % 3) * piece; /* 0 to 2 pieces apart */
		p->pa[k] = P_BASE + at;
		at += piece;
		assert_true(at <= P_ARENA);
	}
	memset(p->arena, 0xee, P_ARENA);
}

/* The handover of @p read back through a view: its size. */
static uint64_t read_back(const struct pieces *p, uint8_t *out)
{
	struct handover_header h;
	struct handover_view v = {
		.head = piece_va(p, 0),
		.delta = (uintptr_t)p->arena - P_BASE,
		.table_off = HANDOVER_HEADER_BYTES + 16,
		.shift = p->shift,
		.count = p->count,
	};

	memcpy(&h, v.head, sizeof(h));
	assert_true(h.size <= (uint64_t)p->count << p->shift);
	v.size = h.size;
	handover_view_read(&v, 0, out, h.size);
	return h.size;
}

/*
 * The headers of the one block @f (@fsize bytes) and of the stream @b
 * (@size, pieces @p), into @hf and @hb, and @b's pieces record.
 */
static void same_heads(const uint8_t *f, uint64_t fsize, const uint8_t *b,
		       uint64_t size, const struct pieces *p,
		       struct handover_header *hf, struct handover_header *hb)
{
	struct handover_preserved pr;

	memcpy(hf, f, sizeof(*hf));
	memcpy(hb, b, sizeof(*hb));
	assert_int_equal(hf->version, 7);
	assert_int_equal(hf->piece_shift, 0);
	assert_int_equal(hf->piece_count, 0);
	assert_int_equal(hf->size, fsize);
	assert_int_equal(hf->checksum, handover_checksum(f, fsize));
	assert_int_equal(hb->magic, HANDOVER_MAGIC);
	assert_int_equal(hb->version, 7);
	assert_int_equal(hb->piece_shift, p->shift);
	assert_int_equal(hb->piece_count, p->count);
	assert_int_equal(hb->size, size);
	assert_int_equal(hb->generation, hf->generation);
	assert_int_equal(hb->checksum, handover_checksum(b, size));
	/* the last piece not empty */
	assert_true(size > (uint64_t)(p->count - 1) << p->shift);
	assert_true(size <= (uint64_t)p->count << p->shift);
	memcpy(&pr, b + HANDOVER_HEADER_BYTES, sizeof(pr));
	assert_int_equal(pr.head.type, HANDOVER_REC_PIECES);
	assert_int_equal(pr.head.bytes, 16 + 8 * p->count);
	assert_int_equal(pr.count, p->count);
	assert_int_equal(pr.pad, 0);
	assert_memory_equal(b + HANDOVER_HEADER_BYTES + 16, p->pa,
			    8 * p->count);
}

/*
 * The stream @b of @size (pieces @p) against the one block @f of @fsize:
 * the same records in the same order, byte for byte, but for the pieces
 * record (first) and pads, each zero filled; a vCPU record never across
 * a piece's end; the header's fields. Return: the pads before a vCPU.
 */
static unsigned int same_records(const uint8_t *f, uint64_t fsize,
				 const uint8_t *b, uint64_t size,
				 const struct pieces *p, bool *straddled)
{
	struct handover_header hf, hb;
	uint64_t off = HANDOVER_HEADER_BYTES, foff = off;
	uint64_t piece = 1ull << p->shift;
	unsigned int pads = 0, vpads = 0, recs = 0;

	same_heads(f, fsize, b, size, p, &hf, &hb);
	off += 16 + 8 * p->count;
	recs = 1;
	*straddled = false;
	while (foff < fsize) {
		struct handover_rec rf, rb;

		assert_true(off < size);
		memcpy(&rf, f + foff, sizeof(rf));
		memcpy(&rb, b + off, sizeof(rb));
		recs++;
		if (rb.type == HANDOVER_REC_PAD) {
			assert_true(rb.bytes >= 8 && rb.bytes % 8 == 0);
			for (uint32_t i = 8; i < rb.bytes; i++)
				assert_int_equal(b[off + i], 0);
			off += rb.bytes;
			pads++;
			assert_int_equal(off % piece, 0); /* up to the end */
			memcpy(&rb, b + off, sizeof(rb));
			assert_int_equal(rb.type, HANDOVER_REC_VCPU);
			vpads++;
			continue;
		}
		assert_int_equal(rb.type, rf.type);
		assert_int_equal(rb.bytes, rf.bytes);
		assert_memory_equal(b + off, f + foff, rf.bytes);
		if (rb.type == HANDOVER_REC_VCPU)
			assert_int_equal(off / piece,
					 (off + rb.bytes - 1) / piece);
		else if (off / piece != (off + rb.bytes - 1) / piece)
			*straddled = true;
		off += rb.bytes;
		foff += rf.bytes;
	}
	while (off < size) { /* a pad to make the last piece not empty */
		struct handover_rec rb;

		memcpy(&rb, b + off, sizeof(rb));
		assert_int_equal(rb.type, HANDOVER_REC_PAD);
		for (uint32_t i = 8; i < rb.bytes; i++)
			assert_int_equal(b[off + i], 0);
		off += rb.bytes;
		recs++;
		pads++;
	}
	assert_int_equal(off, size);
	assert_int_equal(hb.record_count, recs);
	assert_int_equal(hb.record_count, hf.record_count + 1 + pads);
	return vpads;
}

/* One block and pieces of 2^@shift for the same records. */
static unsigned int pieces_case(struct pieces *p, unsigned int shift,
				unsigned int ndom, unsigned int nx,
				uint32_t extra, uint32_t seed, bool *straddled)
{
	struct handover_header hd = {.generation = 5, .build = 77};
	struct ho_writer w;
	uint64_t fsize, need;

	ho_writer_init(&w, NULL, 0);
	write_records(&w, ndom, nx);
	need = ho_finish(&w, &hd) + w.vcpu_bytes;
	memset(flat, 0x5a, sizeof(flat));
	ho_writer_init(&w, flat, sizeof(flat));
	write_records(&w, ndom, nx);
	fsize = ho_finish(&w, &hd);
	assert_true(fsize > 0);
	place_pieces(p, shift, need, extra, seed);
	ho_writer_pieces(&w, piece_va(p, 0), (uintptr_t)p->arena - P_BASE,
			 shift, p->count, p->pa);
	write_records(&w, ndom, nx);
	p->size = ho_finish(&w, &hd);
	assert_true(p->size > 0);
	assert_int_equal(read_back(p, logical), p->size);
	return same_records(flat, fsize, logical, p->size, p, straddled);
}

/*
 * 4 and 8 KiB pieces, scattered: records and entries across their ends
 * (16-, 24- and 8-byte entries, the sorts through the view), the vCPUs
 * padded to a piece's start where they would cross one, over extent
 * counts that move them through every position; spare pieces at the end
 * (the sizing's bound) filled by a pad.
 */
static void test_pieces_same_records(void **state)
{
	struct pieces p = {.arena = aligned_alloc(1 << 16, P_ARENA)};
	unsigned int vpads = 0, cases = 0;
	bool straddled, any_straddled = false;

	(void)state;
	assert_non_null(p.arena);
	for (unsigned int i = 0; i < sizeof(vstate); i++)
		vstate[i] = (uint8_t)(i * 7 + 1);
	for (unsigned int shift = 12; shift <= 13; shift++)
		for (unsigned int nx = 100; nx < 100 + 190; nx += 3) {
			vpads += pieces_case(&p, shift, 3, nx, nx % 3,
					     nx * 31 + shift, &straddled);
			any_straddled |= straddled;
			cases++;
		}
	assert_true(any_straddled);
	assert_true(vpads > cases / 10); /* the pads were exercised */
	free(p.arena);
}

/*
 * A domain record copied out of pieces (ho_domain_copy() of a taken
 * handover's view, rec, rec_bytes) is the record as written.
 */
static void test_pieces_domain_copy(void **state)
{
	struct pieces p = {.arena = aligned_alloc(1 << 16, P_ARENA)};
	struct handover_header hd = {.generation = 6};
	struct handover_view v;
	struct ho_writer w;
	uint64_t off = HANDOVER_HEADER_BYTES, size, n = 0, pres = 0;
	uint64_t at[8];
	uint32_t bytes[8];
	bool straddled;

	(void)state;
	assert_non_null(p.arena);
	pieces_case(&p, 12, 4, 150, 0, 3, &straddled);
	v = (struct handover_view){
		.head = piece_va(&p, 0),
		.size = p.size,
		.delta = (uintptr_t)p.arena - P_BASE,
		.table_off = HANDOVER_HEADER_BYTES + 16,
		.shift = p.shift,
		.count = p.count,
	};
	while (off < p.size) {
		struct handover_rec r;

		memcpy(&r, logical + off, sizeof(r));
		if (r.type == HANDOVER_REC_DOMAIN) {
			at[n] = off;
			bytes[n++] = r.bytes;
		}
		if (r.type == HANDOVER_REC_PRESERVED)
			pres = off;
		off += r.bytes;
	}
	assert_int_equal(n, 4);
	memset(buf, 0, sizeof(buf));
	ho_writer_init(&w, buf, sizeof(buf));
	for (uint64_t i = 0; i < n; i++)
		ho_domain_copy(&w, &v, at[i], bytes[i]);
	ho_preserved(&w);
	size = ho_finish(&w, &hd);
	assert_true(size > 0);
	off = HANDOVER_HEADER_BYTES;
	for (uint64_t i = 0; i < n; i++) {
		assert_memory_equal(buf + off, logical + at[i], bytes[i]);
		off += bytes[i];
	}
	/* The preserved ranges: the same as the pieces' own record. */
	assert_true(pres);
	assert_memory_equal(buf + off, logical + pres, size - off);
	free(p.arena);
}

/*
 * Too few pieces: overflow (ho_finish() 0), nothing past them written;
 * a table that does not fit piece 0, or one piece: refused.
 */
static void test_pieces_refused(void **state)
{
	struct pieces p = {.arena = aligned_alloc(1 << 16, P_ARENA)};
	struct handover_header hd = {.generation = 1};
	struct ho_writer w;
	uint64_t need;

	(void)state;
	assert_non_null(p.arena);
	ho_writer_init(&w, NULL, 0);
	write_records(&w, 3, 200);
	need = ho_finish(&w, &hd);
	place_pieces(&p, 12, need / 2, 0, 9);
	ho_writer_pieces(&w, piece_va(&p, 0), (uintptr_t)p.arena - P_BASE, 12,
			 p.count, p.pa);
	write_records(&w, 3, 200);
	assert_int_equal(ho_finish(&w, &hd), 0);
	for (uint64_t b = 0; b < P_ARENA; b++)
		if (p.arena[b] != 0xee) {
			uint64_t a = P_BASE + b;
			bool in = false;

			for (uint32_t k = 0; k < p.count; k++)
				in |= a >= p.pa[k] && a < p.pa[k] + 4096;
			assert_true(in);
		}
	/* 4096 - 144 bytes: 494 addresses at most */
	ho_writer_pieces(&w, p.arena, 0, 12, 495, p.pa);
	assert_true(w.overflow);
	ho_writer_pieces(&w, p.arena, 0, 12, 1, p.pa);
	assert_true(w.overflow);
	ho_writer_pieces(&w, p.arena, 0, 11, 2, p.pa);
	assert_true(w.overflow);
	free(p.arena);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sorted_joined),
		cmocka_unit_test(test_unsorted_tail),
		cmocka_unit_test(test_many_orders),
		cmocka_unit_test(test_kept_first),
		cmocka_unit_test(test_packed_or_not),
		cmocka_unit_test(test_pieces_same_records),
		cmocka_unit_test(test_pieces_domain_copy),
		cmocka_unit_test(test_pieces_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
