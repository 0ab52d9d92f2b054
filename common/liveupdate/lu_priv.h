/* SPDX-License-Identifier: MIT */
/*
 * What the files of common/liveupdate/ share (include/keel/liveupdate.h
 * is the room's public side).
 */
#ifndef COMMON_LU_PRIV_H
#define COMMON_LU_PRIV_H

#include <keel/liveupdate.h>
#include <keel/types.h>

struct bootinfo;

/* lu_fill.c: a domain's first and last page, from its extents in order. */
struct lu_edges {
	bool any;
	paddr_t first, last;
};
void lu_edges_cb(uint64_t gpa, paddr_t pa, uint64_t pages, void *arg);

/* liveupdate.c: the domains this image built and hands over. */
struct domain_set;
unsigned int lu_built_domains(const struct domain_set *ds);

/*
 * lu_inject.c: inject=handover-* on the written handover [buf, buf +
 * size) (checksum recomputed after each but handover-checksum). Return:
 * the size the new image is told (8 short with handover-truncate).
 */
uint64_t lu_inject(uint8_t *buf, uint64_t size, const struct bootinfo *bi);
/* Without liveupdate=: one warning per handover-* word armed. */
void lu_inject_unused(void);

#endif
