/* SPDX-License-Identifier: MIT */
/*
 * PSCI calls (CPU_ON, SYSTEM_OFF, SYSTEM_RESET) through the conduit the DT
 * names: "hvc" or "smc". keel issues them from the EL it runs at: HVC from
 * EL1 reaches the hypervisor/firmware at EL2, SMC from EL2 reaches EL3
 * (QEMU virt with virtualization=on says "smc"). HVC from EL2 would trap
 * to ourselves, so at EL2 an "hvc" DT is used as SMC with a warning.
 */
#include <asm/arm64.h>
#include <keel/errno.h>
#include <keel/printk.h>

#define PSCI_SUCCESS	      0
#define PSCI_NOT_SUPPORTED    -1
#define PSCI_INVALID_PARAMS   -2
#define PSCI_DENIED	      -3
#define PSCI_ALREADY_ON	      -4
#define PSCI_ON_PENDING	      -5
#define PSCI_INTERNAL_FAILURE -6
#define PSCI_NOT_PRESENT      -7
#define PSCI_DISABLED	      -8
#define PSCI_INVALID_ADDRESS  -9

static enum dt_psci_method method;
static uint32_t fn_cpu_on = PSCI_FN_CPU_ON;
static bool v0_2;

static int64_t psci_call(uint64_t fn, uint64_t a1, uint64_t a2, uint64_t a3)
{
	register uint64_t x0 __asm__("x0") = fn;
	register uint64_t x1 __asm__("x1") = a1;
	register uint64_t x2 __asm__("x2") = a2;
	register uint64_t x3 __asm__("x3") = a3;

	if (method == DT_PSCI_HVC)
		__asm__ __volatile__("hvc #0"
				     : "+r"(x0), "+r"(x1), "+r"(x2), "+r"(x3)
				     :
				     : "x4", "x5", "x6", "x7", "x8", "x9",
				       "x10", "x11", "x12", "x13", "x14", "x15",
				       "x16", "x17", "memory");
	else
		__asm__ __volatile__("smc #0"
				     : "+r"(x0), "+r"(x1), "+r"(x2), "+r"(x3)
				     :
				     : "x4", "x5", "x6", "x7", "x8", "x9",
				       "x10", "x11", "x12", "x13", "x14", "x15",
				       "x16", "x17", "memory");
	return (int64_t)x0;
}

/**
 * psci_init() - take the conduit and function ids from the DT.
 * @ai: what dt_parse() found.
 */
void psci_init(const struct dt_arch_info *ai)
{
	method = ai->psci_method;
	v0_2 = ai->psci_v0_2;
	if (ai->psci_cpu_on)
		fn_cpu_on = ai->psci_cpu_on;
	if (method == DT_PSCI_HVC && arm64_el == 2) {
		pr_warn("psci: DT method \"hvc\" at EL2 would trap to keel "
			"itself; using smc\n");
		method = DT_PSCI_SMC;
	}
	if (method != DT_PSCI_NONE && v0_2) {
		int64_t v = psci_call(PSCI_FN_VERSION, 0, 0, 0);

		pr_info("psci: version %lld.%lld via %s\n",
			(long long)(v >> 16), (long long)(v & 0xffff),
			method == DT_PSCI_HVC ? "hvc" : "smc");
	}
}

static int psci_to_errno(int64_t r)
{
	switch (r) {
	case PSCI_SUCCESS:
		return 0;
	case PSCI_ALREADY_ON:
	case PSCI_ON_PENDING:
		return -EBUSY;
	case PSCI_INVALID_PARAMS:
	case PSCI_INVALID_ADDRESS:
		return -EINVAL;
	case PSCI_NOT_PRESENT:
	case PSCI_DISABLED:
		return -ENODEV;
	case PSCI_DENIED:
		return -EPERM;
	default:
		return -EIO;
	}
}

/**
 * psci_cpu_on() - start the CPU @mpidr at physical @entry with x0 = @context.
 * @mpidr: target affinity.
 * @entry: physical entry address.
 * @context: passed in x0.
 * Return: 0 or negative errno (-ENODEV when there is no PSCI).
 */
int psci_cpu_on(uint64_t mpidr, paddr_t entry, uint64_t context)
{
	int64_t r;

	if (method == DT_PSCI_NONE)
		return -ENODEV;
	r = psci_call(fn_cpu_on, mpidr, pa_val(entry), context);
	if (r)
		pr_warn("psci: CPU_ON %#llx returned %lld\n",
			(unsigned long long)mpidr, (long long)r);
	return psci_to_errno(r);
}

/**
 * psci_cpu_off() - power the calling CPU down (a live update's freeze);
 * CPU_ON starts it again. Return: only when PSCI refused, negative errno.
 */
int psci_cpu_off(void)
{
	if (method == DT_PSCI_NONE || !v0_2)
		return -ENODEV;
	return psci_to_errno(psci_call(PSCI_FN_CPU_OFF, 0, 0, 0));
}

/**
 * psci_cpu_is_off() - PSCI AFFINITY_INFO of @mpidr (level 0) says OFF.
 * Return: true when the CPU is off (CPU_ON would start it).
 */
bool psci_cpu_is_off(uint64_t mpidr)
{
	if (method == DT_PSCI_NONE || !v0_2)
		return false;
	return psci_call(PSCI_FN_AFFINITY_INFO, mpidr, 0, 0) == 1;
}

static __attribute__((noreturn)) void halt_forever(void)
{
	for (;;)
		__asm__ __volatile__("wfi");
}

/**
 * psci_system_off() - power off (QEMU exits 0); halts if PSCI cannot.
 */
void psci_system_off(void)
{
	if (method != DT_PSCI_NONE && v0_2)
		psci_call(PSCI_FN_SYSTEM_OFF, 0, 0, 0);
	halt_forever();
}

/**
 * psci_system_reset() - reset the machine; halts if PSCI cannot.
 */
void psci_system_reset(void)
{
	if (method != DT_PSCI_NONE && v0_2)
		psci_call(PSCI_FN_SYSTEM_RESET, 0, 0, 0);
	halt_forever();
}
