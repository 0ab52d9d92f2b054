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

__attribute__((noreturn)) void keel_main(struct bootinfo *bi);

/* The bootinfo keel_main() was given (report, smp, ...). */
extern struct bootinfo *boot_bi;

#endif
