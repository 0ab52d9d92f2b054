// SPDX-License-Identifier: MIT
/*
 * inject=sea (include/arch/ras.h): the sandbox is a Linux process, and no
 * read of it raises a memory error (inject=poison stands in), so the flow
 * warns, nothing done.
 */
#include <arch/ras.h>
#include <keel/errno.h>

int arch_ras_raise_sea(uint64_t *pa)
{
	*pa = ~0ULL;
	return -EOPNOTSUPP;
}

/* Nothing to poll: the sandbox's memory errors are inject=poison's. */
void arch_ras_poll(void)
{
}
