/* SPDX-License-Identifier: MIT */
/*
 * The arch's list of scrub primitives (include/keel/scrub_prims.h).
 */
#include <keel/compiler.h>
#include <keel/scrub_prims.h>

/**
 * scrub_prims_add() - append a primitive to the list.
 * @p: the list
 * @name: for the report ("movnti", "memset", ...)
 * @zero: zeroes [va, va+len), page aligned
 */
void scrub_prims_add(struct scrub_prims *p, const char *name,
		     scrub_zero_fn zero)
{
	if (p->count >= ARCH_SCRUB_MAX_PRIMITIVES)
		return;
	p->name[p->count] = name;
	p->zero[p->count] = zero;
	p->count++;
}

/**
 * scrub_prims_names() - the names of the list, in order.
 * @p: the list
 * @names: out
 * @max: room in @names
 *
 * Return: how many were stored.
 */
unsigned int scrub_prims_names(const struct scrub_prims *p, const char **names,
			       unsigned int max)
{
	unsigned int n = MIN(p->count, max);

	for (unsigned int i = 0; i < n; i++)
		names[i] = p->name[i];
	return n;
}
