/* SPDX-License-Identifier: MIT */
/*
 * Between the handover reader (boot/handover.c) and the checks of the
 * handover's own memory (boot/handover_pieces.c): the lookups of RAM and
 * reserved ranges both make, the pieces' check, and their reservation.
 */
#ifndef BOOT_HANDOVER_PRIV_H
#define BOOT_HANDOVER_PRIV_H

#include <keel/bootinfo.h>
#include <keel/handover.h>

/* Reserved ranges so named are a domain's own memory (xen,static-mem). */
#define STATIC_MEM_NAME "static-mem"

/* The first address of [s, e) no RAM range of @bi holds, or @e. */
uint64_t ho_first_not_ram(const struct bootinfo *bi, uint64_t s, uint64_t e);
/* What a reserved range is, for an error: "the new image" or firmware's. */
const char *ho_reserved_what(const struct region *r);
/*
 * ho_pieces_check() - the memory of the handover whose header @hd lies at
 * physical @pa, @len bytes readable from @v->head (@v->size the header's
 * size): one block (piece_count 0) in RAM, clear of @bi's reserved
 * ranges, the size within @len; or version 7's pieces, their record in
 * piece 0, each aligned, ascending, in RAM and clear of reserved ranges,
 * read before any byte past piece 0 (@v then reads them all).
 * Return: 0, or -EINVAL with @why (@wn bytes), no "handover: " prefix.
 */
int ho_pieces_check(const struct bootinfo *bi, const struct handover_header *hd,
		    uint64_t len, uint64_t pa, struct handover_view *v,
		    char *why, size_t wn);
/* Does [@s, @e) overlap the handover's memory (@pa: piece 0's)? */
bool ho_on_handover(const struct handover_view *v, uint64_t pa, uint64_t s,
		    uint64_t e);
/* The handover taken: its block or each piece reserved as "handover". */
void ho_reserve_self(struct bootinfo *bi);

#endif /* BOOT_HANDOVER_PRIV_H */
