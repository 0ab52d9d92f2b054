/* SPDX-License-Identifier: MIT */
/*
 * Domains, read-only: what the rooms above the domain room (the report,
 * the self-tests, the guests) read of a struct domain_set -- its counters
 * (domain_set_stats()) and one domain at a time as a struct domain_view,
 * a copy that says what was asked, where it went and what its build did.
 * The report does its joins and sums from these alone; it never sees a
 * domain's work state (units, big extents, the table).
 *
 * Boot CPU, once the builds are over (or before they start); no lock.
 */
#include <keel/compiler.h>
#include <keel/domain.h>
#include <keel/string.h>

/** domain_set_stats() - Return: @s's counters (keel/domain.h). */
const struct domain_set_stats *domain_set_stats(const struct domain_set *s)
{
	return &s->stats;
}

static unsigned int domain_cpus(const struct domain *d)
{
	unsigned int n = 0;

	for (unsigned int w = 0; w < ARRAY_SIZE(d->cpu_bits); w++)
		n += (unsigned int)__builtin_popcountll(d->cpu_bits[w]);
	return n;
}

/**
 * domain_view() - domain @i of @s as the rooms above see it (keel/domain.h).
 * Return: false when @s has no domain @i.
 */
bool domain_view(const struct domain_set *s, unsigned int i,
		 struct domain_view *v)
{
	const struct domain *d;

	if (i >= s->stats.count)
		return false;
	d = &s->d[i];
	*v = (struct domain_view){
		.id = d->id,
		.name = d->name,
		.shown = d->shown,
		.kernel = d->kernel[0] ? d->kernel : NULL,
		.fail_reason = d->failed ? d->fail_reason : NULL,
		.origin = d->origin,
		.asked_node = d->spec.node,
		.node = d->node,
		.vcpus = d->vcpus,
		.built = d->built,
		.failed = d->failed,
		.bytes = d->spec.bytes,
		.remote_bytes = d->remote_bytes,
		.heap_extents = d->heap_extents,
		.build_ticks = d->built && d->end_ticks >= d->start_ticks
				       ? d->end_ticks - d->start_ticks
				       : 0,
		.alloc_ticks = d->alloc_ticks,
		.zero_ticks = d->zero_ticks,
		.map_ticks = d->map_ticks,
		.maint_ticks = d->maint_ticks,
		.lock_max_ticks = d->lock_max_ticks,
		.table_pages = d->table_pages,
		.cpus = domain_cpus(d),
		.build_node = d->build_node,
		.p2m = d->built && !d->failed && !d->destroyed ? d->p2m : NULL,
		.user_data = d->origin == DOMAIN_ORIGIN_STATIC,
	};
	memcpy(v->extents, d->extents, sizeof(v->extents));
	return true;
}
