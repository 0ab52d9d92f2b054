/* SPDX-License-Identifier: MIT */
/*
 * Owner: lib.
 * Kconfig output plus IS_ENABLED(), so that .c files test options with
 * ordinary if statements and dead branches still compile.
 *
 * A program that embeds libkeel-heap.a has only include/ on its path:
 * it is compiled with `-include libkeel-heap-config.h`, the library's
 * configuration that `make lib` writes beside the archive (it defines
 * KEEL_CONFIG_GIVEN), so that its structures have the library's sizes.
 */
#ifndef KEEL_CONFIG_H
#define KEEL_CONFIG_H

#ifndef KEEL_CONFIG_GIVEN
#include <generated/autoconf.h>
#endif

#define __KEEL_ARG_PLACEHOLDER_1	      0,
#define __keel_take_second(ignored, val, ...) val
#define __keel_is_defined(x)		      ___keel_is_defined(x)
#define ___keel_is_defined(val) \
	____keel_is_defined(__KEEL_ARG_PLACEHOLDER_##val)
#define ____keel_is_defined(arg1_or_junk) \
	__keel_take_second(arg1_or_junk 1, 0, 0)
#define IS_ENABLED(option) __keel_is_defined(option)

#endif
