/* SPDX-License-Identifier: MIT */
/*
 * Per-CPU caches of anonymous blocks: the runtime path that does not touch
 * a node's shared state for most operations (DESIGN §15).
 *
 * Each CPU keeps, for every order 0..PCP_MAX_ORDER (4 KiB to 4 MiB: the
 * page-table pages, the 2 MiB blocks and the small multi-page blocks a
 * hypervisor allocates most), a short list of blocks of one node (its
 * own, heap_cpu_node(), when the cache was last empty). heap_alloc() of
 * such an order on that node takes one from the list; heap_free() of such
 * a block puts it there. An empty list is refilled with pcp_batch[] blocks
 * under one hold of the node lock; a list above pcp_high[] gives
 * pcp_batch[] back the same way: one node-lock acquisition per batch at
 * worst, none in a steady alloc/free pattern (order 0: one per 16
 * operations at most; a churn of random orders 0..10: about one per 20).
 *
 * Bounded: at most pcp_high[k] + 1 blocks of order k per CPU, PCP_BOUND
 * pages (8095, 31.6 MiB) per CPU in all, and about a quarter of the
 * heap in all the CPUs' caches together (pcp.limit: a cache above it
 * gives back at each free; a refill takes one block past it at most).
 * In a node less than half free, the big classes (order 6 and up) are not
 * refilled, and a block of any order whose buddy is free is merged, not
 * cached (pcp_tight(), pcp_merge_instead()).
 *
 * A cached block is off the free lists, its head written as an anonymous
 * block (PGS_ALLOCATED, so no buddy merges with it) flagged PGF_CACHED,
 * with its first_dirty and PGF_CLEAN_POC kept as a free head keeps them.
 * To the counters a reader sees (heap_stats(): free_pages, dirty_pages,
 * per node or all) it is free memory, and the heap's own walkers handle
 * it, so that no caller drains for them: heap_take_dirty() takes a dirty
 * cached block when the lists have none (heap_pcp_take_dirty()), and
 * heap_for_each_free() / heap_for_each_block() give back the caches of
 * the node they walk (heap_drain_node_caches()) before reading its lists.
 * Where the heap must be exact, the caches are drained whole: heap_check(),
 * the audit, a live update's freeze, a CPU going offline
 * (heap_drain_cpu_cache()), memory going offline. An allocation that
 * would fail drains the caches of the nodes it tried, when their free
 * memory could hold the block (heap_pcp_drain_low()), then tries again.
 *
 * Lock: each cache has its own lock, taken by its CPU (uncontended) and by
 * a drainer; interrupts are masked while it is held. Lock order: a cache's
 * lock, then a node lock, never the reverse; never two caches at once.
 */
#include <arch/cpu.h>
#include <arch/mm.h>
#include <keel/bootmem.h>
#include <keel/compiler.h>
#include <keel/heap.h>
#include <keel/heap_boot.h>
#include <keel/printk.h>
#include <keel/string.h>

#include "heap_priv.h"

#define PCP_MAX_ORDER 10
#define PCP_BIG_ORDER 6 /* and up: see pcp_tight() */
/*
 * Reads of another CPU's data without its lock, on purpose: advisory (a
 * stale answer costs a cached block or a node lock, never correctness;
 * the free's slow path checks under the lock), so ThreadSanitizer does
 * not watch them.
 */
#define PCP_RACY    __attribute__((no_sanitize("thread")))
#define PCP_CLASSES (PCP_MAX_ORDER + 1)
/*
 * Per order: blocks taken or given back under one node-lock hold, and the
 * most kept. Wide for the small orders (order 0: a lock per 16 operations
 * at most), narrow for the big ones, where the memory is. Orders 8 to 10
 * move in pairs (one order k + 1 block cut in two): one at a time, a cache
 * of 2 or 3 big blocks went to its node at nearly every other operation
 * of its order. The values of orders 6 to 10 were searched, order by
 * order within the bound, on a model of the benchmark's churn (random
 * orders 0..10, up to 64 blocks held): 0.087 node locks per operation
 * before, about 0.05 with these (docs/benchmarks.md, part runtime).
 */
static const uint8_t pcp_batch[PCP_CLASSES] = {16, 8, 8, 4, 4, 4,
					       1,  2, 2, 2, 2};
static const uint8_t pcp_high[PCP_CLASSES] = {64, 32, 24, 16, 12, 8,
					      10, 6,  3,  2,  2};
/* The bound per CPU: sum of (pcp_high[k] + 1) << k pages. */
#define PCP_BOUND                                                     \
	(65 + 33 * 2 + 25 * 4 + 17 * 8 + 13 * 16 + 9 * 32 + 11 * 64 + \
	 7 * 128 + 4 * 256 + 3 * 512 + 3 * 1024)

/*
 * One CPU's cache. Other CPUs read node and ready to choose the caches to
 * drain or scan (a failed allocation, a walk, the idle scrub): they have
 * a line of their own, written only when they change, so that a scan
 * does not take the line its CPU writes at each operation.
 */
struct heap_pcp {
	uint32_t node; /* the node of every block held */
	bool ready;    /* lock initialised: drainers may take it */
	/* The lock hook's (include/arch/lock.h), then the working state. */
	arch_lock_t lock __attribute__((aligned(64)));
	struct page_info *head[PCP_CLASSES];
	uint32_t count[PCP_CLASSES];
	uint64_t pages, dirty; /* held, and of those dirty (readers: racy) */
	uint64_t node_locks;   /* node-lock acquisitions by this CPU */
	/* Of those, the cache's own per order (refills, give-backs). */
	uint64_t locks[PCP_CLASSES];
} __attribute__((aligned(64)));

/*
 * The caches, one per CPU below pcp.cap: asked of bootmem by
 * heap_init() (heap_pcp_prepare()), for the CPUs known by then
 * (heap_set_cpu_node(), the caller), at least PCP_MIN_CPUS; a CPU above
 * has no cache and takes the node lock. Nothing sized by NR_CPUS.
 */
#define PCP_MIN_CPUS 64
/*
 * What every cache operation of every CPU reads, written almost never
 * (heap_init(), the caches turned on or off, a CPU's first use, a new
 * limit), in a line of its own: a counter or a flag written at each
 * refill or failed allocation beside it made every CPU's next operation
 * miss (heap_runtime starve: a CPU whose node is full, asking in a loop,
 * tripled the churn's cost on another node).
 *  caches: one per CPU below cap;
 *  used: 1 + the highest CPU whose cache was used since heap_init();
 *  limit: pages one CPU's cache may hold: PCP_BOUND, or less where the
 *   heap has little memory per CPU, so that the caches together hold at
 *   most a quarter of it (256 CPUs on 512 MiB: 128 pages each). A cache
 *   is free memory an allocation that would fail drains first, so the
 *   share costs no failure; an eighth kept 4 CPUs on 512 MiB under half
 *   of PCP_BOUND and the big orders went to the node lock at every other
 *   free. Computed at each refill (the heap grows at the handoff and by
 *   adoption), stored when it changes;
 *  on: off until the heap's user turns them on (heap_init() turns them
 *   off).
 */
static struct __attribute__((aligned(64))) {
	struct heap_pcp *caches;
	unsigned int cap, used;
	uint64_t limit;
	bool on;
} pcp = {.limit = PCP_BOUND};

static int pcp_class(unsigned int order)
{
	return order <= PCP_MAX_ORDER ? (int)order : -1;
}

/*
 * Is @node less than half free on its lists? Then its big blocks (orders
 * PCP_BIG_ORDER and up: 256 KiB to 4 MiB) are not taken into the caches
 * (no refill), and one freed whose buddy is free merges at once
 * (pcp_merge_instead()). A cached big block cannot merge with its free
 * buddy, and each refill cuts another big chunk: with orders 6 to 10
 * cached whatever the node's state, the aging benchmark at 75% full
 * (tests/bench/heap_aging.c, one node) kept under a quarter of its free
 * memory in 2 MiB chunks, falling epoch after epoch, and refused 50k to
 * 750k allocations per epoch; with this rule about 70%, steady, and a
 * few hundred. In a heap at least half free (the runtime benchmark's
 * churn) every class is cached as before, as the lock target asks.
 */
static PCP_RACY bool pcp_tight(uint32_t node)
{
	const struct heap_stats *st = &heap_nodes[node]->stats;

	return st->free_pages * 2 < st->total_pages;
}

/*
 * A block of a tight node whose buddy is free: merged, not cached. Small
 * orders too: with the rule for orders 6 and up alone, cached small
 * blocks kept their free buddies from merging, and one node of the aging
 * benchmark still aged (free chunks 890 -> 1280, free_2m_share 0.69 ->
 * 0.60-0.67 and refused allocations 4-30 -> 85-220 an epoch over 15
 * epochs); with every order, 480 -> 700, 0.72-0.75 and under 50, at the
 * same node locks per operation (0.235).
 */
static PCP_RACY bool pcp_merge_instead(const struct page_info *pg,
				       unsigned int order)
{
	const struct page_info *b;
	uint64_t p = pg->pfn;

	if (!p || pg->node >= heap_nr_nodes || !pcp_tight(pg->node))
		return false;
	b = pfn_to_page_or_null(pfn(p ^ (1ULL << order)));
	return b && __atomic_load_n(&b->state, __ATOMIC_RELAXED) == PGS_FREE &&
	       __atomic_load_n(&b->order, __ATOMIC_RELAXED) == order;
}

/* pcp_high[] and PCP_BOUND agree (the bound the docs give). */
static unsigned int pcp_bound(void)
{
	unsigned int sum = 0;

	for (unsigned int k = 0; k < PCP_CLASSES; k++)
		sum += (pcp_high[k] + 1u) << k;
	return sum;
}

/*
 * heap_init(), bootmem open: the caches' state for 1 + the
 * highest CPU known (heap_set_cpu_node(), the caller), at least
 * PCP_MIN_CPUS. Without it the caches stay off (said when turned on).
 */
void heap_pcp_prepare(void)
{
	unsigned int cap = MAX(MAX(heap_cpu_top(), arch_cpu_id() + 1),
			       (unsigned int)PCP_MIN_CPUS);
	uint64_t bytes = (uint64_t)cap * sizeof(struct heap_pcp);
	paddr_t p = bootmem_alloc_try(bytes, PAGE_SIZE, BOOTMEM_ANY_NODE,
				      "heap caches");

	DEBUG_CHECK(pcp_bound() == PCP_BOUND);
	if (pa_val(p) == pa_val(INVALID_PADDR))
		return;
	pcp.caches = phys_to_virt(p);
	memset(pcp.caches, 0, bytes);
	pcp.cap = cap;
}

/**
 * heap_set_cpu_caches() - serve orders 0..PCP_MAX_ORDER from per-CPU caches (@on),
 * or stop and give every cached block back. heap_init() starts with them
 * off: whoever opens the heap for its runtime turns them on.
 */
void heap_set_cpu_caches(bool on)
{
	if (on && !pcp.caches) {
		pr_warn("heap: no CPU caches (no boot memory for them at "
			"heap_init()): caches stay off\n");
		return;
	}
	__atomic_store_n(&pcp.on, on, __ATOMIC_RELEASE);
	if (!on)
		heap_drain_caches();
}

/*
 * heap_lock_node_at(): one more node-lock acquisition by the calling CPU,
 * counted in its own cache's line (no shared line in the hot path; only
 * this CPU writes it). A CPU without a cache slot is not counted.
 */
void heap_pcp_count_lock(void)
{
	unsigned int cpu = arch_cpu_id();
	uint64_t *n;

	if (!pcp.caches || cpu >= pcp.cap)
		return;
	n = &pcp.caches[cpu].node_locks;
	__atomic_store_n(n, *n + 1, __ATOMIC_RELAXED);
}

/**
 * heap_cpu_node_locks() - node-lock acquisitions by CPU @cpu since
 * heap_init() (0 for a CPU without a cache slot). Racy read, no lock.
 */
uint64_t heap_cpu_node_locks(unsigned int cpu)
{
	if (!pcp.caches || cpu >= pcp.cap)
		return 0;
	return __atomic_load_n(&pcp.caches[cpu].node_locks, __ATOMIC_RELAXED);
}

/** heap_cpu_caches_on() - Return: whether the caches serve allocations. */
bool heap_cpu_caches_on(void)
{
	return __atomic_load_n(&pcp.on, __ATOMIC_ACQUIRE);
}

/* heap_init(): forget every cache (the memory they held is gone). */
void heap_pcp_reset(void)
{
	pcp.caches = NULL;
	pcp.cap = 0;
	pcp.used = 0;
	pcp.on = false;
	pcp.limit = PCP_BOUND;
}

/* The calling CPU's cache, marked used; NULL: none (off, CPU too high). */
static struct heap_pcp *this_pcp(void)
{
	unsigned int cpu = arch_cpu_id(), used;

	if (!__atomic_load_n(&pcp.on, __ATOMIC_ACQUIRE) || cpu >= pcp.cap)
		return NULL;
	if (!__atomic_load_n(&pcp.caches[cpu].ready, __ATOMIC_ACQUIRE)) {
		arch_lock_init(&pcp.caches[cpu].lock);
		__atomic_store_n(&pcp.caches[cpu].ready, true,
				 __ATOMIC_RELEASE);
	}
	used = __atomic_load_n(&pcp.used, __ATOMIC_RELAXED);
	while (cpu >= used &&
	       !__atomic_compare_exchange_n(&pcp.used, &used, cpu + 1, false,
					    __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
	return &pcp.caches[cpu];
}

static void pcp_push(struct heap_pcp *pc, int c, struct page_info *pg)
{
	uint64_t n = 1ULL << c;

	pg->next = pc->head[c];
	pc->head[c] = pg;
	pc->count[c]++;
	__atomic_store_n(&pc->pages, pc->pages + n, __ATOMIC_RELAXED);
	if (pg->first_dirty != FIRST_DIRTY_NONE)
		__atomic_store_n(&pc->dirty, pc->dirty + n, __ATOMIC_RELAXED);
}

static struct page_info *pcp_pop(struct heap_pcp *pc, int c)
{
	struct page_info *pg = pc->head[c];
	uint64_t n = 1ULL << c;

	pc->head[c] = pg->next;
	pc->count[c]--;
	pg->next = NULL;
	__atomic_store_n(&pc->pages, pc->pages - n, __ATOMIC_RELAXED);
	if (pg->first_dirty != FIRST_DIRTY_NONE)
		__atomic_store_n(&pc->dirty, pc->dirty - n, __ATOMIC_RELAXED);
	return pg;
}

/* One node-lock hold by cache @pc for class @c (cache lock held). */
static void pcp_count(struct heap_pcp *pc, int c)
{
	__atomic_store_n(&pc->locks[c], pc->locks[c] + 1, __ATOMIC_RELAXED);
}

/* Give @n blocks of class @c back to their node (cache lock held). */
static void pcp_give_back(struct heap_pcp *pc, int c, unsigned int n)
{
	struct heap_node_locked l;

	if (!n || !pc->count[c])
		return;
	l = heap_lock_node_at(pc->node, "heap_cpu_cache");
	pcp_count(pc, c);
	while (n-- && pc->count[c]) {
		struct page_info *pg = pcp_pop(pc, c);

		pg->flags &= PGF_CLEAN_POC;
		/* A page offlined while it was cached stays out. */
		heap_insert_checked(l, pg, pg->pfn, (unsigned int)c);
	}
	heap_unlock_node(l);
}

/* The first dirty page of piece [@s, @s + 2^@k) of a block dirty from @fd. */
static uint32_t piece_fd(uint32_t fd, uint64_t s, unsigned int k)
{
	if (fd == FIRST_DIRTY_NONE || fd >= s + (1ULL << k))
		return FIRST_DIRTY_NONE;
	return fd <= s ? 0 : (uint32_t)(fd - s);
}

/*
 * A whole batch in one take: one block of order @c + log2(batch) off the
 * locked node's lists, cut into the batch (a head write each), so that
 * the hold is one search, not one per block. Return: false when the node
 * has no such block (the caller takes them one by one).
 */
static bool pcp_refill_whole(struct heap_pcp *pc, int c,
			     struct heap_node_locked l, bool any_dirt)
{
	unsigned int order = (unsigned int)c, n = pcp_batch[c];
	unsigned int big = order + (unsigned int)ffs64(n) - 1;
	struct heap_taken t;

	if (n < 2 || !heap_take_block(l, big, NR_ZONES - 1, &t, PGS_ALLOCATED,
				      0, any_dirt))
		return false;
	for (unsigned int i = n; i-- > 0;) {
		uint64_t off = (uint64_t)i << order;
		struct page_info *pg = pfn_to_page(pfn(t.pfn + off));

		page_set(pg, t.pfn + off, PGS_ALLOCATED, order, l.hn->id,
			 piece_fd(t.fd, off, order),
			 PGF_ANON | PGF_CACHED | t.poc);
		pcp_push(pc, c, pg);
	}
	return true;
}

/*
 * Fill class @c of @pc with a batch of @node's blocks (cache lock held);
 * @any_dirt: the allocation that asks needs no zeroed pages (the batch's
 * dirty blocks are zeroed for whoever needs them when taken).
 */
static void pcp_refill(struct heap_pcp *pc, int c, uint32_t node, bool any_dirt)
{
	struct heap_node_locked l = heap_lock_node_at(node, "heap_cpu_cache");
	uint64_t cpus = MAX(heap_cpu_top(), 1u);
	/* This node's pages (read under its lock) as each node's share. */
	uint64_t limit = l.hn->stats.total_pages * heap_nr_nodes / 4 / cpus;
	unsigned int order = (unsigned int)c;

	limit = MIN(limit, (uint64_t)PCP_BOUND);
	/* Stored only when it changes: every free of every CPU reads it. */
	if (__atomic_load_n(&pcp.limit, __ATOMIC_RELAXED) != limit)
		__atomic_store_n(&pcp.limit, limit, __ATOMIC_RELAXED);
	pcp_count(pc, c);
	if (pc->pages + ((uint64_t)pcp_batch[c] << order) <= limit &&
	    pcp_refill_whole(pc, c, l, any_dirt)) {
		heap_unlock_node(l);
		return;
	}
	for (unsigned int i = 0;
	     i < pcp_batch[c] && (!i || pc->pages + (1ULL << order) <= limit);
	     i++) {
		struct heap_taken t;
		struct page_info *pg = heap_take_block(
			l, order, NR_ZONES - 1, &t, PGS_ALLOCATED, 0, any_dirt);

		if (!pg)
			break;
		pg->first_dirty = t.fd;
		pg->flags = PGF_ANON | PGF_CACHED | t.poc;
		pcp_push(pc, c, pg);
	}
	heap_unlock_node(l);
}

/**
 * heap_pcp_alloc() - a block of 2^@order pages of @node from the calling
 * CPU's cache, refilled from the node when empty (@flags: the
 * allocation's; HEAP_NO_SCRUB lets the refill take the smallest fitting
 * chunks, dirty or not); its head rewritten as a fresh anonymous block,
 * what it held in *@t.
 *
 * Return: the head, or NULL (no cache for that order or node, or the node
 * has no block: the caller goes to the free lists).
 */
struct page_info *heap_pcp_alloc(unsigned int order, uint32_t node,
				 uint32_t flags, struct heap_taken *t)
{
	int c = pcp_class(order);
	struct heap_pcp *pc = c < 0 ? NULL : this_pcp();
	struct page_info *pg = NULL;
	irqflags_t f;

	if (!pc)
		return NULL;
	f = heap_lock_irqsave(&pc->lock, "heap_cpu_cache");
	if (!pc->pages && pc->node != node)
		__atomic_store_n(&pc->node, node, __ATOMIC_RELAXED);
	if (pc->node == node) {
		if (!pc->count[c] && (c < PCP_BIG_ORDER || !pcp_tight(node)))
			pcp_refill(pc, c, node, flags & HEAP_NO_SCRUB);
		if (pc->count[c])
			pg = pcp_pop(pc, c);
	}
	heap_unlock_irqrestore(&pc->lock, f);
	if (!pg)
		return NULL;
	t->pfn = pg->pfn;
	t->fd = pg->first_dirty;
	t->poc = pg->flags & PGF_CLEAN_POC;
	pg->first_dirty = FIRST_DIRTY_NONE;
	pg->flags = PGF_ANON | t->poc;
	return pg;
}

/**
 * heap_pcp_free() - keep the anonymous block @pg (order @order, contents
 * as @first_dirty and @poc say) in the calling CPU's cache. Only a block
 * whose head says it is a live anonymous block of that order is taken:
 * anything else goes the slow way, where every misuse check is.
 *
 * Return: true when cached (nothing more to do).
 */
bool heap_pcp_free(struct page_info *pg, unsigned int order,
		   uint32_t first_dirty, uint8_t poc)
{
	int c = pcp_class(order);
	struct heap_pcp *pc;
	bool done = false;
	irqflags_t f;

	if (c < 0 || pg->state != PGS_ALLOCATED || pg->order != order ||
	    (pg->flags & (PGF_ANON | PGF_CACHED)) != PGF_ANON ||
	    (pg->pfn & ((1ULL << order) - 1)) || pcp_merge_instead(pg, order))
		return false;
	pc = this_pcp();
	if (!pc)
		return false;
	f = heap_lock_irqsave(&pc->lock, "heap_cpu_cache");
	if (!pc->pages && pc->node != pg->node)
		__atomic_store_n(&pc->node, (uint32_t)pg->node,
				 __ATOMIC_RELAXED);
	if (pc->node == pg->node) {
		pg->first_dirty = first_dirty;
		pg->flags = PGF_ANON | PGF_CACHED | poc;
		pcp_push(pc, c, pg);
		if (pc->count[c] > pcp_high[c] ||
		    pc->pages > __atomic_load_n(&pcp.limit, __ATOMIC_RELAXED))
			pcp_give_back(pc, c, pcp_batch[c]);
		done = true;
	}
	heap_unlock_irqrestore(&pc->lock, f);
	return done;
}

/**
 * heap_drain_cpu_cache() - give every block in CPU @cpu's cache back to
 * its node: for a CPU going offline (its cache would be lost to the
 * counts otherwise). Any CPU may call it.
 *
 * Return: pages given back.
 */
uint64_t heap_drain_cpu_cache(unsigned int cpu)
{
	struct heap_pcp *pc;
	uint64_t pages;
	irqflags_t f;

	if (!pcp.caches ||
	    cpu >= __atomic_load_n(&pcp.used, __ATOMIC_RELAXED) ||
	    !__atomic_load_n(&pcp.caches[cpu].ready, __ATOMIC_ACQUIRE))
		return 0;
	pc = &pcp.caches[cpu];
	f = heap_lock_irqsave(&pc->lock, "heap_drain_cpu_cache");
	pages = pc->pages;
	for (int c = 0; c < PCP_CLASSES; c++)
		pcp_give_back(pc, c, pc->count[c]);
	heap_unlock_irqrestore(&pc->lock, f);
	return pages;
}

/**
 * heap_drain_caches() - every CPU's cache back to the free lists, so that
 * the lists and counters are exact (audit, heap_check(), a live update's
 * freeze, low memory). Blocks cached by other CPUs after it returns are
 * theirs again.
 *
 * Return: pages given back.
 */
uint64_t heap_drain_caches(void)
{
	unsigned int used = __atomic_load_n(&pcp.used, __ATOMIC_RELAXED);
	uint64_t pages = 0;

	for (unsigned int cpu = 0; cpu < used; cpu++)
		if (__atomic_load_n(&pcp.caches[cpu].pages, __ATOMIC_RELAXED))
			pages += heap_drain_cpu_cache(cpu);
	return pages;
}

/**
 * heap_drain_node_caches() - give back every cache holding blocks of
 * @node (a cache holds one node's blocks): what a walk of that node's
 * free lists needs before it reads them, no other node's cache touched.
 *
 * Return: pages given back.
 */
uint64_t heap_drain_node_caches(uint32_t node)
{
	unsigned int used = __atomic_load_n(&pcp.used, __ATOMIC_RELAXED);
	uint64_t pages = 0;

	for (unsigned int cpu = 0; cpu < used; cpu++)
		if (__atomic_load_n(&pcp.caches[cpu].node, __ATOMIC_RELAXED) ==
			    node &&
		    __atomic_load_n(&pcp.caches[cpu].pages, __ATOMIC_RELAXED))
			pages += heap_drain_cpu_cache(cpu);
	return pages;
}

/* Unlink and return the first dirty block of class @c (cache lock held). */
static struct page_info *pcp_unlink_dirty(struct heap_pcp *pc, int c)
{
	struct page_info **link = &pc->head[c], *pg;
	uint64_t n = 1ULL << c;

	for (pg = *link; pg; link = &pg->next, pg = pg->next) {
		if (pg->first_dirty == FIRST_DIRTY_NONE)
			continue;
		*link = pg->next;
		pg->next = NULL;
		pc->count[c]--;
		__atomic_store_n(&pc->pages, pc->pages - n, __ATOMIC_RELAXED);
		__atomic_store_n(&pc->dirty, pc->dirty - n, __ATOMIC_RELAXED);
		return pg;
	}
	return NULL;
}

/**
 * heap_pcp_take_dirty() - heap_take_dirty() for the blocks in the caches:
 * detach one dirty cached block of @node, its head as heap_take_dirty()
 * leaves a detached chunk (PGS_ALLOCATED, its order, first_dirty kept, no
 * flag), so that heap_put_clean() gives it back to the free lists. A
 * cached block is free memory: the scrubber must reach it without a drain.
 *
 * Return: its head (order in *@order), or NULL when no cache has one.
 */
struct page_info *heap_pcp_take_dirty(uint32_t node, unsigned int *order)
{
	unsigned int used = __atomic_load_n(&pcp.used, __ATOMIC_RELAXED);

	for (unsigned int cpu = 0; cpu < used; cpu++) {
		struct heap_pcp *pc = &pcp.caches[cpu];
		struct page_info *pg = NULL;
		irqflags_t f;
		int c;

		if (__atomic_load_n(&pc->node, __ATOMIC_RELAXED) != node ||
		    !__atomic_load_n(&pc->dirty, __ATOMIC_RELAXED) ||
		    !__atomic_load_n(&pc->ready, __ATOMIC_ACQUIRE))
			continue;
		f = heap_lock_irqsave(&pc->lock, "heap_take_dirty");
		for (c = PCP_CLASSES - 1; c >= 0 && !pg && pc->node == node;
		     c--)
			pg = pcp_unlink_dirty(pc, c);
		heap_unlock_irqrestore(&pc->lock, f);
		if (pg) {
			pg->flags = 0; /* dirty: no clean_poc, not cached */
			*order = pg->order;
			return pg;
		}
	}
	return NULL;
}

/*
 * One low-memory drain at a time: the others fail at once rather than
 * queue on every cache lock behind it (a memory-full machine of 256 CPUs
 * failed allocations on many CPUs at once, each draining every cache).
 */
static struct __attribute__((aligned(64))) {
	bool busy;
} pcp_low_draining; /* a line of its own (the type is padded to one) */

/*
 * Can giving back @node's caches let a block of 2^@order pages be taken?
 * Only when they hold something and the node's free memory, lists and
 * caches, is at least the block: merging never makes more than there is.
 */
static PCP_RACY bool pcp_drain_helps(uint32_t node, unsigned int order)
{
	uint64_t cached = heap_cached_pages((int)node, false);

	return cached &&
	       heap_nodes[node]->stats.free_pages + cached >= 1ULL << order;
}

/**
 * heap_pcp_drain_low() - an allocation of 2^@order pages on the @count
 * nodes @nodes is about to fail: give back the caches of those nodes
 * (even small cached blocks may complete a large free buddy), unless
 * another CPU is doing it already. Only where a drain can help
 * (pcp_drain_helps()): a node under sustained exhaustion, or another
 * node's CPUs, keep their caches, which each failed allocation emptied
 * before (every cache of every node, however little the node had).
 *
 * Return: pages given back (0: the allocation fails).
 */
uint64_t heap_pcp_drain_low(const uint32_t *nodes, unsigned int count,
			    unsigned int order)
{
	uint64_t pages = 0;
	unsigned int i;

	if (!pcp.caches)
		return 0;
	for (i = 0; i < count; i++)
		if (nodes[i] < heap_nr_nodes &&
		    pcp_drain_helps(nodes[i], order))
			break;
	/* Nothing to gain, or a drain under way: no shared line written. */
	if (i == count ||
	    __atomic_load_n(&pcp_low_draining.busy, __ATOMIC_RELAXED) ||
	    __atomic_exchange_n(&pcp_low_draining.busy, true, __ATOMIC_ACQUIRE))
		return 0;
	for (; i < count; i++)
		if (nodes[i] < heap_nr_nodes &&
		    pcp_drain_helps(nodes[i], order))
			pages += heap_drain_node_caches(nodes[i]);
	__atomic_store_n(&pcp_low_draining.busy, false, __ATOMIC_RELEASE);
	return pages;
}

/**
 * heap_pcp_drain_tried() - heap_alloc() for @node / @flags failed: drain
 * the caches of the nodes it tried (heap_pcp_drain_low()).
 *
 * Return: pages given back.
 */
uint64_t heap_pcp_drain_tried(unsigned int order, int node, uint32_t flags)
{
	unsigned int count;
	uint32_t exact;
	const uint32_t *nodes;

	/* Refused (no such node, HEAP_EXACT_NODE): counted once already. */
	if (node != HEAP_ANY_NODE && (node < 0 || node >= (int)heap_nr_nodes) &&
	    (flags & HEAP_EXACT_NODE))
		return 0;
	nodes = heap_alloc_candidates(node, flags, &exact, &count);
	return heap_pcp_drain_low(nodes, count, order);
}

/**
 * heap_cached_pages() - pages held in the caches: of @node, or of all
 * nodes (@node < 0); @dirty: only those still to be zeroed. Racy reads: a
 * total, not a snapshot, while CPUs allocate.
 *
 * Return: the pages.
 */
uint64_t heap_cached_pages(int node, bool dirty)
{
	unsigned int used = __atomic_load_n(&pcp.used, __ATOMIC_RELAXED);
	uint64_t sum = 0;

	for (unsigned int cpu = 0; cpu < used; cpu++) {
		const struct heap_pcp *pc = &pcp.caches[cpu];

		if (node < 0 || __atomic_load_n(&pc->node, __ATOMIC_RELAXED) ==
					(uint32_t)node)
			sum += __atomic_load_n(dirty ? &pc->dirty : &pc->pages,
					       __ATOMIC_RELAXED);
	}
	return sum;
}

/**
 * heap_pcp_locks() - node-lock acquisitions the caches made for blocks of
 * @order (refills and give-backs) since heap_init(), summed over the
 * CPUs (each counts its own, in its cache's lines).
 *
 * Return: the count (0 for an order not cached).
 */
uint64_t heap_pcp_locks(unsigned int order)
{
	unsigned int used = __atomic_load_n(&pcp.used, __ATOMIC_RELAXED);
	int c = pcp_class(order);
	uint64_t sum = 0;

	for (unsigned int cpu = 0; c >= 0 && cpu < used; cpu++)
		sum += __atomic_load_n(&pcp.caches[cpu].locks[c],
				       __ATOMIC_RELAXED);
	return sum;
}
