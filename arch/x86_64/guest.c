/* SPDX-License-Identifier: MIT */
/*
 * x86_64 arch hooks of <arch/guest.h> (placeholder until SVM).
 */
#include <arch/guest.h>
#include <keel/errno.h>

const char *arch_guest_supported(void)
{
	return "not yet";
}

uint64_t arch_guest_image(void *pages, uint64_t image_ipa)
{
	(void)pages;
	(void)image_ipa;
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

void arch_vcpu_run(struct arch_vcpu *v, uint64_t slice_end,
		   struct vcpu_exit *e)
{
	(void)v;
	(void)slice_end;
	e->reason = VCPU_EXIT_FAILED;
}

void arch_vcpu_destroy(struct arch_vcpu *v)
{
	(void)v;
}
