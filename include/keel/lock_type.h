/* SPDX-License-Identifier: MIT */
/*
 * Owner: lib.
 * The storage of a heap lock (a node lock, a per-CPU cache's lock): what
 * the lock hooks (include/arch/lock.h, keel/hooks.h group 9) work on. The
 * heap sizes its structures with it, so it is fixed here: 64 bytes, 8-byte
 * aligned, room for a ticket lock (keel's arches) or a host's own lock (a
 * pthread mutex is 40 bytes on x86_64 glibc, 48 on arm64). Shared by both
 * declarations of the hooks, so that they can be included together.
 */
#ifndef KEEL_LOCK_TYPE_H
#define KEEL_LOCK_TYPE_H

#include <keel/types.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ARCH_LOCK_BYTES 64

typedef struct arch_lock {
	uint64_t words[ARCH_LOCK_BYTES / 8];
} arch_lock_t;

#ifdef __cplusplus
}
#endif

#endif
