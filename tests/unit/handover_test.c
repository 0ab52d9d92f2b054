// SPDX-License-Identifier: MIT
/*
 * The live-update handover (include/keel/handover.h): the writer
 * (common/liveupdate/handover_write.c) and the fail-closed reader
 * (boot/handover.c) round trip, and every rule of the reader broken one at
 * a time on a handover that is otherwise valid (the checksum made right
 * again after each change, unless the checksum is the rule), each refused
 * with a reason that names the field. The expected preserved ranges and
 * descriptors are written out here from the domains the test describes,
 * never taken from the writer.
 *
 * The machine: RAM [0, 1G) on node 0 and [4G, 5G) on node 1; reserved
 * bios [0, 1M), kernel [1M, 3M) (the new image), static-mem [0x30000000,
 * 0x30100000); the handover at 0x20000000.
 */
#include "common.h"
#include <keel/handover.h>
#include <keel/liveupdate.h>

#include "../../common/liveupdate/lu_priv.h"

#define HO_PA  0x20000000ull
#define BUF_SZ 16384
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
	bootinfo_add_reserved(&bi, pa(0x30000000), pa(0x30100000),
			      "static-mem");
	bootinfo_add_cpu(&bi, 0, 0, 0, 0, 0, true);
	bi.cpus[0].boot_cpu = true;
	bootinfo_sanitise(&bi);
}

static void domain(struct ho_writer *w, uint16_t id, const char *name,
		   uint32_t node, uint64_t root)
{
	struct handover_domain d;

	memset(&d, 0, sizeof(d));
	d.id = id;
	d.node = node;
	strcpy(d.name, name);
	d.p2m_root = root;
	d.p2m_format = HANDOVER_P2M_VMSA;
	d.p2m_start_level = 0;
	d.p2m_ipa_bits = 40;
	ho_domain_begin(w, &d);
}

/* A frame table placement record for write_all() to write (ft_n: none). */
static const struct handover_ft_piece ft_in[3] = {
	{0x3ff00000 - 0x41000, 0x3ff00000 - 0x40000, HANDOVER_FT_SECTIONS, 0},
	{0x3fe00000, 0x3ff00000 - 0x41000, 0, 0},
	{G4 + (1ull << 30) - (8 << 20), G4 + (1ull << 30), 1, 0},
};
static unsigned int ft_n;

/*
 * alpha (id 1, node 0): tables [0x10000000, 0x10003000) given as two
 * pieces, extents 2 MiB + 2 MiB contiguous (one extent) and 4 KiB;
 * beta (id 2, node 1): one table page, one 1 GiB extent at 4G + 0.
 */
static uint64_t write_all(uint8_t *b, uint64_t cap)
{
	struct handover_header hd = {0};
	struct ho_writer w;

	ho_writer_init(&w, b, cap);
	domain(&w, 1, "alpha", 0, 0x10000000);
	ho_domain_table(&w, 0x10000000, 0x10001000);
	ho_domain_table(&w, 0x10001000, 0x10003000);
	ho_domain_extent(&w, 0, 0x10200000, 512);
	ho_domain_extent(&w, 2 << 20, 0x10400000, 512);
	ho_domain_extent(&w, 4 << 20, 0x11000000, 1);
	ho_domain_end(&w);
	domain(&w, 2, "beta", 1, 0x3ff00000);
	ho_domain_table(&w, 0x3ff00000, 0x3ff01000);
	ho_domain_extent(&w, 0, G4, 1 << 18);
	ho_domain_end(&w);
	ho_ft_place(&w, ft_in, ft_n);
	ho_preserved(&w);
	hd.generation = 1;
	hd.build = 0x1122334455667788ull;
	hd.freeze_ticks = 100;
	hd.frozen_ticks = 200;
	hd.written_ticks = 300;
	return ho_finish(&w, &hd);
}

static int setup(void **state)
{
	machine();
	memset(buf, 0, sizeof(buf));
	size = write_all(buf, sizeof(buf));
	return test_setup(state);
}

static struct handover_header *hdr(void)
{
	return (struct handover_header *)(void *)buf;
}

/* The record of @type, the @nth of it. */
static uint8_t *record(uint32_t type, unsigned int nth)
{
	for (uint64_t off = HANDOVER_HEADER_BYTES; off < size;) {
		struct handover_rec *r = (void *)(buf + off);

		if (r->type == type && !nth--)
			return buf + off;
		off += r->bytes;
	}
	fail_msg("no record of type %u", type);
	return NULL;
}

static struct handover_range *pres(unsigned int i)
{
	return (struct handover_range *)(void *)(record(HANDOVER_REC_PRESERVED,
							0) +
						 16) +
	       i;
}

static struct handover_domain *dom(unsigned int n)
{
	return (void *)record(HANDOVER_REC_DOMAIN, n);
}

static struct handover_extent *dom_extent(unsigned int n, unsigned int i)
{
	struct handover_domain *d = dom(n);

	return (struct handover_extent *)(void *)((uint8_t *)(d + 1) +
						  d->table_count * 16) +
	       i;
}

static void resum(void)
{
	hdr()->checksum = handover_checksum(buf, hdr()->size);
}

static int parse(void)
{
	return handover_parse(&bi, buf, size, pa(HO_PA));
}

/* Refused, with @why in the reason, which begins "handover: ". */
static void refused(const char *why)
{
	int err = parse();

	if (err != -EINVAL || !strstr(bi.handover.why, why) ||
	    strncmp(bi.handover.why, "handover: ", 10))
		fail_msg("expected a refusal naming \"%s\", got %d \"%s\"", why,
			 err, bi.handover.why);
	assert_int_equal(bi.handover.state, HANDOVER_REFUSED);
}

static void test_round_trip(void **state)
{
	const struct bi_handover *h = &bi.handover;
	static const struct handover_range want[] = {
		{0x10000000, 0x10003000}, {0x10200000, 0x10600000},
		{0x11000000, 0x11001000}, {0x3ff00000, 0x3ff01000},
		{G4, G4 + (1ull << 30)},
	};
	struct handover_extent x;
	struct ho_writer w;

	ho_writer_init(&w, NULL, 0);
	assert_true(size > HANDOVER_HEADER_BYTES);
	assert_int_equal(parse(), 0);
	assert_int_equal(h->state, HANDOVER_TAKEN);
	assert_int_equal(h->hdr.generation, 1);
	assert_int_equal(h->hdr.build, 0x1122334455667788ull);
	assert_int_equal(h->hdr.size, size);
	assert_int_equal(h->hdr.written_ticks, 300);
	assert_int_equal(h->preserved_count, ARRAY_SIZE(want));
	for (unsigned int i = 0; i < ARRAY_SIZE(want); i++) {
		assert_int_equal(handover_preserved_range(h, i).start,
				 want[i].start);
		assert_int_equal(handover_preserved_range(h, i).end,
				 want[i].end);
	}
	assert_int_equal(h->preserved_bytes,
			 0x3000 + 0x400000 + 0x1000 + 0x1000 + (1ull << 30));
	assert_int_equal(h->domain_count, 2);
	assert_string_equal(h->domains[0].name, "alpha");
	assert_int_equal(h->domains[0].id, 1);
	assert_int_equal(h->domains[0].table_count, 1);	 /* merged */
	assert_int_equal(h->domains[0].extent_count, 2); /* merged */
	assert_int_equal(h->domains[0].bytes, (4 << 20) + 4096);
	assert_int_equal(pa_val(h->domains[0].root), 0x10000000);
	x = handover_domain_extent(&h->domains[0], 0);
	assert_int_equal(x.gpa, 0);
	assert_int_equal(x.pa, 0x10200000);
	assert_int_equal(x.pages, 1024);
	x = handover_domain_extent(&h->domains[0], 1);
	assert_int_equal(x.pa, 0x11000000);
	assert_int_equal(handover_domain_tables(&h->domains[0], 0).end,
			 0x10003000);
	assert_string_equal(h->domains[1].name, "beta");
	assert_int_equal(h->domains[1].node, 1);
	assert_int_equal(h->extent_count, 3);
	/* The counting pass is an upper bound of the written size. */
	assert_true(write_all(NULL, 0) >= size);
}

static void test_copy_round_trip(void **state)
{
	static uint8_t again[BUF_SZ] __attribute__((aligned(4096)));
	struct handover_header hd = {.generation = 2};
	struct ho_writer w;
	uint64_t n;

	assert_int_equal(parse(), 0);
	ho_writer_init(&w, again, sizeof(again));
	for (unsigned int i = 0; i < bi.handover.domain_count; i++)
		ho_domain_copy(&w, &bi.handover.domains[i].view,
			       bi.handover.domains[i].rec,
			       bi.handover.domains[i].rec_bytes);
	ho_preserved(&w);
	n = ho_finish(&w, &hd);
	/* The same records, the same preserved ranges: the same bytes. */
	assert_int_equal(n, size);
	assert_memory_equal(again + HANDOVER_HEADER_BYTES,
			    buf + HANDOVER_HEADER_BYTES,
			    size - HANDOVER_HEADER_BYTES);
}

static void test_writer_overflow(void **state)
{
	static uint8_t small[512] __attribute__((aligned(4096)));

	assert_int_equal(write_all(small, sizeof(small)), 0);
}

static void test_header_rules(void **state)
{
	uint64_t len = size;

	size = 100;
	refused("truncated: 100 bytes given");
	size = len;
	hdr()->size = size + 8;
	resum();
	refused("truncated: size");
	hdr()->size = size;
	hdr()->magic ^= 1;
	resum();
	refused("magic");
	hdr()->magic ^= 1;
	hdr()->version = HANDOVER_VERSION + 1;
	resum();
	refused("version 8 unknown (this image reads 1 to 7)");
	hdr()->version = 0;
	resum();
	refused("version 0 unknown");
	/* Versions 1 and 2, without vCPU counts or kernel names, still read. */
	hdr()->version = 1;
	resum();
	assert_int_equal(parse(), 0);
	hdr()->version = 2;
	resum();
	assert_int_equal(parse(), 0);
	hdr()->version = 3;
	buf[size - 3] ^= 0x10;
	refused("checksum");
	buf[size - 3] ^= 0x10;
	hdr()->flags = 4;
	resum();
	refused("flags 0x4");
	hdr()->flags = 0;
	hdr()->generation = 0;
	resum();
	refused("generation 0");
	hdr()->generation = 1;
	resum();
	assert_int_equal(parse(), 0);
	assert_int_equal(handover_parse(&bi, buf, size, pa(HO_PA + 8)),
			 -EINVAL);
	assert_non_null(strstr(bi.handover.why, "not page aligned"));
	assert_int_equal(handover_parse(&bi, buf, size, pa(2 << 20)), -EINVAL);
	assert_non_null(strstr(bi.handover.why, "overlaps the new image"));
	assert_int_equal(handover_parse(&bi, buf, size, pa(0x50000000)),
			 -EINVAL);
	assert_non_null(strstr(bi.handover.why, "outside RAM"));
}

static void test_record_rules(void **state)
{
	struct handover_rec *first = (void *)(buf + HANDOVER_HEADER_BYTES);
	uint32_t bytes = first->bytes, type = first->type;

	first->bytes = 12;
	resum();
	refused("record 0 bytes 12");
	first->bytes = bytes;
	first->type = 9;
	resum();
	refused("record 0: type 0x9 unknown");
	first->type = HANDOVER_REC_VCPU;
	resum();
	refused("vcpus[0]: state_bytes");
	/* An optional record it does not know is skipped. */
	first->type = HANDOVER_REC_OPTIONAL | 9;
	resum();
	assert_int_equal(parse(), 0);
	assert_int_equal(bi.handover.domain_count, 1);
	first->type = type;
	hdr()->record_count++;
	resum();
	refused("record 3 at offset");
	hdr()->record_count -= 2;
	resum();
	refused("bytes after the last of 2 records");
	hdr()->record_count++;
	/* A domain record where the preserved one was: none left. */
	((struct handover_rec *)(void *)record(HANDOVER_REC_PRESERVED, 0))
		->type = HANDOVER_REC_OPTIONAL | 7;
	resum();
	refused("no preserved record");
}

/*
 * The frame table's placement (HANDOVER_REC_FT_PLACE): read back as
 * written; an optional hint, so each malformed form is one warning and
 * skipped, the handover still taken with its domains.
 */
static void test_ft_place(void **state)
{
	const struct bi_handover *h = &bi.handover;
	struct handover_preserved *p;
	struct handover_ft_piece *f;
	static const struct {
		unsigned int k;
		struct handover_ft_piece f;
	} bad[] = {
		{1, {0x3fe00800, 0x3ff00000 - 0x41000, 0, 0}},
		{1, {0x3fe00000, 0x3fe00000, 0, 0}},
		{2, {G4, G4 + 4096, 0, 0}},
		{2, {G4, G4 + 4096, HANDOVER_FT_SECTIONS, 0}},
		{2, {G4, G4 + 4096, MAX_NUMNODES, 0}},
	};

	(void)state;
	ft_n = 3;
	size = write_all(buf, sizeof(buf));
	ft_n = 0;
	assert_int_equal(parse(), 0);
	assert_int_equal(h->ft_count, 3);
	for (unsigned int i = 0; i < 3; i++) {
		struct handover_ft_piece g = handover_ft_piece(h, i);

		assert_memory_equal(&g, &ft_in[i], sizeof(g));
	}
	p = (void *)record(HANDOVER_REC_FT_PLACE, 0);
	f = (struct handover_ft_piece *)(p + 1);
	for (unsigned int i = 0; i < ARRAY_SIZE(bad); i++) {
		struct handover_ft_piece keep = f[bad[i].k];

		f[bad[i].k] = bad[i].f;
		resum();
		test_quiet_begin();
		assert_int_equal(parse(), 0);
		assert_true(test_console_contains("frame table placement of "
						  "88 bytes skipped"));
		test_quiet_end();
		assert_int_equal(h->state, HANDOVER_TAKEN);
		assert_int_equal(h->domain_count, 2);
		assert_int_equal(h->ft_count, 0);
		f[bad[i].k] = keep;
	}
	p->count = 2;
	resum();
	test_quiet_begin();
	assert_int_equal(parse(), 0);
	assert_true(test_console_contains("its count does not fill its bytes"));
	test_quiet_end();
	assert_int_equal(h->ft_count, 0);
	p->count = 3;
	resum();
	assert_int_equal(parse(), 0);
	assert_int_equal(h->ft_count, 3);
}

static void test_preserved_rules(void **state)
{
	struct handover_range keep0 = *pres(0), keep1 = *pres(1);

	pres(0)->start += 0x800;
	resum();
	refused("preserved[0] [0x10000800, 0x10003000) not page aligned");
	*pres(0) = (struct handover_range){0x10003000, 0x10003000};
	resum();
	refused("preserved[0] [0x10003000, 0x10003000) empty");
	*pres(0) = keep0;
	pres(1)->start = 0x10002000;
	resum();
	refused("preserved[1] [0x10002000, 0x10600000) overlaps or precedes");
	*pres(1) = (struct handover_range){0x1000000, 0x1001000};
	resum();
	refused("preserved[1] [0x1000000, 0x1001000) overlaps or precedes");
	*pres(1) = keep1;
	pres(4)->end += 0x1000;
	resum();
	refused("preserved[4] [0x100000000, 0x140001000) lies outside RAM "
		"at 0x140000000");
	pres(4)->end -= 0x1000;
	*pres(0) = (struct handover_range){0x0, 0x1000};
	resum();
	refused("preserved[0] [0, 0x1000) overlaps firmware-reserved [0, "
		"0x100000) (bios)");
	*pres(0) = (struct handover_range){0x200000, 0x201000};
	resum();
	refused("overlaps the new image [0x100000, 0x300000) (kernel)");
	*pres(0) = (struct handover_range){HO_PA, HO_PA + 0x1000};
	resum();
	refused("overlaps the handover itself");
	/*
	 * Over xen,static-mem (a domain's own memory) is allowed: the
	 * ranges pass, and only beta's table, no longer preserved, fails.
	 */
	*pres(0) = keep0;
	*pres(3) = (struct handover_range){0x30000000, 0x30001000};
	resum();
	refused("domains[1] (beta): tables[0] [0x3ff00000, 0x3ff01000) not "
		"whole pages of the preserved ranges");
}

static void test_domain_rules(void **state)
{
	struct handover_domain keep = *dom(0);
	struct handover_extent x = *dom_extent(0, 0);

#define BREAK(stmt, why)        \
	do {                    \
		stmt;           \
		resum();        \
		refused(why);   \
		*dom(0) = keep; \
	} while (0)
	BREAK(dom(0)->extent_count++, "domains[0]: record of 192 bytes does "
				      "not hold its 1 table ranges, 3 "
				      "extents and 0 bytes of kernel name");
	BREAK(dom(0)->kernel_bytes = 64, "domains[0]: record of 192 bytes");
	BREAK(dom(0)->kernel_bytes = 8, "domains[0]: kernel_bytes 8 (0 or 64)");
	BREAK(dom(0)->vcpus = 70000, "domains[0]: vcpus 70000 (at most");
	BREAK(dom(0)->reserved = 1, "reserved 0x1 (0)");
	BREAK(dom(0)->vcpus = 2;
	      hdr()->version = 2,
	      "domains[0]: vcpus 2, kernel_bytes 0 in version 2");
	hdr()->version = 3;
	BREAK(memset(dom(0)->name, 'a', 64), "domains[0]: name not NUL");
	BREAK(dom(0)->id = 0, "domains[0] (alpha): id 0");
	BREAK(dom(1)->id = 1; keep = *dom(0), "domains[1] (beta): id 1 given "
					      "twice");
	dom(1)->id = 2;
	BREAK(dom(0)->origin = 2, "origin 2 unknown");
	BREAK(dom(0)->node = 5, "node 5 (the machine has 2)");
	BREAK(dom(0)->p2m_format = 7, "p2m_format 7 unknown");
	BREAK(dom(0)->p2m_root = 0x10003000,
	      "domains[0] (alpha): p2m_root 0x10003000 (order 0) outside");
	BREAK(dom(0)->p2m_root = 0x10000800, "p2m_root 0x10000800");
	BREAK(dom(0)->p2m_root_order = 3, "p2m_root 0x10000000 (order 3)");
	BREAK(dom(0)->bytes++, "domains[0] (alpha): bytes 4198401, its "
			       "extents hold 4198400");
	dom_extent(0, 0)->pa = 0x10100000;
	resum();
	refused("domains[0] (alpha): extent[0] [0x10100000, 0x10500000) "
		"outside the preserved ranges");
	dom_extent(0, 0)->pa = x.pa;
	dom_extent(0, 0)->pages = 0;
	resum();
	refused("extent[0] gpa 0 pa 0x10200000 pages 0 malformed");
	*dom_extent(0, 0) = x;
	resum();
	assert_int_equal(parse(), 0);
#undef BREAK
}

/*
 * Version 3: a dom0less domain's vCPU count and kernel module's name
 * (issue 36 section 6: a restored domain forgot both) round trip; a
 * name not NUL-terminated, or tables or extents after it, are refused.
 */
static void test_kernel_round_trip(void **state)
{
	struct handover_domain d = {.id = 1, .vcpus = 2};
	struct handover_header hd = {.generation = 1};
	struct ho_writer w;
	uint8_t *name;

	(void)state;
	strcpy(d.name, "domU1");
	d.p2m_root = 0x10000000;
	d.p2m_format = HANDOVER_P2M_VMSA;
	ho_writer_init(&w, buf, sizeof(buf));
	ho_domain_begin(&w, &d);
	ho_domain_table(&w, 0x10000000, 0x10001000);
	ho_domain_extent(&w, 0, 0x10200000, 16);
	ho_domain_kernel(&w, "module@0x4a000000");
	ho_domain_end(&w);
	ho_preserved(&w);
	size = ho_finish(&w, &hd);
	assert_int_equal(dom(0)->head.bytes, 128 + 16 + 24 + 64);
	assert_int_equal(parse(), 0);
	assert_int_equal(bi.handover.domains[0].vcpus, 2);
	assert_string_equal(bi.handover.domains[0].kernel, "module@0x4a000000");
	name = (uint8_t *)dom(0) + dom(0)->head.bytes - 64;
	memset(name, 'k', 64);
	resum();
	refused("domains[0] (domU1): kernel name not NUL-terminated");
	/* The name comes last: an extent after it is a writer's slip. */
	ho_writer_init(&w, buf, sizeof(buf));
	ho_domain_begin(&w, &d);
	ho_domain_kernel(&w, "k");
	ho_domain_extent(&w, 0, 0x10200000, 16);
	ho_domain_end(&w);
	assert_int_equal(ho_finish(&w, &hd), 0);
}

/* handover_apply(): what reaches bootinfo in each case. */
static unsigned int reserved_named(const char *name, uint64_t *bytes)
{
	unsigned int n = 0;

	*bytes = 0;
	for (unsigned int i = 0; i < bi.reserved.count; i++) {
		if (strcmp(bi.reserved.regions[i].name, name))
			continue;
		n++;
		*bytes += pa_val(bi.reserved.regions[i].end) -
			  pa_val(bi.reserved.regions[i].start);
	}
	return n;
}

static void apply(bool discard)
{
	bi.handover.pa = pa(HO_PA);
	bi.handover.size = size;
	bi.handover.va = buf;
	test_quiet_begin();
	handover_apply(&bi, discard);
	test_quiet_end();
}

static void test_apply(void **state)
{
	uint64_t bytes;

	apply(false);
	assert_int_equal(bi.handover.state, HANDOVER_TAKEN);
	assert_int_equal(reserved_named("preserved", &bytes), 5);
	assert_int_equal(bytes, bi.handover.preserved_bytes);
	assert_int_equal(reserved_named("handover", &bytes), 1);
	assert_int_equal(bytes, 4096);
	assert_int_equal(test_console_warnings(), 0);

	machine();
	apply(true);
	assert_int_equal(bi.handover.state, HANDOVER_DISCARDED);
	assert_int_equal(reserved_named("preserved", &bytes), 0);
	assert_true(test_console_contains("keel: warning: handover=discard: "));

	machine();
	buf[200] ^= 1;
	apply(false);
	assert_int_equal(bi.handover.state, HANDOVER_REFUSED);
	assert_int_equal(reserved_named("preserved", &bytes), 0);
	assert_int_equal(reserved_named("handover refused", &bytes), 1);
	assert_int_equal(bytes, G4 + (1ull << 30)); /* every byte of RAM */
	assert_true(test_console_contains("keel: error: handover: checksum"));

	machine();
	bi.handover.pa = pa(0x7ff00000);
	bi.handover.size = 4096;
	bi.handover.va = NULL;
	test_quiet_begin();
	handover_apply(&bi, false);
	test_quiet_end();
	assert_int_equal(bi.handover.state, HANDOVER_REFUSED);
	assert_non_null(strstr(bi.handover.why, "not in memory"));
}

/*
 * The reader leaves the reserved ranges in their order: bootmem names a
 * byte by the first range covering it, so a module inside xen,static-mem,
 * reserved before it, keeps its name across an update (the reader once
 * sorted them, and the module vanished into "static-mem").
 */
static void test_reserved_order(void **state)
{
	struct region before[8];
	unsigned int n;

	(void)state;
	bootinfo_init(&bi, BOOT_SANDBOX);
	bootinfo_add_ram(&bi, pa(0), pa(1ull << 30), 0);
	bootinfo_add_ram(&bi, pa(G4), pa(G4 + (1ull << 30)), 1);
	bootinfo_add_reserved(&bi, pa(0x30010000), pa(0x30020000),
			      "module:kernel");
	bootinfo_add_reserved(&bi, pa(1 << 20), pa(3 << 20), "kernel");
	bootinfo_add_reserved(&bi, pa(0x30000000), pa(0x30100000),
			      "static-mem");
	bootinfo_add_reserved(&bi, pa(0), pa(1 << 20), "bios");
	bootinfo_add_cpu(&bi, 0, 0, 0, 0, 0, true);
	bi.cpus[0].boot_cpu = true;
	bootinfo_sanitise(&bi);
	n = bi.reserved.count;
	assert_true(n <= ARRAY_SIZE(before));
	memcpy(before, bi.reserved.regions, n * sizeof(before[0]));
	assert_int_equal(parse(), 0);
	assert_int_equal(bi.reserved.count, n);
	assert_memory_equal(bi.reserved.regions, before, n * sizeof(before[0]));
	/* A preserved range on reserved ones is still found, in any order. */
	pres(0)->start = 0;
	resum();
	refused("preserved[0] [0, 0x10003000) overlaps the new image "
		"[0x100000, 0x300000) (kernel)");
}

static void test_no_handover(void **state)
{
	handover_apply(&bi, false);
	assert_int_equal(bi.handover.state, HANDOVER_NONE);
	assert_int_equal(bi.reserved.count, 3);
}

/*
 * The format as docs/liveupdate.md writes it: tests/fuzz/mkseeds.py packs
 * its seeds byte by byte from the document, with zlib's CRC-32; this
 * reader must take the valid one whole, the same as our writer's.
 */
static void test_python_seed(void **state)
{
	FILE *f = fopen("tests/fuzz/corpus/handover/class-two-domains", "rb");
	size_t n;

	assert_non_null(f);
	memset(buf, 0, sizeof(buf));
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	assert_int_equal(n, size);
	assert_int_equal(handover_parse(&bi, buf, n, pa(HO_PA)), 0);
	assert_int_equal(bi.handover.preserved_count, 5);
	assert_int_equal(bi.handover.domain_count, 2);
	/* Our writer's bytes but the header's stamps and checksum. */
	write_all(buf + 8192, 8192);
	assert_memory_equal(buf + HANDOVER_HEADER_BYTES,
			    buf + 8192 + HANDOVER_HEADER_BYTES,
			    n - HANDOVER_HEADER_BYTES);
	/* Its version 2 seed with a vCPU (arm64, 488 B: pc 0x800, EL1h). */
	f = fopen("tests/fuzz/corpus/handover/class-vcpu-v2", "rb");
	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	bi.handover.vcpu_arch = HANDOVER_VCPU_ARM64;
	bi.handover.vcpu_state_bytes = HANDOVER_ARM64_STATE_BYTES;
	assert_int_equal(handover_parse(&bi, buf, n, pa(HO_PA)), 0);
	assert_int_equal(bi.handover.vcpu_count, 1);
	assert_int_equal(bi.handover.vcpus[0].pages_walked, 1024);
	assert_int_equal(bi.handover.vcpus[0].state[63], 63);
}

/* The pages of an extent lu_extent_pages() gives, collected. */
struct pages_seen {
	uint64_t pa[64];
	unsigned int n;
};

static void seen_cb(uint16_t id, paddr_t p, void *arg)
{
	struct pages_seen *s = arg;

	(void)id;
	assert_true(s->n < 64);
	s->pa[s->n++] = pa_val(p);
}

/* The fill pattern: read back, and any other page or domain differs. */
static void test_pattern(void **state)
{
	struct lu_sample edges = {false, 0, NULL}, all = {true, 16 << 20, NULL};
	struct lu_tally t = {0, 0};
	struct pages_seen seen = {{0}, 0};
	uint64_t filled = 0;
	uint8_t *page;

	assert_int_equal(sandbox_ram_init(64 << 20), 0);
	/* By default a domain's first and last page: 2 of 256. */
	lu_extent_pages(&edges, 7, 0, 0x100000, 256, true, true, lu_fill_cb,
			&filled);
	assert_int_equal(filled, 2);
	lu_extent_pages(&edges, 7, 0, 0x100000, 256, true, true, lu_check_cb,
			&t);
	assert_int_equal(t.words, 1024);
	assert_int_equal(t.bad, 0);
	lu_extent_pages(&edges, 8, 0, 0x100000, 256, true, true, lu_check_cb,
			&t);
	assert_int_equal(t.bad, 1024);
	page = phys_to_virt(pa(0x100000 + 255 * PAGE_SIZE));
	memset(page + 8, 0, 16);
	t.bad = 0;
	lu_extent_pages(&edges, 7, 0, 0x100000, 256, true, true, lu_check_cb,
			&t);
	assert_int_equal(t.bad, 2);
	/* A middle extent by default: nothing; one page: once. */
	lu_extent_pages(&edges, 7, 0, 0x100000, 256, false, false, seen_cb,
			&seen);
	assert_int_equal(seen.n, 0);
	lu_extent_pages(&edges, 7, 0, 0x100000, 1, true, true, seen_cb, &seen);
	assert_int_equal(seen.n, 1);
	/* domain_fill=on: first, last, and at most one per 16 MiB window. */
	seen.n = 0;
	lu_extent_pages(&all, 7, 8 << 20, 0x200000, (40 << 20) >> PAGE_SHIFT,
			false, false, seen_cb, &seen);
	assert_true(seen.n >= 2 && seen.n <= 2 + 3);
	assert_int_equal(seen.pa[0], 0x200000);
	assert_int_equal(seen.pa[1], 0x200000 + (40 << 20) - PAGE_SIZE);
	for (unsigned int i = 2; i < seen.n; i++) {
		assert_true(seen.pa[i] > seen.pa[0] && seen.pa[i] < seen.pa[1]);
		assert_true(seen.pa[i] % PAGE_SIZE == 0);
	}
	/* The same extent, the same pages: the writer's are the reader's. */
	{
		struct pages_seen again = {{0}, 0};

		lu_extent_pages(&all, 7, 8 << 20, 0x200000,
				(40 << 20) >> PAGE_SHIFT, false, false, seen_cb,
				&again);
		assert_int_equal(again.n, seen.n);
		assert_memory_equal(again.pa, seen.pa,
				    seen.n * sizeof(seen.pa[0]));
	}
	sandbox_ram_fini();
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup, test_teardown)
	const struct CMUnitTest tests[] = {
		T(test_round_trip),	   T(test_copy_round_trip),
		T(test_writer_overflow),   T(test_header_rules),
		T(test_record_rules),	   T(test_preserved_rules),
		T(test_domain_rules),	   T(test_apply),
		T(test_no_handover),	   T(test_reserved_order),
		T(test_kernel_round_trip), T(test_pattern),
		T(test_python_seed),	   T(test_ft_place),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
