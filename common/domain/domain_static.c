/* SPDX-License-Identifier: MIT */
/*
 * Domains from the DT (dom0less, boot/fdt/fdt_dom0less.c), and static ones:
 * Xen's static allocation, a domain whose `xen,static-mem` pins its memory
 * to host ranges (DOMAIN_ORIGIN_STATIC; the others are
 * DOMAIN_ORIGIN_BOOT, built from the heap).
 *
 * A static range is the user's data. boot/ reserved it ("static-mem") as
 * it read the DT, so bootmem never hands it to the heap and the boot scrub
 * never sees it; this file never changes that, whatever becomes of the
 * domain. Before anything is built (domains_setup()), each range must lie
 * inside one RAM range (so on one node, with frame table entries below a
 * mem= cut) and clear of every other reservation (keel's image, the DT,
 * firmware, a module, a bad range), of the pages of a badram= pattern kept
 * as a lattice (struct bootinfo's @lattice: not a reservation), of its own
 * other ranges and of every other domain's static ranges; the first
 * problem refuses the domain (a failed row, its fail_reason; one warning
 * naming the node). A domain boot/ refused (ranges not totalling `memory`,
 * unaligned, unreadable) arrives failed.
 *
 * The build (domain_static_build(), on the boot CPU before the workers
 * start: O(ranges + leaves), no zeroing): heap_adopt_owned() turns each
 * range into extents owned by the domain (maximal aligned blocks, one head
 * write each), so heap_owner_of() answers for every frame and audit=full
 * proves the ownership; the ranges are mapped at consecutive guest
 * addresses from 0, each leaf the largest block (1 GiB, 2 MiB, 4 KiB) that
 * both addresses' alignment allows. Nothing is zeroed, scrubbed or
 * cleaned: the guest's memory holds what the loader put there.
 *
 * Destroy (domain_static_free()) gives the ranges back to reserved
 * (heap_release_owned()), never to the free lists: what a static domain
 * held is still its memory, and the heap's free pages and chunks are what
 * they were before the build.
 *
 * Boot CPU only; no lock of its own (the heap takes its node locks).
 */
#include <arch/cpu.h>
#include <keel/bootmem.h>
#include <keel/compiler.h>
#include <keel/errno.h>
#include <keel/heap.h>
#include <keel/heap_boot.h>
#include <keel/lattice.h>
#include <keel/p2m.h>
#include <keel/printk.h>
#include <keel/string.h>

#include "domain_priv.h"

#define RANGE_FMT "xen,static-mem [%#llx, %#llx)"

/* The RAM range holding all of [s, e): its node in *@node. */
static bool in_one_ram(const struct bootinfo *bi, paddr_t s, paddr_t e,
		       uint32_t *node)
{
	for (unsigned int i = 0; i < bi->ram.count; i++) {
		if (pa_val(bi->ram.regions[i].start) <= pa_val(s) &&
		    pa_val(e) <= pa_val(bi->ram.regions[i].end)) {
			*node = bi->ram.regions[i].node;
			return true;
		}
	}
	return false;
}

/* A reservation other than the static ranges' own that [s, e) overlaps. */
static const struct region *reserved_hit(const struct bootinfo *bi, paddr_t s,
					 paddr_t e)
{
	for (unsigned int i = 0; i < bi->reserved.count; i++) {
		const struct region *r = &bi->reserved.regions[i];

		if (strcmp(r->name, "static-mem") && region_overlaps(r, s, e))
			return r;
	}
	return NULL;
}

/*
 * The first page of [s, e) that a badram= lattice names (its address in
 * *@page): whether any. O(lattices).
 */
static bool lattice_hit(const struct bootinfo *bi, paddr_t s, paddr_t e,
			uint64_t *page)
{
	for (unsigned int j = 0; j < bi->lattice_count; j++) {
		uint64_t rs, re;

		if (!lattice_run_after(&bi->lattice[j], pa_val(s) >> PAGE_SHIFT,
				       &rs, &re) ||
		    rs << PAGE_SHIFT >= pa_val(e))
			continue;
		*page = MAX(rs << PAGE_SHIFT, pa_val(s) & PAGE_MASK);
		return true;
	}
	return false;
}

/* Another DT domain than @self whose static ranges overlap [s, e). */
static const struct bi_domain *domain_hit(const struct bootinfo *bi,
					  const struct bi_domain *self,
					  paddr_t s, paddr_t e)
{
	for (unsigned int i = 0; i < bi->domain_count; i++) {
		const struct bi_domain *o = &bi->domains[i];

		for (unsigned int k = 0; o != self && k < o->static_count; k++)
			if (region_overlaps(&o->static_mem[k], s, e))
				return o;
	}
	return NULL;
}

/* The first of @d's ranges before @i that range @i overlaps, or @i. */
static unsigned int self_hit(const struct domain *d, unsigned int i)
{
	for (unsigned int k = 0; k < i; k++)
		if (region_overlaps(&d->st.range[i], d->st.range[k].start,
				    d->st.range[k].end))
			return k;
	return i;
}

/*
 * Range @i of @d against RAM, the mem= cut, the reservations, its own
 * other ranges and the other domains (see the top). Return: true when it can be @d's, else the reason
 * in @why.
 */
static bool static_place(struct domain *d, unsigned int i,
			 const struct bi_domain *self,
			 const struct bootinfo *bi, char *why, size_t size)
{
	paddr_t s = d->st.range[i].start, e = d->st.range[i].end;
	unsigned long long a = pa_val(s), b = pa_val(e);
	const struct region *r;
	const struct bi_domain *o;
	char shown[ESCAPE_SIZE(DOMAIN_NAME_MAX - 1)];
	uint64_t page = 0;
	unsigned int k;

	if (!in_one_ram(bi, s, e, &d->st.node[i])) {
		snprintf(why, size, RANGE_FMT " is not inside one RAM range", a,
			 b);
	} else if (pa_val(e) > pa_val(bootmem_limit_top())) {
		snprintf(why, size, RANGE_FMT " is above the mem= cut", a, b);
	} else if ((r = reserved_hit(bi, s, e))) {
		snprintf(why, size, RANGE_FMT " overlaps %.*s", a, b,
			 (int)sizeof(r->name), r->name);
	} else if (lattice_hit(bi, s, e, &page)) {
		snprintf(why, size,
			 RANGE_FMT " holds page %#llx of a badram= pattern", a,
			 b, (unsigned long long)page);
	} else if ((k = self_hit(d, i)) < i) {
		snprintf(why, size,
			 RANGE_FMT " overlaps its own [%#llx, %#llx)", a, b,
			 (unsigned long long)pa_val(d->st.range[k].start),
			 (unsigned long long)pa_val(d->st.range[k].end));
	} else if ((o = domain_hit(bi, self, s, e))) {
		snprintf(why, size, RANGE_FMT " overlaps %s's", a, b,
			 escape_bytes(shown, sizeof(shown), o->name,
				      strlen(o->name)));
	} else {
		return true;
	}
	return false;
}

/* @d is static: its ranges, node and placement (see the top). */
static void static_setup(struct domain *d, const struct bi_domain *b,
			 const struct bootinfo *bi)
{
	char why[DOMAIN_WHAT_MAX]; /* cut to fail_reason by domain_fail() */

	d->origin = DOMAIN_ORIGIN_STATIC;
	if (b->refused[0]) { /* boot/ said why, with a warning */
		domain_fail(d, b->refused);
		return;
	}
	d->st.count = b->static_count;
	for (unsigned int i = 0; i < b->static_count; i++) {
		d->st.range[i] = b->static_mem[i];
		if (static_place(d, i, b, bi, why, sizeof(why)))
			continue;
		pr_warn("domains: dom0less %s: %s: domain refused (its "
			"memory stays reserved)\n",
			d->shown, why);
		domain_fail(d, why);
		return;
	}
	d->node = d->st.node[0];
	d->spec.node = (int)d->node;
}

/**
 * domain_from_dt() - domain @d from the DT's @b: name, size (the size
 * rule of domain=, with its warning), vCPUs, kernel module, and for a
 * static domain its ranges, checked against @bi (see the top).
 */
void domain_from_dt(struct domain *d, const struct bi_domain *b,
		    const struct bootinfo *bi)
{
	char what[DOMAIN_WHAT_MAX];

	domain_set_name(d, b->name);
	d->spec.bytes = domain_page_round(b->bytes);
	d->spec.node = DOMAIN_ANY_NODE;
	if (d->spec.bytes != b->bytes) {
		snprintf(what, sizeof(what), "dom0less %s/memory = %llu KiB",
			 d->shown, (unsigned long long)(b->bytes >> 10));
		domain_warn_rounded("domains", what, d->spec.bytes);
	}
	d->vcpus = b->vcpus;
	strlcpy(d->kernel, b->kernel, sizeof(d->kernel));
	if (b->is_static)
		static_setup(d, b, bi);
}

/* What a heap or p2m error means here, for a reason (never a bare errno). */
static const char *errno_what(long err)
{
	switch (err) {
	case -ENOMEM:
		return "no memory for a table page";
	case -ENOSPC:
		return "its node's range table is full";
	default:
		return "overlap, or not its node's reserved RAM";
	}
}

/* Map host [s, e) at guest @gpa with the largest leaves both allow. */
static int static_map(struct domain *d, uint64_t gpa, uint64_t s, uint64_t e)
{
	while (s < e) {
		unsigned int k;
		uint64_t size = PAGE_SIZE;
		int err;

		for (k = 0; k + 1 < DOMAIN_EXTENT_KINDS; k++) {
			size = PAGE_SIZE << domain_extent_order[k];
			if (!((gpa | s) & (size - 1)) && size <= e - s)
				break;
		}
		size = PAGE_SIZE << domain_extent_order[k];
		err = p2m_map(d->p2m, gpa, pa(s), domain_extent_order[k]);
		if (err)
			return err;
		d->extents[k]++;
		d->bytes_built += size;
		gpa += size;
		s += size;
	}
	return 0;
}

/* Range @i of @d adopted by the heap and mapped at @gpa. Return: 0/err. */
static int static_range_build(struct domain *d, unsigned int i, uint64_t gpa)
{
	paddr_t s = d->st.range[i].start, e = d->st.range[i].end;
	uint64_t t0 = arch_ticks(), t1;
	long n = heap_adopt_owned(d->st.node[i], paddr_to_pfn(s),
				  paddr_to_pfn(e), d->id);
	int err;

	t1 = arch_ticks();
	d->alloc_ticks += t1 - t0;
	if (n < 0) {
		snprintf(d->fail_reason, sizeof(d->fail_reason),
			 "the heap refused " RANGE_FMT ": %s",
			 (unsigned long long)pa_val(s),
			 (unsigned long long)pa_val(e), errno_what(n));
		return (int)n;
	}
	d->st.adopted++;
	d->heap_extents += (uint64_t)n;
	if (d->st.node[i] != d->node)
		d->remote_bytes += pa_val(e) - pa_val(s);
	err = static_map(d, gpa, pa_val(s), pa_val(e));
	d->map_ticks += arch_ticks() - t1;
	if (err)
		snprintf(d->fail_reason, sizeof(d->fail_reason),
			 RANGE_FMT " not mapped: %s",
			 (unsigned long long)pa_val(s),
			 (unsigned long long)pa_val(e), errno_what(err));
	return err;
}

/**
 * domain_static_build() - build static domain @d on this CPU (its table
 * exists; see the top). A failure sets d->stop and the reason; the caller
 * (build_finish()) then gives back what was taken (domain_free()).
 */
void domain_static_build(struct domain *d)
{
	unsigned int cpu = arch_cpu_id();
	uint64_t gpa = 0;

	d->cpu_bits[cpu / 64] |= 1ull << (cpu % 64);
	for (unsigned int i = 0; i < d->st.count; i++) {
		if (static_range_build(d, i, gpa)) {
			d->stop = true;
			break;
		}
		gpa += pa_val(d->st.range[i].end) -
		       pa_val(d->st.range[i].start);
	}
	d->units = d->next_unit = 0; /* nothing for the workers */
	d->end_ticks = arch_ticks();
}

/**
 * domain_static_free() - the ranges @d's heap adopted back to reserved
 * (heap_release_owned()); a refusal is a problem the verdict sees.
 */
void domain_static_free(struct domain *d)
{
	for (unsigned int i = 0; i < d->st.adopted; i++) {
		paddr_t s = d->st.range[i].start, e = d->st.range[i].end;
		int err = heap_release_owned(d->st.node[i], paddr_to_pfn(s),
					     paddr_to_pfn(e), d->id);

		if (!err)
			continue;
		pr_warn("domains: %s: " RANGE_FMT " not given back to "
			"reserved: %s\n",
			d->shown, (unsigned long long)pa_val(s),
			(unsigned long long)pa_val(e), errno_what(err));
		domain_problem(d, 1);
	}
	d->st.adopted = 0;
}

/**
 * domain_static_leaf_ok() - is the leaf at guest @gpa (host @pa, 2^@order
 * pages) where @d's ranges put @gpa, inside one range, and inside the
 * extent heap_owner_of() found (@head, 2^@horder pages)?
 */
bool domain_static_leaf_ok(const struct domain *d, uint64_t gpa, paddr_t pa,
			   unsigned int order, pfn_t head, unsigned int horder)
{
	uint64_t g = 0, size = PAGE_SIZE << order;
	uint64_t p = pfn_val(paddr_to_pfn(pa)), h = pfn_val(head);

	for (unsigned int i = 0; i < d->st.count; i++) {
		uint64_t s = pa_val(d->st.range[i].start);
		uint64_t len = pa_val(d->st.range[i].end) - s;

		if (gpa >= g + len) {
			g += len;
			continue;
		}
		return pa_val(pa) == s + (gpa - g) && gpa + size <= g + len &&
		       p >= h && p + (1ull << order) <= h + (1ull << horder);
	}
	return false;
}
