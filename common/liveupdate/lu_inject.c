/* SPDX-License-Identifier: MIT */
/*
 * Fault injection into a written handover (inject=handover-*,
 * docs/cmdline.md, docs/liveupdate.md): each kind breaks one rule the new
 * image's reader (boot/handover.c) must enforce, then the checksum is
 * made right again, so that only that rule can catch it; handover-checksum
 * flips a byte after the checksum, handover-truncate tells the new image
 * 8 bytes fewer than were written. A kind that finds nothing to break
 * (no domain, no reserved range to overlap) says so and injects nothing.
 *
 * The buffer is the page-aligned handover the writer just finished, in
 * one block: header, bad-page records, domain and vCPU records, then the
 * preserved record (last). A handover in pieces (version 7) is left as
 * written, each armed kind saying so.
 */
#include <keel/bootinfo.h>
#include <keel/compiler.h>
#include <keel/handover.h>
#include <keel/inject.h>
#include <keel/printk.h>
#include <keel/string.h>

#include "lu_priv.h"

static const enum inject_kind lu_kinds[] = {
	INJECT_HO_CHECKSUM, INJECT_HO_OVERLAP,	INJECT_HO_OUTSIDE,
	INJECT_HO_ROOT,	    INJECT_HO_TRUNCATE, INJECT_HO_VERSION,
	INJECT_HO_MISALIGN, INJECT_HO_SELF,	INJECT_HO_IMAGE,
	INJECT_HO_EXTENT,
};

void lu_inject_unused(void)
{
	for (unsigned int i = 0; i <= ARRAY_SIZE(lu_kinds); i++) {
		enum inject_kind k = i < ARRAY_SIZE(lu_kinds)
					     ? lu_kinds[i]
					     : INJECT_HO_PIECES;

		if (inject_has(k, 0))
			pr_warn("inject=%s: no live update (liveupdate=0), "
				"nothing injected\n",
				inject_name(k));
	}
}

/* inject=cpu-stop-late, cpu-freeze-late unused (liveupdate.c): said. */
void lu_warn_late_unused(uint64_t cpu, void *arg)
{
	const struct lu_late *l = arg;

	if (l->others && cpu < NR_CPUS &&
	    cpumask_test(l->others, (unsigned int)cpu))
		return;
	pr_warn("inject=cpu-%s-late:%llu: %s%ss%s, nothing injected\n", l->what,
		(unsigned long long)cpu,
		l->others ? "not a CPU this live update " : "no live update ",
		l->what,
		l->others ? " (the boot CPU, or not online)"
			  : " CPUs in this image");
}

/* The records: the first domain's and the preserved one (the last). */
struct lu_bufs {
	uint8_t *buf;
	uint64_t size;
	struct handover_domain *dom0; /* NULL: no domain */
	struct handover_preserved *pres;
	struct handover_range *r; /* pres->count of them */
};

static void find_records(struct lu_bufs *b)
{
	uint64_t off = HANDOVER_HEADER_BYTES;
	struct handover_rec *rec;

	b->dom0 = NULL;
	b->pres = NULL;
	while (off + sizeof(*rec) <= b->size) {
		rec = (struct handover_rec *)(void *)(b->buf + off);
		if (rec->type == HANDOVER_REC_DOMAIN && !b->dom0)
			b->dom0 = (struct handover_domain *)rec;
		if (rec->type == HANDOVER_REC_PRESERVED)
			b->pres = (struct handover_preserved *)rec;
		if (!rec->bytes)
			break;
		off += rec->bytes;
	}
	b->r = b->pres ? (struct handover_range *)(b->pres + 1) : NULL;
}

/* Reserved ranges that are not where this image leaves them for the next. */
static bool moves(const struct region *r)
{
	/* Ours, and the DTB: arm64 passes a grown copy on, elsewhere. */
	static const char *const names[] = {"kernel", "dtb", "handover",
					    "preserved"};

	for (unsigned int i = 0; i < ARRAY_SIZE(names); i++)
		if (!strncmp(r->name, names[i], sizeof(r->name)))
			return true;
	return false;
}

/*
 * A page of RAM inside a reserved range the next image has too: named
 * @name, or (NULL) the first that stays where it is.
 */
static bool reserved_page(const struct bootinfo *bi, const char *name,
			  uint64_t *page)
{
	for (unsigned int i = 0; i < bi->reserved.count; i++) {
		const struct region *r = &bi->reserved.regions[i];
		uint64_t p = ALIGN_DOWN(pa_val(r->start), PAGE_SIZE);

		if (name ? strncmp(r->name, name, sizeof(r->name)) : moves(r))
			continue;
		for (unsigned int k = 0; k < bi->ram.count; k++) {
			if (pa_val(bi->ram.regions[k].start) <= p &&
			    p + PAGE_SIZE <= pa_val(bi->ram.regions[k].end)) {
				*page = p;
				return true;
			}
		}
	}
	return false;
}

static void nothing(enum inject_kind k, const char *why)
{
	pr_warn("inject=%s: %s, nothing injected\n", inject_name(k), why);
}

/* A preserved range moved over a reserved page (the kernel for IMAGE). */
static void over_reserved(struct lu_bufs *b, const struct bootinfo *bi,
			  enum inject_kind k)
{
	uint64_t p;

	if (!b->pres || !b->pres->count) {
		nothing(k, "no preserved range");
		return;
	}
	if (!reserved_page(bi, k == INJECT_HO_IMAGE ? "kernel" : NULL, &p)) {
		nothing(k, k == INJECT_HO_IMAGE ? "the new image is not in RAM"
						: "no reserved RAM to overlap");
		return;
	}
	/* The reader checks range 0 whole before range 1: order is moot. */
	b->r[0].start = p;
	b->r[0].end = p + PAGE_SIZE;
	pr_warn("inject=%s: preserved[0] moved to [%#llx, %#llx)\n",
		inject_name(k), U64(b->r[0].start), U64(b->r[0].end));
}

/* The rules of the preserved ranges: RAM, alignment, disjointness. */
static void break_ranges(struct lu_bufs *b, const struct bootinfo *bi,
			 enum inject_kind k)
{
	uint64_t len, top;

	if (!b->pres || b->pres->count < (k == INJECT_HO_SELF ? 2u : 1u)) {
		nothing(k, k == INJECT_HO_SELF ? "fewer than 2 preserved ranges"
					       : "no preserved range");
		return;
	}
	if (k == INJECT_HO_OUTSIDE) {
		top = bi->ram.count
			      ? pa_val(bi->ram.regions[bi->ram.count - 1].end)
			      : 0;
		len = b->r[0].end - b->r[0].start;
		b->r[0].start = top;
		b->r[0].end = top + len;
	} else if (k == INJECT_HO_MISALIGN) {
		b->r[0].start += PAGE_SIZE / 2;
	} else {
		b->r[1].start = b->r[0].end - PAGE_SIZE;
	}
	pr_warn("inject=%s: preserved[%u] now [%#llx, %#llx)\n", inject_name(k),
		k == INJECT_HO_SELF ? 1u : 0u,
		U64(b->r[k == INJECT_HO_SELF].start),
		U64(b->r[k == INJECT_HO_SELF].end));
}

/* The first domain's rules: its root in its tables, its extents kept. */
static void break_domain(struct lu_bufs *b, enum inject_kind k)
{
	struct handover_domain *d = b->dom0;
	struct handover_range *t;
	struct handover_extent *x;
	uint64_t top = 0;

	if (!d || !d->extent_count || !d->table_count) {
		nothing(k, "no domain in the handover");
		return;
	}
	t = (struct handover_range *)(void *)(d + 1);
	x = (struct handover_extent *)(void *)(t + d->table_count);
	if (k == INJECT_HO_ROOT) {
		for (uint32_t i = 0; i < d->table_count; i++)
			top = MAX(top, t[i].end);
		d->p2m_root = top;
	} else {
		for (uint32_t i = 0; i < b->pres->count; i++)
			top = MAX(top, b->r[i].end);
		x[0].pa = top;
	}
	pr_warn("inject=%s: domain %u (%s): %s now %#llx\n", inject_name(k),
		d->id, d->name,
		k == INJECT_HO_ROOT ? "p2m_root" : "extent[0] pa", U64(top));
}

/*
 * The armed kinds that change the handover's bytes, applied.
 * Return: whether any was (its checksum is then taken again).
 */
static bool change_bytes(struct lu_bufs *b, const struct bootinfo *bi)
{
	static const enum inject_kind reserved_kinds[] = {INJECT_HO_OVERLAP,
							  INJECT_HO_IMAGE};
	static const enum inject_kind range_kinds[] = {
		INJECT_HO_OUTSIDE, INJECT_HO_MISALIGN, INJECT_HO_SELF};
	static const enum inject_kind domain_kinds[] = {INJECT_HO_ROOT,
							INJECT_HO_EXTENT};
	struct handover_header *hd = (struct handover_header *)(void *)b->buf;
	bool changed = inject_has(INJECT_HO_VERSION, 0);

	find_records(b);
	if (changed) {
		hd->version = 99; /* docs/cmdline.md */
		pr_warn("inject=handover-version: version now %u\n",
			hd->version);
	}
	for (unsigned int i = 0; i < ARRAY_SIZE(reserved_kinds); i++)
		if (inject_has(reserved_kinds[i], 0)) {
			over_reserved(b, bi, reserved_kinds[i]);
			changed = true;
		}
	for (unsigned int i = 0; i < ARRAY_SIZE(range_kinds); i++)
		if (inject_has(range_kinds[i], 0)) {
			break_ranges(b, bi, range_kinds[i]);
			changed = true;
		}
	for (unsigned int i = 0; i < ARRAY_SIZE(domain_kinds); i++)
		if (inject_has(domain_kinds[i], 0)) {
			break_domain(b, domain_kinds[i]);
			changed = true;
		}
	return changed;
}

/**
 * lu_inject() - the armed inject=handover-* kinds on the handover the
 * writer just finished at @buf (@size bytes). None that changes bytes:
 * the writer's checksum stands (no third pass over a 1.6 MB handover in
 * the downtime, as before).
 * @bi: this image's bootinfo (RAM's end, the reserved ranges)
 *
 * Return: the size to tell the new image.
 */
uint64_t lu_inject(uint8_t *buf, uint64_t size, uint32_t pieces,
		   const struct bootinfo *bi)
{
	struct lu_bufs b = {.buf = buf, .size = size};

	if (pieces) { /* its records walked in one block only */
		for (unsigned int i = 0; i < ARRAY_SIZE(lu_kinds); i++)
			if (inject_has(lu_kinds[i], 0))
				pr_warn("inject=%s: the handover is in %u "
					"pieces, nothing injected\n",
					inject_name(lu_kinds[i]), pieces);
		return size;
	}

	if (change_bytes(&b, bi))
		((struct handover_header *)(void *)buf)->checksum =
			handover_checksum(buf, size);
	if (inject_has(INJECT_HO_CHECKSUM, 0)) {
		buf[size / 2] ^= 0x40;
		pr_warn("inject=handover-checksum: byte %llu flipped after the "
			"checksum\n",
			U64(size / 2));
	}
	if (!inject_has(INJECT_HO_TRUNCATE, 0))
		return size;
	pr_warn("inject=handover-truncate: the new image is told %llu of %llu "
		"bytes\n",
		U64(size - 8), U64(size));
	return size - 8;
}
