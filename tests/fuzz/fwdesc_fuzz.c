/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: fwdesc_parse_files() then bootinfo_sanitise(). The
 * range observer (what the sandbox's canary reads) must have seen every
 * RAM range the bootinfo holds: the canary and the parser read the same
 * text the same way (issue 20 §2.1: a NUL once ended one and not the
 * other).
 */
#include <keel/bootinfo.h>
#include <keel/fwdesc.h>

#include "fuzz_util.h"

#define SEEN_MAX 8192

static struct {
	uint64_t s, e;
} seen[SEEN_MAX];
static unsigned int seen_count, seen_next;
static bool seen_full;

static void observe(void *arg, bool ram, uint64_t s, uint64_t e)
{
	(void)arg;
	if (!ram)
		return;
	if (seen_count == SEEN_MAX) {
		seen_full = true;
		return;
	}
	seen[seen_count].s = s;
	seen[seen_count++].e = e;
}

/* [s, e) lies in one observed range (bootinfo may merge: then in many). */
static bool observed(uint64_t s, uint64_t e)
{
	uint64_t at = s;
	bool moved = true;

	/* Usually the next one: bootinfo keeps the lines' order. */
	for (; seen_next < seen_count; seen_next++)
		if (seen[seen_next].s <= s && e <= seen[seen_next].e)
			return true;
	while (at < e && moved) {
		moved = false;
		for (unsigned int i = 0; i < seen_count; i++) {
			if (seen[i].s <= at && at < seen[i].e) {
				at = seen[i].e;
				moved = true;
			}
		}
	}
	return at >= e;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct bootinfo bi;
	static struct fwdesc_files files;

	fuzz_console_quiet();
	seen_count = seen_next = 0;
	seen_full = false;
	files.on_range = observe;
	bootinfo_early_pool_reset();
	bootinfo_init(&bi, BOOT_SANDBOX);
	fwdesc_parse_files(&bi, (const char *)data, size, &files);
	for (unsigned int i = 0; i < bi.ram.count; i++) {
		uint64_t s = pa_val(bi.ram.regions[i].start),
			 e = pa_val(bi.ram.regions[i].end);

		FUZZ_CHECK(s < e);
		FUZZ_CHECK(seen_full || observed(s, e));
	}
	bootinfo_sanitise(&bi);
	fuzz_check_bootinfo(&bi);
	return 0;
}
