/* SPDX-License-Identifier: MIT */
/*
 * A live update's handover is sized before the freeze for every vCPU the
 * freeze can record (issue 36 §7 "Hangs"): liveupdate.c's counting pass
 * (lu_prepare()) and its write after the freeze (lu_write()) both take the
 * vCPU records from the flow's struct lu_vcpus, whose get() is
 * guests_vcpu_record() (common/guest/guest_carry.c). Sized from the vCPUs
 * already in their loops, a handover came out too small once the freeze
 * had run every held vCPU on into its loop: "the handover did not fit"
 * after the other CPUs were stopped. Here the same writer passes run over
 * the real guests_vcpu_record(): sized with none (or half) of the vCPUs in
 * their loops, written after the freeze put every live one there, the
 * handover must fit its size, hold every vCPU record counted, and
 * be accepted whole by the reader (every domain, every vCPU).
 *
 * Machines: 64 domains, one vCPU each (guest_state holds one per domain,
 * DOMAIN_MAX), on 240 CPUs (the review's machine), arm64 state; and the
 * largest: DOMAIN_MAX domains of 64 extents each, vCPUs on the highest
 * CPU indexes of NR_CPUS, each state the largest an arch_vcpu holds. The
 * sandbox runs no guests, so this test is the arch (arch/sandbox/guest.c's
 * hooks are replaced below, every one of them, so that its object is not
 * linked): arch_vcpu_state() says arm64.
 */
#include "common.h"

#include <arch/guest.h>
#include <keel/domain_spec.h>
#include <keel/guest.h>
#include <keel/handover.h>
#include <keel/liveupdate.h>

#include "../../common/guest/guest_priv.h"

#define HO_PA	   0x38000000ull /* the handover's place, outside the rest */
#define TABLES	   0x10000000ull /* domain d's tables: 3 pages at + d MiB */
#define EXTENTS	   0x20000000ull /* domain d's memory: 2 MiB at + 2d MiB */
#define V_PC	   0x800ull	 /* inside each domain's 40-bit IPA space */
#define V_PSR	   0x3c5ull	 /* EL1h, DAIF masked */
#define MAX_STATE  ((uint32_t)sizeof(struct arch_vcpu))
#define MAX_EXTENT 64u /* extents per domain in the largest machine */

static struct bootinfo bi;
static uint32_t state_bytes = HANDOVER_ARM64_STATE_BYTES;

/* ---- arch/sandbox/guest.c's hooks, replaced: this arch carries vCPUs -- */

const char *arch_guest_supported(void)
{
	return "handover_size_test runs no guest";
}

uint64_t arch_guest_image(void *pages, uint64_t image_ipa,
			  unsigned int *writable)
{
	(void)pages;
	(void)image_ipa;
	*writable = 0;
	return 0;
}

int arch_guest_cpu_init(const char **why)
{
	*why = "unsupported";
	return -EOPNOTSUPP;
}

void arch_guest_cpu_fini(void)
{
}

int arch_vcpu_init(struct arch_vcpu *v, const struct vcpu_setup *s)
{
	(void)v;
	(void)s;
	return -EOPNOTSUPP;
}

void arch_vcpu_run(struct arch_vcpu *v, uint64_t slice_end, struct vcpu_exit *e)
{
	(void)v;
	(void)slice_end;
	e->reason = VCPU_EXIT_FAILED;
}

bool arch_vcpu_in_loop(const struct arch_vcpu *v, uint64_t image_ipa)
{
	(void)v;
	(void)image_ipa;
	return false;
}

const char *arch_guest_slice_timer(void)
{
	return "none";
}

void arch_vcpu_destroy(struct arch_vcpu *v)
{
	(void)v;
}

int arch_vcpu_resume(struct arch_vcpu *v, const void *state, uint32_t bytes,
		     const struct vcpu_setup *s)
{
	(void)v;
	(void)state;
	(void)bytes;
	(void)s;
	return -EINVAL;
}

unsigned int arch_vcpu_state(uint32_t *bytes, const char **why)
{
	*bytes = state_bytes;
	*why = NULL;
	return HANDOVER_VCPU_ARM64;
}

/* ---- the machine and the held round ------------------------------------ */

static void machine(unsigned int cpus)
{
	bootinfo_init(&bi, BOOT_SANDBOX);
	bootinfo_add_ram(&bi, pa(0), pa(1ull << 30), 0);
	bootinfo_add_reserved(&bi, pa(0), pa(1 << 20), "bios");
	for (unsigned int c = 0; c < cpus; c++)
		bootinfo_add_cpu(&bi, c, 0, 0, c, 0, true);
	bi.cpus[0].boot_cpu = true;
	bootinfo_sanitise(&bi);
	assert_int_equal(bi.cpu_count, cpus);
	bi.handover.vcpu_arch = HANDOVER_VCPU_ARM64;
	bi.handover.vcpu_state_bytes = state_bytes;
}

static void put_word(struct arch_vcpu *a, uint32_t off, uint64_t v)
{
	memcpy((uint8_t *)a->w + off, &v, sizeof(v));
}

/*
 * A held round of @count vCPUs, vCPU i domain i + 1 on CPU @cpu0 + i *
 * @cpu_step, made and live; in its loop when @looping(i).
 */
static void held_round(unsigned int count, unsigned int cpu0, int cpu_step,
		       bool (*looping)(unsigned int))
{
	memset(&guest_state, 0, sizeof(guest_state));
	guest_state.count = count;
	for (unsigned int i = 0; i < count; i++) {
		struct vcpu *v = &guest_state.vcpu[i];

		v->domain = (uint16_t)(i + 1);
		v->cpu = (unsigned int)((int)cpu0 + (int)i * cpu_step);
		v->made = v->live = v->walked = true;
		v->looping = looping(i);
		v->stop_ticks = 100 + i;
		memset(v->arch.w, 0xa5, sizeof(v->arch.w));
		put_word(&v->arch, HANDOVER_ARM64_PC, V_PC);
		put_word(&v->arch, HANDOVER_ARM64_PSTATE, V_PSR);
	}
}

/* What guests_stop() leaves: every live vCPU stopped in its loop. */
static void freeze(void)
{
	for (unsigned int i = 0; i < guest_state.count; i++)
		if (guest_state.vcpu[i].live)
			guest_state.vcpu[i].looping = true;
}

static bool none(unsigned int i)
{
	(void)i;
	return false;
}

static bool even(unsigned int i)
{
	return !(i & 1);
}

/* Domain @id: 3 table pages, @extents extents of 2 MiB / @extents. */
static void put_domain(struct ho_writer *w, uint16_t id, unsigned int extents)
{
	uint64_t base = EXTENTS + (uint64_t)id * (2 << 20);
	uint64_t pages = 512 / extents;
	struct handover_domain d;

	memset(&d, 0, sizeof(d));
	d.id = id;
	snprintf(d.name, sizeof(d.name), "d%u", id);
	d.p2m_root = TABLES + (uint64_t)id * (1 << 20);
	d.p2m_format = HANDOVER_P2M_VMSA;
	d.p2m_ipa_bits = 40;
	d.vcpus = 1;
	ho_domain_begin(w, &d);
	ho_domain_table(w, d.p2m_root, d.p2m_root + 3 * 4096);
	/* Reversed in pa so that no two extents merge. */
	for (unsigned int k = 0; k < extents; k++)
		ho_domain_extent(
			w, (uint64_t)k * pages << 12,
			base + ((uint64_t)(extents - 1 - k) * pages << 12),
			pages);
	ho_domain_end(w);
}

/*
 * liveupdate.c's passes over @domains domains and the held vCPUs: into
 * [@buf, + @cap), or counting (@buf NULL). @records: vCPU records put.
 * Return: ho_finish()'s (the size; 0: it did not fit).
 */
static uint64_t handover(void *buf, uint64_t cap, unsigned int domains,
			 unsigned int extents, unsigned int *records)
{
	struct handover_header hd = {.generation = 1, .written_ticks = 1000};
	struct handover_vcpu rec;
	const void *st;
	struct ho_writer w;
	unsigned int i;

	ho_writer_init(&w, buf, cap);
	for (uint16_t id = 1; id <= domains; id++)
		put_domain(&w, id, extents);
	for (i = 0; guests_vcpu_record(NULL, i, &rec, &st); i++)
		ho_vcpu(&w, &rec, st);
	*records = i;
	ho_preserved(&w);
	return ho_finish(&w, &hd);
}

/* Sized now, written after freeze(): it fits and is read back whole. */
static void sized_then_written(unsigned int domains, unsigned int extents,
			       unsigned int live)
{
	unsigned int counted, written;
	uint64_t cap, size;
	uint8_t *buf;

	cap = handover(NULL, 0, domains, extents, &counted);
	/* Every live vCPU, in its loop or not. */
	assert_int_equal(counted, live);
	freeze();
	buf = aligned_alloc(4096, ALIGN_UP(cap, 4096));
	assert_non_null(buf);
	size = handover(buf, cap, domains, extents, &written);
	if (!size)
		fail_msg("the handover did not fit its %llu bytes",
			 (unsigned long long)cap);
	assert_int_equal(written, live);
	/* Below the size only by the preserved ranges that merged. */
	assert_true(size <= cap);
	if (handover_parse(&bi, buf, size, pa(HO_PA)))
		fail_msg("refused: %s", bi.handover.why);
	assert_int_equal(bi.handover.state, HANDOVER_TAKEN);
	assert_int_equal(bi.handover.domain_count, domains);
	assert_int_equal(bi.handover.vcpu_count, live);
	for (unsigned int i = 0; i < live; i++)
		assert_int_equal(bi.handover.vcpus[i].state_bytes, state_bytes);
	free(buf);
}

/* 240 CPUs, 64 domains: sized right after the round began, none looping. */
static void test_240_cpus_64_domains_none_looping(void **state)
{
	(void)state;
	state_bytes = HANDOVER_ARM64_STATE_BYTES;
	machine(240);
	held_round(64, 239, -3, none); /* CPUs 239, 236, ..., 50 */
	sized_then_written(64, 2, 64);
}

/* Half in their loops; one ended, one never made: neither counted. */
static void test_240_cpus_half_looping(void **state)
{
	(void)state;
	state_bytes = HANDOVER_ARM64_STATE_BYTES;
	machine(240);
	held_round(64, 10, 3, even);
	guest_state.vcpu[7].live = false;  /* ended before the update */
	guest_state.vcpu[20].made = false; /* its init failed */
	guest_state.vcpu[20].live = false;
	sized_then_written(64, 2, 62);
}

/* The largest: DOMAIN_MAX domains of 64 extents, the largest state. */
static void test_largest(void **state)
{
	(void)state;
	state_bytes = MAX_STATE;
	machine(CONFIG_NR_CPUS);
	held_round(DOMAIN_MAX, CONFIG_NR_CPUS - 1, -1, none);
	sized_then_written(DOMAIN_MAX, MAX_EXTENT, DOMAIN_MAX);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, test_setup, test_teardown)
	const struct CMUnitTest tests[] = {
		T(test_240_cpus_64_domains_none_looping),
		T(test_240_cpus_half_looping),
		T(test_largest),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
