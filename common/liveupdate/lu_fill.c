/* SPDX-License-Identifier: MIT */
/*
 * Proof that a domain's memory survived a live update (issue 30 §5): the
 * first image writes a pattern into sampled pages of every domain it
 * hands over; every later image reads them back, word by word
 * (lu_verify.c). A page scrubbed, moved or handed to the heap by any
 * image in between shows as mismatches.
 *
 * Which pages (struct lu_sample, from the options every image reads):
 *  - by default, the first page of a domain's first extent and the last
 *    page of its last one: two pages a domain;
 *  - domain_fill=on: the first and the last page of every extent, and in
 *    each window of domain_fill_sample= bytes of guest-physical space (64
 *    MiB by default) one page at a pseudo-random offset derived from
 *    (domain id, window), when an extent maps it. A sparse 1 TiB domain
 *    costs 16384 pages, not 2^28.
 * Writer and reader derive the same pages from the same extents (the
 * handover's are the writer's, merged the same way).
 *
 * Each 8-byte word depends on (domain id, pfn, word index), so a page
 * mapped at the wrong frame or another domain's page does not match
 * either. No lock: the caller owns the pages it fills or reads.
 */
#include <arch/mm.h>
#include <keel/handover.h>
#include <keel/heap_check.h>
#include <keel/liveupdate.h>
#include <keel/printk.h>

#include "lu_priv.h"

#define WORDS_PER_PAGE (PAGE_SIZE / sizeof(uint64_t))

/**
 * liveupdate_pattern() - the word @word of page @pfn of domain @id.
 * Return: the pattern word (never 0 for the same inputs twice in a row:
 * a zeroed page never matches).
 */
uint64_t liveupdate_pattern(uint16_t id, uint64_t pfn, unsigned int word)
{
	uint64_t x = ((uint64_t)id << 48) ^ (pfn << 9) ^ word;

	x *= 0x9e3779b97f4a7c15ull;
	x ^= x >> 29;
	return x ^ 0x6c75666c6c757066ull;
}

static void fill_page(uint16_t id, paddr_t p)
{
	uint64_t *va = phys_to_virt(p);
	uint64_t pfn = pa_val(p) >> PAGE_SHIFT;

	for (unsigned int w = 0; w < WORDS_PER_PAGE; w++)
		va[w] = liveupdate_pattern(id, pfn, w);
}

static uint64_t check_page(uint16_t id, paddr_t p)
{
	const volatile uint64_t *va = phys_to_virt(p);
	uint64_t pfn = pa_val(p) >> PAGE_SHIFT, bad = 0;

	for (unsigned int w = 0; w < WORDS_PER_PAGE; w++)
		bad += va[w] != liveupdate_pattern(id, pfn, w);
	return bad;
}

/* The sampled page of window @w of domain @id: its guest address. */
static uint64_t window_page(const struct lu_sample *s, uint16_t id, uint64_t w)
{
	uint64_t pages = s->window >> PAGE_SHIFT;

	return w * s->window +
	       ((liveupdate_pattern(id, w, 0) % pages) << PAGE_SHIFT);
}

/**
 * lu_extent_pages() - @fn(@id, page, @arg) for every sampled page of one
 * extent (guest @gpa, host @pa, @pages), as struct lu_sample @s says (see
 * the top); @first / @last: it is the domain's first / last extent. Each
 * page once; a page the heap holds offline not at all (sample()).
 */
typedef void lu_page_fn(uint16_t id, paddr_t p, void *arg);

/* Does a bad record of @h name the page at @pa? O(records x log ranges). */
static bool handed_bad(const struct bi_handover *h, uint64_t pa)
{
	for (unsigned int j = 0; h && j < h->bad_recs; j++) {
		unsigned int lo = 0, hi = h->bad[j].count;

		while (lo < hi) { /* the first range ending above pa */
			unsigned int mid = lo + (hi - lo) / 2;

			if (handover_bad_range(&h->bad[j], mid).end <= pa)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < h->bad[j].count &&
		    handover_bad_range(&h->bad[j], lo).start <= pa)
			return true;
	}
	return false;
}

/*
 * A sampled page the heap holds offline in the domain's extent (issue 38)
 * is left alone: a write, or a read, of it may raise another machine
 * check. The writer and the reader skip the same pages: the new image's
 * restore marks again what the handover's bad records name, and a page
 * they name in a domain whose restore failed (reserved, not the heap's)
 * is skipped by those records.
 */
static void sample(const struct lu_sample *s, uint16_t id, paddr_t p,
		   lu_page_fn *fn, void *arg)
{
	if (heap_page_held_bad(paddr_to_pfn(p)) ||
	    handed_bad(s->handed, pa_val(p))) {
		pr_info("liveupdate: domain %u: its sampled page at %#llx is "
			"offline (a bad page): left alone\n",
			id, (unsigned long long)pa_val(p));
		return;
	}
	fn(id, p, arg);
}

void lu_extent_pages(const struct lu_sample *s, uint16_t id, uint64_t gpa,
		     uint64_t host, uint64_t pages, bool first, bool last,
		     lu_page_fn *fn, void *arg)
{
	uint64_t end = gpa + (pages << PAGE_SHIFT), lastp = end - PAGE_SIZE;
	bool f = first || s->every_extent, l = last || s->every_extent;

	if (!pages)
		return;
	if (f)
		sample(s, id, pa(host), fn, arg);
	if (l && !(f && lastp == gpa))
		sample(s, id, pa(host + (lastp - gpa)), fn, arg);
	if (!s->every_extent || !s->window)
		return;
	for (uint64_t w = gpa / s->window; w <= (end - 1) / s->window; w++) {
		uint64_t g = window_page(s, id, w);

		if (g > gpa && g < lastp)
			sample(s, id, pa(host + (g - gpa)), fn, arg);
	}
}

/** lu_fill_cb() - lu_extent_pages() callback: write the page. */
void lu_fill_cb(uint16_t id, paddr_t p, void *arg)
{
	uint64_t *pages = arg;

	fill_page(id, p);
	(*pages)++;
}

/** lu_check_cb() - lu_extent_pages() callback: read it (struct lu_tally). */
void lu_check_cb(uint16_t id, paddr_t p, void *arg)
{
	struct lu_tally *t = arg;

	t->bad += check_page(id, p);
	t->words += WORDS_PER_PAGE;
}
