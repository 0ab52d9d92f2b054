/* SPDX-License-Identifier: MIT */
/*
 * Owner: lib.
 * One table per enum serves both parsing its names (the command line) and
 * printing them (the report, the human lines): {value, name} pairs ending
 * in ENUM_NAMES_END, defined once beside the enum's owner.
 */
#ifndef KEEL_ENUM_NAMES_H
#define KEEL_ENUM_NAMES_H

#include <keel/types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct enum_name {
	int value;
	const char *name;
};

#define ENUM_NAMES_END  \
	{               \
		0, NULL \
	}

/* The name of @value in @t. Return: it, or "unknown". */
const char *enum_name(const struct enum_name *t, int value);

/*
 * The value named by [s, s+len) (exact, case-sensitive) in @t.
 * Return: 0 and *@value, or -EINVAL.
 */
int enum_parse(const struct enum_name *t, const char *s, size_t len,
	       int *value);

#ifdef __cplusplus
}
#endif

#endif
