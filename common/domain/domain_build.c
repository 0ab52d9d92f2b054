/* SPDX-License-Identifier: MIT */
/*
 * Domains, step 2: the build (DESIGN §11), as a hypervisor populates a
 * guest's physmap, but in O(extents):
 *
 *  - A domain's guest-physical space [0, bytes) is cut into 1 GiB work
 *    units, claimed from the domain's atomic cursor by the CPUs of its
 *    build node (its node, or the nearest node with CPUs for a memory-only
 *    one), as the boot scrub hands out its units
 *    (common/scrub/scrub_work.c).
 *    Each CPU stays on one domain until it has no unit left, then helps
 *    the next domain of its node: all domains are built at once, a big one
 *    by all of its node's CPUs.
 *  - A unit is filled with the fewest heap extents: the largest naturally
 *    aligned power-of-two blocks that cover it (a 256 MiB domain is one
 *    extent), none above 1 GiB; when the heap has no block of an order
 *    left, the unit goes on with smaller ones.
 *    heap_alloc_owned() records the owner with one write at the block's
 *    head, and zeroes dirty memory outside its lock on this CPU (the
 *    scrub's primitive); HEAP_NO_FLUSH keeps cache maintenance out of it.
 *  - Each extent is mapped with the largest leaves it holds, 1 GiB, 2 MiB
 *    or 4 KiB, in one p2m_map_run() (the p2m is the record of the
 *    extents: destroy and the checks walk it and find each leaf's extent
 *    with heap_owner_of()).
 *    p2m_commit() once per domain, after its last unit.
 *    With bootscrub=off nothing is known clean: the build zeroes every
 *    extent itself, on this CPU, in pieces of 2 MiB (zero_ns).
 *  - Cache maintenance to PoC, where the mode needs it (cachemaint
 *    deferred/clflush) and the extent is not clean_poc: by range, after
 *    the allocation, with no heap lock held; physically adjacent extents
 *    of a unit are merged into one range (one barrier per range).
 *
 * What the build does to an extent's contents (zeroing, maintenance by
 * range) is in domain_base.c, shared with domain_big.c and destroy.
 *
 * A static domain (xen,static-mem, common/domain/domain_static.c) takes no heap
 * memory and no unit: its ranges are adopted and mapped by the boot CPU
 * before the workers start.
 *
 * A unit that cannot get memory stops the domain: the other CPUs stop
 * claiming its units, and the boot CPU gives back everything it mapped
 * (domain_free()), so a failed domain costs nothing.
 *
 * Locks: a domain's map_lock serialises p2m_map() of its workers (the
 * table's pages come from the heap: map_lock, then a heap node lock).
 * Statistics are atomics. Start and end of a build: the boot CPU only,
 * which also prints the progress lines of a long build.
 */
#include <arch/cache.h>
#include <arch/cpu.h>
#include <arch/mm.h>
#include <keel/atomic.h>
#include <keel/cachemaint.h>
#include <keel/domain.h>
#include <keel/errno.h>
#include <keel/heap.h>
#include <keel/heap_boot.h>
#include <keel/numa.h>
#include <keel/p2m.h>
#include <keel/printk.h>
#include <keel/progress.h>
#include <keel/smp.h>
#include <keel/string.h>
#include <keel/trace.h>

#include "domain_priv.h"

/* The statistics of one heap extent of @bytes just allocated, mapped with
 * @leaves leaves of kind @kind. */
static void extent_account(struct domain *d, unsigned int kind, uint64_t leaves,
			   uint64_t bytes, const struct heap_alloc_info *info,
			   uint64_t ticks)
{
	uint64_t inner = info->zero_ticks + info->maint_ticks;

	atomic_fetch_add_relaxed(&d->extents[kind], leaves);
	atomic_fetch_add_relaxed(&d->heap_extents, 1);
	atomic_fetch_add_relaxed(&d->bytes_built, bytes);
	if (info->node != d->node)
		atomic_fetch_add_relaxed(&d->remote_bytes, bytes);
	atomic_fetch_add_relaxed(&d->alloc_ticks,
				 ticks > inner ? ticks - inner : 0);
	atomic_fetch_add_relaxed(&d->zero_ticks, info->zero_ticks);
	atomic_fetch_add_relaxed(&d->maint_ticks, info->maint_ticks);
	atomic_fetch_add_relaxed(&d->zeroed_bytes, info->zeroed_bytes);
	atomic_fetch_add_relaxed(&d->maint_bytes, info->maint_bytes);
	domain_atomic_max(&d->lock_max_ticks, info->lock_ticks);
}

/* The kind of the largest leaf that fits a block of 2^@order pages. */
static unsigned int leaf_kind(unsigned int order)
{
	unsigned int kind = 0;

	while (domain_extent_order[kind] > order)
		kind++;
	return kind;
}

/*
 * The order of the largest naturally aligned block at guest @gpa that
 * fits in @len bytes, at most @cap (@gpa and @len: 4 KiB multiples).
 */
static unsigned int block_order(uint64_t gpa, uint64_t len, unsigned int cap)
{
	unsigned int order = cap;

	while (order && ((PAGE_SIZE << order) > len ||
			 (gpa & ((PAGE_SIZE << order) - 1))))
		order--;
	return order;
}

/*
 * One heap extent of 2^@order pages at @gpa: allocated, accounted, mapped
 * with the largest leaves it holds (a 256 MiB extent: 128 leaves of
 * 2 MiB, in one p2m_map_run()).
 * Return: 0, -ENOMEM (the heap has no such block), or p2m_map_run()'s
 * error; then the extent is the heap's again unless its first leaf got
 * mapped, in which case domain_free() gives it back with the rest.
 */
static int extent_add(struct domain *d, unsigned int order, uint64_t gpa,
		      struct maint_acc *acc)
{
	unsigned int kind = leaf_kind(order);
	unsigned int leaf = domain_extent_order[kind];
	uint64_t bytes = PAGE_SIZE << order, leaves = 1ull << (order - leaf);
	struct heap_alloc_info info = {0};
	struct page_info *pg;
	uint64_t t0 = arch_ticks(), t1;
	paddr_t pa, got;
	unsigned int got_order;
	int err;

	pg = heap_alloc_owned(order, (int)d->node, HEAP_NO_FLUSH, d->id, &info,
			      domain_maint(d));
	t1 = arch_ticks();
	if (!pg)
		return -ENOMEM;
	extent_account(d, kind, leaves, bytes, &info, t1 - t0);
	pa = pfn_to_paddr(page_to_pfn(pg));
	spin_lock(&d->map_lock);
	err = p2m_map_run(d->p2m, gpa, pa, leaf, leaves);
	if (err && (p2m_translate(d->p2m, gpa, &got, &got_order) ||
		    pa_val(got) != pa_val(pa)))
		heap_free_owned(pg, order, d->id);
	spin_unlock(&d->map_lock);
	atomic_fetch_add_relaxed(&d->map_ticks, arch_ticks() - t1);
	if (err)
		return err;
	if (domain_zero_untrusted(d) && !info.was_dirty)
		domain_extent_zero(d, pa, bytes);
	if ((!info.clean_poc || domain_zero_untrusted(d)) &&
	    domain_maint_needed(d))
		domain_maint_add(d, acc, pa, bytes);
	return 0;
}

/*
 * Fill guest-physical [gpa, gpa + len) (one unit) with the fewest heap
 * extents: the largest naturally aligned power-of-two blocks that cover
 * it, none above the leaf order of kind @kind0 (1 GiB by default; a
 * smaller cap makes every extent a leaf, as the latency probe's 2 MiB
 * builds ask). When the heap has no block of an order left, the unit
 * goes on with smaller ones. Return: 0 or the first error.
 */
static int unit_fill(struct domain *d, uint64_t gpa, uint64_t len,
		     unsigned int kind0)
{
	struct maint_acc acc = {.bytes = 0};
	unsigned int cap = domain_extent_order[kind0];
	int err = 0;

	while (len && !atomic_load_relaxed(&d->stop)) {
		unsigned int order = block_order(gpa, len, cap);

		err = extent_add(d, order, gpa, &acc);
		if (err == -ENOMEM && order > 0) {
			cap = order - 1; /* none that large left: smaller */
			continue;
		}
		if (err)
			break;
		gpa += PAGE_SIZE << order;
		len -= PAGE_SIZE << order;
	}
	domain_maint_flush(d, &acc);
	return err;
}

/* Stop domain @d for @err (the first error wins the reason). */
static void domain_stop(struct domain *d, int err, uint64_t gpa)
{
	bool was = false;

	if (atomic_cmpxchg(&d->stop, &was, true))
		snprintf(d->fail_reason, sizeof(d->fail_reason),
			 "%s at guest address %#llx",
			 err == -ENOMEM ? "out of memory" : "p2m_map failed",
			 (unsigned long long)gpa);
}

/*
 * Claim and build one unit of @d on this CPU, extents at most of kind
 * @kind0. Return: false when @d has no unit left (or stopped).
 */
static bool unit_run(struct domain *d, unsigned int cpu, unsigned int kind0)
{
	uint64_t u = atomic_fetch_add(&d->next_unit, 1), gpa, len;
	int err;

	if (u >= d->units || atomic_load_relaxed(&d->stop))
		return false;
	if (u == 0) /* claimed once: its build starts */
		atomic_store_relaxed(&d->first_ticks, arch_ticks());
	atomic_fetch_or(&d->cpu_bits[cpu / 64], 1ull << (cpu % 64));
	if (u < d->big_units) {
		err = domain_big_unit(d, u, &gpa);
	} else {
		gpa = d->big_bytes + ((u - d->big_units) << d->unit_shift);
		len = d->spec.bytes - gpa;
		if (len > (1ull << d->unit_shift))
			len = 1ull << d->unit_shift;
		err = unit_fill(d, gpa, len, kind0);
	}
	if (err)
		domain_stop(d, err, gpa);
	domain_atomic_max(&d->end_ticks, arch_ticks());
	return true;
}

/*
 * One domains_build(), handed to its workers: the set, and the progress
 * (keel/progress.h) printed by the CPU that called it (the driver),
 * between its own units and, once it has none left, while the other
 * workers run: a build of terabytes says how it goes at most every 5 s,
 * a short one prints nothing.
 */
struct build_run {
	struct domain_set *s;
	struct progress progress;
	unsigned int driver;
	uint32_t others; /* workers other than the driver running (atomic) */
};

/**
 * domains_progress_at() - one progress_update_at() of the build of @s at
 * @now: bytes built so far, summed over the domains being built.
 * Return: true when a line was printed.
 */
bool domains_progress_at(const struct domain_set *s, struct progress *p,
			 uint64_t now)
{
	uint64_t done = 0;

	for (unsigned int i = 0; i < s->stats.count; i++)
		if (s->d[i].p2m)
			done += atomic_load_relaxed(&s->d[i].bytes_built);
	return progress_update_at(p, done, now);
}

/* Some domain of @s being built has bytes left and has not stopped. */
static bool build_left(const struct domain_set *s)
{
	for (unsigned int i = 0; i < s->stats.count; i++) {
		const struct domain *d = &s->d[i];

		if (d->p2m && !atomic_load_relaxed(&d->stop) &&
		    atomic_load_relaxed(&d->bytes_built) < d->spec.bytes)
			return true;
	}
	return false;
}

/*
 * The driver, its units done: lines while the others build (while work is
 * left, a 10 ms grace for them to start).
 */
static void build_watch(struct build_run *r)
{
	uint64_t t0 = arch_ticks(), grace = arch_ticks_hz() / 100;
	bool seen = false;

	for (;;) {
		uint32_t others = atomic_load_acquire(&r->others);

		seen |= others > 0;
		if (!others &&
		    (seen || !build_left(r->s) || arch_ticks() - t0 > grace))
			return;
		domains_progress_at(r->s, &r->progress, arch_ticks());
		arch_cpu_relax();
	}
}

/* smp_run_on() worker: the units of this CPU's node's domains. */
static void build_worker(void *arg)
{
	struct build_run *r = arg;
	struct domain_set *s = r->s;
	unsigned int cpu = arch_cpu_id(), n = s->stats.count;
	uint32_t node = cpu_table[cpu].node;
	bool worked = true, driver = cpu == r->driver;

	if (!driver)
		atomic_fetch_add(&r->others, 1);
	while (worked && n) {
		worked = false;
		/* Spread the CPUs over the domains, each stays on one. */
		for (unsigned int k = 0; k < n && !worked; k++) {
			struct domain *d = &s->d[(cpu + k) % n];

			if (d->build_node != node || !d->p2m || d->failed)
				continue;
			while (unit_run(d, cpu, 0)) {
				worked = true;
				if (driver)
					domains_progress_at(s, &r->progress,
							    arch_ticks());
			}
		}
	}
	if (driver)
		build_watch(r);
	else
		atomic_fetch_sub(&r->others, 1);
}

/* CPUs of @cpus on @node. */
static unsigned int node_cpus(const cpumask_t *cpus, uint32_t node)
{
	unsigned int c, n = 0;

	for_each_cpu_in (c, cpus)
		n += c < cpu_count && cpu_table[c].node == node;
	return n;
}

/**
 * domain_unit_shift() - log2 of the work unit of a domain of @bytes built
 * by @cpus CPUs (see DOMAIN_UNIT_SHIFT).
 * Return: DOMAIN_UNIT_MIN_SHIFT..DOMAIN_UNIT_SHIFT.
 */
unsigned int domain_unit_shift(uint64_t bytes, unsigned int cpus)
{
	uint64_t share = bytes / ((cpus ? cpus : 1) * DOMAIN_UNITS_PER_CPU);
	unsigned int shift = DOMAIN_UNIT_MIN_SHIFT;

	if (bytes >= (1ull << DOMAIN_UNIT_SHIFT))
		return DOMAIN_UNIT_SHIFT;
	while (shift < DOMAIN_UNIT_SHIFT && (2ull << shift) <= share)
		shift++;
	return shift;
}

/* Nodes with at least one CPU of @cpus, as a node bit mask. */
static uint64_t nodes_with_cpus(const cpumask_t *cpus)
{
	uint64_t mask = 0;
	unsigned int c;

	for_each_cpu_in (c, cpus)
		if (c < cpu_count && cpu_table[c].node < 64)
			mask |= 1ull << cpu_table[c].node;
	return mask;
}

/*
 * The table and the work of every planned domain: p2m on its node, its
 * build node, its unit count. Return: domains left to build.
 */
static unsigned int build_prepare(struct domain_set *s, const cpumask_t *cpus)
{
	uint64_t with_cpus = nodes_with_cpus(cpus);
	unsigned int todo = 0;

	for (unsigned int i = 0; i < s->stats.count; i++) {
		struct domain *d = &s->d[i];

		if (d->failed)
			continue;
		if (p2m_init_maint(&d->table, (int)d->node, 0,
				   domain_maint(d))) {
			snprintf(d->fail_reason, sizeof(d->fail_reason),
				 "no memory for its p2m root table");
			d->failed = true;
			continue;
		}
		d->p2m = &d->table;
		if (d->origin == DOMAIN_ORIGIN_STATIC) {
			/* Its own ranges, on this CPU: no unit to share. */
			d->build_node = d->node;
			domain_static_build(d);
			continue;
		}
		d->build_node = numa_nearest_to(d->node, with_cpus);
		if (d->build_node == NUMA_NO_NODE)
			d->build_node = cpu_table[arch_cpu_id()].node;
		d->unit_shift = domain_unit_shift(
			d->spec.bytes, node_cpus(cpus, d->build_node));
		domain_big_alloc(d, MAX_FREE_ORDER);
		d->units = d->big_units + ((d->spec.bytes - d->big_bytes +
					    (1ull << d->unit_shift) - 1) >>
					   d->unit_shift);
		spin_lock_init(&d->map_lock);
		todo++;
	}
	return todo;
}

/* After the workers: commit each built table, give back the failed ones. */
static void build_finish(struct domain_set *s, uint64_t start)
{
	uint64_t t0;

	for (unsigned int i = 0; i < s->stats.count; i++) {
		struct domain *d = &s->d[i];

		if (!d->p2m)
			continue;
		d->start_ticks = d->first_ticks && d->first_ticks > start
					 ? d->first_ticks - d->prefix_ticks
					 : start;
		/* A unit nobody ran (no online CPU of @cpus on its node). */
		if (!d->stop && d->bytes_built != d->spec.bytes) {
			snprintf(d->fail_reason, sizeof(d->fail_reason),
				 "incomplete: %llu of %llu bytes built",
				 (unsigned long long)d->bytes_built,
				 (unsigned long long)d->spec.bytes);
			d->stop = true;
		}
		if (d->stop) {
			d->failed = true;
			domain_free(d);
			continue;
		}
		t0 = arch_ticks();
		p2m_commit(d->p2m);
		/* Its own end: the last unit, plus the commit done here. */
		d->end_ticks += arch_ticks() - t0;
		d->table_pages = p2m_table_pages(d->p2m);
		d->built = true;
	}
}

/* Bytes of the domains of @s about to be built. */
static uint64_t planned_bytes(const struct domain_set *s)
{
	uint64_t sum = 0;

	for (unsigned int i = 0; i < s->stats.count; i++)
		if (s->d[i].p2m)
			sum += s->d[i].spec.bytes;
	return sum;
}

/**
 * domains_build() - build every domain of @s (keel/domain.h).
 * @cpus: the CPUs to build on; NULL: every online CPU.
 */
void domains_build(struct domain_set *s, const cpumask_t *cpus)
{
	uint64_t free[MAX_NUMNODES], start;
	unsigned int nodes = heap_node_count();
	struct build_run r = {.s = s};
	cpumask_t online;

	if (!s->stats.count)
		return;
	if (!cpus) {
		smp_online_mask(&online);
		cpus = &online;
	}
	trace_begin("domains");
	domain_snapshot(&s->stats.before);
	domain_budget(free, nodes);
	domain_plan(s, free, nodes);
	start = arch_ticks();
	if (build_prepare(s, cpus)) {
		r.driver = arch_cpu_id();
		progress_begin(&r.progress, "domains", planned_bytes(s));
		smp_run_on(cpus, build_worker, &r);
	}
	build_finish(s, start);
	s->stats.build_ticks = arch_ticks() - start;
	trace_end("domains");
}

/*
 * Build and destroy one domain of @bytes on @node entirely on this CPU,
 * under @ctx, owned by @owner, its table on this CPU's stack. Return: as
 * domain_build_local(); in *@cost (may be NULL) the build's time and what
 * it zeroed and cleaned.
 */
static int build_private(uint64_t bytes, int node, unsigned int max_order,
			 uint16_t owner, struct domain_ctx *ctx,
			 struct domain_build_cost *cost)
{
	struct domain d;
	unsigned int kind0 = 0;
	uint64_t u, t0 = arch_ticks();

	if (!bytes || bytes > DOMAIN_BYTES_MAX || node < 0 ||
	    (unsigned int)node >= heap_node_count())
		return -EINVAL;
	while (kind0 + 1 < DOMAIN_EXTENT_KINDS &&
	       domain_extent_order[kind0] > max_order)
		kind0++;
	memset(&d, 0, sizeof(d));
	d.spec.bytes = ALIGN_UP(bytes, PAGE_SIZE);
	d.ctx = ctx;
	d.id = owner;
	d.node = d.build_node = (uint32_t)node;
	spin_lock_init(&d.map_lock);
	if (p2m_init_maint(&d.table, node, 0, domain_maint(&d)))
		return -ENOMEM;
	d.p2m = &d.table;
	d.unit_shift = DOMAIN_UNIT_SHIFT;
	if (max_order > MAX_ORDER)
		domain_big_alloc(&d, max_order);
	d.units = d.big_units + ((d.spec.bytes - d.big_bytes +
				  (1ull << DOMAIN_UNIT_SHIFT) - 1) >>
				 DOMAIN_UNIT_SHIFT);
	for (u = 0; u < d.units && !d.stop; u++)
		unit_run(&d, arch_cpu_id(), kind0);
	if (!d.stop)
		p2m_commit(d.p2m);
	if (cost)
		*cost = (struct domain_build_cost){
			.ticks = arch_ticks() - t0,
			.zeroed_bytes = d.zeroed_bytes,
			.maint_bytes = d.maint_bytes,
		};
	domain_free(&d);
	return d.stop ? -ENOMEM : 0;
}

/**
 * domain_build_local_cost() - domain_build_local(), and in *@cost (may be
 * NULL) the build's time (table, extents, commit; not the destroy) and
 * the bytes it zeroed and cleaned to PoC.
 * Return: as domain_build_local().
 */
int domain_build_local_cost(uint64_t bytes, int node,
			    unsigned int max_extent_order,
			    struct domain_ctx *ctx,
			    struct domain_build_cost *cost)
{
	return build_private(bytes, node, max_extent_order, DOMAIN_MAX + 1, ctx,
			     cost);
}

/**
 * domain_build_private() - domain_build_local() for @slot of several CPUs
 * at once (keel/domain.h): owner DOMAIN_PRIVATE_OWNER + @slot.
 * Return: 0, -ENOMEM, -EINVAL (also a slot past HEAP_MAX_OWNER).
 */
int domain_build_private(uint64_t bytes, int node,
			 unsigned int max_extent_order, unsigned int slot,
			 struct domain_ctx *ctx)
{
	if (slot > HEAP_MAX_OWNER - DOMAIN_PRIVATE_OWNER)
		return -EINVAL;
	return build_private(bytes, node, max_extent_order,
			     (uint16_t)(DOMAIN_PRIVATE_OWNER + slot), ctx,
			     NULL);
}

/**
 * domain_build_local() - build and destroy one domain on this CPU
 * (keel/domain.h). Owner id DOMAIN_MAX + 1, never one of a set's.
 * Return: 0, -EINVAL (size or node), -ENOMEM.
 */
int domain_build_local(uint64_t bytes, int node, unsigned int max_extent_order,
		       struct domain_ctx *ctx)
{
	return domain_build_local_cost(bytes, node, max_extent_order, ctx,
				       NULL);
}
