// SPDX-License-Identifier: MIT
/*
 * common/lib/inject.c through cmdline_parse(): every inject= kind with every
 * class of ":N" (absent, 0, 1, many, over the limit), the expectation of
 * each made from the kind's declared class in inject_kinds[], never from
 * running the parser. A word is either armed as written (or clamped, with
 * a warning saying so) or refused with exactly one warning that names it;
 * the warnings are read from the console. The boot-level effect of each
 * case is tests/sandbox/inject_cases.py's.
 */
#include "common.h"

static struct keel_options o;

static int setup(void **state)
{
	options_defaults(&o);
	return test_setup(state);
}

enum n_class { N_ABSENT, N_ZERO, N_ONE, N_MANY, N_OVER, N_CLASSES };

static const char *const class_name[N_CLASSES] = {"absent", "0", "1", "many",
						  "over the limit"};

/* The ":N" written for @c (N_ABSENT: none); the value in *@n. */
static void n_text(const struct inject_kind_desc *d, enum n_class c, char *buf,
		   size_t size, uint64_t *n)
{
	static const uint64_t fixed[] = {0, 0, 1, 3};

	if (c == N_OVER)
		*n = d->arg == INJECT_ARG_COUNT ? d->max + 1 : 1ull << 40;
	else
		*n = fixed[c];
	if (c == N_ABSENT)
		buf[0] = '\0';
	else
		snprintf(buf, size, ":%llu", (unsigned long long)*n);
}

/*
 * What the class says of @c: refused, kept as N, or kept as the max
 * (clamped). A CPU, node or domain id is any number here: whether it
 * names one is smp_init()'s (the guest room's) to say, on the machine;
 * a page frame number is heap_offline()'s.
 */
enum expect { REFUSED, KEPT, CLAMPED };

static enum expect expected(const struct inject_kind_desc *d, enum n_class c)
{
	switch (d->arg) {
	case INJECT_ARG_NONE:
		return c == N_ABSENT ? KEPT : REFUSED;
	case INJECT_ARG_CPU:
	case INJECT_ARG_NODE:
	case INJECT_ARG_DOMAIN:
	case INJECT_ARG_PFN:
		return c == N_ABSENT ? REFUSED : KEPT;
	case INJECT_ARG_COUNT:
		if (c == N_ABSENT || c == N_ZERO)
			return REFUSED;
		return c == N_OVER ? CLAMPED : KEPT;
	}
	fail();
	return REFUSED;
}

/* A failed expectation names the case (the tests are silent otherwise). */
#define expect_that(cond, word, c)                                             \
	do {                                                                   \
		if (!(cond)) {                                                 \
			print_error("%s (:N %s): %s\n", (word), class_name[c], \
				    #cond);                                    \
			fail();                                                \
		}                                                              \
	} while (0)

static void check_case(const struct inject_kind_desc *d, enum n_class c)
{
	char nbuf[32], word[96], line[128];
	enum expect e = expected(d, c);
	uint64_t n, arg = ~0ull;

	n_text(d, c, nbuf, sizeof(nbuf), &n);
	snprintf(word, sizeof(word), "inject=%s%s", d->name, nbuf);
	options_defaults(&o);
	sandbox_console_clear();
	cmdline_parse(&o, word, strlen(word));
	snprintf(line, sizeof(line), "keel: warning: cmdline: %s: ", word);
	expect_that(test_console_warnings() == (e == KEPT ? 0u : 1u), word, c);
	expect_that(e == KEPT || test_console_contains(line), word, c);
	if (e == REFUSED) {
		expect_that(test_console_contains(", ignored\n"), word, c);
		expect_that(o.inject_count == 0, word, c);
		return;
	}
	expect_that(o.inject_count == 1, word, c);
	inject_arm(o.inject, o.inject_count);
	expect_that(inject_get(d->kind, &arg), word, c);
	expect_that(arg == (e == CLAMPED ? d->max : n), word, c);
	snprintf(line, sizeof(line), "count over %llu, clamped to %llu\n",
		 (unsigned long long)d->max, (unsigned long long)d->max);
	expect_that(e == KEPT || test_console_contains(line), word, c);
}

static void test_every_kind_every_count(void **state)
{
	unsigned int kinds = 0;

	(void)state;
	for (const struct inject_kind_desc *d = inject_kinds; d->name; d++) {
		for (enum n_class c = N_ABSENT; c < N_CLASSES; c++)
			check_case(d, c);
		assert_string_equal(inject_name(d->kind), d->name);
		kinds++;
	}
	assert_true(kinds >= 9);
	inject_arm(NULL, 0);
}

/* Words that are not KIND or KIND:N: one warning each, nothing armed. */
static void test_malformed(void **state)
{
	static const struct {
		const char *word, *says;
	} bad[] = {
		{"inject=", "inject=: no such kind, ignored"},
		{"inject=:1", "inject=:1: no such kind"},
		{"inject=melt:1", "inject=melt:1: no such kind"},
		{"inject=AP-TIMEOUT:1", "no such kind"},
		{"inject=ap-timeout:", "N is not a decimal or 0x number"},
		{"inject=ap-timeout:1:2", "N is not a decimal or 0x number"},
		{"inject=ap-timeout:-1", "N is not a decimal or 0x number"},
		{"inject=irq-unexpected:0x", "N is not a decimal or 0x number"},
		{"inject=irq-unexpected:99999999999999999999",
		 "N is not a decimal or 0x number"},
		{"inject=bad-map:", "bad-map takes no :N"},
		{"inject=bad-map:x", "bad-map takes no :N"},
		{"inject=scrub-stop", "scrub-stop needs :N (a CPU id)"},
		{"inject=node-cpus-fail",
		 "node-cpus-fail needs :N (a node id)"},
		{"inject=irq-unexpected", "irq-unexpected needs :N (a count)"},
		{"inject=irq-unexpected:0", "a count of 0 injects nothing"},
		{"inject=\"bad-map \x1b\"",
		 "inject=bad-map \\x1b: no such kind"},
	};

	(void)state;
	for (unsigned int i = 0; i < ARRAY_SIZE(bad); i++) {
		options_defaults(&o);
		sandbox_console_clear();
		assert_int_equal(
			cmdline_parse(&o, bad[i].word, strlen(bad[i].word)), 1);
		assert_int_equal(o.inject_count, 0);
		assert_true(test_console_contains(bad[i].says));
		assert_false(test_console_contains("previous value"));
	}
}

/* The ninth word: refused by name, the eight before it kept. */
static void test_too_many(void **state)
{
	static const char line[] =
		"inject=bad-map inject=bad-map inject=bad-map inject=bad-map "
		"inject=bad-map inject=bad-map inject=bad-map inject=bad-map "
		"inject=ap-timeout:1";

	(void)state;
	assert_int_equal(cmdline_parse(&o, line, sizeof(line) - 1), 1);
	assert_int_equal(o.inject_count, INJECT_MAX);
	assert_true(test_console_contains("cmdline: inject=ap-timeout:1: more "
					  "than 8 inject= words, ignored"));
}

/*
 * The faults the arch and boot/ act on before the list is armed are data
 * of the parse: one INJECT_FW_* bit per firmware kind, none for the rest.
 */
static void test_firmware_faults(void **state)
{
	static const struct {
		const char *word;
		unsigned int bit;
	} fw[] = {
		{"bad-srat", INJECT_FW_BAD_SRAT},
		{"bad-slit", INJECT_FW_BAD_SLIT},
		{"bad-dt-distance", INJECT_FW_BAD_DT_DIST},
		{"bad-map", INJECT_FW_BAD_MAP},
		{"ioapic-unmask", INJECT_FW_IOAPIC_UNMASK},
		{"pt-pool-short", INJECT_FW_PT_SHORT},
		/* arm64 maps its unassigned page before any CPU starts */
		{"sea", INJECT_FW_SEA},
	};
	unsigned int all = 0;

	(void)state;
	for (unsigned int i = 0; i < ARRAY_SIZE(fw); i++) {
		char word[64];

		snprintf(word, sizeof(word), "inject=%s", fw[i].word);
		options_defaults(&o);
		assert_int_equal(cmdline_parse(&o, word, strlen(word)), 0);
		assert_int_equal(o.fw_inject, fw[i].bit);
		assert_int_equal(
			inject_firmware_faults(o.inject, o.inject_count),
			fw[i].bit);
		assert_false(all & fw[i].bit);
		all |= fw[i].bit;
	}
	/* Every other kind is acted on once armed: no bit. */
	for (const struct inject_kind_desc *d = inject_kinds; d->name; d++) {
		struct inject in = {d->kind, 1};
		bool firmware = false;

		for (unsigned int i = 0; i < ARRAY_SIZE(fw); i++)
			firmware |= !strcmp(d->name, fw[i].word);
		assert_int_equal(inject_firmware_faults(&in, 1) != 0, firmware);
	}
	assert_int_equal(inject_firmware_faults(NULL, 0), 0);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup, test_teardown)
	const struct CMUnitTest tests[] = {
		T(test_every_kind_every_count),
		T(test_malformed),
		T(test_too_many),
		T(test_firmware_faults),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
