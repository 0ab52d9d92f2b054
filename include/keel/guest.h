/* SPDX-License-Identifier: MIT */
/*
 * Owner: guest.
 * Guests that run in their domains (DESIGN §14, issue 31): guests=on
 * gives every built domain one vCPU running the guest program
 * (<keel/guest_abi.h>) with its own stage 1 off. It walks its whole IPA
 * range through the MMU, checking every guest_touch= bytes that the word
 * reads zero and writing its own pattern there, reports, then loops on
 * the counter for guest_run_ms= and reports the largest gap it saw: its
 * blackout. The vCPUs of a domain run on the CPUs of its build node,
 * several sharing a CPU in turns of GUEST_SLICE_US.
 *
 * The guest image (the program and, on x86_64, its identity page tables)
 * is one set of GUEST_IMAGE_PAGES read-only pages, mapped at the same IPA
 * in every domain, above its memory: guest_image_ipa(). The domain's own
 * table is never changed: each vCPU runs on a copy of its root and of the
 * tables on the path to the image (common/guest/guest_stage2.c), which
 * share every other table with the domain's. So the domain's memory stays
 * the domain's, every page of it walked, and the checks and destroy see
 * the domain's table as the build left it.
 *
 * Files: guest.c (the phase: vCPUs set up, run on their CPUs, torn down;
 * what the report reads), guest_run.c (one CPU's turns and the exits),
 * guest_stage2.c (the image's mapping), guest_carry.c (a round held for
 * a live update, its vCPUs stopped by the freeze, carried in the
 * handover and resumed by the new image). The report: common/report/
 * guest_report.c. Arch hooks: <arch/guest.h>.
 */
#ifndef KEEL_GUEST_H
#define KEEL_GUEST_H

#include <arch/guest.h>
#include <keel/domain.h>
#include <keel/p2m.h>
#include <keel/types.h>

/* guest_touch= bounds and default (bytes between two words touched). */
#define GUEST_TOUCH_MIN	    8
#define GUEST_TOUCH_MAX	    4096
#define GUEST_TOUCH_DEFAULT 64
/* guest_run_ms= default and bound. */
#define GUEST_RUN_MS_DEFAULT 20
#define GUEST_RUN_MS_MAX     60000
/* guest_rounds= bound: each round after the first rebuilds the domains. */
#define GUEST_ROUNDS_MAX 8
/* A vCPU's turn on its CPU before the next one's (CNTHP / APIC timer). */
#define GUEST_SLICE_US 2000
/* Guests walk at most this much (x86_64's identity map: one PDPT). */
#define GUEST_MAX_BYTES (512ULL << 30)

/* What the flow hands the guest phase (parsed options, keel_options). */
struct guest_params {
	uint32_t touch;		    /* guest_touch= */
	uint32_t run_ms;	    /* guest_run_ms= */
	uint32_t freeze_ms;	    /* lu_freeze_ms=: the freeze's bound */
	unsigned int round, rounds; /* this round (1..), of guest_rounds= */
	/*
	 * A live update follows this round: its vCPUs are left running in
	 * their loops, on CPUs other than the boot CPU, until guests_stop()
	 * (the freeze), and carried in the handover (guest_carry.c).
	 */
	bool hold;
};

/* A held vCPU's loop, at most (it is stopped by the freeze long before). */
#define GUEST_HOLD_MS 600000
/* How long the boot CPU waits for held vCPUs to reach their loops. */
#define GUEST_HOLD_WAIT_MS 30000
/*
 * inject=vcpu-stop-slow: how late the stop is answered, in freeze bounds
 * (lu_freeze_ms=, guests_state.freeze_ms): 3, so past the freeze's
 * deadline whatever the bound (3 s by default).
 */
#define GUEST_STOP_SLOW_BOUNDS 3
/*
 * How long guests_release() waits for the held round to stop when no
 * update came: a CPU ends its turn within a slice (GUEST_SLICE_US), so
 * this is 2500 slices, 5 times the freeze's default bound; with a longer
 * lu_freeze_ms=, 5 times it (guest_release_ms()), room for a
 * vcpu-stop-slow answer that began in the freeze (3 bounds after its
 * stamp; the release begins 1 bound after it at the earliest). Past it
 * the boot gives up on the CPUs that did not stop (guest_carry.c
 * give_up()).
 */
#define GUEST_RELEASE_MS 5000
static inline uint64_t guest_release_ms(uint32_t freeze_ms)
{
	return 5ULL * freeze_ms > GUEST_RELEASE_MS ? 5ULL * freeze_ms
						   : GUEST_RELEASE_MS;
}
/* inject=vcpu-stop-stuck: the longest it holds its CPU, a safety net. */
#define GUEST_STOP_STUCK_MS(freeze_ms) (2 * guest_release_ms(freeze_ms))
/*
 * inject=vcpu-exit-slow: the longest its CPU stays in its exit, a safety
 * net past the freeze's bound and guests_release()'s two.
 */
#define GUEST_EXIT_SLOW_MS(freeze_ms) (3 * guest_release_ms(freeze_ms))
/*
 * How long a failed freeze's run_on() waits for a held CPU that had begun
 * its exit to run on or be back in its mailbox (its exit is a few stores
 * and a free: microseconds; this is the freeze's own bound).
 */
#define GUEST_RUN_ON_WAIT_MS 1000

/* How a vCPU ended (guests[].exit_reason). */
enum guest_end {
	GUEST_END_NONE = 0,  /* not run (unsupported, or no room) */
	GUEST_END_DONE,	     /* walked, looped, reported */
	GUEST_END_STAGE2,    /* touched an IPA it was not given: stopped */
	GUEST_END_TRAP,	     /* did what keel traps: stopped */
	GUEST_END_EXCEPTION, /* took an exception of its own: stopped */
	GUEST_END_FAILED,    /* could not be set up or entered */
	GUEST_END_HELD,	     /* walked, stopped in its loop: held for a
				live update that did not come */
};

/*
 * A vCPU's stage 2 (common/guest/guest_stage2.c): @p2m is the domain's
 * table with its own root; @own the pages it allocated (root copy, the
 * tables on the image's path, the image), given back when it goes.
 */
#define GUEST_S2_OWN 5
struct guest_s2 {
	struct p2m p2m;
	paddr_t image;	      /* GUEST_IMAGE_PAGES pages */
	uint64_t image_ipa;   /* where the guest sees them */
	uint64_t *leaf_table; /* keel's view of the table that maps them */
	paddr_t own[GUEST_S2_OWN];
	uint8_t own_order[GUEST_S2_OWN];
	unsigned int own_count;
	/*
	 * Given back as dirty: taken before the boot scrub (a guest resumed
	 * after a live update), so that the scrub counts them as it counts
	 * every free page; else clean (zeroed here).
	 */
	bool free_dirty;
};

/* One vCPU: what it did (the report) and its arch state (arch_vcpu). */
struct vcpu {
	uint16_t domain;  /* the domain's id (heap owner id) */
	uint32_t node;	  /* the domain's build node: its CPUs run it */
	unsigned int cpu; /* the CPU it runs on */
	uint64_t bytes;	  /* its IPA range [0, bytes) */
	bool made;	  /* arch_vcpu_init() done: destroy it */
	bool live;	  /* entered and not ended */
	bool walked;	  /* GUEST_HC_WALK came */
	bool looping;	  /* its slice ended after the walk: in its loop */
	bool resumed;	  /* from a handover's record (a live update) */
	/* inject=guest-preempt-walk: the pc its slice ended at after its walk */
	uint64_t preempt_walk_pc;
	bool preempt_walk_paused;
	uint64_t stop_ticks; /* its last exit (arch_ticks()) */
	enum guest_end end;
	uint64_t pages_walked, bad_words, first_bad_ipa, first_bad_value;
	/* Bad pages of its range: in its skip list; skipped, as it says. */
	uint64_t skip_asked, pages_skipped;
	uint64_t stage2_faults, fault_ipa; /* fault_ipa: GUEST_NO_IPA: none */
	uint64_t syndrome;		   /* of a trap or exception */
	uint64_t gap_ticks, iterations;	   /* its loop: largest gap */
	uint64_t walk_ticks;		   /* its own clock, the whole walk */
	uint64_t walk_cpu_ticks;  /* keel's: the walk's turns on its CPU */
	uint64_t runs, cpu_ticks; /* turns; time on its CPU */
	char why[64];		  /* GUEST_END_FAILED: why */
	struct guest_s2 s2;	  /* the domain's table + the image */
	struct arch_vcpu arch;
};

/* The guests of the last round, and what every round found. */
struct guests_state {
	const char *unsupported; /* NULL, or why no guest runs here */
	struct vcpu vcpu[DOMAIN_MAX];
	unsigned int count;
	unsigned int rounds;		 /* rounds run */
	uint64_t bad_words_rounds;	 /* bad words, every round */
	uint64_t run_ticks;		 /* the last round's wall time */
	uint64_t walk_bytes, walk_ticks; /* the last round: bytes, wall time */
	uint64_t
		skipped_pages; /* the last round: bad pages its walks skipped */
	unsigned int problems; /* faults inside a range, bad words, failures */
	uint32_t touch, run_ms;
	uint32_t freeze_ms; /* lu_freeze_ms=: the live update's freeze bound */
	/* Across a live update (guest_carry.c). */
	unsigned int held;	/* this image's vCPUs left running */
	unsigned int resumed;	/* the handover's vCPUs resumed here */
	unsigned int carried;	/* vCPU records the handover had */
	const char *carry_why;	/* NULL, or why guests are not carried */
	uint64_t stop_after_ns; /* the old freeze to its last vCPU stop */
};

/*
 * guests_run(): one round: a vCPU for every built domain, run on its
 * build node's CPUs until each has reported (or stopped), then torn down.
 * Boot CPU, after domains_check(). The first round says in one line when
 * guests cannot run here (arch_guest_supported()).
 */
struct domain_set;
void guests_run(const struct domain_set *ds, const struct guest_params *gp);

/*
 * Across a live update (common/guest/guest_carry.c; the flow calls these,
 * the live-update room gets them as struct lu_vcpus):
 *  - guests_can_hold(): Return: true when this arch carries vCPUs (else
 *    one warning and guests_state()->carry_why);
 *  - guests_stop(): the freeze: every held vCPU stopped at its slice's
 *    end in its loop, its state kept, its CPU back to its mailbox, by
 *    @deadline (arch_ticks()); or an error, @why naming the vCPU whose CPU
 *    did not answer or that cannot be carried (ended, not resumed), and
 *    the held vCPUs run on;
 *  - guests_run_on(): a freeze that failed after guests_stop(): the held
 *    vCPUs run on;
 *  - guests_vcpu_record(): the @i-th held vCPU's record (every one made
 *    and live: before the freeze, the most the freeze can record), false:
 *    no more;
 *  - guests_release(): the held round torn down and judged (an update
 *    that did not happen);
 *  - guests_resume(): the new image: every vCPU of handover @h resumed
 *    on its domain's node (the same CPU index when it can), run for
 *    guest_run_ms=, judged; or, @gp->hold (another update follows),
 *    held for it: run until each has had a turn, then paused while this
 *    image's boot uses every CPU;
 *  - guests_continue(): the paused held vCPUs run on until the freeze
 *    (just before the update; nothing else is posted to their CPUs).
 */
struct handover_vcpu;
struct bi_handover;
bool guests_can_hold(void);
int guests_stop(void *unused, uint64_t deadline, char *why, size_t n);
void guests_run_on(void *unused);
bool guests_vcpu_record(void *unused, unsigned int i, struct handover_vcpu *rec,
			const void **state);
void guests_release(void);
void guests_continue(void);
void guests_resume(const struct domain_set *ds, const struct guest_params *gp,
		   const struct bi_handover *h);

/* What the rounds found, for the report and the verdict. */
const struct guests_state *guests_state(void);
unsigned int guests_problem_count(void);
/* The verdict's words for the guests' problems, NULL: none. */
const char *guests_fail_reason(void);
/*
 * guests_inject_unused(): one warning for each inject=guest-past-end:N
 * word that no guest acts on, saying @why (guests=on not given, guests
 * unsupported here, no such domain).
 */
void guests_inject_unused(const char *why);

/* The IPA of the guest image in table @p (below 2^47 and its widths). */
uint64_t guest_image_ipa(const struct p2m *p);
/*
 * The seed of domain @id's pattern in round @round (the word at IPA a is
 * a ^ seed): what wrote a word is in the word.
 */
static inline uint64_t guest_seed(uint16_t id, unsigned int round)
{
	return ((uint64_t)((GUEST_SEED_BASE ^ round) & 0xff) << 8 | (id & 0xff))
	       << GUEST_SEED_SHIFT;
}

/* "done", "stage2-fault", ... (guests[].exit_reason). */
const char *guest_end_name(enum guest_end e);

#endif
