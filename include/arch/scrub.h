/* SPDX-License-Identifier: MIT */
/* Arch hooks: the scrub primitive. */
#ifndef ARCH_SCRUB_H
#define ARCH_SCRUB_H

#include <keel/types.h>

/*
 * Zero [va, va+len): va and len page aligned. The fastest way the CPU has
 * (x86_64: non-temporal stores or rep stosb, picked by measurement;
 * arm64: DC ZVA). Does not need to leave the lines in cache.
 */
void arch_scrub_range(void *va, size_t len);

/*
 * Zero [va, va+len) and clean it to the point of coherency, line by line
 * while still cached, with one barrier at the end (DESIGN §6). Where the
 * platform is coherent this is arch_scrub_range().
 * Return: true when the range is now clean to PoC.
 */
bool arch_scrub_clean_range(void *va, size_t len);

/* One-time choice of primitive (may measure). Called before the boot scrub. */
void arch_scrub_init(void);

/* Name of the chosen primitive for the report ("movnti", "rep stosb", "dc zva", "memset"). */
const char *arch_scrub_primitive(void);

#endif
