/* SPDX-License-Identifier: MIT */
/*
 * Who claims RAM before bootmem exists (include/keel/bootinfo.h): a
 * reserved range, a bad range a live update's handover carried, a page
 * of a badram= lattice. For what an arch places or writes then, once
 * fwboot_finish() has read every source: x86_64's page tables past its
 * static pool, its SMP trampoline page, the room kept for a bigger next
 * image. Reads the bootinfo only. No lock: the boot CPU, once.
 */
#include <keel/bootinfo.h>
#include <keel/compiler.h>
#include <keel/string.h>

/* The lowest claim found so far on [s, e): [cs, ce), named. */
struct claim {
	uint64_t s, e, cs, ce;
	const char *name;
};

/* [@rs, @re), named @name, claims part of @c's range: lowest so far? */
static void claim_see(struct claim *c, uint64_t rs, uint64_t re,
		      const char *name)
{
	if (rs < c->e && c->s < re && MAX(rs, c->s) < c->cs) {
		c->cs = MAX(rs, c->s);
		c->ce = re;
		c->name = name;
	}
}

/* The claim on [c->s, c->e) that starts lowest, into @c (name NULL: none). */
static void lowest_claim(const struct bootinfo *bi, const char *ignore,
			 struct claim *c)
{
	const struct bi_handover *h = &bi->handover;
	uint64_t rs, re;

	c->cs = c->ce = c->e;
	c->name = NULL;
	for (unsigned int i = 0; i < bi->reserved.count; i++) {
		const struct region *r = &bi->reserved.regions[i];

		if (!ignore || strcmp(r->name, ignore))
			claim_see(c, pa_val(r->start), pa_val(r->end), r->name);
	}
	for (unsigned int i = 0; bootinfo_carried(bi, NULL) && i < h->bad_recs;
	     i++) {
		const struct bi_handover_bad *b = &h->bad[i];
		unsigned int at = handover_bad_bound(b, c->s, true);
		struct handover_range r;

		if (at >= b->count)
			continue;
		r = handover_bad_range(b, at);
		claim_see(c, r.start, r.end, "a bad page the handover carried");
	}
	for (unsigned int i = 0; i < bi->lattice_count; i++)
		if (lattice_run_after(&bi->lattice[i], c->s >> PAGE_SHIFT, &rs,
				      &re))
			claim_see(c, rs << PAGE_SHIFT, re << PAGE_SHIFT,
				  "a page of a badram= pattern");
}

/**
 * bootinfo_claim() - who has a claim on a byte of [@s, @e) before bootmem
 * exists: a reserved range, a bad range a handover carried, a page of a
 * badram= lattice? The one that starts lowest. For an arch that must
 * place or write memory of its own then (x86_64's page tables past its
 * static pool, its SMP trampoline), after fwboot_finish() has read every
 * source. O(reserved + carried records x log ranges + lattices).
 * @ignore: a reservation name that is no claim here (NULL: none)
 * @skip_to: where that claim ends (set when there is one)
 * Return: its name, NULL when [@s, @e) is clear.
 */
const char *bootinfo_claim(const struct bootinfo *bi, uint64_t s, uint64_t e,
			   const char *ignore, uint64_t *skip_to)
{
	struct claim c = {.s = s, .e = e};

	lowest_claim(bi, ignore, &c);
	if (c.name)
		*skip_to = c.ce;
	return c.name;
}

/**
 * bootinfo_add_room() - reserve, named @name, the pages of [@s, @e) that
 * nothing claims (bootinfo_claim()): a room keel keeps for later (a
 * bigger next image) around what lies there. Reserved whole, it would
 * name the bytes of a bad page inside it (bootmem: the lower start names
 * them), which then counted as room: a live update wrote the next image
 * over a page badpage= named. After fwboot_finish(). O(claims in the
 * room x (reserved + carried records x log ranges + lattices)).
 */
void bootinfo_add_room(struct bootinfo *bi, paddr_t s, paddr_t e,
		       const char *name)
{
	struct claim c = {.s = ALIGN_UP(pa_val(s), PAGE_SIZE),
			  .e = ALIGN_DOWN(pa_val(e), PAGE_SIZE)};

	while (c.s < c.e) {
		uint64_t cs;

		lowest_claim(bi, NULL, &c);
		cs = ALIGN_DOWN(c.cs, PAGE_SIZE);
		if (cs > c.s)
			bootinfo_add_reserved(bi, pa(c.s), pa(cs), name);
		if (!c.name)
			return;
		c.s = MAX(ALIGN_UP(c.ce, PAGE_SIZE), cs + PAGE_SIZE);
	}
}
