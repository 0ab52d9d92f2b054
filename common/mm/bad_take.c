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
 * One caller at a time (bad_queue_drain() lets one CPU drain; the two
 * callers are the boot CPU's).
 */
#include <keel/bad_queue.h>
#include <keel/ce_count.h>
#include <keel/errno.h>
#include <keel/heap.h>
#include <keel/printk.h>

/* One page the queue gives, @arg its ce_offline=. */
static void take_one(uint64_t n, enum bad_queue_source src, uint64_t info,
		     void *arg)
{
	const char *who = src == BAD_QUEUE_INJECTION ? "inject" : "mce";
	const char *what = src == BAD_QUEUE_MCE_CORRECTED ? "a corrected error"
							  : "an error";
	unsigned int reason;
	int err;

	if (n == BAD_QUEUE_NO_PFN) {
		pr_warn("%s: %s that names no memory page (status "
			"%#llx): nothing taken out of service\n",
			who, what, (unsigned long long)info);
		return;
	}
	if (src == BAD_QUEUE_MCE_CORRECTED) {
		ce_count_note(pfn(n), info, *(const uint32_t *)arg);
		return;
	}
	reason = HEAP_BAD_BROKEN |
		 (src == BAD_QUEUE_MCE ? HEAP_BAD_FROM_MCE
				       : HEAP_BAD_FROM_INJECTION);
	err = heap_offline(pfn(n), (enum heap_bad_reason)reason);
	pr_warn("%s: memory error in page %#llx (status %#llx): %s (%d)\n", who,
		(unsigned long long)n, (unsigned long long)info,
		!err		 ? "taken out of service"
		: err == -EEXIST ? "already out of service"
				 : "not the heap's to take out: kept as it is",
		err);
}

/** bad_queue_take() - see keel/bad_queue.h. */
unsigned int bad_queue_take(uint32_t ce_offline)
{
	static uint64_t said;
	unsigned int n = 0, got;
	uint64_t lost;

	while ((got = bad_queue_drain(take_one, &ce_offline)))
		n += got;
	lost = bad_queue_overflows();
	if (lost != said)
		pr_warn("mce: %llu failed pages were not queued (the queue "
			"holds %u between two drains)\n",
			(unsigned long long)(lost - said), BAD_QUEUE_SLOTS);
	said = lost;
	return n;
}
