/* SPDX-License-Identifier: MIT */
/*
 * Owner: boot (data: common/ reads it).
 * keel's command line options, parsed once a boot by options_parse()
 * (boot/cmdline.c) into a struct keel_options that the arch owns and hands
 * as data to boot/ (fwboot_finish()) and to keel_main(), which hands each
 * phase the values it needs. Every option is documented in
 * docs/cmdline.md. Unknown keys and bad values get one warning each and
 * keep the default.
 */
#ifndef KEEL_OPTIONS_H
#define KEEL_OPTIONS_H

/*
 * Plain data: the fields are integers, bools, enums of this header and the
 * value types of lib's console_spec.h, domain_spec.h and inject.h. A mode
 * whose enum a room owns is kept here as an int holding that enum's value
 * (named beside the field) and handed typed to the phase (common/boot.c),
 * so that this header needs no room's header and its readers see no room
 * they do not include themselves.
 */
#include <keel/console_spec.h>
#include <keel/domain_spec.h>
#include <keel/inject.h>
#include <keel/types.h>

/* Bounds of stress=, churn= and ap_timeout_ms=: values outside are clamped, warned. */
#define STRESS_MAX_SECONDS 3600
#define AP_TIMEOUT_MIN_MS  10
/* domain_fill_sample= default: one sampled page in every 64 MiB. */
#define DOMAIN_FILL_SAMPLE_DEFAULT (64ULL << 20)

/* liveupdate=N: at most this many updates in a row (more: clamped, warned). */
#define LIVEUPDATE_MAX 1000
/*
 * lu_freeze_ms=: the live update's freeze bound (docs/cmdline.md says why
 * these numbers); outside [MIN, MAX]: clamped, warned.
 */
#define LU_FREEZE_MS_DEFAULT 1000
#define LU_FREEZE_MS_MIN     10
#define LU_FREEZE_MS_MAX     60000
/*
 * ce_offline=N: corrected errors on one page before it is taken out of
 * service as soft (0: never; docs/cmdline.md says why 16); above MAX:
 * clamped, warned.
 */
#define CE_OFFLINE_DEFAULT 16
#define CE_OFFLINE_MAX	   10000
/* latency_cpu= not given: the last online CPU of node 0. */
#define LATENCY_CPU_AUTO 0xffffffffu

enum acpi_mode { ACPI_AUTO = 0, ACPI_FORCE, ACPI_OFF };
/* handover= (docs/cmdline.md): read it (keep), or boot fresh (discard). */
enum handover_mode { HANDOVER_KEEP = 0, HANDOVER_DISCARD };

enum audit_mode { AUDIT_BASIC = 0, AUDIT_FULL };

struct keel_options {
	int bootscrub; /* enum scrub_mode (scrub.h) */
	uint64_t bootscrub_chunk;
	bool scrub_smt;
	char scrub_primitive[16]; /* "" = the calibration decides */
	int heap_init;		  /* enum heap_init_mode (heap_boot.h) */
	int cachemaint;		  /* enum cachemaint_mode (cachemaint.h) */
	bool cachemaint_set;	  /* given on the command line */
	bool bench;
	bool p2m_selftest; /* p2m_selftest=on: check the stage-2 tables */
	uint64_t stress_seconds;
	uint64_t churn_seconds; /* churn=: runtime heap churn (keel/churn.h) */
	bool latency;		/* latency=on: the probe */
	uint32_t latency_period_us; /* latency_period= */
	uint32_t latency_cpu;	    /* latency_cpu=, LATENCY_CPU_AUTO */
	uint32_t latency_max_order; /* latency_max_order=: largest extent */
	int after;		    /* enum after_action (arch/cpu.h) */
	uint64_t mem_limit;	    /* mem=: 0 = none */
	enum acpi_mode acpi;
	enum audit_mode audit;
	int trace;  /* enum trace_mode (trace.h) */
	int report; /* enum report_mode (report.h) */
	int loglevel;
	uint32_t ap_timeout_ms;
	int smp_start; /* enum smp_start_mode (smp.h) */
	int init_delay_us; /* INIT_DELAY_AUTO or 0..INIT_DELAY_MAX_US (arch/smp.h) */
	char console[48];		  /* console=, as given */
	struct console_spec console_spec; /* and parsed (kind 0: none) */
	struct inject inject[INJECT_MAX];
	unsigned int inject_count;
	/* INJECT_FW_* of those words: acted on while the firmware is read */
	unsigned int fw_inject;
	struct domain_spec domain[DOMAIN_MAX]; /* domain=, in order given */
	unsigned int domain_count;
	unsigned int domains_dropped; /* domain= words past DOMAIN_MAX */
	bool domains_destroy;	      /* domains_destroy=on */
	bool domains_trust; /* domains_trust=on: bootscrub=off memory is zero */
	bool guests;	    /* guests=on: a vCPU in every domain */
	uint32_t guest_touch;  /* guest_touch=: bytes between words touched */
	uint32_t guest_run_ms; /* guest_run_ms=: each guest's measuring loop */
	uint32_t guest_rounds; /* guest_rounds=: build, run, destroy rounds */
	uint32_t liveupdate;   /* liveupdate=N: updates in a row */
	uint32_t lu_freeze_ms; /* lu_freeze_ms=: the freeze's bound */
	uint32_t ce_offline;   /* ce_offline=: corrected errors, 0: never */
	enum handover_mode handover; /* handover=keep|discard */
	bool domain_fill;	     /* domain_fill=on: every extent, sampled */
	uint64_t domain_fill_sample; /* domain_fill_sample=: a page per SIZE */
	unsigned int warnings;	     /* problems seen while parsing */
};

/*
 * options_parse(): the one parse of a boot: defaults, then
 * CONFIG_DEFAULT_CMDLINE, then the loader's line [s, s+len) (a NUL ends it
 * earlier). Every problem is one warning. Return: the warnings.
 */
unsigned int options_parse(struct keel_options *o, const char *s, size_t len);
/* How many times options_parse() ran (one boot: once). */
unsigned int options_parse_count(void);

/* Defaults from Kconfig. */
void options_defaults(struct keel_options *o);

/*
 * cmdline_parse(): space-separated `key=value` and bare `flag` words
 * (quotes "..." allowed around values) applied to @o, as options_parse()
 * does for each of its two lines (tests call it alone). Bare flags mean
 * `flag=on` for booleans. Words without a key keel knows get a warning
 * (the first word is skipped when it looks like a kernel path, as
 * QEMU/GRUB pass one). Never reads past @len or a NUL.
 * Return: number of warnings printed.
 */
unsigned int cmdline_parse(struct keel_options *o, const char *s, size_t len);

/* For docs and the report: parse a boolean word (on/off/yes/no/1/0/true/false). */
int parse_bool(const char *s, size_t len, bool *out);

#endif
