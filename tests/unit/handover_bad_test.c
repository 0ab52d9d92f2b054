// SPDX-License-Identifier: MIT
/*
 * The bad-page records of the live-update handover (include/keel/
 * handover.h, boot/handover_bad.c, the writer's ho_bad_*()): version 5
 * keeps each page's source, one record a source in ascending order, and
 * the reader reserves each range under its carried name ("bad handover
 * mce", ...); version 4's one record has no source ("bad handover");
 * version 6's writer packs them (HANDOVER_REC_BAD_PACKED, 8 bytes a range),
 * read as the same ranges as 16-byte ones (widen() writes those). Every
 * rule broken one at a time on a handover that is otherwise valid (the
 * checksum made right again), each refused with a reason that names the
 * field; a source the reader does not know is one warning, its ranges
 * still reserved as bad. The expected records are written out here, never
 * taken from the writer.
 *
 * The machine (as tests/unit/handover_test.c): RAM [0, 1G) on node 0 and
 * [4G, 5G) on node 1; reserved bios [0, 1M), kernel [1M, 3M); one domain
 * (tables [0x10000000, 0x10001000), an extent [0x10200000, 0x10400000));
 * the handover at 0x20000000.
 */
#include "common.h"
#include <keel/badmem.h>
#include <keel/handover.h>
#include <keel/liveupdate.h>

#define HO_PA  0x20000000ull
#define BUF_SZ 131072
#define G4     0x100000000ull

static struct bootinfo bi;
static uint8_t buf[BUF_SZ] __attribute__((aligned(4096)));
static uint64_t size;

static void machine(void)
{
	bootinfo_init(&bi, BOOT_SANDBOX);
	bootinfo_add_ram(&bi, pa(0), pa(1ull << 30), 0);
	bootinfo_add_ram(&bi, pa(G4), pa(G4 + (1ull << 30)), 1);
	bootinfo_add_reserved(&bi, pa(0), pa(1 << 20), "bios");
	bootinfo_add_reserved(&bi, pa(1 << 20), pa(3 << 20), "kernel");
	bootinfo_add_cpu(&bi, 0, 0, 0, 0, 0, true);
	bi.cpus[0].boot_cpu = true;
	bootinfo_sanitise(&bi);
}

/* A bad record of @source: pages [s, e) given as @n ranges of @step. */
struct bad_in {
	uint32_t source;
	uint64_t s, e;
};

/*
 * The domain, then the bad records @in[0..n) (each range given page by
 * page, last first: the writer sorts and joins). Return: the size.
 */
static uint64_t write_bad(const struct bad_in *in, unsigned int n)
{
	struct handover_header hd = {.generation = 1};
	struct handover_domain d;
	struct ho_writer w;

	memset(&d, 0, sizeof(d));
	d.id = 1;
	strcpy(d.name, "alpha");
	d.p2m_root = 0x10000000;
	d.p2m_format = HANDOVER_P2M_VMSA;
	d.p2m_ipa_bits = 40;
	memset(buf, 0, sizeof(buf));
	ho_writer_init(&w, buf, sizeof(buf));
	ho_domain_begin(&w, &d);
	ho_domain_table(&w, 0x10000000, 0x10001000);
	ho_domain_extent(&w, 0, 0x10200000, 512);
	ho_domain_end(&w);
	ho_preserved(&w);
	for (unsigned int i = 0; i < n;) {
		uint32_t src = in[i].source;

		ho_bad_begin(&w, src);
		for (; i < n && in[i].source == src; i++)
			for (uint64_t p = in[i].e; p > in[i].s; p -= 4096)
				ho_bad_range(&w, p - 4096, p);
		ho_bad_end(&w);
	}
	size = ho_finish(&w, &hd);
	return size;
}

static struct handover_header *hdr(void)
{
	return (struct handover_header *)(void *)buf;
}

static bool is_bad(uint32_t type)
{
	return type == HANDOVER_REC_BAD || type == HANDOVER_REC_BAD_PACKED;
}

/* The @nth bad record, of either type. */
static struct handover_preserved *rec(unsigned int nth)
{
	for (uint64_t off = HANDOVER_HEADER_BYTES; off < size;) {
		struct handover_rec *r = (void *)(buf + off);

		if (is_bad(r->type) && !nth--)
			return (void *)r;
		off += r->bytes;
	}
	fail_msg("no bad record %u", nth);
	return NULL;
}

/* Range @i of the @nth bad record, a 16-byte one. */
static struct handover_range *range(unsigned int nth, unsigned int i)
{
	assert_int_equal(rec(nth)->head.type, HANDOVER_REC_BAD);
	return (struct handover_range *)(void *)(rec(nth) + 1) + i;
}

/* Entry @i of the @nth bad record, a packed one. */
static uint64_t *entry(unsigned int nth, unsigned int i)
{
	assert_int_equal(rec(nth)->head.type, HANDOVER_REC_BAD_PACKED);
	return (uint64_t *)(void *)(rec(nth) + 1) + i;
}

/* A packed entry by hand: pages [@s, @s + @pages * 4 KiB). */
static uint64_t pk(uint64_t s, uint64_t pages)
{
	return s >> 12 | (pages - 1) << 40;
}

/*
 * The packed bad records whose index is in @mask written again as 16-byte
 * ones (HANDOVER_REC_BAD, what a version 5 writer wrote), decoded by hand,
 * the records after them moved on; the header's size follows.
 */
static void widen(unsigned int mask)
{
	static uint8_t out[BUF_SZ];
	uint64_t off = HANDOVER_HEADER_BYTES, o = off;
	unsigned int nth = 0;

	memcpy(out, buf, off);
	while (off < size) {
		struct handover_preserved p;

		memcpy(&p, buf + off, sizeof(p));
		if (p.head.type != HANDOVER_REC_BAD_PACKED ||
		    !(mask & 1u << nth)) {
			nth += is_bad(p.head.type);
			memcpy(out + o, buf + off, p.head.bytes);
			o += p.head.bytes;
			off += p.head.bytes;
			continue;
		}
		nth++;
		off += sizeof(p);
		p.head.type = HANDOVER_REC_BAD;
		p.head.bytes = sizeof(p) + p.count * 16;
		memcpy(out + o, &p, sizeof(p));
		o += sizeof(p);
		for (uint32_t i = 0; i < p.count; i++, off += 8, o += 16) {
			uint64_t v, r[2];

			memcpy(&v, buf + off, 8);
			r[0] = (v & 0xffffffffffull) * 4096;
			r[1] = r[0] + ((v >> 40) + 1) * 4096;
			memcpy(out + o, r, 16);
		}
	}
	assert_true(o <= BUF_SZ);
	memcpy(buf, out, o);
	size = o;
	hdr()->size = o;
}

/* write_bad(), its records 16 bytes a range. */
static uint64_t write_wide(const struct bad_in *in, unsigned int n)
{
	write_bad(in, n);
	widen(~0u);
	return size;
}

static void resum(void)
{
	hdr()->checksum = handover_checksum(buf, hdr()->size);
}

/* Refused, with @why in the reason, which begins "handover: ". */
static void refused(const char *why)
{
	int err;

	resum();
	err = handover_parse(&bi, buf, size, pa(HO_PA));
	if (err != -EINVAL || !strstr(bi.handover.why, why) ||
	    strncmp(bi.handover.why, "handover: ", 10))
		fail_msg("expected a refusal naming \"%s\", got %d \"%s\"", why,
			 err, bi.handover.why);
	assert_int_equal(bi.handover.state, HANDOVER_REFUSED);
}

static void apply(void)
{
	machine();
	resum();
	bi.handover.pa = pa(HO_PA);
	bi.handover.size = size;
	bi.handover.va = buf;
	test_quiet_begin();
	handover_apply(&bi, false);
	test_quiet_end();
}

/*
 * Reservations named @name: how many, and their bytes in *@bytes; the
 * list's and the carried ranges, which stay in the handover's records
 * (struct bootinfo's @carried) under their source's name.
 */
static unsigned int named(const char *name, uint64_t *bytes)
{
	const struct bi_handover *h = &bi.handover;
	unsigned int n = 0;

	*bytes = 0;
	for (unsigned int i = 0; i < bi.reserved.count; i++) {
		if (strcmp(bi.reserved.regions[i].name, name))
			continue;
		n++;
		*bytes += pa_val(bi.reserved.regions[i].end) -
			  pa_val(bi.reserved.regions[i].start);
	}
	for (unsigned int j = 0; bi.carried && j < h->bad_recs; j++) {
		if (strcmp(badmem_carried_name(
				   (enum badmem_source)handover_bad_source(
					   &h->bad[j])),
			   name))
			continue;
		for (unsigned int i = 0; i < h->bad[j].count; i++) {
			struct handover_range r =
				handover_bad_range(&h->bad[j], i);

			n++;
			*bytes += r.end - r.start;
		}
	}
	return n;
}

static const struct bad_in two[] = {
	{HANDOVER_BAD_MCE, 0x20001000, 0x20004000},
	{HANDOVER_BAD_MCE, G4 + 0x5000, G4 + 0x6000},
	/* touching the mce range: another source, another record */
	{HANDOVER_BAD_INJECTION, 0x20004000, 0x20005000},
	/* inside the domain's extent */
	{HANDOVER_BAD_INJECTION, 0x10201000, 0x10202000},
};

/* Version 5: a record a source, ascending, each range under its name. */
static void test_v5_round_trip(void **state)
{
	uint64_t bytes, counted = 0;

	(void)state;
	write_bad(two, ARRAY_SIZE(two));
	assert_int_equal(hdr()->version, 7);
	widen(~0u);
	hdr()->version = 5; /* as a version 5 writer wrote it */
	assert_int_equal(rec(0)->pad, HANDOVER_BAD_MCE);
	assert_int_equal(rec(0)->count, 2);
	assert_int_equal(range(0, 0)->start, 0x20001000);
	assert_int_equal(range(0, 0)->end, 0x20004000);
	assert_int_equal(range(0, 1)->start, G4 + 0x5000);
	assert_int_equal(rec(1)->pad, HANDOVER_BAD_INJECTION);
	assert_int_equal(rec(1)->count, 2);
	assert_int_equal(range(1, 0)->start, 0x10201000);
	assert_int_equal(range(1, 1)->start, 0x20004000);
	assert_int_equal(rec(1)->head.bytes, 16 + 2 * 16);

	apply();
	assert_int_equal(bi.handover.state, HANDOVER_TAKEN);
	assert_int_equal(bi.handover.bad_recs, 2);
	assert_int_equal(bi.handover.bad_count, 4);
	assert_int_equal(bi.handover.bad_pages, 6);
	assert_int_equal(test_console_warnings(), 0);
	assert_int_equal(named("bad handover mce", &bytes), 2);
	assert_int_equal(bytes, 4 * 4096);
	/* the page in the extent: "preserved" first, the domain's */
	assert_int_equal(named("bad handover injection", &bytes), 2);
	assert_int_equal(named("bad handover", &bytes), 0);
	for (unsigned int i = 0; i < bi.reserved.count; i++)
		if (badmem_region_carried(bi.reserved.regions[i].name))
			counted++;
		else if (!strcmp(bi.reserved.regions[i].name, "preserved"))
			assert_true(i < bi.carried_at); /* preserved first */
	/* Not copied into the list: read where they are. */
	assert_int_equal(counted, 0);
	assert_true(bi.carried);
	assert_int_equal(bootinfo_carried(&bi, &bytes), 4);
	assert_int_equal(bytes, 6 * 4096);
	assert_int_equal(badmem_region_source("bad handover mce"), BADMEM_MCE);
	assert_int_equal(badmem_region_source("bad handover injection"),
			 BADMEM_INJECTION);
	assert_int_equal(badmem_region_source("bad handover"), BADMEM_HANDOVER);
	assert_false(badmem_region_carried("bad mce"));
}

/* Version 4: one record, its source word not read: "bad handover". */
static void test_v4(void **state)
{
	uint64_t bytes;

	(void)state;
	write_wide(two, 2);
	hdr()->version = 4;
	apply();
	assert_int_equal(bi.handover.state, HANDOVER_TAKEN);
	assert_int_equal(bi.handover.bad_recs, 1);
	assert_int_equal(bi.handover.bad[0].source, HANDOVER_BAD_UNKNOWN);
	assert_int_equal(named("bad handover", &bytes), 2);
	assert_int_equal(bytes, 4 * 4096);
	assert_int_equal(named("bad handover mce", &bytes), 0);
	assert_int_equal(test_console_warnings(), 0);

	write_wide(two, ARRAY_SIZE(two));
	hdr()->version = 4;
	machine();
	refused("record 3: bad[1]: source 4 after source 4 (version 4: one "
		"record)");
	write_wide(two, 1);
	hdr()->version = 3;
	machine();
	refused("type 4 (bad pages) not in version 3");
}

/* A source this reader does not know: one warning, reserved all the same. */
static void test_unknown_source(void **state)
{
	const struct bad_in odd[] = {
		{HANDOVER_BAD_MCE, 0x20001000, 0x20002000},
		{9, 0x20008000, 0x2000a000},
		{10, 0x2000c000, 0x2000d000},
	};
	uint64_t bytes;

	(void)state;
	write_bad(odd, ARRAY_SIZE(odd));
	apply();
	assert_int_equal(bi.handover.state, HANDOVER_TAKEN);
	assert_int_equal(bi.handover.bad_pages, 4);
	assert_int_equal(named("bad handover", &bytes), 2);
	assert_int_equal(bytes, 3 * 4096);
	assert_int_equal(named("bad handover mce", &bytes), 1);
	assert_int_equal(test_console_warnings(), 1);
	assert_true(test_console_contains(
		"keel: warning: handover: bad-page source 9 unknown (2 "
		"records): their pages reserved as bad all the same"));
}

static void v5(void)
{
	machine();
	write_wide(two, ARRAY_SIZE(two));
}

/* Each rule of a version 5 record, broken alone. */
static void test_rules(void **state)
{
	(void)state;
	v5();
	rec(1)->pad = HANDOVER_BAD_OPTION; /* after mce */
	refused("bad[1]: source 1 after source 2");
	v5();
	rec(1)->pad = HANDOVER_BAD_MCE; /* twice */
	refused("bad[1]: source 2 after source 2");
	v5();
	range(1, 1)->start = 0x20003000; /* into the mce range */
	refused("bad[1][1] [0x20003000, 0x20005000) overlaps a range of "
		"bad[0]");
	v5();
	range(0, 0)->start += 8;
	refused("bad[0][0] [0x20001008, 0x20004000) empty or not page "
		"aligned");
	v5();
	range(0, 1)->start = range(0, 0)->end;
	refused("bad[0][1] [0x20004000, 0x100006000) touches or precedes "
		"bad[0][0]");
	v5();
	range(0, 1)->start = 1ull << 30;
	range(0, 1)->end = (1ull << 30) + 4096;
	refused("bad[0][1] [0x40000000, 0x40001000) lies outside RAM at "
		"0x40000000");
	v5();
	rec(0)->count = 3;
	refused("bad count 3 does not fill its 48 bytes (16 a range)");
}

/*
 * Several ranges in one RAM range (the reader checks those after the
 * first against that RAM range alone): the last one ends at the RAM
 * range's end, and the pages add up; then that one crosses the end, a
 * page into the hole, and is refused there.
 */
static const struct bad_in runs[] = {
	{HANDOVER_BAD_MCE, 0x20001000, 0x20002000},
	{HANDOVER_BAD_MCE, 0x20003000, 0x20005000},
	{HANDOVER_BAD_MCE, 0x3ffff000, 0x40000000},
	{HANDOVER_BAD_MCE, G4 + 0x1000, G4 + 0x2000},
};

static void test_ram_runs(void **state)
{
	(void)state;
	machine();
	write_wide(runs, ARRAY_SIZE(runs));
	resum();
	assert_int_equal(handover_parse(&bi, buf, size, pa(HO_PA)), 0);
	assert_int_equal(bi.handover.bad_count, 4);
	assert_int_equal(bi.handover.bad_pages, 5);
	range(0, 2)->end = 0x40001000;
	refused("bad[0][2] [0x3ffff000, 0x40001000) lies outside RAM at "
		"0x40000000");
}

/* More records than HANDOVER_BAD_RECS_MAX (ascending unknown sources). */
static void test_too_many(void **state)
{
	struct bad_in many[HANDOVER_BAD_RECS_MAX + 1];

	(void)state;
	for (unsigned int i = 0; i < ARRAY_SIZE(many); i++)
		many[i] = (struct bad_in){i, 0x20001000 + i * 0x2000ull,
					  0x20002000 + i * 0x2000ull};
	machine();
	write_bad(many, ARRAY_SIZE(many));
	refused("more than 8 bad-page records");
	machine();
	write_bad(many, HANDOVER_BAD_RECS_MAX);
	resum();
	test_quiet_begin();
	assert_int_equal(handover_parse(&bi, buf, size, pa(HO_PA)), 0);
	test_quiet_end();
	assert_int_equal(bi.handover.bad_unknown, HANDOVER_BAD_RECS_MAX - 5);
	assert_int_equal(bi.handover.bad_unknown_first, 5);
}

/* Nothing bad: no record; the writer's count equals what it writes. */
static void test_none(void **state)
{
	struct ho_writer w;

	(void)state;
	ho_writer_init(&w, NULL, 0);
	for (uint32_t s = 0; s <= HANDOVER_BAD_UNKNOWN; s++) {
		ho_bad_begin(&w, s);
		ho_bad_end(&w);
	}
	assert_int_equal(w.records, 0);
	assert_int_equal(ho_finish(&w, hdr()), HANDOVER_HEADER_BYTES);
}

static int setup(void **state)
{
	machine();
	return test_setup(state);
}

/*
 * A record of more ranges than the reader checks beside one piece of its
 * checksum (boot/handover_bad.c, CHECK_CHUNK: 1,024): all taken, their
 * pages counted; and each rule broken at the pieces' edges (the first
 * range of the second piece, the last of the first, the last of the
 * second), refused naming that range as the plain walk named it.
 */
static void test_many_pieces(void **state)
{
	enum { N = 2500 };
	static struct bad_in many[N];
	uint64_t at;

	(void)state;
	for (unsigned int i = 0; i < N; i++)
		many[i] = (struct bad_in){HANDOVER_BAD_MCE,
					  0x30000000 + i * 0x2000ull,
					  0x30001000 + i * 0x2000ull};
	write_wide(many, N);
	resum();
	assert_int_equal(handover_parse(&bi, buf, size, pa(HO_PA)), 0);
	assert_int_equal(bi.handover.bad_pages, N);
	assert_int_equal(bi.handover.bad_count, N);

	range(0, 1024)->start += 0x800;
	refused("bad[0][1024] [0x30800800, 0x30801000) empty or not page "
		"aligned");
	write_wide(many, N);
	range(0, 1023)->start = range(0, 1022)->start;
	refused("bad[0][1023] [0x307fc000, 0x307ff000) touches or precedes "
		"bad[0][1022]");
	write_wide(many, N);
	at = 2ull << 30; /* a hole between the two RAM ranges */
	range(0, 2047)->start = at;
	range(0, 2047)->end = at + 0x1000;
	refused("bad[0][2047] [0x80000000, 0x80001000) lies outside RAM at "
		"0x80000000");
}

/*
 * Version 6: the writer packs (8 bytes a range); the reader takes them
 * as the same ranges, pages and sources as the 16-byte records of the
 * same pages (the entries' values written out by hand).
 */
static void test_packed_round_trip(void **state)
{
	static struct handover_range got[2][2];
	uint64_t bytes;

	(void)state;
	write_bad(two, ARRAY_SIZE(two));
	assert_int_equal(hdr()->version, 7);
	assert_int_equal(rec(0)->pad, HANDOVER_BAD_MCE);
	assert_int_equal(rec(0)->count, 2);
	assert_int_equal(rec(0)->head.bytes, 16 + 2 * 8);
	assert_int_equal(*entry(0, 0), pk(0x20001000, 3));
	assert_int_equal(*entry(0, 1), pk(G4 + 0x5000, 1));
	assert_int_equal(rec(1)->pad, HANDOVER_BAD_INJECTION);
	assert_int_equal(*entry(1, 0), pk(0x10201000, 1));
	assert_int_equal(*entry(1, 1), pk(0x20004000, 1));
	apply();
	assert_int_equal(bi.handover.state, HANDOVER_TAKEN);
	assert_int_equal(test_console_warnings(), 0);
	assert_true(bi.handover.bad[0].packed && bi.handover.bad[1].packed);
	assert_int_equal(named("bad handover mce", &bytes), 2);
	assert_int_equal(bytes, 4 * 4096);
	assert_int_equal(bootinfo_carried(&bi, &bytes), 4);
	assert_int_equal(bytes, 6 * 4096);
	assert_int_equal(bi.handover.bad_recs, 2);
	assert_int_equal(bi.handover.bad_pages, 6);
	for (unsigned int j = 0; j < 2; j++) {
		assert_int_equal(bi.handover.bad[j].count, 2);
		for (unsigned int i = 0; i < 2; i++)
			got[j][i] = handover_bad_range(&bi.handover.bad[j], i);
	}

	write_wide(two, ARRAY_SIZE(two));
	apply();
	assert_int_equal(bi.handover.state, HANDOVER_TAKEN);
	assert_false(bi.handover.bad[0].packed);
	assert_int_equal(bi.handover.bad_recs, 2);
	assert_int_equal(bi.handover.bad_count, 4);
	assert_int_equal(bi.handover.bad_pages, 6);
	assert_int_equal(bi.handover.bad[0].source, HANDOVER_BAD_MCE);
	assert_int_equal(bi.handover.bad[1].source, HANDOVER_BAD_INJECTION);
	for (unsigned int j = 0; j < 2; j++) {
		for (unsigned int i = 0; i < 2; i++) {
			struct handover_range y =
				handover_bad_range(&bi.handover.bad[j], i);

			assert_int_equal(got[j][i].start, y.start);
			assert_int_equal(got[j][i].end, y.end);
		}
	}
	assert_int_equal(got[0][0].start, 0x20001000);
	assert_int_equal(got[0][0].end, 0x20004000);
	assert_int_equal(got[1][1].end, 0x20005000);
}

static void v6(void)
{
	machine();
	write_bad(two, ARRAY_SIZE(two));
}

/* Each rule of a packed record, broken alone. */
static void test_packed_rules(void **state)
{
	(void)state;
	v6();
	rec(0)->count = 3;
	refused("record 2: bad count 3 does not fill its 32 bytes (8 a "
		"range)");
	v6();
	*entry(0, 1) = pk(0x20000000, 1); /* before the first */
	refused("bad[0][1] [0x20000000, 0x20001000) touches or precedes "
		"bad[0][0]");
	v6();
	*entry(0, 1) = pk(0x20004000, 1); /* touching the first */
	refused("bad[0][1] [0x20004000, 0x20005000) touches or precedes "
		"bad[0][0]");
	v6();
	*entry(1, 1) = pk(0x20003000, 2); /* into the mce record's range */
	refused("bad[1][1] [0x20003000, 0x20005000) overlaps a range of "
		"bad[0]");
	v6();
	*entry(0, 1) = pk(1ull << 30, 1);
	refused("bad[0][1] [0x40000000, 0x40001000) lies outside RAM at "
		"0x40000000");
	v6();
	*entry(0, 1) = pk(G4 + (1ull << 30) - 0x1000, 2); /* past RAM's end */
	refused("bad[0][1] [0x13ffff000, 0x140001000) lies outside RAM at "
		"0x140000000");
	v6();
	hdr()->version = 5;
	refused("record 2: type 5 (packed bad pages) not in version 5 "
		"(version 6 on)");
	v6();
	hdr()->version = 3;
	refused("record 2: type 5 (packed bad pages) not in version 3 "
		"(version 6 on)");
	/* One source in a 16-byte and a packed record: twice. */
	v6();
	widen(1u << 0);
	assert_int_equal(rec(0)->head.type, HANDOVER_REC_BAD);
	rec(1)->pad = HANDOVER_BAD_MCE;
	refused("record 3: bad[1]: source 2 after source 2");
	v6();
	widen(1u << 1);
	assert_int_equal(rec(1)->head.type, HANDOVER_REC_BAD);
	rec(1)->pad = HANDOVER_BAD_MCE;
	refused("record 3: bad[1]: source 2 after source 2");
	/* and mixed, in order: taken */
	v6();
	widen(1u << 1);
	apply();
	assert_int_equal(bi.handover.state, HANDOVER_TAKEN);
	assert_true(bi.handover.bad[0].packed);
	assert_false(bi.handover.bad[1].packed);
	assert_int_equal(bi.handover.bad_pages, 6);
}

/* The fields' extremes: a pfn of 2^40 - 1, 2^24 pages (64 GiB). */
static void test_packed_decode(void **state)
{
	const uint64_t e[3] = {
		5 | ((1ull << 24) - 1) << 40,
		(1ull << 40) - 1,
		UINT64_MAX,
	};
	struct bi_handover_bad b = {
		.view = {.head = (const uint8_t *)e, .size = sizeof(e)},
		.count = 2,
		.packed = true};
	struct handover_range r;

	(void)state;
	r = handover_bad_range(&b, 0);
	assert_int_equal(r.start, 0x5000);
	assert_int_equal(r.end, 0x5000 + (64ull << 30));
	r = handover_bad_range(&b, 1);
	assert_int_equal(r.start, (1ull << 52) - 4096);
	assert_int_equal(r.end, 1ull << 52);
	r = handover_bad_range(&b, 2);
	assert_int_equal(r.start, (1ull << 52) - 4096);
	assert_int_equal(r.end, (1ull << 52) - 4096 + (64ull << 30));
	assert_int_equal(handover_bad_bound(&b, 0x6000, true), 0);
	assert_int_equal(handover_bad_bound(&b, 0x6000, false), 1);
	assert_int_equal(handover_bad_bound(&b, 0x5000 + (64ull << 30), true),
			 1);
	assert_int_equal(handover_bad_bound(&b, 1ull << 52, true), 2);
}

/*
 * A packed record of more ranges than one piece of the checksum's walk
 * (boot/handover_bad.c: 16 KiB, 2,048 packed ranges): all taken; each
 * rule broken at the pieces' edges, refused naming that range.
 */
static void test_packed_pieces(void **state)
{
	enum { N = 4500 };
	static struct bad_in many[N];

	(void)state;
	for (unsigned int i = 0; i < N; i++)
		many[i] = (struct bad_in){HANDOVER_BAD_MCE,
					  0x30000000 + i * 0x2000ull,
					  0x30001000 + i * 0x2000ull};
	write_bad(many, N);
	resum();
	assert_int_equal(handover_parse(&bi, buf, size, pa(HO_PA)), 0);
	assert_int_equal(bi.handover.bad_pages, N);
	assert_int_equal(bi.handover.bad_count, N);
	assert_true(bi.handover.bad[0].packed);

	*entry(0, 2048) = pk(0x30ffe000, 1); /* touches [2047] */
	refused("bad[0][2048] [0x30ffe000, 0x30fff000) touches or precedes "
		"bad[0][2047]");
	write_bad(many, N);
	*entry(0, 2047) = pk(0x30ffc000, 1);
	refused("bad[0][2047] [0x30ffc000, 0x30ffd000) touches or precedes "
		"bad[0][2046]");
	write_bad(many, N);
	*entry(0, 4095) = pk(2ull << 30, 1);
	*entry(0, 4096) = pk((2ull << 30) + 0x2000, 1);
	refused("bad[0][4095] [0x80000000, 0x80001000) lies outside RAM at "
		"0x80000000");
	/* Inside a piece, each rule broken alone, the range named. */
	write_bad(many, N);
	*entry(0, 3000) = pk(0x30000000 + 2999 * 0x2000ull, 1); /* = [2999] */
	refused("bad[0][3000] [0x3176e000, 0x3176f000) touches or precedes "
		"bad[0][2999]");
	write_bad(many, N);
	*entry(0, 0) = pk(1ull << 30, 1); /* in the hole, then before [1] */
	refused("bad[0][0] [0x40000000, 0x40001000) lies outside RAM at "
		"0x40000000");
	write_bad(many, N);
	*entry(0, 1000) = pk(0x30000000 + 1000 * 0x2000ull, 2); /* on [1001] */
	refused("bad[0][1001] [0x307d2000, 0x307d3000) touches or precedes "
		"bad[0][1000]");
	/* Ranges on both sides of the RAM's hole, none in it: all taken. */
	for (unsigned int i = 2100; i < N; i++)
		many[i] = (struct bad_in){HANDOVER_BAD_MCE, G4 + i * 0x2000ull,
					  G4 + 0x1000 + i * 0x2000ull};
	write_bad(many, N);
	resum();
	assert_int_equal(handover_parse(&bi, buf, size, pa(HO_PA)), 0);
	assert_int_equal(bi.handover.bad_pages, N);
	/* and one of them across the hole's start: named. */
	*entry(0, 2099) = pk((1ull << 30) - 0x1000, 2);
	refused("bad[0][2099] [0x3ffff000, 0x40001000) lies outside RAM at "
		"0x40000000");
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup, test_teardown)
	const struct CMUnitTest tests[] = {
		T(test_v5_round_trip),
		T(test_v4),
		T(test_unknown_source),
		T(test_rules),
		T(test_ram_runs),
		T(test_too_many),
		T(test_none),
		T(test_many_pieces),
		T(test_packed_round_trip),
		T(test_packed_rules),
		T(test_packed_decode),
		T(test_packed_pieces),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
