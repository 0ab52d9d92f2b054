/* SPDX-License-Identifier: MIT */
/*
 * Arch hooks: memory errors the machine itself raises (issue 38 §3).
 * inject=sea asks the arch for a real one: arm64 reads a page that no
 * device answers (arch/arm64/ras.c), and the exception path reports it
 * like any synchronous external abort; the other arches have no such
 * access and say so.
 */
#ifndef ARCH_RAS_H
#define ARCH_RAS_H

#include <keel/types.h>

/*
 * arch_ras_raise_sea() - read the page the arch set aside for inject=sea.
 * Safe point only (the heap open, no lock held): the abort it raises is
 * fatal and prints through the exception path.
 * @pa: set to the address read, when there is one.
 * Return: does not return when the abort came; -EOPNOTSUPP where the arch
 * cannot raise one, -ENODEV when no page was set aside (said by the arch),
 * -EIO when the read came back without an abort (*@pa: the address).
 */
int arch_ras_raise_sea(uint64_t *pa);

/*
 * arch_ras_boot() - once the heap is open (before inject=poison): pages
 * the arch knows failed before this boot and must take out of service
 * itself. The sandbox replays its description's `mce` lines (a host's
 * runtime history, arch/sandbox/mce_history.c); the others have none.
 */
void arch_ras_boot(void);

/*
 * arch_ras_poll() - on the calling CPU: the corrected memory errors the
 * machine logged without raising an exception, queued on the bad queue
 * (BAD_QUEUE_MCE_CORRECTED, keel/bad_queue.h) and cleared. The flow runs
 * it on every online CPU before each drain. x86_64 reads this CPU's
 * machine-check banks (arch/x86_64/mce.c); the sandbox its simulated
 * banks (inject=ce); arm64 has nothing to poll (a no-op).
 */
void arch_ras_poll(void);

/*
 * arch_ras_log_corrected() - inject=ce: log a corrected memory error at
 * physical address @pa where this CPU's arch_ras_poll() finds it. Safe
 * point only (the heap open).
 * Return: 0; -EOPNOTSUPP where software cannot log one (x86_64: QEMU's
 * monitor `mce` does it from outside; arm64); -ENOSPC when every bank of
 * the CPU already holds one.
 */
int arch_ras_log_corrected(uint64_t pa);

#endif
