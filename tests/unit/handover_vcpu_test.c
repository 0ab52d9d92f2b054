// SPDX-License-Identifier: MIT
/*
 * The handover's vCPU records (version 2, include/keel/handover.h): the
 * writer (common/liveupdate/handover_write.c) and the reader
 * (boot/handover.c, boot/handover_vcpu.c) round trip, and every rule of a
 * vCPU record broken one at a time, the checksum made right again after
 * each change, each refused with a reason naming the field: the record's
 * own fields, then the state words a resume loads (PSTATE, pc, rflags,
 * rip) read as firmware input. The machine is handover_test.c's: RAM
 * [0, 1G) on node 0 and [4G, 5G) on node 1, bios and kernel reserved
 * below 3M, the handover at 0x20000000, one CPU.
 */
#include "common.h"
#include <keel/handover.h>
#include <keel/liveupdate.h>

#define HO_PA  0x20000000ull
#define BUF_SZ 16384
#define G4     0x100000000ull

static struct bootinfo bi;
static uint8_t buf[BUF_SZ] __attribute__((aligned(4096)));
static uint64_t size;

static void machine(void)
{
	bootinfo_init(&bi, BOOT_SANDBOX);
	bootinfo_add_ram(&bi, pa(0), pa(1ull << 30), 0);
	bootinfo_add_ram(&bi, pa(G4), pa(G4 + (1ull << 30)), 1);
	bootinfo_add_reserved(&bi, pa(0), pa(1 << 20), "bios");
	bootinfo_add_reserved(&bi, pa(1 << 20), pa(3 << 20), "kernel");
	bootinfo_add_cpu(&bi, 0, 0, 0, 0, 0, true);
	bi.cpus[0].boot_cpu = true;
	bootinfo_sanitise(&bi);
}

static void domain(struct ho_writer *w, uint16_t id, const char *name,
		   uint32_t node, uint64_t root)
{
	struct handover_domain d;

	memset(&d, 0, sizeof(d));
	d.id = id;
	d.node = node;
	strcpy(d.name, name);
	d.p2m_root = root;
	d.p2m_format = HANDOVER_P2M_VMSA;
	d.p2m_ipa_bits = 40;
	ho_domain_begin(w, &d);
}

static struct handover_header *hdr(void)
{
	return (struct handover_header *)(void *)buf;
}

/* The record of @type, the @nth of it. */
static uint8_t *record(uint32_t type, unsigned int nth)
{
	for (uint64_t off = HANDOVER_HEADER_BYTES; off < size;) {
		struct handover_rec *r = (void *)(buf + off);

		if (r->type == type && !nth--)
			return buf + off;
		off += r->bytes;
	}
	fail_msg("no record of type %u", type);
	return NULL;
}

static void resum(void)
{
	hdr()->checksum = handover_checksum(buf, hdr()->size);
}

static int parse(void)
{
	return handover_parse(&bi, buf, size, pa(HO_PA));
}

/* Refused, with @why in the reason, which begins "handover: ". */
static void refused(const char *why)
{
	int err = parse();

	if (err != -EINVAL || !strstr(bi.handover.why, why) ||
	    strncmp(bi.handover.why, "handover: ", 10))
		fail_msg("expected a refusal naming \"%s\", got %d \"%s\"", why,
			 err, bi.handover.why);
	assert_int_equal(bi.handover.state, HANDOVER_REFUSED);
}

/* ---- vCPU records (version 2) ----------------------------------------- */

/* arm64's state block: 488 bytes, pc and PSTATE at their offsets. */
#define VSTATE HANDOVER_ARM64_STATE_BYTES
#define V_PC   0x800ull /* inside alpha's 40-bit IPA space */
#define V_PSR  0x3c5ull /* EL1h, DAIF masked */

static void put_word(uint8_t *st, uint32_t off, uint64_t v)
{
	memcpy(st + off, &v, sizeof(v));
}

/* write_all()'s alpha, a vCPU of it (cpu 0), its state 0xa5 but pc, PSR. */
static uint64_t write_vcpu(uint8_t *b, uint64_t cap, uint32_t state_bytes)
{
	struct handover_header hd = {.generation = 1, .written_ticks = 300};
	struct handover_vcpu v = {.domain = 1,
				  .arch = HANDOVER_VCPU_ARM64,
				  .state_bytes = state_bytes,
				  .stop_ticks = 250};
	static uint8_t st[HANDOVER_VCPU_STATE_MAX + 8];
	struct ho_writer w;

	memset(st, 0xa5, sizeof(st));
	put_word(st, HANDOVER_ARM64_PC, V_PC);
	put_word(st, HANDOVER_ARM64_PSTATE, V_PSR);
	ho_writer_init(&w, b, cap);
	domain(&w, 1, "alpha", 0, 0x10000000);
	ho_domain_table(&w, 0x10000000, 0x10003000);
	ho_domain_extent(&w, 0, 0x10200000, 512);
	ho_domain_end(&w);
	ho_vcpu(&w, &v, st);
	ho_preserved(&w);
	return ho_finish(&w, &hd);
}

static int setup_vcpu(void **state)
{
	machine();
	bi.handover.vcpu_arch = HANDOVER_VCPU_ARM64;
	bi.handover.vcpu_state_bytes = VSTATE;
	memset(buf, 0, sizeof(buf));
	size = write_vcpu(buf, sizeof(buf), VSTATE);
	return test_setup(state);
}

static struct handover_vcpu *vrec(void)
{
	return (void *)record(HANDOVER_REC_VCPU, 0);
}

static uint8_t *vstate(void)
{
	return (uint8_t *)vrec() + sizeof(struct handover_vcpu);
}

static void test_vcpu_round_trip(void **state)
{
	const struct bi_handover_vcpu *v = &bi.handover.vcpus[0];
	uint8_t *p;

	assert_int_equal(vrec()->head.bytes, 48 + VSTATE);
	assert_int_equal(parse(), 0);
	assert_int_equal(hdr()->version, HANDOVER_VERSION);
	assert_int_equal(bi.handover.vcpu_count, 1);
	assert_int_equal(v->domain, 1);
	assert_int_equal(v->cpu, 0);
	assert_int_equal(v->arch, HANDOVER_VCPU_ARM64);
	assert_int_equal(v->stop_ticks, 250);
	assert_int_equal(v->state_bytes, VSTATE);
	assert_ptr_equal(v->state, (uint8_t *)vrec() + 48);
	for (unsigned int i = 0; i < HANDOVER_ARM64_PC; i++)
		assert_int_equal(v->state[i], 0xa5);
	assert_int_equal(bi.handover.preserved_count, 2);
	/* A state of 20 bytes is padded to 24 with zeroes. */
	size = write_vcpu(buf, sizeof(buf), 20);
	assert_int_equal(vrec()->head.bytes, 48 + 24);
	p = vstate();
	for (unsigned int i = 20; i < 24; i++)
		assert_int_equal(p[i], 0);
	/* Too large a state block is not written. */
	assert_int_equal(
		write_vcpu(buf, sizeof(buf), HANDOVER_VCPU_STATE_MAX + 8), 0);
}

/* Each rule of a vCPU record broken alone, then mended. */
static void test_vcpu_rules(void **state)
{
	struct handover_vcpu *v = vrec();

	v->state_bytes = VSTATE + 8;
	resum();
	refused("vcpus[0]: state_bytes 496 truncated");
	v->state_bytes = 4;
	resum();
	refused("vcpus[0]: state_bytes 4");
	v->state_bytes = VSTATE;
	v->domain = 7;
	resum();
	refused("vcpus[0]: domain 7 is no domain record");
	v->domain = 1;
	v->cpu = 3;
	resum();
	refused("vcpus[0]: cpu 3 does not exist");
	v->cpu = 0;
	v->arch = HANDOVER_VCPU_SVM;
	resum();
	refused("vcpus[0]: arch 2, this image's is 1");
	v->arch = HANDOVER_VCPU_ARM64;
	v->flags = 1;
	resum();
	refused("vcpus[0]: flags 0x1");
	v->flags = 0;
	resum();
	bi.handover.vcpu_state_bytes = 16;
	refused("vcpus[0]: state_bytes 488, arch 1 has 16");
	bi.handover.vcpu_state_bytes = VSTATE;
	bi.handover.vcpu_arch = HANDOVER_VCPU_NONE;
	refused("vcpus[0]: arch 1, but this image runs no guests");
	bi.handover.vcpu_arch = HANDOVER_VCPU_ARM64;
	v->stop_ticks = 301;
	resum();
	refused("vcpus[0]: stop_ticks 301 after the records were written");
	v->stop_ticks = 250;
	hdr()->version = 1;
	resum();
	refused("record 1: type 3 (vCPU state) not in version 1");
	hdr()->version = 3;
	resum();
	assert_int_equal(parse(), 0);
}

/* Set word @off of the state to @val, the checksum made right. */
static void vword(uint32_t off, uint64_t val)
{
	put_word(vstate(), off, val);
	resum();
}

/*
 * The words a resume loads, as firmware input: every PSTATE mode but
 * EL0t/EL1t/EL1h (EL2h would return into EL2 at the guest's pc), IL and
 * reserved bits, a pc outside the domain or misaligned; and x86_64's
 * rflags and rip. Each fails on the reader before this check.
 */
static void test_vcpu_state_rules(void **state)
{
	static const uint64_t bad_modes[] = {0x8, 0x9, 0xc, 0xd, 0x10, 0x1};
	struct handover_domain *d = (void *)record(HANDOVER_REC_DOMAIN, 0);
	struct handover_vcpu *v = vrec();

	for (unsigned int i = 0; i < ARRAY_SIZE(bad_modes); i++) {
		vword(HANDOVER_ARM64_PSTATE, 0x3c0 | bad_modes[i]);
		refused("is not EL0t, EL1t or EL1h");
	}
	vword(HANDOVER_ARM64_PSTATE, 0x4);
	assert_int_equal(parse(), 0);
	vword(HANDOVER_ARM64_PSTATE, V_PSR | (1ull << 20));
	refused("vcpus[0] (domain 1): PSTATE 0x1003c5 has bits 0x100000 set");
	vword(HANDOVER_ARM64_PSTATE, V_PSR | (1ull << 40));
	refused("has bits 0x10000000000 set");
	vword(HANDOVER_ARM64_PSTATE, V_PSR);
	vword(HANDOVER_ARM64_PC, 1ull << 40);
	refused("pc 0x10000000000 outside domain 1 (alpha)'s 40-bit IPA");
	vword(HANDOVER_ARM64_PC, (1ull << 40) - 4);
	assert_int_equal(parse(), 0);
	vword(HANDOVER_ARM64_PC, 0x802);
	refused("pc 0x802 not 4-byte aligned");
	vword(HANDOVER_ARM64_PC, V_PC);
	assert_int_equal(parse(), 0);
	/* An arm64 vCPU in a domain of another format. */
	d->p2m_format = HANDOVER_P2M_NPT;
	resum();
	refused("arch 1 (arm64) in a domain of p2m_format 3");
	/* x86_64 SVM: 160 bytes, rip at 128, rflags at 152. */
	bi.handover.vcpu_arch = HANDOVER_VCPU_SVM;
	bi.handover.vcpu_state_bytes = VSTATE;
	v->arch = HANDOVER_VCPU_SVM;
	vword(HANDOVER_SVM_RIP, 0x1000);
	vword(HANDOVER_SVM_RFLAGS, 0x2);
	assert_int_equal(parse(), 0);
	vword(HANDOVER_SVM_RFLAGS, 0x2 | (1ull << 17));
	refused("rflags 0x20002");
	vword(HANDOVER_SVM_RFLAGS, 0);
	refused("rflags 0 (bit 1 clear");
	vword(HANDOVER_SVM_RFLAGS, 0x2 | (1ull << 40));
	refused("rflags 0x10000000002");
	vword(HANDOVER_SVM_RFLAGS, 0x202);
	vword(HANDOVER_SVM_RIP, 0xffff800000000000ull);
	refused("pc 0xffff800000000000 outside domain 1 (alpha)'s 40-bit");
	vword(HANDOVER_SVM_RIP, 0x1000);
	d->p2m_format = HANDOVER_P2M_VMSA;
	resum();
	refused("arch 2 (x86_64 SVM) in a domain of p2m_format 1");
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup_vcpu, test_teardown)
	const struct CMUnitTest tests[] = {
		T(test_vcpu_round_trip),
		T(test_vcpu_rules),
		T(test_vcpu_state_rules),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
