/* SPDX-License-Identifier: MIT */
/*
 * Guests, one CPU's turns (include/keel/guest.h): every CPU that has
 * vCPUs runs them round-robin, each for at most a slice
 * (GUEST_SLICE_US: the arch's timer ends it), until every one has ended:
 * reported GUEST_HC_DONE, or been stopped (a stage-2 fault, a trap, an
 * exception of its own, a failed entry). A hypercall or another
 * interrupt does not end the turn: the vCPU is entered again until its
 * slice is over.
 *
 * A held round (a live update follows, guest_carry.c) ends instead when
 * guests_stop() sets guest_round.stop: each CPU stops its vCPUs at the end
 * of the turn it is in, their state kept in struct vcpu.arch; a vCPU not
 * yet in its measuring loop (arch_vcpu_in_loop(): between its walk's
 * hypercall and the loop, the one place a slice may end it that the next
 * image cannot resume) gets turns until it is.
 *
 * The vCPUs a CPU runs are those guest.c gave it (vcpu->cpu); no other
 * CPU touches them while the round runs, so their fields need no lock.
 * The round's last walk (guest_round.walk_end) is an atomic max.
 */
#include <arch/cpu.h>
#include <arch/guest.h>
#include <keel/atomic.h>
#include <keel/guest.h>
#include <keel/inject.h>
#include <keel/smp.h>
#include <keel/string.h>

#include "guest_priv.h"

static void vcpu_end(struct vcpu *v, enum guest_end why)
{
	v->end = why;
	v->live = false;
}

static void atomic_max(uint64_t *p, uint64_t v)
{
	uint64_t old = atomic_load_relaxed(p);

	while (old < v && !atomic_cmpxchg(p, &old, v))
		;
}

/* A hypercall of @v (<keel/guest_abi.h>). */
static void hypercall(struct vcpu *v, const struct vcpu_exit *e,
		      struct guest_round *r)
{
	switch (e->arg[0]) {
	case GUEST_HC_WALK:
		v->walked = true;
		v->pages_walked = e->arg[1];
		v->bad_words = e->arg[2];
		v->first_bad_ipa = e->arg[3];
		v->first_bad_value = e->arg[4];
		atomic_max(&r->walk_end, arch_ticks());
		break;
	case GUEST_HC_DONE:
		v->gap_ticks = e->arg[1];
		v->iterations = e->arg[2];
		v->walk_ticks = e->arg[3];
		v->pages_skipped = e->arg[4];
		vcpu_end(v, GUEST_END_DONE);
		break;
	case GUEST_HC_EXC:
		v->syndrome = e->arg[1];
		vcpu_end(v, GUEST_END_EXCEPTION);
		break;
	default:
		v->syndrome = e->arg[0];
		vcpu_end(v, GUEST_END_TRAP);
		break;
	}
}

/*
 * What @e means for @v. Return: true when the turn goes on (a hypercall
 * or an interrupt before the slice's end).
 */
static bool handle_exit(struct vcpu *v, const struct vcpu_exit *e,
			struct guest_round *r)
{
	switch (e->reason) {
	case VCPU_EXIT_HYPERCALL:
		hypercall(v, e, r);
		return v->live;
	case VCPU_EXIT_IRQ:
		return true;
	case VCPU_EXIT_PREEMPT:
		return false; /* in its loop or not: turn() asks the arch */
	case VCPU_EXIT_STAGE2:
		v->stage2_faults++;
		v->fault_ipa = e->ipa;
		v->syndrome = e->syndrome;
		vcpu_end(v, GUEST_END_STAGE2);
		return false;
	case VCPU_EXIT_FAILED:
		snprintf(v->why, sizeof(v->why),
			 "the CPU refused to enter it (%#llx)",
			 (unsigned long long)e->syndrome);
		v->syndrome = e->syndrome;
		vcpu_end(v, GUEST_END_FAILED);
		return false;
	case VCPU_EXIT_TRAP:
	default:
		v->syndrome = e->syndrome;
		vcpu_end(v, GUEST_END_TRAP);
		return false;
	}
}

/*
 * inject=guest-preempt-walk:N: right after domain N's walk, its next slice
 * is already over; the pc it ends at, when that is before its loop, kept
 * for the line guest_carry.c prints (the race of issue 36 §0, made
 * certain).
 */
static bool preempt_walk(struct vcpu *v, const struct vcpu_exit *e,
			 bool walking, bool forced)
{
	if (forced && e->reason == VCPU_EXIT_PREEMPT &&
	    !arch_vcpu_in_loop(&v->arch, v->s2.image_ipa))
		v->preempt_walk_pc = e->pc;
	return walking && v->walked && v->live &&
	       inject_has(INJECT_GUEST_PREEMPT_WALK, v->domain);
}

/* One turn of @v: entered again after each exit that does not end it. */
static void turn(struct vcpu *v, struct guest_round *r)
{
	uint64_t t0 = arch_ticks(), end = t0 + r->slice_ticks, t1 = t0;
	struct vcpu_exit e;
	bool more, again = false;

	do {
		bool walking = !v->walked;

		arch_vcpu_run(&v->arch, end, &e);
		v->runs++;
		more = handle_exit(v, &e, r);
		/* In its loop: the only place an update may stop it. */
		if (v->live && v->walked)
			v->looping =
				arch_vcpu_in_loop(&v->arch, v->s2.image_ipa);
		again = preempt_walk(v, &e, walking, again) && more;
		t1 = arch_ticks();
		v->stop_ticks = t1;
		if (walking)
			v->walk_cpu_ticks += t1 - t0;
		v->cpu_ticks += t1 - t0;
		t0 = t1;
		if (again)
			end = t1;
	} while (more && (t1 < end || again));
}

/* A held round that guests_stop() ended (the freeze). */
static bool held_stop(const struct guest_round *r)
{
	return r->hold && atomic_load_acquire(&r->stop);
}

/* guests_release() gave up on the held round's CPUs that did not stop. */
static bool gate_shut(const struct guest_round *r)
{
	return atomic_load_acquire(&r->gate) & GUEST_GATE_SHUT;
}

/*
 * @v must have another turn: it is live, and the round goes on, or it is
 * held and not yet in its loop (a freeze stops a vCPU only there; once
 * the boot gave up on the round, nothing will carry it: anywhere).
 */
static bool must_run(const struct vcpu *v, const struct guest_round *r)
{
	return v->live && !(held_stop(r) && (v->looping || gate_shut(r)));
}

/*
 * The CPUs in their exit (past its gate, until posted again, or until
 * they run on: exit_undo()), and those the boot
 * gave up on that kept what they hold: guest_cpu_exit_state(). Atomic.
 */
static cpumask_t exiting, kept;

static void mask_put(cpumask_t *m, unsigned int cpu, bool on)
{
	uint64_t bit = 1ULL << (cpu % 64);

	if (on)
		__atomic_fetch_or(&m->bits[cpu / 64], bit, __ATOMIC_SEQ_CST);
	else
		__atomic_fetch_and(&m->bits[cpu / 64], ~bit, __ATOMIC_SEQ_CST);
}

static bool mask_has(const cpumask_t *m, unsigned int cpu)
{
	return (atomic_load_seq_cst(&m->bits[cpu / 64]) >> (cpu % 64)) & 1;
}

/**
 * guest_cpu_exit_state() - GUEST_CPU_EXITING: @cpu passed the gate into
 * its exit from a round, and has neither run on nor been posted since;
 * GUEST_CPU_KEPT: the boot gave up on it and it gave nothing back
 * (guest_priv.h). Read after smp_cpu_idle(@cpu).
 * @cpu: a CPU id below NR_CPUS
 */
unsigned int guest_cpu_exit_state(unsigned int cpu)
{
	return (mask_has(&exiting, cpu) ? GUEST_CPU_EXITING : 0) |
	       (mask_has(&kept, cpu) ? GUEST_CPU_KEPT : 0);
}

/*
 * The end of @r on CPU @me: may it give back what it holds (the arch's
 * per-CPU host state, to the heap)? Not once the boot CPU gave up on it
 * (guests_release()): the boot has moved on, to the audit and the report,
 * and this CPU is out of service; what it holds stays allocated, counted.
 * One atomic word decides, twice: a CPU either enters its exit before the
 * boot gives up (GUEST_GATE_SHUT), and the boot waits for it to leave it,
 * guest_release_ms() at most, or sees that it did; and one still in its exit
 * when that bound passes either began to give back before the boot gave
 * up on the exits (GUEST_GATE_GONE), and the boot waits for that (a few
 * stores and a free), or sees that it did and keeps all it holds
 * (fini_begin()).
 */
static bool exit_begin(struct guest_round *r, unsigned int me)
{
	uint32_t g = atomic_load_acquire(&r->gate);

	do {
		if (g & GUEST_GATE_SHUT) {
			mask_put(&kept, me, true);
			return false;
		}
	} while (!atomic_cmpxchg(&r->gate, &g, g + 1));
	/* Past the gate; before mine_to_run() reads the stop. */
	mask_put(&exiting, me, true);
	return true;
}

static bool fini_begin(struct guest_round *r, unsigned int me)
{
	uint32_t g = atomic_load_acquire(&r->gate);

	do {
		if (g & GUEST_GATE_GONE) {
			mask_put(&kept, me, true);
			return false;
		}
	} while (!atomic_cmpxchg(&r->gate, &g, g + GUEST_GATE_FINI));
	return true;
}

/* The exit over: @me stays marked as exiting until it is posted again. */
static void exit_end(struct guest_round *r)
{
	atomic_fetch_sub(&r->gate, 1 + GUEST_GATE_FINI);
}

/* The stop was withdrawn before @me gave anything back: it runs on. */
static void exit_undo(struct guest_round *r, unsigned int me)
{
	mask_put(&exiting, me, false);
	atomic_fetch_sub(&r->gate, 1);
}

/*
 * inject=guest-preempt-walk, a held round: the slice that ended before its
 * loop left @v counted as in its loop (what issue 36 §0 found: a freeze
 * then records a pc the next image refuses): its CPU waits there for the
 * freeze (GUEST_HOLD_WAIT_MS at most), so that the race is certain. A vCPU
 * rightly not counted as in its loop runs on.
 */
static void preempt_walk_pause(struct vcpu *v, const struct guest_round *r)
{
	uint64_t end;

	if (!r->hold || !v->preempt_walk_pc || !v->looping ||
	    v->preempt_walk_paused)
		return;
	v->preempt_walk_paused = true;
	end = arch_ticks() + guest_us_to_ticks(GUEST_HOLD_WAIT_MS * 1000ULL);
	while (arch_ticks() < end && !held_stop(r))
		arch_cpu_relax();
}

/* Turns of @me's vCPUs until none must run. */
static void run_mine(struct guest_round *r, unsigned int me)
{
	unsigned int pending;

	do {
		pending = 0;
		for (unsigned int i = 0; i < guest_state.count; i++) {
			struct vcpu *v = &guest_state.vcpu[i];

			if (v->cpu != me || !must_run(v, r))
				continue;
			turn(v, r);
			preempt_walk_pause(v, r);
			pending += must_run(v, r);
		}
	} while (pending);
}

/*
 * inject=vcpu-stop-slow:N: once, the CPU of domain N's held vCPU answers
 * the stop GUEST_STOP_SLOW_BOUNDS freeze bounds (lu_freeze_ms=) late, past
 * the freeze's deadline, as a vCPU whose exit does not come.
 * Return: true when it waited.
 */
static bool stop_slow(unsigned int me)
{
	static uint32_t done;
	uint64_t end;

	for (unsigned int i = 0; i < guest_state.count; i++) {
		const struct vcpu *v = &guest_state.vcpu[i];

		if (v->cpu != me || !v->made ||
		    !inject_has(INJECT_VCPU_STOP_SLOW, v->domain) ||
		    atomic_fetch_add(&done, 1))
			continue;
		end = arch_ticks() +
		      guest_us_to_ticks(GUEST_STOP_SLOW_BOUNDS * 1000ULL *
					guest_state.freeze_ms);
		while (arch_ticks() < end)
			arch_cpu_relax();
		return true;
	}
	return false;
}

/*
 * inject=vcpu-stop-stuck:N: while a stop is asked, the CPU of domain N's
 * held vCPU does not answer it, running no vCPU, until the stop is
 * withdrawn (a failed freeze: it runs on) or the boot CPU gives up on it
 * (guests_release()), then goes on at once: a vCPU whose exit comes only
 * as the boot moves on. GUEST_STOP_STUCK_MS() at most. The withdrawal is
 * read where the wait ends: read again after it, a stop asked anew in
 * between (the release, right after a failed freeze, while this host
 * thread was not running) was answered at once, as no stuck CPU would
 * (2 arm64 boots in 25 had no "left running").
 * Return: true when the stop it held was withdrawn (it runs on).
 */
static bool stop_stuck(const struct guest_round *r, unsigned int me)
{
	uint64_t end;

	for (unsigned int i = 0; i < guest_state.count; i++) {
		const struct vcpu *v = &guest_state.vcpu[i];

		if (v->cpu != me || !v->made ||
		    !inject_has(INJECT_VCPU_STOP_STUCK, v->domain))
			continue;
		end = arch_ticks() +
		      guest_us_to_ticks(
			      GUEST_STOP_STUCK_MS(guest_state.freeze_ms) *
			      1000);
		for (;;) {
			if (!held_stop(r))
				return true;
			if (gate_shut(r) || arch_ticks() >= end)
				return false;
			arch_cpu_relax();
		}
	}
	return false;
}

/*
 * An injected fault held the stop just asked (the two above), and it was
 * withdrawn meanwhile: @me's vCPUs run on. Return: false when the stop
 * stands (or none was asked, or none held it): @me leaves its turns.
 */
static bool injected_run_on(const struct guest_round *r, unsigned int me)
{
	if (!held_stop(r))
		return false;
	if (stop_slow(me))
		return !held_stop(r);
	return stop_stuck(r, me);
}

/*
 * inject=vcpu-exit-slow:N: each time the CPU of domain N's held vCPU is in
 * its exit from the held round (the gate passed: the boot counts it as
 * leaving), it stays there until the stop is withdrawn (a failed freeze)
 * or the boot CPU has given up on it (it left the online set),
 * GUEST_EXIT_SLOW_MS() at most: a CPU the host does not run for that long.
 */
static void exit_slow(const struct guest_round *r, unsigned int me)
{
	uint64_t end;

	for (unsigned int i = 0; r->hold && i < guest_state.count; i++) {
		const struct vcpu *v = &guest_state.vcpu[i];

		if (v->cpu != me || !v->made ||
		    !inject_has(INJECT_VCPU_EXIT_SLOW, v->domain))
			continue;
		end = arch_ticks() +
		      guest_us_to_ticks(
			      GUEST_EXIT_SLOW_MS(guest_state.freeze_ms) * 1000);
		while (atomic_load_acquire(&r->stop) &&
		       atomic_load_acquire(&cpu_table[me].online) &&
		       arch_ticks() < end)
			arch_cpu_relax();
		return;
	}
}

/*
 * In its exit, the stop withdrawn (guest_carry.c run_on(): a failed
 * freeze): one of @me's vCPUs must run on. The load is the second half of
 * a store-then-load handshake with run_on(): this CPU marked itself as
 * exiting, run_on() withdrew the stop; each then reads the other's.
 */
static bool mine_to_run(const struct guest_round *r, unsigned int me)
{
	if (!r->hold || atomic_load_seq_cst(&r->stop))
		return false;
	for (unsigned int i = 0; i < guest_state.count; i++)
		if (guest_state.vcpu[i].cpu == me &&
		    must_run(&guest_state.vcpu[i], r))
			return true;
	return false;
}

/*
 * The turns of @me's vCPUs until it leaves them. A stop withdrawn after it
 * began its exit: it runs on when it sees that before it gives anything
 * back; else run_on() posts it again once it is back in its mailbox.
 * Return: false when the boot gave up on it (it keeps what it holds).
 */
static bool run_turns(struct guest_round *r, unsigned int me)
{
	for (;;) {
		do {
			run_mine(r, me);
		} while (injected_run_on(r, me));
		if (!exit_begin(r, me))
			return false;
		exit_slow(r, me);
		if (!mine_to_run(r, me))
			return true;
		exit_undo(r, me);
	}
}

/**
 * guest_cpu_main() - smp_run_on() work: the calling CPU's vCPUs, in turns
 * until every one has ended, or (a held round) until guests_stop() and
 * each is in its loop.
 * @arg: the struct guest_round
 */
void guest_cpu_main(void *arg)
{
	struct guest_round *r = arg;
	unsigned int me = arch_cpu_id();
	const char *why = "";

	mask_put(&exiting, me, false); /* posted (again): not leaving */
	if (arch_guest_cpu_init(&why)) {
		for (unsigned int i = 0; i < guest_state.count; i++) {
			struct vcpu *v = &guest_state.vcpu[i];

			if (v->cpu != me || !v->live)
				continue;
			snprintf(v->why, sizeof(v->why), "%s", why);
			vcpu_end(v, GUEST_END_FAILED);
		}
		return;
	}
	if (!run_turns(r, me) || !fini_begin(r, me))
		return; /* given up on: back to the mailbox, out of service */
	arch_guest_cpu_fini();
	exit_end(r);
}
