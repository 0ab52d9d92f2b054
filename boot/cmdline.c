/* SPDX-License-Identifier: MIT */
/*
 * The keel command line (docs/cmdline.md): `key=value` words and bare
 * boolean flags, parsed into struct keel_options, once a boot.
 *
 * options_parse() is the one parse: the arch calls it as soon as it has
 * the loader's line and before it reads the firmware tables (the firmware
 * faults of inject= and acpi= are needed there), then hands the result to
 * fwboot_finish() and keel_main() as data. In boot/, below both users: the
 * arch's setup and the flow (common/boot.c) read the struct, neither
 * parses.
 *
 * Every option is one row of opt_table (name, type, where it is stored,
 * allowed words); the parser itself knows no option names. Invariants: the
 * parser reads only [s, s + min(len, strnlen(s, len))); a bad value keeps
 * what was there (the default, or an earlier command line: options_parse()
 * parses CONFIG_DEFAULT_CMDLINE first, then the loader's line, so a later
 * word overrides an earlier one), except for inject= and domain=, whose
 * words add up, so a refused one is only ignored; every problem is exactly
 * one pr_warn naming key and value. It writes nothing but the struct it is
 * given (loglevel= is applied by fwboot_finish()). No lock: called on the
 * boot CPU before SMP.
 */
#include <arch/cpu.h>
#include <arch/smp.h>
#include <keel/cachemaint.h>
#include <keel/compiler.h>
#include <keel/config.h>
#include <keel/errno.h>
#include <keel/escape.h>
#include <keel/guest.h>
#include <keel/heap.h>
#include <keel/heap_boot.h>
#include <keel/options.h>
#include <keel/printk.h>
#include <keel/report.h>
#include <keel/scrub.h>
#include <keel/smp.h>
#include <keel/string.h>
#include <keel/trace.h>

enum opt_type {
	OPT_ENUM, /* one of ->names, stored as int */
	OPT_BOOL,
	OPT_SIZE, /* uint64_t with K/M/G/T */
	OPT_U64,
	OPT_U32,
	OPT_INT,    /* int in [min, max] */
	OPT_STRING, /* char[size] */
	OPT_INJECT,
	OPT_CONSOLE, /* console=: char[size] plus its struct console_spec */
	OPT_DOMAIN,  /* domain=SIZE[@NODE], repeatable (domain_parse.c) */
	OPT_BADMEM,  /* badpage=, badram=, memmap=: read by boot/badmem.c */
};

struct opt_desc {
	const char *name;
	enum opt_type type;
	size_t offset;
	size_t size;		       /* OPT_STRING buffer size */
	const struct enum_name *names; /* OPT_ENUM: the enum's one table */
	int min, max;		       /* OPT_INT */
	/* Extra validation/side effects after a successful store. */
	void (*post)(struct keel_options *o, const char *val, size_t len);
};

/*
 * The names of the enums only the command line reads; the others' tables
 * live with their owners (scrub_mode_names, heap_mode_names, ...) and serve
 * the report too.
 */
static const struct enum_name after_names[] = {
	{AFTER_HALT, "halt"}, {AFTER_POWEROFF, "poweroff"},
	{AFTER_EXIT, "exit"}, {AFTER_RESET, "reset"},
	ENUM_NAMES_END,
};

static const struct enum_name acpi_names[] = {
	{ACPI_AUTO, "auto"},
	{ACPI_FORCE, "force"},
	{ACPI_OFF, "off"},
	ENUM_NAMES_END,
};

static const struct enum_name audit_names[] = {
	{AUDIT_BASIC, "basic"},
	{AUDIT_FULL, "full"},
	ENUM_NAMES_END,
};

static const struct enum_name handover_names[] = {
	{HANDOVER_KEEP, "keep"},
	{HANDOVER_DISCARD, "discard"},
	ENUM_NAMES_END,
};

static const struct enum_name report_names[] = {
	{REPORT_COMPACT, "compact"},
	{REPORT_FULL, "full"},
	ENUM_NAMES_END,
};

static unsigned int parse_warnings;
/* options_parse() calls this boot (tests: exactly one). */
static unsigned int parse_count;

/* Words in warnings: escaped (keel/escape.h), cut to fit printk's line. */
static char esc_buf[2][128];
#define ESC(i, p, n) escape_bytes(esc_buf[i], sizeof(esc_buf[i]), (p), (n))

/* One warning, counted for the caller's return value. */
#define opt_warn(fmt, ...)                                    \
	do {                                                  \
		parse_warnings++;                             \
		pr_warn("cmdline: " fmt "\n", ##__VA_ARGS__); \
	} while (0)

static void post_chunk(struct keel_options *o, const char *val, size_t len)
{
	uint64_t c = o->bootscrub_chunk;
	uint64_t fixed = c < PAGE_SIZE ? PAGE_SIZE : ALIGN_DOWN(c, PAGE_SIZE);

	if (fixed != c) {
		opt_warn("bootscrub_chunk=%s is %s 4K, using %llu",
			 ESC(0, val, len),
			 c < PAGE_SIZE ? "below" : "not a multiple of",
			 (unsigned long long)fixed);
		o->bootscrub_chunk = fixed;
	}
}

/* A stress or churn run longer than an hour is a typo, not a test. */
static void clamp_seconds(const char *name, uint64_t *v, const char *val,
			  size_t len)
{
	if (*v > STRESS_MAX_SECONDS) {
		opt_warn("%s=%s is over %u s, using %u", name, ESC(0, val, len),
			 STRESS_MAX_SECONDS, STRESS_MAX_SECONDS);
		*v = STRESS_MAX_SECONDS;
	}
}

static void post_stress(struct keel_options *o, const char *val, size_t len)
{
	clamp_seconds("stress", &o->stress_seconds, val, len);
}

static void post_churn(struct keel_options *o, const char *val, size_t len)
{
	clamp_seconds("churn", &o->churn_seconds, val, len);
}

/* Below a few ms, healthy CPUs miss the check-in and are left out. */
static void post_ap_timeout(struct keel_options *o, const char *val, size_t len)
{
	if (o->ap_timeout_ms < AP_TIMEOUT_MIN_MS) {
		opt_warn("ap_timeout_ms=%s is below %u, using %u",
			 ESC(0, val, len), AP_TIMEOUT_MIN_MS,
			 AP_TIMEOUT_MIN_MS);
		o->ap_timeout_ms = AP_TIMEOUT_MIN_MS;
	}
}

/* More updates in a row than this is a typo, not a test. */
static void post_liveupdate(struct keel_options *o, const char *val, size_t len)
{
	if (o->liveupdate > LIVEUPDATE_MAX) {
		opt_warn("liveupdate=%s is over %u, using %u", ESC(0, val, len),
			 LIVEUPDATE_MAX, LIVEUPDATE_MAX);
		o->liveupdate = LIVEUPDATE_MAX;
	}
}

/*
 * The freeze's bound: below 10 ms a healthy CPU under QEMU TCG may miss
 * it, above a minute the guests are frozen longer than any of them
 * survives (docs/cmdline.md).
 */
static void post_lu_freeze(struct keel_options *o, const char *val, size_t len)
{
	uint32_t ms = o->lu_freeze_ms;

	if (ms < LU_FREEZE_MS_MIN || ms > LU_FREEZE_MS_MAX) {
		o->lu_freeze_ms = ms < LU_FREEZE_MS_MIN ? LU_FREEZE_MS_MIN
							: LU_FREEZE_MS_MAX;
		opt_warn("lu_freeze_ms=%s is not %u to %u, using %u",
			 ESC(0, val, len), LU_FREEZE_MS_MIN, LU_FREEZE_MS_MAX,
			 o->lu_freeze_ms);
	}
}

/* ce_offline=: past CE_OFFLINE_MAX, a typo (0 already means never). */
static void post_ce_offline(struct keel_options *o, const char *val, size_t len)
{
	if (o->ce_offline > CE_OFFLINE_MAX) {
		opt_warn("ce_offline=%s is over %u, using %u", ESC(0, val, len),
			 CE_OFFLINE_MAX, CE_OFFLINE_MAX);
		o->ce_offline = CE_OFFLINE_MAX;
	}
}

/* A sampled page per SIZE: whole pages, at least one. */
static void post_fill_sample(struct keel_options *o, const char *val,
			     size_t len)
{
	if (o->domain_fill_sample < PAGE_SIZE ||
	    !IS_ALIGNED(o->domain_fill_sample, PAGE_SIZE)) {
		opt_warn("domain_fill_sample=%s is not a multiple of 4K, "
			 "using %lluM",
			 ESC(0, val, len), DOMAIN_FILL_SAMPLE_DEFAULT >> 20);
		o->domain_fill_sample = DOMAIN_FILL_SAMPLE_DEFAULT;
	}
}

static void post_cachemaint(struct keel_options *o, const char *val, size_t len)
{
	o->cachemaint_set = true;
}

/* guest_touch=: a power of two, 8 .. 4096 (a word, a page). */
static void post_guest_touch(struct keel_options *o, const char *val,
			     size_t len)
{
	uint32_t t = o->guest_touch;

	if (t < GUEST_TOUCH_MIN || t > GUEST_TOUCH_MAX || (t & (t - 1))) {
		opt_warn("guest_touch=%s is not a power of two from %u to %u, "
			 "using %u",
			 ESC(0, val, len), GUEST_TOUCH_MIN, GUEST_TOUCH_MAX,
			 GUEST_TOUCH_DEFAULT);
		o->guest_touch = GUEST_TOUCH_DEFAULT;
	}
}

static void post_guest_run(struct keel_options *o, const char *val, size_t len)
{
	if (o->guest_run_ms > GUEST_RUN_MS_MAX) {
		opt_warn("guest_run_ms=%s is over %u, using %u",
			 ESC(0, val, len), GUEST_RUN_MS_MAX, GUEST_RUN_MS_MAX);
		o->guest_run_ms = GUEST_RUN_MS_MAX;
	}
}

static void post_guest_rounds(struct keel_options *o, const char *val,
			      size_t len)
{
	uint32_t r = o->guest_rounds;

	if (r < 1 || r > GUEST_ROUNDS_MAX) {
		o->guest_rounds = r < 1 ? 1 : GUEST_ROUNDS_MAX;
		opt_warn("guest_rounds=%s is not 1 to %u, using %u",
			 ESC(0, val, len), GUEST_ROUNDS_MAX, o->guest_rounds);
	}
}

#define OFS(field)	  __builtin_offsetof(struct keel_options, field)
#define FIELD_SIZE(field) sizeof(((struct keel_options *)0)->field)

static const struct opt_desc opt_table[] = {
	{"bootscrub", OPT_ENUM, OFS(bootscrub), 0, scrub_mode_names, 0, 0,
	 NULL},
	{"bootscrub_chunk", OPT_SIZE, OFS(bootscrub_chunk), 0, NULL, 0, 0,
	 post_chunk},
	{"scrub_smt", OPT_BOOL, OFS(scrub_smt), 0, NULL, 0, 0, NULL},
	{"scrub_primitive", OPT_STRING, OFS(scrub_primitive),
	 FIELD_SIZE(scrub_primitive), NULL, 0, 0, NULL},
	{"heap_init", OPT_ENUM, OFS(heap_init), 0, heap_mode_names, 0, 0, NULL},
	{"cachemaint", OPT_ENUM, OFS(cachemaint), 0, cachemaint_mode_names, 0,
	 0, post_cachemaint},
	{"bench", OPT_BOOL, OFS(bench), 0, NULL, 0, 0, NULL},
	{"p2m_selftest", OPT_BOOL, OFS(p2m_selftest), 0, NULL, 0, 0, NULL},
	{"stress", OPT_U64, OFS(stress_seconds), 0, NULL, 0, 0, post_stress},
	{"churn", OPT_U64, OFS(churn_seconds), 0, NULL, 0, 0, post_churn},
	{"latency", OPT_BOOL, OFS(latency), 0, NULL, 0, 0, NULL},
	{"latency_period", OPT_U32, OFS(latency_period_us), 0, NULL, 0, 0,
	 NULL},
	{"latency_cpu", OPT_U32, OFS(latency_cpu), 0, NULL, 0, 0, NULL},
	{"latency_max_order", OPT_U32, OFS(latency_max_order), 0, NULL, 0, 0,
	 NULL},
	{"after", OPT_ENUM, OFS(after), 0, after_names, 0, 0, NULL},
	{"mem", OPT_SIZE, OFS(mem_limit), 0, NULL, 0, 0, NULL},
	{"acpi", OPT_ENUM, OFS(acpi), 0, acpi_names, 0, 0, NULL},
	{"audit", OPT_ENUM, OFS(audit), 0, audit_names, 0, 0, NULL},
	{"trace", OPT_ENUM, OFS(trace), 0, trace_mode_names, 0, 0, NULL},
	{"report", OPT_ENUM, OFS(report), 0, report_names, 0, 0, NULL},
	{"loglevel", OPT_INT, OFS(loglevel), 0, NULL, LOG_ERR, LOG_DEBUG, NULL},
	{"ap_timeout_ms", OPT_U32, OFS(ap_timeout_ms), 0, NULL, 0, 0,
	 post_ap_timeout},
	{"smp_start", OPT_ENUM, OFS(smp_start), 0, smp_start_names, 0, 0, NULL},
	{"init_delay_us", OPT_INT, OFS(init_delay_us), 0, NULL, 0,
	 INIT_DELAY_MAX_US, NULL},
	{"console", OPT_CONSOLE, OFS(console), FIELD_SIZE(console), NULL, 0, 0,
	 NULL},
	{"inject", OPT_INJECT, 0, 0, NULL, 0, 0, NULL},
	{"domain", OPT_DOMAIN, 0, 0, NULL, 0, 0, NULL},
	{"badpage", OPT_BADMEM, 0, 0, NULL, 0, 0, NULL},
	{"badram", OPT_BADMEM, 0, 0, NULL, 0, 0, NULL},
	{"memmap", OPT_BADMEM, 0, 0, NULL, 0, 0, NULL},
	{"domains_destroy", OPT_BOOL, OFS(domains_destroy), 0, NULL, 0, 0,
	 NULL},
	{"domains_trust", OPT_BOOL, OFS(domains_trust), 0, NULL, 0, 0, NULL},
	{"guests", OPT_BOOL, OFS(guests), 0, NULL, 0, 0, NULL},
	{"guest_touch", OPT_U32, OFS(guest_touch), 0, NULL, 0, 0,
	 post_guest_touch},
	{"guest_run_ms", OPT_U32, OFS(guest_run_ms), 0, NULL, 0, 0,
	 post_guest_run},
	{"guest_rounds", OPT_U32, OFS(guest_rounds), 0, NULL, 0, 0,
	 post_guest_rounds},
	{"liveupdate", OPT_U32, OFS(liveupdate), 0, NULL, 0, 0,
	 post_liveupdate},
	{"lu_freeze_ms", OPT_U32, OFS(lu_freeze_ms), 0, NULL, 0, 0,
	 post_lu_freeze},
	{"ce_offline", OPT_U32, OFS(ce_offline), 0, NULL, 0, 0,
	 post_ce_offline},
	{"handover", OPT_ENUM, OFS(handover), 0, handover_names, 0, 0, NULL},
	{"domain_fill", OPT_BOOL, OFS(domain_fill), 0, NULL, 0, 0, NULL},
	{"domain_fill_sample", OPT_SIZE, OFS(domain_fill_sample), 0, NULL, 0, 0,
	 post_fill_sample},
};

/* Enums are stored through int: make sure that is what they are. */
_Static_assert(sizeof(enum scrub_mode) == sizeof(int), "enum size");
_Static_assert(sizeof(enum after_action) == sizeof(int), "enum size");

static bool word_eq(const char *s, size_t len, const char *word)
{
	return strlen(word) == len && !memcmp(s, word, len);
}

/**
 * parse_bool() - on/off, yes/no, 1/0, true/false over exactly [s, s+len).
 * Return: 0, or -EINVAL for anything else.
 */
int parse_bool(const char *s, size_t len, bool *out)
{
	static const char *const yes[] = {"on", "yes", "1", "true"};
	static const char *const no[] = {"off", "no", "0", "false"};

	for (unsigned int i = 0; i < ARRAY_SIZE(yes); i++) {
		if (word_eq(s, len, yes[i])) {
			*out = true;
			return 0;
		}
		if (word_eq(s, len, no[i])) {
			*out = false;
			return 0;
		}
	}
	return -EINVAL;
}

/*
 * One inject= word: held to its kind's ":N" by inject_parse(), which says
 * why a word is refused or clamped; the warning names the word. inject=
 * words add up, so a refused one has no previous value to keep.
 */
static void parse_inject(struct keel_options *o, const char *val, size_t len)
{
	char why[INJECT_WHY_SIZE];
	struct inject in;
	enum inject_verdict v = inject_parse(val, len, &in, why);

	if (v != INJECT_REFUSED && o->inject_count >= INJECT_MAX) {
		snprintf(why, sizeof(why), "more than %u inject= words",
			 INJECT_MAX);
		v = INJECT_REFUSED;
	}
	if (v == INJECT_REFUSED) {
		opt_warn("inject=%s: %s, ignored", ESC(0, val, len), why);
		return;
	}
	if (v == INJECT_CLAMPED)
		opt_warn("inject=%s: %s", ESC(0, val, len), why);
	o->inject[o->inject_count++] = in;
	o->fw_inject |= inject_firmware_faults(&in, 1);
}

/* Store @val into the option @d describes. Return: 0 or -errno. */
static int opt_store(struct keel_options *o, const struct opt_desc *d,
		     const char *val, size_t len)
{
	char *field = (char *)o + d->offset;
	uint64_t u;
	bool b;
	int v, ret;

	switch (d->type) {
	case OPT_ENUM:
		ret = enum_parse(d->names, val, len, &v);
		if (!ret)
			memcpy(field, &v, sizeof(v));
		return ret;
	case OPT_BOOL:
		ret = parse_bool(val, len, &b);
		if (!ret)
			memcpy(field, &b, sizeof(b));
		return ret;
	case OPT_SIZE:
	case OPT_U64:
		ret = d->type == OPT_SIZE ? parse_size(val, len, &u)
					  : parse_u64(val, len, &u);
		if (!ret)
			memcpy(field, &u, sizeof(u));
		return ret;
	case OPT_U32: {
		uint32_t u32;

		ret = parse_u64(val, len, &u);
		if (ret)
			return ret;
		if (u > UINT32_MAX)
			return -ERANGE;
		u32 = (uint32_t)u;
		memcpy(field, &u32, sizeof(u32));
		return 0;
	}
	case OPT_INT:
		ret = parse_u64(val, len, &u);
		if (ret)
			return ret;
		if (u < (uint64_t)d->min || u > (uint64_t)d->max)
			return -ERANGE;
		v = (int)u;
		memcpy(field, &v, sizeof(v));
		return 0;
	case OPT_STRING:
		if (len >= d->size)
			return -E2BIG;
		memcpy(field, val, len);
		field[len] = '\0';
		return 0;
	case OPT_INJECT:
		parse_inject(o, val, len);
		return 0;
	case OPT_BADMEM:
		/* Applied over RAM after sanitise, warned there (badmem.c). */
		return 0;
	case OPT_DOMAIN: {
		/* domain= words add up: a refused one keeps nothing. */
		const char *why = "";

		ret = domain_opt_add(o, val, len, false, &why);
		if (ret < 0)
			opt_warn("domain=%s: %s, ignored", ESC(0, val, len),
				 why);
		else
			parse_warnings += (unsigned int)ret;
		return 0;
	}
	case OPT_CONSOLE: {
		struct console_spec cs;

		if (len >= d->size)
			return -E2BIG;
		/* console="": back to the firmware's / the build's console. */
		memset(&cs, 0, sizeof(cs));
		ret = len ? console_spec_parse(val, len, &cs) : 0;
		if (ret)
			return ret;
		memcpy(field, val, len);
		field[len] = '\0';
		o->console_spec = cs;
		return 0;
	}
	}
	return -EINVAL;
}

static const struct opt_desc *opt_find(const char *key, size_t len)
{
	for (unsigned int i = 0; i < ARRAY_SIZE(opt_table); i++)
		if (word_eq(key, len, opt_table[i].name))
			return &opt_table[i];
	return NULL;
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* Apply one `key[=value]` word; @val is NULL for a bare flag. */
static void apply_word(struct keel_options *o, const char *key, size_t klen,
		       const char *val, size_t vlen)
{
	const struct opt_desc *d = opt_find(key, klen);
	int ret;

	if (!d) {
		if (val)
			opt_warn("unknown option %s=%s ignored",
				 ESC(0, key, klen), ESC(1, val, vlen));
		else
			opt_warn("unknown option %s ignored",
				 ESC(0, key, klen));
		return;
	}
	if (!val) {
		if (d->type != OPT_BOOL) {
			opt_warn("option %s needs a value, ignored",
				 ESC(0, key, klen));
			return;
		}
		val = "on";
		vlen = 2;
	}
	ret = opt_store(o, d, val, vlen);
	if (ret) {
		opt_warn("bad value %s=\"%s\"%s, keeping the previous value",
			 ESC(0, key, klen), ESC(1, val, vlen),
			 ret == -ERANGE	 ? " (out of range)"
			 : ret == -E2BIG ? " (too long)"
					 : "");
		return;
	}
	if (d->post)
		d->post(o, val, vlen);
}

/**
 * cmdline_parse() - apply the command line [s, s+len) (stopping early at a
 * NUL) to @o. Callable several times; later words override earlier ones.
 * Return: number of warnings printed (also added to @o->warnings).
 */
unsigned int cmdline_parse(struct keel_options *o, const char *s, size_t len)
{
	size_t i = 0;
	bool first = true;

	parse_warnings = 0;
	if (!s)
		return 0;
	len = strnlen(s, len);
	while (i < len) {
		const char *key, *val = NULL;
		size_t klen, vlen = 0, wstart;
		bool has_slash = false;

		while (i < len && is_space(s[i]))
			i++;
		if (i >= len)
			break;
		wstart = i;
		key = s + i;
		while (i < len && !is_space(s[i]) && s[i] != '=') {
			has_slash |= s[i] == '/';
			i++;
		}
		klen = (size_t)(s + i - key);
		if (i < len && s[i] == '=') {
			i++;
			if (i < len && s[i] == '"') {
				const char *q;

				i++;
				q = memchr(s + i, '"', len - i);
				val = s + i;
				if (!q) {
					vlen = len - i;
					i = len;
					opt_warn("unterminated quote in %s",
						 ESC(0, s + wstart,
						     len - wstart));
					first = false;
					continue;
				}
				vlen = (size_t)(q - val);
				i = (size_t)(q - s) + 1;
			} else {
				val = s + i;
				while (i < len && !is_space(s[i]))
					i++;
				vlen = (size_t)(s + i - val);
			}
		}
		/* QEMU -kernel / GRUB pass the kernel path as word 0. */
		if (first && !val && has_slash) {
			first = false;
			continue;
		}
		first = false;
		if (klen == 0) {
			opt_warn("empty option name in \"%s\"",
				 ESC(0, s + wstart, i - wstart));
			continue;
		}
		apply_word(o, key, klen, val, vlen);
	}
	o->warnings += parse_warnings;
	return parse_warnings;
}

/**
 * options_defaults() - fill @o from Kconfig (CONFIG_BOOTSCRUB_DEFAULT,
 * CONFIG_BOOTSCRUB_CHUNK, CONFIG_AP_TIMEOUT_MS) and the built-in defaults.
 * A malformed Kconfig string falls back to on / 128M with a warning.
 */
void options_defaults(struct keel_options *o)
{
	static const char scrub_def[] = CONFIG_BOOTSCRUB_DEFAULT;
	static const char chunk_def[] = CONFIG_BOOTSCRUB_CHUNK;
	int mode;

	memset(o, 0, sizeof(*o));
	o->bootscrub = SCRUB_ON;
	if (!enum_parse(scrub_mode_names, scrub_def, strlen(scrub_def), &mode))
		o->bootscrub = (enum scrub_mode)mode;
	else
		pr_warn("cmdline: CONFIG_BOOTSCRUB_DEFAULT=\"%s\" is not "
			"on/off/idle, using on\n",
			scrub_def);
	o->bootscrub_chunk = SCRUB_UNIT_DEFAULT;
	if (parse_size(chunk_def, strlen(chunk_def), &o->bootscrub_chunk) ||
	    o->bootscrub_chunk < PAGE_SIZE ||
	    !IS_ALIGNED(o->bootscrub_chunk, PAGE_SIZE)) {
		pr_warn("cmdline: CONFIG_BOOTSCRUB_CHUNK=\"%s\" is not a "
			"multiple of 4K, using %lluM\n",
			chunk_def, SCRUB_UNIT_DEFAULT >> 20);
		o->bootscrub_chunk = SCRUB_UNIT_DEFAULT;
	}
	o->scrub_smt = false;
	o->heap_init = HEAP_INIT_LAZY;
	o->cachemaint = CACHEMAINT_DEFERRED;
	o->after = AFTER_DEFAULT;
	o->latency_period_us = 100;
	o->latency_cpu = LATENCY_CPU_AUTO;
	o->latency_max_order = MAX_ORDER;
	o->acpi = ACPI_AUTO;
	o->audit = AUDIT_BASIC;
	o->loglevel = LOG_INFO;
	o->ap_timeout_ms = CONFIG_AP_TIMEOUT_MS;
	o->smp_start = SMP_START_PARALLEL;
	o->init_delay_us = INIT_DELAY_AUTO;
	o->guest_touch = GUEST_TOUCH_DEFAULT;
	o->guest_run_ms = GUEST_RUN_MS_DEFAULT;
	o->guest_rounds = 1;
	o->lu_freeze_ms = LU_FREEZE_MS_DEFAULT;
	o->ce_offline = CE_OFFLINE_DEFAULT;
	o->domain_fill_sample = DOMAIN_FILL_SAMPLE_DEFAULT;
}

/**
 * options_parse() - the one parse of a boot, into @o: the defaults, then
 * CONFIG_DEFAULT_CMDLINE, then the loader's line [s, s+len) (stopping
 * early at a NUL). Every problem is warned once, here.
 * @o: out: the options every later step reads
 * @s: the loader's command line (bootinfo.cmdline), may be NULL
 * @len: its bytes at most
 *
 * Return: the number of warnings (also in @o->warnings).
 */
unsigned int options_parse(struct keel_options *o, const char *s, size_t len)
{
	parse_count++;
	options_defaults(o);
	cmdline_parse(o, CONFIG_DEFAULT_CMDLINE,
		      strlen(CONFIG_DEFAULT_CMDLINE));
	cmdline_parse(o, s, len);
	return o->warnings;
}

/**
 * options_parse_count() - how many times options_parse() ran in this
 * process: one boot parses its command line once (the tests check it).
 */
unsigned int options_parse_count(void)
{
	return parse_count;
}
