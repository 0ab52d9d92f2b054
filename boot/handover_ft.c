/* SPDX-License-Identifier: MIT */
/*
 * The frame table's placement in a live update's handover (optional
 * record HANDOVER_REC_FT_PLACE, include/keel/handover.h): where the last
 * image's table lay, which the new one takes again when it is free
 * (common/mm/frametable.c). boot/handover.c calls handover_ft_parse() for
 * the record in its first walk. Pure: reads the record (its bytes checked
 * inside the handover by the caller), writes @h's ft fields.
 */
#include <keel/bootinfo.h>
#include <keel/compiler.h>
#include <keel/handover.h>
#include <keel/printk.h>
#include <keel/string.h>

#include "boot_priv.h"

/*
 * The frame table's placement (HANDOVER_REC_FT_PLACE): an optional hint,
 * so a malformed record is one warning and skipped, never a refusal.
 * Each piece page aligned, not empty, a node below MAX_NUMNODES or the
 * section table, each at most once; whether it is free is bootmem's to
 * say (frametable_init()).
 */
void handover_ft_parse(struct bi_handover *h, unsigned int i, uint64_t off,
		       uint32_t bytes)
{
	struct handover_preserved p;
	uint64_t seen[(MAX_NUMNODES + 64) / 64] = {0};
	bool sections = false;
	const char *why = NULL;

	memset(&p, 0, sizeof(p));
	handover_view_read(&h->view, off, &p, MIN((size_t)bytes, sizeof(p)));
	if (bytes < sizeof(p) ||
	    (uint64_t)p.count * sizeof(struct handover_ft_piece) !=
		    bytes - sizeof(p) ||
	    p.count > HANDOVER_FT_PIECES_MAX)
		why = "its count does not fill its bytes";
	h->ft_pieces = off + sizeof(p);
	h->ft_count = why ? 0 : p.count;
	for (unsigned int k = 0; !why && k < p.count; k++) {
		struct handover_ft_piece f = handover_ft_piece(h, k);
		bool again;

		if (f.node == HANDOVER_FT_SECTIONS) {
			again = sections;
			sections = true;
		} else if (f.node < MAX_NUMNODES) {
			again = (seen[f.node / 64] >> (f.node % 64)) & 1;
			seen[f.node / 64] |= 1ULL << (f.node % 64);
		} else {
			again = true;
		}
		if (!IS_ALIGNED(f.start, PAGE_SIZE) ||
		    !IS_ALIGNED(f.end, PAGE_SIZE) || f.start >= f.end)
			why = "a piece empty or not page aligned";
		else if (again)
			why = "a node unknown or twice";
	}
	if (why) {
		pr_warn("handover: record %u: frame table placement of %u "
			"bytes skipped (%s): the table is placed afresh\n",
			i, bytes, why);
		h->ft_pieces = 0;
		h->ft_count = 0;
	}
}
