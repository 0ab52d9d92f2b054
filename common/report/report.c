/* SPDX-License-Identifier: MIT */
/*
 * The boot report (DESIGN §7): the human summary lines, the single
 * "KEEL-REPORT {json}" line and the "KEEL: PASS" / "KEEL: FAIL <reason>"
 * line of the verdict common/boot.c decided.
 *
 * This file owns the order of the report and the keys of the boot itself:
 * schema, arch, boot, loader, cmdline, el, timer.*, and the counters at the
 * end (online_cpus ... report_bytes). Every other section has its writer in
 * this room (report_priv.h), which reads the numbers the room below keeps
 * as data and does the joins:
 *   cpus[], smp.*         smp_report_json()        smp_report.c
 *   nodes[]               numa_report_json()       numa_report.c
 *   memmap.*, bootmem.*   bootmem_report_json()    bootmem_report.c
 *   heap.*                heap_report_json()       heap_report.c
 *   scrub.*               scrub_report_json()      scrub_report.c
 *   cachemaint.*, p2m.*   cachemaint_report_json(), p2m_report_json()
 *                                                  selftest_report.c
 *   bench[]               bench_report_json()      bench_report.c
 *   irq.*, latency.*      latency_report_json()    latency_report.c
 *   stress.*              stress_report_json()     stress_report.c
 *   churn.*               churn_report_json()      churn_report.c
 *   domains*              domains_report_json()    domain_report.c,
 *                                                  domain_summary.c
 *   guests, guests_info   guests_report_json()     guest_report.c
 *   liveupdate.*          liveupdate_report_json() liveupdate_report.c
 *   audit.*               audit_report_json()      audit.c
 *   trace*                trace_report_json()      trace_report.c
 * report= is read through report_mode.c, the room's leaf.
 * The keys and their types are listed once, in
 * scripts/keel/report_schema.json (docs/report-format.md is generated from
 * it, and every test boot is checked against it).
 *
 * The JSON comes from the streaming writer of common/lib/json.c (no heap,
 * no large buffer, one line). It must stay carriable by a 115200-baud
 * serial console on big machines (DESIGN §9: <= 32 KiB at 256 CPUs), so
 * every list of same-shaped objects is a table, scrub units are summed per
 * node unless trace=full, and unless report=full: memmap.reserved is cut,
 * the domains and bench tables keep a few rows (the rest summarised),
 * latency.hist is left out, and so are the per-CPU detail columns above
 * 64 CPUs (report_cpu_detail()); the document ends with its own length
 * (report_bytes). The human lines stay per node; per-CPU and per-range
 * lines are debug (loglevel=3).
 *
 * Runs on the boot CPU only, after every other CPU is parked: no lock.
 */
#include <arch/cpu.h>
#include <keel/audit.h>
#include <keel/bench.h>
#include <keel/bootinfo.h>
#include <keel/bootmem.h>
#include <keel/cachemaint.h>
#include <keel/domain.h>
#include <keel/heap_check.h>
#include <keel/json.h>
#include <keel/latency.h>
#include <keel/numa.h>
#include <keel/p2m.h>
#include <keel/printk.h>
#include <keel/report.h>
#include <keel/scrub.h>
#include <keel/smp.h>
#include <keel/stress.h>
#include <keel/trace.h>

#include "report_priv.h"

static void report_human(const struct bootinfo *bi,
			 const struct audit_result *a,
			 const struct boot_times *bt,
			 const struct domain_set *ds)
{
	heap_report_human(bi->node_count, bt);
	scrub_report_human(bi->node_count);
	stress_report_human();
	churn_report_human();
	domains_report_human(ds);
	guests_report_human();
	liveupdate_report_human(ds);
	latency_report_human();
	badmem_report_human();
	audit_report_human(a);
}

/* schema ... timer: what booted, where it runs, and how it keeps time. */
static void json_boot(struct jw *w, const struct bootinfo *bi)
{
	jw_u64(w, "schema", 1);
	jw_str(w, "arch", arch_name);
	jw_str(w, "boot", boot_protocol_name(bi->protocol));
	jw_strn(w, "loader", bi->loader, sizeof(bi->loader));
	jw_strn(w, "cmdline", bi->cmdline, sizeof(bi->cmdline));
	if (bi->el >= 0)
		jw_u64(w, "el", (uint64_t)bi->el);
	if (pa_val(bi->image_end)) {
		jw_obj(w, "image");
		jw_u64(w, "start", pa_val(bi->image_start));
		jw_u64(w, "end", pa_val(bi->image_end));
		jw_u64(w, "linked_at", pa_val(bi->image_link));
		jw_obj_end(w);
	}

	jw_obj(w, "timer");
	jw_str(w, "source", bi->timer_source ? bi->timer_source : "unknown");
	jw_u64(w, "hz", bi->timer_hz ? bi->timer_hz : arch_ticks_hz());
	jw_str(w, "calibrated_by",
	       bi->timer_calibrated_by ? bi->timer_calibrated_by : "unknown");
	jw_obj_end(w);
}

/* online_cpus ... fail_reason: the counters of the whole boot. */
static void json_counters(struct jw *w, const struct bootinfo *bi,
			  const char *fail_reason, const struct boot_times *bt)
{
	jw_u64(w, "online_cpus", smp_online_count());
	jw_u64(w, "warnings", printk_warn_count);
	jw_u64(w, "errors", printk_err_count);
	jw_u64(w, "fixups", bi->fixups);
	jw_u64(w, "dropped_ram", bi->dropped_ram);
	jw_u64(w, "dropped_reserved", bi->dropped_reserved);
	jw_u64(w, "merged_reserved", bi->merged_reserved);
	jw_u64(w, "dropped_cpus", bi->dropped_cpus);
	jw_u64(w, "dropped_nodes", bi->dropped_nodes);
	jw_u64(w, "report_ns",
	       bt->report ? ticks_to_ns_since_entry(bt->report) : 0);
	jw_str(w, "result", fail_reason ? "fail" : "pass");
	jw_str(w, "fail_reason", fail_reason);
}

/**
 * report_print() - human lines, the KEEL-REPORT JSON line, the verdict.
 * @bi: the sanitised bootinfo of this boot.
 * @a: the audit result.
 * @fail_reason: why the boot failed (common/boot.c decided), NULL: PASS.
 * @bt: the flow's phase stamps.
 * @ds: the boot's domains (the flow's set).
 */
void report_print(const struct bootinfo *bi, const struct audit_result *a,
		  const char *fail_reason, const struct boot_times *bt,
		  const struct domain_set *ds)
{
	unsigned int nodes = bi->node_count;
	struct jw w;

	report_human(bi, a, bt, ds);

	console_puts("KEEL-REPORT ");
	jw_init(&w);
	jw_obj(&w, NULL);
	json_boot(&w, bi);
	smp_report_json(&w);
	numa_report_json(&w, bi);
	bootmem_report_json(&w, bi);
	heap_report_json(&w, nodes, bt);
	scrub_report_json(&w, nodes);
	cachemaint_report_json(&w);
	bench_report_json(&w);
	latency_report_json(&w);
	stress_report_json(&w);
	churn_report_json(&w);
	p2m_report_json(&w);
	domains_report_json(&w, ds);
	guests_report_json(&w, report_full());
	liveupdate_report_json(&w, ds);
	badmem_report_json(&w, nodes);
	audit_report_json(&w, a);
	trace_report_json(&w, nodes);
	json_counters(&w, bi, fail_reason, bt);
	/* Last: the length of the JSON text, this key included. */
	jw_end_with_length(&w, "report_bytes");
	jw_flush(&w);
	console_puts("\n");

	if (!fail_reason)
		console_puts("KEEL: PASS\n");
	else
		console_printf("KEEL: FAIL %s\n", fail_reason);
}
