/* SPDX-License-Identifier: MIT */
/*
 * The frame table's place across a live update (include/keel/handover.h,
 * HANDOVER_REC_FT_PLACE; docs/liveupdate.md): the old image names where
 * its table lies (lu_write_ft_place(), beside the domains), the new one
 * hands a taken handover's pieces to frametable_hint() before its
 * frametable_init() (liveupdate_frametable_hint()), which puts its table
 * there again when it is free. Boot CPU only.
 */
#include <keel/bootinfo.h>
#include <keel/frametable.h>
#include <keel/handover.h>
#include <keel/liveupdate.h>

#include "lu_priv.h"

void liveupdate_frametable_hint(const struct bootinfo *bi)
{
	struct frametable_piece f[HANDOVER_FT_PIECES_MAX];
	const struct bi_handover *in = &bi->handover;
	unsigned int n = in->state == HANDOVER_TAKEN ? in->ft_count : 0;

	for (unsigned int i = 0; i < n; i++) {
		struct handover_ft_piece h = handover_ft_piece(in, i);

		f[i] = (struct frametable_piece){h.start, h.end, h.node, 0};
	}
	frametable_hint(f, n);
}

/* This image's frame table placement, for the next one (a hint). */
void lu_write_ft_place(struct ho_writer *w)
{
	struct frametable_piece f[HANDOVER_FT_PIECES_MAX];
	struct handover_ft_piece h[HANDOVER_FT_PIECES_MAX];
	unsigned int n = frametable_placement(f, HANDOVER_FT_PIECES_MAX);

	for (unsigned int i = 0; i < n; i++)
		h[i] = (struct handover_ft_piece){f[i].start, f[i].end,
						  f[i].node, 0};
	ho_ft_place(w, h, n);
}
