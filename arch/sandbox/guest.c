/* SPDX-License-Identifier: MIT */
/*
 * Sandbox arch hooks of <arch/guest.h>: a Linux process has no stage 2 to
 * run a guest on, so guests are unsupported (guests_info.unsupported);
 * the other hooks are never called and say so.
 */
#include <arch/guest.h>
#include <keel/errno.h>
#include <keel/handover.h>

const char *arch_guest_supported(void)
{
	return "the sandbox has no MMU: guests need arm64 at EL2 or x86_64 "
	       "with SVM";
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
	return "the sandbox runs no guests";
}

void arch_vcpu_destroy(struct arch_vcpu *v)
{
	(void)v;
}

/**
 * arch_vcpu_state() - this arch carries no vCPU across a live update.
 * @bytes: out: 0
 * @why: out: why not
 *
 * Return: HANDOVER_VCPU_NONE.
 */
unsigned int arch_vcpu_state(uint32_t *bytes, const char **why)
{
	*bytes = 0;
	*why = "the sandbox runs no guests (no MMU)";
	return HANDOVER_VCPU_NONE;
}

/** arch_vcpu_resume() - Return: -EINVAL: nothing to resume here. */
int arch_vcpu_resume(struct arch_vcpu *v, const void *state, uint32_t bytes,
		     const struct vcpu_setup *s)
{
	(void)v;
	(void)state;
	(void)bytes;
	(void)s;
	return -EINVAL;
}
