/* SPDX-License-Identifier: MIT */
/*
 * Arch hook: the CRC-32 of common/lib/crc32.c by the CPU's own
 * instructions, where it has them (x86 carry-less multiplication, arm64's
 * CRC32 instructions). crc32() asks it for the start of every buffer of
 * 256 bytes or more, after checking its answer once against the tables
 * (a wrong one: one warning, and the tables alone from then on).
 */
#ifndef ARCH_CRC_H
#define ARCH_CRC_H

#include <keel/types.h>

/*
 * arch_crc32() - the IEEE 802.3 CRC-32 (reflected, polynomial
 * 0xEDB88320) register *@reg (not inverted: crc32()'s inner register)
 * moved past the first bytes of [@buf, @buf + @len), any alignment.
 * May run on any CPU at any time the caller runs (no lock, no state but
 * what it reads once); uses no memory but its stack.
 * Return: the bytes it took from @buf's start (0: none, the CPU has no
 * such instruction); the tables take the rest.
 */
size_t arch_crc32(uint32_t *reg, const void *buf, size_t len);

#endif /* ARCH_CRC_H */
