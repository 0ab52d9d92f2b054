/* SPDX-License-Identifier: MIT */
/*
 * Owner: report.
 * The page audit (common/report/audit.c): every RAM page is free, allocated (to
 * keel or to exactly one domain), reserved or bad, and the heap's free lists
 * and blocks agree with its counters.
 */
#ifndef KEEL_AUDIT_H
#define KEEL_AUDIT_H

#include <keel/types.h>

struct jw;

struct audit_result {
	uint64_t ram_pages;
	uint64_t free_pages;	  /* walked on the free lists */
	uint64_t allocated_pages; /* heap blocks currently allocated */
	uint64_t owned_pages;	  /* of those, in domains' owned extents */
	uint64_t reserved_pages;  /* RAM in named reserved regions, bad apart */
	uint64_t bad_pages;	  /* RAM out of service (keel/badmem.h) */
	uint64_t refused_pages;	  /* free RAM the heap refused at the handoff */
	int64_t lost_pages; /* ram - free - allocated - reserved - bad - refused */
	unsigned int problems; /* heap_check() findings (audit=full) */
	bool ok;
};

/* Walk the heap and bootmem; @full adds heap_check() (audit=full). */
void audit_run(struct audit_result *out, bool full);

#endif
