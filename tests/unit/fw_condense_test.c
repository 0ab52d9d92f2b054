/* SPDX-License-Identifier: MIT */
/*
 * arch/sandbox/fw_condense.c: a live update's firmware description less
 * its `bad` lines. Each dropped line leaves an empty one (the other lines
 * keep their numbers), nothing else changes, and the description it
 * gives parses to the same RAM, CPUs and reservations but for the bad
 * ones: checked on hand-made lines, malformed ones and random text.
 */
#include <stdlib.h>

#include "common.h"
#include <keel/badmem.h>
#include <keel/fwdesc.h>

#include "../../arch/sandbox/sandbox_priv.h"

static struct bootinfo a, b;
static char out[8192];

static size_t condense(const char *s)
{
	size_t n = sandbox_fw_condense(s, strlen(s), out);

	assert_true(n <= strlen(s));
	out[n] = '\0';
	return n;
}

static void test_drops_bad_lines(void **state)
{
	(void)state;
	condense("ram 0 1G node=0\n"
		 "bad 0x1000 0x2000\n"
		 "  \tbad 0x3000 0x4000 # indented\n"
		 "bad\n"
		 "bad# a comment right after\n"
		 "badram 0x5000\n"
		 "badx 1 2\n"
		 "reserved 0 1M bad\n"
		 "# bad 0x5000 0x6000\n"
		 "cpu 0 node=0\n"
		 "bad 0x7000 0x8000");
	assert_string_equal(out, "ram 0 1G node=0\n"
				 "\n"
				 "\n"
				 "\n"
				 "\n"
				 "badram 0x5000\n"
				 "badx 1 2\n"
				 "reserved 0 1M bad\n"
				 "# bad 0x5000 0x6000\n"
				 "cpu 0 node=0\n");
}

static void test_nothing_to_drop(void **state)
{
	const char *s = "ram 0 1G\ncpu 0\n";

	(void)state;
	/* The whole text back: the caller passes FILE itself then. */
	assert_int_equal(sandbox_fw_condense(s, strlen(s), out), strlen(s));
	assert_int_equal(sandbox_fw_condense("", 0, out), 0);
}

static void test_nul_and_crlf(void **state)
{
	static const char s[] = "ram 0 1G\r\nbad 0x1000 0x2000\r\ncpu\0 0\n";
	size_t n = sandbox_fw_condense(s, sizeof(s) - 1, out);

	(void)state;
	/* Every byte counts, as the parser reads them: a NUL ends nothing. */
	assert_int_equal(n, sizeof(s) - 1 - strlen("bad 0x1000 0x2000\r"));
	assert_memory_equal(out, "ram 0 1G\r\n\ncpu\0 0\n", n);
}

/* Line @k's warning number: "line K" in the console after a parse. */
static void test_line_numbers_kept(void **state)
{
	(void)state;
	condense("bad 0x1000 0x2000\nbad 0x3000 0x4000\nram 0 zz\n");
	sandbox_console_clear();
	bootinfo_init(&a, BOOT_SANDBOX);
	fwdesc_parse(&a, out, strlen(out));
	assert_non_null(strstr(sandbox_console_buffer(), "line 3"));

	/* More than a word of empty lines, then a bad line read on. */
	static char many[2048];
	size_t n = 0;

	for (int i = 0; i < 21; i++)
		n += (size_t)snprintf(many + n, sizeof(many) - n,
				      "bad %#x %#x\n", (i + 1) << 12,
				      (i + 2) << 12);
	snprintf(many + n, sizeof(many) - n, "\n\nram 0 zz\nram 0 yy");
	condense(many);
	sandbox_console_clear();
	bootinfo_init(&a, BOOT_SANDBOX);
	fwdesc_parse(&a, out, strlen(out));
	assert_non_null(strstr(sandbox_console_buffer(), "line 24"));
	assert_non_null(strstr(sandbox_console_buffer(), "line 25"));
}

/* KEEL_FIRMWARE_FD: taken with a handover only, well formed, cleared. */
static void test_fd_from_environment(void **state)
{
	static const struct {
		const char *v;
		bool handover;
		int want;
	} t[] = {
		{"12", true, 12},
		{"12", false, -1},
		{"", true, -1},
		{"1x", true, -1},
		{"-3", true, -1},
		{"99999999999", true, -1},
		{"1048576", true, 1048576},
	};

	(void)state;
	unsetenv("KEEL_FIRMWARE_FD");
	assert_int_equal(sandbox_fw_fd_taken(true), -1);
	for (unsigned int i = 0; i < ARRAY_SIZE(t); i++) {
		setenv("KEEL_FIRMWARE_FD", t[i].v, 1);
		assert_int_equal(sandbox_fw_fd_taken(t[i].handover), t[i].want);
		assert_null(getenv("KEEL_FIRMWARE_FD"));
	}
	sandbox_fw_fd_pass(5);
	assert_string_equal(getenv("KEEL_FIRMWARE_FD"), "5");
	sandbox_fw_fd_pass(-1);
	assert_null(getenv("KEEL_FIRMWARE_FD"));
}

static unsigned int named(const struct bootinfo *bi, const char *name)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < bi->reserved.count; i++)
		n += !strcmp(bi->reserved.regions[i].name, name);
	return n;
}

static const char *const words[] = {
	"ram",	 "bad",	 "reserved", "cpu",  "mce",	 " bad",
	"\tbad", "bad#", "#",	     "badx", "distance",
};

/* Random lines: the two parses agree but for the bad reservations. */
static void test_random(void **state)
{
	const char *fw = badmem_region_name(BADMEM_FIRMWARE);
	static char in[4096];

	(void)state;
	srand(38);
	for (int round = 0; round < 2000; round++) {
		size_t len = 0;
		int lines = rand() % 24;

		for (int l = 0; l < lines && len < sizeof(in) - 128; l++) {
			unsigned long s = (unsigned long)(rand() % 64) << 12;

			len += (size_t)snprintf(
				in + len, sizeof(in) - len, "%s %#lx %#lx%s%s",
				words[rand() % ARRAY_SIZE(words)], s,
				s + ((unsigned long)(rand() % 4) << 12),
				rand() % 3 ? "" : " node=1",
				rand() % 5 ? "\n" : "\r\n");
		}
		size_t n = sandbox_fw_condense(in, len, out);

		assert_true(n <= len);
		bootinfo_init(&a, BOOT_SANDBOX);
		fwdesc_parse(&a, in, len);
		bootinfo_init(&b, BOOT_SANDBOX);
		fwdesc_parse(&b, out, n);
		assert_int_equal(a.ram.count, b.ram.count);
		assert_memory_equal(a.ram.regions, b.ram.regions,
				    a.ram.count * sizeof(a.ram.regions[0]));
		assert_int_equal(a.cpu_count, b.cpu_count);
		assert_int_equal(named(&b, fw), 0);
		assert_int_equal(a.reserved.count - named(&a, fw),
				 b.reserved.count);
		sandbox_console_clear();
	}
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, test_setup, test_teardown)
	const struct CMUnitTest tests[] = {
		T(test_drops_bad_lines), T(test_nothing_to_drop),
		T(test_nul_and_crlf),	 T(test_line_numbers_kept),
		T(test_random),		 T(test_fd_from_environment),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
