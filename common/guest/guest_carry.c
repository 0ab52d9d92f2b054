/* SPDX-License-Identifier: MIT */
/*
 * Guests across a live update (include/keel/guest.h, DESIGN §14, issue
 * 31 §4): the old image's last round is held, the new image resumes it.
 *
 *  - Hold (old image, guests=on with a live update to come): the round's
 *    vCPUs go to CPUs other than the boot CPU (guest.c), which are posted
 *    guest_cpu_main() without waiting; the boot CPU waits until each vCPU
 *    has walked and run on into its loop (a slice ended after its
 *    GUEST_HC_WALK: vcpu.looping), or ended, then returns to the flow
 *    with them still running, their loops GUEST_HOLD_MS long.
 *  - Stop (the freeze, after its stamp): guests_stop() sets the round's
 *    stop word; each CPU ends the turn it is in (at most GUEST_SLICE_US;
 *    a vCPU not yet in its loop gets turns until it is) and goes back to
 *    its mailbox, so the live update can stop it. Each vCPU's state is
 *    its struct arch_vcpu, its last exit stop_ticks. The wait is bounded
 *    by the freeze's deadline: a CPU that does not answer, or a vCPU that
 *    cannot be carried (ended, not in its loop, not resumed from the last
 *    handover), fails the update by name and the round runs on
 *    (run_on()); so does guests_run_on() after a later step of the freeze
 *    failed.
 *  - Records: guests_vcpu_record() gives the live-update room each held
 *    vCPU in its loop: domain, CPU, arch tag, stop stamp, what its walk
 *    reported, and its state (arch_vcpu_state()'s bytes).
 *  - Resume (new image, after the domains are restored, before the boot
 *    scrub): each record's vCPU gets a new stage 2 and image in its
 *    restored domain (guest_vcpu_prepare()), the state back
 *    (arch_vcpu_resume(): its loop to end guest_run_ms= from now), a CPU
 *    of its domain's node (the record's CPU index when it is online
 *    there), and the round runs and is judged as any other. Its largest
 *    gap is then the blackout it saw across the update. The handover's
 *    build must be this image's: a guest's pc lies in the program the
 *    old image wrote, which only the same build writes the same.
 *  - Resume held (an image between two updates, liveupdate=N >= 2): the
 *    records' vCPUs resumed as above, on CPUs other than the boot CPU,
 *    their loops GUEST_HOLD_MS long, and held for this image's own
 *    update, so that its freeze stops and records the same vCPUs and the
 *    last image judges them. They run until each has had a turn (its
 *    loop has read the counter across the update), then pause while the
 *    boot uses every CPU (the boot scrub, the read-back: nothing else may
 *    be posted to a CPU that runs vCPUs), and run on from
 *    guests_continue(), just before the update, until its freeze. The
 *    pause is a gap the guest sees, said in one line: its largest gap is
 *    the largest of the blackouts and that pause.
 *
 * Boot CPU, but for the held CPUs while they run (guest_run.c); the stop
 * word is an atomic.
 */
#include <arch/cpu.h>
#include <arch/guest.h>
#include <arch/liveupdate.h>
#include <keel/atomic.h>
#include <keel/compiler.h>
#include <keel/errno.h>
#include <keel/guest.h>
#include <keel/handover.h>
#include <keel/printk.h>
#include <keel/smp.h>
#include <keel/string.h>
#include <keel/ticks.h>
#include <keel/trace.h>

#include "guest_priv.h"

static struct guest_round hold_round;
static cpumask_t hold_cpus;
static bool holding, hold_open;
/* A held round paused by this image's boot (arch_ticks() at the pause). */
static uint64_t paused_at;

/**
 * guests_can_hold() - Return: true when this arch carries vCPUs and
 * there is a CPU besides the boot CPU to hold them on.
 */
bool guests_can_hold(void)
{
	const char *why = "this arch carries no vCPU";
	uint32_t bytes;

	if (arch_guest_supported())
		return false; /* the round says why no guest runs */
	if (arch_vcpu_state(&bytes, &why) == HANDOVER_VCPU_NONE) {
		guest_state_carry_why(why);
		pr_warn("guests: not resumed across the live update: %s\n",
			why);
		return false;
	}
	why = arch_guest_slice_timer();
	if (why) {
		/* A held vCPU's loop would never give its CPU back. */
		guest_state_carry_why(why);
		pr_warn("guests: not held for the live update: %s\n", why);
		return false;
	}
	if (smp_online_count() < 2) {
		/* Else their GUEST_HOLD_MS loops would run on the boot CPU. */
		guest_state_carry_why("no CPU but the boot CPU to run them");
		pr_warn("guests: no CPU but the boot CPU to hold them on: not "
			"carried across the live update\n");
		return false;
	}
	return true;
}

/*
 * Every live vCPU in its loop, or ended (@turn false); or, @turn, every
 * live one has had a turn since it was resumed.
 */
static bool all_live(bool turn)
{
	for (unsigned int i = 0; i < guest_state.count; i++) {
		const struct vcpu *v = &guest_state.vcpu[i];

		if (v->live && !(turn ? v->runs : v->looping))
			return false;
	}
	return true;
}

/**
 * guest_hold_start() - the held round's CPUs posted; wait for the loops.
 * @r: the round (copied: it outlives the caller)
 * @cpus: the CPUs with vCPUs (the boot CPU not among them)
 *
 * Return: true: held (running); false: the caller runs it as usual.
 */
bool guest_hold_start(struct guest_round *r, const cpumask_t *cpus)
{
	uint64_t deadline =
		arch_ticks() + guest_us_to_ticks(GUEST_HOLD_WAIT_MS * 1000ULL);
	unsigned int held;

	if (!cpumask_weight(cpus) || cpumask_test(cpus, arch_cpu_id())) {
		pr_warn("guests: no CPU but the boot CPU to hold them on: not "
			"carried across the live update\n");
		guest_state_carry_why("no CPU but the boot CPU to run them");
		return false;
	}
	hold_round = *r;
	hold_round.gp = NULL; /* the caller's, gone while they run */
	hold_cpus = *cpus;
	holding = hold_open = true;
	smp_post(&hold_cpus, guest_cpu_main, &hold_round);
	while (!all_live(false) && arch_ticks() < deadline)
		arch_cpu_relax();
	held = 0;
	for (unsigned int i = 0; i < guest_state.count; i++) {
		const struct vcpu *v = &guest_state.vcpu[i];

		held += v->live && v->looping;
		if (v->preempt_walk_pc)
			pr_info("guest %u: inject=guest-preempt-walk: a slice "
				"ended at pc %#llx, after its walk and before "
				"its loop\n",
				v->domain,
				(unsigned long long)v->preempt_walk_pc);
	}
	guest_state_set_held(held);
	return true;
}

/*
 * The stop withdrawn: is CPU @cpu of the held round back in its mailbox,
 * to be posted again? One that had begun its exit (guest_run.c) either
 * sees the stop withdrawn and runs on by itself (no longer exiting), or
 * gives back what it holds and goes back to its mailbox: waited for,
 * until @end (run_on()'s one deadline for all, GUEST_RUN_ON_WAIT_MS after
 * @t0), else named (its vCPUs stop running until guests_release()). The
 * exit state is read after the stop was withdrawn (a store-then-load
 * handshake with guest_run.c mine_to_run()).
 */
static bool back_idle(unsigned int cpu, uint64_t t0, uint64_t end)
{
	for (;;) {
		if (smp_cpu_idle(cpu))
			return true;
		if (!(guest_cpu_exit_state(cpu) & GUEST_CPU_EXITING))
			return false; /* it runs on, or never stopped */
		if (arch_ticks() >= end)
			break;
		arch_cpu_relax();
	}
	pr_warn("guests: CPU %u of the held round is still in its exit %llu ms "
		"after the stop was withdrawn: its vCPUs stop until the "
		"release\n",
		cpu,
		(unsigned long long)(ticks_to_ns(arch_ticks() - t0) / 1000000));
	return false;
}

/*
 * The held round runs on: the stop withdrawn, guest_cpu_main() posted
 * again to each of its CPUs back in its mailbox (one that is not goes on
 * by itself: back_idle()).
 */
static void run_on(void)
{
	cpumask_t idle;
	unsigned int cpu;
	uint64_t t0, end;

	cpumask_clear(&idle);
	atomic_store_seq_cst(&hold_round.stop, 0);
	t0 = arch_ticks();
	end = t0 + guest_us_to_ticks(GUEST_RUN_ON_WAIT_MS * 1000ULL);
	for_each_cpu_in (cpu, &hold_cpus)
		if (back_idle(cpu, t0, end))
			cpumask_set(&idle, cpu);
	smp_post(&idle, guest_cpu_main, &hold_round);
	holding = true;
}

/* The held vCPU that CPU @cpu runs (its first), or NULL. */
static const struct vcpu *vcpu_on(unsigned int cpu)
{
	for (unsigned int i = 0; i < guest_state.count; i++)
		if (guest_state.vcpu[i].made && guest_state.vcpu[i].live &&
		    guest_state.vcpu[i].cpu == cpu)
			return &guest_state.vcpu[i];
	return NULL;
}

/*
 * Stop the held round by @deadline. Return: 0, or -ETIMEDOUT with @why
 * naming the vCPU whose CPU did not answer (the stop stays asked).
 */
static int stop_round(uint64_t deadline, char *why, size_t n)
{
	uint64_t t0 = arch_ticks(), ms;
	const struct vcpu *v;
	unsigned int busy;

	if (!holding)
		return 0;
	atomic_store_release(&hold_round.stop, 1);
	if (smp_wait_until(&hold_cpus, deadline, &busy)) {
		holding = false;
		return 0;
	}
	ms = ticks_to_ns(arch_ticks() - t0) / 1000000;
	v = vcpu_on(busy);
	if (v)
		snprintf(why, n,
			 "guest %u's vCPU (CPU %u) did not stop in %llu ms",
			 v->domain, busy, (unsigned long long)ms);
	else
		snprintf(why, n,
			 "CPU %u of the held guests did not stop in %llu ms",
			 busy, (unsigned long long)ms);
	return -ETIMEDOUT;
}

/*
 * Every vCPU this image must carry can be: every record the handover gave
 * was resumed and, @held, each one made is live and in its loop. Return: 0,
 * or -EBUSY with @why naming the first that is not.
 */
static int carry_check(char *why, size_t n, bool held)
{
	for (unsigned int i = 0; i < guest_state.count; i++) {
		const struct vcpu *v = &guest_state.vcpu[i];

		if (v->resumed && !v->made) {
			snprintf(why, n,
				 "guest %u was not resumed from the handover "
				 "(%s)",
				 v->domain, v->why);
			return -EBUSY;
		}
		if (!v->made || !held)
			continue;
		if (!v->live) {
			snprintf(why, n,
				 "guest %u's vCPU ended (%s) while held",
				 v->domain, guest_end_name(v->end));
			return -EBUSY;
		}
		if (!v->looping) {
			snprintf(why, n, "guest %u's vCPU is not in its loop",
				 v->domain);
			return -EBUSY;
		}
	}
	return 0;
}

/**
 * guests_stop() - the freeze: every held vCPU stopped in its loop by
 * @deadline, each one carried (keel/guest.h).
 * @unused: struct lu_vcpus' argument
 * @deadline: arch_ticks() value
 * @why: out: why not, naming the vCPU
 * @n: its size
 *
 * Return: 0; or -ETIMEDOUT (a CPU did not answer) or -EBUSY (a vCPU that
 * cannot be carried), the held vCPUs running on.
 */
int guests_stop(void *unused, uint64_t deadline, char *why, size_t n)
{
	int err;

	(void)unused;
	err = stop_round(deadline, why, n);
	if (!err)
		err = carry_check(why, n, hold_open);
	if (err && hold_open)
		guests_run_on(NULL);
	return err;
}

/**
 * guests_run_on() - the held vCPUs stopped by a freeze that then failed
 * run on (keel/guest.h).
 */
void guests_run_on(void *unused)
{
	(void)unused;
	if (!hold_open)
		return;
	run_on();
	pr_info("guests: the live update failed: %u held vCPUs run on\n",
		guest_state.held);
}

/**
 * guests_continue() - a held round this image paused runs on until the
 * freeze (keel/guest.h). Boot CPU, nothing else posted from here on.
 */
void guests_continue(void)
{
	if (!hold_open || holding || !paused_at)
		return;
	pr_info("guests: %u vCPUs paused %llu us while this image's boot used "
		"every CPU, held again for the live update\n",
		guest_state.held,
		(unsigned long long)(ticks_to_ns(arch_ticks() - paused_at) /
				     1000));
	paused_at = 0;
	run_on();
}

/*
 * The resumed round @r held: each vCPU's loop has read the counter
 * across the update (a turn), then paused for the boot (the scrub uses
 * every CPU) until guests_continue(). Return: false: not held.
 */
static bool resume_held(struct guest_round *r, const cpumask_t *cpus)
{
	uint64_t deadline =
		arch_ticks() + guest_us_to_ticks(GUEST_HOLD_WAIT_MS * 1000ULL);

	if (!guest_hold_start(r, cpus))
		return false;
	char why[96];

	while (!all_live(true) && arch_ticks() < deadline)
		arch_cpu_relax();
	if (stop_round(arch_ticks() +
			       guest_us_to_ticks(GUEST_HOLD_WAIT_MS * 1000ULL),
		       why, sizeof(why)))
		pr_warn("guests: %s: the boot goes on beside it\n", why);
	paused_at = arch_ticks();
	return true;
}

/** guests_vcpu_record() - held vCPU @i's record and state (keel/guest.h). */
bool guests_vcpu_record(void *unused, unsigned int i, struct handover_vcpu *rec,
			const void **state)
{
	const char *why = NULL;
	unsigned int n = 0;
	uint32_t bytes;
	uint16_t tag = (uint16_t)arch_vcpu_state(&bytes, &why);

	(void)unused;
	for (unsigned int k = 0; k < guest_state.count; k++) {
		const struct vcpu *v = &guest_state.vcpu[k];

		if (!v->made || !v->live || n++ != i)
			continue;
		memset(rec, 0, sizeof(*rec));
		rec->domain = v->domain;
		rec->arch = tag;
		rec->cpu = v->cpu;
		rec->state_bytes = bytes;
		rec->stop_ticks = v->stop_ticks;
		rec->pages_walked = v->pages_walked;
		rec->bad_words = v->bad_words;
		*state = v->arch.w;
		return tag != HANDOVER_VCPU_NONE;
	}
	return false;
}

/*
 * After give_up()'s bounds, @ms: CPU @cpu of the round leaves the online
 * set unless it went back to its mailbox having given back what it held;
 * one still in its exit is named (it keeps its guest state: fini_begin()).
 */
static void give_up_cpu(unsigned int cpu, unsigned long long ms)
{
	bool idle = smp_cpu_idle(cpu); /* first: then its state is seen */
	unsigned int st = guest_cpu_exit_state(cpu);

	if (idle && !(st & GUEST_CPU_KEPT))
		return; /* its exit done: it gave back what it held */
	if (st & GUEST_CPU_EXITING) {
		pr_warn("guests: CPU %u was still in its exit from the held "
			"round %llu ms after the boot gave up on it: what it "
			"holds for its guests stays allocated, never given "
			"back\n",
			cpu, ms);
		smp_cpu_lost(cpu, "still in its exit from a held round when "
				  "the boot gave up on it: what it holds for "
				  "its guests stays allocated");
	} else {
		smp_cpu_lost(cpu, "left running a held vCPU: the live update "
				  "did not come and it did not stop");
	}
}

/*
 * guests_release() gave up on the held round's CPUs that did not stop
 * (issue 36 §0: at 240 CPUs under TCG, one came back later and gave its
 * SVM host save page to the heap while the audit walked it). The gate
 * shut (guest_run.c exit_begin(): such a CPU, when it comes back, touches
 * nothing shared), the exits that began before it waited for, then those
 * still in their exit given up on (GUEST_GATE_GONE: none gives anything
 * back after it; one already giving back waited for), then every CPU of
 * the round not back in its mailbox with nothing kept leaves the online
 * set (its heap cache given back, nothing waits on it again); what it
 * holds stays allocated.
 */
static void give_up(void)
{
	uint64_t t0 = arch_ticks(), t1,
		 step = guest_us_to_ticks(
			 guest_release_ms(guest_state.freeze_ms) * 1000ULL);
	unsigned long long ms;
	unsigned int cpu;

	atomic_fetch_or(&hold_round.gate, GUEST_GATE_SHUT);
	while ((atomic_load_acquire(&hold_round.gate) & GUEST_GATE_EXITS) &&
	       arch_ticks() < t0 + step)
		arch_cpu_relax();
	atomic_fetch_or(&hold_round.gate, GUEST_GATE_GONE);
	t1 = arch_ticks();
	while ((atomic_load_acquire(&hold_round.gate) & GUEST_GATE_FINIS) &&
	       arch_ticks() < t1 + step)
		arch_cpu_relax();
	ms = ticks_to_ns(arch_ticks() - t0) / 1000000;
	if (atomic_load_acquire(&hold_round.gate) & GUEST_GATE_FINIS)
		pr_err("guests: a CPU of the held round still gives back its "
		       "guest state %llu ms after the boot gave up on it: the "
		       "audit may not balance\n",
		       ms);
	for_each_cpu_in (cpu, &hold_cpus)
		give_up_cpu(cpu, ms);
}

/** guests_release() - the held round torn down: no update came. */
void guests_release(void)
{
	char why[96];

	if (stop_round(arch_ticks() +
			       guest_us_to_ticks(
				       guest_release_ms(guest_state.freeze_ms) *
				       1000ULL),
		       why, sizeof(why))) {
		/* Its vCPUs still run: nothing of theirs is given back. */
		pr_warn("guests: %s: left running\n", why);
		give_up();
		guest_state_problem_add();
		hold_open = false;
		return;
	}
	for (unsigned int i = 0; hold_open && i < guest_state.count; i++) {
		struct vcpu *v = &guest_state.vcpu[i];

		if (!v->live)
			continue;
		snprintf(v->why, sizeof(v->why),
			 "held for a live update that did not come");
		/* In its loop: judged on its walk as one that ended. */
		if (v->looping && v->end == GUEST_END_NONE)
			v->end = GUEST_END_HELD;
	}
	if (hold_open) {
		/* Its times as a round that ends on its own has them. */
		guest_round_times(&hold_round);
		guest_vcpus_finish();
	}
	hold_open = false;
	guest_state_set_held(0);
}

/* The domain of @id in @ds, into @dv. Return: false: none. */
static bool domain_of(const struct domain_set *ds, uint16_t id,
		      struct domain_view *dv)
{
	for (unsigned int i = 0; i < domain_set_stats(ds)->count; i++)
		if (domain_view(ds, i, dv) && dv->id == id && dv->p2m)
			return true;
	return false;
}

/* @c may run a resumed vCPU of @node (held: never the boot CPU). */
static bool resume_cpu_ok(unsigned int c, uint32_t node, bool hold)
{
	return c < cpu_count && cpu_table[c].online &&
	       cpu_table[c].node == node && !(hold && c == arch_cpu_id());
}

/*
 * The CPU that runs record @hv's vCPU: its own index when it may and no
 * other resumed vCPU has it (@used), else the next such CPU of @node: two
 * guests on one CPU take turns, and the second's blackout would include
 * the first's turn. When every CPU of @node has one, they share, as the
 * build's round-robin does (@hold: never the boot CPU, which freezes).
 */
static unsigned int resume_cpu(const struct bi_handover_vcpu *hv, uint32_t node,
			       bool hold, const cpumask_t *used)
{
	unsigned int c = hv->cpu, from = c < cpu_count ? c : 0;

	for (unsigned int k = 0; k < cpu_count; k++) {
		unsigned int x = (from + k) % cpu_count;

		if ((k || x == c) && resume_cpu_ok(x, node, hold) &&
		    !cpumask_test(used, x))
			return x;
	}
	if (resume_cpu_ok(c, node, hold))
		return c;
	if (hold)
		return guest_hold_cpu(node, from);
	c = guest_node_cpu_after(node, from, NR_CPUS);
	return c < NR_CPUS ? c : arch_cpu_id();
}

/* Record @hv's vCPU into @v, ready to run. Return: 0, or -errno (why). */
static int resume_one(struct vcpu *v, const struct domain_set *ds,
		      const struct guest_params *gp,
		      const struct bi_handover_vcpu *hv, const cpumask_t *used)
{
	struct domain_view dv;
	struct vcpu_setup s;
	int err;

	memset(v, 0, sizeof(*v));
	v->domain = hv->domain;
	v->first_bad_ipa = v->fault_ipa = (uint64_t)GUEST_NO_IPA;
	v->resumed = v->walked = v->looping = true;
	v->pages_walked = hv->pages_walked;
	v->bad_words = hv->bad_words;
	if (!domain_of(ds, hv->domain, &dv)) {
		snprintf(v->why, sizeof(v->why), "its domain was not restored");
		return -ENOENT;
	}
	v->node = dv.build_node;
	v->bytes = dv.bytes;
	v->cpu = resume_cpu(hv, dv.node, gp->hold, used);
	/* The boot scrub comes after: every page given back is dirty, also
	 * when the prepare gives its pages back itself. */
	v->s2.free_dirty = true;
	err = guest_vcpu_prepare(v, &dv, gp, &s);
	if (err)
		return err;
	err = arch_vcpu_resume(&v->arch, hv->state, hv->state_bytes, &s);
	if (err) {
		snprintf(v->why, sizeof(v->why),
			 "its state is not a vCPU in its loop (%d)", err);
		guest_s2_free(&v->s2);
	}
	return err;
}

/* The new image's round: every record's vCPU. @cpus: the CPUs used. */
static void resume_setup(const struct domain_set *ds,
			 const struct guest_params *gp,
			 const struct bi_handover *h, cpumask_t *cpus)
{
	cpumask_clear(cpus);
	guest_vcpus_reset();
	for (unsigned int i = 0; i < h->vcpu_count && i < DOMAIN_MAX; i++) {
		struct vcpu *v = guest_vcpu_add();

		if (resume_one(v, ds, gp, &h->vcpus[i], cpus)) {
			v->end = GUEST_END_FAILED;
			pr_warn("guest %u: not resumed from the handover: %s\n",
				v->domain, v->why);
			continue;
		}
		v->made = v->live = true;
		guest_state_resumed_add();
		cpumask_set(cpus, v->cpu);
	}
}

/* How long after the old freeze its last vCPU stopped (guests_stop_ns). */
static void stop_after(const struct bi_handover *h)
{
	uint64_t stop = 0;

	for (unsigned int i = 0; i < h->vcpu_count; i++)
		stop = MAX(stop, h->vcpus[i].stop_ticks);
	if (stop > h->hdr.freeze_ticks)
		guest_state_set_stop_after(
			ticks_to_ns(stop - h->hdr.freeze_ticks));
}

/**
 * guests_resume() - the handover's vCPUs resumed, then run and judged,
 * or held for the next update (keel/guest.h).
 * @ds: the restored domains
 * @gp: guest_run_ms= and the rest (round 1); hold: an update follows
 * @h: the handover taken
 */
void guests_resume(const struct domain_set *ds, const struct guest_params *gp,
		   const struct bi_handover *h)
{
	struct guest_params g = *gp;
	struct guest_round r = {.gp = &g};
	const char *why = NULL;
	uint32_t bytes;
	cpumask_t cpus;

	if (guest_state_resume_begin(gp, h->vcpu_count))
		return; /* unsupported here */
	if (arch_vcpu_state(&bytes, &why) == HANDOVER_VCPU_NONE) {
		guest_state_carry_why(why);
		pr_warn("guests: not resumed across the live update: %s\n",
			why);
	}
	if (!h->vcpu_count)
		return;
	if (h->hdr.build != arch_lu_build_id()) {
		guest_state_carry_why("the handover's build is not this "
				      "image's (its guest program may differ)");
		pr_warn("guests: %u vCPUs not resumed: %s\n", h->vcpu_count,
			guest_state.carry_why);
		return;
	}
	g.hold = gp->hold && guests_can_hold();
	trace_begin("guests-resume");
	resume_setup(ds, &g, h, &cpus);
	stop_after(h);
	r.slice_ticks = guest_us_to_ticks(GUEST_SLICE_US);
	r.start = arch_ticks();
	r.hold = g.hold;
	if (g.hold && resume_held(&r, &cpus)) {
		trace_end("guests-resume");
		pr_info("guests: %u of %u vCPUs resumed from the handover, "
			"held for the live update on %u CPUs\n",
			guest_state.held, h->vcpu_count, cpumask_weight(&cpus));
		return;
	}
	if (cpumask_weight(&cpus))
		smp_run_on(&cpus, guest_cpu_main, &r);
	guest_round_times(&r);
	guest_vcpus_finish();
	trace_end("guests-resume");
	pr_info("guests: %u of %u vCPUs resumed from the handover on %u "
		"CPUs, %u problems\n",
		guest_state.resumed, h->vcpu_count, cpumask_weight(&cpus),
		guest_state.problems);
}
