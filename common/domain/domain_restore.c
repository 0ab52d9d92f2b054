/* SPDX-License-Identifier: MIT */
/*
 * Domains, after a live update (DESIGN §13, docs/liveupdate.md): the new
 * image takes every domain of the handover boot/handover.c accepted back
 * as a domain of its set, right after the heap opens, in O(extents +
 * table pages), nothing per page of guest memory:
 *
 *  1. the domain's record: id, name, node, its size (origin
 *     DOMAIN_ORIGIN_HANDOVER; what it was first, boot or static, stays in
 *     the record, which the next update copies);
 *  2. its p2m is walked where the old image left it. A table page is read
 *     only when it lies in the domain's own table ranges (which the reader
 *     proved preserved), so a corrupt descriptor can never make the walk
 *     read memory that is not the domain's; every leaf must lie inside one
 *     of the domain's extents, at the host address its guest address gives,
 *     and the leaves must map exactly the domain's bytes (so no frame twice);
 *     a table over guest memory no extent maps is refused, so the walk is
 *     bounded by the domain's size, not by the table pages it claims, and
 *     a long one prints progress lines (keel/progress.h);
 *  3. only then are its extents adopted by the heap (heap_adopt_owned():
 *     one head write per aligned block, nothing zeroed, scrubbed or
 *     cleaned), cut at the RAM ranges' node boundaries;
 *     then every page of them the handover's bad record names is marked
 *     bad in its extent (heap_offline_owned()), as the old image had it;
 *  4. the p2m is taken over as is: its root, format, geometry and VMID from
 *     the record; one p2m_commit() (barrier and TLB maintenance, no entry
 *     written).
 *
 * A domain that fails 2 or 3 fails alone: one error naming it, what it had
 * adopted released back to reserved, its memory never written. Its record
 * still goes to the next image, which checks it again.
 *
 * Destroy of a restored domain (domain_restore_free()) gives its extents
 * back to reserved, as a static domain's (the guest's memory is never the
 * heap's free memory here), and leaves its table pages reserved.
 *
 * Boot CPU only, before any other domain exists; no lock of its own.
 */
#include <arch/cpu.h>
#include <arch/mm.h>
#include <arch/p2m.h>
#include <keel/bootinfo.h>
#include <keel/bootmem.h>
#include <keel/errno.h>
#include <keel/handover.h>
#include <keel/heap.h>
#include <keel/heap_boot.h>
#include <keel/inject.h>
#include <keel/p2m.h>
#include <keel/p2m_format.h>
#include <keel/printk.h>
#include <keel/progress.h>
#include <keel/string.h>
#include <keel/ticks.h>

#include "domain_priv.h"

struct restore_walk {
	const struct bi_handover_domain *hd;
	const struct p2m_format *fmt;
	uint64_t extents[DOMAIN_EXTENT_KINDS];
	uint64_t mapped, tables, tables_max;
	uint32_t last_table;	  /* the table range that held the last page */
	struct progress progress; /* a long walk's lines, by bytes mapped */
	char what[96];		  /* the progress lines' phase */
	char why[128];
};

static const struct p2m_format *format_of(uint8_t id)
{
	switch (id) {
	case HANDOVER_P2M_VMSA:
		return &p2m_format_vmsa_s2;
	case HANDOVER_P2M_EPT:
		return &p2m_format_ept;
	case HANDOVER_P2M_NPT:
		return &p2m_format_npt;
	default:
		return NULL;
	}
}

/* Is the table page at @t one of the domain's table pages? */
static bool in_tables(struct restore_walk *w, uint64_t t)
{
	const struct bi_handover_domain *hd = w->hd;

	for (uint32_t n = 0; n < hd->table_count; n++) {
		uint32_t i = (w->last_table + n) % hd->table_count;
		struct handover_range r = handover_domain_tables(hd, i);

		if (r.start <= t && t < r.end && r.end - t >= PAGE_SIZE) {
			w->last_table = i;
			return true;
		}
	}
	return false;
}

/*
 * Does an extent map any of guest [@s, @e)? Extents are in gpa order:
 * the first ending above @s decides. O(log extents).
 */
static bool extent_in(const struct bi_handover_domain *hd, uint64_t s,
		      uint64_t e)
{
	uint32_t lo = 0, hi = hd->extent_count;
	struct handover_extent x;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		x = handover_domain_extent(hd, mid);
		if (x.gpa + (x.pages << PAGE_SHIFT) <= s)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == hd->extent_count)
		return false;
	x = handover_domain_extent(hd, lo);
	return x.gpa < e;
}

/* The extent holding guest @gpa (extents are in gpa order), or false. */
static bool extent_at(const struct bi_handover_domain *hd, uint64_t gpa,
		      struct handover_extent *out)
{
	uint32_t lo = 0, hi = hd->extent_count;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		struct handover_extent e = handover_domain_extent(hd, mid);

		if (gpa < e.gpa) {
			hi = mid;
		} else if (gpa - e.gpa >= e.pages << PAGE_SHIFT) {
			lo = mid + 1;
		} else {
			*out = e;
			return true;
		}
	}
	return false;
}

static int walk_fail(struct restore_walk *w, const char *what, uint64_t gpa,
		     uint64_t addr)
{
	snprintf(w->why, sizeof(w->why), "%s (guest %#llx -> %#llx)", what,
		 (unsigned long long)gpa, (unsigned long long)addr);
	return -EINVAL;
}

/* A reason that is no guest -> host pair (walk_fail() prints those). */
static __printf(2, 3) int restore_fail(struct restore_walk *w, const char *fmt,
				       ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(w->why, sizeof(w->why), fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* A leaf at @level: inside one extent, where its guest address says. */
static int walk_leaf(struct restore_walk *w, uint64_t gpa, paddr_t out,
		     unsigned int level)
{
	unsigned int order = p2m_level_shift(level) - PAGE_SHIFT;
	uint64_t size = PAGE_SIZE << order, p = pa_val(out);
	struct handover_extent e;
	unsigned int k;

	for (k = 0; k < DOMAIN_EXTENT_KINDS; k++)
		if (domain_extent_order[k] == order)
			break;
	if (k == DOMAIN_EXTENT_KINDS)
		return walk_fail(w, "a leaf of an order no extent has", gpa, p);
	if (!extent_at(w->hd, gpa, &e) ||
	    (e.pages << PAGE_SHIFT) - (gpa - e.gpa) < size ||
	    p != e.pa + (gpa - e.gpa))
		return walk_fail(w, "a leaf outside its extents", gpa, p);
	w->extents[k]++;
	w->mapped += size;
	return 0;
}

/*
 * A table descriptor at @level for guest [@gpa, + its span) to @t: one of
 * the domain's table pages, within the pages claimed, and over guest
 * memory an extent maps. The last bounds the walk by the domain's size:
 * a table under which no leaf can lie is refused at once, so a forged p2m
 * whose entries all alias one table per level visits only the tables a
 * domain of its extents needs, not every page it claims for tables
 * (534 GiB of them took 427 s).
 */
static int table_ok(struct restore_walk *w, uint64_t t, unsigned int level,
		    uint64_t gpa)
{
	uint64_t span = 1ull << p2m_level_shift(level);

	if (level >= P2M_LEAF_LEVEL || !in_tables(w, t) ||
	    ++w->tables > w->tables_max)
		return walk_fail(w,
				 "a table page not among its preserved "
				 "table pages",
				 gpa, t);
	if (!extent_in(w->hd, gpa, gpa + span))
		return walk_fail(w, "a table over guest memory no extent maps",
				 gpa, t);
	progress_update(&w->progress, w->mapped);
	return 0;
}

/* The @count entries of the table at @t (level @level) mapping @base... */
static int walk_table(struct restore_walk *w, uint64_t t, unsigned int level,
		      uint64_t count, uint64_t base)
{
	const uint64_t *tab = phys_to_virt(pa(t));
	unsigned int shift = p2m_level_shift(level);

	for (uint64_t i = 0; i < count; i++) {
		uint64_t gpa = base + (i << shift);
		paddr_t out;
		int err = 0;

		switch (w->fmt->decode(tab[i], level, &out)) {
		case P2M_PTE_NONE:
			break;
		case P2M_PTE_LEAF:
			err = walk_leaf(w, gpa, out, level);
			break;
		case P2M_PTE_TABLE:
			err = table_ok(w, pa_val(out), level, gpa);
			if (!err)
				err = walk_table(w, pa_val(out), level + 1,
						 P2M_TABLE_ENTRIES, gpa);
			break;
		default:
			return restore_fail(w,
					    "a descriptor the format reserves "
					    "(%#llx at guest %#llx, level %u)",
					    (unsigned long long)tab[i],
					    (unsigned long long)gpa, level);
		}
		if (err)
			return err;
	}
	return 0;
}

/* Steps 1 and 2 of the top: the record checked, @d's table as it is. */
static int restore_check(struct domain *d, struct restore_walk *w)
{
	const struct bi_handover_domain *hd = d->restored;
	struct handover_domain rec;
	unsigned int level, order;

	handover_view_read(&hd->view, hd->rec, &rec, sizeof(rec));
	w->fmt = format_of(rec.p2m_format);
	if (w->fmt != arch_p2m_format()) {
		snprintf(w->why, sizeof(w->why),
			 "p2m_format %u, this machine's is %s", rec.p2m_format,
			 p2m_format_name());
		return -EINVAL;
	}
	if (rec.p2m_ipa_bits < w->fmt->min_ipa_bits ||
	    rec.p2m_ipa_bits > w->fmt->max_ipa_bits)
		return restore_fail(w, "p2m_ipa_bits %u outside %s's [%u, %u]",
				    rec.p2m_ipa_bits, p2m_format_name(),
				    w->fmt->min_ipa_bits, w->fmt->max_ipa_bits);
	w->fmt->geometry(rec.p2m_ipa_bits, &level, &order);
	if (level != rec.p2m_start_level || order != rec.p2m_root_order)
		return restore_fail(w,
				    "p2m start level %u, root order %u: %u "
				    "IPA bits give level %u, order %u",
				    rec.p2m_start_level, rec.p2m_root_order,
				    rec.p2m_ipa_bits, level, order);
	for (uint32_t i = 0; i < hd->table_count; i++) {
		struct handover_range r = handover_domain_tables(hd, i);

		w->tables_max += (r.end - r.start) >> PAGE_SHIFT;
	}
	w->tables = 1ull << order;
	snprintf(w->what, sizeof(w->what), "domains: %s: p2m walk", hd->name);
	progress_begin(&w->progress, w->what, hd->bytes);
	if (walk_table(w, pa_val(hd->root), level,
		       (uint64_t)P2M_TABLE_ENTRIES << order, 0))
		return -EINVAL;
	if (w->mapped != hd->bytes)
		return restore_fail(w,
				    "the leaves do not map its bytes: %llu "
				    "bytes mapped, its extents hold %llu",
				    (unsigned long long)w->mapped,
				    (unsigned long long)hd->bytes);
	d->table = (struct p2m){
		.fmt = w->fmt,
		.root = hd->root,
		.table_pages = w->tables,
		.node = (int)hd->node,
		.ipa_bits = rec.p2m_ipa_bits,
		.pa_bits = MIN(w->fmt->oa_bits, arch_p2m_pa_bits()),
		.start_level = level,
		.root_order = order,
		.vmid = rec.p2m_vmid,
	};
	return 0;
}

/* What the pieces of an extent are handed to. */
struct piece_ctx {
	struct domain *d;
	uint64_t stop; /* release: pieces from this address on were not taken */
	uint64_t failed_at; /* adopt: the piece the heap refused */
};

/*
 * @fn on each piece of extent @e cut at the RAM ranges (one node each).
 * The ranges are bootmem's, read through its view: bootmem took
 * bootinfo's RAM table over (and may have grown it or kept a copy of its
 * own), so that table is bootmem's to describe, not bootinfo's.
 * Return: 0, or the first error of @fn, or -EINVAL for a piece outside RAM.
 */
static int extent_pieces(struct handover_extent e,
			 int (*fn)(struct piece_ctx *c, uint32_t node,
				   uint64_t s, uint64_t e),
			 struct piece_ctx *c)
{
	uint64_t s = e.pa, end = e.pa + (e.pages << PAGE_SHIFT);
	unsigned int count;
	const struct region *ram = bootmem_ram_regions(&count);

	for (unsigned int i = 0; i < count && s < end; i++) {
		uint64_t rs = pa_val(ram[i].start), re = pa_val(ram[i].end);
		int err;

		if (re <= s || rs >= end)
			continue;
		if (rs > s)
			break;
		err = fn(c, ram[i].node, s, MIN(re, end));
		if (err)
			return err;
		s = MIN(re, end);
	}
	c->failed_at = s;
	return s < end ? -EINVAL : 0;
}

static int adopt_piece(struct piece_ctx *c, uint32_t node, uint64_t s,
		       uint64_t e)
{
	long n = heap_adopt_owned(node, paddr_to_pfn(pa(s)),
				  paddr_to_pfn(pa(e)), c->d->id);

	if (n < 0) {
		c->failed_at = s;
		return (int)n;
	}
	c->d->heap_extents += (uint64_t)n;
	if (node != c->d->node)
		c->d->remote_bytes += e - s;
	return 0;
}

static int release_piece(struct piece_ctx *c, uint32_t node, uint64_t s,
			 uint64_t e)
{
	if (s >= c->stop)
		return 0;
	return heap_release_owned(node, paddr_to_pfn(pa(s)),
				  paddr_to_pfn(pa(e)), c->d->id);
}

/*
 * Extents [0, @count) of @d back to reserved, and of extent @count the
 * pieces below @stop. Return: the extents with a piece refused.
 */
static unsigned int release_extents(struct domain *d, uint32_t count,
				    uint64_t stop)
{
	struct piece_ctx c = {.d = d, .stop = ~0ull};
	unsigned int refused = 0;

	for (uint32_t i = 0; i <= count && i < d->restored->extent_count; i++) {
		if (i == count)
			c.stop = stop;
		refused += extent_pieces(handover_domain_extent(d->restored, i),
					 release_piece, &c) != 0;
	}
	return refused;
}

/* Step 3: every extent adopted, or none. Return: 0 or the error. */
static int restore_adopt(struct domain *d)
{
	const struct bi_handover_domain *hd = d->restored;
	struct piece_ctx c = {.d = d};

	for (uint32_t i = 0; i < hd->extent_count; i++) {
		int err = extent_pieces(handover_domain_extent(hd, i),
					adopt_piece, &c);

		if (!err)
			continue;
		/* The pieces of extent i below the refused one were taken. */
		release_extents(d, i, c.failed_at);
		snprintf(d->fail_reason, sizeof(d->fail_reason),
			 "the heap refused extent[%u] at %#llx: %s", i,
			 (unsigned long long)c.failed_at,
			 err == -ENOSPC ? "no room in its node's range table"
					: "outside RAM, or not RAM of its node "
					  "reserved for a domain");
		d->heap_extents = d->remote_bytes = 0;
		return err;
	}
	return 0;
}

/*
 * The first bad range of record @b ending above @pa (the ranges are
 * sorted and apart: boot/handover_bad.c checked them). O(log ranges).
 */
static unsigned int bad_from(const struct bi_handover_bad *b, uint64_t pa)
{
	return handover_bad_bound(b, pa, true);
}

/* Where record @b's pages first went bad, as heap_offline() says it. */
static enum heap_bad_reason bad_reason(const struct bi_handover_bad *b)
{
	static const unsigned int from[] = {
		[HANDOVER_BAD_OPTION] = HEAP_BAD_FROM_OPTION,
		[HANDOVER_BAD_MCE] = HEAP_BAD_FROM_MCE,
		[HANDOVER_BAD_INJECTION] = HEAP_BAD_FROM_INJECTION,
	};
	uint32_t src = handover_bad_source(b);

	/* The heap has no firmware source: such a page is "handover". */
	if (src == HANDOVER_BAD_FIRMWARE || src >= ARRAY_SIZE(from))
		return (enum heap_bad_reason)(HEAP_BAD_BROKEN |
					      HEAP_BAD_FROM_HANDOVER);
	return (enum heap_bad_reason)(HEAP_BAD_BROKEN | from[src]);
}

/* The pages of record @b inside extent @e marked in @d. Return: how many. */
static uint64_t mark_extent(struct domain *d, const struct bi_handover_bad *b,
			    const struct handover_extent *e)
{
	uint64_t end = e->pa + (e->pages << PAGE_SHIFT), marked = 0;

	for (unsigned int k = bad_from(b, e->pa); k < b->count; k++) {
		struct handover_range r = handover_bad_range(b, k);

		if (r.start >= end)
			break;
		for (uint64_t p = MAX(r.start, e->pa); p < MIN(r.end, end);
		     p += PAGE_SIZE)
			marked += !heap_offline_owned(paddr_to_pfn(pa(p)),
						      d->id, bad_reason(b));
	}
	return marked;
}

/*
 * Step 3b: every page of @d's extents that @h's bad records name (a page
 * the old image had marked in this domain's extent) marked again, as
 * heap_offline() marks a page of a domain's extent, under the source
 * where it first went bad: still the domain's, named by its row
 * (bad_pages), withheld by the extent's free and handed to the next image
 * as bad. O(extents x records x log bad ranges + pages marked).
 * Return: the pages marked.
 */
static uint64_t restore_mark_bad(struct domain *d, const struct bi_handover *h)
{
	const struct bi_handover_domain *hd = d->restored;
	uint64_t marked = 0;

	for (uint32_t i = 0; h->bad_count && i < hd->extent_count; i++) {
		struct handover_extent e = handover_domain_extent(hd, i);

		for (unsigned int j = 0; j < h->bad_recs; j++)
			marked += mark_extent(d, &h->bad[j], &e);
	}
	if (marked)
		pr_info("domains: %s: %llu pages of its extents came bad in "
			"the handover: still its own, marked\n",
			d->shown, (unsigned long long)marked);
	return marked;
}

/*
 * Step 1 of the top: @d from its record @hd: id, name, node, size, and
 * what a dom0less domain was built from (its vCPU count, its kernel
 * module's name: version 3 records carry them).
 */
static void restore_record(struct domain_set *s, struct domain *d,
			   const struct bi_handover_domain *hd)
{
	spin_lock_init(&d->map_lock);
	domain_set_name(d, hd->name);
	d->restored = hd;
	d->origin = DOMAIN_ORIGIN_HANDOVER;
	d->ctx = &s->ctx;
	d->id = hd->id;
	d->node = d->build_node = hd->node;
	d->spec.bytes = hd->bytes;
	d->spec.node = (int64_t)hd->node;
	d->vcpus = hd->vcpus;
	strlcpy(d->kernel, hd->kernel, sizeof(d->kernel));
}

/*
 * One domain of the handover into @d, its turn begun at @t0. Its parts
 * are timed on their own (docs/report-format.md): the p2m walk is its
 * map_ticks, the extents adopted its alloc_ticks; nothing is zeroed nor
 * cleaned (zero_ticks, maint_ticks 0). start_ticks to end_ticks is the
 * whole of it: the record, the parts, the commit.
 * Return: true when restored.
 */
static bool restore_one(struct domain_set *s, struct domain *d,
			const struct bi_handover *h,
			const struct bi_handover_domain *hd, uint64_t t0)
{
	struct restore_walk w = {.hd = hd};
	uint64_t t1, t2;

	restore_record(s, d, hd);
	d->start_ticks = t0;
	d->cpu_bits[arch_cpu_id() / 64] |= 1ull << (arch_cpu_id() % 64);
	t1 = arch_ticks();
	if (inject_has(INJECT_RESTORE_FAIL, hd->id)) {
		snprintf(
			w.why, sizeof(w.why),
			"inject=restore-fail:%u: its restore failed (injected) "
			"before it took any of its memory",
			hd->id);
		domain_fail(d, w.why);
	} else if (restore_check(d, &w)) {
		d->map_ticks = arch_ticks() - t1;
		domain_fail(d, w.why);
	} else {
		t2 = arch_ticks();
		d->map_ticks = t2 - t1;
		if (!restore_adopt(d)) {
			d->alloc_ticks = arch_ticks() - t2;
			d->p2m = &d->table;
			p2m_commit(d->p2m);
			d->built = true;
			d->bytes_built = hd->bytes;
			d->table_pages = d->table.table_pages;
			memcpy(d->extents, w.extents, sizeof(d->extents));
			restore_mark_bad(d, h);
		} else {
			d->alloc_ticks = arch_ticks() - t2;
			d->failed = true;
		}
	}
	d->end_ticks = arch_ticks();
	if (d->failed)
		pr_err("domains: %s: not restored from the handover: %s (its "
		       "memory stays reserved)\n",
		       d->shown, d->fail_reason);
	return d->built;
}

/*
 * Guest isolation failed (domain_restore_check.c): every domain of @h
 * into @s failed with @why, none of its memory taken or written.
 */
static void refuse_all(struct domain_set *s, const struct bi_handover *h,
		       unsigned int count, const char *why)
{
	for (unsigned int i = 0; i < count; i++) {
		struct domain *d = &s->d[s->stats.count++];

		restore_record(s, d, &h->domains[i]);
		domain_fail(d, why);
	}
}

/* inject=restore-fail:ID naming no domain of the handover @arg: said. */
static void warn_restore_fail(uint64_t id, void *arg)
{
	const struct bi_handover *h = arg;

	for (unsigned int i = 0; i < h->domain_count; i++)
		if (h->domains[i].id == id)
			return;
	pr_warn("inject=restore-fail:%llu: no domain of the handover has that "
		"id, nothing injected\n",
		(unsigned long long)id);
}

/**
 * domains_restore() - the handover's domains into @s (keel/domain.h).
 *
 * All of it is downtime, so it does little but the domains' own work: of
 * @s it zeroes only what the restore fills (a whole set is DOMAIN_MAX
 * domains, 190 KiB: zeroing all of it was 50-80 us under QEMU TCG for one
 * domain restored; the flow's is sized to the handover's); its line
 * costs only its formatting, as the console holds the downtime's lines
 * (printk.c's console_hold()).
 * Return: the domains restored; *@failed the others.
 */
unsigned int domains_restore(struct domain_set *s, const struct bootinfo *bi,
			     const struct keel_options *o, unsigned int *failed)
{
	const struct bi_handover *h = &bi->handover;
	unsigned int ok = 0, count = MIN(h->domain_count, domain_set_cap(s));
	uint64_t start = arch_ticks();
	char why[256];

	memset(&s->stats, 0, sizeof(s->stats));
	memset(&s->ctx, 0, sizeof(s->ctx));
	domain_ctx_init(&s->ctx, o, &s->stats.problems);
	*failed = 0;
	if (h->state != HANDOVER_TAKEN)
		return 0;
	memset(s->d, 0, count * sizeof(s->d[0]));
	if (domains_restore_disjoint(h, why, sizeof(why))) {
		pr_err("%s: no domain restored (their memory stays "
		       "reserved)\n",
		       why);
		refuse_all(s, h, count, why);
		*failed = count;
		return 0;
	}
	for (unsigned int i = 0; i < count; i++) {
		struct domain *d = &s->d[s->stats.count++];

		if (restore_one(s, d, h, &h->domains[i], arch_ticks()))
			ok++;
		else
			(*failed)++;
	}
	s->stats.build_ticks = arch_ticks() - start;
	inject_for_each(INJECT_RESTORE_FAIL, warn_restore_fail, (void *)h);
	pr_info("domains: %u restored from the handover, %u failed, in %llu "
		"us\n",
		ok, *failed,
		(unsigned long long)(ticks_to_ns(s->stats.build_ticks) / 1000));
	return ok;
}

/**
 * domain_restore_free() - a restored @d's extents back to reserved, its
 * table pages left reserved (see the top); refusals are problems.
 */
void domain_restore_free(struct domain *d)
{
	unsigned int refused = release_extents(d, d->restored->extent_count, 0);

	if (refused) {
		pr_warn("domains: %s: %u extents not given back to reserved\n",
			d->shown, refused);
		domain_problem(d, refused);
	}
}
