/* SPDX-License-Identifier: MIT */
/*
 * report=: compact (default) or full, set once by the flow and read by
 * every section writer that leaves columns or rows out of the compact
 * report. A leaf of the report room: report.c calls the sections, the
 * sections ask this file, and nothing here calls back.
 */
#include <keel/report.h>

static enum report_mode report_mode;

/** report_set_mode() - report= for this boot (keel_main(), once parsed). */
void report_set_mode(enum report_mode mode)
{
	report_mode = mode;
}

/** report_full() - Return: report=full (every per-CPU column, every range). */
bool report_full(void)
{
	return report_mode == REPORT_FULL;
}

/**
 * report_cpu_detail() - the per-CPU detail columns (cpus[].tsc_skew_ns,
 * scrub.per_cpu[].idle_ns) of a boot of @cpus CPUs: in the compact report
 * only up to REPORT_CPU_DETAIL_MAX CPUs, 20 bytes a CPU the 32 KiB budget
 * at 256 CPUs has no room for (DESIGN §9); their maxima stay
 * (smp.tsc_skew_max_ns, scrub.idle_max_ns).
 * Return: true when they are printed.
 */
bool report_cpu_detail(unsigned int cpus)
{
	return report_full() || cpus <= REPORT_CPU_DETAIL_MAX;
}
