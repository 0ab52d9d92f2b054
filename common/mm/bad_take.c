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

/* One page the queue gives, @arg the take. */
static void take_one(uint64_t n, enum bad_queue_source src, uint64_t info,
		     void *arg)
{
	struct take *t = arg;
	unsigned int reason;
	int err;

	if (n == BAD_QUEUE_NO_PFN) {
		count_kind(t, src, info);
		return;
	}
	if (src == BAD_QUEUE_MCE_CORRECTED) {
		ce_count_note(pfn(n), info, t->ce_offline);
		return;
	}
	reason = HEAP_BAD_BROKEN |
		 (src == BAD_QUEUE_MCE ? HEAP_BAD_FROM_MCE
				       : HEAP_BAD_FROM_INJECTION);
	err = heap_offline(pfn(n), (enum heap_bad_reason)reason);
	pr_warn("%s: memory error in page %#llx (status %#llx): %s (%d)\n",
		take_who(src), (unsigned long long)n, (unsigned long long)info,
		!err		 ? "taken out of service"
		: err == -EEXIST ? "already out of service"
				 : "not the heap's to take out: kept as it is",
		err);
}

/** bad_queue_take() - see keel/bad_queue.h. */
unsigned int bad_queue_take(uint32_t ce_offline)
{
	static uint64_t said;
	struct take t = {.ce_offline = ce_offline};
	unsigned int n = 0, got;
	uint64_t lost;

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
