/* SPDX-License-Identifier: MIT */
/*
 * inject=poison-domain:ID (issue 38 §3, the sandbox's machine check while
 * domains are built): once the domains are built and checked, before any
 * guest runs, the page at the middle of domain ID's guest memory goes bad:
 * heap_offline_owned() marks it in the domain's extent (still the
 * domain's: its report row says bad_pages, its free withholds the page, a
 * live update hands it on). Only into a domain this image built: a
 * domain that came with a handover gets nothing (the word stays on the
 * command line of every image of liveupdate=N; one line says so).
 *
 * inject=poison-late:PFN: the same point, for page frame PFN wherever it
 * is then (free, a domain's, keel's): heap_offline(), in every image (a
 * page a handover carried is refused as already offline, one warning).
 *
 * Boot CPU, no guest running, no lock of its own.
 */
#include <arch/mm.h>
#include <keel/domain.h>
#include <keel/heap.h>
#include <keel/inject.h>
#include <keel/p2m.h>
#include <keel/printk.h>

/* The domain of @s with id @id, or NULL. */
static struct domain *domain_of(struct domain_set *s, uint64_t id)
{
	for (unsigned int i = 0;
	     i < domain_set_stats(s)->count && i < DOMAIN_MAX; i++)
		if (s->d[i].id == id)
			return &s->d[i];
	return NULL;
}

static void poison_one(uint64_t id, void *arg)
{
	const enum heap_bad_reason why = (enum heap_bad_reason)(
		HEAP_BAD_BROKEN | HEAP_BAD_FROM_INJECTION);
	struct domain *d = domain_of(arg, id);
	uint64_t gpa;
	paddr_t at;
	int err;

	if (d && d->origin == DOMAIN_ORIGIN_HANDOVER) {
		pr_info("inject=poison-domain:%llu: %s came with the handover: "
			"nothing injected (the image that built it did)\n",
			(unsigned long long)id, d->shown);
		return;
	}
	if (!d || !d->p2m || !d->built) {
		pr_warn("inject=poison-domain:%llu: no built domain has that "
			"id, nothing injected\n",
			(unsigned long long)id);
		return;
	}
	gpa = (d->bytes_built / 2) & ~(uint64_t)(PAGE_SIZE - 1);
	err = p2m_translate(d->p2m, gpa, &at, NULL);
	if (!err)
		err = heap_offline_owned(paddr_to_pfn(at), d->id, why);
	if (err) {
		pr_warn("inject=poison-domain:%llu: guest %#llx: %d, nothing "
			"injected\n",
			(unsigned long long)id, (unsigned long long)gpa, err);
		return;
	}
	pr_info("inject=poison-domain:%llu: guest %#llx, host pfn %#llx "
		"offlined (broken), still %s's\n",
		(unsigned long long)id, (unsigned long long)gpa,
		(unsigned long long)pfn_val(paddr_to_pfn(at)), d->shown);
}

/** domains_poison_pfn() - see keel/domain.h. */
void domains_poison_pfn(const char *kind, uint64_t n, const char *after)
{
	const enum heap_bad_reason why = (enum heap_bad_reason)(
		HEAP_BAD_BROKEN | HEAP_BAD_FROM_INJECTION);
	int err = heap_offline(pfn(n), why);

	if (err)
		pr_warn("inject=%s:%llu: heap_offline() refused it (%d), "
			"nothing injected\n",
			kind, (unsigned long long)n, err);
	else
		pr_info("inject=%s:%llu: pfn %#llx offlined (broken)%s\n", kind,
			(unsigned long long)n, (unsigned long long)n, after);
}

/* inject=poison-late:N: page frame N, wherever it is now (one line). */
static void poison_late(uint64_t n, void *arg)
{
	(void)arg;
	domains_poison_pfn("poison-late", n, "");
}

/**
 * domains_inject_poison() - each inject=poison-domain:ID and
 * inject=poison-late:PFN word, after the domains of @s (see the top of
 * the file).
 * @s: the domains, built and checked (or restored; NULL: none)
 */
void domains_inject_poison(struct domain_set *s)
{
	inject_for_each(INJECT_POISON_DOMAIN, poison_one, s);
	inject_for_each(INJECT_POISON_LATE, poison_late, NULL);
}
