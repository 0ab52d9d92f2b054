/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: fwdesc_parse_files() then bootinfo_sanitise(). The
 * range observer (what the sandbox's canary reads) must have seen every
 * RAM range the bootinfo holds: the canary and the parser read the same
 * text the same way (issue 20 §2.1: a NUL once ended one and not the
 * other). The text a live update's old image condenses for the new one
 * (arch/sandbox/fw_condense.c: less its `bad` lines) must parse to the
 * same RAM and CPUs, no `bad firmware` reservation, nothing read past
 * the text.
 */
#include <stdlib.h>
#include <string.h>

#include <keel/badmem.h>
#include <keel/bootinfo.h>
#include <keel/fwdesc.h>

#include "../../arch/sandbox/sandbox_priv.h"
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

/* The condensed text's parse (condensed_parse()), kept for the compare. */
#define KEPT_RAM 256
static struct {
	struct region ram[KEPT_RAM];
	unsigned int ram_count, cpu_count, reserved_count;
} cond;

/*
 * [@s, @s + @n) condensed and parsed, before the text itself (each parse
 * resets the early pool its tables grow from): no `bad firmware`
 * reservation, its RAM and CPUs kept for same_as_condensed().
 */
static void condensed_parse(const char *s, size_t n)
{
	static struct bootinfo c;
	const char *fw = badmem_region_name(BADMEM_FIRMWARE);
	char *out = malloc(n ? n : 1);
	size_t m;

	FUZZ_CHECK(out != NULL);
	m = sandbox_fw_condense(s, n, out);
	FUZZ_CHECK(m <= n);
	bootinfo_early_pool_reset();
	bootinfo_init(&c, BOOT_SANDBOX);
	fwdesc_parse(&c, out, m);
	free(out);
	for (unsigned int i = 0; i < c.reserved.count; i++)
		FUZZ_CHECK(strcmp(c.reserved.regions[i].name, fw) != 0);
	cond.ram_count = c.ram.count;
	cond.cpu_count = c.cpu_count;
	cond.reserved_count = c.reserved.count;
	if (c.ram.count <= KEPT_RAM)
		memcpy(cond.ram, c.ram.regions,
		       c.ram.count * sizeof(c.ram.regions[0]));
}

/* @bi (the text's parse) has the condensed text's RAM and CPUs. */
static void same_as_condensed(const struct bootinfo *bi)
{
	/* Far below the early pool: no table fell back to merging. */
	if (bi->ram.count > KEPT_RAM || bi->reserved.count > 1024)
		return;
	FUZZ_CHECK(cond.ram_count == bi->ram.count);
	FUZZ_CHECK(!memcmp(cond.ram, bi->ram.regions,
			   bi->ram.count * sizeof(bi->ram.regions[0])));
	FUZZ_CHECK(cond.cpu_count == bi->cpu_count);
	FUZZ_CHECK(cond.reserved_count <= bi->reserved.count);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct bootinfo bi;
	static struct fwdesc_files files;

	fuzz_console_quiet();
	condensed_parse((const char *)data, size);
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
	same_as_condensed(&bi);
	bootinfo_sanitise(&bi);
	fuzz_check_bootinfo(&bi);
	return 0;
}
