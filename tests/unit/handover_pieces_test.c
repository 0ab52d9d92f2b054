// SPDX-License-Identifier: MIT
/*
 * A handover in pieces (version 7, HANDOVER_REC_PIECES): the reader
 * (boot/handover.c) takes the same domains, extents, preserved and bad
 * ranges from a handover spread over scattered pieces as from the same
 * records in one block, with entries cut by piece boundaries; and refuses,
 * before reading any byte past piece 0, pieces that are not ascending,
 * aligned, in RAM and clear of reserved memory. The pieces are cut here,
 * by hand, from a one-block handover (the writer's pieces are
 * handover_write's own test's): the two parses are compared, neither
 * trusted.
 *
 * The machine: RAM [0, 1G) on node 0 and [4G, 5G) on node 1; reserved
 * bios [0, 1M), kernel [1M, 3M), loader [LOADER, + 4 KiB) inside the
 * arena; the arena, [AR_PA, AR_PA + AR_SZ), backs the pieces.
 */
#include "common.h"
#include <keel/handover.h>
#include <keel/liveupdate.h>

#define AR_PA	0x20000000ull
#define AR_SZ	(512u << 10)
#define LOADER	(AR_PA + AR_SZ - 0x1000)
#define G4	0x100000000ull
#define FLAT_SZ (64u << 10)
#define NX	300 /* extents: 7,200 bytes, cut by 4 KiB pieces */
#define NBAD	700 /* packed bad ranges: 5,600 bytes */

static struct bootinfo bi;
static uint8_t arena[AR_SZ] __attribute__((aligned(1 << 16)));
static uint8_t flat[FLAT_SZ] __attribute__((aligned(4096)));
static uint8_t logical[FLAT_SZ + 4096];
static uint64_t flat_size, size;
static uint64_t piece[64];
static uint32_t pieces;

static void machine(void)
{
	bootinfo_init(&bi, BOOT_SANDBOX);
	bootinfo_add_ram(&bi, pa(0), pa(1ull << 30), 0);
	bootinfo_add_ram(&bi, pa(G4), pa(G4 + (1ull << 30)), 1);
	bootinfo_add_reserved(&bi, pa(0), pa(1 << 20), "bios");
	bootinfo_add_reserved(&bi, pa(1 << 20), pa(3 << 20), "kernel");
	bootinfo_add_reserved(&bi, pa(LOADER), pa(LOADER + 0x1000), "loader");
	bootinfo_add_cpu(&bi, 0, 0, 0, 0, 0, true);
	bi.cpus[0].boot_cpu = true;
	bootinfo_sanitise(&bi);
}

static void domain(struct ho_writer *w, uint16_t id, uint32_t node,
		   uint64_t root)
{
	struct handover_domain d;

	memset(&d, 0, sizeof(d));
	d.id = id;
	d.node = node;
	snprintf(d.name, sizeof(d.name), "dom%u", id);
	d.p2m_root = root;
	d.p2m_format = HANDOVER_P2M_VMSA;
	d.p2m_ipa_bits = 40;
	ho_domain_begin(w, &d);
}

/*
 * Bad pages [0x30000000 + 2k pages) (not touching: one range each), then
 * domain 1: a table page, @nx one-page extents, every other page from
 * 0x10000000; domain 2: one 1 GiB extent on node 1; a vCPU of domain 1
 * when @vcpu (arm64's state, pc 0x800, EL1h).
 */
static uint64_t write_flat(unsigned int nx, unsigned int nbad, bool vcpu)
{
	struct handover_header hd = {.generation = 1, .written_ticks = 300};
	struct handover_vcpu v = {.domain = 1,
				  .arch = HANDOVER_VCPU_ARM64,
				  .state_bytes = HANDOVER_ARM64_STATE_BYTES,
				  .stop_ticks = 250};
	static uint8_t st[HANDOVER_ARM64_STATE_BYTES];
	uint64_t pc = 0x800, psr = 0x3c5;
	struct ho_writer w;

	memset(flat, 0, sizeof(flat));
	ho_writer_init(&w, flat, sizeof(flat));
	ho_bad_begin(&w, HANDOVER_BAD_MCE);
	for (unsigned int k = 0; k < nbad; k++)
		ho_bad_range(&w, 0x30000000 + k * 0x2000ull,
			     0x30000000 + k * 0x2000ull + 0x1000);
	ho_bad_end(&w);
	domain(&w, 1, 0, 0x0f000000);
	ho_domain_table(&w, 0x0f000000, 0x0f001000);
	for (unsigned int k = 0; k < nx; k++)
		ho_domain_extent(&w, k * 0x1000ull, 0x10000000 + k * 0x2000ull,
				 1);
	ho_domain_end(&w);
	domain(&w, 2, 1, 0x0f100000);
	ho_domain_table(&w, 0x0f100000, 0x0f101000);
	ho_domain_extent(&w, 0, G4, 1 << 18);
	ho_domain_end(&w);
	if (vcpu) {
		memset(st, 0xa5, sizeof(st));
		memcpy(st + HANDOVER_ARM64_PC, &pc, sizeof(pc));
		memcpy(st + HANDOVER_ARM64_PSTATE, &psr, sizeof(psr));
		ho_vcpu(&w, &v, st);
	}
	ho_preserved(&w);
	return ho_finish(&w, &hd);
}

/* Piece @k's address: 2^@shift aligned, a gap of @gap pieces between. */
static uint64_t place(uint32_t k, unsigned int shift, unsigned int gap)
{
	return AR_PA + ((uint64_t)k * (1 + gap) << shift);
}

/*
 * The flat handover cut into pieces of 2^@shift: the pieces record after
 * the header, the records after it, the header's fields and checksum
 * made right (over the bytes in order, from a copy in one buffer), the
 * bytes copied to their pieces in the arena.
 */
static void cut(unsigned int shift, unsigned int gap)
{
	struct handover_header hd;
	struct handover_preserved p = {{HANDOVER_REC_PIECES, 0}, 0, 0};
	uint64_t bytes = 1ull << shift, n = 2, at = 0;

	while (ALIGN_UP(flat_size + sizeof(p) + n * 8, bytes) / bytes != n)
		n = ALIGN_UP(flat_size + sizeof(p) + n * 8, bytes) / bytes;
	assert_true(n <= 64 && sizeof(p) + n * 8 + 128 <= bytes);
	pieces = (uint32_t)n;
	size = flat_size + sizeof(p) + n * 8;
	p.head.bytes = (uint32_t)(sizeof(p) + n * 8);
	p.count = pieces;
	for (uint32_t k = 0; k < pieces; k++)
		piece[k] = place(k, shift, gap);
	memcpy(&hd, flat, sizeof(hd));
	hd.version = 7;
	hd.size = size;
	hd.record_count++;
	hd.piece_shift = shift;
	hd.piece_count = pieces;
	memset(logical, 0, sizeof(logical));
	memcpy(logical + 128, &p, sizeof(p));
	memcpy(logical + 128 + sizeof(p), piece, n * 8);
	memcpy(logical + 128 + p.head.bytes, flat + 128, flat_size - 128);
	hd.checksum = 0;
	memcpy(logical, &hd, sizeof(hd));
	hd.checksum = handover_checksum(logical, size);
	memcpy(logical, &hd, sizeof(hd));
	memset(arena, 0xee, sizeof(arena));
	for (uint32_t k = 0; k < pieces; k++, at += bytes)
		memcpy(arena + (piece[k] - AR_PA), logical + at,
		       MIN(bytes, size - at));
}

/* The header and the pieces record in piece 0, changed: checksum again. */
static void rewrite(const struct handover_header *hd,
		    const struct handover_preserved *p, const uint64_t *table)
{
	uint8_t *head = arena + (piece[0] - AR_PA);

	memcpy(logical, hd, sizeof(*hd));
	memcpy(logical + 128, p, sizeof(*p));
	memcpy(logical + 128 + sizeof(*p), table, pieces * 8ull);
	((struct handover_header *)(void *)logical)->checksum = 0;
	((struct handover_header *)(void *)logical)->checksum =
		handover_checksum(logical, size);
	memcpy(head, logical, 128 + sizeof(*p) + pieces * 8ull);
}

static int parse_at(uint64_t head_pa, uint64_t len)
{
	return handover_parse(&bi, arena + (head_pa - AR_PA), len, pa(head_pa));
}

static void refused_at(uint64_t len, const char *why)
{
	int err = parse_at(piece[0], len);

	if (err != -EINVAL || !strstr(bi.handover.why, why))
		fail_msg("expected a refusal naming \"%s\", got %d \"%s\"", why,
			 err, bi.handover.why);
	assert_int_equal(bi.handover.state, HANDOVER_REFUSED);
}

static int setup(void **state)
{
	machine();
	flat_size = write_flat(NX, NBAD, false);
	assert_true(flat_size > 3 * 4096);
	return test_setup(state);
}

/* Does an entry of @bytes at offsets from @off every @bytes cross 2^sh? */
static bool some_cut(uint64_t off, unsigned int count, unsigned int bytes,
		     unsigned int sh)
{
	for (unsigned int k = 0; k < count; k++, off += bytes)
		if (off >> sh != (off + bytes - 1) >> sh)
			return true;
	return false;
}

/* @h (from pieces) says what @one (from one block) does, entry by entry. */
static void same_as(const struct bi_handover *h, const struct bi_handover *one)
{
	assert_int_equal(h->domain_count, 2);
	assert_int_equal(h->bad_recs, 1);
	assert_int_equal(h->bad_count, NBAD);
	assert_int_equal(h->bad_pages, NBAD);
	assert_int_equal(h->preserved_count, one->preserved_count);
	assert_int_equal(h->preserved_bytes, one->preserved_bytes);
	for (unsigned int i = 0; i < h->preserved_count; i++) {
		struct handover_range a = handover_preserved_range(h, i);
		struct handover_range b = handover_preserved_range(one, i);

		assert_memory_equal(&a, &b, sizeof(a));
	}
	for (unsigned int i = 0; i < NBAD; i++) {
		struct handover_range r = handover_bad_range(&h->bad[0], i);

		assert_int_equal(r.start, 0x30000000 + i * 0x2000ull);
		assert_int_equal(r.end, r.start + 0x1000);
	}
	for (unsigned int d = 0; d < 2; d++) {
		const struct bi_handover_domain *a = &h->domains[d];
		const struct bi_handover_domain *b = &one->domains[d];

		assert_int_equal(a->extent_count, b->extent_count);
		assert_int_equal(a->bytes, b->bytes);
		assert_int_equal(handover_domain_tables(a, 0).start,
				 handover_domain_tables(b, 0).start);
		for (uint32_t i = 0; i < a->extent_count; i++) {
			struct handover_extent x = handover_domain_extent(a, i);
			struct handover_extent y = handover_domain_extent(b, i);

			assert_memory_equal(&x, &y, sizeof(x));
		}
	}
}

static void reserved_as_pieces(void);

static void test_round_trip(void **state)
{
	static struct bi_handover one;
	const struct bi_handover *h = &bi.handover;

	/* The one block, parsed where piece 0 will lie. */
	memcpy(arena, flat, flat_size);
	assert_int_equal(handover_parse(&bi, arena, flat_size, pa(AR_PA)), 0);
	one = bi.handover;
	/* one's views point into the arena, which cut() fills: flat's. */
	one.view.head = flat;
	for (unsigned int j = 0; j < one.bad_recs; j++)
		one.bad[j].view.head = flat;
	for (unsigned int d = 0; d < one.domain_count; d++)
		one.domains[d].view.head = flat;

	cut(12, 1);
	assert_true(pieces >= 4);
	assert_int_equal(parse_at(piece[0], 4096), 0);
	assert_int_equal(h->view.count, pieces);
	/* The walk really met entries cut in two. */
	assert_true(some_cut(h->domains[0].rec + 128 + 16, NX, 24, 12));
	/* The bad record runs on into the next piece (its entries, 8 bytes
	 * at 8-aligned offsets, are never cut). */
	assert_true(some_cut(h->bad[0].ranges, 1, NBAD * 8, 12));

	same_as(h, &one);
	assert_int_equal(handover_domain_extent(&h->domains[0], NX - 1).pa,
			 0x10000000 + (NX - 1) * 0x2000ull);
	reserved_as_pieces();
}

/* Applied: each piece reserved as the handover, nothing else. */
static void reserved_as_pieces(void)
{
	uint64_t bytes = 0;
	unsigned int n = 0;

	bi.handover.pa = pa(piece[0]);
	bi.handover.size = 4096;
	bi.handover.va = arena + (piece[0] - AR_PA);
	test_quiet_begin();
	handover_apply(&bi, false);
	test_quiet_end();
	assert_int_equal(bi.handover.state, HANDOVER_TAKEN);
	for (unsigned int i = 0; i < bi.reserved.count; i++) {
		const struct region *r = &bi.reserved.regions[i];

		if (strcmp(r->name, "handover"))
			continue;
		assert_int_equal(pa_val(r->start), piece[n]);
		bytes += pa_val(r->end) - pa_val(r->start);
		n++;
	}
	assert_int_equal(n, pieces);
	assert_int_equal(bytes, ALIGN_UP(size, 4096));
}

/* Piece @k said to lie at @to (its bytes left where they are): refused. */
static void moved(uint32_t k, uint64_t to, const char *why)
{
	struct handover_header hd;
	struct handover_preserved p;
	uint64_t t[64];

	cut(12, 1);
	memcpy(&hd, logical, sizeof(hd));
	memcpy(&p, logical + 128, sizeof(p));
	memcpy(t, piece, sizeof(t));
	t[k] = to;
	rewrite(&hd, &p, t);
	refused_at(4096, why);
}

static void test_table_rules(void **state)
{
	cut(12, 1);
	refused_at(4095, "truncated: piece 0 of 4096 bytes");
	/* Not ascending: piece 2 below piece 1. */
	moved(2, piece[1] - 0x2000, "piece 2 at");
	/* Piece 0 not where the arch said. */
	moved(0, piece[0] + 0x1000, "piece 0 at");
	/* The last piece outside RAM (never read: ASan would say). */
	moved(pieces - 1, 1ull << 30, "lies outside RAM");
	/* The last piece on the loader's data. */
	moved(pieces - 1, LOADER, "overlaps firmware-reserved");
	/* A piece not aligned to its 4 KiB. */
	moved(1, piece[1] + 0x800,
	      "piece 1 at 0x20002800 not aligned to its 2^12");
}

static void test_header_rules(void **state)
{
	struct handover_header hd;
	struct handover_preserved p;

	/* A piece count the size does not fill, one piece, a small shift. */
	cut(12, 1);
	memcpy(&hd, logical, sizeof(hd));
	memcpy(&p, logical + 128, sizeof(p));
	hd.piece_count = pieces + 1;
	rewrite(&hd, &p, piece);
	refused_at(4096, "piece_count");
	hd.piece_count = 1;
	rewrite(&hd, &p, piece);
	refused_at(4096, "piece_count 1");
	hd.piece_count = pieces;
	hd.piece_shift = 11;
	rewrite(&hd, &p, piece);
	refused_at(4096, "piece_count");
	/* Version 6 has no pieces. */
	hd.piece_shift = 12;
	hd.version = 6;
	rewrite(&hd, &p, piece);
	refused_at(4096, "in version 6 (reserved: 0)");
	/* The pieces record's count not the header's. */
	hd.version = 7;
	p.count = pieces - 1;
	rewrite(&hd, &p, piece);
	refused_at(4096, "the pieces record of");
	/* A byte of the last piece flipped: the checksum. */
	cut(12, 1);
	arena[piece[pieces - 1] - AR_PA + 5] ^= 1;
	refused_at(4096, "checksum");
	/* Valid again: taken. */
	cut(12, 1);
	assert_int_equal(parse_at(piece[0], 4096), 0);
}

/*
 * A vCPU's state is read in place: in one piece, taken (its bytes as
 * written); across two, refused (the writer pads before it).
 */
static void test_vcpu_in_one_piece(void **state)
{
	bool cut_seen = false, whole_seen = false;

	bi.handover.vcpu_arch = HANDOVER_VCPU_ARM64;
	bi.handover.vcpu_state_bytes = HANDOVER_ARM64_STATE_BYTES;
	for (unsigned int nx = 1; nx < 200 && !(cut_seen && whole_seen);
	     nx += 7) {
		uint64_t off = 0, vbytes = 48 + HANDOVER_ARM64_STATE_BYTES;
		bool across;

		flat_size = write_flat(nx, NBAD, true); /* over 4 KiB */
		cut(12, 1);
		for (off = 128; off < size;) { /* the vCPU record's offset */
			struct handover_rec r;

			memcpy(&r, logical + off, sizeof(r));
			if (r.type == HANDOVER_REC_VCPU)
				break;
			off += r.bytes;
		}
		assert_true(off < size);
		across = (off + 48) >> 12 != (off + vbytes - 1) >> 12;
		if (across) {
			refused_at(4096, "spans two pieces");
			cut_seen = true;
		} else {
			assert_int_equal(parse_at(piece[0], 4096), 0);
			assert_int_equal(bi.handover.vcpu_count, 1);
			assert_int_equal(bi.handover.vcpus[0].state[100], 0xa5);
			whole_seen = true;
		}
	}
	assert_true(cut_seen && whole_seen);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup, test_teardown)
	const struct CMUnitTest tests[] = {
		T(test_round_trip),
		T(test_table_rules),
		T(test_header_rules),
		T(test_vcpu_in_one_piece),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
