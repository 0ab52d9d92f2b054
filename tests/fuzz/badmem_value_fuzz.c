/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the two list parsers of bad memory on the same
 * arbitrary bytes, badmem_parse_badpage() (Xen's badpage=) and
 * badmem_parse_memmap() (Linux's memmap=SIZE$START): every range either
 * gives is whole pages and non-empty; a refusal says why. badpage=: a
 * value without a comma gives at most one range; memmap=: none without a
 * '$' in the value.
 */
#include <keel/badmem.h>
#include <keel/errno.h>

#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool check_range(void *arg, uint64_t s, uint64_t e)
{
	(*(uint64_t *)arg)++;
	FUZZ_CHECK(s < e && IS_ALIGNED(s, PAGE_SIZE) &&
		   IS_ALIGNED(e, PAGE_SIZE));
	return true;
}

typedef int parse_fn(const char *s, size_t len, badmem_fn fn, void *arg,
		     const char **why);

/* @fn on @data: a refusal says why (-EINVAL, or @other). Return: ranges. */
static uint64_t parse(parse_fn *fn, const uint8_t *data, size_t size, int other)
{
	const char *why = NULL;
	uint64_t n = 0;
	int ret = fn((const char *)data, size, check_range, &n, &why);

	FUZZ_CHECK(ret == 0 ||
		   ((ret == -EINVAL || ret == other) && why && *why));
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t n;

	fuzz_console_quiet();
	n = parse(badmem_parse_badpage, data, size, -EINVAL);
	FUZZ_CHECK(n <= size / 2 + 1);
	if (!memchr(data, ',', size))
		FUZZ_CHECK(n <= 1);
	n = parse(badmem_parse_memmap, data, size, -EOPNOTSUPP);
	if (!memchr(data, '$', size))
		FUZZ_CHECK(n == 0);
	return 0;
}
