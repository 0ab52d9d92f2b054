/* SPDX-License-Identifier: MIT */
/*
 * Proof that a domain's memory survived a live update (issue 30 §5, the
 * seed of domain_fill=on): the first image writes a pattern into the
 * first and the last page of every domain it hands over; every later
 * image reads the two pages back, word by word. A page scrubbed, moved or
 * handed to the heap by any image in between shows as mismatches.
 *
 * Each 8-byte word depends on (domain id, pfn, word index), so a page
 * mapped at the wrong frame or another domain's page does not match
 * either. Runs on the boot CPU; costs two pages per domain.
 */
#include <arch/mm.h>
#include <keel/liveupdate.h>

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

/**
 * liveupdate_domain_fill() - write the pattern of domain @id into its
 * first page @first and its last page @last (once when they are one).
 */
void liveupdate_domain_fill(uint16_t id, paddr_t first, paddr_t last)
{
	fill_page(id, first);
	if (pa_val(last) != pa_val(first))
		fill_page(id, last);
}

/**
 * liveupdate_domain_check() - read back what liveupdate_domain_fill()
 * wrote.
 * @id: the domain
 * @first: its first page
 * @last: its last page
 * @words: out, incremented by the words read
 *
 * Return: the words that do not match.
 */
uint64_t liveupdate_domain_check(uint16_t id, paddr_t first, paddr_t last,
				 uint64_t *words)
{
	uint64_t bad = check_page(id, first);

	*words += WORDS_PER_PAGE;
	if (pa_val(last) != pa_val(first)) {
		bad += check_page(id, last);
		*words += WORDS_PER_PAGE;
	}
	return bad;
}

/**
 * lu_edges_cb() - domain_view_extents() callback: the first page of the
 * first extent and the last page of the last (struct lu_edges @arg).
 */
void lu_edges_cb(uint64_t gpa, paddr_t p, uint64_t pages, void *arg)
{
	struct lu_edges *e = arg;

	(void)gpa;
	if (!e->any)
		e->first = p;
	e->last = pa_add(p, (pages - 1) << PAGE_SHIFT);
	e->any = true;
}
