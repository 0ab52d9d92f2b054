// SPDX-License-Identifier: MIT
/* Enum name tables (include/keel/enum_names.h): lookups both ways. */
#include <keel/enum_names.h>
#include <keel/errno.h>
#include <keel/string.h>

const char *enum_name(const struct enum_name *t, int value)
{
	for (; t->name; t++)
		if (t->value == value)
			return t->name;
	return "unknown";
}

int enum_parse(const struct enum_name *t, const char *s, size_t len, int *value)
{
	for (; t->name; t++) {
		if (strlen(t->name) == len && !memcmp(t->name, s, len)) {
			*value = t->value;
			return 0;
		}
	}
	return -EINVAL;
}
