/* SPDX-License-Identifier: MIT */
/*
 * boot/badmem.c and the firmware readers' bad memory (issue 38 §1):
 * badpage=, memmap=SIZE$START and badram= with good and malformed values,
 * badram='s runs against a page-by-page oracle written here, the bound,
 * the command line applied to a bootinfo, the sandbox's `bad` lines and
 * UEFI EfiUnusableMemory. Values are copied into exact heap buffers so
 * that ASan catches a read past the length given.
 */
#include <stdlib.h>

#include "common.h"
#include <keel/badmem.h>
#include <keel/errno.h>
#include <keel/fwdesc.h>
#include <keel/uefi.h>

#define PG 4096ULL

struct got {
	unsigned int n;
	uint64_t s[64], e[64];
	unsigned int stop_after; /* 0: never stop */
};

static bool collect(void *arg, uint64_t s, uint64_t e)
{
	struct got *g = arg;

	if (g->n < 64) {
		g->s[g->n] = s;
		g->e[g->n] = e;
	}
	g->n++;
	return !g->stop_after || g->n < g->stop_after;
}

typedef int (*parse_fn)(const char *, size_t, badmem_fn, void *, const char **);

/* @fn over an exact copy of @v (no NUL after it). */
static int run(parse_fn fn, const char *v, struct got *g, const char **why)
{
	size_t len = strlen(v);
	char *buf = malloc(len ? len : 1);
	int ret;

	assert_non_null(buf);
	memcpy(buf, v, len);
	memset(g, 0, sizeof(*g));
	*why = NULL;
	ret = fn(buf, len, collect, g, why);
	free(buf);
	return ret;
}

static void test_badpage(void **state)
{
	struct got g;
	const char *why;

	(void)state;
	assert_int_equal(
		run(badmem_parse_badpage, "0x10,20-22,0x30-0x30", &g, &why), 0);
	assert_int_equal(g.n, 3);
	assert_int_equal(g.s[0], 0x10 * PG);
	assert_int_equal(g.e[0], 0x11 * PG);
	assert_int_equal(g.s[1], 20 * PG);
	assert_int_equal(g.e[1], 23 * PG); /* A-B is inclusive */
	assert_int_equal(g.s[2], 0x30 * PG);
	assert_int_equal(g.e[2], 0x31 * PG);
	/* The largest PFN a 64-bit address has is refused, the one below not. */
	assert_int_equal(run(badmem_parse_badpage, "0xffffffffffffe", &g, &why),
			 0);
	assert_int_equal(g.e[0], 0xfffffffffffff000ULL);
}

static void test_badpage_malformed(void **state)
{
	static const char *const bad[] = {
		"",	"1,",
		",1",	"x",
		"5-3",	"1-",
		"-1",	"0x",
		"1--2", "0xfffffffffffff",
		"1 2",	"99999999999999999999",
		"1-x",	"12a",
	};
	struct got g;
	const char *why;

	(void)state;
	for (unsigned int i = 0; i < ARRAY_SIZE(bad); i++) {
		assert_int_equal(run(badmem_parse_badpage, bad[i], &g, &why),
				 -EINVAL);
		assert_non_null(why);
	}
	/* The well-formed items of a malformed word are still taken. */
	assert_int_equal(run(badmem_parse_badpage, "1,zz,3", &g, &why),
			 -EINVAL);
	assert_int_equal(g.n, 2);
	assert_int_equal(g.s[1], 3 * PG);
}

static void test_memmap(void **state)
{
	struct got g;
	const char *why;

	(void)state;
	assert_int_equal(run(badmem_parse_memmap, "8K$0x1000", &g, &why), 0);
	assert_int_equal(g.n, 1);
	assert_int_equal(g.s[0], 0x1000);
	assert_int_equal(g.e[0], 0x3000);
	assert_int_equal(run(badmem_parse_memmap, "4K$4K,1M$1G", &g, &why), 0);
	assert_int_equal(g.n, 2);
	assert_int_equal(g.s[1], 1ULL << 30);
	assert_int_equal(g.e[1], (1ULL << 30) + (1ULL << 20));
	/* Bytes off page bounds: every page they touch. */
	assert_int_equal(run(badmem_parse_memmap, "0x10$0x1ff8", &g, &why), 0);
	assert_int_equal(g.s[0], 0x1000);
	assert_int_equal(g.e[0], 0x3000);
}

static void test_memmap_other_forms(void **state)
{
	static const char *const other[] = {"4K@0", "4K#0x1000", "4K!1G",
					    "exactmap", "64M"};
	static const char *const bad[] = {"0$0",  "4K$",   "$4K",
					  "4Q$0", "4K$0x", ""};
	struct got g;
	const char *why;

	(void)state;
	for (unsigned int i = 0; i < ARRAY_SIZE(other); i++) {
		assert_int_equal(run(badmem_parse_memmap, other[i], &g, &why),
				 -EOPNOTSUPP);
		assert_int_equal(g.n, 0);
	}
	for (unsigned int i = 0; i < ARRAY_SIZE(bad); i++) {
		assert_int_not_equal(run(badmem_parse_memmap, bad[i], &g, &why),
				     0);
		assert_int_equal(g.n, 0);
		assert_non_null(why);
	}
	/* A range running past 2^64 is clamped, not wrapped. */
	assert_int_equal(
		run(badmem_parse_memmap, "8K$0xffffffffffffd000", &g, &why), 0);
	assert_int_equal(g.s[0], 0xffffffffffffd000ULL);
	assert_int_equal(g.e[0], 0xfffffffffffff000ULL);
	assert_int_equal(
		run(badmem_parse_memmap, "8K$0xfffffffffffff000", &g, &why),
		-EINVAL);
	assert_int_equal(g.n, 0);
}

static void test_badram_syntax(void **state)
{
	static const char *const bad[] = {"",	  "0x1000", "0x1000,",
					  ",0x1", "1,2,3",  "0x1000,zz"};
	const char *why;

	(void)state;
	assert_int_equal(badmem_parse_badram("0x1000,0xfffff000", 17, &why), 0);
	assert_int_equal(badmem_parse_badram("1,2,3,4", 7, &why), 0);
	for (unsigned int i = 0; i < ARRAY_SIZE(bad); i++) {
		size_t len = strlen(bad[i]);
		char *buf = malloc(len ? len : 1);

		memcpy(buf, bad[i], len);
		why = NULL;
		assert_int_equal(badmem_parse_badram(buf, len, &why), -EINVAL);
		assert_non_null(why);
		free(buf);
	}
}

/* The oracle: page p is bad when any address in it matches (any offset). */
static bool page_matches(uint64_t p, uint64_t addr, uint64_t mask)
{
	uint64_t m = mask & ~(PG - 1);

	return ((p * PG) & m) == (addr & m);
}

struct pages {
	uint8_t *bad; /* one byte a page of [0, n) */
	uint64_t n, runs;
	bool disorder;
	uint64_t last_end;
};

static bool mark(void *arg, uint64_t s, uint64_t e)
{
	struct pages *pg = arg;

	pg->disorder |= s < pg->last_end || e <= s || s % PG || e % PG;
	pg->last_end = e;
	for (uint64_t p = s / PG; p < e / PG && p < pg->n; p++)
		pg->bad[p]++;
	pg->runs++;
	return true;
}

static void check_runs(uint64_t addr, uint64_t mask, uint64_t s, uint64_t e)
{
	struct pages pg = {.n = e / PG};
	uint64_t budget = ~0ULL;

	pg.bad = calloc(pg.n, 1);
	badmem_badram_runs(addr, mask, s, e, &budget, mark, &pg);
	assert_false(pg.disorder);
	for (uint64_t p = 0; p < pg.n; p++) {
		bool want = p >= s / PG && page_matches(p, addr, mask);

		if (pg.bad[p] != want)
			fail_msg("badram %#llx,%#llx over [%#llx, %#llx): page "
				 "%#llx given %u times, expected %d",
				 (unsigned long long)addr,
				 (unsigned long long)mask,
				 (unsigned long long)s, (unsigned long long)e,
				 (unsigned long long)p, pg.bad[p], want);
	}
	free(pg.bad);
}

static void test_badram_runs(void **state)
{
	uint64_t seed = 38;

	(void)state;
	check_runs(0x12345000, ~0ULL, 0, 1ULL << 30);
	check_runs(0x12345678, 0xfffffffffffff000ULL, 0, 1ULL << 30);
	check_runs(0x10000, 0xffffffffffff0000ULL, 0, 1ULL << 30);
	check_runs(0x1000, 0x1000, 0x5000, 0x40000);	   /* every odd page */
	check_runs(0, 0xfff, 0x3000, 0x9000);		   /* all of it */
	check_runs(0x80001000, 0x80001000, 0, 1ULL << 28); /* none */
	for (int i = 0; i < 200; i++) {
		uint64_t mask, addr, s, e;

		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		mask = ~((seed >> 7) & 0x3ff000ULL) & 0xffffffULL;
		mask |= (seed & 1) ? 0xffffffffff000000ULL : 0;
		addr = (seed >> 20) & 0xfffffffULL;
		s = ((seed >> 40) & 0x3ff) * PG;
		e = s + (((seed >> 50) & 0x3ff) + 1) * PG;
		check_runs(addr, mask, s, e);
	}
}

/* Past the bound the rest of the RAM range is withheld whole: one call. */
static void test_badram_bound(void **state)
{
	struct pages pg = {.n = 64};
	uint64_t budget = 3, runs;

	(void)state;
	pg.bad = calloc(pg.n, 1);
	runs = badmem_badram_runs(0x1000, 0x1000, 0, 64 * PG, &budget, mark,
				  &pg);
	assert_int_equal(runs, 4);
	assert_int_equal(budget, 0);
	assert_int_equal(pg.runs, 4);
	/* Pages 1, 3, 5, then 7..63 whole: never fewer than the mask names. */
	for (uint64_t p = 0; p < 64; p++)
		assert_int_equal(pg.bad[p],
				 p == 1 || p == 3 || p == 5 || p >= 7);
	free(pg.bad);
}

static struct bootinfo bi;

static uint64_t bad_pages(int src)
{
	uint64_t n = 0;

	for (unsigned int i = 0; i < bi.reserved.count; i++)
		if (badmem_region_source(bi.reserved.regions[i].name) == src)
			n += (pa_val(bi.reserved.regions[i].end) -
			      pa_val(bi.reserved.regions[i].start)) /
			     PG;
	return n;
}

static void test_cmdline(void **state)
{
	static const char line[] =
		"/keel badpage=1,3-4 memmap=8K$0x10000 other=1 "
		"badram=0x20000,0xfffffffffffff000 badpage=\"7\" "
		"memmap=4K@0 badpage=0x100000,oops";

	(void)state;
	bootinfo_init(&bi, BOOT_SANDBOX);
	bootinfo_add_ram(&bi, pa(0), pa(1ULL << 30), 0);
	bootinfo_sanitise(&bi);
	sandbox_console_clear();
	/* Problems: memmap=4K@0 (ignored form), badpage=...,oops (syntax). */
	assert_int_equal(badmem_apply_cmdline(&bi, line, sizeof(line)), 2);
	assert_int_equal(test_console_warnings(), 2);
	assert_true(
		test_console_contains("cmdline: memmap=4K@0: only SIZE$START"));
	assert_true(test_console_contains("cmdline: badpage=0x100000,oops: "));
	/* 1, 3, 4, 0x10-0x11, 0x20, 7, 0x100000 (the well-formed item). */
	assert_int_equal(bad_pages(BADMEM_OPTION), 8);
	assert_true(test_has_reserved(&bi, 0x10000, 0x12000, "bad option"));
	assert_true(test_has_reserved(&bi, 0x20000, 0x21000, "bad option"));
	assert_true(test_has_reserved(&bi, 0x7000, 0x8000, "bad option"));
	/* Not RAM: warned (one line), still reserved (bootmem drops it). */
	sandbox_console_clear();
	assert_int_equal(badmem_apply_cmdline(&bi, "badpage=0x80000", 15), 1);
	assert_true(test_console_contains("1 of its 1 pages are not RAM"));
}

/*
 * badram= naming every odd page of 1 GiB (131,072 runs): more runs than a
 * table should hold, so it is kept as a pattern (struct bootinfo's
 * @lattice, in page numbers): no reservation, no warning, one line. A
 * pattern of few runs stays reservations.
 */
static void test_cmdline_badram_lattice(void **state)
{
	static const char line[] = "badram=0x1000,0x1000 "
				   "badram=0x40000000,0xfffffffffff00000";

	(void)state;
	bootinfo_init(&bi, BOOT_SANDBOX);
	bootinfo_add_ram(&bi, pa(0), pa(2ULL << 30), 0);
	bootinfo_sanitise(&bi);
	sandbox_console_clear();
	badmem_apply_cmdline(&bi, line, sizeof(line));
	assert_int_equal(test_console_warnings(), 0);
	assert_true(test_console_contains(
		"badram=0x1000,0x1000: more than 256 runs of pages, kept as a "
		"pattern"));
	assert_int_equal(bi.lattice_count, 1);
	assert_int_equal(bi.lattice[0].mask, 1);
	assert_int_equal(bi.lattice[0].value, 1);
	/* The second: one run of 256 pages at 1 GiB, a reservation. */
	assert_int_equal(bad_pages(BADMEM_OPTION), 256);
	assert_true(test_has_reserved(&bi, 1ULL << 30, (1ULL << 30) + MiB,
				      "bad option"));
}

/*
 * bootinfo_claim() (x86_64's page tables past its pool are placed by it,
 * its trampoline page checked): a reservation, a carried bad range and a
 * lattice page each claim their bytes, by name, and say where the claim
 * ends; the bytes between are free; a reservation of the name ignored is
 * no claim.
 */
static void test_claimed(void **state)
{
	static const char line[] = "badram=0x5000,0x1f000";
	static const struct handover_range carried[] = {{0x200000, 0x203000},
							{0x300000, 0x301000}};
	struct bi_handover_bad *b = &bi.handover.bad[0];
	uint64_t skip = 0;

	(void)state;
	bootinfo_init(&bi, BOOT_SANDBOX);
	bootinfo_add_ram(&bi, pa(0), pa(1ULL << 30), 0);
	bootinfo_sanitise(&bi);
	badmem_apply_cmdline(&bi, line, sizeof(line));
	assert_int_equal(bi.lattice_count, 1);
	bootinfo_add_reserved(&bi, pa(0x100000), pa(0x108000), "kernel");
	*b = (struct bi_handover_bad){
		.view = {.head = (const uint8_t *)carried,
			 .size = sizeof(carried)},
		.count = 2,
		.source = HANDOVER_BAD_MCE,
	};
	bi.handover.bad_recs = 1;
	bi.handover.bad_count = 2;
	bi.carried = true;

	assert_string_equal(
		bootinfo_claim(&bi, 0x107000, 0x109000, NULL, &skip), "kernel");
	assert_int_equal(skip, 0x108000);
	assert_null(bootinfo_claim(&bi, 0x100000, 0x105000, "kernel", &skip));
	/* [0x108000, 0x125000): clear up to the lattice's page 0x125. */
	assert_null(bootinfo_claim(&bi, 0x108000, 0x125000, NULL, &skip));
	assert_string_equal(
		bootinfo_claim(&bi, 0x108000, 0x125001, NULL, &skip),
		"a page of a badram= pattern");
	assert_int_equal(skip, 0x126000);
	assert_string_equal(
		bootinfo_claim(&bi, 0x1ff000, 0x200001, NULL, &skip),
		"a bad page the handover carried");
	assert_int_equal(skip, 0x203000);
	assert_null(bootinfo_claim(&bi, 0x203000, 0x205000, NULL, &skip));
	assert_non_null(bootinfo_claim(&bi, 0x2ff000, 0x301000, NULL, &skip));
	assert_int_equal(skip, 0x301000);
	/* Carried records only count while the handover's are carried. */
	bi.carried = false;
	assert_null(bootinfo_claim(&bi, 0x200000, 0x203000, NULL, &skip));

	/* A room reserved around every claim: the kernel, a lattice page. */
	bootinfo_add_room(&bi, pa(0x100000), pa(0x140000), "image room");
	assert_true(test_has_reserved(&bi, 0x108000, 0x125000, "image room"));
	assert_true(test_has_reserved(&bi, 0x126000, 0x140000, "image room"));
	assert_string_equal(
		bootinfo_claim(&bi, 0x125000, 0x126000, "image room", &skip),
		"a page of a badram= pattern");
}

/*
 * Past BOOTINFO_LATTICE_MAX patterns (16 of a page in 16 here), a dense
 * one is reservations again, bounded: every odd page of 1 GiB (131,072
 * runs): 65,536 runs taken, then the rest of the RAM withheld whole from
 * its next match on, with one warning; never fewer pages out of service
 * than the mask names.
 */
static void test_cmdline_badram_bound(void **state)
{
	static char line[1024];
	size_t at = 0;
	uint64_t pages;

	(void)state;
	for (unsigned int v = 0; v < BOOTINFO_LATTICE_MAX; v++)
		at += (size_t)snprintf(line + at, sizeof(line) - at,
				       "badram=%#x,0xf000 ", v << 12);
	snprintf(line + at, sizeof(line) - at, "badram=0x1000,0x1000");
	bootinfo_init(&bi, BOOT_SANDBOX);
	bootinfo_add_ram(&bi, pa(0), pa(1ULL << 30), 0);
	bootinfo_sanitise(&bi);
	sandbox_console_clear();
	badmem_apply_cmdline(&bi, line, strlen(line));
	assert_int_equal(bi.lattice_count, BOOTINFO_LATTICE_MAX);
	assert_int_equal(test_console_warnings(), 1);
	assert_true(test_console_contains("names more than 65536 runs"));
	pages = bad_pages(BADMEM_OPTION);
	/* Odd pages 1..131071: 65,536 single pages, then [131073, end). */
	assert_int_equal(pages, 65536 + (262144 - 131073));
	assert_true(
		test_has_reserved(&bi, 131073 * PG, 1ULL << 30, "bad option"));
}

static void test_fwdesc_bad_lines(void **state)
{
	static const char fw[] = "ram 0 1G node=0\n"
				 "bad 0x1000 0x3000\n"
				 "bad 0x5000\n"
				 "bad 0x9000 0x8000\n"
				 "bad 0x2000000 0x2001000 extra\n";

	(void)state;
	bootinfo_init(&bi, BOOT_SANDBOX);
	sandbox_console_clear();
	fwdesc_parse(&bi, fw, strlen(fw));
	assert_int_equal(test_console_warnings(), 3);
	assert_int_equal(bad_pages(BADMEM_FIRMWARE), 2);
	assert_int_equal(bi.ram.count, 1); /* the RAM is the ram line's */
	/* badmem_boot(): firmware bad ranges outside RAM, one warning. */
	bootinfo_add_bad(&bi, pa(2ULL << 30), pa((2ULL << 30) + PG),
			 BADMEM_FIRMWARE, false, 0);
	bootinfo_sanitise(&bi);
	sandbox_console_clear();
	badmem_boot(&bi);
	assert_true(test_console_contains("firmware: 1 bad pages are not RAM"));
}

/*
 * badmem_boot()'s count of firmware bad pages outside RAM walks beside
 * RAM while the ranges come in order and searches again when one goes
 * back: RAM [1 GiB, 2 GiB) and [3 GiB, 4 GiB); ranges below, across
 * each hole, above, and out of order; 1 + 2 + 1 + 3 + 1 pages outside.
 */
static void test_firmware_outside_ram_walk(void **state)
{
	static const struct {
		uint64_t s, e;
	} r[] = {
		{0x3fff0000, 0x40001000},   /* 16 below, 1 in */
		{0x7ffff000, 0xc0002000},   /* the hole: 256 Ki */
		{0x100000000, 0x100003000}, /* 3 above */
		{0x40001000, 0x40002000},   /* back: in RAM */
		{0xbffff000, 0xc0001000},   /* 1 out, 1 in */
		{0x50000000, 0x50001000},   /* in RAM */
	};
	char want[96];

	(void)state;
	bootinfo_init(&bi, BOOT_SANDBOX);
	bootinfo_add_ram(&bi, pa(1ULL << 30), pa(2ULL << 30), 0);
	bootinfo_add_ram(&bi, pa(3ULL << 30), pa(4ULL << 30), 0);
	/* Not bad memory, outside RAM too: neither counted nor named. */
	bootinfo_add_reserved(&bi, pa(0x1000), pa(0x9000), "acpi");
	for (unsigned int i = 0; i < ARRAY_SIZE(r); i++) {
		bootinfo_add_bad(&bi, pa(r[i].s), pa(r[i].e), BADMEM_FIRMWARE,
				 false, 0);
		if (i == 1)
			bootinfo_add_reserved(&bi, pa(0x90000000),
					      pa(0xa0000000), "firmware");
	}
	bootinfo_sanitise(&bi);
	sandbox_console_clear();
	badmem_boot(&bi);
	/* 16 + (1 GiB / 4 KiB) + 3 + 1 = 262164 pages not RAM. */
	snprintf(want, sizeof(want),
		 "firmware: %u bad pages are not RAM, ignored (the first in "
		 "[0x3fff0000, 0x40001000))",
		 16 + 262144 + 3 + 1);
	assert_true(test_console_contains(want));
}

static void test_uefi_unusable(void **state)
{
	struct uefi_mem_desc d[2] = {
		{.type = UEFI_CONVENTIONAL,
		 .phys_start = 0x40000000,
		 .pages = 256,
		 .attribute = UEFI_MEMORY_WB},
		{.type = UEFI_UNUSABLE,
		 .phys_start = 0x40100000,
		 .pages = 2,
		 .attribute = UEFI_MEMORY_WB},
	};

	(void)state;
	bootinfo_init(&bi, BOOT_EFI);
	assert_int_equal(
		uefi_mmap_to_bootinfo(d, sizeof(d), sizeof(d[0]), &bi, NULL),
		0);
	/* RAM that failed: in RAM (merged with its neighbour) and bad. */
	assert_int_equal(bi.ram.count, 1);
	assert_int_equal(pa_val(bi.ram.regions[0].end), 0x40102000);
	assert_int_equal(bad_pages(BADMEM_FIRMWARE), 2);
}

static void test_names(void **state)
{
	(void)state;
	for (int s = 0; s < BADMEM_SOURCES; s++)
		assert_int_equal(badmem_region_source(badmem_region_name(
					 (enum badmem_source)s)),
				 s);
	assert_int_equal(badmem_region_source("bad"), -1);
	assert_int_equal(badmem_region_source("bad optionx"), -1);
	assert_int_equal(badmem_region_source("kernel"), -1);
	assert_int_equal(badmem_region_source(""), -1);
	assert_int_equal(badmem_region_source("bad "), -1);
	assert_int_equal(badmem_region_source("bad h"), -1);
	assert_int_equal(badmem_region_source("bad firmwar"), -1);
	assert_int_equal(badmem_region_source("bad-firmware"), -1);
	assert_int_equal(badmem_region_source("Bad firmware"), -1);
	/* Every key's first letter differs: the one compared is the one. */
	for (int a = 0; a < BADMEM_SOURCES; a++)
		for (int b = a + 1; b < BADMEM_SOURCES; b++)
			assert_true(
				badmem_source_key((enum badmem_source)a)[0] !=
				badmem_source_key((enum badmem_source)b)[0]);
	assert_string_equal(badmem_source_key(BADMEM_HANDOVER), "handover");
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, test_setup, test_teardown)
	const struct CMUnitTest tests[] = {
		T(test_badpage),
		T(test_badpage_malformed),
		T(test_memmap),
		T(test_memmap_other_forms),
		T(test_badram_syntax),
		T(test_badram_runs),
		T(test_badram_bound),
		T(test_cmdline),
		T(test_cmdline_badram_lattice),
		T(test_claimed),
		T(test_cmdline_badram_bound),
		T(test_fwdesc_bad_lines),
		T(test_firmware_outside_ram_walk),
		T(test_uefi_unusable),
		T(test_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
