/* SPDX-License-Identifier: MIT */
/*
 * The page audit (DESIGN §7): every page of RAM in bootmem's RAM table is
 * free, allocated (to keel, or owned by one domain), or reserved for a
 * named reason; lost_pages must be 0.
 *
 * Free pages are counted by walking every node's free lists, never taken
 * from the heap counters, so that a counter bug and a list bug both show:
 * the walk is compared with heap_stats()'s free_pages. RAM dropped by
 * mem= stays in bootmem's RAM table as a reserved region named "mem=", so
 * it is accounted as reserved, not lost.
 *
 * audit=full in a CONFIG_DEBUG build also samples free memory for zero
 * (issue 9): the first and the last 64 bytes of the first page of every
 * free chunk whose first page is clean (first_dirty is not 0) must read
 * zero. Only when a scrub ran (bootscrub=on/idle): with bootscrub=off the
 * heap was handed memory it never zeroed and marked it clean on purpose.
 * Reading a free chunk's page is allowed: the node lock is held and the
 * audit runs once no CPU allocates any more. Costs two cache lines per
 * chunk, O(chunks) like the rest of the audit.
 *
 * Bad pages (include/keel/badmem.h: reservations named "bad <source>")
 * are their own class, taken out of reserved_pages: free + allocated +
 * reserved + bad = all RAM. The scrub never writes one by construction:
 * the boot and idle scrub read the heap's free chunks only (scrub_boot()
 * cuts units from the free lists, scrub_idle_step() detaches a free
 * chunk), and bootmem never hands a reserved page to the heap, so a bad
 * page is never in a free chunk at boot.
 *
 * Owned extents (domains' memory) are part of allocated_pages and counted
 * apart in owned_pages. A static domain's memory is reserved RAM (bootmem
 * keeps it from the heap) that the heap adopted as owned extents
 * (heap_adopt_owned()): it is counted as allocated, and taken out of
 * reserved_pages, so that no page is counted twice. audit=full walks every node block by block
 * (heap_for_each_block(): heads only, O(free chunks + blocks), never
 * O(pages)): the free chunks, keel's anonymous blocks and the owned
 * extents must tile the heap ranges, so every heap page is free, keel's, or
 * owned by exactly one domain; the walked totals must match the free lists
 * and the counters. Without audit=full owned_pages is the heap's counter.
 *
 * Runs on the boot CPU once the heap is quiet (boot scrub done or idle
 * scrubbing finished). heap_for_each_free() takes each node lock in turn.
 */
#include <arch/mm.h>
#include <keel/bootmem.h>
#include <keel/compiler.h>
#include <keel/config.h>
#include <keel/heap.h>
#include <keel/heap_boot.h>
#include <keel/heap_check.h>
#include <keel/heap_scrub.h>
#include <keel/printk.h>
#include <keel/audit.h>
#include <keel/scrub.h>
#include <keel/json.h>

#include "report_priv.h"

#define AUDIT_ZERO_BYTES 64 /* sampled at each end of the first page */
#define AUDIT_ZERO_PRINT 8  /* non-zero chunks printed, the rest counted */

struct audit_walk {
	uint64_t free_pages;
	uint64_t tiled_free, tiled_keel, tiled_owned; /* the block walk */
	uint64_t tiled_bad;   /* pages offlined and withheld (heap_offline()) */
	bool sample;	      /* audit=full + CONFIG_DEBUG + a scrub ran */
	uint64_t sampled;     /* chunks whose first page was read */
	unsigned int nonzero; /* of those, chunks not reading zero */
};

/* Offset of the first non-zero 8-byte word of [va, va + len), or -1. */
static long first_nonzero(const unsigned char *va, size_t len)
{
	const volatile uint64_t *w = (const volatile uint64_t *)va;

	for (size_t i = 0; i < len / sizeof(*w); i++)
		if (w[i])
			return (long)(i * sizeof(*w));
	return -1;
}

static void audit_sample_zero(struct audit_walk *aw, struct page_info *head,
			      unsigned int order)
{
	static const size_t offs[] = {0, PAGE_SIZE - AUDIT_ZERO_BYTES};
	const unsigned char *va;

	/* first_dirty 0: the first page itself may hold old data. */
	if (head->first_dirty == 0)
		return;
	va = phys_to_virt(pfn_to_paddr(pfn(head->pfn)));
	aw->sampled++;
	for (unsigned int i = 0; i < ARRAY_SIZE(offs); i++) {
		long at = first_nonzero(va + offs[i], AUDIT_ZERO_BYTES);

		if (at < 0)
			continue;
		if (aw->nonzero++ < AUDIT_ZERO_PRINT)
			pr_err("audit: free clean chunk pfn %#llx order %u "
			       "node %u is not zero at offset %llu\n",
			       (unsigned long long)head->pfn, order,
			       (unsigned int)head->node,
			       (unsigned long long)(offs[i] + (size_t)at));
		break;
	}
}

static void audit_count_chunk(struct page_info *head, unsigned int order,
			      unsigned int zone, void *arg)
{
	struct audit_walk *aw = arg;

	(void)zone;
	aw->free_pages += 1ULL << order;
	if (aw->sample)
		audit_sample_zero(aw, head, order);
}

static void audit_count_block(struct page_info *head, unsigned int order,
			      int owner, void *arg)
{
	struct audit_walk *aw = arg;
	uint64_t pages = 1ULL << order;

	(void)head;
	if (owner == HEAP_OWNER_FREE)
		aw->tiled_free += pages;
	else if (owner == HEAP_OWNER_KEEL)
		aw->tiled_keel += pages;
	else if (owner == HEAP_OWNER_BAD) /* its own class: allocated */
		aw->tiled_bad += pages;
	else
		aw->tiled_owned += pages;
}

/*
 * audit=full: every block of every node, heads only. Return: problems
 * (a broken tiling, or totals that disagree with the lists / counters).
 */
static unsigned int audit_blocks(struct audit_walk *aw, uint64_t allocated)
{
	unsigned int bad = 0;

	for (unsigned int n = 0; n < heap_node_count(); n++)
		bad += heap_for_each_block(n, audit_count_block, aw);
	if (aw->tiled_free != aw->free_pages ||
	    aw->tiled_keel + aw->tiled_owned + aw->tiled_bad != allocated ||
	    aw->tiled_owned != heap_stats_all(0).owned_pages) {
		pr_err("audit: blocks walked: %llu free, %llu keel, %llu "
		       "owned, %llu bad; "
		       "free lists %llu, allocated %llu, owned counter %llu\n",
		       (unsigned long long)aw->tiled_free,
		       (unsigned long long)aw->tiled_keel,
		       (unsigned long long)aw->tiled_owned,
		       (unsigned long long)aw->tiled_bad,
		       (unsigned long long)aw->free_pages,
		       (unsigned long long)allocated,
		       (unsigned long long)heap_stats_all(0).owned_pages);
		bad++;
	}
	return bad;
}

/* RAM pages in bad reservations (bootmem's table is trimmed to RAM). */
/*
 * Bad pages, their own class: those reserved at boot (out of the reserved
 * count) and those the heap withheld at runtime (heap_offline(): out of
 * the allocated count, where the heap keeps them). A page marked inside
 * a block or an extent that is not yet freed is still that block's.
 */
static void audit_bad(struct audit_result *out)
{
	struct badmem_counts c;
	uint64_t withheld = 0;

	badmem_report_count(&c);
	for (unsigned int n = 0; n < heap_node_count(); n++) {
		struct heap_stats st;

		if (!heap_stats((int)n, 0, &st))
			withheld += st.bad_pages - st.bad_held_pages;
	}
	out->bad_pages = c.pages - c.runtime_pages + withheld;
	out->reserved_pages -= c.pages - c.runtime_pages;
	out->allocated_pages -= withheld;
}

/* Pages of bootmem's RAM table. */
static uint64_t ram_pages(void)
{
	unsigned int count;
	const struct region *ram = bootmem_ram_regions(&count);
	uint64_t pages = 0;

	for (unsigned int i = 0; ram && i < count; i++)
		pages +=
			(pa_val(ram[i].end) - pa_val(ram[i].start)) / PAGE_SIZE;
	return pages;
}

/**
 * audit_run() - account for every RAM page.
 * @out: the result.
 * @full: also run heap_check() (audit=full).
 *
 * Return: nothing; @out->ok says whether the books balance.
 */
void audit_run(struct audit_result *out, bool full)
{
	unsigned int nodes = heap_node_count();
	struct audit_walk aw = {
		.sample = full && IS_ENABLED(CONFIG_DEBUG) &&
			  scrub_stats.mode != SCRUB_OFF,
	};
	struct heap_stats all;
	uint64_t walked, counted, allocated;

	/* The CPUs' caches back to the free lists: every count exact. */
	heap_drain_caches();
	out->ram_pages = ram_pages();

	for (unsigned int n = 0; n < nodes; n++)
		heap_for_each_free(n, audit_count_chunk, &aw);
	walked = aw.free_pages;
	all = heap_stats_all(0);
	counted = all.free_pages;

	out->free_pages = walked;
	out->allocated_pages = all.allocated_pages;
	out->owned_pages = all.owned_pages;
	/* Static domains' memory is reserved RAM the heap adopted: once. */
	out->reserved_pages =
		bootmem_reserved_ram_bytes() / PAGE_SIZE - all.adopted_pages;
	/* Free RAM the heap refused at the handoff: out of service, apart. */
	out->refused_pages = heap_refused_pages();
	allocated = out->allocated_pages;
	audit_bad(out);
	out->lost_pages = (int64_t)(out->ram_pages - out->free_pages -
				    out->allocated_pages - out->reserved_pages -
				    out->bad_pages - out->refused_pages);
	out->problems = full ? heap_check() : 0;
	if (full) {
		out->problems += audit_blocks(&aw, allocated);
		out->owned_pages = aw.tiled_owned;
	}
	if (aw.sample) {
		pr_info("audit: %llu free chunks sampled for zero, %u not "
			"zero\n",
			(unsigned long long)aw.sampled, aw.nonzero);
		out->problems += aw.nonzero;
	}

	if (walked != counted) {
		pr_err("audit: free lists hold %llu pages, counters say %llu\n",
		       (unsigned long long)walked, (unsigned long long)counted);
		out->problems++;
	}
	if (out->lost_pages)
		pr_err("audit: %lld pages lost (ram %llu, free %llu, allocated "
		       "%llu, reserved %llu, bad %llu)\n",
		       (long long)out->lost_pages,
		       (unsigned long long)out->ram_pages,
		       (unsigned long long)out->free_pages,
		       (unsigned long long)out->allocated_pages,
		       (unsigned long long)out->reserved_pages,
		       (unsigned long long)out->bad_pages);
	out->ok = out->lost_pages == 0 && out->problems == 0;
}

/**
 * audit_report_human() - the "audit:" line.
 * @a: the audit result.
 */
void audit_report_human(const struct audit_result *a)
{
	pr_info("audit: %llu RAM pages = %llu free + %llu allocated + %llu "
		"reserved + %llu bad%s%.0llu%s, %lld lost%s\n",
		(unsigned long long)a->ram_pages,
		(unsigned long long)a->free_pages,
		(unsigned long long)a->allocated_pages,
		(unsigned long long)a->reserved_pages,
		(unsigned long long)a->bad_pages, a->refused_pages ? " + " : "",
		(unsigned long long)a->refused_pages,
		a->refused_pages ? " refused by the heap" : "",
		(long long)a->lost_pages, a->ok ? "" : " (NOT OK)");
}

/**
 * audit_report_json() - the report's "audit" object (keys audit.*).
 * @w: the report's writer.
 * @a: the audit result.
 */
void audit_report_json(struct jw *w, const struct audit_result *a)
{
	jw_obj(w, "audit");
	jw_u64(w, "ram_pages", a->ram_pages);
	jw_u64(w, "free_pages", a->free_pages);
	jw_u64(w, "allocated_pages", a->allocated_pages);
	jw_u64(w, "owned_pages", a->owned_pages);
	jw_u64(w, "reserved_pages", a->reserved_pages);
	jw_u64(w, "bad_pages", a->bad_pages);
	if (a->refused_pages)
		jw_u64(w, "refused_pages", a->refused_pages);
	jw_i64(w, "lost_pages", a->lost_pages);
	jw_u64(w, "problems", a->problems);
	jw_bool(w, "ok", a->ok);
	jw_obj_end(w);
}
