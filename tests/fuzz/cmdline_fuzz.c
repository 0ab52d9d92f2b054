/* SPDX-License-Identifier: MIT */
/* libFuzzer target: cmdline_parse() on arbitrary bytes. */
#include <keel/options.h>
#include <keel/printk.h>
#include <keel/string.h>

#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct keel_options o;
	unsigned int warnings;

	fuzz_console_quiet();
	options_defaults(&o);
	/* Parse twice, as boot.c does with CONFIG_DEFAULT_CMDLINE first. */
	warnings = cmdline_parse(&o, (const char *)data, size);
	warnings += cmdline_parse(&o, (const char *)data, size);
	FUZZ_CHECK(warnings <= 2 * size);
	FUZZ_CHECK(o.warnings == warnings);
	FUZZ_CHECK(o.inject_count <= INJECT_MAX);
	FUZZ_CHECK(o.loglevel >= LOG_ERR && o.loglevel <= LOG_DEBUG);
	FUZZ_CHECK(o.bootscrub_chunk >= PAGE_SIZE &&
		   IS_ALIGNED(o.bootscrub_chunk, PAGE_SIZE));
	FUZZ_CHECK(strnlen(o.console, sizeof(o.console)) < sizeof(o.console));
	return 0;
}
