/* SPDX-License-Identifier: MIT */
/*
 * A handover's vCPU state block read as firmware input (boot/handover.c
 * calls it for each vCPU record, before anything is restored): the words
 * a resume loads into the CPU are checked here, so that a forged or
 * corrupt record can never return into EL2/EL3, into virtual-8086 mode or
 * to a pc outside its own domain. The layouts are the handover format's
 * (include/keel/handover.h, docs/liveupdate.md), read by byte offset, so
 * boot/ needs no arch header.
 *
 *  arm64 (HANDOVER_VCPU_ARM64, a VMSA domain): PSTATE (SPSR_EL2 at the
 *   resume) AArch64 (M[4] 0), EL0t, EL1t or EL1h, IL 0, no bit outside
 *   the ones Armv8/v9 define for an AArch64 SPSR (Arm ARM DDI 0487 J.a,
 *   C5.2.18 "SPSR_EL2"); pc 4-byte aligned.
 *  x86_64 SVM (HANDOVER_VCPU_SVM, an NPT domain): RFLAGS bit 1 set, its
 *   reserved bits (3, 5, 15, 22-63) clear, VM (17) clear (AMD64 APM Vol.
 *   2, 3.1.6 "RFLAGS Register").
 *  Both: the pc (rip) inside the domain's IPA space (below 2^p2m_ipa_bits
 *   of its record): the guest runs with its own translation off (arm64)
 *   or through an identity map (x86_64), so its pc is a guest physical
 *   address of its stage 2 (its program's page lies at the top of it,
 *   outside the extents, which hold its memory).
 *
 * Pure: reads @state (state_bytes long, checked by the caller) and the
 * domain's record.
 */
#include <keel/compiler.h>
#include <keel/errno.h>
#include <keel/handover.h>
#include <keel/printk.h>
#include <keel/string.h>

#include "boot_priv.h"

/* AArch64 SPSR bits a resume may carry: NZCV TCO DIT UAO PAN SS ALLINT
 * SSBS BTYPE DAIF M. IL (20) is refused: an illegal state. */
#define PSR_KNOWN 0xf3e03fdfull
#define PSR_M	  0x1full
#define PSR_EL0T  0x0ull
#define PSR_EL1T  0x4ull
#define PSR_EL1H  0x5ull
/* RFLAGS: bit 1 reads one; 3, 5, 15 and 22-63 are reserved; VM is 17. */
#define RFLAGS_ONE 0x2ull
#define RFLAGS_RSV \
	(0xffffffffffc00000ull | (1ull << 3) | (1ull << 5) | (1ull << 15))
#define RFLAGS_VM (1ull << 17)

static uint64_t word_at(const uint8_t *state, uint32_t off)
{
	uint64_t w;

	memcpy(&w, state + off, sizeof(w));
	return w;
}

static int check_arm64(const uint8_t *state, uint8_t format, char *why,
		       size_t n)
{
	uint64_t psr = word_at(state, HANDOVER_ARM64_PSTATE);
	uint64_t m = psr & PSR_M;

	if (format != HANDOVER_P2M_VMSA)
		return snprintf(why, n,
				"arch 1 (arm64) in a domain of "
				"p2m_format %u",
				format),
		       -EINVAL;
	if (m != PSR_EL0T && m != PSR_EL1T && m != PSR_EL1H)
		return snprintf(why, n,
				"PSTATE %#llx mode %#llx is not EL0t, EL1t or "
				"EL1h",
				U64(psr), U64(m)),
		       -EINVAL;
	if (psr & ~PSR_KNOWN)
		return snprintf(why, n,
				"PSTATE %#llx has bits %#llx set (IL or "
				"reserved)",
				U64(psr), U64(psr & ~PSR_KNOWN)),
		       -EINVAL;
	if (word_at(state, HANDOVER_ARM64_PC) & 3)
		return snprintf(why, n, "pc %#llx not 4-byte aligned",
				U64(word_at(state, HANDOVER_ARM64_PC))),
		       -EINVAL;
	return 0;
}

static int check_svm(const uint8_t *state, uint8_t format, char *why, size_t n)
{
	uint64_t fl = word_at(state, HANDOVER_SVM_RFLAGS);

	if (format != HANDOVER_P2M_NPT)
		return snprintf(why, n,
				"arch 2 (x86_64 SVM) in a domain of "
				"p2m_format %u",
				format),
		       -EINVAL;
	if (!(fl & RFLAGS_ONE) || (fl & (RFLAGS_RSV | RFLAGS_VM)))
		return snprintf(why, n,
				"rflags %#llx (bit 1 clear, a reserved bit or "
				"VM set)",
				U64(fl)),
		       -EINVAL;
	return 0;
}

/**
 * handover_vcpu_check() - vCPU record @v, its state @state (the arch's
 * size, checked by the caller), against its domain @d.
 * Return: 0, or -EINVAL with @why (@n bytes): the field and its value.
 */
int handover_vcpu_check(const struct handover_vcpu *v, const uint8_t *state,
			const struct bi_handover_domain *d, char *why, size_t n)
{
	struct handover_domain rec;
	uint64_t pc;
	int err;

	handover_view_read(&d->view, d->rec, &rec, sizeof(rec));
	if (v->arch == HANDOVER_VCPU_ARM64 &&
	    v->state_bytes >= HANDOVER_ARM64_STATE_BYTES) {
		err = check_arm64(state, rec.p2m_format, why, n);
		pc = word_at(state, HANDOVER_ARM64_PC);
	} else if (v->arch == HANDOVER_VCPU_SVM &&
		   v->state_bytes >= HANDOVER_SVM_STATE_BYTES) {
		err = check_svm(state, rec.p2m_format, why, n);
		pc = word_at(state, HANDOVER_SVM_RIP);
	} else {
		snprintf(why, n, "arch %u with state_bytes %u: no layout known",
			 v->arch, v->state_bytes);
		return -EINVAL;
	}
	if (err)
		return err;
	if (rec.p2m_ipa_bits < 64 && pc >> rec.p2m_ipa_bits) {
		snprintf(why, n,
			 "pc %#llx outside domain %u (%s)'s %u-bit IPA space",
			 U64(pc), d->id, d->name, rec.p2m_ipa_bits);
		return -EINVAL;
	}
	return 0;
}
