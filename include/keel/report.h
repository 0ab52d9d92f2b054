/* SPDX-License-Identifier: MIT */
/*
 * The boot report (DESIGN §7): human lines prefixed "keel: ", one line
 * "KEEL-REPORT {json}", then "KEEL: PASS" or "KEEL: FAIL <reason>".
 */
#ifndef KEEL_REPORT_H
#define KEEL_REPORT_H

#include <keel/bootinfo.h>
#include <keel/types.h>

/*
 * report= (docs/cmdline.md): compact (default) bounds the lists that grow
 * with the firmware (memmap.reserved: at most 64 rows); full prints them
 * whole, for checkers that need every region (scripts/fuzz-maps.py).
 */
enum report_mode {
	REPORT_COMPACT = 0,
	REPORT_FULL,
};

struct audit_result {
	uint64_t ram_pages;
	uint64_t free_pages;	  /* walked on the free lists */
	uint64_t allocated_pages; /* heap blocks currently allocated */
	uint64_t reserved_pages;  /* RAM in named reserved regions */
	int64_t lost_pages;	  /* ram - free - allocated - reserved */
	unsigned int problems;	  /* heap_check() findings (audit=full) */
	bool ok;
};

/* Phase times in ticks since entry, filled by common/boot.c. */
struct boot_times {
	uint64_t heap_init_begin, heap_init_end, report;
};
extern struct boot_times boot_times;

/* Benchmark rows (bench=on), filled by the self-benchmark. */
struct bench_row {
	unsigned int order, node;
	uint64_t count;
	uint64_t ns_avg, ns_max, lock_ns_max, maint_ns;
	const char *mode; /* "eager" / "deferred" */
	bool dirty;
};
#define BENCH_MAX_ROWS 64
extern struct bench_row bench_rows[BENCH_MAX_ROWS];
extern unsigned int bench_row_count;

void audit_run(struct audit_result *out, bool full);

/*
 * report_print(): the human summary and the JSON line, then the verdict.
 * @fail_reason: NULL for PASS. Return: true when the verdict is PASS
 * (audit ok and no fail reason).
 */
bool report_print(const struct bootinfo *bi, const struct audit_result *a,
		  const char *fail_reason);

#endif
