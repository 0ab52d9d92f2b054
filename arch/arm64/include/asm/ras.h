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

/* inject=sea's page is below this: the 32-bit device windows of QEMU virt */
#define SEA_PA_LIMIT (1ULL << 32)

/* ras_decode.c: pure, tests/unit/arm64_ras_test.c runs them on the host. */
bool arm64_ras_decode(uint64_t esr, uint64_t far, struct arm64_mem_error *me);
uint64_t arm64_ras_pick_page(const void *fdt, const struct bootinfo *bi);
/* ras.c */
void arm64_ras_prepare(const struct bootinfo *bi, uint64_t dtb, bool armed);

#endif
