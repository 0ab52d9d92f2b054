/* SPDX-License-Identifier: MIT */
/*
 * The bad-page records of the handover an update writes (version 6,
 * include/keel/handover.h): one a source (HANDOVER_BAD_*), ascending,
 * packed (8 bytes a range) when every range fits (ho_bad_end()),
 * each page under the source where it first went bad, the handover's
 * first records. The boot CPU writes them into the handover before the
 * freeze (lu_stage_bad()), and again in the freeze only when a page went
 * bad or came back in between (lu_put_bad(), which first takes the pages
 * a machine check queued since the flow's last drain); heap_for_each_bad()
 * takes each node's lock.
 */
#include <arch/mm.h>
#include <keel/bad_queue.h>
#include <keel/badmem.h>
#include <keel/bootmem.h>
#include <keel/compiler.h>
#include <keel/domain.h>
#include <keel/handover.h>
#include <keel/heap.h>
#include <keel/heap_boot.h>
#include <keel/heap_check.h>
#include <keel/inject.h>
#include <keel/liveupdate.h>
#include <keel/options.h>
#include <keel/printk.h>
#include <keel/string.h>

#include "lu_priv.h"

/* heap_offline()'s HEAP_BAD_FROM_* >> 4 as a handover's HANDOVER_BAD_*. */
static const uint32_t heap_bad_sources[5] = {
	HANDOVER_BAD_OPTION, /* HEAP_BAD_FROM_API: the host, the operator's */
	HANDOVER_BAD_OPTION, /* HEAP_BAD_FROM_OPTION */
	HANDOVER_BAD_MCE,    /* HEAP_BAD_FROM_MCE */
	HANDOVER_BAD_INJECTION, /* HEAP_BAD_FROM_INJECTION */
	HANDOVER_BAD_UNKNOWN,	/* HEAP_BAD_FROM_HANDOVER: in @in's record */
};

struct bad_pass {
	struct ho_writer *w;
	uint32_t source;
};

/* Is @p a page of bootmem's lattices (bad_lattice_take() took it)? */
static bool in_lattice(pfn_t p)
{
	uint64_t a = pa_val(pfn_to_paddr(p)), s, e;

	return bootmem_lattice_after(a, &s, &e) && s <= a;
}

static void bad_page_cb(pfn_t p, unsigned int reason, int holder, void *arg)
{
	const struct bad_pass *bp = arg;
	unsigned int from = MIN((reason >> 4) & 7, 4u);

	(void)holder;
	/* A restored domain's page marked from @in: its record has it. */
	if (from == 4 || heap_bad_sources[from] != bp->source)
		return;
	/* A badram= pattern's: the next image reads its command line. */
	if (from == HEAP_BAD_FROM_OPTION >> 4 && in_lattice(p))
		return;
	ho_bad_range(bp->w, pa_val(pfn_to_paddr(p)),
		     pa_val(pfn_to_paddr(p)) + PAGE_SIZE);
}

/* Is [s, e) inside one range of @in's records? O(records x log ranges). */
static bool in_records(const struct bi_handover *in, uint64_t s, uint64_t e)
{
	for (unsigned int j = 0; in && j < in->bad_recs; j++) {
		const struct bi_handover_bad *b = &in->bad[j];
		unsigned int k = handover_bad_bound(b, s, true);

		if (k < b->count && handover_bad_range(b, k).start <= s &&
		    e <= handover_bad_range(b, k).end)
			return true;
	}
	return false;
}

/*
 * A page a take could not take out (bad_queue_kept(): keel's own, or
 * waiting), of @arg's source: written once, not when a record handed in
 * names it already (a failed restore's domain memory: its record carries
 * it on).
 */
struct kept_pass {
	struct ho_writer *w;
	uint32_t source;
	const struct bi_handover *in;
};

static void kept_page_cb(pfn_t p, unsigned int reason, void *arg)
{
	const struct kept_pass *kp = arg;
	uint64_t s = pa_val(pfn_to_paddr(p));
	unsigned int from = MIN((reason >> 4) & 7, 4u);

	if (heap_bad_sources[from] != kp->source ||
	    in_records(kp->in, s, s + PAGE_SIZE))
		return;
	ho_bad_range(kp->w, s, s + PAGE_SIZE);
}

/* Does any node's heap hold pages offlined from @source? */
static bool heap_has_bad(uint32_t source)
{
	struct heap_stats st;

	for (unsigned int n = 0; n < heap_node_count(); n++) {
		if (heap_stats((int)n, 0, &st))
			continue;
		for (unsigned int f = 0; f < 4; f++)
			if (st.bad_by_source[f] &&
			    heap_bad_sources[f] == source)
				return true;
	}
	return false;
}

/*
 * The firmware's bad ranges, as bootmem's table names them ("bad
 * firmware"), carried so that a next image whose loader passes no
 * firmware map of them (the sandbox's condensed description,
 * arch/sandbox/fw_condense.c) still keeps them out; one that reads them
 * again finds them in both, and bootmem's table names the bytes. Written
 * by an image handed no firmware record (a cold boot's, or one an older
 * build updated): a later one carries that record as it came, unchanged
 * (the firmware's map does not change under a running machine), and a
 * table range written beside it could only add what another source's
 * record names, which the next reader refuses whole. The table is
 * disjoint, and a page the heap took out or kept (bad_queue_kept())
 * never was reserved as bad: no other source names these bytes.
 */
static void fw_bad(struct ho_writer *w, const struct bi_handover *in)
{
	const char *name = badmem_region_name(BADMEM_FIRMWARE);
	unsigned int count = 0;
	const struct region *r;

	for (unsigned int j = 0; in && j < in->bad_recs; j++)
		if (handover_bad_source(&in->bad[j]) == HANDOVER_BAD_FIRMWARE)
			return;
	r = bootmem_reserved_regions(&count);
	for (unsigned int i = 0; r && i < count; i++)
		if (!strncmp(r[i].name, name, sizeof(r[i].name)))
			ho_bad_range(w, pa_val(r[i].start), pa_val(r[i].end));
}

/*
 * The bad-page records (version 6), one a source (HANDOVER_BAD_*), each
 * page under the source where it first went bad: every page the heap took
 * out of service, every page a take found bad but could not take out
 * (keel's own, still in use, or waiting: bad_queue_kept()), so that the
 * next image puts nothing there, and every range of the records this
 * image was handed
 * (the command line's the next image reads itself), and the firmware's
 * ranges of bootmem's table when @in has none (fw_bad()).
 * The last covers what this image reserved as carried ("bad handover
 * ..."), the pages it marked in restored domains, and those inside a
 * domain whose restore failed: reserved here as "preserved" (the domain's
 * memory stays out of the heap, and its record goes on to the next
 * handover), neither the heap nor a carried reservation names them, and
 * they would drop out of the list. Overlaps are joined (ho_bad_end()).
 * O(sources x (nodes + records) + bad pages + ranges): the heap is
 * walked only for a source it has.
 */
void lu_write_bad(struct ho_writer *w, const struct bi_handover *in)
{
	for (uint32_t src = 0; src <= HANDOVER_BAD_UNKNOWN; src++) {
		struct bad_pass bp = {w, src};
		struct kept_pass kp = {w, src, in};
		bool walk = heap_has_bad(src);

		ho_bad_begin(w, src);
		if (src == HANDOVER_BAD_FIRMWARE)
			fw_bad(w, in);
		for (unsigned int n = 0; walk && n < heap_node_count(); n++)
			heap_for_each_bad(n, bad_page_cb, &bp);
		bad_queue_kept(kept_page_cb, &kp);
		for (unsigned int j = 0; in && j < in->bad_recs; j++) {
			const struct bi_handover_bad *b = &in->bad[j];

			if (handover_bad_source(b) != src)
				continue;
			for (unsigned int i = 0; i < b->count; i++) {
				struct handover_range r =
					handover_bad_range(b, i);

				ho_bad_range(w, r.start, r.end);
			}
		}
		ho_bad_end(w);
	}
}

/*
 * The records written before the freeze (lu_stage_bad()), in place: the
 * handover's first records, so that the freeze, finding the heap's bad
 * version unmoved, neither writes nor reads their bytes again.
 */
static struct {
	bool valid;
	uint8_t *buf;	  /* the handover they were written into */
	uint64_t len;	  /* their bytes, from HANDOVER_HEADER_BYTES */
	uint32_t records; /* how many */
	uint64_t version; /* heap_bad_version() before the walk */
	uint64_t kept;	  /* bad_queue_kept_version() before the walk */
	uint32_t crc;	  /* crc32() of their bytes */
} staged;

/* ce_offline=, for the freeze's take of the bad queue (lu_put_bad()). */
static uint32_t ce_offline;

void lu_unstage_bad(void)
{
	staged.valid = false;
}

/*
 * Before the freeze, other CPUs running: the records written where the
 * freeze will leave them, at the start of the handover @buf of @cap
 * bytes, with their CRC. The version is read first, so that a page
 * offlined during the walk moves it and the freeze writes them again.
 * Too many for @cap (pages gone bad since the sizing): the freeze writes
 * them as before. Their length is what ho_bad_end() left (packed: 8
 * bytes a range, less than the sizing's 16), their CRC that of those
 * bytes: the freeze's ho_bad_keep() skips exactly them.
 */
void lu_stage_bad(uint8_t *buf, uint64_t cap, const struct bi_handover *in)
{
	uint64_t version = heap_bad_version();
	uint64_t kept = bad_queue_kept_version();
	struct ho_writer w;

	lu_unstage_bad();
	ho_writer_init(&w, buf, cap);
	lu_write_bad(&w, in);
	if (w.overflow)
		return;
	staged.buf = buf;
	staged.len = w.off - HANDOVER_HEADER_BYTES;
	staged.records = w.records;
	staged.version = version;
	staged.kept = kept;
	staged.crc = crc32(0, buf + HANDOVER_HEADER_BYTES, staged.len);
	staged.valid = true;
}

/*
 * In the freeze (every other CPU stopped), the first records of @w: those
 * staged kept where they are, or written again (over them).
 */
void lu_put_bad(struct ho_writer *w, const struct bi_handover *in)
{
	/*
	 * Pages a machine check queued since the flow's last drain (while a
	 * held guest ran on, or in this freeze) go out of service first:
	 * not drained, the records would lack them and the next image would
	 * hand them out. Each moves the heap's bad version.
	 */
	bad_queue_take(ce_offline);
	if (staged.valid && w->buf == staged.buf &&
	    w->off == HANDOVER_HEADER_BYTES &&
	    heap_bad_version() == staged.version &&
	    bad_queue_kept_version() == staged.kept)
		ho_bad_keep(w, staged.len, staged.records, staged.crc);
	else
		lu_write_bad(w, in);
}

static bool poison_freeze_done;

static void poison_freeze_one(uint64_t n, void *arg)
{
	(void)arg;
	domains_poison_pfn("poison-freeze", n,
			   " after the bad-page records were written aside");
}

/*
 * inject=mce-freeze:N: page frame N queued as a machine check queues it
 * (keel/bad_queue.h), after the flow's last drain: only the freeze's take
 * (lu_put_bad()) puts it in the handover.
 */
static void mce_freeze_one(uint64_t n, void *arg)
{
	(void)arg;
	if (bad_queue_push(n << PAGE_SHIFT, BAD_QUEUE_INJECTION, 0))
		pr_info("inject=mce-freeze:%llu: pfn %#llx queued after the "
			"last drain\n",
			(unsigned long long)n, (unsigned long long)n);
	else
		pr_warn("inject=mce-freeze:%llu: the bad queue is full, "
			"nothing injected\n",
			(unsigned long long)n);
}

void lu_poison_freeze(const struct keel_options *o)
{
	poison_freeze_done = true;
	ce_offline = o->ce_offline;
	inject_for_each(INJECT_POISON_FREEZE, poison_freeze_one, NULL);
	inject_for_each(INJECT_MCE_FREEZE, mce_freeze_one, NULL);
}

static void poison_freeze_warn(uint64_t n, void *arg)
{
	pr_warn("inject=%s:%llu: no live update came to its freeze in this "
		"image, nothing injected\n",
		(const char *)arg, (unsigned long long)n);
}

void lu_poison_freeze_unused(bool handed)
{
	if (!poison_freeze_done && !handed) {
		inject_for_each(INJECT_POISON_FREEZE, poison_freeze_warn,
				"poison-freeze");
		inject_for_each(INJECT_MCE_FREEZE, poison_freeze_warn,
				"mce-freeze");
	}
	poison_freeze_done = true;
}
