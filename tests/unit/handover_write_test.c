/* SPDX-License-Identifier: MIT */
/*
 * The handover writer's bad-page record (common/liveupdate/handover_write.c,
 * ho_bad_end()): a list that comes sorted (the heap's bad pages, in address
 * order) is joined without a sort; one out of order only at its end (the
 * sortedness check must look at every pair) is still sorted; touching and
 * overlapping ranges are joined either way.
 */
#include "common.h"
#include <keel/handover.h>
#include <keel/liveupdate.h>

static uint8_t buf[8192] __attribute__((aligned(8)));

/* The bad record's count, ranges in @out (at most @max). */
static uint32_t bad_record(struct handover_range *out, unsigned int max)
{
	struct handover_header h;
	uint64_t off = HANDOVER_HEADER_BYTES;

	memcpy(&h, buf, sizeof(h));
	while (off < h.size) {
		struct handover_preserved p;

		memcpy(&p, buf + off, sizeof(p));
		if (p.head.type == HANDOVER_REC_BAD) {
			assert_true(p.count <= max);
			memcpy(out, buf + off + sizeof(p),
			       p.count * sizeof(*out));
			return p.count;
		}
		off += p.head.bytes;
	}
	fail_msg("no bad-page record");
	return 0;
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sorted_joined),
		cmocka_unit_test(test_unsorted_tail),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
