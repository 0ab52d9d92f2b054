/* SPDX-License-Identifier: MIT */
/* Arch hooks: the scrub primitives. */
#ifndef ARCH_SCRUB_H
#define ARCH_SCRUB_H

#include <keel/types.h>

/* Most primitives an arch offers (arch_scrub_candidates()). */
#define ARCH_SCRUB_MAX_PRIMITIVES 8

/*
 * Zero [va, va+len): va and len page aligned, with the primitive chosen by
 * arch_scrub_select() (the first candidate until then). Does not need to
 * leave the lines in cache.
 */
void arch_scrub_range(void *va, size_t len);

/*
 * Zero [va, va+len) and clean it to the point of coherency, line by line
 * while still cached, with one barrier at the end (DESIGN §6). Where the
 * platform is coherent this is arch_scrub_range().
 * Return: true when the range is now clean to PoC.
 */
bool arch_scrub_clean_range(void *va, size_t len);

/*
 * Probe the CPU for the primitives it has and make them usable (x86_64:
 * XCR0 for AVX on every online CPU). Boot CPU, after SMP bring-up, before
 * the boot scrub.
 */
void arch_scrub_init(void);

/*
 * The primitives this CPU can execute, the default first (never one it
 * lacks): names into @names, at most @max. Valid after arch_scrub_init().
 * Return: how many (at least 1).
 */
unsigned int arch_scrub_candidates(const char **names, unsigned int max);

/*
 * Do what arch_scrub_clean_range() does, with candidate @idx: the
 * calibration times this on memory that nobody uses yet.
 */
void arch_scrub_probe(unsigned int idx, void *va, size_t len);

/* Use candidate @idx from now on. Boot CPU, before any worker scrubs. */
void arch_scrub_select(unsigned int idx);

/* Name of the primitive in use, for the report ("movnti", "dc zva", ...). */
const char *arch_scrub_primitive(void);

#endif
