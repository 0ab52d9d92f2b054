/* SPDX-License-Identifier: MIT */
/*
 * Domains, read from above: the one view of a built domain that the
 * guests (common/guest/, DESIGN §14) take, so that they need nothing of
 * the domain table's layout. Boot CPU, between the build and destroy; no
 * lock.
 */
#include <keel/domain.h>

#include "domain_priv.h"

/**
 * domain_view() - domain @i as a guest sees it (keel/domain.h).
 * @i: 0 .. domain_count() - 1
 * @out: filled when it is built
 *
 * Return: false when @i is no domain, failed, or is destroyed.
 */
bool domain_view(unsigned int i, struct domain_view *out)
{
	const struct domain *d;

	if (i >= domains_count)
		return false;
	d = &domains[i];
	if (!d->built || d->failed || d->destroyed || !d->p2m)
		return false;
	out->id = d->id;
	out->node = d->node;
	out->build_node = d->build_node;
	out->bytes = d->spec.bytes;
	out->p2m = d->p2m;
	out->name = d->shown;
	out->user_data = d->origin == DOMAIN_ORIGIN_STATIC;
	return true;
}
