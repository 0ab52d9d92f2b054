/* SPDX-License-Identifier: MIT */
/*
 * arm64 memory errors (arch/arm64/ras.c): the exception path's decode and
 * inject=sea's page.
 */
#ifndef ASM_ARM64_RAS_H
#define ASM_ARM64_RAS_H

#include <keel/bootinfo.h>
#include <keel/types.h>

struct arm64_mem_error {
	uint64_t pa; /* the failed page's address; BAD_QUEUE_NO_ADDR: none */
	const char *what; /* "synchronous external abort", "SError", ... */
	char detail[128]; /* the syndrome decoded, one line, no newline */
};

bool arm64_ras_decode(uint64_t esr, uint64_t far, struct arm64_mem_error *me);
void arm64_ras_prepare(const struct bootinfo *bi, uint64_t dtb, bool armed);

#endif
