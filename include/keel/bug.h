/* SPDX-License-Identifier: MIT */
/*
 * Owner: lib.
 * Broken invariants. CHECK() is always on; BUG_ON() too. DEBUG_CHECK() only in
 * CONFIG_DEBUG builds (but its condition always compiles).
 */
#ifndef KEEL_BUG_H
#define KEEL_BUG_H

#include <keel/config.h>
#include <keel/printk.h>

#define CHECK(cond)                                                          \
	do {                                                                 \
		if (unlikely(!(cond)))                                       \
			panic("%s:%d: check failed: %s", __FILE__, __LINE__, \
			      #cond);                                        \
	} while (0)

#define BUG_ON(cond)                                                        \
	do {                                                                \
		if (unlikely(cond))                                         \
			panic("%s:%d: BUG: %s", __FILE__, __LINE__, #cond); \
	} while (0)

#define DEBUG_CHECK(cond)                     \
	do {                                  \
		if (IS_ENABLED(CONFIG_DEBUG)) \
			CHECK(cond);          \
	} while (0)

#define BUILD_BUG_ON(cond) _Static_assert(!(cond), #cond)

#endif
