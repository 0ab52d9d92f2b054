/* SPDX-License-Identifier: MIT */
/* boot/cmdline.c: every option, bad values, quoting, bounds, inject=. */
#include <stdlib.h>

#include "common.h"

#include <keel/escape.h>

static struct keel_options o;

static unsigned int parse(const char *s)
{
	return cmdline_parse(&o, s, strlen(s));
}

static int setup(void **state)
{
	options_defaults(&o);
	return test_setup(state);
}

static void test_defaults(void **state)
{
	assert_int_equal(o.bootscrub, SCRUB_ON);
	assert_int_equal(o.bootscrub_chunk, 128ULL << 20);
	assert_false(o.scrub_smt);
	assert_int_equal(o.heap_init, HEAP_INIT_LAZY);
	assert_int_equal(o.cachemaint, CACHEMAINT_DEFERRED);
	assert_false(o.cachemaint_set);
	assert_false(o.bench);
	assert_int_equal(o.after, AFTER_DEFAULT);
	assert_int_equal(o.mem_limit, 0);
	assert_int_equal(o.loglevel, LOG_INFO);
	assert_int_equal(o.ap_timeout_ms, CONFIG_AP_TIMEOUT_MS);
	assert_string_equal(o.console, "");
	assert_int_equal(o.inject_count, 0);
	assert_int_equal(o.warnings, 0);
}

static void test_all_options(void **state)
{
	assert_int_equal(parse("bootscrub=idle bootscrub_chunk=2M scrub_smt=on "
			       "heap_init=pagewise cachemaint=eager bench "
			       "stress=30 after=poweroff mem=3G acpi=off "
			       "audit=full loglevel=3 ap_timeout_ms=250 "
			       "console=com1,115200"),
			 0);
	assert_int_equal(o.bootscrub, SCRUB_IDLE);
	assert_int_equal(o.bootscrub_chunk, 2ULL << 20);
	assert_true(o.scrub_smt);
	assert_int_equal(o.heap_init, HEAP_INIT_PAGEWISE);
	assert_int_equal(o.cachemaint, CACHEMAINT_EAGER);
	assert_true(o.cachemaint_set);
	assert_true(o.bench);
	assert_int_equal(o.stress_seconds, 30);
	assert_int_equal(o.after, AFTER_POWEROFF);
	assert_int_equal(o.mem_limit, 3ULL << 30);
	assert_int_equal(o.acpi, ACPI_OFF);
	assert_int_equal(o.audit, AUDIT_FULL);
	assert_int_equal(o.loglevel, 3);
	assert_int_equal(o.ap_timeout_ms, 250);
	assert_string_equal(o.console, "com1,115200");
	assert_string_equal(sandbox_console_buffer(), "");

	/* Every word of every enum. */
	parse("bootscrub=off heap_init=chunked cachemaint=clflush after=halt "
	      "acpi=force audit=basic");
	assert_int_equal(o.bootscrub, SCRUB_OFF);
	assert_int_equal(o.heap_init, HEAP_INIT_CHUNKED);
	assert_int_equal(o.cachemaint, CACHEMAINT_CLFLUSH);
	assert_int_equal(o.after, AFTER_HALT);
	assert_int_equal(o.acpi, ACPI_FORCE);
	assert_int_equal(o.audit, AUDIT_BASIC);
	parse("bootscrub=on heap_init=lazy cachemaint=none after=exit "
	      "acpi=auto after=reset cachemaint=deferred bench=off");
	assert_int_equal(o.bootscrub, SCRUB_ON);
	assert_int_equal(o.heap_init, HEAP_INIT_LAZY);
	assert_int_equal(o.cachemaint, CACHEMAINT_DEFERRED);
	assert_int_equal(o.after, AFTER_RESET);
	assert_int_equal(o.acpi, ACPI_AUTO);
	assert_false(o.bench);
	assert_int_equal(o.warnings, 0);
}

static void test_bad_values(void **state)
{
	struct keel_options before;

	memcpy(&before, &o, sizeof(o));
	assert_int_equal(parse("bootscrub=maybe heap_init= mem=12Q stress=-1 "
			       "loglevel=4 ap_timeout_ms=0x100000000 "
			       "console=0123456789012345678901234567890123 "
			       "bench=2 frobnicate=1 flag mem"),
			 11);
	assert_int_equal(o.warnings, 11);
	before.warnings = 11;
	assert_memory_equal(&o, &before, sizeof(o));
	/* One line per problem naming the key and the value. */
	assert_true(test_console_contains("bootscrub=\"maybe\""));
	assert_true(test_console_contains("mem=\"12Q\""));
	assert_true(test_console_contains("loglevel=\"4\""));
	assert_true(test_console_contains("frobnicate=1"));
	assert_true(test_console_contains("unknown option flag"));
	assert_true(test_console_contains("option mem needs a value"));
	{
		const char *p = sandbox_console_buffer();
		int lines = 0;

		for (; *p; p++)
			lines += *p == '\n';
		assert_int_equal(lines, 11);
	}
}

static void test_chunk_rounding(void **state)
{
	assert_int_equal(parse("bootscrub_chunk=5000"), 1);
	assert_int_equal(o.bootscrub_chunk, 4096);
	assert_true(test_console_contains("not a multiple of 4K"));
	/* 0 and 100 are multiples of nothing wrong: they are below 4K. */
	sandbox_console_clear();
	assert_int_equal(parse("bootscrub_chunk=100"), 1);
	assert_int_equal(o.bootscrub_chunk, 4096);
	assert_int_equal(parse("bootscrub_chunk=0"), 1);
	assert_int_equal(o.bootscrub_chunk, 4096);
	assert_true(test_console_contains("bootscrub_chunk=0 is below 4K"));
	assert_false(test_console_contains("not a multiple"));
	assert_int_equal(parse("bootscrub_chunk=1G"), 0);
	assert_int_equal(o.bootscrub_chunk, 1ULL << 30);
	assert_int_equal(parse("bootscrub_chunk=0x3000"), 0);
	assert_int_equal(o.bootscrub_chunk, 0x3000);
}

/* stress=, churn= at most STRESS_MAX_SECONDS, ap_timeout_ms= at least 10. */
static void test_bounds(void **state)
{
	/* 1000000 s is 11.6 days: clamped to an hour, one warning. */
	assert_int_equal(parse("stress=1000000"), 1);
	assert_int_equal(o.stress_seconds, 3600);
	assert_true(test_console_contains("stress=1000000 is over 3600 s"));
	assert_int_equal(parse("stress=3600"), 0);
	assert_int_equal(o.stress_seconds, 3600);
	assert_int_equal(parse("stress=0"), 0);
	assert_int_equal(o.stress_seconds, 0);

	/* 0 ms would leave every healthy secondary out. */
	sandbox_console_clear();
	assert_int_equal(parse("ap_timeout_ms=0"), 1);
	assert_int_equal(o.ap_timeout_ms, 10);
	assert_true(test_console_contains("ap_timeout_ms=0 is below 10"));
	assert_int_equal(parse("ap_timeout_ms=9"), 1);
	assert_int_equal(o.ap_timeout_ms, 10);
	assert_int_equal(parse("ap_timeout_ms=10"), 0);
	assert_int_equal(o.ap_timeout_ms, 10);
	assert_int_equal(o.warnings, 3);

	/* churn= has the same bound and the same warning, its own name. */
	assert_int_equal(parse("churn=4000"), 1);
	assert_int_equal(o.churn_seconds, 3600);
	assert_true(test_console_contains("churn=4000 is over 3600 s"));
	assert_int_equal(parse("churn=2"), 0);
	assert_int_equal(o.churn_seconds, 2);
}

static void test_syntax(void **state)
{
	/* Kernel path first: skipped silently, only as the first word. */
	assert_int_equal(parse("/boot/keel.elf bench"), 0);
	assert_true(o.bench);
	assert_int_equal(parse("  \t/boot/keel.elf\n"), 0);
	assert_int_equal(parse("bench /boot/keel.elf"), 1);
	/* A '/' after '=' is a value (here a bad console=), not a path. */
	assert_int_equal(parse("console=/dev/ttyS0"), 1);
	assert_true(test_console_contains("console=\"/dev/ttyS0\""));
	assert_string_equal(o.console, "");

	/* Quotes. */
	assert_int_equal(parse("console=\"com2,9600\" bench=off"), 0);
	assert_string_equal(o.console, "com2,9600");
	assert_false(o.bench);
	assert_int_equal(parse("console=\"\""), 0);
	assert_string_equal(o.console, "");
	assert_int_equal(parse("console=\"unterminated bench=on"), 1);
	assert_false(o.bench);
	assert_int_equal(parse("=value"), 1);
	assert_int_equal(parse(""), 0);
	assert_int_equal(cmdline_parse(&o, NULL, 10), 0);

	/* Bounds: len and NUL. */
	assert_int_equal(cmdline_parse(&o, "stress=12345", 8), 0);
	assert_int_equal(o.stress_seconds, 1);
	assert_int_equal(cmdline_parse(&o, "stress=7\0stress=9", 17), 0);
	assert_int_equal(o.stress_seconds, 7);

	/* Callable twice: the later line overrides. */
	assert_int_equal(parse("mem=1G"), 0);
	assert_int_equal(parse("mem=2G"), 0);
	assert_int_equal(o.mem_limit, 2ULL << 30);
	assert_int_equal(parse("mem=bad"), 1);
	assert_int_equal(o.mem_limit, 2ULL << 30);
}

static void test_bools(void **state)
{
	static const char *const yes[] = {"on", "yes", "1", "true"};
	static const char *const no[] = {"off", "no", "0", "false"};
	bool b;

	for (int i = 0; i < 4; i++) {
		b = false;
		assert_int_equal(parse_bool(yes[i], strlen(yes[i]), &b), 0);
		assert_true(b);
		assert_int_equal(parse_bool(no[i], strlen(no[i]), &b), 0);
		assert_false(b);
	}
	assert_int_equal(parse_bool("onx", 3, &b), -EINVAL);
	assert_int_equal(parse_bool("onx", 2, &b), 0);
	assert_int_equal(parse_bool("", 0, &b), -EINVAL);
}

static void test_inject(void **state)
{
	uint64_t arg = 0;

	options_defaults(&opts);
	assert_int_equal(
		cmdline_parse(&opts,
			      "inject=ap-timeout:2 inject=bad-map "
			      "inject=cpu-on-fail:3 inject=scrub-stop:0x10 "
			      "inject=node-cpus-fail:1 inject=ap-timeout:5",
			      200),
		0);
	assert_int_equal(opts.inject_count, 6);
	inject_arm(opts.inject, opts.inject_count);
	assert_true(inject_has(INJECT_AP_TIMEOUT, 2));
	assert_true(inject_has(INJECT_AP_TIMEOUT, 5));
	assert_false(inject_has(INJECT_AP_TIMEOUT, 3));
	assert_true(inject_has(INJECT_BAD_MAP, 0));
	assert_true(inject_has(INJECT_SCRUB_STOP, 16));
	assert_true(inject_get(INJECT_AP_TIMEOUT, &arg));
	assert_int_equal(arg, 2);
	assert_true(inject_get(INJECT_NODE_CPUS_FAIL, &arg));
	assert_int_equal(arg, 1);
	assert_true(inject_get(INJECT_CPU_ON_FAIL, &arg));
	assert_int_equal(arg, 3);

	assert_int_equal(
		cmdline_parse(&opts,
			      "inject=ap-timeout inject=melt:1 "
			      "inject=cpu-on-fail:x inject=scrub-stop:",
			      200),
		4);
	assert_int_equal(opts.inject_count, 6);
	assert_int_equal(
		cmdline_parse(&opts,
			      "inject=bad-map inject=bad-map inject=bad-map",
			      200),
		1);
	assert_int_equal(opts.inject_count, INJECT_MAX);

	options_defaults(&opts);
	inject_arm(opts.inject, opts.inject_count);
	assert_false(inject_get(INJECT_BAD_MAP, &arg));
	assert_false(inject_has(INJECT_BAD_MAP, 0));

	/* The firmware-table corruptions take no argument. */
	assert_int_equal(cmdline_parse(&opts,
				       "inject=bad-srat inject=bad-slit "
				       "inject=bad-dt-distance",
				       200),
			 0);
	assert_int_equal(opts.inject_count, 3);
	inject_arm(opts.inject, opts.inject_count);
	assert_true(inject_has(INJECT_BAD_SRAT, 0));
	assert_true(inject_has(INJECT_BAD_SLIT, 0));
	assert_true(inject_has(INJECT_BAD_DT_DISTANCE, 0));
	assert_false(inject_has(INJECT_BAD_MAP, 0));
}

/* inject=irq-unexpected:N: the stray interrupts need their count. */
static void test_inject_irq_unexpected(void **state)
{
	uint64_t arg = 0;

	options_defaults(&opts);
	assert_int_equal(cmdline_parse(&opts,
				       "inject=irq-unexpected:0x20 "
				       "inject=irq-unexpected",
				       200),
			 1);
	assert_int_equal(opts.inject_count, 1);
	inject_arm(opts.inject, opts.inject_count);
	assert_true(inject_get(INJECT_IRQ_UNEXPECTED, &arg));
	assert_int_equal(arg, 32);
}

/* scrub_primitive=: any short name is kept for the calibration to check. */
static void test_scrub_primitive(void **state)
{
	assert_string_equal(o.scrub_primitive, "");
	assert_int_equal(parse("scrub_primitive=rep_stosb"), 0);
	assert_string_equal(o.scrub_primitive, "rep_stosb");
	assert_int_equal(parse("scrub_primitive=\"dc zva\""), 0);
	assert_string_equal(o.scrub_primitive, "dc zva");
	/* 16 characters do not fit the 15 the option holds: kept as was. */
	assert_int_equal(parse("scrub_primitive=0123456789abcdef"), 1);
	assert_string_equal(o.scrub_primitive, "dc zva");
	assert_true(test_console_contains("scrub_primitive"));
	/* Empty: back to the calibration's choice. */
	assert_int_equal(parse("scrub_primitive="), 0);
	assert_string_equal(o.scrub_primitive, "");
}

/*
 * guests=, guest_touch=, guest_run_ms=, guest_rounds= (issue 31): the
 * defaults, good values kept, every bad one warned (naming the word) and
 * the default or the bound kept instead.
 */
static void test_guest_options(void **state)
{
	assert_false(o.guests);
	assert_int_equal(o.guest_touch, 64);
	assert_int_equal(o.guest_run_ms, 20);
	assert_int_equal(o.guest_rounds, 1);
	assert_int_equal(parse("guests guest_touch=8 guest_run_ms=0 "
			       "guest_rounds=8"),
			 0);
	assert_true(o.guests);
	assert_int_equal(o.guest_touch, 8);
	assert_int_equal(o.guest_run_ms, 0);
	assert_int_equal(o.guest_rounds, 8);
	assert_int_equal(parse("guest_touch=4096"), 0);
	assert_int_equal(o.guest_touch, 4096);
	/* Not a power of two, below a word, above a page: the default. */
	static const char *const touch[] = {"guest_touch=96", "guest_touch=4",
					    "guest_touch=8192",
					    "guest_touch=0"};
	for (unsigned int i = 0; i < ARRAY_SIZE(touch); i++) {
		o.guest_touch = 8;
		sandbox_console_clear();
		assert_int_equal(parse(touch[i]), 1);
		assert_int_equal(o.guest_touch, 64);
		assert_true(test_console_contains(touch[i]));
		assert_true(test_console_contains("is not a power of two"));
	}
	/* Not a number: kept as it was. */
	assert_int_equal(parse("guest_touch=8 guest_touch=lots"), 1);
	assert_int_equal(o.guest_touch, 8);
	assert_int_equal(parse("guest_run_ms=60001"), 1);
	assert_int_equal(o.guest_run_ms, 60000);
	assert_true(test_console_contains("guest_run_ms=60001 is over 60000"));
	assert_int_equal(parse("guest_run_ms=-5"), 1);
	assert_int_equal(o.guest_run_ms, 60000);
	assert_int_equal(parse("guest_rounds=0"), 1);
	assert_int_equal(o.guest_rounds, 1);
	assert_int_equal(parse("guest_rounds=9"), 1);
	assert_int_equal(o.guest_rounds, 8);
	assert_true(test_console_contains("guest_rounds=9 is not 1 to 8"));
	assert_int_equal(parse("guests=maybe"), 1);
	assert_true(o.guests);
	assert_int_equal(parse("guests=off"), 0);
	assert_false(o.guests);
}

/*
 * Each of @words (@n) malformed for the numeric option @name: one warning
 * naming it, and *@field keeps the value it had before.
 */
static void malformed_keep(const char *const *words, size_t n, uint32_t *field,
			   const char *name)
{
	for (size_t i = 0; i < n; i++) {
		*field = 2500;
		sandbox_console_clear();
		assert_int_equal(parse(words[i]), 1);
		assert_int_equal(*field, 2500);
		assert_true(test_console_contains(name));
		assert_true(test_console_contains("keel: warning: cmdline: "));
	}
}

/*
 * lu_freeze_ms= (docs/cmdline.md): 1000 by default; out of [10, 60000]
 * clamped with one warning naming the word; malformed (not a number, past
 * 32 bits, empty, negative) one warning and the value before kept.
 */
static void test_lu_freeze(void **state)
{
	static const struct {
		const char *word;
		uint32_t want;
		const char *line;
	} clamped[] = {
		{"lu_freeze_ms=0", 10,
		 "keel: warning: cmdline: lu_freeze_ms=0 is not 10 to 60000, "
		 "using 10\n"},
		{"lu_freeze_ms=9", 10,
		 "keel: warning: cmdline: lu_freeze_ms=9 is not 10 to 60000, "
		 "using 10\n"},
		{"lu_freeze_ms=60001", 60000,
		 "keel: warning: cmdline: lu_freeze_ms=60001 is not 10 to "
		 "60000, using 60000\n"},
		{"lu_freeze_ms=4294967295", 60000,
		 "keel: warning: cmdline: lu_freeze_ms=4294967295 is not 10 "
		 "to 60000, using 60000\n"},
	};
	static const char *const bad[] = {
		"lu_freeze_ms=abc",	   "lu_freeze_ms=-5",  "lu_freeze_ms=",
		"lu_freeze_ms=4294967296", "lu_freeze_ms=10s", "lu_freeze_ms",
	};

	assert_int_equal(o.lu_freeze_ms, 1000);
	assert_int_equal(parse("lu_freeze_ms=10000"), 0);
	assert_int_equal(o.lu_freeze_ms, 10000);
	assert_int_equal(parse("lu_freeze_ms=10 lu_freeze_ms=60000"), 0);
	assert_int_equal(o.lu_freeze_ms, 60000);
	assert_int_equal(parse("lu_freeze_ms=0x20"), 0);
	assert_int_equal(o.lu_freeze_ms, 32);
	assert_int_equal(parse("lu_freeze_ms=10"), 0);
	assert_int_equal(o.lu_freeze_ms, 10);
	for (unsigned int i = 0; i < ARRAY_SIZE(clamped); i++) {
		o.lu_freeze_ms = 2500;
		sandbox_console_clear();
		assert_int_equal(parse(clamped[i].word), 1);
		assert_int_equal(o.lu_freeze_ms, clamped[i].want);
		assert_string_equal(sandbox_console_buffer(), clamped[i].line);
	}
	malformed_keep(bad, ARRAY_SIZE(bad), &o.lu_freeze_ms, "lu_freeze_ms");
}

/*
 * ce_offline= (docs/cmdline.md): 16 by default, 0 (never) taken as is;
 * over 10000 clamped with one warning naming the word; malformed (not a
 * number, past 32 bits, empty, negative, bare) one warning and the value
 * before kept.
 */
static void test_ce_offline(void **state)
{
	static const char *const bad[] = {
		"ce_offline=abc", "ce_offline=-1",	   "ce_offline=",
		"ce_offline=2x",  "ce_offline=4294967296", "ce_offline",
	};

	(void)state;
	assert_int_equal(o.ce_offline, 16);
	assert_int_equal(parse("ce_offline=2"), 0);
	assert_int_equal(o.ce_offline, 2);
	assert_int_equal(parse("ce_offline=0"), 0);
	assert_int_equal(o.ce_offline, 0);
	assert_int_equal(parse("ce_offline=10000 ce_offline=0x10"), 0);
	assert_int_equal(o.ce_offline, 16);
	assert_int_equal(parse("ce_offline=10000"), 0);
	assert_int_equal(o.ce_offline, 10000);
	sandbox_console_clear();
	assert_int_equal(parse("ce_offline=10001"), 1);
	assert_int_equal(o.ce_offline, 10000);
	assert_string_equal(sandbox_console_buffer(),
			    "keel: warning: cmdline: ce_offline=10001 is over "
			    "10000, using 10000\n");
	sandbox_console_clear();
	assert_int_equal(parse("ce_offline=4294967295"), 1);
	assert_int_equal(o.ce_offline, 10000);
	malformed_keep(bad, ARRAY_SIZE(bad), &o.ce_offline, "ce_offline");
}

/* domain_fill= and domain_fill_sample= (docs/cmdline.md). */
static void test_domain_fill(void **state)
{
	static const char *const bad[] = {"domain_fill_sample=0",
					  "domain_fill_sample=6000",
					  "domain_fill_sample=1K"};

	assert_false(o.domain_fill);
	assert_int_equal(o.domain_fill_sample, 64ULL << 20);
	assert_int_equal(parse("domain_fill=on domain_fill_sample=1M"), 0);
	assert_true(o.domain_fill);
	assert_int_equal(o.domain_fill_sample, 1ULL << 20);
	assert_int_equal(parse("domain_fill_sample=8K"), 0);
	assert_int_equal(o.domain_fill_sample, 8192);
	/* Not whole pages: one warning, the default. */
	for (unsigned int i = 0; i < ARRAY_SIZE(bad); i++) {
		o.domain_fill_sample = 8192;
		sandbox_console_clear();
		assert_int_equal(parse(bad[i]), 1);
		assert_int_equal(o.domain_fill_sample, 64ULL << 20);
		assert_true(test_console_contains(bad[i]));
		assert_true(test_console_contains("is not a multiple of 4K, "
						  "using 64M"));
	}
	assert_int_equal(parse("domain_fill=off"), 0);
	assert_false(o.domain_fill);
}

/*
 * loglevel= is data like every option: the parse writes only the struct
 * (fwboot_finish() sets the console's level, once; fwboot_test.c).
 */
static void test_loglevel_is_data(void **state)
{
	int saved = printk_get_level();

	assert_int_equal(parse("loglevel=0"), 0);
	assert_int_equal(o.loglevel, 0);
	assert_int_equal(printk_get_level(), saved);
	assert_int_equal(parse("loglevel=3"), 0);
	assert_int_equal(o.loglevel, 3);
	assert_int_equal(printk_get_level(), saved);
}

/* Random bytes: no crash, no out-of-bounds read (ASan), bounded warnings. */
static void test_random(void **state)
{
	static const char alphabet[] = "ab=\" /:01Mxbench=on\t\n\"inject=scrub";
	char *buf;

	srand(7);
	for (int i = 0; i < 3000; i++) {
		size_t len = (size_t)(rand() % 64);

		buf = malloc(len ? len : 1);
		for (size_t j = 0; j < len; j++)
			buf[j] = rand() % 4 ? alphabet[rand() %
						       (sizeof(alphabet) - 1)]
					    : (char)rand();
		options_defaults(&o);
		assert_true(cmdline_parse(&o, buf, len) <= len);
		assert_true(o.inject_count <= INJECT_MAX);
		assert_true(o.loglevel >= 0 && o.loglevel <= 3);
		assert_true(o.bootscrub_chunk >= 4096 &&
			    o.bootscrub_chunk % 4096 == 0);
		assert_true(strlen(o.console) < sizeof(o.console));
		free(buf);
		sandbox_console_clear();
	}
}

/* How many times @word appears in the captured console output. */
static unsigned int console_count(const char *word)
{
	unsigned int n = 0;

	for (const char *p = sandbox_console_buffer();
	     (p = strstr(p, word)) != NULL; p += strlen(word))
		n++;
	return n;
}

/*
 * options_parse(), the one parse of a boot: the defaults, then the
 * loader's line, each problem warned once, the firmware faults as data,
 * the console's level left alone, and counted.
 */
static void test_options_parse(void **state)
{
	static const char line[] = "/boot/keel.elf acpi=off after=exit "
				   "inject=bad-srat inject=ioapic-unmask "
				   "frob=1 bootscrub=maybe loglevel=0";
	unsigned int before = options_parse_count();
	int saved = printk_get_level();

	sandbox_console_clear();
	o.bench = true; /* what was there before is not kept */
	assert_int_equal(options_parse(&o, line, sizeof(line) - 1), 2);
	assert_int_equal(options_parse_count(), before + 1);
	assert_int_equal(o.warnings, 2);
	assert_false(o.bench);
	assert_int_equal(o.acpi, ACPI_OFF);
	assert_int_equal(o.after, AFTER_EXIT);
	assert_int_equal(o.bootscrub, SCRUB_ON);
	assert_int_equal(o.loglevel, 0);
	assert_int_equal(printk_get_level(), saved);
	assert_int_equal(o.fw_inject,
			 INJECT_FW_BAD_SRAT | INJECT_FW_IOAPIC_UNMASK);
	assert_int_equal(test_console_warnings(), 2);
	assert_int_equal(console_count("frob=1"), 1);
	assert_int_equal(console_count("bootscrub=\"maybe\""), 1);

	/* The firmware faults: each word's INJECT_FW_* bit, nothing else. */
	options_defaults(&o);
	assert_int_equal(o.fw_inject, 0);
	assert_int_equal(parse("inject=bad-map inject=ap-timeout:1 "
			       "inject=bad-slit inject=bad-dt-distance"),
			 0);
	assert_int_equal(o.fw_inject, INJECT_FW_BAD_MAP | INJECT_FW_BAD_SLIT |
					      INJECT_FW_BAD_DT_DIST);
	/* A refused word is no fault. */
	options_defaults(&o);
	assert_int_equal(parse("inject=bad-srat:1"), 1);
	assert_int_equal(o.fw_inject, 0);
	assert_int_equal(options_parse(&o, NULL, 0), 0);
	assert_int_equal(o.fw_inject, 0);
}

/*
 * Control bytes, ESC and bytes >= 0x80 in a word reach the console as
 * \xNN (as the .fw parser shows them), a backslash as \\: a warning cannot
 * drive the terminal. A long word is cut with "...".
 */
static void test_warnings_escaped(void **state)
{
	static const char line[] = "\x1b[2Jfoo=\x01\xff\\ bootscrub=\x1b "
				   "x=\"\x07";
	const char *con;
	char big[600], out[ESCAPE_SIZE(8)];

	(void)state;
	assert_int_equal(parse(line), 3);
	con = sandbox_console_buffer();
	assert_true(test_console_contains(
		"unknown option \\x1b[2Jfoo=\\x01\\xff\\\\ ignored"));
	assert_true(test_console_contains("bootscrub=\"\\x1b\""));
	assert_true(test_console_contains("unterminated quote in x=\"\\x07"));
	assert_null(strchr(con, 0x1b));
	assert_null(strchr(con, 0x07));
	assert_null(strchr(con, 0x01));

	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	sandbox_console_clear();
	assert_int_equal(parse(big), 1);
	assert_true(test_console_contains("aaa... ignored"));

	/* The helper: exactly [s, s+len), NUL included, never past @size. */
	assert_string_equal(escape_bytes(out, sizeof(out), "a\0b\\", 4),
			    "a\\x00b\\\\");
	assert_string_equal(escape_bytes(out, 6, "abcdefgh", 8), "ab...");
	assert_string_equal(escape_bytes(out, 6, "abcde", 5), "abcde");
	assert_string_equal(escape_bytes(out, 8, "\x1b\x1b", 2), "\\x1b...");
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup, test_teardown)
	const struct CMUnitTest tests[] = {
		T(test_defaults),	  T(test_all_options),
		T(test_bad_values),	  T(test_chunk_rounding),
		T(test_syntax),		  T(test_bools),
		T(test_inject),		  T(test_inject_irq_unexpected),
		T(test_loglevel_is_data), T(test_random),
		T(test_options_parse),	  T(test_bounds),
		T(test_scrub_primitive),  T(test_warnings_escaped),
		T(test_guest_options),	  T(test_domain_fill),
		T(test_lu_freeze),	  T(test_ce_offline),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
