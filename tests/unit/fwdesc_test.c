/* SPDX-License-Identifier: MIT */
/* boot/fwdesc.c: the sandbox firmware description parser. */
#include <ctype.h>
#include <stdlib.h>

#include "common.h"
#include <keel/fwdesc.h>

static struct bootinfo bi;

#define GB (1ULL << 30)

static unsigned int parse(const char *s)
{
	bootinfo_init(&bi, BOOT_SANDBOX);
	return fwdesc_parse(&bi, s, strlen(s));
}

static void test_example(void **state)
{
	assert_int_equal(parse("# 2 nodes, 4 CPUs\n"
			       "ram 0 1G node=0\n"
			       "ram 1G 2G node=1\r\n"
			       "reserved 0 1M firmware\n"
			       "reserved 0x3ff00000 0x40000000\n"
			       "\n   \t\n"
			       "cpu 0 node=0 package=0 core=0 thread=0\n"
			       "cpu 0x10 node=1 package=1 thread=1 # comment\n"
			       "cpu 7\n"
			       "distance 0 1 20"),
			 0);
	assert_string_equal(sandbox_console_buffer(), "");
	assert_int_equal(bi.ram.count, 2);
	assert_int_equal(pa_val(bi.ram.regions[0].start), 0);
	assert_int_equal(pa_val(bi.ram.regions[0].end), GB);
	assert_int_equal(bi.ram.regions[0].node, 0);
	assert_int_equal(pa_val(bi.ram.regions[1].start), GB);
	assert_int_equal(pa_val(bi.ram.regions[1].end), 2 * GB);
	assert_int_equal(bi.ram.regions[1].node, 1);
	assert_int_equal(bi.reserved.count, 2);
	assert_string_equal(bi.reserved.regions[0].name, "firmware");
	assert_int_equal(pa_val(bi.reserved.regions[0].end), 1 << 20);
	assert_string_equal(bi.reserved.regions[1].name, "firmware");
	assert_int_equal(bi.cpu_count, 3);
	assert_true(bi.cpus[0].boot_cpu);
	assert_false(bi.cpus[1].boot_cpu);
	assert_int_equal(bi.cpus[1].hwid, 0x10);
	assert_int_equal(bi.cpus[1].node, 1);
	assert_int_equal(bi.cpus[1].package, 1);
	assert_int_equal(bi.cpus[1].core, 1); /* default: index */
	assert_int_equal(bi.cpus[1].thread, 1);
	assert_int_equal(bi.cpus[2].node, NUMA_NO_NODE);
	assert_int_equal(bi.cpus[2].core, 2);
	assert_int_equal(bi.cpus[2].package, 0);
	assert_true(bi.cpus[2].usable);
	assert_true(bi.have_distance);
	assert_int_equal(bi.distance[0][1], 20);
	assert_int_equal(bi.distance[1][0], 20);

	/* Sanitised: no complaints except the node-less CPU. */
	sandbox_console_clear();
	bootinfo_sanitise(&bi);
	assert_int_equal(bi.fixups, 1);
	assert_int_equal(bi.cpus[2].node, 0);
	assert_int_equal(bi.node_count, 2);
}

#define THREE_NODES "ram 0 1G node=0\nram 1G 2G node=1\ncpu 0 node=2\n"

static void test_distance_directions(void **state)
{
	assert_int_equal(parse(THREE_NODES "distance 0 1 20\ndistance 1 0 30\n"
					   "distance 2 0 0x19\n"),
			 0);
	assert_int_equal(bi.distance[0][1], 20);
	assert_int_equal(bi.distance[1][0], 30);
	assert_int_equal(bi.distance[2][0], 25);
	assert_int_equal(bi.distance[0][2], 25);
	/* The other direction given later overrides the mirrored value. */
	parse(THREE_NODES "distance 0 1 20\ndistance 1 0 30\n");
	assert_int_equal(bi.distance[0][1], 20);
	parse(THREE_NODES "distance 1 0 30\ndistance 0 1 20\n");
	assert_int_equal(bi.distance[0][1], 20);
	assert_int_equal(bi.distance[1][0], 30);
}

/*
 * Asymmetric lines and 255 (unreachable) are kept through sanitise; values
 * ACPI forbids are skipped with one line warning each, and the entry then
 * takes the reverse distance.
 */
static void test_distance_policy(void **state)
{
	sandbox_console_clear();
	assert_int_equal(parse(THREE_NODES "distance 0 2 40\n"
					   "distance 2 0 12\n"
					   "distance 1 2 255\n"
					   "distance 2 1 15\n"
					   "distance 0 1 9\n" /* line 8 */
					   "distance 1 0 21\n"
					   "distance 1 1 11\n"), /* line 10 */
			 2);
	assert_true(test_console_contains(
		"line 8: distance 0 1 9: a remote distance must be above 10, "
		"line skipped"));
	assert_true(test_console_contains(
		"line 10: distance 1 1 11: a local distance must be 10, line "
		"skipped"));
	bootinfo_sanitise(&bi);
	assert_int_equal(bi.fixups, 0);
	assert_true(bi.have_distance);
	assert_int_equal(bi.distance[0][2], 40);
	assert_int_equal(bi.distance[2][0], 12);
	assert_int_equal(bi.distance[1][2], 255);
	assert_int_equal(bi.distance[2][1], 15);
	assert_int_equal(bi.distance[0][1], 21); /* the reverse */
	assert_int_equal(bi.distance[1][1], 10);
}

/*
 * Issue 12 item 10: a distance naming a node with neither RAM nor CPU was
 * dropped silently. One warning for all such lines, naming the first.
 */
static void test_distance_unknown_node(void **state)
{
	sandbox_console_clear();
	assert_int_equal(parse("ram 0 1G node=0\n"
			       "ram 1G 2G node=1\n"
			       "distance 0 1 30\n"
			       "distance 0 5 30\n"
			       "distance 5 0 30\n"
			       "distance 1 9 40\n"),
			 1);
	assert_int_equal(test_console_lines(), 1);
	assert_true(test_console_contains(
		"line 4: distance 0 5 30: node 5 has neither RAM nor CPU, "
		"ignored (3 such lines)"));
	assert_int_equal(bi.distance[0][1], 30);
	assert_int_equal(bi.distance[0][5], 0);
	bootinfo_sanitise(&bi);
	assert_int_equal(bi.node_count, 2);
}

/*
 * More node ids than MAX_NUMNODES: the lowest are kept as nodes 0.. in id
 * order (the lines list the highest first), the others fold into the
 * kept node nearest by their own distance row, one warning, counted in
 * dropped_nodes. Id 100 is among the lowest MAX_NUMNODES ids: kept, as
 * node MAX_NUMNODES - 1 (its rank).
 */
static void test_node_fold(void **state)
{
	static char buf[8192];
	const uint32_t extra = 100, f0 = MAX_NUMNODES + 200;
	size_t n = 0;
	unsigned int i;

	/* Ids 0..MAX-2, 100, f0..f0+2 (3 to fold); RAM [id G, id+1 G). */
	for (i = f0 + 2; i + 1 > 0; i--) {
		if (!(i < MAX_NUMNODES - 1 || i == extra || i >= f0))
			continue;
		n += (size_t)snprintf(buf + n, sizeof(buf) - n,
				      "ram %uG %uG node=%u\ncpu %u node=%u\n",
				      i, i + 1, i, i, i);
	}
	/*
	 * f0's row: 3 (12) beats 5 (30). f0+1's row: 100 (11) beats 2 (14),
	 * although the reverse 100 -> f0+1 is far (60). f0+2: no row, so the
	 * lowest kept node, 0.
	 */
	n += (size_t)snprintf(buf + n, sizeof(buf) - n,
			      "distance %u 3 12\ndistance %u 5 30\n"
			      "distance %u 100 11\ndistance 100 %u 60\n"
			      "distance %u 2 14\n"
			      "distance 3 5 25\ndistance 5 3 35\n",
			      f0, f0, f0 + 1, f0 + 1, f0 + 1);
	sandbox_console_clear();
	assert_int_equal(parse(buf), 1);
	assert_int_equal(test_console_warnings(), 1);
	snprintf(buf, sizeof(buf),
		 "fwdesc: %u proximity domains, %u kept (MAX_NUMNODES=%u), 3 "
		 "folded into their nearest node",
		 MAX_NUMNODES + 3, MAX_NUMNODES, MAX_NUMNODES);
	assert_true(test_console_contains(buf));
	assert_int_equal(bi.dropped_nodes, 3);
	assert_int_equal(bi.ram.count, MAX_NUMNODES + 3);
	for (i = 0; i < bi.ram.count; i++) {
		uint32_t fw = (uint32_t)(pa_val(bi.ram.regions[i].start) / GB);
		uint32_t want = fw < MAX_NUMNODES - 1 ? fw
				: fw == extra	      ? MAX_NUMNODES - 1
				: fw == f0	      ? 3
				: fw == f0 + 1	      ? MAX_NUMNODES - 1
						      : 0;

		assert_int_equal(bi.ram.regions[i].node, want);
		assert_int_equal(bi.cpus[i].hwid, fw);
		assert_int_equal(bi.cpus[i].node, want);
	}
	/* Kept nodes' distances stay (asymmetric), folded ones' go. */
	bootinfo_sanitise(&bi);
	assert_int_equal(bi.node_count, MAX_NUMNODES);
	assert_int_equal(bi.distance[3][5], 25);
	assert_int_equal(bi.distance[5][3], 35);
	assert_int_equal(bi.distance[MAX_NUMNODES - 1][2], 20);
}

static void test_malformed(void **state)
{
	static const char *const bad[] = {
		"ram 0x2000 0x1000 node=0",   /* END <= START */
		"ram 1G 0x4000_0000x node=0", /* junk */
		"ram 1G",		      /* missing END */
		"ram",
		"ram 0 1G node=x",
		"ram 0 1G nod=1",
		"ram 0 1G 5",
		"ram 0 1G node=99999999999",
		"ram 0 99999999999999999999",
		"ram 0 17179869184G",
		"reserved 5G 4G backwards",
		"reserved 0 1M a b",
		"bogus 1 2 3",
		"cpu",
		"cpu x",
		"cpu 1 core=",
		"cpu 1 core=1 core",
		"cpu 1 socket=1",
		"distance 0 1",
		"distance 0 1 2 3",
		"distance 0 999 20",
		"distance 0 1 256",
		"distance 0 1 0",
		"a b c d e f g h i j k",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char buf[128];

		sandbox_console_clear();
		snprintf(buf, sizeof(buf), "# head\nram 0 1G node=0\n%s\n",
			 bad[i]);
		if (parse(buf) != 1 || test_console_lines() != 1)
			fail_msg("\"%s\": %u warnings, console \"%s\"", bad[i],
				 test_console_lines(),
				 sandbox_console_buffer());
		/* One warning naming line 3; the good line kept. */
		assert_true(test_console_contains("line 3:"));
		assert_int_equal(bi.ram.count, 1);
		assert_int_equal(bi.reserved.count, 0);
		assert_int_equal(bi.cpu_count, 0);
		assert_false(bi.have_distance);
	}
}

/* Empty and inverted ranges are dropped and counted as such. */
static void test_empty_ranges_counted(void **state)
{
	assert_int_equal(parse("ram 0 1G node=0\n"
			       "ram 2G 2G node=0\n"
			       "ram 0x2000 0x1000 node=0\n"
			       "reserved 1M 1M bios\n"),
			 3);
	assert_int_equal(bi.ram.count, 1);
	assert_int_equal(bi.dropped_ram, 2);
	assert_int_equal(bi.dropped_reserved, 1);
	assert_true(test_console_contains("line 2:"));
	assert_true(test_console_contains("range dropped"));
}

/* A binary file's bytes are shown escaped and bounded, never raw. */
static void test_garbage_echo_escaped(void **state)
{
	static const char junk[] = "\x01\x02\xff\xfe\\z garbage\n";
	char long_word[100];
	const char *out;

	assert_int_equal(parse(junk), 1);
	assert_true(test_console_contains(
		"unknown keyword \"\\x01\\x02\\xff\\xfe\\\\z\""));
	for (out = sandbox_console_buffer(); *out; out++)
		assert_true(*out == '\n' || (*out >= 0x20 && *out < 0x7f));

	/* At most 32 bytes of a token, then "...". */
	memset(long_word, 'k', sizeof(long_word) - 2);
	long_word[sizeof(long_word) - 2] = '\n';
	long_word[sizeof(long_word) - 1] = '\0';
	sandbox_console_clear();
	assert_int_equal(parse(long_word), 1);
	assert_true(test_console_contains(
		"\"kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk...\""));
	assert_false(
		test_console_contains("kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk"));

	/* The same in a number and an attribute. */
	sandbox_console_clear();
	assert_int_equal(parse("ram 0 1\x07G node=0\nram 0 1G n\x1b=0\n"), 2);
	assert_true(test_console_contains("bad END \"1\\x07G\""));
	assert_true(test_console_contains("unknown attribute \"n\\x1b\""));
}

/*
 * Issue 20 §2.1: a NUL in a comment used to end the file, dropping the
 * lines after it (and the reserved range they protected). The comment is
 * read past; a NUL outside a comment is an error naming its line; every
 * later line counts.
 */
static void test_nul_byte(void **state)
{
	static const char desc[] = "ram 0 128M node=0 # a\0b\n"
				   "cpu 0\n"
				   "cpu 1\n"
				   "cpu \0 2\n"
				   "ram 128M 1G\n"
				   "reserved 1M 2M bi\0os\n"
				   "reserved 4M 8M acpi\n";

	bootinfo_init(&bi, BOOT_SANDBOX);
	/* sizeof - 1: the NULs are inside, the last one is C's. */
	assert_int_equal(fwdesc_parse(&bi, desc, sizeof(desc) - 1), 2);
	assert_true(test_console_contains("line 4: unknown keyword") ||
		    test_console_contains("line 4: bad HWID \"\\x00\""));
	assert_true(test_console_contains(
		"line 6: name \"bi\\x00os\" is not text"));
	assert_int_equal(bi.ram.count, 2);
	assert_int_equal(pa_val(bi.ram.regions[1].end), GB);
	assert_int_equal(bi.cpu_count, 2);
	/* The range with a bad name still protects its memory. */
	assert_int_equal(bi.reserved.count, 2);
	assert_int_equal(pa_val(bi.reserved.regions[0].start), 1 << 20);
	assert_string_equal(bi.reserved.regions[0].name, "firmware");
	assert_string_equal(bi.reserved.regions[1].name, "acpi");
}

struct seen {
	unsigned int ram, rsv;
	uint64_t last_s, last_e;
};

static void observe(void *arg, bool ram, uint64_t s, uint64_t e)
{
	struct seen *v = arg;

	if (ram)
		v->ram++;
	else
		v->rsv++;
	v->last_s = s;
	v->last_e = e;
}

/* The observer sees what the parser takes, and ranges a full table drops. */
static void test_range_observer(void **state)
{
	static char buf[(BOOTINFO_MAX_RESERVED + 8) * 40];
	struct fwdesc_files f = {0};
	struct seen v = {0};
	unsigned int n = BOOTINFO_MAX_RESERVED + 4;
	size_t len;

	static const char head[] = "ram 0 1G node=0\nram 1G 2G bad\n"
				   "reserved 0x3000 0x1000\n# \0\n";

	memcpy(buf, head, sizeof(head) - 1);
	len = sizeof(head) - 1;
	for (unsigned int i = 0; i < n; i++)
		len += (size_t)snprintf(buf + len, sizeof(buf) - len,
					"reserved %#x %#x r\n", (i + 1) << 16,
					((i + 1) << 16) + 4096);
	f.on_range = observe;
	f.on_range_arg = &v;
	bootinfo_init(&bi, BOOT_SANDBOX);
	fwdesc_parse_files(&bi, buf, len, &f);
	assert_ptr_equal(f.on_range, observe); /* kept by the parse */
	assert_int_equal(v.ram, 1);	       /* "bad" attribute: not RAM */
	assert_int_equal(v.rsv, n);	       /* inverted: not a range */
	assert_int_equal(v.last_s, (uint64_t)n << 16);
	assert_int_equal(v.last_e, ((uint64_t)n << 16) + 4096);
}

/*
 * mce START END (the host's runtime history): given to on_mce only, never
 * RAM or a reservation; warned and skipped without a taker, malformed.
 */
static void test_mce_lines(void **state)
{
	static const char text[] = "ram 0 1G node=0\n"
				   "mce 0x5000 0x6000\n"
				   "mce 0x9000\n"
				   "mce 0x8000 0x7000\n"
				   "mce 0x2000 0x4000 # two pages\n";
	struct fwdesc_files f = {0};
	struct seen v = {0};

	f.on_mce = observe;
	f.on_mce_arg = &v;
	bootinfo_init(&bi, BOOT_SANDBOX);
	assert_int_equal(fwdesc_parse_files(&bi, text, sizeof(text) - 1, &f),
			 2);
	assert_non_null(strstr(sandbox_console_buffer(),
			       "line 3: mce needs START END"));
	assert_non_null(strstr(sandbox_console_buffer(),
			       "line 4: END 0x7000 <= START 0x8000"));
	assert_int_equal(v.rsv, 2);
	assert_int_equal(v.ram, 0);
	assert_int_equal(v.last_s, 0x2000);
	assert_int_equal(v.last_e, 0x4000);
	assert_int_equal(bi.reserved.count, 0);
	assert_int_equal(bi.ram.count, 1);
	/* mce_skip: every mce line only counted, good or not, no warning. */
	memset(&v, 0, sizeof(v));
	f.mce_skip = true;
	sandbox_console_clear();
	bootinfo_init(&bi, BOOT_SANDBOX);
	assert_int_equal(fwdesc_parse_files(&bi, text, sizeof(text) - 1, &f),
			 0);
	assert_int_equal(f.mce_skipped, 4);
	assert_int_equal(v.rsv, 0);
	assert_string_equal(sandbox_console_buffer(), "");
	/* No taker (fwdesc_parse(), hardware's replay): warned, skipped. */
	assert_int_equal(parse("ram 0 1G node=0\nmce 0x5000 0x6000\n"), 1);
	assert_non_null(strstr(sandbox_console_buffer(),
			       "line 2: mce: no runtime history here"));
	assert_int_equal(bi.reserved.count, 0);
}

/* One line's result: the reserved list, the warnings, the mce ranges. */
struct line_result {
	unsigned int warnings, count, mce;
	uint64_t s, e, mce_s, mce_e;
	char name[BOOTINFO_NAME_MAX];
	char console[256];
};

static void line_result(const char *line, struct line_result *out)
{
	struct fwdesc_files f = {0};
	struct seen v = {0};
	const char *c;

	memset(out, 0, sizeof(*out));
	f.on_mce = observe;
	f.on_mce_arg = &v;
	bootinfo_init(&bi, BOOT_SANDBOX);
	sandbox_console_clear();
	out->warnings = fwdesc_parse_files(&bi, line, strlen(line), &f);
	out->count = bi.reserved.count;
	if (bi.reserved.count) {
		out->s = pa_val(bi.reserved.regions[0].start);
		out->e = pa_val(bi.reserved.regions[0].end);
		memcpy(out->name, bi.reserved.regions[0].name,
		       sizeof(out->name));
	}
	out->mce = v.rsv;
	out->mce_s = v.last_s;
	out->mce_e = v.last_e;
	c = sandbox_console_buffer();
	strncpy(out->console, c, sizeof(out->console) - 1);
}

/*
 * The one-pass path for `bad`/`mce 0xS 0xE` lines (fast_line()) against
 * the full parse: the same line with a comment after it takes the full
 * path, and must come out the same, for good lines and for every near
 * miss (digits, case, blanks, junk, END <= START, too long a number).
 */
static void test_fast_lines_match_full(void **state)
{
	static const char *const lines[] = {
		"bad 0x5000 0x6000",
		"bad\t0x5000   0x7000\r",
		"bad 0x5000 0x6000 ",
		"mce 0x5000 0x6000",
		"bad 0xABCdef000 0xabcdef1000",
		"bad 0x6000 0x5000",
		"bad 0x5000 0x5000",
		"bad 0x5000",
		"bad 0x5000 0x6000 0x7000",
		"bad 0x 0x6000",
		"bad 0x5000 0x6g00",
		"bad 0X5000 0x6000",
		"bad 20480 0x6000",
		"bad 0x5000 8K",
		"bad 0xffffffffffff0000 0xfffffffffffff000",
		"bad 0x00000000000005000 0x6000",
		"bad 0x10000000000000000 0x6000",
		"bads 0x5000 0x6000",
		"ba 0x5000 0x6000",
		"mce 0x5000 0x6000 node=1",
	};
	struct line_result fast, full;
	char buf[128];

	(void)state;
	for (unsigned int i = 0; i < ARRAY_SIZE(lines); i++) {
		line_result(lines[i], &fast);
		snprintf(buf, sizeof(buf), "%s # full path", lines[i]);
		line_result(buf, &full);
		if (memcmp(&fast, &full, sizeof(fast)))
			fail_msg("\"%s\": fast %u warnings, %u reserved "
				 "[%#llx, %#llx) %s, %u mce \"%s\"; full %u, "
				 "%u [%#llx, %#llx) %s, %u \"%s\"",
				 lines[i], fast.warnings, fast.count,
				 (unsigned long long)fast.s,
				 (unsigned long long)fast.e, fast.name,
				 fast.mce, fast.console, full.warnings,
				 full.count, (unsigned long long)full.s,
				 (unsigned long long)full.e, full.name,
				 full.mce, full.console);
	}
	line_result("bad 0x5a00 0x5F00", &fast);
	assert_int_equal(fast.s, 0x5a00);
	assert_int_equal(fast.e, 0x5f00);
	line_result("bad 0x5000 0x6000", &fast);
	assert_int_equal(fast.count, 1);
	assert_string_equal(fast.name, "bad firmware");
	line_result("mce 0x5000 0x6000", &fast);
	assert_int_equal(fast.mce, 1);
	assert_int_equal(fast.count, 0);
}

/*
 * The fast path's hex digits, read two at a time: every byte in each of
 * the first two digits' places of START and of END (a pair's first and
 * second) against libc's reading and the full parse.
 */
static void test_fast_hex_digits(void **state)
{
	struct line_result fast, full;
	char buf[128];

	(void)state;
	/*
	 * A hex digit of either case reads as the full parse reads it,
	 * anything else leaves the line to the full parse.
	 */
	for (unsigned int c = 1; c < 256; c++) {
		for (unsigned int at = 0; at < 4; at++) {
			/* The digit's value by libc's reading, else -1. */
			int d = !isxdigit((int)c) ? -1
				: isdigit((int)c) ? (int)c - '0'
						  : tolower((int)c) - 'a' + 10;
			static const uint64_t base[] = {0x0000, 0x5000, 0x0f000,
							0x10000};
			static const unsigned int shift[] = {12, 8, 16, 12};
			uint64_t want = base[at] | (uint64_t)d << shift[at];
			char line[32] = "bad 0x5000 0x1f000";

			if (c == '\n' || c == '#')
				continue;
			/* START's digits at 6 and 7, END's at 13 and 14. */
			line[(at < 2 ? 6 : 13) + at % 2] = (char)c;
			line_result(line, &fast);
			snprintf(buf, sizeof(buf), "%s # full path", line);
			line_result(buf, &full);
			if (memcmp(&fast, &full, sizeof(fast)))
				fail_msg("\"%s\": fast %u reserved [%#llx, "
					 "%#llx), full %u [%#llx, %#llx)",
					 line, fast.count,
					 (unsigned long long)fast.s,
					 (unsigned long long)fast.e, full.count,
					 (unsigned long long)full.s,
					 (unsigned long long)full.e);
			if (fast.count != (d >= 0) ||
			    (d >= 0 && (at < 2 ? fast.s : fast.e) != want))
				fail_msg("\"%s\": %u reserved [%#llx, %#llx)",
					 line, fast.count,
					 (unsigned long long)fast.s,
					 (unsigned long long)fast.e);
		}
	}
	/* Odd and even counts of digits, up to the 16 the fast path takes. */
	line_result("bad 0x5 0x12345", &fast);
	assert_int_equal(fast.s, 0x5);
	assert_int_equal(fast.e, 0x12345);
	line_result("bad 0x123456789abcdef 0xfedcba9876543210", &fast);
	assert_int_equal(fast.s, 0x123456789abcdefULL);
	assert_int_equal(fast.e, 0xfedcba9876543210ULL);
}

static void test_long_lines_and_bounds(void **state)
{
	char buf[1024];

	/* A line longer than the limit is skipped, the next one counts. */
	memset(buf, 0, sizeof(buf));
	memcpy(buf, "ram 0 1G node=0 #", 17);
	memset(buf + 17, 'x', 400);
	strcpy(buf + 417, "\nram 1G 2G node=1\n");
	assert_int_equal(parse(buf), 1);
	assert_int_equal(bi.ram.count, 1);
	assert_int_equal(bi.ram.regions[0].node, 0); /* node=1, the only id */
	assert_int_equal(bi.node_fw_id[0], 1);
	assert_true(test_console_contains("line 1:"));

	/* Only len bytes are read: "ram 0 1G" of "ram 0 1G node=1". */
	bootinfo_init(&bi, BOOT_SANDBOX);
	assert_int_equal(fwdesc_parse(&bi, "ram 0 1G node=1", 8), 0);
	assert_int_equal(bi.ram.count, 1);
	assert_int_equal(bi.ram.regions[0].node, NUMA_NO_NODE);
	/* A NUL is a byte of its line, not the end of the text. */
	bootinfo_init(&bi, BOOT_SANDBOX);
	assert_int_equal(fwdesc_parse(&bi, "ram 0 1G\0bogus", 14), 1);
	assert_true(test_console_contains("bad END \"1G\\x00bogus\""));
	assert_int_equal(bi.ram.count, 0);
	assert_int_equal(fwdesc_parse(&bi, NULL, 5), 0);
	assert_int_equal(fwdesc_parse(&bi, "", 0), 0);
}

static void test_file_malformed(void **state)
{
	size_t len;
	char *buf = sandbox_read_file("tests/data/sandbox-malformed.fw", &len);
	unsigned int w;

	if (!buf)
		fail_msg(
			"tests/data/sandbox-malformed.fw unreadable (the tests "
			"run from the top of the tree)");

	bootinfo_init(&bi, BOOT_SANDBOX);
	w = fwdesc_parse(&bi, buf, len);
	free(buf);
	/* Eight bad lines at the time of writing; one warning each. */
	assert_true(w >= 5);
	assert_int_equal(w, test_console_warnings());
	bootinfo_sanitise(&bi);
	assert_true(bi.ram.count >= 1);
	assert_true(bi.cpu_count >= 1);
}

static void test_random(void **state)
{
	static const char *const words[] = {
		"ram ", "reserved ", "cpu ",	"distance ", "node=", "core=",
		"0x",	"1G",	     "12",	" ",	     "\n",    "#",
		"=",	"K",	     "thread=", "7",
	};
	char buf[512];

	srand(99);
	for (int i = 0; i < 3000; i++) {
		size_t len = 0, cap = (size_t)(rand() % (int)sizeof(buf));
		char *heap;

		while (len < cap) {
			if (rand() % 5) {
				const char *w = words[rand() % 16];
				size_t l = strlen(w);

				if (len + l > cap)
					break;
				memcpy(buf + len, w, l);
				len += l;
			} else {
				buf[len++] = (char)rand();
			}
		}
		/* Exactly len bytes on the heap: ASan catches overreads. */
		heap = malloc(len ? len : 1);
		memcpy(heap, buf, len);
		bootinfo_init(&bi, BOOT_SANDBOX);
		fwdesc_parse(&bi, heap, len);
		assert_true(bi.ram.count <= bi.ram.cap);
		for (unsigned int r = 0; r < bi.ram.count; r++)
			assert_true(pa_val(bi.ram.regions[r].start) <
				    pa_val(bi.ram.regions[r].end));
		bootinfo_sanitise(&bi);
		assert_true(bi.cpu_count >= 1);
		free(heap);
		sandbox_console_clear();
	}
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, test_setup, test_teardown)
	const struct CMUnitTest tests[] = {
		T(test_example),
		T(test_distance_directions),
		T(test_malformed),
		T(test_long_lines_and_bounds),
		T(test_nul_byte),
		T(test_range_observer),
		T(test_mce_lines),
		T(test_fast_lines_match_full),
		T(test_fast_hex_digits),
		T(test_file_malformed),
		T(test_random),
		T(test_empty_ranges_counted),
		T(test_garbage_echo_escaped),
		T(test_distance_policy),
		T(test_distance_unknown_node),
		T(test_node_fold),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
