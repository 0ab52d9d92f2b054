/* SPDX-License-Identifier: MIT */
/*
 * Stage-2 / EPT tables, arch-neutral (include/keel/p2m.h): the builder,
 * the software walker and the teardown. The descriptor bits come from
 * the format (include/keel/p2m_format.h), the barriers, TLB maintenance
 * and MMU probes from the arch (include/arch/p2m.h).
 *
 * Invariants: a table page is reachable from the root exactly once (a
 * table entry is written only into an entry that decoded NONE), so the
 * teardown frees each once; every leaf maps an aligned block of its
 * level's size; nothing is ever unmapped before p2m_destroy().
 *
 * Batching: p2m_map() writes with plain stores and no barrier. Nothing
 * walks the table before p2m_commit() (one barrier and one TLB
 * invalidation for the whole table) or p2m_hw_translate().
 *
 * Table pages are keel's own heap blocks (anonymous: the audit counts
 * them as allocated), taken and given back only through p2m_page_alloc()
 * and p2m_page_free(). No lock: a p2m has one builder at a time.
 */
#include <arch/cache.h>
#include <arch/mm.h>
#include <arch/p2m.h>
#include <keel/atomic.h>
#include <keel/cachemaint.h>
#include <keel/compiler.h>
#include <keel/errno.h>
#include <keel/frametable.h>
#include <keel/heap.h>
#include <keel/p2m.h>
#include <keel/p2m_format.h>
#include <keel/string.h>

/* The policy of the table pages: the builder's, else the heap's. */
static const struct cachemaint *p2m_maint(const struct p2m *p)
{
	return p->maint ? p->maint : heap_cachemaint();
}

/*
 * 2^@order zeroed pages of tables on @node (-1: any). Zeroed here, not by
 * the heap: after bootscrub=off the heap calls unscrubbed memory clean,
 * and a stale word in a table would be a live mapping.
 */
static paddr_t p2m_page_alloc(const struct p2m *p, int node, unsigned int order)
{
	struct page_info *pg = heap_alloc(
		order, node < 0 ? HEAP_ANY_NODE : node, 0, 0, p2m_maint(p));
	paddr_t t;

	if (!pg)
		return INVALID_PADDR;
	t = pfn_to_paddr(page_to_pfn(pg));
	memset(phys_to_virt(t), 0, PAGE_SIZE << order);
	return t;
}

/*
 * Back to the heap zeroed, so clean: a table held machine addresses no
 * guest may read, and zeroing the few table pages here (one per 512
 * leaves) leaves no dirty page for a boot scrub that has already run.
 * Cleaned to PoC as well (a few lines), so that the chunk the page merges
 * into stays clean_poc: a table page freed plain made the 1 GiB extent
 * next to it need 1 GiB of maintenance (the arm64 domains benchmark).
 */
static void p2m_page_free(const struct p2m *p, paddr_t t, unsigned int order)
{
	void *va = phys_to_virt(t);

	memset(va, 0, PAGE_SIZE << order);
	if (p2m_maint(p)->mode != CACHEMAINT_NONE)
		arch_clean_dcache_range(va, PAGE_SIZE << order);
	heap_free(pfn_to_page(paddr_to_pfn(t)), order, HEAP_FREE_CLEAN_POC);
}

static uint64_t *table_va(paddr_t t)
{
	return phys_to_virt(t);
}

/* Index of @gpa's entry in the table at @level (the root may be concatenated). */
static unsigned int pte_index(const struct p2m *p, uint64_t gpa,
			      unsigned int level)
{
	uint64_t i = gpa >> p2m_level_shift(level);

	if (level == p->start_level)
		return (unsigned int)i;
	return (unsigned int)(i & (P2M_TABLE_ENTRIES - 1));
}

/* Entries of the root that lie below 2^ipa_bits. */
static uint64_t root_entries(const struct p2m *p)
{
	unsigned int shift = p2m_level_shift(p->start_level);

	if (p->ipa_bits <= shift)
		return 1;
	return MIN((uint64_t)P2M_TABLE_ENTRIES << p->root_order,
		   1ULL << (p->ipa_bits - shift));
}

static uint16_t p2m_next_vmid(void)
{
	static uint32_t vmids;

	/* 8-bit VMIDs 1..255: 0 stays the host's. */
	return (uint16_t)(atomic_fetch_add_relaxed(&vmids, 1) % 255 + 1);
}

/* p2m_init*(): an empty table of format @fmt, table pages under @maint. */
static int p2m_setup(struct p2m *p, int node, unsigned int ipa_bits,
		     const struct p2m_format *fmt,
		     const struct cachemaint *maint)
{
	unsigned int max = MIN(fmt->max_ipa_bits, arch_p2m_max_ipa_bits());

	memset(p, 0, sizeof(*p));
	p->maint = maint;
	p->root = INVALID_PADDR;
	if (!ipa_bits)
		ipa_bits = max;
	if (ipa_bits < fmt->min_ipa_bits || ipa_bits > max)
		return -EINVAL;
	p->fmt = fmt;
	p->node = node;
	p->ipa_bits = ipa_bits;
	p->pa_bits = MIN(fmt->oa_bits, arch_p2m_pa_bits());
	fmt->geometry(ipa_bits, &p->start_level, &p->root_order);
	p->root = p2m_page_alloc(p, node, p->root_order);
	if (pa_val(p->root) == pa_val(INVALID_PADDR))
		return -ENOMEM;
	p->table_pages = 1ULL << p->root_order;
	p->vmid = p2m_next_vmid();
	return 0;
}

/**
 * p2m_init_format() - an empty table of format @fmt (see p2m_init()).
 * @p: the p2m to set up
 * @node: node of its table pages, -1 for any
 * @ipa_bits: guest address width, 0 for the largest the arch and format allow
 * @fmt: the descriptor format
 *
 * Return: 0, -EINVAL (@ipa_bits out of range), -ENOMEM (no root).
 */
int p2m_init_format(struct p2m *p, int node, unsigned int ipa_bits,
		    const struct p2m_format *fmt)
{
	return p2m_setup(p, node, ipa_bits, fmt, NULL);
}

/**
 * p2m_init() - an empty table in the arch's format (include/keel/p2m.h).
 * @p: the p2m to set up
 * @node: node of its table pages, -1 for any
 * @ipa_bits: guest address width, 0 for the arch's maximum
 *
 * Return: 0, -EINVAL, -ENOMEM.
 */
int p2m_init(struct p2m *p, int node, unsigned int ipa_bits)
{
	return p2m_setup(p, node, ipa_bits, arch_p2m_format(), NULL);
}

/**
 * p2m_init_maint() - p2m_init() whose table pages are allocated and
 * cleaned under @maint (a domain build's policy) instead of the heap's.
 *
 * Return: 0, -EINVAL, -ENOMEM.
 */
int p2m_init_maint(struct p2m *p, int node, unsigned int ipa_bits,
		   const struct cachemaint *maint)
{
	return p2m_setup(p, node, ipa_bits, arch_p2m_format(), maint);
}

/* Is [a, a + size) below 2^bits? */
static bool fits(uint64_t a, uint64_t size, unsigned int bits)
{
	uint64_t top = bits >= 64 ? ~0ULL : 1ULL << bits;

	return a < top && size <= top - a;
}

/*
 * The table that holds the leaf of level @leaf for @gpa, its missing
 * tables allocated on the way. Return: its VA, or NULL with *@err set.
 */
static uint64_t *leaf_table(struct p2m *p, uint64_t gpa, unsigned int leaf,
			    int *err)
{
	unsigned int level = p->start_level;
	uint64_t *tab = table_va(p->root), *e;
	paddr_t next;

	for (; level < leaf; level++) {
		e = &tab[pte_index(p, gpa, level)];
		switch (p->fmt->decode(*e, level, &next)) {
		case P2M_PTE_NONE:
			next = p2m_page_alloc(p, p->node, 0);
			if (pa_val(next) == pa_val(INVALID_PADDR)) {
				*err = -ENOMEM;
				return NULL;
			}
			*e = p->fmt->table(next);
			p->table_pages++;
			break;
		case P2M_PTE_TABLE:
			break;
		default: /* a block already maps this range */
			*err = -EINVAL;
			return NULL;
		}
		tab = table_va(next);
	}
	return tab;
}

/**
 * p2m_map_run() - @count leaves of @order for [gpa, gpa + count * size),
 * to consecutive machine addresses from @mpa (include/keel/p2m.h). The
 * walk is done once per leaf table, not once per leaf.
 * @p: an initialised p2m
 * @gpa: guest physical address, aligned to the size
 * @mpa: machine address, aligned to the size
 * @order: 0, 9 or 18
 * @count: leaves
 *
 * Return: 0, -EINVAL (order, alignment, range, overlap), -ENOMEM; the
 * leaves before the failing one stay mapped.
 */
int p2m_map_run(struct p2m *p, uint64_t gpa, paddr_t mpa, unsigned int order,
		uint64_t count)
{
	uint64_t size = PAGE_SIZE << order, *tab = NULL;
	unsigned int leaf, idx = 0;
	paddr_t next;
	int err = 0;

	if (order % 9 || order > 18 || !p->fmt)
		return -EINVAL;
	leaf = P2M_LEAF_LEVEL - order / 9;
	if (!IS_ALIGNED(gpa | pa_val(mpa), size) ||
	    count > (~0ULL >> 1) / size ||
	    !fits(gpa, size * count, p->ipa_bits) ||
	    !fits(pa_val(mpa), size * count, p->pa_bits) ||
	    leaf < p->start_level)
		return -EINVAL;
	for (; count; count--, gpa += size, mpa = pa_add(mpa, size)) {
		idx = pte_index(p, gpa, leaf);
		if (!tab || !idx) /* first leaf, or the next table */
			tab = leaf_table(p, gpa, leaf, &err);
		if (!tab)
			return err;
		if (p->fmt->decode(tab[idx], leaf, &next) != P2M_PTE_NONE)
			return -EINVAL;
		tab[idx] = p->fmt->leaf(mpa, leaf);
	}
	return 0;
}

/**
 * p2m_map() - one leaf for [gpa, gpa + 2^(12 + order)) (include/keel/p2m.h).
 * @p: an initialised p2m
 * @gpa: guest physical address, aligned to the size
 * @mpa: machine address, aligned to the size
 * @order: 0, 9 or 18
 *
 * Return: 0, -EINVAL (order, alignment, range, overlap), -ENOMEM.
 */
int p2m_map(struct p2m *p, uint64_t gpa, paddr_t mpa, unsigned int order)
{
	return p2m_map_run(p, gpa, mpa, order, 1);
}

/**
 * p2m_commit() - publish the table: one barrier and TLB invalidation.
 * @p: the p2m
 */
void p2m_commit(struct p2m *p)
{
	arch_p2m_commit(p);
}

struct walk_ctx {
	const struct p2m *p;
	int (*fn)(uint64_t gpa, paddr_t pa, unsigned int order, void *arg);
	void *arg;
};

/* Every leaf under the table @t at @level covering from @base, @count entries. */
static int walk_table(const struct walk_ctx *w, paddr_t t, unsigned int level,
		      uint64_t base, uint64_t count)
{
	const uint64_t *tab = table_va(t);
	unsigned int shift = p2m_level_shift(level);
	paddr_t out;
	int err;

	for (uint64_t i = 0; i < count; i++) {
		uint64_t gpa = base + (i << shift);

		switch (w->p->fmt->decode(tab[i], level, &out)) {
		case P2M_PTE_NONE:
			continue;
		case P2M_PTE_LEAF:
			err = w->fn(gpa, out, 9 * (P2M_LEAF_LEVEL - level),
				    w->arg);
			break;
		case P2M_PTE_TABLE:
			err = walk_table(w, out, level + 1, gpa,
					 P2M_TABLE_ENTRIES);
			break;
		default:
			err = -EIO;
		}
		if (err)
			return err;
	}
	return 0;
}

/**
 * p2m_walk() - every leaf in gpa order (include/keel/p2m.h).
 * @p: the p2m
 * @fn: called with each leaf's gpa, machine address and order
 * @arg: passed to @fn
 *
 * Return: 0, @fn's non-zero return, -EIO on a reserved descriptor.
 */
int p2m_walk(const struct p2m *p,
	     int (*fn)(uint64_t gpa, paddr_t pa, unsigned int order, void *arg),
	     void *arg)
{
	struct walk_ctx w = {p, fn, arg};

	if (!p->fmt || pa_val(p->root) == pa_val(INVALID_PADDR))
		return 0;
	return walk_table(&w, p->root, p->start_level, 0, root_entries(p));
}

/**
 * p2m_translate() - software lookup (include/keel/p2m.h).
 * @p: the p2m
 * @gpa: guest physical address
 * @mpa: its machine address (may be NULL)
 * @order: order of the leaf that maps it (may be NULL)
 *
 * Return: 0, -ENOENT, -EIO.
 */
int p2m_translate(const struct p2m *p, uint64_t gpa, paddr_t *mpa,
		  unsigned int *order)
{
	paddr_t t = p->root, out;

	if (!p->fmt || !fits(gpa, 1, p->ipa_bits))
		return -ENOENT;
	for (unsigned int level = p->start_level; level <= P2M_LEAF_LEVEL;
	     level++) {
		uint64_t pte = table_va(t)[pte_index(p, gpa, level)];
		uint64_t mask = (1ULL << p2m_level_shift(level)) - 1;

		switch (p->fmt->decode(pte, level, &out)) {
		case P2M_PTE_NONE:
			return -ENOENT;
		case P2M_PTE_TABLE:
			t = out;
			continue;
		case P2M_PTE_LEAF:
			if (mpa)
				*mpa = pa_add(out, gpa & mask);
			if (order)
				*order = 9 * (P2M_LEAF_LEVEL - level);
			return 0;
		default:
			return -EIO;
		}
	}
	return -EIO; /* a table entry at the last level: BAD already */
}

/**
 * p2m_hw_translate() - the MMU's answer (include/keel/p2m.h).
 * @p: the p2m (committed)
 * @gpa: guest physical address
 * @mpa: its machine address
 *
 * Return: 0, -ENOENT (fault), -EOPNOTSUPP.
 */
int p2m_hw_translate(struct p2m *p, uint64_t gpa, paddr_t *mpa)
{
	if (!p->fmt || p->fmt != arch_p2m_format())
		return -EOPNOTSUPP;
	return arch_p2m_hw_translate(p, gpa, mpa);
}

/**
 * p2m_table_pages() - table pages in use, the root's included.
 * @p: the p2m
 *
 * Return: pages.
 */
uint64_t p2m_table_pages(const struct p2m *p)
{
	return p->table_pages;
}

/* Free every table below @t (at @level, @count entries), not @t itself. */
static uint64_t free_below(const struct p2m *p, paddr_t t, unsigned int level,
			   uint64_t count)
{
	const uint64_t *tab = table_va(t);
	uint64_t freed = 0;
	paddr_t next;

	if (level >= P2M_LEAF_LEVEL)
		return 0;
	for (uint64_t i = 0; i < count; i++) {
		if (p->fmt->decode(tab[i], level, &next) != P2M_PTE_TABLE)
			continue;
		freed += free_below(p, next, level + 1, P2M_TABLE_ENTRIES);
		p2m_page_free(p, next, 0);
		freed++;
	}
	return freed;
}

/**
 * p2m_destroy() - give every table page back to the heap.
 * @p: the p2m (may be uninitialised-by-failure: root INVALID_PADDR)
 */
void p2m_destroy(struct p2m *p)
{
	if (!p->fmt || pa_val(p->root) == pa_val(INVALID_PADDR))
		return;
	p->table_pages -=
		free_below(p, p->root, p->start_level,
			   (uint64_t)P2M_TABLE_ENTRIES << p->root_order);
	p2m_page_free(p, p->root, p->root_order);
	p->table_pages -= 1ULL << p->root_order;
	p->root = INVALID_PADDR;
}

/**
 * p2m_format_name() - the arch's format.
 *
 * Return: "vmsav8-64-s2" or "ept".
 */
const char *p2m_format_name(void)
{
	return arch_p2m_format()->name;
}
