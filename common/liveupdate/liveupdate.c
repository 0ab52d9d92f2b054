/* SPDX-License-Identifier: MIT */
/*
 * Live update (include/keel/liveupdate.h, DESIGN §13): one update from
 * this image to the next, and what this image learnt from the last one.
 *
 * An update, on the boot CPU, after the domains are built:
 *   1. size the handover (a counting pass of the writer, every live vCPU
 *      counted: the most the freeze can record), take it and the
 *      arch's scratch memory from the heap (below the arch's limit), and
 *      let the arch check the new image and write its stub
 *      (arch_lu_prepare()): everything that may fail, before any CPU
 *      stops; a failure leaves this image running, the boot failing;
 *   2. the first image writes the pattern into every domain (lu_fill.c);
 *   3. freeze (the downtime starts), every step by one deadline,
 *      lu_freeze_ms= after the stamp (1 s by default; every image of
 *      the update reads the same command line, so every generation
 *      holds the same bound, and the report shows it as
 *      liveupdate.freeze_bound_ms): the guests' running vCPUs stopped in
 *      their loops (struct lu_vcpus, guests=on), then every other CPU
 *      frozen: it answers and waits, interrupts off (lu_cpu_stop());
 *   4. write the handover: the domains (built ones walked through their
 *      p2m, or the records this image was handed, copied), the stopped
 *      vCPUs' records (version 2), the preserved
 *      ranges derived from them, the header with the stamps, the checksum;
 *      then the frozen CPUs stop as the next image needs them
 *      (arch_lu_cpu_stop()); inject=handover-* corrupts it now
 *      (lu_inject.c). A vCPU or CPU that does not answer in time, or a
 *      handover that does not fit, fails the update by name before any
 *      CPU stops for good: the frozen CPUs go back, the guests run on,
 *      the memory taken in step 1 goes back to the heap;
 *   5. arch_lu_jump(): relocate and enter the new image.
 *
 * The new image's side is in keel_main()'s order: liveupdate_boot(),
 * liveupdate_heap_ready(), the flow's domains_restore() (the domain
 * room, common/domain/domain_restore.c), liveupdate_restored() (the
 * downtime ends: the old freeze stamp and our clock are one counter, TSC
 * / CNTVCT / CLOCK_MONOTONIC_RAW, which run on across the jump), and after
 * the boot scrub liveupdate_verify() (lu_verify.c, on the domains' nodes'
 * CPUs).
 *
 * State: `lu`, written by the boot CPU only, read by the report.
 */
#include <arch/cpu.h>
#include <arch/irq.h>
#include <arch/liveupdate.h>
#include <arch/mm.h>
#include <keel/atomic.h>
#include <keel/badmem.h>
#include <keel/bootinfo.h>
#include <keel/bootmem.h>
#include <keel/compiler.h>
#include <keel/cpumask.h>
#include <keel/domain.h>
#include <keel/errno.h>
#include <keel/heap.h>
#include <keel/heap_boot.h>
#include <keel/heap_check.h>
#include <keel/inject.h>
#include <keel/liveupdate.h>
#include <keel/options.h>
#include <keel/p2m.h>
#include <keel/p2m_format.h>
#include <keel/printk.h>
#include <keel/smp.h>
#include <keel/string.h>
#include <keel/ticks.h>

#include "lu_priv.h"

/* The CPUs' stop after LU_GO, a safety net (stop_cpus()). */
#define LU_STOP_MS 10000
/* A frozen CPU's longest halt between two looks at lu_go (a lost wake-up). */
#define LU_POLL_US 200
/* inject=cpu-freeze-late:N: how late CPU N answers the freeze, once. */
#define LU_FREEZE_LATE_MS 300

static struct liveupdate_info lu;
static const struct bi_handover *lu_in; /* a taken handover, or NULL */
static char lu_why[BI_HANDOVER_WHY_MAX];
static uint32_t lu_acks;       /* CPUs frozen in lu_cpu_stop() */
static cpumask_t lu_answered;  /* and which: the one not is named */
static uint32_t lu_froze_late; /* inject=cpu-freeze-late acted */
static uint32_t lu_go;	       /* LU_WAIT, LU_GO, LU_ABORT */
static uint32_t lu_stops;      /* CPUs that went on to arch_lu_cpu_stop() */
static uint64_t lu_heap_ticks; /* the heap opened (arch_ticks()) */

const struct liveupdate_info *liveupdate_info(void)
{
	return &lu;
}

const char *liveupdate_fail_reason(void)
{
	return lu.fail;
}

bool liveupdate_refused(void)
{
	return lu.state == HANDOVER_REFUSED;
}

bool liveupdate_has_domains(void)
{
	return lu_in != NULL;
}

static __printf(1, 2) void lu_failed(const char *fmt, ...)
{
	va_list ap;
	size_t n = (size_t)snprintf(lu_why, sizeof(lu_why), "liveupdate: ");

	va_start(ap, fmt);
	vsnprintf(lu_why + n, sizeof(lu_why) - n, fmt, ap);
	va_end(ap);
	pr_warn("%s\n", lu_why);
	lu.fail = lu_why;
}

/* inject=restore-fail:ID in an image with no domain to restore: said. */
static void warn_no_restore(uint64_t id, void *arg)
{
	(void)arg;
	pr_warn("inject=restore-fail:%llu: no handover taken, no domain to "
		"restore in this image, nothing injected\n",
		(unsigned long long)id);
}

void liveupdate_boot(const struct bootinfo *bi, const struct keel_options *o)
{
	const struct bi_handover *h = &bi->handover;
	uint32_t asked = o->liveupdate;

	memset(&lu, 0, sizeof(lu));
	lu_in = NULL;
	lu.asked = asked;
	/*
	 * A CPU answers within microseconds of its mailbox post (QEMU TCG:
	 * well under 1 ms); the default second is 1000 times that, and a
	 * busy host's late threads get more (lu_freeze_ms=, checked by the
	 * command line). 0: options not parsed (a test), the default.
	 */
	lu.freeze_bound_ms =
		o->lu_freeze_ms ? o->lu_freeze_ms : LU_FREEZE_MS_DEFAULT;
	lu.state = h->state;
	lu.build = arch_lu_build_id();
	if (h->state == HANDOVER_REFUSED)
		lu.fail = h->why;
	if (h->state == HANDOVER_TAKEN) {
		lu_in = h;
		lu.taken = h;
		lu.generation = h->hdr.generation;
		lu.from_build = h->hdr.build;
		lu.handover_bytes = h->hdr.size;
		lu.preserved_ranges = h->preserved_count;
		lu.preserved_bytes = h->preserved_bytes;
		lu.domains = h->domain_count;
		lu.extents = h->extent_count;
	}
	if (!asked)
		lu_inject_unused();
	if (h->state != HANDOVER_TAKEN)
		inject_for_each(INJECT_RESTORE_FAIL, warn_no_restore, NULL);
}

/*
 * The lines the new image held through the downtime (console_hold(): the
 * arch and boot/handover.c start it when they find a handover) written
 * out once the downtime is over and the guests run again (keel/liveupdate.h),
 * with how long a 115200-baud UART (10 bits a byte) would have taken for
 * them inside it.
 */
void liveupdate_console_release(void)
{
	size_t held = console_release();

	if (held)
		pr_info("liveupdate: the console held %zu bytes through the "
			"downtime (%zu ms at 115200 baud)\n",
			held, held * 10 * 1000 / 115200);
}

void liveupdate_heap_ready(uint64_t ticks)
{
	if (lu_in)
		lu_heap_ticks = ticks;
	else
		liveupdate_console_release(); /* no domain to restore */
}

void liveupdate_restored(uint64_t ticks, unsigned int restored,
			 unsigned int failed)
{
	const struct handover_header *hd;

	if (!lu_in)
		return;
	lu.domains_restored = restored;
	lu.domains_failed = failed;
	/* An update that does not bring every domain across failed. */
	if (failed || restored != lu_in->domain_count)
		lu_failed("%u of %u domains of the handover not restored "
			  "(each named in a domains: line)",
			  lu_in->domain_count - restored, lu_in->domain_count);
	hd = &lu_in->hdr;
	if (hd->freeze_ticks > hd->frozen_ticks ||
	    hd->frozen_ticks > hd->written_ticks ||
	    hd->written_ticks > arch_entry_ticks ||
	    arch_entry_ticks > lu_heap_ticks || lu_heap_ticks > ticks) {
		pr_warn("liveupdate: the clock does not run on across the "
			"jump (freeze %llu, entry %llu ticks): no downtime\n",
			(unsigned long long)hd->freeze_ticks,
			(unsigned long long)arch_entry_ticks);
		return;
	}
	lu.freeze_ns = ticks_to_ns(hd->frozen_ticks - hd->freeze_ticks);
	lu.handover_write_ns =
		ticks_to_ns(hd->written_ticks - hd->frozen_ticks);
	lu.relocate_ns = ticks_to_ns(arch_entry_ticks - hd->written_ticks);
	lu.entry_to_heap_ns = ticks_to_ns(lu_heap_ticks - arch_entry_ticks);
	lu.restore_ns = ticks_to_ns(ticks - lu_heap_ticks);
	lu.downtime_ns = ticks_to_ns(ticks - hd->freeze_ticks);
	lu.timed = true;
}

/*
 * What domain_fill= and domain_fill_sample= ask (lu_fill.c), and the
 * pages the handover taken names bad (skipped, as the heap's offline ones).
 */
static struct lu_sample lu_sample_of(const struct keel_options *o)
{
	return (struct lu_sample){.every_extent = o->domain_fill,
				  .window = o->domain_fill_sample,
				  .handed = lu_in};
}

void liveupdate_verify(const struct bootinfo *bi, const struct keel_options *o)
{
	struct lu_sample smp = lu_sample_of(o);
	uint64_t t0 = arch_ticks();
	unsigned int cpus;

	(void)bi;
	if (!lu_in || !lu_in->domain_count) {
		arch_lu_verified();
		return;
	}
	cpus = lu_verify_domains(lu_in, &smp, &lu.verified_words,
				 &lu.mismatches);
	lu.verify_ns = ticks_to_ns(arch_ticks() - t0);
	arch_lu_verified();
	pr_info("liveupdate: %llu words of %u domains read back by %u CPUs "
		"in %llu us, %llu mismatches\n",
		(unsigned long long)lu.verified_words, lu_in->domain_count,
		cpus, (unsigned long long)(lu.verify_ns / 1000),
		(unsigned long long)lu.mismatches);
	if (lu.mismatches)
		lu_failed("%llu of %llu words of the preserved domains differ",
			  (unsigned long long)lu.mismatches,
			  (unsigned long long)lu.verified_words);
}

/* One domain's extents to lu_extent_pages(), the last one known last. */
struct fill_acc {
	const struct lu_sample *s;
	uint16_t id;
	bool held, first;
	uint64_t gpa, pa, pages; /* the extent held back */
	uint64_t filled;	 /* pages written */
};

static void fill_flush(struct fill_acc *a, bool last)
{
	if (!a->held)
		return;
	lu_extent_pages(a->s, a->id, a->gpa, a->pa, a->pages, a->first, last,
			lu_fill_cb, &a->filled);
	a->held = a->first = false;
}

static void fill_extent_cb(uint64_t gpa, paddr_t p, uint64_t pages, void *arg)
{
	struct fill_acc *a = arg;

	fill_flush(a, false);
	a->held = true;
	a->gpa = gpa;
	a->pa = pa_val(p);
	a->pages = pages;
}

/*
 * Domains whose guests run (a live vCPU at the update, by domain id): their
 * pattern is written only once their vCPUs are stopped, in the freeze. A
 * running guest walks its memory: a pattern written under it would be a
 * write into the guest's data while it reads it, and, when the update then
 * fails and the guests run on, bad words in its next walk.
 */
static uint64_t guest_ids[(UINT16_MAX + 1) / 64];

static bool has_guest(uint16_t id)
{
	return guest_ids[id / 64] & (1ULL << (id % 64));
}

/* Mark the domains with a live vCPU. Return: how many vCPUs. */
static unsigned int mark_guest_domains(const struct lu_vcpus *vc)
{
	struct handover_vcpu rec;
	const void *state;
	unsigned int i;

	memset(guest_ids, 0, sizeof(guest_ids));
	for (i = 0; vc && vc->get(vc->arg, i, &rec, &state); i++)
		guest_ids[rec.domain / 64] |= 1ULL << (rec.domain % 64);
	return i;
}

/*
 * The first image marks every domain it hands over (lu_fill.c): those
 * without a running guest before the freeze (@guests false), those with
 * one in it (@guests true). Return: the pages written.
 */
static uint64_t fill_domains(const struct domain_set *ds,
			     const struct lu_sample *smp, bool guests)
{
	struct fill_acc a = {.s = smp};
	struct domain_view v;

	for (unsigned int i = 0; !lu_in && i < domain_set_stats(ds)->count;
	     i++) {
		if (!domain_view(ds, i, &v) || !v.p2m ||
		    has_guest(v.id) != guests)
			continue;
		a.id = v.id;
		a.first = true;
		domain_view_extents(&v, fill_extent_cb, &a);
		fill_flush(&a, true);
	}
	return a.filled;
}

/* ---- the update --------------------------------------------------------- */

/* lu_go: what the frozen CPUs do next. */
enum { LU_WAIT, LU_GO, LU_ABORT };

/* Did this image freeze its CPUs (post lu_cpu_stop()), tell them LU_GO? */
static bool lu_freeze_told, lu_stop_told;

/* inject=cpu-stop-late/cpu-freeze-late:N: CPU N halts @ms (lu_cpu_stop()). */
static void lu_halt_ms(uint32_t ms)
{
	uint64_t until = arch_ticks() + arch_ticks_hz() / 1000 * ms;

	while (arch_ticks() < until)
		arch_cpu_idle_wait(LU_POLL_US);
}

/*
 * On each other CPU: frozen (interrupts off, counted in lu_acks) until the
 * boot CPU says; LU_GO: stop as the next image needs it; LU_ABORT: back
 * to its mailbox (a CPU that comes late finds LU_ABORT and returns).
 */
static void lu_cpu_stop(void *arg)
{
	unsigned int me = arch_cpu_id();
	irqflags_t f;
	uint32_t go;

	(void)arg;
	if (inject_has(INJECT_CPU_FREEZE_LATE, me) &&
	    !atomic_fetch_add(&lu_froze_late, 1)) {
		pr_info("liveupdate: inject=cpu-freeze-late:%u: CPU %u answers "
			"the freeze %u ms late\n",
			me, me, LU_FREEZE_LATE_MS);
		lu_halt_ms(LU_FREEZE_LATE_MS);
	}
	f = arch_irq_save();
	atomic_fetch_or(&lu_answered.bits[me / 64], 1ULL << (me % 64));
	atomic_fetch_add(&lu_acks, 1);
	/*
	 * Halted between looks (the boot CPU's wake-up, or LU_POLL_US), not
	 * spinning: under QEMU TCG 239 spinning vCPU threads would starve the
	 * boot CPU's, which must write the handover meanwhile.
	 */
	while ((go = atomic_load_acquire(&lu_go)) == LU_WAIT)
		arch_cpu_idle_wait(LU_POLL_US);
	if (go == LU_GO) {
		if (inject_has(INJECT_CPU_STOP_LATE, me))
			lu_halt_ms(LU_STOP_MS + 1000);
		atomic_fetch_add(&lu_stops, 1);
		arch_lu_cpu_stop();
	}
	arch_irq_restore(f);
}

/* Tell the frozen CPUs @go (LU_GO, LU_ABORT) and wake them. */
static void lu_tell(const cpumask_t *others, uint32_t go)
{
	unsigned int cpu;

	atomic_store_release(&lu_go, go);
	for_each_cpu_in (cpu, others)
		arch_cpu_wake(cpu, cpu_table[cpu].hwid);
}

/*
 * Freeze every online CPU but this one by @deadline: each idle, then
 * waiting with interrupts off in lu_cpu_stop(). Return: 0; or
 * -ETIMEDOUT, the update failing with the first CPU that did not answer
 * by @deadline named, those that did back at their mailbox (one that
 * answers later finds LU_ABORT and goes back too).
 */
static int freeze_cpus(uint64_t deadline, cpumask_t *others)
{
	unsigned int me = arch_cpu_id(), n, busy, i;
	uint32_t ms = lu.freeze_bound_ms;
	cpumask_t ans;

	smp_online_mask(others);
	cpumask_clear_cpu(others, me);
	n = cpumask_weight(others);
	if (!smp_wait_until(others, deadline, &busy)) {
		lu_failed("freeze: CPU %u did not finish its work in %u ms",
			  busy, ms);
		return -ETIMEDOUT;
	}
	atomic_store_release(&lu_acks, 0);
	atomic_store_release(&lu_stops, 0);
	atomic_store_release(&lu_go, LU_WAIT);
	cpumask_clear(&lu_answered);
	inject_for_each(INJECT_CPU_FREEZE_LATE, lu_warn_late_unused,
			&(struct lu_late){"freeze", others});
	lu_freeze_told = true;
	smp_post(others, lu_cpu_stop, NULL);
	while (atomic_load_acquire(&lu_acks) < n && arch_ticks() < deadline)
		arch_cpu_relax();
	/* Who answered by the deadline: the first that did not is named. */
	for (i = 0; i < CPUMASK_WORDS; i++)
		ans.bits[i] = atomic_load_acquire(&lu_answered.bits[i]);
	for_each_cpu_in (busy, others)
		if (!cpumask_test(&ans, busy))
			break;
	if (busy >= NR_CPUS)
		return 0;
	lu_tell(others, LU_ABORT);
	/* Those that answered go back to their mailbox (a bound more). */
	smp_wait_until(others, arch_ticks() + arch_ticks_hz() / 1000 * ms,
		       NULL);
	lu_failed("freeze: %u of %u CPUs answered in %u ms (CPU %u not)",
		  cpumask_weight(&ans), n, ms, busy);
	return -ETIMEDOUT;
}

/*
 * The frozen CPUs stop for the next image (arch_lu_cpu_stop()). Past
 * LU_GO no CPU can come back, so this step has a bound of its own, a
 * safety net (LU_STOP_MS) rather than the freeze's promise: the sandbox's
 * CPUs are host threads that exit, hundreds of them on a busy host's few
 * cores (liveupdate-384cpu-6t: 336 of 383 in the freeze's last 700 ms).
 * Return: 0, or -ETIMEDOUT naming the first CPU that did not stop: the
 * update fails, and every CPU told to stop leaves the online set (it
 * stops, or has), so that nothing after waits on one; the boot goes on
 * on this CPU alone, to its report.
 */
static int stop_cpus(const cpumask_t *others)
{
	uint64_t deadline = arch_ticks() + arch_ticks_hz() / 1000 * LU_STOP_MS;
	unsigned int n = cpumask_weight(others), cpu, stuck = NR_CPUS;

	inject_for_each(INJECT_CPU_STOP_LATE, lu_warn_late_unused,
			&(struct lu_late){"stop", others});
	lu_stop_told = true;
	lu_tell(others, LU_GO);
	while (arch_ticks() <= deadline) {
		stuck = NR_CPUS;
		for_each_cpu_in (cpu, others)
			if (!arch_lu_cpu_stopped(cpu, cpu_table[cpu].hwid)) {
				stuck = cpu;
				break;
			}
		if (stuck == NR_CPUS && atomic_load_acquire(&lu_stops) == n)
			return 0;
		arch_cpu_relax();
	}
	for_each_cpu_in (cpu, others)
		smp_cpu_lost(cpu, "stopped for a live update that failed");
	lu_failed("freeze: %u of %u CPUs stopped in %u ms (CPU %u not): "
		  "this image goes on on CPU %u alone",
		  atomic_load_acquire(&lu_stops), n, LU_STOP_MS, stuck,
		  arch_cpu_id());
	return -ETIMEDOUT;
}

/*
 * An update that failed before any CPU was told to stop for good gives
 * the handover (@ho: a block or every piece) and the stub's memory back
 * (issue 36 §0: they were kept, allocated, for the rest of the boot);
 * past LU_GO a CPU that did not stop may still run in them, so they stay.
 */
static void lu_give_back(const struct arch_lu_jump *j, const struct lu_ho *ho)
{
	struct arch_lu_needs needs = {0, 0};

	lu_unstage_bad(); /* the records staged in the handover: forgotten */
	arch_lu_needs(&needs);
	if (lu_stop_told)
		return;
	lu_ho_free(ho);
	if (needs.scratch_bytes && pa_val(j->scratch) != pa_val(INVALID_PADDR))
		heap_free(pfn_to_page(paddr_to_pfn(j->scratch)),
			  lu_order(needs.scratch_bytes), HEAP_FREE_DIRTY);
}

/* The handover's size, its memory and the arch's, the arch's checks. */
/*
 * The handover's memory taken (@ho), the stub's (@j->scratch, @scratch
 * bytes): kept from the next image's room, and made ready for the freeze.
 */
static void ho_ready(const struct domain_set *ds, const struct lu_ho *ho,
		     const struct arch_lu_jump *j, uint64_t scratch)
{
	struct handover_view v;

	if (ho->count) {
		/*
		 * Pieces (zeroed by lu_alloc_pieces()): every one kept from
		 * the next image; no records staged (lu_stage_bad() writes
		 * one block), the freeze writes them all.
		 */
		v = lu_ho_view(ho);
		lu_room_begin(ds, ho->head, 1ULL << ho->shift, j->scratch,
			      scratch);
		lu_room_pieces(&v);
		return;
	}
	/*
	 * Its pages written once now, not first in the freeze (a sandbox
	 * arena page's first write is a host page fault: 1.6 MB with
	 * 100,000 bad pages, about 1 ms of the downtime).
	 */
	memset(phys_to_virt(ho->head), 0, ho->cap);
	/* The bad pages' records now, in place, out of the downtime. */
	lu_stage_bad(phys_to_virt(ho->head), ho->cap, lu_in);
	lu_room_begin(ds, ho->head, ho->cap, j->scratch, scratch);
}

static int lu_prepare(const struct bootinfo *bi, const struct domain_set *ds,
		      const struct lu_vcpus *vc, struct arch_lu_jump *j,
		      struct lu_ho *ho)
{
	struct arch_lu_needs needs = {0, 0};
	struct handover_header hd = {0};
	struct ho_writer w;
	uint64_t bad_from, bad_max;
	char why[256];

	ho_writer_init(&w, NULL, 0);
	bad_from = w.off;
	lu_write_bad(&w, lu_in);
	/* At most a range in 8 bytes (packed). */
	bad_max = (w.off - bad_from) / 8;
	lu_write_domains(&w, ds, lu_in);
	lu_write_vcpus(&w, vc);
	lu_write_ft_place(&w);
	ho_preserved(&w);
	arch_lu_needs(&needs);
	j->scratch = INVALID_PADDR;
	if (lu_tables_fit(bi, w.ranges_max, bad_max, w.off, why, sizeof(why))) {
		lu_failed("%s", why);
		return -E2BIG;
	}
	if (lu_ho_take(ho_finish(&w, &hd) + LU_BAD_SLACK_BYTES, &w,
		       needs.max_bits, ho, why, sizeof(why))) {
		lu_failed("%s", why);
		return -ENOMEM;
	}
	j->handover = ho->head;
	j->handover_bytes = lu_ho_passed(ho, ho->cap);
	j->scratch = needs.scratch_bytes
			     ? lu_alloc(needs.scratch_bytes, needs.max_bits)
			     : pa(0);
	j->image = bi->handover.image;
	if (pa_val(j->scratch) == pa_val(INVALID_PADDR)) {
		lu_give_back(j, ho);
		lu_failed(
			"no memory below 2^%u for the stub (%llu bytes), "
			"one block: the largest free is %llu KiB",
			needs.max_bits ? needs.max_bits : 64,
			(unsigned long long)needs.scratch_bytes,
			(unsigned long long)(lu_largest(needs.max_bits) >> 10));
		return -ENOMEM;
	}
	ho_ready(ds, ho, j, needs.scratch_bytes);
	if (arch_lu_prepare(j, why, sizeof(why))) {
		lu_failed("%s", why);
		lu_give_back(j, ho);
		return -EINVAL;
	}
	return 0;
}

/* Write the handover; the stamps so far in @hd. Return: its size, or 0. */
static uint64_t lu_write(const struct domain_set *ds, const struct lu_vcpus *vc,
			 const struct lu_ho *ho, struct handover_header *hd)
{
	struct handover_view v = lu_ho_view(ho);
	struct ho_writer w;
	uint64_t size;

	if (ho->count)
		ho_writer_pieces(&w, phys_to_virt(ho->head), v.delta, ho->shift,
				 ho->count, lu_pieces_table(ho->head));
	else
		ho_writer_init(&w, phys_to_virt(ho->head), ho->cap);
	lu_put_bad(&w, lu_in);
	lu_write_domains(&w, ds, lu_in);
	lu_write_vcpus(&w, vc);
	lu_write_ft_place(&w);
	ho_preserved(&w);
	hd->written_ticks = arch_ticks();
	size = ho_finish(&w, hd);
	if (!size)
		lu_failed("the handover did not fit its %llu bytes",
			  (unsigned long long)ho->cap);
	return size;
}

/*
 * The freeze (the downtime starts): the guests' vCPUs stopped, every other
 * CPU frozen, the handover written, the CPUs stopped for the next image,
 * each step by one deadline, lu_freeze_ms= (lu.freeze_bound_ms) after
 * the freeze stamp in @hd.
 * Return: 0, or -errno with the update failed (lu_failed()) and, when it
 * failed before any CPU stopped for good, the guests running on.
 */
static int lu_freeze(const struct domain_set *ds, const struct lu_vcpus *vc,
		     const struct lu_sample *smp, struct arch_lu_jump *j,
		     const struct lu_ho *ho, struct handover_header *hd)
{
	uint64_t deadline =
		hd->freeze_ticks + arch_ticks_hz() / 1000 * lu.freeze_bound_ms;
	cpumask_t others;
	uint64_t size;
	char why[96];

	if (vc && vc->stop(vc->arg, deadline, why, sizeof(why))) {
		lu_failed("freeze: %s: the update is not done, the guests "
			  "run on",
			  why);
		return -ETIMEDOUT;
	}
	if (freeze_cpus(deadline, &others))
		goto run_on;
	/* The heap exact (DESIGN §15): every per-CPU cache given back. */
	heap_drain_caches();
	/* The guests' domains, now that no vCPU runs: lu_fill.c. */
	fill_domains(ds, smp, true);
	hd->frozen_ticks = arch_ticks();
	size = lu_write(ds, vc, ho, hd);
	if (!size) {
		lu_tell(&others, LU_ABORT);
		goto run_on;
	}
	/* The whole size (one block), or piece 0's (pieces). */
	j->handover_bytes = lu_ho_passed(ho, size);
	return stop_cpus(&others);
run_on:
	if (vc)
		vc->run_on(vc->arg);
	return -ETIMEDOUT;
}

static void lu_run(const struct bootinfo *bi, const struct keel_options *o,
		   const struct domain_set *ds, const struct lu_vcpus *vc)
{
	struct lu_sample smp = lu_sample_of(o);
	struct handover_header hd = {0};
	struct arch_lu_jump j;
	struct lu_ho ho;
	uint64_t filled;
	unsigned int guests;
	char in[48] = "";

	if (lu.generation >= lu.asked)
		return;
	if (lu.state == HANDOVER_DISCARDED) {
		pr_warn("liveupdate=%u: no update after a discarded handover "
			"(handover=discard)\n",
			lu.asked);
		return;
	}
	if (lu_prepare(bi, ds, vc, &j, &ho))
		return;
	if (ho.count)
		snprintf(in, sizeof(in), ", in %u pieces of %llu KiB", ho.count,
			 (unsigned long long)(1ULL << ho.shift >> 10));
	pr_info("liveupdate: generation %llu -> %llu: %u domains to the "
		"image at [%#llx, %#llx), handover at %#llx (at most %llu "
		"bytes%s), freeze bound %u ms\n",
		(unsigned long long)lu.generation,
		(unsigned long long)lu.generation + 1,
		lu_in ? lu_in->domain_count : lu_built_domains(ds),
		(unsigned long long)pa_val(j.image.start),
		(unsigned long long)pa_val(j.image.end),
		(unsigned long long)pa_val(j.handover),
		(unsigned long long)ho.cap, in, lu.freeze_bound_ms);
	guests = mark_guest_domains(vc);
	filled = fill_domains(ds, &smp, false);
	if (filled || guests)
		pr_info("liveupdate: the pattern written into %llu pages%s%s\n",
			(unsigned long long)filled,
			smp.every_extent ? " (domain_fill=on)" : "",
			guests ? "; into the running guests' domains once "
				 "their vCPUs stop"
			       : "");
	hd.generation = lu.generation + 1;
	hd.build = lu.build;
	hd.from_build = lu.from_build;
	hd.ticks_hz = arch_ticks_hz();
	lu_poison_freeze(o); /* inject=poison-, mce-freeze: go bad now */
	hd.freeze_ticks = arch_ticks();
	if (lu_freeze(ds, vc, &smp, &j, &ho, &hd)) {
		lu_give_back(&j, &ho);
		return;
	}
	j.handover_bytes = lu_inject(phys_to_virt(j.handover), j.handover_bytes,
				     ho.count, bi);
	arch_lu_jump(&j);
}

void liveupdate_run(const struct bootinfo *bi, const struct keel_options *o,
		    const struct domain_set *ds, const struct lu_vcpus *vc)
{
	lu_run(bi, o, ds, vc);
	/* Here only when no update happened: did one reach the stop? */
	if (!lu_stop_told)
		inject_for_each(INJECT_CPU_STOP_LATE, lu_warn_late_unused,
				&(struct lu_late){"stop", NULL});
	if (!lu_freeze_told)
		inject_for_each(INJECT_CPU_FREEZE_LATE, lu_warn_late_unused,
				&(struct lu_late){"freeze", NULL});
	lu_poison_freeze_unused(lu_in != NULL);
}
