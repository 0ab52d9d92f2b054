/* SPDX-License-Identifier: MIT */
/*
 * What the files of the guest room share (common/guest/): the state of
 * the round, one CPU's run loop, the vCPUs' stage 2. See keel/guest.h.
 */
#ifndef COMMON_GUEST_PRIV_H
#define COMMON_GUEST_PRIV_H

#include <keel/guest.h>

/* The state of every round (guest.c). */
extern struct guests_state guest_state; /* written by guest.c only */
/* What guest_carry.c changes in it, through its owner (guest.c). */
void guest_state_carry_why(const char *why);
void guest_state_set_held(unsigned int held);
void guest_state_resumed_add(void);
void guest_state_problem_add(void);
void guest_vcpus_reset(void);
struct vcpu *guest_vcpu_add(void);
/* The new image's round of @carried vCPUs begins. Return: unsupported. */
const char *guest_state_resume_begin(const struct guest_params *gp,
				     unsigned int carried);
void guest_state_set_stop_after(uint64_t ns);

/* guest_run.c: run the calling CPU's vCPUs until each has ended. */
struct guest_round {
	const struct guest_params *gp;
	uint64_t slice_ticks;
	uint64_t start;	   /* arch_ticks() at the round's start */
	uint64_t walk_end; /* the last GUEST_HC_WALK (atomic max) */
	bool hold;	   /* a held round (guest_carry.c) */
	uint32_t stop;	   /* held: set by guests_stop() (atomic) */
	uint32_t gate;	   /* held: the exits, GUEST_GATE_* (atomic) */
};
/*
 * Round @r is over (run, released, or resumed): its wall time to now and
 * to its last walk (0 when none: a resumed round walks none) recorded.
 */
void guest_round_times(struct guest_round *r);
/*
 * guest_round.gate: how many CPUs are in their exit (GUEST_GATE_EXITS) and
 * how many of them give back what they hold (arch_guest_cpu_fini():
 * GUEST_GATE_FINIS, counted in GUEST_GATE_FINI); guests_release() gave up
 * on the CPUs that did not stop (GUEST_GATE_SHUT: one that comes back
 * later touches nothing shared), then, its bound past, on those still in
 * their exit (GUEST_GATE_GONE: none of them gives anything back). See
 * guest_run.c exit_begin().
 */
#define GUEST_GATE_EXITS 0x7fffu
#define GUEST_GATE_FINI	 (1u << 15)
#define GUEST_GATE_FINIS (0x7fffu << 15)
#define GUEST_GATE_GONE	 (1u << 30)
#define GUEST_GATE_SHUT	 (1u << 31)
/* guest_cpu_exit_state(): past its exit's gate; given up on, it kept all. */
#define GUEST_CPU_EXITING 1u
#define GUEST_CPU_KEPT	  2u
unsigned int guest_cpu_exit_state(unsigned int cpu);
void guest_cpu_main(void *arg);

/* guest.c, shared with guest_carry.c */
uint64_t guest_us_to_ticks(uint64_t us);
int guest_vcpu_prepare(struct vcpu *v, const struct domain_view *dv,
		       const struct guest_params *gp, struct vcpu_setup *s);
unsigned int guest_node_cpu_after(uint32_t node, unsigned int from,
				  unsigned int skip);
unsigned int guest_hold_cpu(uint32_t node, unsigned int from);
void guest_vcpus_finish(void);
/* guest_carry.c: the held round's CPUs started; false: not held. */
bool guest_hold_start(struct guest_round *r, const cpumask_t *cpus);

/* guest_skip.c: @dv's skip list. Return: IPAs in it, or -errno. */
int guest_skip_list(const struct domain_view *dv, uint64_t *list);

/* guest_stage2.c */
int guest_s2_build(struct guest_s2 *s, const struct p2m *dom,
		   uint64_t image_ipa);
void guest_s2_map_image(struct guest_s2 *s, unsigned int writable);
void *guest_s2_image(const struct guest_s2 *s);
void guest_s2_publish(struct guest_s2 *s);
void guest_s2_free(struct guest_s2 *s);

#endif
