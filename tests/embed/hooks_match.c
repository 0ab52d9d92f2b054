// SPDX-License-Identifier: MIT
/*
 * Compiled, never linked (make embed): keel/hooks.h, what a host must
 * provide, next to the arch interface keel's own arches implement. A
 * declaration that differs is a compile error, so the documented list
 * cannot drift from what the library calls.
 */
#include <keel/hooks.h>

#include <arch/cache.h>
#include <arch/console.h>
#include <arch/cpu.h>
#include <arch/irq.h>
#include <arch/lock.h>
#include <arch/mm.h>
#include <keel/scrub_prims.h>
