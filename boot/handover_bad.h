/* SPDX-License-Identifier: MIT */
/*
 * Between the handover reader (boot/handover.c) and its bad-page records
 * (boot/handover_bad.c): the checksum taken with the records' range
 * checks, one read of their bytes instead of two (100,000 ranges, 1.6 MB,
 * in a live update's downtime). The checks' results wait for the walk
 * of the records, which takes them in their place: the refusals and
 * their order are the plain reader's.
 */
#ifndef BOOT_HANDOVER_BAD_H
#define BOOT_HANDOVER_BAD_H

#include <keel/handover.h>
#include <keel/range_table.h>
#include <keel/types.h>

/* One bad-page record's ranges, walked with the checksum. */
struct ho_bad_pre {
	uint64_t off;	/* the record's offset in the handover */
	uint64_t pages; /* theirs, when @ok */
	bool ok;	/* every range taken (else checked again, named) */
};

struct ho_bad_pres {
	unsigned int n;
	struct ho_bad_pre rec[HANDOVER_BAD_RECS_MAX];
};

/*
 * handover_checksum_checked() - handover_checksum() of the handover @v
 * (offsets [0, v->size), at least the header), the ranges of each
 * bad-page record (version 4 on, of the first @records, while their
 * heads are sound) checked as handover_bad_parse() does, a chunk at a
 * time right after the chunk's CRC, into @pre; in pieces, the CRC only
 * (@pre empty: each record checks its own ranges). Return: the checksum.
 */
uint32_t handover_checksum_checked(const struct handover_view *v,
				   uint32_t records, uint32_t version,
				   const struct range_table *ram,
				   struct ho_bad_pres *pre);
/* The record at @off's walk in @pre, or NULL. */
const struct ho_bad_pre *handover_bad_pre_at(const struct ho_bad_pres *pre,
					     uint64_t off);
/*
 * handover_bad_parse() with its ranges' walk @pre (NULL: none) taken
 * when every range passed; else they are checked here.
 */
int handover_bad_parse_pre(struct bi_handover *h, const struct range_table *ram,
			   const struct handover_view *v, uint64_t off,
			   uint32_t bytes, uint32_t version, char *why,
			   size_t n, const struct ho_bad_pre *pre);

#endif /* BOOT_HANDOVER_BAD_H */
