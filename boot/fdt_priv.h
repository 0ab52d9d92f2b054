/* SPDX-License-Identifier: MIT */
/* libfdt for the files of boot/ that read a flattened DT (fdt*.c). */
#ifndef BOOT_FDT_PRIV_H
#define BOOT_FDT_PRIV_H

/*
 * libfdt's own libfdt_env.h pulls in libc headers; keel is freestanding,
 * so we supply the few definitions libfdt.h needs and skip that file by
 * defining its include guard first.
 */
#define LIBFDT_ENV_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef uint16_t fdt16_t;
typedef uint32_t fdt32_t;
typedef uint64_t fdt64_t;

static inline uint16_t fdt16_to_cpu(fdt16_t x)
{
	return __builtin_bswap16(x);
}
static inline fdt16_t cpu_to_fdt16(uint16_t x)
{
	return __builtin_bswap16(x);
}
static inline uint32_t fdt32_to_cpu(fdt32_t x)
{
	return __builtin_bswap32(x);
}
static inline fdt32_t cpu_to_fdt32(uint32_t x)
{
	return __builtin_bswap32(x);
}
static inline uint64_t fdt64_to_cpu(fdt64_t x)
{
	return __builtin_bswap64(x);
}
static inline fdt64_t cpu_to_fdt64(uint64_t x)
{
	return __builtin_bswap64(x);
}

#include <libfdt.h>

#endif
