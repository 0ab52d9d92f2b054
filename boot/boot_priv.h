/* SPDX-License-Identifier: MIT */
/*
 * Helpers shared by the firmware parsers in boot/ (private to boot/).
 */
#ifndef BOOT_BOOT_PRIV_H
#define BOOT_BOOT_PRIV_H

/* printk's %llx/%llu take unsigned long long: one cast for every width. */
#define U64(x) ((unsigned long long)(x))

#endif
