/* SPDX-License-Identifier: MIT */
/*
 * Memory that fails, at runtime (DESIGN §16): heap_offline() takes a page
 * out of service wherever it is, heap_online() gives a soft one back.
 *
 * Where the page is, and what is done (under its node's lock only):
 *  - in a free chunk [h, h + 2^k): the chunk leaves its list and is split
 *    by aligned halving around the page. At each of the k levels the half
 *    without the page goes back as one free chunk (its first_dirty cut
 *    from the chunk's), the other is halved again, down to the page,
 *    which becomes a one-page block of state PGS_BAD, linked on the node's
 *    bad list through its own next/prev. k + 1 page entries written, the
 *    chunk's head found by heap_owner_of()'s descent (heads only), no list
 *    walked. Each half is the largest aligned chunk there: its buddy holds
 *    the bad page.
 *  - in an anonymous block or a domain's extent: the block is its
 *    holder's, its tail entries are never read, and its head may be the
 *    bad page itself, so nothing in it is written but one flag on its head
 *    (PGF_HAS_BAD); the page goes on the node's held array (a heap block,
 *    grown by doubling: no fixed table). The block's free
 *    (heap_free_block() -> heap_withhold_bad()) withholds every held page
 *    of it and inserts the rest as the largest aligned chunks.
 *  - in a per-CPU cache: the caches are drained, then it is in a chunk.
 *  - in a domain's adopted memory (static, or a live update's restored
 *    extent): marked as in any extent; heap_offline_owned() does the
 *    same for one owner's page only (a restore: the handover named it
 *    bad). The range leaves the heap by heap_release_owned(), back to
 *    reserved, and the held entry stays: still counted (in the audit,
 *    the page is reserved), still named by heap_for_each_bad(), so the
 *    next image's handover carries it.
 *  - in a chunk the idle scrubber detached: -EBUSY. RAM the heap does
 *    not own: -EPERM. No RAM: -EINVAL.
 *
 * Why halves never merge wrongly (Xen's 2026 bugs: misaligned buddies
 * rebuilt, a broken tail merge): every half is aligned to its own size by
 * construction and is inserted through heap_merge_insert_in(), whose
 * buddy is the other half of the same parent, which holds a bad page and
 * so is never one free chunk of the same order. The half holding bad
 * pages is done first, so the buddy head a clean half reads is already
 * written (a smaller free chunk, or the PGS_BAD page).
 *
 * A free racing a mark: heap_free() of an order-0 or order-9 anonymous
 * block reads the head's flags (no PGF_HAS_BAD yet) and puts the block in
 * a per-CPU cache, whose lock is not the node's and which rewrites the
 * flags. The node's generation (heap_bad_state.gen) catches it from
 * either side (offline_held()), and heap_bad_recheck() drains the caches
 * and re-homes every held page: withheld if its block is free by then,
 * its (new) block flagged if it was handed out again meanwhile.
 * Whatever gives a cached block back to the lists (a drain, the scrubber's
 * heap_put_clean()) goes through heap_insert_checked(), which reads the
 * held list rather than the rewritten flags, and the scrubber never gets
 * a cached block that holds one (its write could raise another machine
 * check): such a block is withheld at once (heap_take_dirty()).
 *
 * Accounting: a withheld page stays in total_pages, leaves free_pages
 * (so heap_stats()'s allocated_pages counts it) and is its own class in
 * the block walk (HEAP_OWNER_BAD): per node stats.bad_pages - stats.bad_held_pages
 * of them. A held page is still its block's (keel's or the domain's).
 */
#include <arch/cpu.h>
#include <arch/mm.h>
#include <keel/compiler.h>
#include <keel/errno.h>
#include <keel/heap.h>
#include <keel/heap_boot.h>
#include <keel/printk.h>
#include <keel/string.h>

#include "heap_priv.h"

#define BAD_KIND(r)   ((unsigned int)(r)&0x0fu)
#define BAD_SOURCE(r) (((unsigned int)(r) >> 4) & 0x0fu)
#define BAD_SOURCES   5 /* HEAP_BAD_FROM_API .. HEAP_BAD_FROM_HANDOVER */
#define HELD_PER_PAGE (PAGE_SIZE / sizeof(struct heap_held))
/* heap_offline()'s locked step asks for a retry (positive, not errno). */
#define RETRY_DRAIN 1 /* the page is in a per-CPU cache */
#define RETRY_GROW  2 /* the held array is full */

static uint64_t held_cap(const struct heap_bad_state *b)
{
	return b->held ? (uint64_t)HELD_PER_PAGE << b->held_order : 0;
}

static void bad_link(struct heap_node *hn, struct page_info *pg)
{
	pg->prev = NULL;
	pg->next = hn->bad.list;
	if (pg->next)
		pg->next->prev = pg;
	hn->bad.list = pg;
}

static void bad_unlink(struct heap_node *hn, struct page_info *pg)
{
	if (pg->prev)
		pg->prev->next = pg->next;
	else
		hn->bad.list = pg->next;
	if (pg->next)
		pg->next->prev = pg->prev;
	pg->next = pg->prev = NULL;
}

/* Page @p withheld: its entry written once, linked on the bad list. */
static void write_bad(struct heap_node_locked l, uint64_t p, uint8_t reason)
{
	struct page_info *pg = pfn_to_page(pfn(p));

	page_set(pg, p, PGS_BAD, 0, l.hn->id, reason, 0);
	bad_link(l.hn, pg);
}

/* Bumped by every page going offline or coming back (heap_bad_version()). */
static uint64_t bad_version;

/** heap_bad_version() - see keel/heap_check.h. */
uint64_t heap_bad_version(void)
{
	return __atomic_load_n(&bad_version, __ATOMIC_ACQUIRE);
}

/* The counters of one page going offline (+1) or coming back (-1). */
static void account(struct heap_node_locked l, uint8_t reason, int d)
{
	__atomic_fetch_add(&bad_version, 1, __ATOMIC_RELEASE);
	l.hn->stats.bad_pages += (uint64_t)(int64_t)d;
	l.hn->stats.bad_by_source[MIN(BAD_SOURCE(reason), BAD_SOURCES - 1)] +=
		(uint64_t)(int64_t)d;
}

/* A chunk or block being cut around its bad pages. */
struct cut {
	struct heap_node_locked l;
	uint64_t base;	 /* its first pfn */
	uint32_t fd;	 /* its first dirty offset */
	uint8_t poc;	 /* PGF_CLEAN_POC */
	uint64_t rs, re; /* the heap range holding it */
	uint64_t writes;
};

/* The first dirty offset of the piece at @off, 2^@k pages, of the cut. */
static uint32_t piece_fd(uint32_t fd, uint64_t off, unsigned int k)
{
	if (fd == FIRST_DIRTY_NONE || fd >= off + (1ULL << k))
		return FIRST_DIRTY_NONE;
	return fd <= off ? 0 : (uint32_t)(fd - off);
}

/*
 * A clean half of a cut goes back as it is: its buddy is the other half,
 * which holds a bad page, so no merge is possible (the cut chunk was free
 * whole, or a block that holds bad pages: never merged above its order).
 */
static void put_piece(struct cut *c, uint64_t s, unsigned int k)
{
	struct page_info *pg = pfn_to_page(pfn(s));

	write_free_head(pg, s, k, c->l.hn->id, piece_fd(c->fd, s - c->base, k),
			c->poc);
	heap_list_insert(c->l, pg);
	c->writes++;
}

/*
 * [@s, @s + 2^@k) holds the bad pages @bad[0..@n) (n >= 1, pfn order,
 * already written PGS_BAD): the halves without one go back whole, the
 * others are cut again, halves with bad pages first (file comment).
 */
static void cut_around(struct cut *c, uint64_t s, unsigned int k,
		       const struct heap_held *bad, uint32_t n)
{
	uint64_t mid;
	uint32_t lo = 0;

	if (!k)
		return; /* the bad page itself */
	mid = s + (1ULL << (k - 1));
	while (lo < n && bad[lo].pfn < mid)
		lo++;
	if (lo)
		cut_around(c, s, k - 1, bad, lo);
	if (lo < n)
		cut_around(c, mid, k - 1, bad + lo, n - lo);
	if (!lo)
		put_piece(c, s, k - 1);
	if (lo == n)
		put_piece(c, mid, k - 1);
}

/* Page @p of the free chunk @head (pfn @h, order @k) goes offline. */
static void offline_free(struct heap_node_locked l, struct page_info *head,
			 uint64_t h, unsigned int k, uint64_t p, uint8_t reason)
{
	const struct region *r = heap_ranges_find(&l.hn->ranges, h);
	struct heap_held one = {.pfn = p, .reason = reason};
	struct cut c = {
		.l = l,
		.base = h,
		.fd = head->first_dirty,
		.poc = head->flags & PGF_CLEAN_POC,
		.rs = pfn_val(region_start_pfn(r)),
		.re = pfn_val(region_end_pfn(r)),
	};

	heap_list_remove(l, head);
	write_bad(l, p, reason);
	cut_around(&c, h, k, &one, 1);
	l.hn->stats.offline_writes += c.writes + 1;
}

static long held_find(const struct heap_bad_state *b, uint64_t p)
{
	for (uint32_t i = 0; i < b->held_count; i++)
		if (b->held[i].pfn == p)
			return i;
	return -1;
}

/* Is a held page left in [h, h + 2^k)? */
static bool held_in(const struct heap_bad_state *b, uint64_t h, unsigned int k)
{
	for (uint32_t i = 0; i < b->held_count; i++)
		if (b->held[i].pfn >= h && b->held[i].pfn - h < (1ULL << k))
			return true;
	return false;
}

/*
 * Page @p of the block headed by @head, held by @who, is marked. The
 * flag, then the node's generation, then the flag again (all seq_cst):
 * a free that read the head's flags before the mark and put the block in
 * a per-CPU cache (which rewrites them) either sees the generation move
 * and rechecks, or wrote before the second read here, and *@recheck says
 * so (heap_bad_recheck() after the unlock).
 */
static int offline_held(struct heap_node_locked l, struct page_info *head,
			uint64_t p, int who, uint8_t reason, bool *recheck)
{
	struct heap_bad_state *b = &l.hn->bad;
	uint8_t f;

	if (held_find(b, p) >= 0)
		return -EEXIST;
	if (b->held_count >= held_cap(b))
		return RETRY_GROW;
	b->held[b->held_count++] = (struct heap_held){
		.pfn = p,
		.owner = who == HEAP_OWNER_KEEL ? 0 : (uint16_t)who,
		.reason = reason,
	};
	__atomic_fetch_or(&head->flags, PGF_HAS_BAD, __ATOMIC_SEQ_CST);
	__atomic_fetch_add(&b->gen, 1, __ATOMIC_SEQ_CST);
	f = __atomic_load_n(&head->flags, __ATOMIC_SEQ_CST);
	*recheck = (f & PGF_CACHED) || !(f & PGF_HAS_BAD);
	l.hn->stats.bad_held_pages++;
	return 0;
}

/*
 * Held entry *@i of the locked node, after a race with a per-CPU cache:
 * its block free again (the cache gave it back): withheld; allocated
 * again: flagged again. Return: its block is in a cache now.
 */
static bool rehome(struct heap_node_locked l, uint32_t *i)
{
	struct heap_bad_state *b = &l.hn->bad;
	struct heap_held e = b->held[*i];
	unsigned int k = 0;
	pfn_t h = pfn(0);
	int who = heap_owner_of(pfn(e.pfn), &h, &k);
	struct page_info *head = pfn_to_page(h);

	if (who == HEAP_OWNER_FREE) {
		b->held[*i] = b->held[--b->held_count];
		l.hn->stats.bad_held_pages--;
		offline_free(l, head, pfn_val(h), k, e.pfn, e.reason);
		return false;
	}
	(*i)++;
	if (who < 0 || who >= HEAP_OWNER_FREE)
		return false; /* cannot be: heap_owner_of() said why */
	if (head->flags & PGF_CACHED)
		return true;
	__atomic_fetch_or(&head->flags, PGF_HAS_BAD, __ATOMIC_SEQ_CST);
	return false;
}

/** heap_bad_recheck() - see heap_priv.h. */
void heap_bad_recheck(uint32_t node)
{
	for (unsigned int tries = 0; tries < 4; tries++) {
		struct heap_node_locked l = heap_lock_node(node);
		bool cached = false;

		for (uint32_t i = 0; i < l.hn->bad.held_count;)
			cached |= rehome(l, &i);
		heap_unlock_node(l);
		if (!cached)
			return;
		heap_drain_caches();
	}
	pr_warn("heap: node %u: a page offlined in a block is in a per-CPU "
		"cache that keeps refilling\n",
		node);
}

/*
 * The held array of @node twice as large (a heap block; the old one freed
 * after the unlock). Return: 0, or -ENOMEM.
 */
static int held_grow(uint32_t node)
{
	struct heap_node_locked l = heap_lock_node(node);
	struct heap_bad_state *b = &l.hn->bad;
	unsigned int order = b->held ? b->held_order + 1 : 0, old_order = 0;
	struct page_info *nb, *old = NULL;

	heap_unlock_node(l);
	nb = order <= MAX_ORDER
		     ? heap_alloc(order, (int)node, 0, HEAP_NO_SCRUB, NULL)
		     : NULL;
	if (!nb)
		return -ENOMEM;
	l = heap_lock_node(node);
	if (b->held_count >= held_cap(b) &&
	    order == (b->held ? b->held_order + 1 : 0)) {
		struct heap_held *arr =
			phys_to_virt(pfn_to_paddr(page_to_pfn(nb)));

		if (b->held)
			memcpy(arr, b->held, b->held_count * sizeof(*arr));
		old = b->held_block;
		old_order = b->held_order;
		b->held = arr;
		b->held_block = nb;
		b->held_order = order;
		l.hn->stats.bad_list_pages = 1ULL << order;
		nb = NULL;
	}
	heap_unlock_node(l);
	if (nb) /* another CPU grew it meanwhile: as it came, maybe dirty */
		heap_free(nb, order, HEAP_FREE_DIRTY);
	if (old)
		heap_free(old, old_order, HEAP_FREE_DIRTY);
	return 0;
}

/**
 * heap_withhold_bad() - the free of a block flagged PGF_HAS_BAD: its held
 * pages withheld, the rest inserted as the largest aligned chunks (see
 * heap_priv.h). O(held pages on the node + held in it x order).
 */
void heap_withhold_bad(struct heap_node_locked l, struct page_info *pg,
		       uint64_t p, unsigned int k, uint64_t rs, uint64_t re)
{
	struct heap_bad_state *b = &l.hn->bad;
	struct cut c = {.l = l,
			.base = p,
			.fd = pg->first_dirty,
			.poc = pg->flags & PGF_CLEAN_POC,
			.rs = rs,
			.re = re};
	uint32_t i = 0, n = 0;
	struct heap_held *tail;

	/* The block's held pages to the end of the array. */
	while (i < b->held_count - n) {
		if (b->held[i].pfn >= p && b->held[i].pfn - p < (1ULL << k)) {
			struct heap_held t = b->held[i];

			n++;
			b->held[i] = b->held[b->held_count - n];
			b->held[b->held_count - n] = t;
		} else {
			i++;
		}
	}
	if (!n) {
		heap_merge_insert_in(l, pg, p, k, rs, re);
		return;
	}
	tail = b->held + b->held_count - n;
	sort(tail, n, sizeof(*tail), cmp_u64); /* .pfn leads: pfn order */
	for (i = 0; i < n; i++)
		write_bad(l, tail[i].pfn, tail[i].reason);
	cut_around(&c, p, k, tail, n);
	b->held_count -= n;
	l.hn->stats.bad_held_pages -= n;
}

/** heap_block_holds_bad() - see heap_priv.h. */
bool heap_block_holds_bad(struct heap_node_locked l, uint64_t p, unsigned int k)
{
	return l.hn->bad.held_count && held_in(&l.hn->bad, p, k);
}

/** heap_insert_checked() - see heap_priv.h. */
void heap_insert_checked(struct heap_node_locked l, struct page_info *pg,
			 uint64_t p, unsigned int k)
{
	const struct region *r;

	if (!heap_block_holds_bad(l, p, k)) {
		heap_merge_insert(l, pg, p, k);
		return;
	}
	r = heap_ranges_find(&l.hn->ranges, p);
	heap_withhold_bad(l, pg, p, k, r ? pfn_val(region_start_pfn(r)) : p,
			  r ? pfn_val(region_end_pfn(r)) : p + (1ULL << k));
}

/* The node whose heap ranges hold @p (read unlocked, checked again). */
static int node_of(uint64_t p)
{
	for (unsigned int n = 0; n < heap_nr_nodes; n++)
		if (heap_ranges_find(&heap_nodes[n]->ranges, p))
			return (int)n;
	return -1;
}

/*
 * The locked step of heap_offline() (@owner < 0) and heap_offline_owned()
 * (@owner: the holder the page must have).
 * Return: 0, -errno, or RETRY_*.
 */
static int offline_locked(struct heap_node_locked l, uint64_t p, uint8_t reason,
			  int owner, uint64_t t0, const char **why,
			  bool *recheck)
{
	unsigned int k = 0;
	pfn_t h = pfn(0);
	struct page_info *head;
	int who, ret = 0;

	who = heap_owns_locked(l, p, 0) ? heap_owner_of(pfn(p), &h, &k)
					: HEAP_OWNER_NONE;
	head = who >= 0 && who != HEAP_OWNER_NONE ? pfn_to_page(h) : NULL;
	if (!head)
		*why = "not heap memory", ret = -EPERM;
	else if (who == HEAP_OWNER_BAD)
		*why = "already offline", ret = -EEXIST;
	else if (owner >= 0 && who != owner)
		*why = "not in the domain's extents", ret = -EPERM;
	else if (who == HEAP_OWNER_FREE)
		offline_free(l, head, pfn_val(h), k, p, reason);
	else if (head->flags & PGF_CACHED)
		*why = "in a per-CPU cache refilled as fast as drained",
		ret = RETRY_DRAIN;
	else if (who == HEAP_OWNER_KEEL && !(head->flags & PGF_ANON))
		*why = "in a chunk being scrubbed", ret = -EBUSY;
	else if ((ret = offline_held(l, head, p, who, reason, recheck)) ==
		 -EEXIST)
		*why = "already offline (in its block)";
	if (ret)
		return ret;
	account(l, reason, 1);
	t0 = arch_ticks() - t0;
	if (t0 > l.hn->stats.offline_max_ticks)
		l.hn->stats.offline_max_ticks = t0;
	return 0;
}

static int refuse(const char *fn, uint64_t p, int err, const char *why)
{
	pr_warn("%s: pfn %#llx: %s: refused\n", fn, (unsigned long long)p, why);
	return err;
}

/* heap_offline() and heap_offline_owned() (@owner >= 0). */
static int offline(const char *fn, pfn_t pp, unsigned int r, int owner)
{
	uint64_t p = pfn_val(pp), t0 = arch_ticks();
	const char *why = "no page for the list of marked pages";
	bool recheck = false;
	int n, ret = 0;

	if (BAD_KIND(r) > HEAP_BAD_BROKEN || (r & ~0x7fu) ||
	    BAD_SOURCE(r) >= BAD_SOURCES) {
		pr_warn("%s: pfn %#llx: reason %#x is not a HEAP_BAD_* value: "
			"refused\n",
			fn, (unsigned long long)p, r);
		return -EINVAL;
	}
	if (!heap_nr_nodes)
		return refuse(fn, p, -EINVAL, "the heap is not open");
	if (!pfn_to_page_or_null(pp))
		return refuse(fn, p, -EINVAL, "not RAM");
	n = node_of(p);
	if (n >= 0) /* in a deferred chunk: split along its path first */
		heap_defer_split_to((uint32_t)n, p);
	if (n < 0)
		return refuse(fn, p, -EPERM,
			      "not heap memory (keel's image, its tables or "
			      "reserved)");
	for (unsigned int tries = 0; tries < 16; tries++) {
		struct heap_node_locked l = heap_lock_node((uint32_t)n);

		ret = offline_locked(l, p, (uint8_t)r, owner, t0, &why,
				     &recheck);
		heap_unlock_node(l);
		if (recheck) /* its block went into a cache meanwhile */
			heap_bad_recheck((uint32_t)n);
		if (ret == RETRY_DRAIN && tries < 3)
			heap_drain_caches();
		else if (ret == RETRY_GROW && held_grow((uint32_t)n))
			break;
		else if (ret <= 0)
			break;
	}
	if (ret == RETRY_DRAIN)
		ret = -EBUSY;
	else if (ret > 0)
		ret = -ENOMEM;
	return ret ? refuse(fn, p, ret, why) : 0;
}

/* The pages a function names bad, for cut_named(). */
struct named {
	heap_next_bad_fn *next;
	void *arg;
	uint8_t reason;
	uint64_t taken;
};

/*
 * cut_around() over the pages @f names in [@s, @s + 2^@k), the first of
 * them @b: a bad page is written PGS_BAD when the cut reaches it, before
 * its clean buddy goes back (the same order as cut_around()'s). @f is
 * asked once more only for an upper half whose lower one holds @b:
 * O(halves holding a bad page), the levels above a lattice's period
 * shared by all its pages.
 */
static void cut_named(struct cut *c, struct named *f, uint64_t s,
		      unsigned int k, uint64_t b)
{
	uint64_t mid, hb = b;
	bool lo, hi;

	if (!k) {
		write_bad(c->l, s, f->reason);
		account(c->l, f->reason, 1);
		f->taken++;
		c->writes++;
		return;
	}
	mid = s + (1ULL << (k - 1));
	lo = b < mid;
	hi = !lo || (f->next(mid, &hb, f->arg) && hb < s + (1ULL << k));
	if (lo)
		cut_named(c, f, s, k - 1, b);
	if (hi)
		cut_named(c, f, mid, k - 1, hb);
	if (!lo)
		put_piece(c, s, k - 1);
	if (!hi)
		put_piece(c, mid, k - 1);
}

/** heap_offline_chunk() - see heap_priv.h. Return: pages taken out. */
uint64_t heap_offline_chunk(pfn_t pp, heap_next_bad_fn *next, void *arg,
			    uint8_t reason, pfn_t *end)
{
	struct named f = {.next = next, .arg = arg, .reason = reason};
	uint64_t p = pfn_val(pp);
	struct heap_node_locked l;
	struct page_info *head;
	const struct region *r;
	unsigned int k = 0;
	pfn_t h = pfn(0);
	int n = node_of(p);
	struct cut c;
	uint64_t b;

	if (n < 0 || !f.next(p, &b, arg) || b != p)
		return 0;
	heap_defer_split_to((uint32_t)n, p); /* in a deferred chunk */
	l = heap_lock_node((uint32_t)n);
	if (!heap_owns_locked(l, p, 0) ||
	    heap_owner_of(pfn(p), &h, &k) != HEAP_OWNER_FREE) {
		heap_unlock_node(l);
		return 0;
	}
	head = pfn_to_page(h);
	r = heap_ranges_find(&l.hn->ranges, pfn_val(h));
	c = (struct cut){
		.l = l,
		.base = pfn_val(h),
		.fd = head->first_dirty,
		.poc = head->flags & PGF_CLEAN_POC,
		.rs = pfn_val(region_start_pfn(r)),
		.re = pfn_val(region_end_pfn(r)),
	};
	heap_list_remove(l, head);
	f.next(pfn_val(h), &b, arg); /* @p at the latest */
	cut_named(&c, &f, pfn_val(h), k, b);
	l.hn->stats.offline_writes += c.writes;
	heap_unlock_node(l);
	*end = pfn_add(h, 1ULL << k);
	return f.taken;
}

/**
 * heap_offline() - take pfn @pp out of service (see heap.h).
 *
 * Return: 0, or a refusal with nothing changed.
 */
int heap_offline(pfn_t pp, enum heap_bad_reason reason)
{
	return offline("heap_offline", pp, (unsigned int)reason, -1);
}

/**
 * heap_offline_owned() - pfn @pp of @owner's extent (adopted too) out of
 * service, marked in the extent (see heap.h).
 *
 * Return: 0, or a refusal with nothing changed.
 */
int heap_offline_owned(pfn_t pp, uint16_t owner, enum heap_bad_reason reason)
{
	if (!owner)
		return refuse("heap_offline_owned", pfn_val(pp), -EINVAL,
			      "owner 0 is no domain");
	return offline("heap_offline_owned", pp, (unsigned int)reason, owner);
}

/* The locked step of heap_online(). */
static int online_locked(struct heap_node_locked l, uint64_t p,
			 const char **why)
{
	struct heap_bad_state *b = &l.hn->bad;
	unsigned int k = 0;
	pfn_t h = pfn(0);
	int who = heap_owns_locked(l, p, 0) ? heap_owner_of(pfn(p), &h, &k)
					    : HEAP_OWNER_NONE;
	long i = who >= 0 && who < HEAP_OWNER_FREE ? held_find(b, p) : -1;
	struct page_info *pg = pfn_to_page(pfn(p));
	uint8_t reason;

	if (who != HEAP_OWNER_BAD && i < 0) {
		*why = "not offline";
		return -EINVAL;
	}
	reason = who == HEAP_OWNER_BAD ? (uint8_t)pg->first_dirty
				       : b->held[i].reason;
	if (BAD_KIND(reason) == HEAP_BAD_BROKEN) {
		*why = "offlined as broken";
		return -EPERM;
	}
	account(l, reason, -1);
	if (who == HEAP_OWNER_BAD) {
		bad_unlink(l.hn, pg);
		pg->first_dirty = 0; /* its contents are unknown */
		pg->flags = 0;
		heap_merge_insert(l, pg, p, 0);
		return 0;
	}
	b->held[i] = b->held[--b->held_count];
	l.hn->stats.bad_held_pages--;
	if (!held_in(b, pfn_val(h), k))
		__atomic_fetch_and(&pfn_to_page(h)->flags,
				   (uint8_t)~PGF_HAS_BAD, __ATOMIC_SEQ_CST);
	return 0;
}

/**
 * heap_online() - give a soft-offlined page back (see heap.h).
 *
 * Return: 0, -EPERM (broken) or -EINVAL (not offline).
 */
int heap_online(pfn_t pp)
{
	uint64_t p = pfn_val(pp);
	const char *why = NULL;
	struct heap_node_locked l;
	int n, ret;

	if (!heap_nr_nodes || !pfn_to_page_or_null(pp))
		return refuse("heap_online", p, -EINVAL, "not RAM");
	n = node_of(p);
	if (n < 0)
		return refuse("heap_online", p, -EINVAL, "not heap memory");
	heap_defer_split_to((uint32_t)n, p); /* in a deferred chunk */
	l = heap_lock_node((uint32_t)n);
	ret = online_locked(l, p, &why);
	heap_unlock_node(l);
	return ret ? refuse("heap_online", p, ret, why) : 0;
}

/** heap_held_bad_pages() - see keel/heap_check.h. */
uint64_t heap_held_bad_pages(uint16_t owner)
{
	uint64_t count = 0;

	for (unsigned int n = 0; n < heap_nr_nodes; n++) {
		struct heap_node_locked l = heap_lock_node(n);

		for (uint32_t i = 0; i < l.hn->bad.held_count; i++)
			count += l.hn->bad.held[i].owner == owner;
		heap_unlock_node(l);
	}
	return count;
}

/** heap_page_held_bad() - see keel/heap_check.h. */
bool heap_page_held_bad(pfn_t pp)
{
	uint64_t p = pfn_val(pp);
	int n = node_of(p);
	struct heap_node_locked l;
	bool held;

	if (n < 0)
		return false;
	l = heap_lock_node((uint32_t)n);
	held = l.hn->bad.held_count && held_find(&l.hn->bad, p) >= 0;
	heap_unlock_node(l);
	return held;
}

/** heap_for_each_bad() - see keel/heap_check.h. */
uint64_t heap_for_each_bad(uint32_t node, heap_bad_fn *fn, void *arg)
{
	struct heap_node_locked l;
	const struct page_info *pg;
	uint64_t count = 0;

	if (node >= heap_nr_nodes)
		return 0;
	l = heap_lock_node(node);
	for (pg = l.hn->bad.list; pg; pg = pg->next, count++)
		fn(pfn(pg->pfn), pg->first_dirty, HEAP_OWNER_BAD, arg);
	for (uint32_t i = 0; i < l.hn->bad.held_count; i++, count++)
		fn(pfn(l.hn->bad.held[i].pfn), l.hn->bad.held[i].reason,
		   l.hn->bad.held[i].owner ? l.hn->bad.held[i].owner
					   : HEAP_OWNER_KEEL,
		   arg);
	heap_unlock_node(l);
	return count;
}
