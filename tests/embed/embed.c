// SPDX-License-Identifier: MIT
/*
 * The heap's second user (make embed, docs/embedding.md): a Linux program
 * that is not keel. It links only libkeel-heap.a, includes only
 * <keel/...>, and provides the hooks itself (host.c). Two nodes of an
 * mmap()ed region go to bootmem with a few reserved holes; the heap is
 * opened on them, dirty, and used: anonymous blocks and owned extents on
 * both nodes, heap_owner_of(), the maintenance counters against what the
 * host saw, a refused double free, two threads on one node through the
 * per-CPU caches and the host's own lock (a pthread mutex: host.c), every
 * page allocated once (none in a hole, all zeroed), then all of it given
 * back and heap_check().
 *
 * `embed --break-holes` hands the holes to bootmem as RAM but checks them
 * as holes all the same: it must fail (make embed runs it to show that
 * the checks can).
 */
#include <keel/bootmem.h>
#include <keel/cachemaint.h>
#include <keel/errno.h>
#include <keel/frametable.h>
#include <keel/heap.h>
#include <keel/heap_boot.h>
#include <keel/heap_check.h>
#include <keel/heap_scrub.h>
#include <keel/hooks.h>
#include <keel/numa.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "embed.h"

#define NODES	   2
#define NODE_BYTES (32ull << 20)
#define OWNER	   7

/* Kept out of the heap with bootmem_reserve(): offsets in the region. */
static const struct {
	uint64_t off, bytes;
	const char *why;
} holes[] = {
	{0, 0x3000, "firmware tables"},
	{0x123000, 0x5000, "a device window"},
	{NODE_BYTES + 0x200000, 0x200000, "2 MiB on node 1"},
	{2 * NODE_BYTES - 0x1000, 0x1000, "the top page"},
};

static unsigned int failures;

#define EXPECT(cond, ...)                                              \
	do {                                                           \
		if (!(cond)) {                                         \
			failures++;                                    \
			printf("embed: check failed at line %d: %s: ", \
			       __LINE__, #cond);                       \
			printf(__VA_ARGS__);                           \
			printf("\n");                                  \
		}                                                      \
	} while (0)

static uint8_t distance[MAX_NUMNODES][MAX_NUMNODES]; /* SLIT-style */
static struct cachemaint_stats maint_stats;
static struct cachemaint maint;

static uint64_t pfn_of(uint64_t off)
{
	return (EMBED_PHYS_BASE + off) >> PAGE_SHIFT;
}

static bool in_hole(uint64_t p, unsigned int order)
{
	for (size_t i = 0; i < sizeof(holes) / sizeof(holes[0]); i++)
		if (p < pfn_of(holes[i].off + holes[i].bytes) &&
		    p + (1ull << order) > pfn_of(holes[i].off))
			return true;
	return false;
}

static void *page_va(uint64_t p)
{
	return arch_phys_to_virt(pfn_to_paddr(pfn(p)));
}

static bool zeroed(uint64_t p, unsigned int order)
{
	const uint64_t *w = page_va(p);

	for (uint64_t i = 0; i < (PAGE_SIZE << order) / 8; i++)
		if (w[i])
			return false;
	return true;
}

/* The region, bootmem with its holes, the heap opened on it (dirty). */
static void open_heap(bool break_holes)
{
	host.bytes = NODES * NODE_BYTES;
	host.base = mmap(NULL, host.bytes, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (host.base == MAP_FAILED) {
		printf("embed: FAIL (mmap of %llu bytes)\n",
		       (unsigned long long)host.bytes);
		exit(1);
	}
	memset(host.base, 0xaa, host.bytes); /* the heap must zero it */

	for (unsigned int a = 0; a < NODES; a++)
		for (unsigned int b = 0; b < NODES; b++)
			distance[a][b] = a == b ? 10 : 20;
	keel_numa_init(NODES, (const uint8_t(*)[MAX_NUMNODES])distance);
	bootmem_init();
	for (unsigned int n = 0; n < NODES; n++)
		EXPECT(!bootmem_add(pa(EMBED_PHYS_BASE + n * NODE_BYTES),
				    NODE_BYTES, n),
		       "node %u", n);
	for (size_t i = 0; i < sizeof(holes) / sizeof(holes[0]); i++)
		if (!break_holes)
			EXPECT(!bootmem_reserve(
				       pa(EMBED_PHYS_BASE + holes[i].off),
				       holes[i].bytes, holes[i].why),
			       "%s", holes[i].why);
	frametable_init(NODES);
	heap_init(HEAP_INIT_LAZY, NODES,
		  (const uint8_t(*)[MAX_NUMNODES])distance);
	maint = cachemaint_policy(CACHEMAINT_DEFERRED, &maint_stats);
	heap_set_cachemaint(&maint);
	EXPECT(heap_handoff(true) > 0, "no range handed over");
}

/* What the heap holds: RAM minus what bootmem kept (holes, its tables). */
static void check_opened(void)
{
	uint64_t kept = bootmem_reserved_ram_bytes() >> PAGE_SHIFT;
	uint64_t ram = host.bytes >> PAGE_SHIFT;
	struct heap_stats st;
	pfn_t head;

	EXPECT(heap_node_count() == NODES, "%u nodes", heap_node_count());
	EXPECT(!heap_stats(HEAP_ALL_NODES, 0, &st), "heap_stats");
	EXPECT(st.total_pages == ram - kept, "%llu pages, %llu expected",
	       (unsigned long long)st.total_pages,
	       (unsigned long long)(ram - kept));
	EXPECT(st.free_pages == st.total_pages, "not all free");
	EXPECT(st.dirty_pages == st.total_pages, "handed over dirty");
	EXPECT(st.allocated_pages == 0, "%llu allocated",
	       (unsigned long long)st.allocated_pages);
	for (size_t i = 0; i < sizeof(holes) / sizeof(holes[0]); i++)
		EXPECT(heap_owner_of(pfn(pfn_of(holes[i].off)), &head, NULL) ==
			       HEAP_OWNER_NONE,
		       "hole \"%s\" is heap memory", holes[i].why);
}

/* An anonymous block on each node: zeroed, cleaned once, keel's own. */
static void check_anonymous(struct page_info *blk[NODES])
{
	for (unsigned int n = 0; n < NODES; n++) {
		uint64_t ops = host.maint_ops;
		unsigned int order = 0;
		pfn_t head;
		int who;

		blk[n] = heap_alloc(4, (int)n, 0, HEAP_EXACT_NODE, NULL);
		EXPECT(blk[n] && blk[n]->node == n, "order 4 on node %u", n);
		if (!blk[n])
			continue;
		EXPECT(zeroed(blk[n]->pfn, 4), "dirty block not zeroed");
		EXPECT(host.maint_ops == ops + 1, "%llu maintenance calls",
		       (unsigned long long)(host.maint_ops - ops));
		who = heap_owner_of(pfn(blk[n]->pfn + 5), &head, &order);
		EXPECT(who == HEAP_OWNER_KEEL && pfn_val(head) == blk[n]->pfn &&
			       order == 4,
		       "owner %d, head %#llx, order %u", who,
		       (unsigned long long)pfn_val(head), order);
		memset(page_va(blk[n]->pfn), 0x5a, PAGE_SIZE << 4);
	}
}

/* A 2 MiB extent owned by OWNER + node on each node, one head write. */
static void check_owned(struct page_info *ext[NODES])
{
	for (unsigned int n = 0; n < NODES; n++) {
		struct heap_alloc_info info;
		uint16_t owner = (uint16_t)(OWNER + n);
		pfn_t head;

		ext[n] = heap_alloc_owned(9, (int)n, HEAP_EXACT_NODE, owner,
					  &info, NULL);
		EXPECT(ext[n] && info.node == n, "extent on node %u", n);
		if (!ext[n])
			continue;
		EXPECT(zeroed(ext[n]->pfn, 9), "dirty extent not zeroed");
		EXPECT(heap_owner_of(pfn(ext[n]->pfn + 300), &head, NULL) ==
				       owner &&
			       pfn_val(head) == ext[n]->pfn,
		       "owner of a page of the extent");
		EXPECT(heap_stats_all(owner).owned_pages == 512,
		       "%llu owned pages",
		       (unsigned long long)heap_stats_all(owner).owned_pages);
	}
	EXPECT(heap_stats_all(0).owned_pages == 2 * 512, "all owners");
}

/* HEAP_NO_FLUSH: recorded, nothing done until the batch is flushed. */
static void check_no_flush(void)
{
	uint64_t ops = host.maint_ops;
	struct page_info *pg = heap_alloc(2, 1, 0, HEAP_NO_FLUSH, NULL);

	EXPECT(pg, "no_flush block");
	if (!pg)
		return;
	EXPECT(host.maint_ops == ops && maint_stats.pending_ranges == 1,
	       "maintenance done at once");
	EXPECT(cachemaint_flush_batch(&maint) == 1, "batch of one");
	EXPECT(host.maint_ops == ops + 1 && maint_stats.pending_ranges == 0,
	       "batch not flushed");
	EXPECT(!heap_free(pg, 2, HEAP_FREE_ZEROED), "free");
}

/*
 * DESIGN §10, the release host: the library's default (heap_strict off)
 * refuses misuse (a double free, a wrong order, a pointer that is no
 * heap page's entry, an order above MAX_ORDER) with one warning each and
 * -EINVAL, and the heap stays whole.
 */
static void check_misuse_refused(void)
{
	struct page_info *pg = heap_alloc(1, HEAP_ANY_NODE, 0, 0, NULL), fake;
	uint64_t said = host.warnings;

	memset(&fake, 0, sizeof(fake));
	EXPECT(!heap_strict, "the library's default panics on misuse");
	EXPECT(pg && !heap_free(pg, 1, HEAP_FREE_DIRTY), "two pages");
	EXPECT(pg && heap_free(pg, 1, HEAP_FREE_DIRTY) == -EINVAL,
	       "double free taken");
	pg = heap_alloc(1, HEAP_ANY_NODE, 0, 0, NULL);
	EXPECT(pg && heap_free(pg, 0, HEAP_FREE_DIRTY) == -EINVAL,
	       "wrong order taken");
	EXPECT(heap_free(&fake, 0, HEAP_FREE_DIRTY) == -EINVAL,
	       "foreign pointer taken");
	EXPECT(pg && heap_free(pg, MAX_ORDER + 1, HEAP_FREE_DIRTY) == -EINVAL,
	       "order above MAX_ORDER taken");
	EXPECT(host.warnings == said + 4, "%llu warnings for 4 refusals",
	       (unsigned long long)(host.warnings - said));
	EXPECT(pg && !heap_free(pg, 1, HEAP_FREE_DIRTY), "the block itself");
	EXPECT(heap_check() == 0, "heap_check() after the refusals");
}

/*
 * The debug host: a host's debug build sets heap_strict, and then the
 * same double free panics (through the host's arch_panic()). Run in a
 * child, which must exit through that panic and nothing else.
 */
static void check_misuse_panics_when_debug(void)
{
	struct page_info *pg = heap_alloc(0, HEAP_ANY_NODE, 0, 0, NULL);
	int status = 0;
	pid_t child;

	EXPECT(pg && !heap_free(pg, 0, HEAP_FREE_DIRTY), "one page");
	fflush(stdout);
	child = fork();
	if (child == 0) {
		heap_strict = true; /* what the debug build of a host does */
		host.panic_expected = true;
		heap_free(pg, 0, HEAP_FREE_DIRTY);
		printf("embed: FAIL (the debug host's double free returned)\n");
		_exit(1);
	}
	EXPECT(child > 0 && waitpid(child, &status, 0) == child &&
		       WIFEXITED(status) &&
		       WEXITSTATUS(status) == EMBED_PANIC_STATUS,
	       "the debug host did not panic on a double free (status %#x)",
	       status);
}

/* ---- two threads on one node ------------------------------------------- */

#define WORKER_OPS  20000
#define WORKER_HELD 32

/* Which worker holds each page of the region (0: none). */
static uint8_t claimed[NODES * NODE_BYTES >> PAGE_SHIFT];
static struct cachemaint_stats none_stats;
static struct cachemaint none_maint;

struct worker {
	unsigned int cpu;
	unsigned int bad; /* a block handed out twice, a failure */
	uint64_t allocs, remote;
	uint64_t locks; /* the host's locks this thread took */
};

/* Worker @w takes (@take) or gives up the pages of @pg, order @k. */
static void claim(struct worker *w, const struct page_info *pg, unsigned int k,
		  bool take)
{
	uint64_t first = pg->pfn - pfn_of(0);

	for (uint64_t q = first; q < first + (1ull << k); q++) {
		uint8_t want = take ? 0 : (uint8_t)w->cpu;

		if (q >= sizeof(claimed) ||
		    !__atomic_compare_exchange_n(
			    &claimed[q], &want, take ? (uint8_t)w->cpu : 0,
			    false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			w->bad++;
	}
}

/* Order 0 and 9 on node 0, allocated and freed at random. */
static void *worker_run(void *arg)
{
	struct worker *w = arg;
	struct page_info *held[WORKER_HELD];
	unsigned int order[WORKER_HELD], n = 0;
	uint64_t x = 0x9e3779b97f4a7c15ull * w->cpu;

	host_cpu = w->cpu; /* this thread is CPU w->cpu, on node 0 */
	heap_set_cpu_node(w->cpu, 0);
	for (unsigned int op = 0; op < WORKER_OPS; op++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		if (n < WORKER_HELD && (n == 0 || (x & 1))) {
			unsigned int k = (x >> 8) % 16 == 0 ? 9 : 0;
			struct page_info *pg =
				heap_alloc(k, HEAP_ANY_NODE, 0, HEAP_NO_SCRUB,
					   &none_maint);

			if (!pg) {
				w->bad++;
				continue;
			}
			/* Node 0 short of 2 MiB blocks: the nearest node's. */
			if (pg->node != 0) {
				w->remote++;
				w->bad +=
					heap_free(pg, k, HEAP_FREE_DIRTY) != 0;
				continue;
			}
			claim(w, pg, k, true);
			held[n] = pg;
			order[n++] = k;
			w->allocs++;
		} else if (n) {
			unsigned int i = (unsigned int)((x >> 16) % n);

			claim(w, held[i], order[i], false);
			w->bad += heap_free(held[i], order[i],
					    HEAP_FREE_DIRTY) != 0;
			held[i] = held[--n];
			order[i] = order[n];
		}
	}
	while (n--) {
		claim(w, held[n], order[n], false);
		w->bad += heap_free(held[n], order[n], HEAP_FREE_DIRTY) != 0;
	}
	for (unsigned int k = 0; k < HOST_LOCK_KINDS; k++)
		w->locks += host_lock_count[k];
	return NULL;
}

/*
 * Two threads on one node: the per-CPU caches and the host's own lock; no
 * block handed out twice, every page back, the host's lock the one taken.
 */
static void check_two_threads_one_node(void)
{
	struct worker w[2] = {{.cpu = 1}, {.cpu = 2}};
	pthread_t th[2];
	uint64_t total = heap_stats_all(0).free_pages;

	none_maint = cachemaint_policy(CACHEMAINT_NONE, &none_stats);
	heap_set_cpu_caches(true);
	for (unsigned int i = 0; i < 2; i++)
		EXPECT(!pthread_create(&th[i], NULL, worker_run, &w[i]),
		       "thread %u", i);
	for (unsigned int i = 0; i < 2; i++) {
		pthread_join(th[i], NULL);
		EXPECT(!w[i].bad && w[i].allocs > WORKER_OPS / 4 &&
			       w[i].remote < w[i].allocs / 8,
		       "thread %u: %u bad, %llu allocations, %llu remote", i,
		       w[i].bad, (unsigned long long)w[i].allocs,
		       (unsigned long long)w[i].remote);
	}
	EXPECT(w[0].locks && w[1].locks, "the host's lock was never taken");
	EXPECT(heap_stats_all(0).free_pages == total,
	       "%llu free pages, %llu before",
	       (unsigned long long)heap_stats_all(0).free_pages,
	       (unsigned long long)total);
	EXPECT(heap_check() == 0, "heap_check() after the threads");
}

/*
 * A host's idle scrub (docs/embedding.md): every dirty free chunk taken,
 * zeroed with no lock held, given back clean. The region was filled with
 * 0xaa and most of it is still dirty: afterwards the heap counts no
 * dirty page, the free count is what it was, and every page is zero
 * (check_every_page() reads them all).
 */
static void check_idle_scrub(void)
{
	uint64_t free0 = heap_stats_all(0).free_pages, dirty0, done = 0;
	uint64_t bound = heap_stats_all(0).total_pages;
	struct page_info *pg;
	unsigned int order;

	dirty0 = heap_stats_all(0).dirty_pages;
	EXPECT(dirty0 > free0 / 2, "only %llu of %llu free pages dirty",
	       (unsigned long long)dirty0, (unsigned long long)free0);
	for (uint32_t n = 0; n < NODES; n++)
		while (done <= bound && (pg = heap_take_dirty(n, &order))) {
			uint32_t fd = pg->first_dirty;

			EXPECT(pg->node == n, "a chunk of node %u", pg->node);
			EXPECT(fd < (1u << order), "first dirty page %u", fd);
			if (fd < (1u << order))
				memset(page_va(pg->pfn + fd), 0,
				       ((1ull << order) - fd) << PAGE_SHIFT);
			heap_put_clean(pg, order, false);
			done += 1ull << order;
		}
	EXPECT(done >= dirty0 && done <= bound,
	       "%llu pages scrubbed, %llu dirty", (unsigned long long)done,
	       (unsigned long long)dirty0);
	EXPECT(heap_stats_all(0).dirty_pages == 0, "%llu pages still dirty",
	       (unsigned long long)heap_stats_all(0).dirty_pages);
	EXPECT(heap_stats_all(0).free_pages == free0, "free %llu, was %llu",
	       (unsigned long long)heap_stats_all(0).free_pages,
	       (unsigned long long)free0);
	EXPECT(heap_check() == 0, "heap_check() after the idle scrub");
}

/* Every free page allocated once: none in a hole, each zeroed; then back. */
static void check_every_page(void)
{
	uint64_t want = heap_stats_all(0).free_pages, got = 0, bad = 0,
		 dirty = 0;
	struct page_info **all = calloc(want + 1, sizeof(*all));
	uint64_t per_node[NODES] = {0};

	if (!all) {
		printf("embed: FAIL (calloc)\n");
		exit(1);
	}
	while (got <= want &&
	       (all[got] = heap_alloc(0, HEAP_ANY_NODE, 0, 0, NULL))) {
		bad += in_hole(all[got]->pfn, 0);
		dirty += !zeroed(all[got]->pfn, 0);
		per_node[all[got]->node % NODES]++;
		got++;
	}
	EXPECT(got == want, "%llu of %llu pages", (unsigned long long)got,
	       (unsigned long long)want);
	EXPECT(!bad, "%llu pages inside reserved holes",
	       (unsigned long long)bad);
	EXPECT(!dirty, "%llu pages not zeroed", (unsigned long long)dirty);
	EXPECT(per_node[0] && per_node[1], "a node gave nothing");
	EXPECT(heap_stats_all(0).free_pages == 0, "free pages left");
	while (got--)
		EXPECT(!heap_free(all[got], 0, HEAP_FREE_ZEROED), "free");
	free(all);
}

/* Everything back: counters, the maintenance the host saw, heap_check(). */
static void check_closed(struct page_info *blk[NODES],
			 struct page_info *ext[NODES])
{
	for (unsigned int n = 0; n < NODES; n++) {
		if (blk[n])
			EXPECT(!heap_free(blk[n], 4, HEAP_FREE_DIRTY),
			       "free block");
		if (ext[n])
			EXPECT(!heap_free_owned(ext[n], 9,
						(uint16_t)(OWNER + n)),
			       "free extent");
	}
	EXPECT(heap_stats_all(0).free_pages == heap_stats_all(0).total_pages,
	       "pages not back");
	EXPECT(heap_stats_all(0).owned_pages == 0, "owned pages left");
	EXPECT(maint_stats.ops == host.maint_ops &&
		       maint_stats.bytes == host.maint_bytes,
	       "counters say %llu ops %llu bytes, the host saw %llu, %llu",
	       (unsigned long long)maint_stats.ops,
	       (unsigned long long)maint_stats.bytes,
	       (unsigned long long)host.maint_ops,
	       (unsigned long long)host.maint_bytes);
	EXPECT(heap_check() == 0, "heap_check() found problems");
	EXPECT(host_irq_on == 1, "interrupts left masked");
}

int main(int argc, char **argv)
{
	bool break_holes = argc > 1 && !strcmp(argv[1], "--break-holes");
	struct page_info *blk[NODES], *ext[NODES];

	host.verbose = getenv("EMBED_VERBOSE") != NULL;
	open_heap(break_holes);
	check_opened();
	check_anonymous(blk);
	check_owned(ext);
	check_no_flush();
	check_misuse_refused();
	check_misuse_panics_when_debug();
	check_two_threads_one_node();
	check_idle_scrub();
	check_every_page();
	check_closed(blk, ext);
	if (failures) {
		printf("embed: FAIL (%u checks)\n", failures);
		return 1;
	}
	printf("embed: PASS\n");
	return 0;
}
