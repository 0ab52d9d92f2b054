/* SPDX-License-Identifier: MIT */
/*
 * The report room's sections (the files of common/report/), one writer per section
 * of the KEEL-REPORT JSON and one for its human lines, in the order
 * report_print() calls them. Each reads the numbers its room keeps as
 * data (stats structs, getters) and does the joins between rooms
 * (cpus[].scrubber, nodes[].free_bytes); no room below calls any of them.
 * Not an interface: the report's files and the unit tests include it.
 */
#ifndef COMMON_REPORT_PRIV_H
#define COMMON_REPORT_PRIV_H

#include <keel/badmem.h>
#include <keel/domain.h>
#include <keel/node_limits.h>
#include <keel/report.h>
#include <keel/types.h>

struct audit_result;
struct bootinfo;
struct domain_set;
struct domain_view;
struct jw;

/* "cpus" table and "smp" object (smp_report.c). */
void smp_report_json(struct jw *w);
/* "nodes" table (numa_report.c). */
void numa_report_json(struct jw *w, const struct bootinfo *bi);
/* "memmap" and "bootmem" objects (bootmem_report.c). */
void bootmem_report_json(struct jw *w, const struct bootinfo *bi);
/* "heap" object and the "heap:" lines (heap_report.c). */
void heap_report_json(struct jw *w, unsigned int nodes,
		      const struct boot_times *bt);
void heap_report_human(unsigned int nodes, const struct boot_times *bt);
/* "scrub" object and the "scrub:" lines (scrub_report.c). */
void scrub_report_json(struct jw *w, unsigned int nodes);
void scrub_report_human(unsigned int nodes);
/* "cachemaint" and "p2m" objects (selftest_report.c). */
void cachemaint_report_json(struct jw *w);
void p2m_report_json(struct jw *w);
/* "bench" table, empty unless bench=on (bench_report.c). */
void bench_report_json(struct jw *w);
/* "latency" and "irq" objects and their lines (latency_report.c). */
void latency_report_json(struct jw *w);
void latency_report_human(void);
/* "stress" object (stress=N only) and its line (stress_report.c). */
void stress_report_json(struct jw *w);
void stress_report_human(void);
/* "churn" object (churn=N only) and its line (churn_report.c). */
void churn_report_json(struct jw *w);
void churn_report_human(void);
/* "domains" table, domains_build_ns, domains_info, the domain lines. */
void domains_report_json(struct jw *w, const struct domain_set *ds);
void domains_report_human(const struct domain_set *ds);
/* domains[].origin: "boot" or "static" (domain_report.c). */
const char *domain_origin_name(enum domain_origin o);
/* domain_summary.c: the rows the report prints, the summary of all. */
unsigned int domain_report_pick(const struct domain_set *ds,
				bool chosen[DOMAIN_MAX]);
uint64_t domain_build_ns(const struct domain_view *v);
void domains_summary_json(struct jw *w, const struct domain_set *ds,
			  unsigned int rows);
/* "guests" table, guests_info (@full: every row), the guest lines. */
void guests_report_json(struct jw *w, bool full);
void guests_report_human(void);
/* "audit" object and the "audit:" line (audit.c). */
void audit_report_json(struct jw *w, const struct audit_result *a);
void audit_report_human(const struct audit_result *a);
/* "liveupdate" object and its line (liveupdate_report.c). */
void liveupdate_report_json(struct jw *w, const struct domain_set *ds);
void liveupdate_report_human(const struct domain_set *ds);
/* "bad_memory" object and its line (badmem_report.c); the audit's count. */
struct badmem_counts {
	uint64_t pages, ranges;
	uint64_t by_source[BADMEM_SOURCES];
	uint64_t by_node[MAX_NUMNODES];
	/* Of those, taken out at runtime (heap_offline()), and the longest. */
	uint64_t runtime_pages, offline_ns_max;
	/* Of the runtime pages, those still inside a block or an extent. */
	uint64_t held_pages;
	/*
	 * Carried by the handover taken: all its bad pages; of them those
	 * kept reserved with a domain whose restore failed, in kept_runs.
	 */
	uint64_t handover_pages, kept_pages, kept_runs;
	/* Runs of a badram= lattice inside keel's own reservations. */
	uint64_t lattice_runs;
};
void badmem_report_count(struct badmem_counts *c);
void badmem_report_json(struct jw *w, unsigned int nodes);
void badmem_report_human(void);
/* trace_mode, trace[], trace_summary[], trace_overflow* (trace_report.c). */
void trace_report_json(struct jw *w, unsigned int nodes);

#endif /* COMMON_REPORT_PRIV_H */
