/* SPDX-License-Identifier: MIT */
/*
 * The arch-neutral boot flow (common/boot.c). The arch enters it once its
 * console, MMU/direct map and timer work and bootinfo is filled:
 *   bootinfo_sanitise -> options -> numa -> bootmem -> frametable -> SMP
 *   -> heap handoff -> boot scrub -> bench/stress -> audit -> report -> stop.
 */
#ifndef KEEL_BOOT_H
#define KEEL_BOOT_H

#include <keel/bootinfo.h>

struct audit_result;

__attribute__((noreturn)) void keel_main(struct bootinfo *bi);

/* Why the boot failed, from its audit and phases; NULL: it passed. */
const char *boot_verdict(const struct audit_result *a);

struct keel_options;
/* Hand each subsystem the options it reads (keel_main(), tests). */
void boot_apply_options(const struct keel_options *o);

#endif
