/* SPDX-License-Identifier: MIT */
/*
 * Shared helpers for the cmocka unit tests (built on the sandbox arch).
 *
 *  - TEST_EXPECT_PANIC(stmt, substr): run @stmt, require that it panics
 *    with a message containing @substr (NULL: any message). Panics must
 *    happen on the test's own thread (the hook longjmps).
 *  - test_quiet_begin()/test_quiet_end(), test_console_contains(): capture
 *    console output silently and look for a string in it.
 *  - test_machine_boot(): a whole small sandbox machine (RAM arena, bootinfo,
 *    NUMA, bootmem, frame table, SMP, heap handoff) from a short config.
 *
 * Everything here is static (inline) so that each test file can include it.
 */
#ifndef TEST_UTIL_H
#define TEST_UTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <arch/cpu.h>
#include <arch/mm.h>
#include <asm/sandbox.h>
#include <keel/bootinfo.h>
#include <keel/bootmem.h>
#include <keel/errno.h>
#include <keel/cachemaint.h>
#include <keel/frametable.h>
#include <keel/heap.h>
#include <keel/numa.h>
#include <keel/options.h>
#include <keel/printk.h>
#include <keel/scrub.h>
#include <keel/smp.h>
#include <keel/stress.h>

/* ---- console ------------------------------------------------------------- */

/* Capture console output without printing it (tests stay silent). */
static inline void test_quiet_begin(void)
{
	sandbox_console_clear();
	sandbox_console_capture(true, true);
}

static inline void test_quiet_end(void)
{
	sandbox_console_capture(false, false);
}

static inline bool test_console_contains(const char *s)
{
	return strstr(sandbox_console_buffer(), s) != NULL;
}

/* Number of "keel: warning: " lines captured since the last clear. */
static inline unsigned int test_console_warnings(void)
{
	const char *p = sandbox_console_buffer();
	unsigned int n = 0;

	while ((p = strstr(p, "keel: warning: ")) != NULL) {
		n++;
		p++;
	}
	return n;
}

/* Does @bi hold the reserved range [s, e) named @name? */
static inline bool test_has_reserved(const struct bootinfo *bi, uint64_t s,
				     uint64_t e, const char *name)
{
	for (unsigned int i = 0; i < bi->reserved_count; i++)
		if (pa_val(bi->reserved[i].start) == s &&
		    pa_val(bi->reserved[i].end) == e &&
		    !strcmp(bi->reserved[i].name, name))
			return true;
	return false;
}

/* ---- panics -------------------------------------------------------------- */

static jmp_buf test_panic_jmp __attribute__((unused));
static volatile bool test_panic_expected __attribute__((unused));

static inline void test_panic_hook(const char *msg)
{
	if (test_panic_expected)
		longjmp(test_panic_jmp, 1);
	sandbox_set_panic_hook(NULL);
	fail_msg("unexpected panic: %s", msg);
}

static inline void test_check_panic_msg(const char *what, const char *substr)
{
	const char *msg = sandbox_last_panic();

	if (substr && !strstr(msg, substr))
		fail_msg("%s panicked with \"%s\", expected \"%s\"", what, msg,
			 substr);
}

/*
 * The console is captured quietly while @stmt runs; the capture buffer
 * holds what it printed afterwards (test_console_contains()).
 */
#define TEST_EXPECT_PANIC(stmt, substr)                       \
	do {                                                  \
		test_quiet_begin();                           \
		sandbox_set_panic_hook(test_panic_hook);      \
		test_panic_expected = true;                   \
		if (setjmp(test_panic_jmp) == 0) {            \
			stmt;                                 \
			test_panic_expected = false;          \
			sandbox_set_panic_hook(NULL);         \
			test_quiet_end();                     \
			fail_msg("no panic from: %s", #stmt); \
		}                                             \
		test_panic_expected = false;                  \
		sandbox_set_panic_hook(NULL);                 \
		test_quiet_end();                             \
		test_check_panic_msg(#stmt, (substr));        \
	} while (0)

/* ---- a small machine ----------------------------------------------------- */

#define TEST_RAM_BASE (16ull << 20)

struct test_node_cfg {
	uint64_t ram_bytes; /* 0: a CPU-only node */
	unsigned int cpus;  /* 0: a memory-only node */
	/*
	 * > 1: the RAM is cut into this many equal pieces, each losing its
	 * first and last page (many small, unaligned chunks).
	 */
	unsigned int pieces;
};

struct test_machine_cfg {
	unsigned int nodes;
	struct test_node_cfg node[MAX_NUMNODES];
	const char *cmdline; /* keel options (inject=..., ...), or NULL */
	/* Distance matrix; all zero = 10 local / 20 remote. */
	uint8_t distance[MAX_NUMNODES][MAX_NUMNODES];
	unsigned int ap_timeout_ms; /* 0 = 1000 */
	/* Non-zero: fill every free byte with it before the handoff. */
	uint8_t fill;
	bool clean_handoff; /* hand memory over clean (bootscrub=off) */
};

static struct bootinfo test_bi __attribute__((unused));

/*
 * Node n's RAM is [start, start + ram_bytes) with nodes laid out one after
 * the other from TEST_RAM_BASE. The first CPU (node of the first node that
 * has CPUs) is the boot CPU; every CPU is its own core.
 */
static inline paddr_t test_node_start(const struct test_machine_cfg *cfg,
				      unsigned int node)
{
	uint64_t s = TEST_RAM_BASE;

	for (unsigned int n = 0; n < node; n++)
		s += cfg->node[n].ram_bytes;
	return pa(s);
}

/* Return: the number of CPUs online. Console output is captured quietly. */
static inline unsigned int test_machine_boot(const struct test_machine_cfg *cfg)
{
	struct bootinfo *bi = &test_bi;
	unsigned int hwid = 0, online;
	uint64_t top = TEST_RAM_BASE, idx;
	paddr_t s, e;
	uint32_t node;

	test_quiet_begin();
	options_defaults(&opts);
	if (cfg->cmdline)
		cmdline_parse(&opts, cfg->cmdline, strlen(cfg->cmdline));

	bootinfo_init(bi, BOOT_SANDBOX);
	bi->paddr_bits = 48;
	for (unsigned int n = 0; n < cfg->nodes; n++) {
		paddr_t start = test_node_start(cfg, n);

		if (cfg->node[n].ram_bytes && cfg->node[n].pieces > 1) {
			uint64_t part =
				cfg->node[n].ram_bytes / cfg->node[n].pieces;

			for (unsigned int k = 0; k < cfg->node[n].pieces; k++)
				bootinfo_add_ram(
					bi, pa_add(start, k * part + PAGE_SIZE),
					pa_add(start,
					       (k + 1) * part - PAGE_SIZE),
					n);
		} else if (cfg->node[n].ram_bytes) {
			bootinfo_add_ram(bi, start,
					 pa_add(start, cfg->node[n].ram_bytes),
					 n);
		}
		top = pa_val(start) + cfg->node[n].ram_bytes;
		for (unsigned int c = 0; c < cfg->node[n].cpus; c++, hwid++)
			bootinfo_add_cpu(bi, hwid, n, n, hwid, 0, true);
	}
	if (bi->cpu_count)
		bi->cpus[0].boot_cpu = true;
	for (unsigned int a = 0; a < cfg->nodes; a++)
		for (unsigned int b = 0; b < cfg->nodes; b++)
			if (cfg->distance[a][b])
				bootinfo_set_distance(bi, a, b,
						      cfg->distance[a][b]);
	bootinfo_sanitise(bi);
	assert_int_equal(sandbox_ram_init(top), 0);

	numa_init(bi);
	bootmem_init();
	bootmem_init_from_bootinfo(bi);
	frametable_init(bi->node_count);
	smp_init(bi);
	scrub_init_cpus();
	stress_init_cpus();
	online = smp_boot_cpus(cfg->ap_timeout_ms ? cfg->ap_timeout_ms : 1000);
	heap_init(HEAP_INIT_LAZY, bi->node_count,
		  (const uint8_t(*)[MAX_NUMNODES])bi->distance);
	cachemaint_init(CACHEMAINT_DEFERRED);
	if (cfg->fill) {
		for_each_free_range (idx, &s, &e, &node)
			memset(phys_to_virt(s), cfg->fill,
			       pa_val(e) - pa_val(s));
	}
	bootmem_set_handoff_dirty(!cfg->clean_handoff);
	bootmem_handoff();
	test_quiet_end();
	return online;
}

#endif
