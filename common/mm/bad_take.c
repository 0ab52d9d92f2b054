// SPDX-License-Identifier: MIT
/*
 * The bad queue's pages taken out of service (keel/bad_queue.h): each page
 * a machine check or an injection queued is heap_offline()d as broken, a
 * corrected error counted against its page (keel/ce_count.h), an error
 * that names no page said. Called where locks may be taken: by the flow
 * between phases (common/boot_ras.c, after its poll of every idle CPU),
 * and by a live update's freeze right before it writes the bad-page
 * records, so that a page queued after the flow's last drain (a machine
 * check while a held guest ran on) is in the handover, not forgotten by
 * the next image.
 *
 * A page the heap cannot take out now is not forgotten:
 *  - not yet (heap_offline() -EBUSY: in a chunk the idle scrubber holds,
 *    a cache refilled as fast as it drains; -ENOMEM: no page for its
 *    list of marked pages): tried again at each take after, the freeze's
 *    included, where every other CPU is stopped;
 *  - not the heap's (-EPERM: keel's image, its frame table and tables,
 *    reserved RAM; -EINVAL: RAM with no page entry): this image goes on
 *    using it, but a live update's next image places its own tables
 *    afresh and must never put them there: kept (bad_queue_kept()), the
 *    handover names it bad (common/liveupdate/lu_bad.c), the report
 *    counts it (bad_memory.not_taken_pages).
 *
 * One caller at a time (bad_queue_drain() lets one CPU drain; the two
 * callers are the boot CPU's).
 */
#include <keel/bad_queue.h>
#include <keel/badmem.h>
#include <keel/bootmem.h>
#include <keel/ce_count.h>
#include <keel/errno.h>
#include <keel/heap.h>
#include <keel/heap_boot.h>
#include <keel/heap_check.h>
#include <keel/printk.h>
#include <keel/range_table.h>
#include <keel/string.h>

/*
 * What a take carries from one entry to the next: ce_offline=, and the
 * errors that name no page, counted by kind (one source, one status) and
 * said once a kind at the take's end with their count: a broadcast
 * machine check reaches every CPU, and each queues the same status
 * (QEMU's `mce -b`; 383 lines on a 384-CPU machine otherwise). A fifth
 * kind says the first four.
 */
#define TAKE_KINDS 4

struct take {
	uint32_t ce_offline;
	unsigned int kinds;
	struct {
		enum bad_queue_source src;
		uint64_t info;
		unsigned int count;
	} k[TAKE_KINDS];
};

static const char *take_who(enum bad_queue_source src)
{
	return src == BAD_QUEUE_INJECTION ? "inject" : "mce";
}

/* The errors that name no page, said: a line a kind. */
static void say_kinds(struct take *t)
{
	for (unsigned int i = 0; i < t->kinds; i++) {
		const char *what = t->k[i].src == BAD_QUEUE_MCE_CORRECTED
					   ? "a corrected error"
					   : "an error";
		char times[24] = "";

		if (t->k[i].count > 1)
			snprintf(times, sizeof(times), ", %u times",
				 t->k[i].count);
		pr_warn("%s: %s that names no memory page (status %#llx)%s: "
			"nothing taken out of service\n",
			take_who(t->k[i].src), what,
			(unsigned long long)t->k[i].info, times);
	}
	t->kinds = 0;
}

/* An error that names no page, counted with its kind. */
static void count_kind(struct take *t, enum bad_queue_source src, uint64_t info)
{
	for (unsigned int i = 0; i < t->kinds; i++) {
		if (t->k[i].src == src && t->k[i].info == info) {
			t->k[i].count++;
			return;
		}
	}
	if (t->kinds == TAKE_KINDS)
		say_kinds(t);
	t->k[t->kinds].src = src;
	t->k[t->kinds].info = info;
	t->k[t->kinds++].count = 1;
}

/*
 * Pages not the heap's, kept for the next image (see the top): a page of
 * keel's own going bad is rare, BAD_KEPT_MAX of them a failing machine;
 * one more is said and not kept.
 */
#define BAD_KEPT_MAX 64
static struct {
	uint64_t pfn;
	uint8_t reason; /* enum heap_bad_reason */
} kept[BAD_KEPT_MAX];
static unsigned int kept_count;

/* Pages to try again at the next take (see the top). */
static struct {
	uint64_t pfn;
	uint64_t info;
	enum bad_queue_source src;
} again[BAD_QUEUE_SLOTS];
static unsigned int again_count;

/* Moved by every change to either list (bad_queue_kept_version()). */
static uint64_t lists_version;

/* The heap's reason for a page @src reported broken. */
static unsigned int broken_from(enum bad_queue_source src)
{
	return HEAP_BAD_BROKEN |
	       (src == BAD_QUEUE_MCE ? HEAP_BAD_FROM_MCE
				     : HEAP_BAD_FROM_INJECTION);
}

/*
 * The first of @count sorted, disjoint regions @r ending above pfn @n
 * (@count when none), and whether it holds @n. O(log count).
 */
static bool region_holds(const struct region *r, unsigned int count, uint64_t n,
			 unsigned int *at)
{
	*at = regions_first_ending_above_pfn(r, count, n);
	return *at < count && pfn_val(region_start_pfn(&r[*at])) <= n;
}

/* Is pfn @n RAM (bootmem's map)? */
static bool is_ram(uint64_t n)
{
	unsigned int count, at;
	const struct region *ram = bootmem_ram_regions(&count);

	return region_holds(ram, count, n, &at);
}

/*
 * Is pfn @n reserved as bad (a "bad ..." name: the firmware's, an
 * option's, one a handover carried)? bootmem's table is sorted and
 * disjoint, 100,000 bad pages among its regions.
 */
static bool reserved_bad(uint64_t n)
{
	unsigned int count, at;
	const struct region *r = bootmem_reserved_regions(&count);

	return region_holds(r, count, n, &at) &&
	       badmem_region_source(r[at].name) >= 0;
}

struct named {
	uint64_t pfn;
	bool found;
};

static void named_cb(pfn_t p, unsigned int reason, int holder, void *arg)
{
	struct named *f = arg;

	(void)reason;
	(void)holder;
	f->found |= pfn_val(p) == f->pfn;
}

/*
 * Does the heap name pfn @n offline (a live update writes it then)? A
 * page of a domain's extent marked before the range went back to
 * reserved is no heap memory, yet the heap keeps naming it, under its
 * own source: kept too, under another, the two would overlap across the
 * handover's records, which the next image refuses whole. A walk of the
 * heap's offlined pages, O(bad pages): only for a page not the heap's.
 */
static bool heap_names(uint64_t n)
{
	struct named f = {n, false};

	for (unsigned int node = 0; node < heap_node_count() && !f.found;
	     node++)
		heap_for_each_bad(node, named_cb, &f);
	return f.found;
}

/* Page @n, not the heap's, kept. Return: what the line says of it. */
static const char *keep(uint64_t n, unsigned int reason)
{
	_Static_assert(BAD_KEPT_MAX == 64, "the line below says 64");

	if (!is_ram(n))
		return "not RAM: nothing to take out";
	/* Out of service already: reserved as bad, or named by the heap. */
	if (reserved_bad(n) || heap_names(n))
		return "already out of service";
	for (unsigned int i = 0; i < kept_count; i++)
		if (kept[i].pfn == n)
			return "not the heap's, named before";
	if (kept_count == BAD_KEPT_MAX)
		return "not the heap's (keel's own or reserved): kept in use, "
		       "and not named to a live update's next image (64 "
		       "named already)";
	kept[kept_count].pfn = n;
	kept[kept_count++].reason = (uint8_t)reason;
	lists_version++;
	return "not the heap's (keel's own or reserved): kept in use, and "
	       "named bad to a live update's next image";
}

/*
 * Page @n heap_offline()d as broken. @retried: it waited since an
 * earlier take (said then: said again only when it is settled).
 */
static void take_page(uint64_t n, enum bad_queue_source src, uint64_t info,
		      bool retried)
{
	unsigned int reason = broken_from(src);
	int err = heap_offline(pfn(n), (enum heap_bad_reason)reason);
	const char *what = "taken out of service";

	if (err == -EBUSY || err == -ENOMEM) {
		if (again_count < BAD_QUEUE_SLOTS) {
			again[again_count].pfn = n;
			again[again_count].info = info;
			again[again_count++].src = src;
			lists_version += !retried;
			if (retried)
				return;
			what = "not yet: tried again at the next drain";
		} else {
			what = "not taken out: the pages waiting for the next "
			       "drain are too many";
		}
	} else if (err == -EEXIST) {
		what = "already out of service";
	} else if (err == -EPERM || err == -EINVAL) {
		what = keep(n, reason);
	} else if (err) {
		what = "refused";
	}
	pr_warn("%s: memory error in page %#llx (status %#llx): %s (%d)\n",
		take_who(src), (unsigned long long)n, (unsigned long long)info,
		what, err);
}

/* One page the queue gives, @arg the take. */
static void take_one(uint64_t n, enum bad_queue_source src, uint64_t info,
		     void *arg)
{
	struct take *t = arg;

	if (n == BAD_QUEUE_NO_PFN) {
		count_kind(t, src, info);
		return;
	}
	if (src == BAD_QUEUE_MCE_CORRECTED) {
		ce_count_note(pfn(n), info, t->ce_offline);
		return;
	}
	take_page(n, src, info, false);
}

/* The pages that waited since the last take, tried again first. */
static void take_again(void)
{
	unsigned int n = again_count;

	again_count = 0;
	for (unsigned int i = 0; i < n; i++) {
		uint64_t p = again[i].pfn, info = again[i].info;
		enum bad_queue_source src = again[i].src;

		/* Each appends one entry at most: never past the one read. */
		take_page(p, src, info, true);
	}
	lists_version += again_count != n; /* some were settled */
}

/** bad_queue_take() - see keel/bad_queue.h. */
unsigned int bad_queue_take(uint32_t ce_offline)
{
	static uint64_t said;
	struct take t = {.ce_offline = ce_offline};
	unsigned int n = 0, got;
	uint64_t lost;

	take_again();
	while ((got = bad_queue_drain(take_one, &t)))
		n += got;
	say_kinds(&t);
	lost = bad_queue_overflows();
	if (lost != said)
		pr_warn("mce: %llu errors were not queued (the queue holds %u "
			"between two drains, %u of them for errors that name "
			"no page)\n",
			(unsigned long long)(lost - said), BAD_QUEUE_SLOTS,
			BAD_QUEUE_SLOTS / 2);
	said = lost;
	return n;
}

/** bad_queue_kept() - see keel/bad_queue.h. */
unsigned int bad_queue_kept(bad_kept_fn *fn, void *arg)
{
	for (unsigned int i = 0; fn && i < kept_count; i++)
		fn(pfn(kept[i].pfn), kept[i].reason, arg);
	for (unsigned int i = 0; fn && i < again_count; i++)
		fn(pfn(again[i].pfn), broken_from(again[i].src), arg);
	return kept_count + again_count;
}

/** bad_queue_kept_version() - see keel/bad_queue.h. */
uint64_t bad_queue_kept_version(void)
{
	return lists_version;
}

/** bad_queue_kept_reset() - see keel/bad_queue.h. */
void bad_queue_kept_reset(void)
{
	kept_count = again_count = 0;
	lists_version++;
}
