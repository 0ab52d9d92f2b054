/* SPDX-License-Identifier: MIT */
/*
 * Owner: lib.
 * The scrub primitives this CPU has (the candidates: the arch's table,
 * include/arch/scrub.h, filtered by what the CPU can run) and the one in
 * use (the selected one). Candidates are listed once, on the boot CPU
 * (scrub_prims_probe(), or lazily the first time one is needed); the
 * selection is one word, written with a release store by the boot CPU and
 * read by every CPU that scrubs: a worker sees the old or the new choice,
 * both of which zero correctly. No lock.
 */
#ifndef KEEL_SCRUB_PRIMS_H
#define KEEL_SCRUB_PRIMS_H

#include <arch/scrub.h>
#include <keel/types.h>

/* List the candidates anew (after arch_scrub_init()); select the default. */
void scrub_prims_probe(void);

/* How many candidates (at least 1). */
unsigned int scrub_prims_count(void);

/* Name of candidate @idx (out of range: the default's). */
const char *scrub_prims_name(unsigned int idx);

/* Use candidate @idx from now on (out of range: the default). */
void scrub_prims_select(unsigned int idx);

/* The candidate in use. */
unsigned int scrub_prims_selected(void);

/* Name of the candidate in use, for the report. */
const char *scrub_prims_current_name(void);

/* Zero [va, va+len) with candidate @idx, cleaning to PoC when @clean. */
void scrub_prims_zero(unsigned int idx, void *va, size_t len, bool clean);

/*
 * Zero [va, va+len) (page aligned) with the selected primitive, the
 * default until the calibration selects one (common/lib/scrub_prims.c,
 * once for every arch; a host that links libkeel-heap.a provides its own:
 * include/keel/hooks.h).
 */
void arch_scrub_range(void *va, size_t len);

/*
 * As arch_scrub_range(), and clean to PoC (struct arch_scrub_prim).
 * Return: true (the range is clean to PoC).
 */
bool arch_scrub_clean_range(void *va, size_t len);

#endif
