/* SPDX-License-Identifier: MIT */
/*
 * Owner: report.
 * The boot report (DESIGN §7): human lines prefixed "keel: ", one line
 * "KEEL-REPORT {json}", then "KEEL: PASS" or "KEEL: FAIL <reason>".
 */
#ifndef KEEL_REPORT_H
#define KEEL_REPORT_H

#include <keel/bootinfo.h>
#include <keel/enum_names.h>
#include <keel/types.h>

/*
 * report= (docs/cmdline.md): compact (default) bounds the lists that grow
 * with the firmware and the options (memmap.reserved: at most 64 rows;
 * domains[] and bench[]: a few rows and a summary; no latency.hist; no
 * per-CPU detail above 64 CPUs) so that the line keeps its budget; full
 * prints them whole, for checkers that need every row (scripts/fuzz-maps.py,
 * the domain checks of the test matrices).
 */
enum report_mode {
	REPORT_COMPACT = 0,
	REPORT_FULL,
};

/* report= for this boot (keel_main()); report_full(): every per-CPU column. */
void report_set_mode(enum report_mode mode);
bool report_full(void);

/*
 * report_cpu_detail(): print the per-CPU detail columns for a boot of
 * @cpus CPUs: report=full, or at most REPORT_CPU_DETAIL_MAX CPUs.
 */
#define REPORT_CPU_DETAIL_MAX 64
bool report_cpu_detail(unsigned int cpus);

struct audit_result;
struct domain_set;

/*
 * Phase stamps in raw ticks, taken by the flow (common/boot.c) and read
 * by the report: the heap handoff's wall time (heap.init_ns) and the
 * start of the report (report_ns).
 */
struct boot_times {
	uint64_t heap_init_begin, heap_init_end, report;
};

/*
 * Queries of a struct bootinfo (common/report/bootinfo_report.c, for the
 * report and the flow's log lines; lib knows no firmware): total RAM
 * bytes, and on one node (NUMA_NO_NODE: all), after sanitise; the report's
 * name of a boot protocol.
 */
uint64_t bootinfo_ram_bytes(const struct bootinfo *bi);
uint64_t bootinfo_node_ram_bytes(const struct bootinfo *bi, uint32_t node);
extern const struct enum_name boot_protocol_names[];
const char *boot_protocol_name(enum boot_protocol p);

/* The stress report's rate (stress_report.c): @ops per second over @ticks
 * (0 when @ticks is 0). */
uint64_t stress_ops_per_s(uint64_t ops, uint64_t ticks);

/*
 * report_print(): the human summary, the JSON line, then the verdict
 * common/boot.c decided: "KEEL: PASS" when @fail_reason is NULL, else
 * "KEEL: FAIL @fail_reason". Each section comes from the subsystem that
 * owns its numbers (*_report_json(), *_report_human()); this file writes
 * the keys of the boot itself (schema, arch, timer, the counters at the
 * end) and the order. @ds: the boot's domains, which the flow holds
 * (NULL: none).
 */
void report_print(const struct bootinfo *bi, const struct audit_result *a,
		  const char *fail_reason, const struct boot_times *bt,
		  const struct domain_set *ds);

#endif
