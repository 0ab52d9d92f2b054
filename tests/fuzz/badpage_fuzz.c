/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: badmem_parse_badpage() (Xen's badpage=) on arbitrary
 * bytes: every range it gives is whole pages, non-empty and below 2^64;
 * a value without a comma gives at most one range; a refusal says why.
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *why = NULL;
	uint64_t n = 0;
	int ret;

	fuzz_console_quiet();
	ret = badmem_parse_badpage((const char *)data, size, check_range, &n,
				   &why);
	FUZZ_CHECK(ret == 0 || (ret == -EINVAL && why && *why));
	FUZZ_CHECK(n <= size / 2 + 1);
	if (!memchr(data, ',', size))
		FUZZ_CHECK(n <= 1);
	return 0;
}
