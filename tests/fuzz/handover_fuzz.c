/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: handover_parse() (boot/handover.c), the live-update
 * reader, over the input as the handover at 0x20000000 of a fixed machine
 * (RAM [0, 1G) node 0 and [4G, 5G) node 1; bios and kernel reserved below
 * 3M). Twice: as given (the checksum almost never matches, so this walks
 * the header checks), then a copy with the checksum made right, so that
 * the fuzzer reaches the records. libFuzzer's buffer is exactly @size
 * bytes: ASan catches any read past it. A handover taken must keep what
 * the reader promises: preserved ranges sorted, disjoint, page aligned,
 * in RAM, off the reserved ranges; every extent and table range inside
 * them; every root inside its tables; every vCPU naming a domain record,
 * a CPU of the machine and its arch's tag and size; the frame table's
 * placement inside the bytes, each piece page aligned and not empty.
 * A third time in pieces (version 7): on a second machine whose RAM is
 * all backed here, [AR_PA, AR_PA + AR_SZ), the input laid at AR_PA, its
 * checksum made right over the pieces its header and pieces record name
 * when they all lie in that RAM: a taken handover's pieces lie in RAM,
 * ascending, and nothing preserved is on one. The input is also a new
 * image's file for the header parsers of boot/handover_image.c, whose
 * result must lie inside the file.
 */
#include <keel/handover.h>

#include "fuzz_util.h"

#define HO_PA 0x20000000ull
#define G4    0x100000000ull
#define AR_PA 0x40000000ull
#define AR_SZ (1u << 20)

static struct bootinfo bi, bi_pieces;
static uint8_t copy[HANDOVER_MAX_BYTES / 64];
static uint8_t arena[AR_SZ] __attribute__((aligned(1 << 20)));
static size_t arena_dirty;

static void machine(void)
{
	bootinfo_early_pool_reset();
	bootinfo_init(&bi, BOOT_SANDBOX);
	bootinfo_add_ram(&bi, pa(0), pa(1ull << 30), 0);
	bootinfo_add_ram(&bi, pa(G4), pa(G4 + (1ull << 30)), 1);
	bootinfo_add_reserved(&bi, pa(0), pa(1 << 20), "bios");
	bootinfo_add_reserved(&bi, pa(1 << 20), pa(3 << 20), "kernel");
	bootinfo_add_cpu(&bi, 0, 0, 0, 0, 0, true);
	bi.cpus[0].boot_cpu = true;
	bootinfo_sanitise(&bi);
	/* vCPU records (version 2): arm64's tag and 488-byte state. */
	bi.handover.vcpu_arch = HANDOVER_VCPU_ARM64;
	bi.handover.vcpu_state_bytes = HANDOVER_ARM64_STATE_BYTES;
}

/* The pieces' machine: RAM [AR_PA, + AR_SZ) only, all of it backed. */
static void machine_pieces(void)
{
	bootinfo_init(&bi_pieces, BOOT_SANDBOX);
	bootinfo_add_ram(&bi_pieces, pa(AR_PA), pa(AR_PA + AR_SZ), 0);
	bootinfo_add_reserved(&bi_pieces, pa(AR_PA + AR_SZ - 0x2000),
			      pa(AR_PA + AR_SZ - 0x1000), "kernel");
	bootinfo_add_cpu(&bi_pieces, 0, 0, 0, 0, 0, true);
	bi_pieces.cpus[0].boot_cpu = true;
	bootinfo_sanitise(&bi_pieces);
	bi_pieces.handover.vcpu_arch = HANDOVER_VCPU_ARM64;
	bi_pieces.handover.vcpu_state_bytes = HANDOVER_ARM64_STATE_BYTES;
}

/* Piece @k's address (the table is in piece 0: the reader checked it). */
static uint64_t piece_pa(const struct handover_view *v, uint32_t k)
{
	uint64_t p;

	memcpy(&p, v->head + v->table_off + (size_t)k * sizeof(p), sizeof(p));
	return p;
}

/* Does [s, e) overlap the handover's own memory (@pa: one block's)? */
static bool on_handover(const struct bi_handover *h, uint64_t at, uint64_t s,
			uint64_t e)
{
	if (h->view.count <= 1)
		return s < at + ALIGN_UP(h->hdr.size, PAGE_SIZE) && at < e;
	for (uint32_t k = 0; k < h->view.count; k++) {
		uint64_t p = piece_pa(&h->view, k);

		if (s < p + (1ull << h->view.shift) && p < e)
			return true;
	}
	return false;
}

/* A taken handover's pieces: ascending, aligned, in the pieces' RAM. */
static void check_pieces(const struct bi_handover *h)
{
	for (uint32_t k = 0; h->view.count > 1 && k < h->view.count; k++) {
		uint64_t p = piece_pa(&h->view, k);

		FUZZ_CHECK(!k || p > piece_pa(&h->view, k - 1));
		FUZZ_CHECK(IS_ALIGNED(p, 1ull << h->view.shift));
		FUZZ_CHECK(p >= AR_PA && p - AR_PA < AR_SZ);
	}
}

static bool in_pres(const struct bi_handover *h, uint64_t s, uint64_t e)
{
	for (unsigned int i = 0; i < h->preserved_count; i++) {
		struct handover_range r = handover_preserved_range(h, i);

		if (r.start <= s && e <= r.end)
			return true;
	}
	return false;
}

/* The frame table's placement: inside the bytes, each piece sane. */
static void check_ft(const struct bi_handover *h, const uint8_t *buf)
{
	const size_t bytes = h->ft_count * sizeof(struct handover_ft_piece);

	(void)buf;
	FUZZ_CHECK(h->ft_count <= HANDOVER_FT_PIECES_MAX);
	if (h->ft_count)
		FUZZ_CHECK(h->ft_pieces >= HANDOVER_HEADER_BYTES &&
			   h->ft_pieces + bytes <= h->hdr.size);
	for (unsigned int i = 0; i < h->ft_count; i++) {
		struct handover_ft_piece f = handover_ft_piece(h, i);

		FUZZ_CHECK(f.start < f.end &&
			   IS_ALIGNED(f.start | f.end, PAGE_SIZE));
		FUZZ_CHECK(f.node == HANDOVER_FT_SECTIONS ||
			   f.node < MAX_NUMNODES);
	}
}

/*
 * @h taken from @buf, which lies at @at; its bytes, its pieces', inside
 * [@lo, @hi); the machine's RAM below @ram_lo or from @ram_hi is G4's.
 */
static void check_taken(const struct bi_handover *h, const uint8_t *buf,
			uint64_t at, const uint8_t *lo, const uint8_t *hi)
{
	uint64_t last = 0;

	FUZZ_CHECK(h->state == HANDOVER_TAKEN);
	check_pieces(h);
	for (unsigned int i = 0; i < h->preserved_count; i++) {
		struct handover_range r = handover_preserved_range(h, i);

		FUZZ_CHECK(r.start < r.end && r.start >= last);
		FUZZ_CHECK(IS_ALIGNED(r.start | r.end, PAGE_SIZE));
		if (h->view.count <= 1 && at == HO_PA) {
			FUZZ_CHECK(r.start >= (3 << 20));
			FUZZ_CHECK(
				r.end <= (1ull << 30) ||
				(r.start >= G4 && r.end <= G4 + (1ull << 30)));
		} else {
			FUZZ_CHECK(r.start >= AR_PA && r.end <= AR_PA + AR_SZ);
			FUZZ_CHECK(r.end <= AR_PA + AR_SZ - 0x2000 ||
				   r.start >= AR_PA + AR_SZ - 0x1000);
		}
		FUZZ_CHECK(!on_handover(h, at, r.start, r.end));
		last = r.end;
	}
	for (unsigned int d = 0; d < h->domain_count; d++) {
		const struct bi_handover_domain *bd = &h->domains[d];

		FUZZ_CHECK(bd->id && bd->node < bi.node_count);
		FUZZ_CHECK(memchr(bd->name, 0, sizeof(bd->name)));
		FUZZ_CHECK(memchr(bd->kernel, 0, sizeof(bd->kernel)));
		FUZZ_CHECK(bd->vcpus <= HANDOVER_DOMAIN_VCPUS_MAX);
		for (uint32_t i = 0; i < bd->extent_count; i++) {
			struct handover_extent x =
				handover_domain_extent(bd, i);

			FUZZ_CHECK(
				in_pres(h, x.pa, x.pa + x.pages * PAGE_SIZE));
		}
		for (uint32_t i = 0; i < bd->table_count; i++) {
			struct handover_range t = handover_domain_tables(bd, i);

			FUZZ_CHECK(in_pres(h, t.start, t.end));
		}
	}
	for (unsigned int v = 0; v < h->vcpu_count; v++) {
		const struct bi_handover_vcpu *bv = &h->vcpus[v];
		bool dom = false;

		for (unsigned int d = 0; d < h->domain_count; d++)
			dom |= h->domains[d].id == bv->domain;
		FUZZ_CHECK(dom && bv->cpu < bi.cpu_count);
		FUZZ_CHECK(bv->arch == HANDOVER_VCPU_ARM64 &&
			   bv->state_bytes == HANDOVER_ARM64_STATE_BYTES);
		FUZZ_CHECK(h->hdr.version >= 2);
		/* The state lies inside the handover's memory. */
		FUZZ_CHECK(bv->state >= lo &&
			   bv->state + bv->state_bytes <= hi);
	}
	check_ft(h, buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_images(const uint8_t *data, size_t size)
{
	struct lu_image img;
	char why[128];

	if (!lu_image_multiboot1(data, size, &img, why, sizeof(why)))
		FUZZ_CHECK(img.file_off + (img.load_end - img.load) <= size &&
			   img.load <= img.entry && img.entry < img.load_end &&
			   img.load_end <= img.mem_end);
	if (!lu_image_arm64(data, size, &img, why, sizeof(why)))
		FUZZ_CHECK(img.load_end - img.load == size &&
			   img.load_end <= img.mem_end);
}

/*
 * The input at AR_PA on the pieces' machine, its checksum made right over
 * the pieces its header names when all lie in that RAM, then parsed.
 */
static void parse_in_pieces(const uint8_t *data, size_t size)
{
	struct handover_header hd;
	struct handover_view v = {.head = arena};
	size_t n = MIN(size, (size_t)AR_SZ);
	uint64_t len = n;

	memset(arena, 0, MAX(arena_dirty, n));
	memcpy(arena, data, n);
	arena_dirty = n;
	if (n < sizeof(hd) + 16)
		return;
	memcpy(&hd, arena, sizeof(hd));
	if (hd.version >= 7 && hd.piece_count >= 2 && hd.piece_shift >= 12 &&
	    hd.piece_shift <= 20 &&
	    hd.size <= (uint64_t)hd.piece_count << hd.piece_shift &&
	    128 + 16 + hd.piece_count * 8ull <= (1ull << hd.piece_shift) &&
	    (1ull << hd.piece_shift) <= n) {
		bool all = true;

		v.size = hd.size;
		v.shift = hd.piece_shift;
		v.count = hd.piece_count;
		v.table_off = 128 + 16;
		v.delta = (uintptr_t)arena - AR_PA;
		for (uint32_t k = 0; k < v.count; k++) {
			uint64_t p = piece_pa(&v, k);

			all &= p >= AR_PA && IS_ALIGNED(p, 1ull << v.shift) &&
			       p - AR_PA <= AR_SZ - (1ull << v.shift);
		}
		len = 1ull << v.shift;
		if (all) {
			hd.checksum = handover_view_checksum(&v);
			memcpy(arena, &hd, sizeof(hd));
		}
	} else if (hd.size <= n) {
		hd.checksum = handover_checksum(arena, hd.size);
		memcpy(arena, &hd, sizeof(hd));
	}
	if (!handover_parse(&bi_pieces, arena, len, pa(AR_PA)))
		check_taken(&bi_pieces.handover, arena, AR_PA, arena,
			    arena + AR_SZ);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct handover_header hd;

	fuzz_console_quiet();
	check_images(data, size);
	if (!bi.ram.count) {
		machine();
		machine_pieces();
	}
	if (!handover_parse(&bi, data, size, pa(HO_PA)))
		check_taken(&bi.handover, data, HO_PA, data, data + size);
	else
		FUZZ_CHECK(!strncmp(bi.handover.why, "handover: ", 10));
	parse_in_pieces(data, size);
	if (size < sizeof(hd) || size > sizeof(copy))
		return 0;
	memcpy(copy, data, size);
	memcpy(&hd, copy, sizeof(hd));
	if (hd.size <= size) {
		hd.checksum = handover_checksum(copy, hd.size);
		memcpy(copy, &hd, sizeof(hd));
	}
	if (!handover_parse(&bi, copy, size, pa(HO_PA)))
		check_taken(&bi.handover, copy, HO_PA, copy, copy + size);
	return 0;
}
