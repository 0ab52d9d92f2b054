/* SPDX-License-Identifier: MIT */
/*
 * Shared by the libFuzzer targets: silence the console (warnings are the
 * expected reaction to bad input and would slow fuzzing to a crawl) and
 * check the bootinfo invariants sanitise promises; a broken one aborts,
 * which libFuzzer reports as a crash.
 */
#ifndef FUZZ_UTIL_H
#define FUZZ_UTIL_H

#include <asm/sandbox.h>
#include <keel/bootinfo.h>
#include <keel/compiler.h>

#define FUZZ_CHECK(cond)                  \
	do {                              \
		if (!(cond))              \
			__builtin_trap(); \
	} while (0)

static inline void fuzz_console_quiet(void)
{
	static bool done;

	if (!done) {
		sandbox_console_capture(true, true);
		done = true;
	}
	sandbox_console_clear();
}

static inline void fuzz_check_bootinfo(const struct bootinfo *b)
{
	uint64_t limit = b->paddr_bits >= 64 ? ~0ULL : 1ULL << b->paddr_bits;
	unsigned int boots = 0;

	FUZZ_CHECK(b->node_count >= 1 && b->node_count <= MAX_NUMNODES);
	FUZZ_CHECK(b->ram.count <= b->ram.cap);
	FUZZ_CHECK(b->reserved.count < b->reserved.cap); /* one spare */
	for (unsigned int i = 0; i < b->ram.count; i++) {
		uint64_t s = pa_val(b->ram.regions[i].start),
			 e = pa_val(b->ram.regions[i].end);

		FUZZ_CHECK(s < e && e <= limit);
		FUZZ_CHECK(IS_ALIGNED(s, PAGE_SIZE) &&
			   IS_ALIGNED(e, PAGE_SIZE));
		FUZZ_CHECK(b->ram.regions[i].node < b->node_count);
		if (i) {
			FUZZ_CHECK(pa_val(b->ram.regions[i - 1].end) <= s);
			FUZZ_CHECK(pa_val(b->ram.regions[i - 1].end) != s ||
				   b->ram.regions[i - 1].node !=
					   b->ram.regions[i].node);
		}
	}
	for (unsigned int i = 0; i < b->reserved.count; i++)
		FUZZ_CHECK(pa_val(b->reserved.regions[i].start) <
			   pa_val(b->reserved.regions[i].end));
	FUZZ_CHECK(b->cpu_count >= 1 && b->cpu_count <= CONFIG_NR_CPUS);
	for (unsigned int i = 0; i < b->cpu_count; i++) {
		FUZZ_CHECK(b->cpus[i].node < b->node_count);
		boots += b->cpus[i].boot_cpu;
		for (unsigned int j = 0; j < i; j++)
			FUZZ_CHECK(b->cpus[i].hwid != b->cpus[j].hwid);
	}
	FUZZ_CHECK(boots == 1 && b->cpus[0].boot_cpu && b->cpus[0].usable);
	for (unsigned int x = 0; x < b->node_count; x++)
		for (unsigned int y = 0; y < b->node_count; y++)
			/* Asymmetric allowed (ACPI SLIT semantics). */
			FUZZ_CHECK(x == y ? b->distance[x][y] == 10
					  : b->distance[x][y] > 10);
}

#endif
