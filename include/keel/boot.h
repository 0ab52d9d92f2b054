/* SPDX-License-Identifier: MIT */
/*
 * Owner: flow.
 * The arch-neutral boot flow (common/boot.c; its memory errors:
 * common/boot_ras.c). The arch enters it once its
 * console, MMU/direct map and timer work, the options are parsed
 * (options_parse(), once) and bootinfo is filled and sanitised
 * (fwboot_finish()):
 *   options applied -> numa -> bootmem -> frametable -> SMP
 *   -> heap handoff -> boot scrub -> bench/stress -> audit -> report -> stop.
 */
#ifndef KEEL_BOOT_H
#define KEEL_BOOT_H

#include <keel/bootinfo.h>

struct audit_result;
struct keel_options;

__attribute__((noreturn)) void keel_main(struct bootinfo *bi,
					 const struct keel_options *o);

/* Why the boot failed, from its audit and phases; NULL: it passed. */
const char *boot_verdict(const struct audit_result *a,
			 const struct keel_options *o);

/* Hand each subsystem the settings it keeps (keel_main(), tests). */
void boot_apply_options(const struct keel_options *o);

/*
 * Memory errors between phases (common/boot_ras.c): the injections once
 * the heap is open (inject=poison, inject=ce, inject=sea); the drain of
 * the failed pages, each idle CPU polled first, corrected errors counted
 * against ce_offline= (@ce_offline).
 */
void boot_inject_failures(void);
void boot_drain_failed_pages(uint32_t ce_offline);

#endif
