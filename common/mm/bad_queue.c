// SPDX-License-Identifier: MIT
/*
 * The failed-page queue (keel/bad_queue.h): a ring of BAD_QUEUE_SLOTS
 * slots. A push claims the next sequence number, fills
 * the slot and publishes it with a release store of its sequence number + 1
 * (0: empty), so a drain never reads half a slot. One drainer at a time (an
 * exchange on `draining`); pushes may run meanwhile, on any CPU, from an
 * exception taken inside the drain itself.
 *
 * A push claims a number only while fewer than BAD_QUEUE_SLOTS are
 * undrained (compare-and-swap on `pushed`), so it never writes over a slot
 * not yet drained and every number claimed is filled; when full it is
 * refused and counted. An error that names no page claims one only while
 * fewer than half are undrained: the other half stays for pages, which a
 * broadcast machine check's other CPUs (each an error with no address,
 * under QEMU's `mce -b`: 383 on a 384-CPU machine) would crowd out.
 */
#include <keel/atomic.h>
#include <keel/bad_queue.h>

struct bad_slot {
	uint64_t seq1; /* the push's sequence number + 1; 0: empty */
	uint64_t pfn, info;
	enum bad_queue_source source;
};

static struct bad_slot slots[BAD_QUEUE_SLOTS];
static uint64_t pushed, drained, overflows;
static int draining;

bool bad_queue_push(uint64_t pa, enum bad_queue_source source, uint64_t info)
{
	uint64_t seq = atomic_load_acquire(&pushed);
	/* An error that names no page leaves half the slots to pages. */
	uint64_t room =
		pa == BAD_QUEUE_NO_ADDR ? BAD_QUEUE_SLOTS / 2 : BAD_QUEUE_SLOTS;
	struct bad_slot *s;

	for (;;) {
		uint64_t done = atomic_load_acquire(&drained);

		/* seq < done: a stale seq, which the exchange refreshes. */
		if (seq >= done && seq - done >= room) {
			atomic_fetch_add(&overflows, 1);
			return false;
		}
		if (atomic_cmpxchg(&pushed, &seq, seq + 1))
			break;
	}
	s = &slots[seq % BAD_QUEUE_SLOTS];
	s->pfn = pa >> PAGE_SHIFT;
	s->info = info;
	s->source = source;
	atomic_store_release(&s->seq1, seq + 1);
	return true;
}

unsigned int bad_queue_drain(bad_queue_fn *fn, void *arg)
{
	unsigned int n = 0;
	uint64_t seq;

	if (__atomic_exchange_n(&draining, 1, __ATOMIC_ACQUIRE))
		return 0;
	/* In order; a slot still being filled waits for the next drain. */
	for (seq = atomic_load_relaxed(&drained);; seq++) {
		struct bad_slot *s = &slots[seq % BAD_QUEUE_SLOTS];
		uint64_t pfn, info;
		enum bad_queue_source src;

		if (atomic_load_acquire(&s->seq1) != seq + 1)
			break;
		pfn = s->pfn;
		info = s->info;
		src = s->source;
		atomic_store_release(&s->seq1, 0);
		atomic_store_release(&drained, seq + 1);
		fn(pfn, src, info, arg);
		n++;
	}
	__atomic_store_n(&draining, 0, __ATOMIC_RELEASE);
	return n;
}

uint64_t bad_queue_overflows(void)
{
	return atomic_load_relaxed(&overflows);
}
