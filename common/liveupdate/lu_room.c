/* SPDX-License-Identifier: MIT */
/*
 * The room a bigger next image needs, found at update time
 * (docs/liveupdate.md, "A bigger next build"). A keel image asks its
 * loader for nothing past its own bss: no loader reserves (or zeroes)
 * room for a build that does not exist yet. When the next image needs
 * more than this one, the arch (arch_lu_prepare()'s image check) asks
 * here whether the memory past this image's end is this image's to give:
 * every page of it RAM in the firmware's map and either in the heap or
 * kept by this image for the purpose (LU_ROOM_NAME: a cold boot asked
 * for liveupdate= reserves up to LU_ROOM_BYTES past its end, where the
 * map says RAM, so that no domain lands there), never reserved for
 * anything else (loader data, a module, the DTB: named in the refusal),
 * none owned by a domain or holding its tables (preserved across the
 * update), none out of service (bad memory: a page the heap offlined,
 * withheld or still inside a block of keel's), none under the handover
 * or the stub's scratch memory. Free
 * pages and this image's own anonymous blocks (frame table, page tables,
 * per-CPU data) are dead once the stub jumps, so they are room too.
 *
 * Runs on the boot CPU before the freeze, the heap quiescent enough for
 * heap_owner_of(): the domains are built, nothing else allocates.
 */
#include <keel/bootmem.h>
#include <keel/compiler.h>
#include <keel/errno.h>
#include <keel/heap.h>
#include <keel/heap_check.h>
#include <keel/liveupdate.h>
#include <keel/domain.h>
#include <keel/printk.h>
#include <keel/string.h>

#include "lu_priv.h"

/*
 * What the update keeps past the jump besides the domains' extents (which
 * the heap says are owned): set by liveupdate_run()'s preparation
 * (lu_room_begin()) before the arch checks the new image.
 */
static struct {
	const struct domain_set *ds;
	struct region keep[2]; /* the handover (piece 0), the stub's scratch */
	struct handover_view pieces; /* count 0: the handover is one block */
} room;

/**
 * lu_room_begin() - what liveupdate_room() must leave alone: the domains
 * of @ds (their table pages; their extents the heap knows), the handover
 * [@ho, + @ho_bytes) and the scratch [@scratch, + @scratch_bytes).
 */
void lu_room_begin(const struct domain_set *ds, paddr_t ho, uint64_t ho_bytes,
		   paddr_t scratch, uint64_t scratch_bytes)
{
	room.ds = ds;
	room.pieces.count = 0;
	room.keep[0] = region_of(ho, pa_add(ho, ho_bytes));
	strlcpy(room.keep[0].name, "handover", sizeof(room.keep[0].name));
	room.keep[1] = region_of(scratch, pa_add(scratch, scratch_bytes));
	strlcpy(room.keep[1].name, "stub scratch", sizeof(room.keep[1].name));
}

void lu_room_pieces(const struct handover_view *v)
{
	room.pieces = *v;
}

static unsigned long long ull(uint64_t v)
{
	return v;
}

static bool overlaps(uint64_t s, uint64_t e, uint64_t s2, uint64_t e2)
{
	return s < e2 && s2 < e;
}

/*
 * A piece of the handover (after piece 0, lu_room_pieces()) in [@s, @e):
 * its index, else 0. O(pieces).
 */
static uint32_t room_piece(uint64_t s, uint64_t e, uint64_t *ps)
{
	const struct handover_view *v = &room.pieces;

	for (uint32_t k = 1; k < v->count; k++) {
		memcpy(ps, v->head + v->table_off + k * sizeof(*ps),
		       sizeof(*ps));
		if (overlaps(s, e, *ps, *ps + (1ULL << v->shift)))
			return k;
	}
	return 0;
}

static __printf(3, 4) int lu_room_no(char *why, size_t n, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, n, fmt, ap);
	va_end(ap);
	return -EBUSY;
}

/* Whom the block at @p belongs to, and where the next block starts. */
static int room_block(uint64_t p, uint64_t *next)
{
	pfn_t head;
	unsigned int order = 0;
	int who = heap_owner_of(paddr_to_pfn(pa(p)), &head, &order);

	if (who == HEAP_OWNER_NONE || who < 0) {
		*next = p + PAGE_SIZE;
		return who;
	}
	*next = pa_val(pfn_to_paddr(pfn_add(head, 1ULL << order)));
	if (*next <= p) /* a broken head: do not loop */
		*next = p + PAGE_SIZE;
	return who;
}

/*
 * A page of keel's anonymous block [@s, @e) offlined while in it (still
 * the block's until its free withholds it): never room, the new image
 * would be written over it. The first in *@bad. O(pages of the block).
 */
static bool room_held_bad(uint64_t s, uint64_t e, uint64_t *bad)
{
	for (uint64_t p = s; p < e; p += PAGE_SIZE)
		if (heap_page_held_bad(paddr_to_pfn(pa(p)))) {
			*bad = p;
			return true;
		}
	return false;
}

static bool in_ram(uint64_t p)
{
	unsigned int count;
	const struct region *r = bootmem_ram_regions(&count);

	for (unsigned int i = 0; i < count; i++)
		if (pa_val(r[i].start) <= p && p < pa_val(r[i].end))
			return true;
	return false;
}

/*
 * @p is not heap memory: room if it is RAM this image kept for the next
 * one (LU_ROOM_NAME) and nothing else is reserved there. Return: 0, or
 * -EBUSY naming what is there.
 */
static int room_reserved(uint64_t start, uint64_t end, uint64_t p, char *why,
			 size_t n)
{
	unsigned int count;
	const struct region *r = bootmem_reserved_regions(&count);
	bool kept = false;

	if (!in_ram(p))
		return lu_room_no(why, n,
				  "no room for the new image's [%#llx, %#llx): "
				  "%#llx is not RAM in the firmware's map",
				  ull(start), ull(end), ull(p));
	for (unsigned int i = 0; i < count; i++) {
		if (!overlaps(p, p + PAGE_SIZE, pa_val(r[i].start),
			      pa_val(r[i].end)))
			continue;
		if (!strcmp(r[i].name, LU_ROOM_NAME)) {
			kept = true;
			continue;
		}
		return lu_room_no(why, n,
				  "no room for the new image's [%#llx, %#llx): "
				  "reserved %s [%#llx, %#llx) is there",
				  ull(start), ull(end), r[i].name,
				  ull(pa_val(r[i].start)),
				  ull(pa_val(r[i].end)));
	}
	return kept ? 0
		    : lu_room_no(why, n,
				 "no room for the new image's [%#llx, %#llx): "
				 "%#llx is not RAM the heap was given",
				 ull(start), ull(end), ull(p));
}

/* A domain's table page in [s, e)? The first one found, in @arg. */
struct room_tables {
	uint64_t s, e;
	uint64_t hit_s, hit_e;
};

static void room_table_cb(paddr_t s, paddr_t e, void *arg)
{
	struct room_tables *t = arg;

	if (!t->hit_e && overlaps(t->s, t->e, pa_val(s), pa_val(e))) {
		t->hit_s = pa_val(s);
		t->hit_e = pa_val(e);
	}
}

/* The domains' table pages (anonymous heap blocks) in [@start, @end). */
static int room_tables(uint64_t start, uint64_t end, char *why, size_t n)
{
	struct room_tables t = {.s = start, .e = end};
	struct domain_view v;

	for (unsigned int i = 0;
	     room.ds && i < domain_set_stats(room.ds)->count; i++) {
		if (!domain_view(room.ds, i, &v) || !v.p2m)
			continue;
		domain_view_tables(&v, room_table_cb, &t);
		if (t.hit_e)
			return lu_room_no(
				why, n,
				"no room for the new image's [%#llx, %#llx): "
				"domain %u's tables [%#llx, %#llx) "
				"are there",
				ull(start), ull(end), (unsigned int)v.id,
				ull(t.hit_s), ull(t.hit_e));
	}
	return 0;
}

/**
 * liveupdate_room() - may a new image be written over [@start, @end), the
 * memory past this image's end (the arch's image check, once
 * lu_room_begin() said what the update keeps)?
 * @why: out, at least @n bytes: why not
 *
 * Return: 0 (the range is room), or -EBUSY with @why naming the first
 * range in the way and what it is.
 */
int liveupdate_room(uint64_t start, uint64_t end, char *why, size_t n)
{
	uint64_t p = ALIGN_DOWN(start, PAGE_SIZE), next, ps;
	uint32_t k = room_piece(start, end, &ps);

	if (k)
		return lu_room_no(why, n,
				  "no room for the new image's [%#llx, %#llx): "
				  "the handover's piece %u [%#llx, %#llx) is "
				  "there",
				  ull(start), ull(end), k, ull(ps),
				  ull(ps + (1ULL << room.pieces.shift)));

	for (unsigned int i = 0; i < ARRAY_SIZE(room.keep); i++)
		if (overlaps(start, end, pa_val(room.keep[i].start),
			     pa_val(room.keep[i].end)))
			return lu_room_no(
				why, n,
				"no room for the new image's [%#llx, %#llx): "
				"the %s [%#llx, %#llx) is there",
				ull(start), ull(end), room.keep[i].name,
				ull(pa_val(room.keep[i].start)),
				ull(pa_val(room.keep[i].end)));
	for (; p < end; p = next) {
		int who = room_block(p, &next);
		uint64_t bad = 0;

		if (who == HEAP_OWNER_FREE)
			continue;
		if (who == HEAP_OWNER_KEEL &&
		    !room_held_bad(p, MIN(next, end), &bad))
			continue;
		if (who == HEAP_OWNER_KEEL || who == HEAP_OWNER_BAD)
			return lu_room_no(
				why, n,
				"no room for the new image's [%#llx, %#llx): "
				"page %#llx there is out of service (bad "
				"memory)",
				ull(start), ull(end),
				ull(who == HEAP_OWNER_BAD ? p : bad));
		if (who != HEAP_OWNER_NONE && who >= 0)
			return lu_room_no(
				why, n,
				"no room for the new image's [%#llx, %#llx): "
				"[%#llx, %#llx) there is domain "
				"%d's memory",
				ull(start), ull(end), ull(p), ull(next), who);
		if (room_reserved(start, end, p, why, n))
			return -EBUSY;
	}
	return room_tables(start, end, why, n);
}
