/* SPDX-License-Identifier: MIT */
/*
 * Guests, the phase (include/keel/guest.h, DESIGN §14): one round gives
 * every built domain a vCPU, runs them all on their CPUs, tears them
 * down and judges what they reported. guest_rounds= rounds after the
 * first are the flow's (common/boot.c): domains destroyed, built again,
 * checked, then this again.
 *
 *  - Setup (boot CPU): the vCPU's stage 2 and image (guest_stage2.c),
 *    the program written by the arch (arch_guest_image()), its entry
 *    arguments (<keel/guest_abi.h>), arch_vcpu_init(). A domain larger
 *    than GUEST_MAX_BYTES, or reaching the image's IPA, gets no vCPU
 *    (failed, with why): its memory is still checked by the walk of
 *    domain_check.c, not by a guest. A static domain's memory holds the
 *    user's data (xen,static-mem, never zeroed): its guest would
 *    overwrite it, so it gets none (not-run, said in one line; no
 *    problem).
 *  - CPUs: the vCPUs of a domain go to the online CPUs of its build node
 *    (its own node, or the nearest one with CPUs) in turn, so 64 domains
 *    share 2 CPUs 32 and 32. Every CPU with vCPUs runs guest_cpu_main().
 *  - Judging (boot CPU, after the run): a word that was not zero, a
 *    stage-2 fault anywhere but one page past the range of a domain that
 *    inject=guest-past-end:ID asked for, a walk short of the domain's
 *    pages, a trap, an exception, a failed entry: each is one warning and
 *    a problem, and the boot fails (guests_fail_reason()).
 *
 * The state of every round is `guest_state` (the last round's vCPUs and the
 * totals of all), read by the report. Boot CPU, but for guest_run.c's
 * CPUs while the round runs; no lock.
 */
#include <arch/cpu.h>
#include <keel/atomic.h>
#include <keel/compiler.h>
#include <keel/enum_names.h>
#include <keel/errno.h>
#include <keel/guest.h>
#include <keel/inject.h>
#include <keel/printk.h>
#include <keel/smp.h>
#include <keel/string.h>
#include <keel/ticks.h>
#include <keel/trace.h>

#include "guest_priv.h"

struct guests_state guest_state;

/* guest_carry.c's changes to guest_state (guest_priv.h): one writer. */
void guest_state_carry_why(const char *why)
{
	guest_state.carry_why = why;
}

void guest_state_set_held(unsigned int held)
{
	guest_state.held = held;
}

void guest_state_resumed_add(void)
{
	guest_state.resumed++;
}

void guest_state_problem_add(void)
{
	guest_state.problems++;
}

void guest_vcpus_reset(void)
{
	guest_state.count = 0;
}

/* The next vCPU slot of the round (the caller checks DOMAIN_MAX). */
struct vcpu *guest_vcpu_add(void)
{
	return &guest_state.vcpu[guest_state.count++];
}

const char *guest_state_resume_begin(const struct guest_params *gp,
				     unsigned int carried)
{
	memset(&guest_state, 0, sizeof(guest_state));
	guest_state.touch = gp->touch;
	guest_state.run_ms = gp->run_ms;
	guest_state.freeze_ms = gp->freeze_ms;
	guest_state.rounds = 1;
	guest_state.carried = carried;
	guest_state.unsupported = arch_guest_supported();
	return guest_state.unsupported;
}

void guest_state_set_stop_after(uint64_t ns)
{
	guest_state.stop_after_ns = ns;
}

void guest_round_times(struct guest_round *r)
{
	uint64_t end = atomic_load_acquire(&r->walk_end);

	guest_state.run_ticks = arch_ticks() - r->start;
	guest_state.walk_ticks = end > r->start ? end - r->start : 0;
}

static const struct enum_name guest_end_names[] = {
	{GUEST_END_NONE, "not-run"},
	{GUEST_END_DONE, "done"},
	{GUEST_END_STAGE2, "stage2-fault"},
	{GUEST_END_TRAP, "trap"},
	{GUEST_END_EXCEPTION, "guest-exception"},
	{GUEST_END_FAILED, "failed"},
	{GUEST_END_HELD, "held"},
	ENUM_NAMES_END,
};

/** guest_end_name() - Return: @e's word (guests[].exit_reason). */
const char *guest_end_name(enum guest_end e)
{
	return enum_name(guest_end_names, e);
}

/**
 * guest_image_ipa() - where the image lies in table @p: its last
 * GUEST_IMAGE_PAGES pages below 2^47, or below 2^ipa_bits or 2^pa_bits
 * when narrower (an x86 guest's own page tables must lie below its
 * MAXPHYADDR), in one leaf table, at an address that is canonical for a
 * 64-bit x86 guest too.
 * @p: the domain's table
 *
 * Return: the image's IPA.
 */
uint64_t guest_image_ipa(const struct p2m *p)
{
	unsigned int bits = MIN(MIN(p->ipa_bits, p->pa_bits), 47u);

	return (1ULL << bits) - GUEST_IMAGE_PAGES * PAGE_SIZE;
}

uint64_t guest_us_to_ticks(uint64_t us)
{
	return arch_ticks_hz() / 1000000 * us +
	       arch_ticks_hz() % 1000000 * us / 1000000;
}

/* A stride the walk can take: a power of two, a word to a page. */
static bool touch_ok(uint32_t t)
{
	return t >= GUEST_TOUCH_MIN && t <= GUEST_TOUCH_MAX && !(t & (t - 1));
}

/*
 * The image's skip list for @v in domain @dv (guest_skip.c), said in one
 * line when it names a page. Return: 0, or -errno with the stage 2 given
 * back (v->why).
 */
static int skip_list(struct vcpu *v, const struct domain_view *dv)
{
	uint64_t *list = (uint64_t *)((uint8_t *)guest_s2_image(&v->s2) +
				      GUEST_SKIP_PAGE * PAGE_SIZE);
	int n = guest_skip_list(dv, list);

	if (n < 0) {
		snprintf(v->why, sizeof(v->why),
			 n == -E2BIG ? "more than %u bad pages to skip"
				     : "a bad page its table does not map",
			 GUEST_SKIP_MAX);
		guest_s2_free(&v->s2);
		return n;
	}
	v->skip_asked = (uint64_t)n;
	if (n)
		pr_info("guest %u: its walk skips %d bad pages of its range, "
			"the first at IPA %#llx\n",
			dv->id, n, (unsigned long long)list[0]);
	return 0;
}

/*
 * The stage 2 and image of @v in domain @dv, and its setup @s (entry,
 * arguments). Return: 0, or -errno (v->why).
 */
int guest_vcpu_prepare(struct vcpu *v, const struct domain_view *dv,
		       const struct guest_params *gp, struct vcpu_setup *s)
{
	uint64_t image_ipa = guest_image_ipa(dv->p2m);
	unsigned int writable = 0;
	int err;

	memset(s, 0, sizeof(*s));
	s->stage2 = &v->s2.p2m;
	s->image_ipa = image_ipa;
	if (dv->bytes > GUEST_MAX_BYTES || dv->bytes > image_ipa - PAGE_SIZE) {
		snprintf(v->why, sizeof(v->why),
			 "its %llu bytes are more than a guest walks",
			 (unsigned long long)dv->bytes);
		return -E2BIG;
	}
	err = guest_s2_build(&v->s2, dv->p2m, image_ipa);
	if (err) {
		snprintf(v->why, sizeof(v->why), "%s for its stage 2",
			 err == -ENOMEM ? "no memory" : "its IPA is taken");
		return err;
	}
	s->entry = image_ipa + arch_guest_image(guest_s2_image(&v->s2),
						image_ipa, &writable);
	err = skip_list(v, dv);
	if (err)
		return err;
	guest_s2_map_image(&v->s2, writable);
	guest_s2_publish(&v->s2);
	s->arg[0] = dv->bytes;
	s->arg[1] = touch_ok(gp->touch) ? gp->touch : GUEST_TOUCH_DEFAULT;
	s->arg[2] = guest_seed(dv->id, gp->round);
	s->arg[3] = GUEST_EXPECT_ZERO;
	s->arg[4] =
		(image_ipa + GUEST_SKIP_PAGE * PAGE_SIZE) |
		(inject_has(INJECT_GUEST_PAST_END, dv->id) ? GUEST_FLAG_PAST_END
							   : 0);
	s->arg[5] = guest_us_to_ticks(
		(uint64_t)(gp->hold ? GUEST_HOLD_MS : gp->run_ms) * 1000);
	return 0;
}

/* The vCPU of domain @dv, ready to enter. Return: 0, or -errno (v->why). */
static int vcpu_setup(struct vcpu *v, const struct domain_view *dv,
		      const struct guest_params *gp)
{
	struct vcpu_setup s;
	int err = guest_vcpu_prepare(v, dv, gp, &s);

	if (err)
		return err;
	err = arch_vcpu_init(&v->arch, &s);
	if (err) {
		snprintf(v->why, sizeof(v->why), "arch_vcpu_init: %d", err);
		guest_s2_free(&v->s2);
	}
	return err;
}

/*
 * The next online CPU of @node after @from (wrapping) that is not @skip;
 * NR_CPUS: none.
 */
unsigned int guest_node_cpu_after(uint32_t node, unsigned int from,
				  unsigned int skip)
{
	for (unsigned int k = 1; k <= cpu_count; k++) {
		unsigned int c = (from + k) % cpu_count;

		if (cpu_table[c].online && cpu_table[c].node == node &&
		    c != skip)
			return c;
	}
	return NR_CPUS;
}

/* A held round's CPU for node @node: not the boot CPU, which freezes. */
unsigned int guest_hold_cpu(uint32_t node, unsigned int from)
{
	unsigned int me = arch_cpu_id(),
		     c = guest_node_cpu_after(node, from, me);

	for (uint32_t n = 0; c >= NR_CPUS && n < MAX_NUMNODES; n++)
		c = guest_node_cpu_after(n, from, me);
	return c < NR_CPUS ? c : me;
}

/* A vCPU per built domain, each given a CPU; @cpus: the CPUs used. */
static void vcpus_setup(const struct domain_set *ds,
			const struct guest_params *gp, cpumask_t *cpus)
{
	static unsigned int last[MAX_NUMNODES];
	struct domain_view dv;

	for (unsigned int n = 0; n < MAX_NUMNODES; n++)
		last[n] = cpu_count - 1;
	cpumask_clear(cpus);
	guest_state.count = 0;
	for (unsigned int i = 0;
	     i < domain_set_stats(ds)->count && i < DOMAIN_MAX; i++) {
		struct vcpu *v = &guest_state.vcpu[guest_state.count];
		unsigned int c;

		if (!domain_view(ds, i, &dv) || !dv.p2m)
			continue;
		guest_state.count++;
		memset(v, 0, sizeof(*v));
		v->domain = dv.id;
		v->node = dv.build_node;
		v->bytes = dv.bytes;
		v->first_bad_ipa = v->fault_ipa = (uint64_t)GUEST_NO_IPA;
		c = gp->hold
			    ? guest_hold_cpu(v->node,
					     last[v->node % MAX_NUMNODES])
			    : guest_node_cpu_after(v->node,
						   last[v->node % MAX_NUMNODES],
						   NR_CPUS);
		v->cpu = c < NR_CPUS ? c : arch_cpu_id();
		if (dv.user_data) {
			/* A guest would overwrite the user's data with its own. */
			snprintf(v->why, sizeof(v->why),
				 "its memory is the user's (xen,static-mem)");
			continue;
		}
		last[v->node % MAX_NUMNODES] = v->cpu;
		if (vcpu_setup(v, &dv, gp)) {
			v->end = GUEST_END_FAILED;
			continue;
		}
		v->made = v->live = true;
		cpumask_set(cpus, v->cpu);
	}
}

/* What wrote @value: "the pattern domain N wrote at IPA X in round R". */
static void pattern_owner(char *buf, size_t size, uint64_t value)
{
	uint64_t top = value >> GUEST_SEED_SHIFT;
	unsigned int round = (unsigned int)((top >> 8) ^ GUEST_SEED_BASE);
	uint16_t id = (uint16_t)(top & 0xff);
	uint64_t ipa = value ^ guest_seed(id, round);

	if (id >= 1 && id <= DOMAIN_MAX && round >= 1 &&
	    round <= GUEST_ROUNDS_MAX && ipa < (1ULL << 47))
		snprintf(buf, size,
			 "the pattern domain %u wrote at IPA %#llx in round %u",
			 id, (unsigned long long)ipa, round);
	else
		snprintf(buf, size, "no guest's pattern");
}

/* The faults @v took: expected only one page past an asked domain. */
static unsigned int judge_fault(const struct vcpu *v)
{
	bool asked = inject_has(INJECT_GUEST_PAST_END, v->domain);

	if (v->end != GUEST_END_STAGE2) {
		if (!asked || v->end != GUEST_END_DONE)
			return 0;
		pr_warn("guest %u: no stage-2 fault one page past its range "
			"(inject=guest-past-end:%u)\n",
			v->domain, v->domain);
		return 1;
	}
	if (asked && v->fault_ipa == v->bytes) {
		pr_info("guest %u: stage-2 fault at IPA %#llx, one page past "
			"its range (inject=guest-past-end): stopped\n",
			v->domain, (unsigned long long)v->fault_ipa);
		return 0;
	}
	pr_warn("guest %u: stage-2 fault at IPA %#llx, %s its range [0, "
		"%#llx): stopped\n",
		v->domain, (unsigned long long)v->fault_ipa,
		v->fault_ipa < v->bytes ? "inside" : "outside",
		(unsigned long long)v->bytes);
	return 1;
}

/* Why @v did not run: its recorded reason, never an empty one. */
static const char *not_run_why(const struct vcpu *v)
{
	return v->why[0] ? v->why
			 : "no reason recorded (it never ended a slice)";
}

/* @v's problems, each one warning. Return: how many. */
static unsigned int judge(const struct vcpu *v)
{
	uint64_t pages = v->bytes >> PAGE_SHIFT;
	unsigned int problems;
	char owner[96];

	if (v->end == GUEST_END_NONE) {
		pr_info("guest %u: not run: %s\n", v->domain, not_run_why(v));
		return 0;
	}
	problems = judge_fault(v);

	if (v->bad_words) {
		pattern_owner(owner, sizeof(owner), v->first_bad_value);
		pr_warn("guest %u: %llu words were not zero, the first at "
			"IPA %#llx: %#llx (%s)\n",
			v->domain, (unsigned long long)v->bad_words,
			(unsigned long long)v->first_bad_ipa,
			(unsigned long long)v->first_bad_value, owner);
		problems++;
	}
	if ((v->end == GUEST_END_DONE || v->end == GUEST_END_STAGE2 ||
	     v->end == GUEST_END_HELD) &&
	    (!v->walked || v->pages_walked + v->skip_asked != pages)) {
		pr_warn("guest %u: walked %llu of its %llu pages (%llu bad "
			"pages to skip)\n",
			v->domain, (unsigned long long)v->pages_walked,
			(unsigned long long)pages,
			(unsigned long long)v->skip_asked);
		problems++;
	}
	if (v->end == GUEST_END_DONE && v->pages_skipped != v->skip_asked) {
		pr_warn("guest %u: its walk skipped %llu pages, its skip list "
			"named %llu\n",
			v->domain, (unsigned long long)v->pages_skipped,
			(unsigned long long)v->skip_asked);
		problems++;
	}
	if (v->end == GUEST_END_HELD) {
		pr_info("guest %u: %s: stopped in its loop\n", v->domain,
			not_run_why(v));
	} else if (v->end == GUEST_END_FAILED) {
		pr_warn("guest %u: not run: %s\n", v->domain, not_run_why(v));
		problems++;
	} else if (v->end != GUEST_END_DONE && v->end != GUEST_END_STAGE2) {
		pr_warn("guest %u: stopped: %s (syndrome %#llx)\n", v->domain,
			guest_end_name(v->end),
			(unsigned long long)v->syndrome);
		problems++;
	}
	return problems;
}

/* The round's vCPUs gone, their pages back; what they did judged. */
void guest_vcpus_finish(void)
{
	guest_state.walk_bytes = guest_state.skipped_pages = 0;
	for (unsigned int i = 0; i < guest_state.count; i++) {
		struct vcpu *v = &guest_state.vcpu[i];

		if (v->made) {
			arch_vcpu_destroy(&v->arch);
			guest_s2_free(&v->s2);
		}
		guest_state.problems += judge(v);
		guest_state.bad_words_rounds += v->bad_words;
		guest_state.walk_bytes += v->pages_walked << PAGE_SHIFT;
		guest_state.skipped_pages += v->pages_skipped;
	}
}

static void warn_unused(uint64_t id, void *why)
{
	for (unsigned int i = 0; i < guest_state.count && why == NULL; i++)
		if (guest_state.vcpu[i].domain == id &&
		    guest_state.vcpu[i].end != GUEST_END_FAILED)
			return;
	pr_warn("inject=guest-past-end:%llu: %s, nothing injected\n",
		(unsigned long long)id,
		why ? (const char *)why : "no guest of that domain runs");
}

/* inject=@kind:@id: held, but no vCPU of that domain, or @why. */
static void warn_held_unused(enum inject_kind kind, uint64_t id, void *why)
{
	for (unsigned int i = 0; i < guest_state.count && why == NULL; i++)
		if (guest_state.vcpu[i].domain == id &&
		    guest_state.vcpu[i].made)
			return;
	pr_warn("inject=%s:%llu: %s, nothing injected\n", inject_name(kind),
		(unsigned long long)id,
		why ? (const char *)why : "no held guest of that domain");
}

static void warn_slow_unused(uint64_t id, void *why)
{
	warn_held_unused(INJECT_VCPU_STOP_SLOW, id, why);
}

static void warn_stuck_unused(uint64_t id, void *why)
{
	warn_held_unused(INJECT_VCPU_STOP_STUCK, id, why);
}

static void warn_exit_slow_unused(uint64_t id, void *why)
{
	warn_held_unused(INJECT_VCPU_EXIT_SLOW, id, why);
}

/* inject=guest-preempt-walk:@id: no held vCPU of that domain, or @why. */
static void warn_preempt_unused(uint64_t id, void *why)
{
	for (unsigned int i = 0; i < guest_state.count && why == NULL; i++)
		if (guest_state.vcpu[i].domain == id &&
		    guest_state.vcpu[i].made)
			return;
	pr_warn("inject=guest-preempt-walk:%llu: %s, nothing injected\n",
		(unsigned long long)id,
		why ? (const char *)why : "no held guest of that domain");
}

/**
 * guests_inject_unused() - warn for each inject=guest-past-end word no
 * guest takes (keel/guest.h).
 * @why: why none does, or NULL: check the round's vCPUs
 */
void guests_inject_unused(const char *why)
{
	inject_for_each(INJECT_GUEST_PAST_END, warn_unused, (void *)why);
	inject_for_each(
		INJECT_VCPU_STOP_SLOW, warn_slow_unused,
		(void *)(why ? why : "no live update holds the guests"));
	inject_for_each(
		INJECT_VCPU_STOP_STUCK, warn_stuck_unused,
		(void *)(why ? why : "no live update holds the guests"));
	inject_for_each(
		INJECT_VCPU_EXIT_SLOW, warn_exit_slow_unused,
		(void *)(why ? why : "no live update holds the guests"));
	inject_for_each(
		INJECT_GUEST_PREEMPT_WALK, warn_preempt_unused,
		(void *)(why ? why : "no live update holds the guests"));
}

/* The first round: what this machine can do, said once. */
static bool round_begin(const struct guest_params *gp)
{
	if (gp->round <= 1) {
		memset(&guest_state, 0, sizeof(guest_state));
		guest_state.touch = gp->touch;
		guest_state.run_ms = gp->run_ms;
		guest_state.freeze_ms = gp->freeze_ms;
		guest_state.unsupported = arch_guest_supported();
		if (guest_state.unsupported)
			pr_warn("guests: cannot run here: %s\n",
				guest_state.unsupported);
	}
	guest_state.rounds = gp->round;
	return !guest_state.unsupported;
}

/**
 * guests_run() - one round (keel/guest.h).
 * @gp: the options and the round's number
 */
void guests_run(const struct domain_set *ds, const struct guest_params *gp)
{
	struct guest_round r = {.gp = gp};
	unsigned int problems = guest_state.problems;
	cpumask_t cpus;

	if (!round_begin(gp)) {
		if (gp->round <= 1)
			guests_inject_unused("guests cannot run here");
		return;
	}
	trace_begin("guests");
	vcpus_setup(ds, gp, &cpus);
	r.slice_ticks = guest_us_to_ticks(GUEST_SLICE_US);
	r.start = arch_ticks();
	r.hold = gp->hold;
	if (gp->hold && guest_hold_start(&r, &cpus)) {
		trace_end("guests");
		pr_info("guests: %u of %u vCPUs left running in their loops "
			"for the live update\n",
			guest_state.held, guest_state.count);
		inject_for_each(INJECT_VCPU_STOP_SLOW, warn_slow_unused, NULL);
		inject_for_each(INJECT_VCPU_STOP_STUCK, warn_stuck_unused,
				NULL);
		inject_for_each(INJECT_VCPU_EXIT_SLOW, warn_exit_slow_unused,
				NULL);
		inject_for_each(INJECT_GUEST_PREEMPT_WALK, warn_preempt_unused,
				NULL);
		return; /* left running: guests_stop() at the freeze */
	}
	if (cpumask_weight(&cpus))
		smp_run_on(&cpus, guest_cpu_main, &r);
	guest_round_times(&r);
	guest_vcpus_finish();
	if (gp->round <= 1)
		guests_inject_unused(NULL);
	trace_end("guests");
	pr_info("guests: round %u of %u: %u vCPUs on %u CPUs, %llu MiB "
		"walked, %u problems, in %llu us\n",
		gp->round, gp->rounds, guest_state.count, cpumask_weight(&cpus),
		(unsigned long long)(guest_state.walk_bytes >> 20),
		guest_state.problems - problems,
		(unsigned long long)(ticks_to_ns(guest_state.run_ticks) /
				     1000));
}

/** guests_state() - Return: what the rounds found (the report reads it). */
const struct guests_state *guests_state(void)
{
	return &guest_state;
}

/** guests_problem_count() - Return: problems of every round so far. */
unsigned int guests_problem_count(void)
{
	return guest_state.problems;
}

/**
 * guests_fail_reason() - the verdict's words for the guests' problems.
 * Return: NULL when there were none.
 */
const char *guests_fail_reason(void)
{
	for (unsigned int i = 0; i < guest_state.count; i++)
		if (guest_state.vcpu[i].resumed && !guest_state.vcpu[i].made)
			return "liveupdate: a vCPU the handover carried was "
			       "not resumed";
	if (guest_state.bad_words_rounds)
		return "guests: a guest read words it did not write";
	if (guest_state.problems)
		return "guests: problems";
	return NULL;
}
