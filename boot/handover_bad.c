// SPDX-License-Identifier: MIT
/*
 * The bad-page records of a handover (version 4 on, include/keel/handover.h):
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

/*
 * Record @rec (@b)'s ranges: aligned, sorted and apart, in @ram; their
 * pages (of those before the first refused) added to *@pages. One pass
 * in locals (a live update's 100,000 ranges): a range inside the RAM
 * range the last one ended in is checked by two compares, ram_up_to()
 * only when it is not. Return: 0, or -EINVAL with @why.
 */
static int check_ranges(const struct bi_handover_bad *b, unsigned int rec,
			const struct range_table *ram, uint64_t *pages,
			char *why, size_t n)
{
	const uint8_t *at_rec = b->ranges;
	uint64_t prev_end = 0, in_s = 1, in_e = 0, sum = 0;
	unsigned int at = 0, count = b->count, i;

	for (i = 0; i < count; i++) {
		struct handover_range r;
		uint64_t hole;

		memcpy(&r, at_rec + (size_t)i * sizeof(r), sizeof(r));
		if ((r.start | r.end) & (PAGE_SIZE - 1) || r.start >= r.end) {
			snprintf(why, n,
				 "bad[%u][%u] [%#llx, %#llx) empty or not page "
				 "aligned",
				 rec, i, U64(r.start), U64(r.end));
			break;
		}
		if (i && r.start <= prev_end) {
			snprintf(why, n,
				 "bad[%u][%u] [%#llx, %#llx) touches or "
				 "precedes bad[%u][%u] (sorted ranges, apart)",
				 rec, i, U64(r.start), U64(r.end), rec, i - 1);
			break;
		}
		if (r.start < in_s || r.end > in_e) {
			hole = ram_up_to(ram, &at, r.start, r.end);
			if (hole != r.end) {
				snprintf(why, n,
					 "bad[%u][%u] [%#llx, %#llx) lies "
					 "outside RAM at %#llx",
					 rec, i, U64(r.start), U64(r.end),
					 U64(hole));
				break;
			}
			/* RAM range @at holds its end: the next ones too? */
			if (at < ram->count) {
				in_s = pa_val(ram->regions[at].start);
				in_e = pa_val(ram->regions[at].end);
			}
		}
		prev_end = r.end;
		sum += (r.end - r.start) / PAGE_SIZE;
	}
	/* As each range was checked: the pages of those before a refusal. */
	*pages += sum;
	return i < count ? -EINVAL : 0;
}

int handover_bad_parse(struct bi_handover *h, const struct range_table *ram,
		       const uint8_t *rec, uint32_t bytes, uint32_t version,
		       char *why, size_t n)
{
	struct handover_preserved p;
	struct bi_handover_bad *b = &h->bad[h->bad_recs];
	uint32_t src;

	if (bytes < sizeof(p)) {
		snprintf(why, n, "bad-page record of %u bytes", bytes);
		return -EINVAL;
	}
	memcpy(&p, rec, sizeof(p));
	src = version < 5 ? HANDOVER_BAD_UNKNOWN : p.pad;
	if ((uint64_t)p.count * sizeof(struct handover_range) !=
	    bytes - sizeof(p)) {
		snprintf(why, n, "bad count %u does not fill its %u bytes",
			 p.count, bytes);
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
	b->ranges = rec + sizeof(p);
	b->count = p.count;
	b->source = src;
	if (check_ranges(b, h->bad_recs, ram, &h->bad_pages, why, n))
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
