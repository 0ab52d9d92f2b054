/* SPDX-License-Identifier: MIT */
/*
 * The arch-neutral boot flow (DESIGN §1): everything after the arch filled
 * struct bootinfo and parsed the options (options_parse(), once), in order:
 *
 *   options applied -> numa -> bootmem (+ mem=) -> frametable -> SMP
 *   -> heap handoff (a live update's new image: its first step, the
 *   domains restored, the rest: docs/liveupdate.md) -> boot scrub -> (idle: wait all clean) -> (latency)
 *   -> (bench) -> (domains: build, check, guests=on rounds, destroy)
 *   -> audit -> report -> stop
 *
 * The options are data handed in by the arch (keel_main()'s @o): each
 * phase gets the values it needs as arguments; nothing keeps a copy.
 *
 * Owns boot_times (phase stamps in raw ticks, converted to ns
 * only by the report), the domain set and the boot's cache maintenance
 * policy with its counters (handed to the heap). Every phase is a trace_begin/trace_end pair.
 *
 * Runs on the boot CPU; the other CPUs only ever run work posted through
 * smp_run_on() from here. No lock.
 */
#include <arch/cache.h>
#include <arch/cpu.h>
#include <arch/mm.h>
#include <arch/ras.h>
#include <arch/scrub.h>
#include <arch/smp.h>
#include <keel/bench.h>
#include <keel/heap_boot.h>
#include <keel/p2m_selftest.h>
#include <keel/churn.h>
#include <keel/stress.h>
#include <keel/boot.h>
#include <keel/bootinfo.h>
#include <keel/bad_lattice.h>
#include <keel/bootmem.h>
#include <keel/cachemaint.h>
#include <keel/domain.h>
#include <keel/errno.h>
#include <keel/escape.h>
#include <keel/frametable.h>
#include <keel/guest.h>
#include <keel/heap.h>
#include <keel/heap_check.h>
#include <keel/inject.h>
#include <keel/latency.h>
#include <keel/liveupdate.h>
#include <keel/numa.h>
#include <keel/options.h>
#include <keel/p2m.h>
#include <keel/printk.h>
#include <keel/audit.h>
#include <keel/report.h>
#include <keel/scrub.h>
#include <keel/smp.h>
#include <keel/string.h>
#include <keel/trace.h>

static struct boot_times boot_times;
/*
 * The boot's domains, from domains_setup() (or a live update's restore) to
 * the report: the flow owns them. Not in .bss: DOMAIN_MAX domains are
 * about 192 KiB, which would take arm64's image_size past the 2 MiB Xen's
 * ImageBuilder leaves keel (arch/arm64/keel.lds). claim_domain_set() asks
 * bootmem for a slot per domain asked, a reservation the audit counts
 * like any other, on a boot with domains to hold; NULL otherwise (and
 * when the machine phase never ran: a refused handover), read as no
 * domain (domain_set_stats()).
 */
static struct domain_set *domain_set;
static bool domain_set_short; /* domains asked, no room for the set */
/*
 * The boot's cache maintenance policy and its counters, given to the heap
 * when it opens (heap_set_cachemaint()): the report reads them there.
 */
static struct cachemaint_stats boot_maint_stats;
static struct cachemaint boot_maint;

/*
 * The firmware's view, before keel changes anything: a few lines plus one
 * per node at the default log level; one per RAM or reserved range at
 * loglevel=3 (docs/report-format.md: the human lines stay bounded).
 */
static void print_bootinfo(const struct bootinfo *bi)
{
	static char cmdline_esc[ESCAPE_SIZE(BOOTINFO_CMDLINE_MAX)];
	/* O(1): kept as the list was built, the carried ones in place. */
	uint64_t reserved = bootinfo_reserved_bytes(bi);
	unsigned int carried = bootinfo_carried(bi, NULL);

	pr_info("arch %s, boot protocol %s, loader \"%s\"\n", arch_name,
		boot_protocol_name(bi->protocol), bi->loader);
	pr_info("cmdline \"%s\"\n",
		escape_bytes(cmdline_esc, sizeof(cmdline_esc), bi->cmdline,
			     strnlen(bi->cmdline, sizeof(bi->cmdline))));
	pr_info("timer %s at %llu Hz (calibrated by %s)\n",
		bi->timer_source ? bi->timer_source : "unknown",
		(unsigned long long)arch_ticks_hz(),
		bi->timer_calibrated_by ? bi->timer_calibrated_by : "unknown");
	pr_info("RAM map: %u ranges, %llu MiB; %u reserved ranges, %llu KiB\n",
		bi->ram.count,
		(unsigned long long)(bootinfo_ram_bytes(bi) >> 20),
		bi->reserved.count + carried,
		(unsigned long long)(reserved >> 10));
	/* Per range: debug only (real firmware maps run to hundreds). */
	for (unsigned int i = 0; i < bi->ram.count; i++)
		pr_debug("  ram      [%#llx, %#llx) node %u\n",
			 (unsigned long long)pa_val(bi->ram.regions[i].start),
			 (unsigned long long)pa_val(bi->ram.regions[i].end),
			 bi->ram.regions[i].node);
	for (unsigned int i = 0; i < bi->reserved.count; i++)
		pr_debug(
			"  reserved [%#llx, %#llx) %.*s\n",
			(unsigned long long)pa_val(
				bi->reserved.regions[i].start),
			(unsigned long long)pa_val(bi->reserved.regions[i].end),
			(int)sizeof(bi->reserved.regions[i].name),
			bi->reserved.regions[i].name);
	if (carried) /* read in place: one line, not one a range */
		pr_debug("  reserved %u bad ranges a handover carried\n",
			 carried);
	for (unsigned int n = 0; n < bi->node_count; n++) {
		uint64_t bytes = bootinfo_node_ram_bytes(bi, n);
		unsigned int cpus = 0;

		for (unsigned int c = 0; c < bi->cpu_count; c++)
			if (bi->cpus[c].node == n && bi->cpus[c].usable)
				cpus++;
		pr_info("node %u: %llu MiB, %u CPUs\n", n,
			(unsigned long long)(bytes >> 20), cpus);
	}
	pr_info("%u CPUs described\n", bi->cpu_count);
}

/*
 * One line for the timer skews of every secondary: the largest, and on
 * which CPU (per-CPU lines are debug only; the JSON has every value).
 */
static void print_skew_summary(void)
{
	uint64_t worst = 0;
	unsigned int worst_cpu = 0, measured = 0;

	for (unsigned int c = 1; c < cpu_count && c < NR_CPUS; c++) {
		int64_t t = cpu_table[c].tsc_skew_ticks;
		uint64_t mag = t < 0 ? (uint64_t)0 - (uint64_t)t : (uint64_t)t;

		if (!cpu_table[c].online)
			continue;
		measured++;
		if (mag >= worst) {
			worst = mag;
			worst_cpu = c;
		}
	}
	if (measured)
		pr_info("smp: timer skew of %u CPUs at most %llu ns (cpu %u)\n",
			measured, (unsigned long long)ticks_to_ns(worst),
			worst_cpu);
}

/* The secondaries' timer skews measured (informative), and their summary. */
static void phase_skews(const struct keel_options *o)
{
	smp_measure_skews(o->ap_timeout_ms);
	print_skew_summary();
}

/* The cachemaint mode: the command line's, else what the platform needs. */
static enum cachemaint_mode pick_cachemaint(const struct keel_options *o)
{
	if (o->cachemaint_set)
		return o->cachemaint;
	return arch_dcache_coherent() ? CACHEMAINT_NONE : CACHEMAINT_DEFERRED;
}

/*
 * The free RAM the boot needs below a mem= cut at @max_bytes: the frame
 * table of what is kept, a stack per CPU, and MEM_LIMIT_SLACK for the heap
 * users that run after the handoff.
 */
#define MEM_LIMIT_SLACK (4ULL << 20)

static uint64_t mem_limit_need(const struct bootinfo *bi, uint64_t max_bytes)
{
	return (max_bytes >> PAGE_SHIFT) * sizeof(struct page_info) +
	       (uint64_t)bi->cpu_count * SMP_STACK_SIZE + MEM_LIMIT_SLACK;
}

/* bootmem from the firmware's RAM, cut at @mem_limit (mem=, 0: none). */
static void phase_bootmem(struct bootinfo *bi, uint64_t mem_limit)
{
	uint64_t need = mem_limit_need(bi, mem_limit);

	trace_begin("bootmem");
	bootmem_init();
	bootmem_init_from_bootinfo(bi);
	if (mem_limit && bootmem_limit(mem_limit, need))
		pr_warn("mem=%lluK leaves less than the %llu KiB of free RAM "
			"the boot needs (frame table, CPU stacks): mem= "
			"ignored\n",
			(unsigned long long)(mem_limit >> 10),
			(unsigned long long)(need >> 10));
	trace_end("bootmem");
}

static void phase_smp(struct bootinfo *bi, const struct keel_options *o)
{
	const struct arch_smp_params start = {
		.serial = o->smp_start == SMP_START_SERIAL,
		.init_delay_us = o->init_delay_us,
	};
	unsigned int online;
	int err;

	trace_begin("smp");
	smp_init(bi);
	/* Per-CPU state, sized by the CPUs described, while bootmem is open. */
	irq_counts_init();
	scrub_init_cpus();
	if (o->stress_seconds)
		stress_init_cpus();
	if (o->churn_seconds)
		churn_init_cpus();
	if (o->latency)
		latency_init_cpus();
	err = arch_smp_prepare(&start);
	if (err) {
		pr_warn("smp: arch_smp_prepare: %d, boot CPU only\n", err);
		online = smp_online_count();
	} else {
		online = smp_boot_cpus(o->ap_timeout_ms, o->smp_start);
	}
	trace_end("smp");
	pr_info("smp: %u of %u CPUs online\n", online, cpu_count);
	/* A live update's downtime does without it: after the restore. */
	if (!liveupdate_has_domains())
		phase_skews(o);
}

/*
 * A live update's new image hands the heap this much free RAM of each
 * node first, in its downtime: what the restore takes (its scratch, a few
 * pages per thousand extents) many times over, and what resumed guests
 * take on their domain's node; the rest joins once the domains are
 * restored (phase_heap_rest(), docs/liveupdate.md).
 */
#define HEAP_FIRST_BYTES (64ULL << 20)

static void say_handoff(unsigned int ranges)
{
	pr_info("heap: %u free ranges handed over in %llu us\n", ranges,
		(unsigned long long)(ticks_to_ns(boot_times.heap_init_end -
						 boot_times.heap_init_begin) /
				     1000));
}

/* The heap opened with @bytes of bootmem's free RAM (~0ULL: all of it). */
static unsigned int phase_heap(struct bootinfo *bi, unsigned int nodes,
			       const struct keel_options *o, uint64_t bytes)
{
	unsigned int ranges;

	trace_begin("heap_init");
	/* Before heap_init(): it sizes the CPU caches by the CPUs known. */
	for (unsigned int c = 0; c < cpu_count; c++)
		heap_set_cpu_node(c, cpu_table[c].node);
	heap_init(o->heap_init, nodes,
		  (const uint8_t(*)[MAX_NUMNODES])bi->distance);
	/* Hold times cost two clock reads per lock: only when benchmarked. */
	heap_set_lock_stats(o->bench);
	boot_maint = cachemaint_policy(pick_cachemaint(o), &boot_maint_stats);
	heap_set_cachemaint(&boot_maint);
	/* The library refuses misuse; keel's own debug build panics on it. */
	heap_strict = IS_ENABLED(CONFIG_DEBUG);
	/* Per-CPU caches from the start (DESIGN §15): cached is free. */
	heap_set_cpu_caches(true);
	boot_times.heap_init_begin = arch_ticks();
	ranges = heap_handoff_first(o->bootscrub != SCRUB_OFF, bytes);
	/* Before anything allocates: bootmem's lattices handed too. */
	bad_lattice_take(false);
	boot_times.heap_init_end = arch_ticks();
	trace_end("heap_init");
	if (bytes == ~0ULL)
		say_handoff(ranges);
	return ranges;
}

/*
 * A live update's second step, its domains restored and the downtime
 * over: the rest of the free RAM joins the heap. heap.init_ns is the
 * time of both steps (the restore between them is not the handoff's).
 */
static void phase_heap_rest(unsigned int ranges)
{
	uint64_t t0;

	trace_begin("heap_rest");
	t0 = arch_ticks();
	ranges += heap_handoff_rest();
	bad_lattice_take(true);
	boot_times.heap_init_end += arch_ticks() - t0;
	trace_end("heap_rest");
	say_handoff(ranges);
	/* Read beside bootmem's table in the downtime: into it now. */
	trace_begin("bootmem_join");
	bootmem_join_carried();
	trace_end("bootmem_join");
}

/*
 * inject=irq-unexpected:N: N interrupts keel never asked for, on the boot
 * CPU with its interrupts on: counted in irq.unexpected, never fatal, and
 * one that keeps coming cannot storm (docs/cmdline.md says what each
 * arch counts). N is 1 .. INJECT_STRAY_MAX (inject_parse() clamps).
 */
static void raise_stray(uint64_t n, void *ctx)
{
	(void)ctx;
	for (uint64_t i = 0; i < n; i++) {
		if (arch_irq_raise_stray()) {
			pr_warn("inject=irq-unexpected:%llu: this machine "
				"cannot raise one, nothing injected\n",
				(unsigned long long)n);
			return;
		}
	}
}

/*
 * inject=ioapic-unmask, before the scrub: a controller input whose source
 * keeps firing unmasked on the boot CPU with its interrupts on; the
 * stray handler must mask it, and the boot goes on.
 */
static void inject_line(void)
{
	int err;

	if (!inject_has(INJECT_IOAPIC_UNMASK, 0))
		return;
	err = arch_irq_inject_line();
	if (err == -EOPNOTSUPP)
		pr_warn("inject=ioapic-unmask: this machine has no I/O APIC "
			"input to unmask, nothing injected\n");
	else if (err)
		pr_warn("inject=ioapic-unmask: the unmasked input was not "
			"masked again in time (%d)\n",
			err);
}

/**
 * boot_verdict() - the one place a boot's verdict is decided.
 * @a: the audit of this boot.
 * @o: the options it ran with (stress=, bootscrub=)
 *
 * Return: why the boot failed (printed after "KEEL: FAIL"), or NULL for a
 * PASS. A CPU that did not come up is not a failure (it is reported).
 */
const char *boot_verdict(const struct audit_result *a,
			 const struct keel_options *o)
{
	/* The handover refused, the bytes not read back, the update failed. */
	if (liveupdate_fail_reason())
		return liveupdate_fail_reason();
	/* RAM but none of it free for the heap is no usable RAM either. */
	if (!a->ram_pages || !heap_stats_all(0).total_pages)
		return "no usable RAM";
	if (!a->ok && a->lost_pages)
		return "audit: lost pages";
	if (!a->ok)
		return "audit: heap check problems";
	if (domain_set_short)
		return "domains: no room for the domain set";
	if (o->stress_seconds && !stress_ok())
		return stress_fail_reason();
	if (o->churn_seconds && !churn_ok())
		return churn_fail_reason();
	if (o->bootscrub != SCRUB_OFF && heap_stats_all(0).dirty_pages)
		return "scrub incomplete: dirty pages remain";
	if (domain_set_stats(domain_set)->problems ||
	    latency_stats()->domain_problems)
		return "domains: check problems";
	return guests_fail_reason();
}

/**
 * boot_apply_options() - hand each subsystem the settings it keeps for the
 * whole boot: the armed faults, trace=, report=, scrub_primitive=.
 * keel_main() calls it first (and tests that parse a command line);
 * loglevel= was set by fwboot_finish(), before the sanitiser.
 * @o: the parsed options
 */
void boot_apply_options(const struct keel_options *o)
{
	inject_arm(o->inject, o->inject_count);
	trace_set_mode(o->trace);
	report_set_mode(o->report);
	scrub_set_primitive(o->scrub_primitive);
}

/*
 * The storage of domain_set (see there), while bootmem is open, when the
 * boot has domains to hold: what domains_setup() gathers (domain= words,
 * dom0less nodes), or a taken handover's (its restore fills the set even
 * when it carries none), sized to them (a slot each, at most DOMAIN_MAX:
 * a few KiB where the whole set is 192 KiB, which a machine whose bad
 * pages fall every 128 KiB has in no piece). Only its counters and
 * context are cleared here: domains_setup() and domains_restore() clear
 * the domains they fill (the restore is downtime). No room for it: an
 * error, no domain built, the boot failed (boot_verdict()); for a
 * restore, the panic bootmem_alloc() names it with.
 */
static void claim_domain_set(const struct bootinfo *bi,
			     const struct keel_options *o)
{
	bool restore = liveupdate_has_domains();
	unsigned int cap = restore ? bi->handover.domain_count
				   : o->domain_count + bi->domain_count;
	size_t bytes;
	paddr_t at;

	if (!cap && !restore)
		return;
	cap = MIN(MAX(cap, 1u), (unsigned int)DOMAIN_MAX);
	bytes = domain_set_bytes(cap);
	if (restore && bi->handover.domain_count)
		/* the restore cannot do without */
		at = bootmem_alloc(bytes, PAGE_SIZE, BOOTMEM_ANY_NODE,
				   "domain set");
	else
		at = bootmem_alloc_try(bytes, PAGE_SIZE, BOOTMEM_ANY_NODE,
				       "domain set");
	/* A handover with no domain restores none: on without a set. */
	if (pa_val(at) == pa_val(INVALID_PADDR) && restore)
		return;
	if (pa_val(at) == pa_val(INVALID_PADDR)) {
		pr_err("domains: no %zu bytes of bootmem for the domain set: "
		       "no domain is built\n",
		       bytes);
		domain_set_short = true;
		return;
	}
	domain_set = phys_to_virt(at);
	memset(domain_set, 0, __builtin_offsetof(struct domain_set, d));
	domain_set->cap = cap;
}

/* The firmware's description (sanitised by the arch's fwboot_finish()), shown. */
static void phase_firmware(struct bootinfo *bi)
{
	numa_init(bi);
	print_bootinfo(bi);
	if (!bi->ram.count)
		pr_err("the firmware describes no usable RAM\n");
}

/* The arch's scrub primitives set up, then the boot scrub of bootscrub=. */
static void phase_scrub(const struct keel_options *o)
{
	trace_begin("scrub");
	arch_scrub_init();
	scrub_boot(o->bootscrub, o->bootscrub_chunk, o->scrub_smt);
	trace_end("scrub");
}

/*
 * stress=N, churn=N and bench=on, on the open heap. Stress comes before the wait
 * for the idle scrub: it races the background scrub on purpose.
 */
static void phase_exercise(const struct keel_options *o)
{
	if (o->stress_seconds) {
		trace_begin("stress");
		stress_run(o->stress_seconds);
		trace_end("stress");
	}

	if (o->bootscrub == SCRUB_IDLE)
		scrub_wait_all_clean();

	/* Every other CPU idle now: the churn's free-page count is exact. */
	if (o->churn_seconds) {
		trace_begin("churn");
		churn_run(o);
		trace_end("churn");
	}

	if (o->latency) {
		trace_begin("latency");
		latency_run(o);
		trace_end("latency");
	}

	if (o->bench) {
		trace_begin("bench");
		bench_run();
		trace_end("bench");
	}
}

/*
 * domains_destroy=on, unless a live update follows from this image: it
 * hands the domains over (destroying them first would hand over none, and
 * the update would carry nothing). Said once, with a warning.
 */
static bool destroy_domains(const struct keel_options *o)
{
	const struct liveupdate_info *lu = liveupdate_info();

	if (!o->domains_destroy)
		return false;
	if (lu->generation >= o->liveupdate || lu->state == HANDOVER_DISCARDED)
		return true;
	pr_warn("domains_destroy=on ignored: liveupdate=%u hands this "
		"image's domains to the next one\n",
		o->liveupdate);
	return false;
}

/*
 * guests=on (DESIGN §14): a vCPU in every built domain, guest_rounds=
 * times; before each round after the first, the domains are destroyed
 * and built again on the memory the last guests wrote (the check the
 * boot scrub exists for: none of it may reach a new guest).
 */
static void phase_guests(const struct bootinfo *bi,
			 const struct keel_options *o)
{
	const struct liveupdate_info *lu = liveupdate_info();
	/*
	 * A live update follows: the last round is held for it (not when
	 * the domains are destroyed first: nothing would run them).
	 */
	bool update = lu->generation < o->liveupdate &&
		      lu->state != HANDOVER_DISCARDED;
	struct guest_params gp = {
		.touch = o->guest_touch,
		.run_ms = o->guest_run_ms,
		.freeze_ms = o->lu_freeze_ms,
		.rounds = o->guest_rounds,
	};

	if (!o->guests) {
		guests_inject_unused("guests=on not given");
		return;
	}
	for (gp.round = 1;; gp.round++) {
		gp.hold = update && gp.round >= gp.rounds && guests_can_hold();
		guests_run(domain_set, &gp);
		if (gp.round >= gp.rounds || guests_state()->unsupported ||
		    domain_set_stats(domain_set)->problems ||
		    guests_problem_count())
			break;
		domains_destroy_all(domain_set);
		domains_setup(domain_set, o, bi);
		domains_build(domain_set, NULL);
		domains_check(domain_set, o->audit == AUDIT_FULL);
	}
}

/* The guests' vCPUs a live update carries (common/guest/guest_carry.c). */
static const struct lu_vcpus lu_vcpus = {
	.stop = guests_stop,
	.run_on = guests_run_on,
	.get = guests_vcpu_record,
};

/*
 * A live update's new image, its domains restored: the guests the old
 * image stopped at its freeze resumed right away (before the boot scrub,
 * so that their blackout is the update's), run for guest_run_ms=; or,
 * when another update follows (liveupdate=N, this image not the last),
 * held for it (guests_continue() before it), so that every update
 * carries them.
 */
static void phase_guests_resume(const struct bootinfo *bi,
				const struct keel_options *o)
{
	const struct liveupdate_info *lu = liveupdate_info();
	struct guest_params gp = {
		.touch = o->guest_touch,
		.run_ms = o->guest_run_ms,
		.freeze_ms = o->lu_freeze_ms,
		.round = 1,
		.rounds = 1,
		.hold = lu->generation < o->liveupdate &&
			lu->state != HANDOVER_DISCARDED,
	};

	if (o->guests)
		guests_resume(domain_set, &gp, &bi->handover);
}

/*
 * Guests' memory (DESIGN §11): the domain= and dom0less domains built on
 * the open, scrubbed heap, checked, run (guests=on), and destroyed when
 * asked.
 */
static void phase_domains(const struct bootinfo *bi,
			  const struct keel_options *o)
{
	if (liveupdate_has_domains()) {
		/* Restored after the heap opened: checked, never rebuilt. */
		pr_info("domains: %u came with the handover; domain= and "
			"dom0less are not built again\n",
			liveupdate_info()->domains);
		if (domain_set)
			domains_check(domain_set, o->audit == AUDIT_FULL);
		domains_inject_poison(domain_set); /* says it injects none */
		return;
	}
	/* No set: no domain was asked (claim_domain_set()). */
	if (!domain_set || !domains_setup(domain_set, o, bi)) {
		if (o->guests)
			pr_warn("guests=on: there is no domain to run in\n");
		guests_inject_unused("there is no domain");
		domains_inject_poison(domain_set);
		return;
	}
	if (o->bench)
		domains_bench(domain_set);
	domains_build(domain_set, NULL);
	domains_check(domain_set, o->audit == AUDIT_FULL);
	domains_inject_poison(domain_set);
	phase_guests(bi, o);
	if (destroy_domains(o))
		domains_destroy_all(domain_set);
}

/*
 * The machine: frame table, CPUs, interrupts on, heap, scrub, the
 * exercises, the domains and a live update.
 */
static void phase_machine(struct bootinfo *bi, unsigned int nodes,
			  const struct keel_options *o)
{
	trace_begin("frametable");
	liveupdate_frametable_hint(bi); /* where the last image's lay */
	frametable_init(nodes);
	trace_end("frametable");

	phase_smp(bi, o);
	/*
	 * Interrupts on from here (<arch/irq.h>): the secondaries turned
	 * theirs on as they began serving their mailboxes.
	 */
	arch_irq_enable();
	inject_for_each(INJECT_IRQ_UNEXPECTED, raise_stray, NULL);
	inject_line();
	claim_domain_set(bi, o); /* before the heap takes bootmem's rest */
	if (liveupdate_has_domains()) {
		unsigned int failed, ok, ranges;

		/* The downtime: only what the restore needs, then the rest. */
		ranges = phase_heap(bi, nodes, o, HEAP_FIRST_BYTES);
		liveupdate_heap_ready(boot_times.heap_init_end);
		trace_begin("restore");
		failed = 0; /* no set: the handover carries no domain */
		ok = domain_set ? domains_restore(domain_set, bi, o, &failed)
				: 0;
		trace_end("restore");
		liveupdate_restored(arch_ticks(), ok, failed);
		phase_guests_resume(bi, o);
		/* Not between the restore and the guests: the held lines (a
		 * slow UART's milliseconds a line) and the skew probes. */
		liveupdate_console_release();
		phase_skews(o);
		phase_heap_rest(ranges);
		arch_ras_boot();
		boot_inject_failures();
	} else {
		phase_heap(bi, nodes, o, ~0ULL);
		arch_ras_boot();
		boot_inject_failures();
		liveupdate_heap_ready(boot_times.heap_init_end);
	}
	phase_scrub(o);
	liveupdate_verify(bi, o);
	if (o->p2m_selftest)
		p2m_selftest(-1);
	phase_exercise(o);
	boot_drain_failed_pages(o->ce_offline);
	phase_domains(bi, o);
	boot_drain_failed_pages(o->ce_offline);
	guests_continue(); /* resumed guests held for this update: run on */
	/* liveupdate=N: returns only when the update could not happen. */
	liveupdate_run(bi, o, domain_set, o->guests ? &lu_vcpus : NULL);
	guests_release(); /* the held guests, when it did not */
}

/**
 * keel_main() - the arch-neutral boot, from a filled bootinfo to the verdict.
 * @bi: what the firmware described, sanitised by the arch's fwboot_finish().
 * @o: the options, parsed once by the arch (options_parse()) from
 *	@bi->cmdline; read here and handed to each phase, never copied.
 *
 * Return: never; ends in arch_stop().
 */
void keel_main(struct bootinfo *bi, const struct keel_options *o)
{
	const char *fail = NULL;
	struct audit_result audit;
	unsigned int nodes;
	bool pass;

	/* When keel_main ran relative to the arch entry (arg0 = entry ticks). */
	trace_event("entry", TRACE_MARK, arch_entry_ticks, 0);

	boot_apply_options(o);
	liveupdate_boot(bi, o);
	phase_firmware(bi);
	nodes = bi->node_count;

	phase_bootmem(bi, o->mem_limit);

	/*
	 * A refused handover reserved all RAM: no CPU is started, nothing
	 * zeroed or handed out; the audit and the report say why.
	 */
	if (!liveupdate_refused())
		phase_machine(bi, nodes, o);

	boot_drain_failed_pages(o->ce_offline);
	trace_begin("audit");
	audit_run(&audit, o->audit == AUDIT_FULL);
	trace_end("audit");
	irq_census();

	fail = boot_verdict(&audit, o);

	/*
	 * A mark, not a begin/end pair: the end of the report could never
	 * appear in the report itself, and tools would see an open phase.
	 */
	trace_mark("report");
	boot_times.report = arch_ticks();
	pass = !fail;
	report_print(bi, &audit, fail, &boot_times, domain_set);

	arch_stop(o->after, pass);
}
