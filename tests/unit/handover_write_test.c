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
 * takes as any other handover.
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sorted_joined),
		cmocka_unit_test(test_unsorted_tail),
		cmocka_unit_test(test_many_orders),
		cmocka_unit_test(test_kept_first),
		cmocka_unit_test(test_packed_or_not),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
