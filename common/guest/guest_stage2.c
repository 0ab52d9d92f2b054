/* SPDX-License-Identifier: MIT */
/*
 * Guests, their stage 2 (include/keel/guest.h): the table a vCPU runs on
 * is its domain's, plus the guest image, without changing the domain's.
 *
 * guest_s2_build() gives the vCPU its own root, a copy of the domain's
 * root page(s), and copies the tables on the path from the root to the
 * image's IPA (a new empty table where the domain maps nothing there):
 * at most one table per level below the root. The last one maps the
 * image pages (guest_s2_map_image(), once the arch has filled them),
 * read-only but for the pages the arch says its guest writes (the
 * format's write bits cleared). Every other
 * entry of the copies points into the domain's own tables, shared: the
 * walk of the vCPU's table and of the domain's give the same frame for
 * every IPA of the domain, and the domain's table, which the checks and
 * destroy walk, is never written. No stage-2 walk writes a table either:
 * every entry keel writes has its access flag set, and no hardware
 * dirty state is on (VTCR_EL2.HA/HD, NPT's A/D preset).
 *
 * Pages: the image (GUEST_IMAGE_PAGES, on the domain's node), the root
 * copy and up to three path tables on the table's node, keel's own
 * anonymous heap blocks (the audit counts them as allocated), zeroed
 * when taken and when given back (a table holds machine addresses).
 * The image is cleaned to the point of coherency: the guest, its MMU off,
 * reads and fetches it non-cacheable.
 *
 * Boot CPU only, before the vCPUs run and after they stopped; no lock.
 */
#include <arch/cache.h>
#include <arch/mm.h>
#include <arch/p2m.h>
#include <keel/errno.h>
#include <keel/frametable.h>
#include <keel/guest.h>
#include <keel/heap.h>
#include <keel/p2m_format.h>
#include <keel/string.h>

#include "guest_priv.h"

#define IMAGE_ORDER 3 /* GUEST_IMAGE_PAGES pages */
_Static_assert((1u << IMAGE_ORDER) == GUEST_IMAGE_PAGES, "image order");

/* 2^@order zeroed pages on @node, recorded in @s. INVALID_PADDR: none. */
static paddr_t own_alloc(struct guest_s2 *s, int node, unsigned int order)
{
	struct page_info *pg;
	paddr_t t;

	if (s->own_count >= GUEST_S2_OWN)
		return INVALID_PADDR;
	pg = heap_alloc(order, node < 0 ? HEAP_ANY_NODE : node, 0, 0, NULL);
	if (!pg)
		return INVALID_PADDR;
	t = pfn_to_paddr(page_to_pfn(pg));
	memset(phys_to_virt(t), 0, PAGE_SIZE << order);
	s->own[s->own_count] = t;
	s->own_order[s->own_count++] = (uint8_t)order;
	return t;
}

static bool valid(paddr_t t)
{
	return pa_val(t) != pa_val(INVALID_PADDR);
}

/* Index of @ipa's entry at @level of @p (the root may be concatenated). */
static unsigned int index_at(const struct p2m *p, uint64_t ipa,
			     unsigned int level)
{
	uint64_t i = ipa >> p2m_level_shift(level);

	return level == p->start_level ? (unsigned int)i
				       : (unsigned int)(i % P2M_TABLE_ENTRIES);
}

/*
 * Copy the table @p's @e points to (or make an empty one) and point @e at
 * the copy. Return: the copy's VA, or NULL (-ENOMEM, -EEXIST: @e is a
 * leaf: the domain maps the image's IPA).
 */
static uint64_t *path_copy(struct guest_s2 *s, uint64_t *e, unsigned int level,
			   int *err)
{
	const struct p2m *p = &s->p2m;
	paddr_t next = INVALID_PADDR, copy;
	enum p2m_pte_kind k = p->fmt->decode(*e, level, &next);

	if (k != P2M_PTE_NONE && k != P2M_PTE_TABLE) {
		*err = -EEXIST;
		return NULL;
	}
	copy = own_alloc(s, p->node, 0);
	if (!valid(copy)) {
		*err = -ENOMEM;
		return NULL;
	}
	if (k == P2M_PTE_TABLE)
		memcpy(phys_to_virt(copy), phys_to_virt(next), PAGE_SIZE);
	*e = p->fmt->table(copy);
	return phys_to_virt(copy);
}

/**
 * guest_s2_build() - @s: @dom with its own root and the path to
 * @image_ipa copied; the image's pages taken, not mapped yet
 * (guest_s2_map_image()). See the file comment.
 * @s: the vCPU's stage 2 (zeroed)
 * @dom: the domain's committed table
 * @image_ipa: where the image goes: above the domain, in one leaf table
 *
 * Return: 0, -ENOMEM, -EEXIST (the domain maps @image_ipa); on an error
 * what was taken is given back.
 */
int guest_s2_build(struct guest_s2 *s, const struct p2m *dom,
		   uint64_t image_ipa)
{
	unsigned int level = dom->start_level;
	uint64_t *tab;
	paddr_t root;
	int err = -ENOMEM;

	s->p2m = *dom;
	s->image_ipa = image_ipa;
	s->image = own_alloc(s, dom->node, IMAGE_ORDER);
	root = own_alloc(s, dom->node, dom->root_order);
	if (!valid(s->image) || !valid(root))
		goto fail;
	memcpy(phys_to_virt(root), phys_to_virt(dom->root),
	       PAGE_SIZE << dom->root_order);
	s->p2m.root = root;
	tab = phys_to_virt(root);
	for (; level < P2M_LEAF_LEVEL; level++) {
		tab = path_copy(s, &tab[index_at(&s->p2m, image_ipa, level)],
				level, &err);
		if (!tab)
			goto fail;
	}
	s->leaf_table = tab;
	for (unsigned int i = 0; i < GUEST_IMAGE_PAGES; i++) {
		uint64_t ipa = image_ipa + i * PAGE_SIZE;
		paddr_t out;

		if (s->p2m.fmt->decode(tab[index_at(&s->p2m, ipa, level)],
				       level, &out) != P2M_PTE_NONE) {
			err = -EEXIST;
			goto fail;
		}
	}
	return 0;
fail:
	guest_s2_free(s);
	return err;
}

/**
 * guest_s2_map_image() - the image's pages mapped at its IPA, read-only
 * but for those @writable names (a bit per page: arch_guest_image()).
 * @s: a stage 2 of guest_s2_build()
 * @writable: pages the guest may write
 */
void guest_s2_map_image(struct guest_s2 *s, unsigned int writable)
{
	const struct p2m_format *f = s->p2m.fmt;

	for (unsigned int i = 0; i < GUEST_IMAGE_PAGES; i++) {
		uint64_t ipa = s->image_ipa + i * PAGE_SIZE;
		uint64_t pte = f->leaf(pa_add(s->image, i * PAGE_SIZE),
				       P2M_LEAF_LEVEL);

		s->leaf_table[index_at(&s->p2m, ipa, P2M_LEAF_LEVEL)] =
			writable & (1u << i) ? pte : pte & ~f->write_bits;
	}
}

/** guest_s2_image() - Return: keel's view of @s's image pages. */
void *guest_s2_image(const struct guest_s2 *s)
{
	return phys_to_virt(s->image);
}

/**
 * guest_s2_publish() - the image written: cleaned to the PoC, the table's
 * stores visible to the walker (the arch's commit for its VMID).
 * @s: the vCPU's stage 2
 */
void guest_s2_publish(struct guest_s2 *s)
{
	arch_clean_dcache_range(guest_s2_image(s),
				GUEST_IMAGE_PAGES * PAGE_SIZE);
	arch_p2m_commit(&s->p2m);
}

/** guest_s2_free() - every page @s took, zeroed, back to the heap. */
void guest_s2_free(struct guest_s2 *s)
{
	while (s->own_count) {
		unsigned int i = --s->own_count;
		paddr_t t = s->own[i];

		memset(phys_to_virt(t), 0, PAGE_SIZE << s->own_order[i]);
		heap_free(pfn_to_page(paddr_to_pfn(t)), s->own_order[i],
			  s->free_dirty);
	}
	s->image = INVALID_PADDR;
	s->p2m.root = INVALID_PADDR;
}
