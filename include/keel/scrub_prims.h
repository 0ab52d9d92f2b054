/* SPDX-License-Identifier: MIT */
/*
 * The list of scrub primitives an arch offers (include/arch/scrub.h):
 * names and zeroing functions in the arch's order of preference, the
 * first being the default, and the one arch_scrub_select() chose. An arch
 * fills it in arch_scrub_init() and answers arch_scrub_candidates(),
 * arch_scrub_probe(), arch_scrub_select() and arch_scrub_primitive() from
 * it (common/lib/scrub_prims.c). The boot CPU writes it before any worker
 * scrubs; workers only read it: no lock.
 */
#ifndef KEEL_SCRUB_PRIMS_H
#define KEEL_SCRUB_PRIMS_H

#include <arch/scrub.h>
#include <keel/types.h>

typedef void (*scrub_zero_fn)(void *va, size_t len);

struct scrub_prims {
	const char *name[ARCH_SCRUB_MAX_PRIMITIVES];
	scrub_zero_fn zero[ARCH_SCRUB_MAX_PRIMITIVES];
	unsigned int count; /* listed */
	unsigned int cur;   /* in use: an index below count */
};

/* Append @name / @zero (a full list keeps what it has). */
void scrub_prims_add(struct scrub_prims *p, const char *name,
		     scrub_zero_fn zero);

/* arch_scrub_candidates() of @p. Return: names stored in @names. */
unsigned int scrub_prims_names(const struct scrub_prims *p, const char **names,
			       unsigned int max);

/* Candidate @idx, or the default (0) when @idx is out of range. */
static inline unsigned int scrub_prims_pick(const struct scrub_prims *p,
					    unsigned int idx)
{
	return idx < p->count ? idx : 0;
}

#endif
