/* SPDX-License-Identifier: MIT */
/* Arch hooks: reaching physical memory. */
#ifndef ARCH_MM_H
#define ARCH_MM_H

#include <keel/types.h>

/*
 * Every RAM address in the firmware map is reachable through the direct map
 * once the arch calls keel_main(). The sandbox maps its RAM arena instead.
 */
void *arch_phys_to_virt(paddr_t pa);
paddr_t arch_virt_to_phys(const void *va);

static inline void *phys_to_virt(paddr_t p)
{
	return arch_phys_to_virt(p);
}

static inline paddr_t virt_to_phys(const void *va)
{
	return arch_virt_to_phys(va);
}

#endif
