/* SPDX-License-Identifier: MIT */
/*
 * Owned extents: a domain's memory in O(extents), not O(pages).
 *
 * heap_alloc_owned() takes a block off the free lists exactly as
 * heap_alloc() does, but writes only its head, under the node lock:
 * state PGS_OWNED, order, node, pfn and the owner id (in the union with
 * first_dirty). No tail entry is written, so a 1 GiB extent costs one
 * page_info write instead of 262144. An owned extent may be as large as a
 * free chunk (2^MAX_FREE_ORDER pages, 8 TiB): it is still one head write
 * (plus the heads of the halves a split puts back), so a 1 TiB domain can
 * be one allocation. A caller taking a big extent passes HEAP_NO_SCRUB and
 * zeroes it itself, split across CPUs (common/domain/domain_big.c): zeroing
 * here is done by the calling CPU alone. Zeroing of the dirty part happens
 * after the unlock, on the calling CPU, in pieces of at most 2 MiB (a bounded
 * stretch of non-preemptible work between two points where an interrupt can be
 * taken). Cache maintenance: cachemaint=eager keeps its per-page, in-lock
 * baseline; otherwise a clean_poc block needs none, HEAP_NO_FLUSH leaves it to
 * the caller (by range), and anything else gets one range operation after the
 * unlock.
 *
 * heap_free_owned() turns the head back into a free (dirty) head and
 * merges it like heap_free(): the merge proof in common/mm/heap.c covers
 * owned heads (a PGS_OWNED head never reads as "free").
 *
 * heap_adopt_owned() makes RAM the heap was never given (a domain's static
 * memory, reserved at boot) into owned extents: the range joins the node's
 * range table cut exactly as a handoff cuts a free range (maximal aligned
 * blocks), so the tiling the buddy check and heap_owner_of() rely on
 * holds; every head says PGS_OWNED with PGF_ADOPTED, none is ever free.
 * Nothing in it is zeroed or cleaned: it is the owner's data. It leaves the
 * heap only by heap_release_owned() of the same range (back to reserved),
 * never through the free lists, so the free pages and chunks are the same
 * before and after.
 *
 * heap_owner_of() finds the block holding any pfn without reading a tail:
 * inside a heap range, every page lies in exactly one naturally aligned
 * block (free chunk, anonymous block, owned extent or a chunk detached by
 * the scrubber). Let A = [a, a + 2^k) be an aligned block inside the range
 * that no block strictly contains (to begin with, the largest aligned
 * block around p inside the range). The block X holding page a either
 * contains A -- then X = A -- or is smaller and, being aligned, starts at
 * a. Either way the entry of a is a head. If X does not reach p, the half
 * of A holding p is again contained in no block (A itself is not one), so
 * the descent reads only heads, at most MAX_FREE_ORDER + 1 of them.
 *
 * Lock: heap_alloc_owned/heap_free_owned take one node lock at a time;
 * heap_owner_of takes none (quiescent heap, or a page the caller holds).
 */
#include <arch/cache.h>
#include <arch/cpu.h>
#include <arch/mm.h>
#include <keel/bootmem.h>
#include <keel/cachemaint.h>
#include <keel/compiler.h>
#include <keel/errno.h>
#include <keel/heap.h>
#include <keel/heap_boot.h>
#include <keel/heap_check.h>
#include <keel/printk.h>
#include <keel/range_table.h>
#include <keel/scrub_prims.h>
#include <keel/string.h>

#include "heap_priv.h"

#define ZERO_PIECE_PAGES ((2ULL << 20) >> PAGE_SHIFT) /* 2 MiB */

/*
 * The owner ids that hold pages (or held them since heap_init()): an
 * open-addressed table of HEAP_OWNER_SLOTS ids (not a slot per possible
 * id), each slot claimed once by a compare-and-swap and kept until
 * heap_init(). The pages are counted per node: each node's
 * owner_pages[slot], written under that node's lock, so that no counter
 * is shared by every node's allocations (issue 37 §5). The ids are
 * written once per owner and read by everyone after.
 */
static uint16_t owner_ids[HEAP_OWNER_SLOTS];
static unsigned int owned_claimed;
static bool owned_full_said;

/* heap_init(): no extent is owned yet (only a table used is cleared). */
void heap_owned_reset(void)
{
	if (__atomic_load_n(&owned_claimed, __ATOMIC_RELAXED))
		memset(owner_ids, 0, sizeof(owner_ids));
	owned_claimed = 0;
	owned_full_said = false;
}

/*
 * @owner's slot (the index of its counters in every node's owner_pages[]);
 * @claim: take a slot if it has none. Return: the slot, or -1 (none, or
 * the table full: said once per heap_init()).
 */
int heap_owner_slot(uint16_t owner, bool claim)
{
	unsigned int i = (owner * 40503u) % HEAP_OWNER_SLOTS;

	for (unsigned int n = 0; owner && n < HEAP_OWNER_SLOTS; n++) {
		uint16_t v = __atomic_load_n(&owner_ids[i], __ATOMIC_ACQUIRE);

		if (!v && !claim)
			return -1;
		if (!v && __atomic_compare_exchange_n(&owner_ids[i], &v, owner,
						      false, __ATOMIC_ACQ_REL,
						      __ATOMIC_ACQUIRE)) {
			__atomic_fetch_add(&owned_claimed, 1, __ATOMIC_RELAXED);
			return (int)i;
		}
		if (v == owner)
			return (int)i;
		i = (i + 1) % HEAP_OWNER_SLOTS;
	}
	if (claim && owner &&
	    !__atomic_exchange_n(&owned_full_said, true, __ATOMIC_RELAXED))
		pr_warn("heap: owner %u refused: %u owners already hold "
			"pages (HEAP_OWNER_SLOTS)\n",
			owner, HEAP_OWNER_SLOTS);
	return -1;
}

/* Zero [p + fd, p + 2^order) in pieces of at most 2 MiB. */
static void zero_pieces(uint64_t p, unsigned int order, uint32_t fd)
{
	uint64_t q = p + fd, end = p + (1ULL << order);

	while (q < end) {
		uint64_t n = MIN(end - q, ZERO_PIECE_PAGES);

		arch_scrub_range(phys_to_virt(pfn_to_paddr(pfn(q))),
				 n << PAGE_SHIFT);
		q += n;
	}
}

/* cachemaint=eager in the lock: zero, then clean page by page (timed). */
static void owned_eager(const struct cachemaint *cm, struct page_info *pg,
			unsigned int order, struct heap_taken *t,
			uint32_t flags, struct heap_alloc_info *info)
{
	uint64_t t0 = arch_ticks(), t1;
	bool zero = t->fd != FIRST_DIRTY_NONE && !(flags & HEAP_NO_SCRUB);

	if (zero)
		info->zeroed_bytes = ((1ULL << order) - t->fd) << PAGE_SHIFT;
	heap_eager_in_lock(cm, pg, order, t, flags);
	t1 = arch_ticks();
	info->maint_bytes = (1ULL << order) << PAGE_SHIFT;
	info->maint_ticks = t1 - t0;
}

/* After the unlock: zero what is dirty, then the maintenance still due. */
static void owned_finish(const struct cachemaint *cm, struct page_info *pg,
			 unsigned int order, const struct heap_taken *t,
			 uint32_t flags, struct heap_alloc_info *info)
{
	uint64_t t0;

	if (t->fd != FIRST_DIRTY_NONE && !(flags & HEAP_NO_SCRUB)) {
		t0 = arch_ticks();
		zero_pieces(t->pfn, order, t->fd);
		info->zero_ticks = arch_ticks() - t0;
		info->zeroed_bytes = ((1ULL << order) - t->fd) << PAGE_SHIFT;
	}
	if (cm->mode == CACHEMAINT_EAGER)
		return;
	if (flags & HEAP_NO_FLUSH) {
		if (flags & HEAP_ICACHE)
			arch_inval_icache_all();
		return;
	}
	t0 = arch_ticks();
	cachemaint_after_alloc(cm, pg, order, flags);
	info->maint_ticks = arch_ticks() - t0;
	if (!t->poc && cachemaint_by_range(cm))
		info->maint_bytes = (1ULL << order) << PAGE_SHIFT;
}

/**
 * heap_alloc_owned() - an extent of 2^@order pages owned by @owner, one
 * head write, maintained as @cm says (NULL: the heap's policy; heap.h).
 *
 * Return: the head entry, or NULL.
 */
struct page_info *heap_alloc_owned(unsigned int order, int node, uint32_t flags,
				   uint16_t owner, struct heap_alloc_info *info,
				   const struct cachemaint *cm)
{
	struct heap_alloc_info scratch;
	struct heap_taken t = {.fd = FIRST_DIRTY_NONE};
	int slot;
	struct page_info *pg = NULL;
	const uint32_t *candidates;
	unsigned int i, count;
	uint32_t exact;
	bool drained = false;

	if (!info)
		info = &scratch;
	*info = (struct heap_alloc_info){0};
	if (order > MAX_FREE_ORDER || !heap_nr_nodes || owner == 0)
		return NULL;
	if (!cm)
		cm = heap_cachemaint();
	slot = heap_owner_slot(owner, true);
	if (slot < 0)
		return NULL;
	candidates = heap_alloc_candidates(node, flags, &exact, &count);
	for (i = 0; i < count && !pg; i++) {
		/* The tracer's site: the API's name, whatever the policy. */
		struct heap_node_locked l =
			heap_lock_node_at(candidates[i], "heap_alloc_owned");
		uint64_t held;

		pg = heap_take_block(l, order, NR_ZONES - 1, &t, PGS_OWNED,
				     owner, flags & HEAP_NO_SCRUB);
		if (pg) {
			l.hn->stats.owned_pages += 1ULL << order;
			l.hn->owner_pages[slot] += 1ULL << order;
			if (cm->mode == CACHEMAINT_EAGER)
				owned_eager(cm, pg, order, &t, flags, info);
		}
		held = heap_unlock_node_ticks(l);
		info->lock_ticks = MAX(info->lock_ticks, held);
		/* Low memory: the CPUs' caches back, then every node again. */
		if (!pg && i + 1 == count && !drained) {
			drained = true;
			if (heap_pcp_drain_low(candidates, count, order))
				i = (unsigned int)-1;
		}
	}
	if (!pg)
		return NULL;
	info->was_dirty = t.fd != FIRST_DIRTY_NONE;
	info->clean_poc = t.poc;
	info->node = pg->node;
	owned_finish(cm, pg, order, &t, flags, info);
	return pg;
}

/**
 * heap_free_owned() - give back @owner's extent headed by @head, dirty.
 *
 * Return: 0, or -EINVAL on misuse when heap_strict is off (panics when on).
 */
int heap_free_owned(struct page_info *head, unsigned int order, uint16_t owner)
{
	const struct heap_free_args a = {
		.fn = "heap_free_owned",
		.max_order = MAX_FREE_ORDER,
		.state = PGS_OWNED,
		.owner = owner,
		.first_dirty = 0, /* the guest wrote it: all dirty */
		.slot = heap_owner_slot(owner, false),
	};

	return heap_free_block(head, order, &a);
}

/* Owned, adopted counters of @l's node and an owner's (@slot) moved. */
static void adopted_account(struct heap_node_locked l, int slot, int64_t pages)
{
	l.hn->stats.total_pages += (uint64_t)pages;
	l.hn->stats.owned_pages += (uint64_t)pages;
	l.hn->stats.adopted_pages += (uint64_t)pages;
	if (slot >= 0)
		l.hn->owner_pages[slot] += (uint64_t)pages;
}

/*
 * Does [s, e) overlap a heap range of a node other than @node? Each node's
 * lock in turn (never nested); its own node is checked when its table is
 * added to.
 */
static bool other_nodes_hold(uint32_t node, uint64_t s, uint64_t e)
{
	bool hit = false;

	for (uint32_t n = 0; n < heap_nr_nodes && !hit; n++) {
		struct heap_node_locked l;
		const struct region *r;

		if (n == node)
			continue;
		l = heap_lock_node(n);
		r = heap_ranges_first_ending_above(&l.hn->ranges,
						   pfn_to_paddr(pfn(s)));
		hit = r && pfn_val(region_start_pfn(r)) < e;
		heap_unlock_node(l);
	}
	return hit;
}

/*
 * Is all of pfns [s, e) RAM of @node (bootmem's RAM map, sorted)? An
 * adopted range of another node would be counted on the wrong node and
 * cut no boundary.
 */
static bool ram_of_node(uint32_t node, uint64_t s, uint64_t e)
{
	unsigned int count;
	const struct region *ram = bootmem_ram_regions(&count);

	for (unsigned int i = 0; i < count && s < e; i++) {
		uint64_t rs = pfn_val(region_start_pfn(&ram[i]));
		uint64_t re = pfn_val(region_end_pfn(&ram[i]));

		if (re <= s)
			continue;
		if (rs > s || ram[i].node != node)
			return false;
		s = re;
	}
	return s >= e;
}

/*
 * Is all of pfns [s, e) reserved for a domain: inside bootmem's reserved
 * ranges named "preserved" (a live update's) or "static-mem" (dom0less
 * xen,static-mem)? Never keel's own: its image, the frame table, stacks,
 * tables and firmware ranges are reserved under other names.
 */
static bool reserved_for_domains(uint64_t s, uint64_t e)
{
	unsigned int count;
	/* Not joined by a live update's carried bad ranges: a restore runs
	 * in its downtime, and they never cut a domain's region. */
	const struct region *r = bootmem_reserved_table(&count);

	/* From the first region ending above @s, found in O(log): 100,000 bad
	 * pages are as many reserved regions, and a restore asks per extent. */
	for (unsigned int i = regions_first_ending_above_pfn(r, count, s);
	     i < count && s < e; i++) {
		uint64_t rs = pfn_val(region_start_pfn(&r[i]));
		uint64_t re = pfn_val(region_end_pfn(&r[i]));

		if (re <= s)
			continue;
		if (rs > s || (strcmp(r[i].name, "preserved") &&
			       strcmp(r[i].name, "static-mem")))
			return false;
		s = re;
	}
	return s >= e;
}

/**
 * heap_adopt_owned() - reserved RAM [@start, @end) of @node becomes
 * @owner's extents, untouched (see heap.h): only RAM of @node reserved
 * for a domain ("preserved", "static-mem"), never keel's own.
 *
 * Return: the extents made, -EINVAL or -ENOSPC.
 */
long heap_adopt_owned(uint32_t node, pfn_t start, pfn_t end, uint16_t owner)
{
	uint64_t s = pfn_val(start), e = pfn_val(end), p;
	struct heap_node_locked l;
	int slot;
	long n = 0;
	int err;

	if (node >= heap_nr_nodes || !owner || e <= s ||
	    other_nodes_hold(node, s, e) || !ram_of_node(node, s, e) ||
	    !reserved_for_domains(s, e))
		return -EINVAL;
	/* Heads only are written: each needs its frame table entry. */
	for (p = s; p < e; p += 1ULL << heap_chunk_order(p, e))
		if (!pfn_to_page_or_null(pfn(p)))
			return -EINVAL;
	slot = heap_owner_slot(owner, true);
	if (slot < 0)
		return -ENOSPC;
	l = heap_lock_node(node);
	err = heap_ranges_add(&l.hn->ranges, s, e);
	for (p = s; !err && p < e; p += 1ULL << heap_chunk_order(p, e), n++) {
		struct page_info *pg = pfn_to_page(pfn(p));

		page_set(pg, p, PGS_OWNED, heap_chunk_order(p, e), node, owner,
			 PGF_ADOPTED | (p == s ? PGF_ADOPTED_FIRST : 0));
	}
	if (!err)
		adopted_account(l, slot, (int64_t)(e - s));
	heap_unlock_node(l);
	return err ? err : n;
}

/*
 * Is [s, e) exactly one range heap_adopt_owned() made for @owner: its
 * blocks, the first flagged first, and no more of it at @e? Blocks are
 * found by heap_owner_of() (heads only: a tail is never read). Return:
 * NULL, or what is wrong. Lock: @l's (heap_owner_of() takes none).
 */
static const char *adopted_check(struct heap_node_locked l, uint64_t s,
				 uint64_t e, uint16_t owner)
{
	const struct page_info *pg;
	unsigned int k, k2;
	uint64_t h2;
	pfn_t h;

	for (uint64_t p = s; p < e; p += 1ULL << heap_chunk_order(p, e)) {
		if (!heap_owns_locked(l, p, heap_chunk_order(p, e)))
			return "not heap memory";
		if (heap_owner_of(pfn(p), &h, &k) != owner)
			return "not this owner's extent";
		pg = pfn_to_page(h);
		if (pfn_val(h) != p || k != heap_chunk_order(p, e) ||
		    !(pg->flags & PGF_ADOPTED) ||
		    !(pg->flags & PGF_ADOPTED_FIRST) != (p != s))
			return "not an adopted extent";
	}
	/*
	 * The page past the range may start a deferred chunk (free memory
	 * across bad pages, heap_defer.c): not this owner's, and
	 * heap_owner_of() would split it under the lock held here.
	 */
	if (heap_owns_locked(l, e, 0) && !heap_defer_holding(l, e, &h2, &k2) &&
	    heap_owner_of(pfn(e), &h, &k) == owner) {
		pg = pfn_to_page(h);
		if (pfn_val(h) == e && (pg->flags & PGF_ADOPTED) &&
		    !(pg->flags & PGF_ADOPTED_FIRST))
			return "not a whole adopted range";
	}
	return NULL;
}

/**
 * heap_release_owned() - the adopted range [@start, @end) leaves the heap
 * (see heap.h).
 *
 * Return: 0, -EINVAL (misuse) or -ENOSPC.
 */
int heap_release_owned(uint32_t node, pfn_t start, pfn_t end, uint16_t owner)
{
	uint64_t s = pfn_val(start), e = pfn_val(end);
	struct heap_node_locked l;
	const char *why = NULL;
	int err = 0;

	if (node >= heap_nr_nodes || e <= s)
		return heap_misuse("heap_release_owned", s, "bad range", 0, 0);
	l = heap_lock_node(node);
	why = adopted_check(l, s, e, owner);
	if (!why)
		err = heap_ranges_remove(&l.hn->ranges, s, e);
	if (!why && !err)
		adopted_account(l, heap_owner_slot(owner, false),
				-(int64_t)(e - s));
	heap_unlock_node(l);
	if (why)
		return heap_misuse("heap_release_owned", s, why, 0, 0);
	return err;
}

/** heap_adopted_pages() - Return: pages adopted by heap_adopt_owned(). */
uint64_t heap_adopted_pages(void)
{
	uint64_t sum = 0;

	for (unsigned int n = 0; n < heap_nr_nodes; n++)
		sum += READ_ONCE(heap_nodes[n]->stats.adopted_pages);
	return sum;
}

/** heap_owned_pages() - Return: pages @owner holds (0: all owners). */
uint64_t heap_owned_pages(uint16_t owner)
{
	uint64_t sum = 0;
	int slot = owner ? heap_owner_slot(owner, false) : 0;

	if (slot < 0)
		return 0;
	for (unsigned int n = 0; n < heap_nr_nodes; n++)
		sum += owner ? READ_ONCE(heap_nodes[n]->owner_pages[slot])
			     : READ_ONCE(heap_nodes[n]->stats.owned_pages);
	return sum;
}

/**
 * heap_owned_node_pages() - pages @owner holds on @node (0: all owners),
 * from the node's own counters.
 *
 * Return: the pages; 0 for no such node or owner.
 */
uint64_t heap_owned_node_pages(uint16_t owner, uint32_t node)
{
	int slot = owner ? heap_owner_slot(owner, false) : 0;

	if (slot < 0 || node >= heap_nr_nodes)
		return 0;
	return owner ? READ_ONCE(heap_nodes[node]->owner_pages[slot])
		     : READ_ONCE(heap_nodes[node]->stats.owned_pages);
}

/*
 * The order of the largest aligned block around @p inside [s, e): the
 * starting point of the descent (no block can be larger, and pfn 0 is
 * only ever an order-0 block).
 */
static unsigned int top_order(uint64_t p, uint64_t s, uint64_t e)
{
	unsigned int k;

	for (k = MAX_FREE_ORDER; k > 0; k--) {
		uint64_t a = p & ~((1ULL << k) - 1);

		if (a && a >= s && a + (1ULL << k) <= e)
			break;
	}
	return k;
}

/* heap_owned_order() - include/keel/heap.h. */
int heap_owned_order(const struct page_info *head, uint16_t owner)
{
	if (heap_head_owner(head) != owner ||
	    head->pfn != pfn_val(page_to_pfn(head)))
		return -EINVAL;
	return head->order;
}

/**
 * heap_owner_of() - who holds pfn @pp, and the head and order of its block
 * (see heap.h and the file comment for why only heads are read).
 *
 * Return: HEAP_OWNER_*, an owner id, or -EIO.
 */
int heap_owner_of(pfn_t pp, pfn_t *head, unsigned int *order)
{
	uint64_t p = pfn_val(pp);
	const struct region *r = NULL;
	unsigned int n, k;

	for (n = 0; n < heap_nr_nodes && !r; n++)
		r = heap_ranges_find(&heap_nodes[n]->ranges, p);
	if (!r)
		return HEAP_OWNER_NONE;
	n--;
	/*
	 * In a deferred chunk: split along its path first (heap_defer.c;
	 * the lock taken only then: a locked caller's page is in none, and
	 * heap_offline()/heap_online() split before they lock).
	 */
	heap_defer_split_unlocked(n, p);
	for (k = top_order(p, pfn_val(region_start_pfn(r)),
			   pfn_val(region_end_pfn(r)));
	     ; k--) {
		uint64_t a = p & ~((1ULL << k) - 1);
		const struct page_info *pg = pfn_to_page(pfn(a));
		int who = heap_head_owner(pg);

		if (who < 0 || pg->pfn != a || pg->order > k || pg->node != n)
			break;
		if (p < a + (1ULL << pg->order)) {
			if (head)
				*head = pfn(a);
			if (order)
				*order = pg->order;
			return who;
		}
		if (!k)
			break;
	}
	pr_err("heap_owner_of: pfn %#llx: no head describes it\n",
	       (unsigned long long)p);
	return -EIO;
}
