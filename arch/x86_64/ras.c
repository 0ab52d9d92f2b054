// SPDX-License-Identifier: MIT
/*
 * inject=sea (include/arch/ras.h): x86 has no synchronous external
 * abort to raise by a read (its memory errors are machine checks: QEMU's
 * monitor `mce`, arch/x86_64/mce.c), so the flow warns, nothing done.
 * arch_ras_poll(): the machine-check banks' corrected errors (mce.c).
 */
#include <arch/ras.h>
#include <asm/x86.h>
#include <keel/errno.h>

int arch_ras_raise_sea(uint64_t *pa)
{
	*pa = ~0ULL;
	return -EOPNOTSUPP;
}

/* No history of memory errors from before this boot to replay. */
void arch_ras_boot(void)
{
}

/* This CPU's machine-check banks: their corrected errors queued (mce.c). */
void arch_ras_poll(void)
{
	x86_mce_poll();
}

/* Only from outside (QEMU's monitor `mce`): MCi_STATUS takes no value but 0. */
int arch_ras_log_corrected(uint64_t pa)
{
	(void)pa;
	return -EOPNOTSUPP;
}
