// SPDX-License-Identifier: MIT
/*
 * The bad-page record of a handover (version 4, include/keel/handover.h):
 * its ranges checked as firmware input before the new image reserves them
 * ("bad handover", handover_bad_reserve(), from boot/handover.c
 * handover_apply()). The check is pure: it reads the record and the RAM
 * table and writes only @h->bad_pages, O(B + R) for B ranges and R RAM
 * ranges, both sorted: one merge-like walk.
 */
#include <keel/badmem.h>
#include <keel/bootinfo.h>
#include <keel/errno.h>
#include <keel/handover.h>
#include <keel/range_table.h>

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

int handover_bad_check(struct bi_handover *h, const struct range_table *ram,
		       char *why, size_t n)
{
	uint64_t prev_end = 0;
	unsigned int at = 0;

	h->bad_pages = 0;
	for (unsigned int i = 0; i < h->bad_count; i++) {
		struct handover_range r = handover_bad_range(h, i);
		uint64_t hole;

		if (!IS_ALIGNED(r.start, PAGE_SIZE) ||
		    !IS_ALIGNED(r.end, PAGE_SIZE) || r.start >= r.end) {
			snprintf(why, n,
				 "bad[%u] [%#llx, %#llx) empty or not page "
				 "aligned",
				 i, (unsigned long long)r.start,
				 (unsigned long long)r.end);
			return -EINVAL;
		}
		if (i && r.start <= prev_end) {
			snprintf(why, n,
				 "bad[%u] [%#llx, %#llx) touches or precedes "
				 "bad[%u] (sorted ranges, apart)",
				 i, (unsigned long long)r.start,
				 (unsigned long long)r.end, i - 1);
			return -EINVAL;
		}
		hole = ram_up_to(ram, &at, r.start, r.end);
		if (hole != r.end) {
			snprintf(why, n,
				 "bad[%u] [%#llx, %#llx) lies outside RAM at "
				 "%#llx",
				 i, (unsigned long long)r.start,
				 (unsigned long long)r.end,
				 (unsigned long long)hole);
			return -EINVAL;
		}
		prev_end = r.end;
		h->bad_pages += (r.end - r.start) / PAGE_SIZE;
	}
	return 0;
}

void handover_bad_reserve(struct bootinfo *bi)
{
	const struct bi_handover *h = &bi->handover;

	for (unsigned int i = 0; i < h->bad_count; i++) {
		struct handover_range r = handover_bad_range(h, i);

		bootinfo_add_reserved(bi, pa(r.start), pa(r.end),
				      badmem_region_name(BADMEM_HANDOVER));
	}
}
