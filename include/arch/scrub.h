/* SPDX-License-Identifier: MIT */
/*
 * Arch hooks: the scrub primitives. An arch only says how it can zero
 * memory (a const table of primitives) and makes them usable; the list of
 * candidates this CPU has, the one selected and its name are common
 * bookkeeping (include/keel/scrub_prims.h, common/lib/scrub_prims.c).
 */
#ifndef ARCH_SCRUB_H
#define ARCH_SCRUB_H

#include <keel/types.h>

/* Most primitives an arch offers (arch_scrub_prims()). */
#define ARCH_SCRUB_MAX_PRIMITIVES 8

/*
 * One way of zeroing. Both functions take a page aligned @va and a page
 * multiple @len, may run on every CPU at once, and end with the barrier
 * their stores need (weakly ordered stores are fenced).
 */
struct arch_scrub_prim {
	const char *name; /* for the report: "movnti", "dc zva", ... */
	/* Zero [va, va+len); the lines need not stay in cache. */
	void (*zero)(void *va, size_t len);
	/*
	 * Zero [va, va+len) and clean it to the point of coherency, line by
	 * line while still cached, one barrier at the end (DESIGN §6). Where
	 * the platform is coherent this is @zero.
	 */
	void (*zero_clean)(void *va, size_t len);
	/* Can this CPU run it (valid after arch_scrub_init())? NULL: yes. */
	bool (*available)(void);
};

/*
 * The arch's primitives in its order of preference: the first available
 * one is the default. At least one is always available.
 * Return: how many in *@table (at most ARCH_SCRUB_MAX_PRIMITIVES).
 */
unsigned int arch_scrub_prims(const struct arch_scrub_prim **table);

/*
 * Make the primitives usable (x86_64: XCR0 for AVX on every online CPU;
 * arm64: cache line and DC ZVA block sizes). Boot CPU, after SMP bring-up,
 * before the boot scrub.
 */
void arch_scrub_init(void);

/*
 * arch_scrub_range() and arch_scrub_clean_range(), which zero with the
 * selected primitive, are lib's (include/keel/scrub_prims.h), written once
 * over these tables, not per arch.
 */

#endif
