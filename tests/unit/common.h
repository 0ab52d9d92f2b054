/* SPDX-License-Identifier: MIT */
/*
 * The one fixture of the cmocka unit tests (built on the sandbox arch),
 * compiled once (common.c) and linked into every unit test binary.
 *
 *  - test_setup()/test_teardown(): the standard per-test pair (console
 *    captured quietly; capture and test hooks dropped afterwards).
 *  - test_quiet_begin()/test_quiet_end(), test_console_contains(),
 *    test_console_warnings(), test_console_lines(): capture console output
 *    silently and read it.
 *  - TEST_EXPECT_PANIC(stmt, substr): run @stmt, require that it panics
 *    with a message containing @substr (NULL: any message). Panics must
 *    happen on the test's own thread (the hook longjmps).
 *  - test_machine_boot(): a whole small sandbox machine (RAM arena,
 *    bootinfo, NUMA, bootmem, frame table, SMP, heap, handoff) from a short
 *    config, in test_bi.
 *  - test_heap_snapshot(), test_snap_equal(), test_heap_check_clean(): the
 *    heap's free chunks compared between builds, and heap_check().
 */
#ifndef TEST_COMMON_H
#define TEST_COMMON_H

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <arch/cpu.h>
#include <arch/mm.h>
#include <asm/sandbox.h>
#include <keel/bootinfo.h>
#include <keel/bootmem.h>
#include <keel/cachemaint.h>
#include <keel/errno.h>
#include <keel/frametable.h>
#include <keel/heap.h>
#include <keel/heap_boot.h>
#include <keel/heap_check.h>
#include <keel/heap_scrub.h>
#include <keel/numa.h>
#include <keel/options.h>
#include <keel/printk.h>
#include <keel/scrub.h>
#include <keel/smp.h>
#include <keel/stress.h>

#define KiB (1ULL << 10)
#define MiB (1ULL << 20)
#define GiB (1ULL << 30)

/* ---- setup / teardown ---------------------------------------------------- */

/* Capture the console quietly. Return: 0 (a cmocka setup). */
int test_setup(void **state);
/*
 * After every test, passed or failed: end the capture, and put back the
 * global state a test may change (interrupts, the timer, armed faults,
 * the panic hook, sandbox observers, log level, trace mode). Return: 0.
 */
int test_teardown(void **state);

/* ---- console ------------------------------------------------------------- */

/* Capture console output without printing it (tests stay silent). */
void test_quiet_begin(void);
void test_quiet_end(void);
bool test_console_contains(const char *s);
/* Times @s occurs in what was captured since the last clear. */
unsigned int test_console_count(const char *s);
/* Number of "keel: warning: " lines captured since the last clear. */
unsigned int test_console_warnings(void);
/* Number of lines captured since the last clear. */
unsigned int test_console_lines(void);

/* Does @bi hold the reserved range [s, e) named @name? */
bool test_has_reserved(const struct bootinfo *bi, uint64_t s, uint64_t e,
		       const char *name);

/* heap_stats() of node @n into a buffer of the test's own (valid
 * until the next call; fails the test for no such node). */
const struct heap_stats *test_node_stats(uint32_t n);

/* ---- panics -------------------------------------------------------------- */

extern jmp_buf test_panic_jmp;
extern volatile bool test_panic_expected;

/* The hook TEST_EXPECT_PANIC installs (longjmps to test_panic_jmp). */
void test_panic_hook(const char *msg);
/* Fail unless the last panic message contains @substr (NULL: any). */
void test_check_panic_msg(const char *what, const char *substr);

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

/* An explicit RAM range [start, end) in bytes, on @node. */
struct test_ram {
	uint64_t start, end;
	uint32_t node;
};

/* An explicit reserved range [start, end) in bytes. */
struct test_rsv {
	uint64_t start, end;
	const char *name;
};

/*
 * RAM comes either from @node (@nodes of them, laid out one after the other
 * from TEST_RAM_BASE; their CPUs are brought up with smp_boot_cpus()) or,
 * when @ram is set, from the explicit ranges (one boot CPU on node 0, no
 * SMP bring-up: the allocator tests).
 */
struct test_machine_cfg {
	unsigned int nodes;
	struct test_node_cfg node[MAX_NUMNODES];
	const struct test_ram *ram;
	unsigned int ram_count;
	const struct test_rsv *rsv;
	unsigned int rsv_count;
	const char *cmdline; /* keel options (inject=..., ...), or NULL */
	/* Distance matrix; all zero = 10 local / 20 remote. */
	uint8_t distance[MAX_NUMNODES][MAX_NUMNODES];
	unsigned int ap_timeout_ms; /* 0 = 1000 */
	uint64_t mem_limit;	    /* bootmem_limit() when non-zero */
	enum heap_init_mode mode;
	enum cachemaint_mode cachemaint;
	/* Non-zero: fill every free byte with it before the handoff. */
	uint8_t fill;
	bool dirty;	   /* hand memory over dirty */
	bool no_handoff;   /* stop before heap_handoff() */
	bool bootmem_only; /* stop after bootmem: no frame table, no heap */
	/* Called on the sanitised bootinfo right before bootmem takes it. */
	void (*before_bootmem)(struct bootinfo *bi);
};

/*
 * A bootinfo copied whole: its tables on @dst's own stores (or, grown,
 * on a copy from the test's heap), never shared with @src as an
 * assignment would.
 */
void test_bootinfo_copy(struct bootinfo *dst, const struct bootinfo *src);

/* The machine's bootinfo, as test_machine_boot() built it. */
extern struct bootinfo test_bi;
/*
 * The options of that machine (@cfg->cmdline parsed): the tests' own,
 * as an arch owns its boot's (keel has no global copy).
 */
extern struct keel_options opts;

/*
 * The heap's cache maintenance policy in the tests (test_machine_boot()
 * gives it cfg->cachemaint): @mode, its counters zeroed. Read it back
 * with heap_cachemaint().
 */
void test_set_cachemaint(enum cachemaint_mode mode);

/*
 * test_machine_boot() - build the machine @cfg describes, the way
 * common/boot.c does. Console output is captured quietly. bootinfo's
 * early pool is emptied first: it is one boot's bump allocator, and a
 * machine of 20,000 reserved ranges left the next test's table nothing
 * to grow into (its ranges merged: bootmem_cost's test_two_steps).
 *
 * Return: the number of CPUs online.
 */
unsigned int test_machine_boot(const struct test_machine_cfg *cfg);

/*
 * test_two_node_heap() - two nodes of 64 MiB each, the lazy handoff,
 * heap_strict set, the calling CPU on node 0: the heap tests' machine.
 */
void test_two_node_heap(void);

/* ---- heap snapshots ------------------------------------------------------ */

struct test_chunk {
	uint64_t pfn;
	uint32_t first_dirty;
	uint8_t order, node, flags;
};

struct test_snap {
	struct test_chunk *c;
	size_t n, cap;
};

/* Every free chunk of every node, sorted by pfn. free() s.c when done. */
struct test_snap test_heap_snapshot(void);
/* The same, keeping only the chunk flags in @flags_mask. */
struct test_snap test_heap_snapshot_flags(uint8_t flags_mask);
/* Fail unless @a and @b hold the same chunks. */
void test_snap_equal(const struct test_snap *a, const struct test_snap *b);
/* A run of heap_check() that must find nothing (output captured). */
void test_heap_check_clean(void);

/*
 * test_xorshift64() - the next value of the xorshift64 sequence in
 * *@state (not 0): the tests' one reproducible source of random numbers.
 */
static inline uint64_t test_xorshift64(uint64_t *state)
{
	uint64_t x = *state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *state = x;
}

#endif
