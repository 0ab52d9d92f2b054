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

/* The first page of [@s, @e) (pages) lattice @l names: its run's end in @end. */
static bool lattice_hits(const struct lattice *l, uint64_t s, uint64_t e,
			 uint64_t *end)
{
	uint64_t rs, re;

	if (!lattice_run_after(l, s, &rs, &re) || rs >= e)
		return false;
	*end = re;
	return true;
}

/**
 * bootinfo_claim() - who has a claim on a byte of [@s, @e) before bootmem
 * exists: a reserved range, a bad range a handover carried, a page of a
 * badram= lattice? For an arch that must place or write memory of its own
 * then (x86_64's page tables past its static pool, its SMP trampoline),
 * after fwboot_finish() has read every source. O(reserved + carried
 * records x log ranges + lattices).
 * @ignore: a reservation name that is no claim here (NULL: none)
 * @skip_to: where the first claim found ends (set when there is one)
 * Return: its name, NULL when [@s, @e) is clear.
 */
const char *bootinfo_claim(const struct bootinfo *bi, uint64_t s, uint64_t e,
			   const char *ignore, uint64_t *skip_to)
{
	const struct bi_handover *h = &bi->handover;
	uint64_t end;

	for (unsigned int i = 0; i < bi->reserved.count; i++) {
		const struct region *r = &bi->reserved.regions[i];

		if (pa_val(r->start) < e && s < pa_val(r->end) &&
		    (!ignore || strcmp(r->name, ignore))) {
			*skip_to = pa_val(r->end);
			return r->name;
		}
	}
	for (unsigned int i = 0; bootinfo_carried(bi, NULL) && i < h->bad_recs;
	     i++) {
		const struct bi_handover_bad *b = &h->bad[i];
		unsigned int at = handover_bad_bound(b, s, true);
		struct handover_range r;

		if (at >= b->count)
			continue;
		r = handover_bad_range(b, at);
		if (r.start < e) {
			*skip_to = r.end;
			return "a bad page the handover carried";
		}
	}
	for (unsigned int i = 0; i < bi->lattice_count; i++)
		if (lattice_hits(&bi->lattice[i], s >> PAGE_SHIFT,
				 ALIGN_UP(e, PAGE_SIZE) >> PAGE_SHIFT, &end)) {
			*skip_to = end << PAGE_SHIFT;
			return "a page of a badram= pattern";
		}
	return NULL;
}

/*
 * The claim on [@s, @e) that starts lowest (clipped to @s), in [*@cs,
 * *@ce). Return: whether there is one. O(reserved + carried records x
 * log ranges + lattices).
 */
static bool lowest_claim(const struct bootinfo *bi, uint64_t s, uint64_t e,
			 uint64_t *cs, uint64_t *ce)
{
	const struct bi_handover *h = &bi->handover;
	uint64_t rs, re;

	*cs = e;
	*ce = e;
	for (unsigned int i = 0; i < bi->reserved.count; i++) {
		const struct region *r = &bi->reserved.regions[i];

		if (pa_val(r->start) < e && s < pa_val(r->end) &&
		    MAX(pa_val(r->start), s) < *cs) {
			*cs = MAX(pa_val(r->start), s);
			*ce = pa_val(r->end);
		}
	}
	for (unsigned int i = 0; bootinfo_carried(bi, NULL) && i < h->bad_recs;
	     i++) {
		const struct bi_handover_bad *b = &h->bad[i];
		unsigned int at = handover_bad_bound(b, s, true);
		struct handover_range r;

		if (at >= b->count)
			continue;
		r = handover_bad_range(b, at);
		if (r.start < e && MAX(r.start, s) < *cs) {
			*cs = MAX(r.start, s);
			*ce = r.end;
		}
	}
	for (unsigned int i = 0; i < bi->lattice_count; i++)
		if (lattice_run_after(&bi->lattice[i], s >> PAGE_SHIFT, &rs,
				      &re) &&
		    rs < ALIGN_UP(e, PAGE_SIZE) >> PAGE_SHIFT &&
		    MAX(rs << PAGE_SHIFT, s) < *cs) {
			*cs = MAX(rs << PAGE_SHIFT, s);
			*ce = re << PAGE_SHIFT;
		}
	return *cs < e;
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
	uint64_t p = ALIGN_UP(pa_val(s), PAGE_SIZE);
	uint64_t end = ALIGN_DOWN(pa_val(e), PAGE_SIZE), cs = 0, ce = 0;

	while (p < end) {
		if (!lowest_claim(bi, p, end, &cs, &ce)) {
			bootinfo_add_reserved(bi, pa(p), pa(end), name);
			return;
		}
		cs = ALIGN_DOWN(cs, PAGE_SIZE);
		if (cs > p)
			bootinfo_add_reserved(bi, pa(p), pa(cs), name);
		p = MAX(ALIGN_UP(ce, PAGE_SIZE), cs + PAGE_SIZE);
	}
}
