// SPDX-License-Identifier: MIT
/*
 * Domains: what every file of the room shares, and calls nothing else of
 * it (the room's leaf, so that its files call one way): the extent orders,
 * a domain's name and failure, its problem counter, the size rule's
 * warning, the context a build runs under, and what the build does to an
 * extent's contents -- zeroing memory not known clean on the building CPU
 * in pieces of at most 2 MiB, and cache maintenance to PoC by range with
 * no heap lock held (physically adjacent extents of a unit merged into
 * one range), used by the build, the prefix extents and destroy.
 *
 * Locks: none; the statistics are atomics.
 */
#include <arch/cache.h>
#include <arch/mm.h>
#include <keel/atomic.h>
#include <keel/cachemaint.h>
#include <keel/domain.h>
#include <keel/escape.h>
#include <keel/heap.h>
#include <keel/options.h>
#include <keel/printk.h>
#include <keel/scrub.h>
#include <keel/scrub_prims.h>
#include <keel/string.h>

#include "domain_priv.h"

const unsigned int domain_extent_order[DOMAIN_EXTENT_KINDS] = {18, 9, 0};

/**
 * domain_set_name() - @d's name (whole; it fits DOMAIN_NAME_MAX) and its
 * printable copy for the human lines (escape_bytes(): a DT node name may
 * hold control bytes; the JSON escapes the name itself).
 */
void domain_set_name(struct domain *d, const char *name)
{
	strlcpy(d->name, name, sizeof(d->name));
	escape_bytes(d->shown, sizeof(d->shown), d->name, strlen(d->name));
}

/** domain_fail() - @d cannot be built: failed, @why its reason. */
void domain_fail(struct domain *d, const char *why)
{
	d->failed = true;
	strlcpy(d->fail_reason, why, sizeof(d->fail_reason));
}

/**
 * domain_ctx_init() - what a build runs under (keel/domain.h): @o's
 * bootscrub=off and domains_trust=, problems counted in *@problems.
 */
void domain_ctx_init(struct domain_ctx *c, const struct keel_options *o,
		     unsigned int *problems)
{
	c->scrub_off = o->bootscrub == SCRUB_OFF;
	c->trust_zero = o->domains_trust;
	c->problems = problems;
}

/**
 * domain_warn_rounded() - the size rule's one warning (keel/domain.h), for
 * a domain= word and a dom0less `memory` alike.
 * @src: who read the value ("cmdline", "domains").
 * @what: the value as its source spells it.
 * @rounded: the size it became.
 */
void domain_warn_rounded(const char *src, const char *what, uint64_t rounded)
{
	pr_warn("%s: %s is not a multiple of 4K, rounded up to %llu bytes\n",
		src, what, (unsigned long long)rounded);
}

/*
 * bootscrub=off: the heap calls memory clean that nobody zeroed (the
 * firmware's leftovers, another guest's data after a kexec): the build
 * zeroes every extent of @d itself, as it would a dirty one -- unless
 * domains_trust=on says the memory is known zero (a fresh sandbox arena,
 * QEMU's RAM: the clean-build benchmarks on sparse RAM).
 */
bool domain_zero_untrusted(const struct domain *d)
{
	return d->ctx->scrub_off && !d->ctx->trust_zero;
}

/* @n problems a destroy of @d found, counted where its context says. */
void domain_problem(const struct domain *d, unsigned int n)
{
	atomic_fetch_add_relaxed(d->ctx->problems, n);
}

#define ZERO_PIECE (2ull << 20) /* as the heap: at most 2 MiB per call */

/* Zero [pa, pa + bytes) on this CPU with the scrub's primitive. */
void domain_extent_zero(struct domain *d, paddr_t pa, uint64_t bytes)
{
	uint64_t t0 = arch_ticks();

	for (uint64_t off = 0; off < bytes; off += ZERO_PIECE)
		arch_scrub_range(phys_to_virt(pa_add(pa, off)),
				 (size_t)(bytes - off < ZERO_PIECE
						  ? bytes - off
						  : ZERO_PIECE));
	atomic_fetch_add_relaxed(&d->zero_ticks, arch_ticks() - t0);
	atomic_fetch_add_relaxed(&d->zeroed_bytes, bytes);
}

void domain_atomic_max(uint64_t *p, uint64_t v)
{
	uint64_t cur = atomic_load_relaxed(p);

	while (cur < v && !atomic_cmpxchg(p, &cur, v))
		;
}

const struct cachemaint *domain_maint(const struct domain *d)
{
	return d->ctx->maint ? d->ctx->maint : heap_cachemaint();
}

bool domain_maint_needed(const struct domain *d)
{
	return cachemaint_by_range(domain_maint(d));
}

/* Clean+invalidate the pending range (one barrier), counted like the heap's. */
void domain_maint_flush(struct domain *d, struct maint_acc *acc)
{
	uint64_t t0;

	if (!acc->bytes)
		return;
	t0 = arch_ticks();
	cachemaint_range(domain_maint(d), acc->start, acc->bytes);
	atomic_fetch_add_relaxed(&d->maint_ticks, arch_ticks() - t0);
	atomic_fetch_add_relaxed(&d->maint_bytes, acc->bytes);
	acc->bytes = 0;
}

/* Add [pa, pa + bytes) to the pending range, flushing when not adjacent. */
void domain_maint_add(struct domain *d, struct maint_acc *acc, paddr_t pa,
		      uint64_t bytes)
{
	if (acc->bytes && pa_val(acc->start) + acc->bytes == pa_val(pa)) {
		acc->bytes += bytes;
		return;
	}
	domain_maint_flush(d, acc);
	acc->start = pa;
	acc->bytes = bytes;
}
